$GPUPLAN models
