$GPUPLAN tco --gpu h100-sxm:8 --gpu-price 1e308
