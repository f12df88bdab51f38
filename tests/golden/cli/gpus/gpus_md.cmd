$GPUPLAN gpus --format md
