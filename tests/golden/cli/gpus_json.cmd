$GPUPLAN gpus --format json
