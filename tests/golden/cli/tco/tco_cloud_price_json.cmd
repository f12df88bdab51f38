$GPUPLAN tco --gpu rtx-4090:4 --cloud-price 0.9 --hours-per-day 12 --format json
