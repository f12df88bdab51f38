$GPUPLAN recommend deepseek-v3 --method infer --context 8192 --concurrency 64 --gpu h200-sxm,mi300x --top 1 --format json
