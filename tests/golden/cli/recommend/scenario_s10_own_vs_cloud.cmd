$GPUPLAN recommend llama-3.1-8b --method lora --tokens 1B --on-prem --hours-per-day 5 --gpu h100-sxm --top 2
