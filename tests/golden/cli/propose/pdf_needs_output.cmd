$GPUPLAN propose llama-3.1-8b --format pdf
