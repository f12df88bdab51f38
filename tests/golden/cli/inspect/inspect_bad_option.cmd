$GPUPLAN inspect llama-3.1-8b --colour
