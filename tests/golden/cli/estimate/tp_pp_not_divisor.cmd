$GPUPLAN estimate llama-3.1-8b --gpu h100-sxm:8 --pp 3
