$GPUPLAN recommend llama-3.1-70b --method lora --tokens 100M --gpu h100-sxm --max-gpus 16 --objective time --emit accelerate
