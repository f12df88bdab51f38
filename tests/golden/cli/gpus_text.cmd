$GPUPLAN gpus
