$GPUPLAN recommend llama-3.1-8b --method qlora --tokens 1B --on-prem --top 3
