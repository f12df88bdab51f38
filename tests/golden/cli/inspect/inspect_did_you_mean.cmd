$GPUPLAN inspect llama-3.1-7b
