$GPUPLAN recommend llama-3.1-8b --deadline-hours 5
