$GPUPLAN recommend llama-3.1-70b --method full --tokens 1B --on-prem --vendor nvidia --emit deepspeed
