$GPUPLAN estimate llama-3.1-8b --method lora --compile yes --gpu rtx-4090 --seq-len 2048 --micro-batch 2 --grad-ckpt full | sed -n "/^throughput:/,\$p"
