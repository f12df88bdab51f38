$GPUPLAN recommend llama-3.1-8b --method full --tokens 1B --top 3
