$GPUPLAN estimate llama-3.1-8b --method lora --gpu h100-sxm --tokens 100M --cloud-tier marketplace --format json
