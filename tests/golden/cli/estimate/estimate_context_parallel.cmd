$GPUPLAN estimate llama-3.1-8b --stack torchtitan --gpu h100-sxm:8 --seq-len 131072 --cp 8 --grad-ckpt full
