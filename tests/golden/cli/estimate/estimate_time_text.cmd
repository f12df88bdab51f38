$GPUPLAN estimate llama-3.1-8b --gpu h100-sxm:8 --sharding fsdp --tokens 1e9 --epochs 2
