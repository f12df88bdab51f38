$GPUPLAN recommend llama-3.1-8b --method lora --cp 2
