$GPUPLAN recommend deepseek-r1 --method infer --gpu h200-sxm --concurrency 1 --top 1
