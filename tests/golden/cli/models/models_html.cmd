$GPUPLAN models --format html
