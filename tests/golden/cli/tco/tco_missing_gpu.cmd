$GPUPLAN tco --hours-per-day 8
