$GPUPLAN inspect
