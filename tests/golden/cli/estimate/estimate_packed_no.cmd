$GPUPLAN estimate llama-3-8b --gpu a100-80gb-sxm:8 --sharding fsdp --packed no --grad-ckpt full
