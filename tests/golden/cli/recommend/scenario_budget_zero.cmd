$GPUPLAN recommend llama-3.1-8b --method lora --tokens 1B --budget 0
