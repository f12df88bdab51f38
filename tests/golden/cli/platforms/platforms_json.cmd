$GPUPLAN platforms --format json
