$GPUPLAN tco --gpu h100-sxm:16 --ram-gib 4000 --format json
