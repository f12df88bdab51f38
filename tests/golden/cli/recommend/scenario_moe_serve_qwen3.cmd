$GPUPLAN recommend qwen3-30b-a3b --method infer --concurrency 128 --tpot-ms 40 --on-prem --top 2
