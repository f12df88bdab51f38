$GPUPLAN --help
