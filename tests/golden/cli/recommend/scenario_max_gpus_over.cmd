$GPUPLAN recommend llama-3.1-405b --method full --tokens 1B --max-gpus 2048
