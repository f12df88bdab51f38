$GPUPLAN tco --gpu h100-sxm:16 --cloud-tier hyperscaler --ram-gib 4000 --nvme-tb 60
