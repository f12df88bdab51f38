$GPUPLAN recommend llama-3.1-70b --method full --tokens 1B --cloud --deadline-hours 12 --top 3
