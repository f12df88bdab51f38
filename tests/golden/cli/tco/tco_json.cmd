$GPUPLAN tco --gpu a100-80gb-sxm:8 --gpu-price 15000 --hours-per-day 20 --format json
