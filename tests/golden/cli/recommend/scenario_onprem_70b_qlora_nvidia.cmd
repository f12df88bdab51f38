$GPUPLAN recommend llama-3.1-70b --method qlora --tokens 100M --on-prem --vendor nvidia --top 3
