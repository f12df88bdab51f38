$GPUPLAN estimate mixtral-8x7b --ep 2 --gpu h100-sxm:2
