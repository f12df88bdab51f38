$GPUPLAN models --format csv
