$GPUPLAN gpus --format csv
