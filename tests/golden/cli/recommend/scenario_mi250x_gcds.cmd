$GPUPLAN recommend llama-3.1-8b --method lora --tokens 100M --gpu mi250x --top 1
