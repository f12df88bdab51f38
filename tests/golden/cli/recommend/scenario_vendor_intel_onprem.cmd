$GPUPLAN recommend llama-3.1-8b --method full --tokens 1B --vendor intel --on-prem --top 1
