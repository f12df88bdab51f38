$GPUPLAN estimate llama-3.1-8b --method lora --gpu l40s:8 --nodes 2 --tokens 1B
