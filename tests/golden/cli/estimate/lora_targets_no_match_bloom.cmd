$GPUPLAN estimate bloomz-7b1 --method qlora --lora-targets q_proj --gpu rtx-4090
