$GPUPLAN estimate llama-3.1-8b --tp 3 --gpu h100-sxm:3
