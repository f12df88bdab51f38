$GPUPLAN recommend llama-3.1-70b --method qlora --tokens 100M --top 3
