$GPUPLAN recommend llama-3.1-8b --method lora --tokens 1B --cloud --budget 50 --objective time --top 3
