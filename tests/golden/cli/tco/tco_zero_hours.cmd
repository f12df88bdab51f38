$GPUPLAN tco --gpu h100-sxm:8 --hours-per-day 0
