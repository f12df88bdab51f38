$GPUPLAN recommend llama-3.1-8b --method lora --gpu h100-sxm --grad-ckpt full --top 1 --emit k8s
