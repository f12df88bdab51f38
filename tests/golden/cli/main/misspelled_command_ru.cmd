$GPUPLAN --lang ru recomend llama-3.1-8b
