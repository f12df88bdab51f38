$GPUPLAN tco --gpu a100-80gb-sxm:8
