$GPUPLAN estimate llama-3.1-8b --method infer --gpu h100-sxm:2 --tp 4
