$GPUPLAN estimate llama-3.1-8b --format md
