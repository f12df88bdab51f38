$GPUPLAN recommend deepseek-v3 --method qlora --tokens 100M --top 1
