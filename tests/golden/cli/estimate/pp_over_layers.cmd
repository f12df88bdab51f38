$GPUPLAN estimate llama-3.2-1b --gpu h100-sxm:8 --nodes 4 --pp 32
