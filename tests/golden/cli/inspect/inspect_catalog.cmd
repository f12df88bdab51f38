$GPUPLAN inspect llama-3.1-70b
