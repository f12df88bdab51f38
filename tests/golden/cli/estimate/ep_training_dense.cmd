$GPUPLAN estimate llama-3.1-8b --ep 2 --gpu h100-sxm:2
