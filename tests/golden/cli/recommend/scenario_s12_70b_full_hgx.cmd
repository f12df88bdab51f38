$GPUPLAN recommend llama-3.1-70b --method full --tokens 1B --on-prem --gpu h100-sxm,h200-sxm,b200 --top 3
