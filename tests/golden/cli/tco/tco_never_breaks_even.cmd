$GPUPLAN tco --gpu h100-sxm:8 --cloud-price 1.2
