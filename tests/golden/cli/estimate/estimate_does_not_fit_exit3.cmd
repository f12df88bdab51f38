$GPUPLAN estimate llama-3.1-8b --method full --gpu rtx-4090 --tokens 100M
