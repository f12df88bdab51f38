$GPUPLAN recommend llama-3.1-405b --method full --tokens 1B --on-prem --budget 50000
