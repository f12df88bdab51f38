$GPUPLAN recommend llama-3.1-70b --method full --tokens 1B --gpu gb300
