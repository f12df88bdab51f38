$GPUPLAN frobnicate
