$GPUPLAN estimate llama-3.1-8b --method qlora --micro-batch 2 --gpu rtx-4090
