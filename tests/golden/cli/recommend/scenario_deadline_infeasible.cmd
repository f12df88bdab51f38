$GPUPLAN recommend llama-3.1-70b --method full --tokens 1B --cloud --deadline-hours 1 --max-gpus 16
