$GPUPLAN recommend llama-3.1-70b --method qlora --tokens 100M --cloud --gpu h100-sxm --objective time --top 1
