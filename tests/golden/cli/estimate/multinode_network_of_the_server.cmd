$GPUPLAN estimate llama-3.1-70b --method full --sharding fsdp --gpu b300:8 --nodes 18 --tokens 10B
