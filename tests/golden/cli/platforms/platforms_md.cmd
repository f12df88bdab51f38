$GPUPLAN platforms --format md
