$GPUPLAN recommend llama-3.1-70b --method full --tokens 1B --on-prem --budget 60000 --emit deepspeed
