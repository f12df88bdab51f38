$GPUPLAN platforms --format csv
