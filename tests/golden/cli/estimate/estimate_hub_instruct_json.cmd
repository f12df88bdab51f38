$GPUPLAN estimate meta-llama/Llama-3.1-8B-Instruct --method qlora --gpu rtx-4090 --format json
