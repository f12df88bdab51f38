timeout 10 $GPUPLAN estimate /dev/zero
