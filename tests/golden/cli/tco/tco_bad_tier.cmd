$GPUPLAN tco --gpu h100-sxm:8 --cloud-tier spot
