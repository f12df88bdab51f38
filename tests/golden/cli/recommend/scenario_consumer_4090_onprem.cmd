$GPUPLAN recommend llama-3.1-8b --method qlora --tokens 100M --on-prem --gpu rtx-4090 --top 3
