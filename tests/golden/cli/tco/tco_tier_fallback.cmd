$GPUPLAN tco --gpu mi325x:8 --cloud-tier commit-1y
