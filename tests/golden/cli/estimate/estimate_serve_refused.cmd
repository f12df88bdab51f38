$GPUPLAN estimate llama-3.3-70b --method infer --gpu h100-sxm:2
