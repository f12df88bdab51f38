$GPUPLAN propose llama-3.1-70b --tokens 1B --budget 1 --format md
