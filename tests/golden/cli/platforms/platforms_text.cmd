$GPUPLAN platforms
