$GPUPLAN estimate llama-3.1-8b --stack torchtitan --grad-ckpt none --sharding ddp --precision bf16 --gpu h100-sxm:2
