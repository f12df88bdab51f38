$GPUPLAN recommend llama-3.1-70b --method qlora --tokens 100M --on-prem --hours-per-day 8 --top 3
