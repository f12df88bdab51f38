$GPUPLAN estimate llama-3.1-8b --micro-batch 1e30 --gpu h100-sxm:8
