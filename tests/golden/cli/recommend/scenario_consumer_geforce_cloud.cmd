$GPUPLAN recommend llama-3.1-8b --method qlora --tokens 100M --cloud --gpu rtx-4090,rtx-5090 --top 2
