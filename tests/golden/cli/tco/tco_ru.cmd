$GPUPLAN tco --gpu h100-sxm:8 --lang ru
