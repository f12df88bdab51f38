$GPUPLAN recommend llama-3.1-8b --top 0
