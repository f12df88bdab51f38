$GPUPLAN recommend llama-3.1-70b --method qlora --tokens 100M --on-prem --gpu h200-sxm --top 1
