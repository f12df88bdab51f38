$GPUPLAN recommend llama-3.1-70b --method full --tokens 1B --vendor nvidia --on-prem --top 2
