$GPUPLAN recommend llama-3.1-8b --method full --tokens 10B --max-run-days 1 --gpu h100-sxm,l40s --top 2
