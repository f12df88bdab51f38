$GPUPLAN estimate mixtral-8x7b --method infer --tp 2 --ep 4 --gpu h100-sxm:2 --format json
