$GPUPLAN estimate llama-3.1-8b --method lora --lora-alpha nan
