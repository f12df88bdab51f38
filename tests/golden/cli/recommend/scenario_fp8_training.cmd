$GPUPLAN recommend llama-3.1-8b --method full --tokens 1B --gpu h100-sxm --allow fp8 --top 1
