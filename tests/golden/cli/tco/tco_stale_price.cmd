$GPUPLAN tco --gpu gaudi3:8 --cloud-price 3.5
