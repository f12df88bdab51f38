$GPUPLAN estimat llama-3.1-8b
