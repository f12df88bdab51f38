$GPUPLAN estimate llama-3.1-70b --method full --gpu h100-sxm:8 --nodes 2 --tp 4 --pp 2 --sharding zero2
