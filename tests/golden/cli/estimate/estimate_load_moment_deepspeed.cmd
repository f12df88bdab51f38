$GPUPLAN estimate llama-3.1-70b --stack deepspeed --sharding zero3 --method lora --seq-len 512 --gpu h100-sxm:8
