$GPUPLAN recommend llama-3.1-70b --method qlora --tokens 100M --cloud --gpu h200-sxm,h100-sxm --top 2
