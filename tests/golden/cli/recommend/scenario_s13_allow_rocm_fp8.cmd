$GPUPLAN recommend llama-3.1-8b --method full --tokens 1B --allow rocm,fp8 --top 3
