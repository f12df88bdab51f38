$GPUPLAN estimate llama-3.1-70b --method qlora --lora-targets all-linear --gpu a100-80gb-sxm --dataset-tokens 50M --epochs 3 | sed -n "/^throughput:/,\$p"
