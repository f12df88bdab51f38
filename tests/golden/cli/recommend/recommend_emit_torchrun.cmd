$GPUPLAN recommend llama-3.1-8b --method lora --tokens 100M --gpu h100-sxm --max-gpus 8 --objective time --emit torchrun
