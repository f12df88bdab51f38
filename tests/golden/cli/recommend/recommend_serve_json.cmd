$GPUPLAN recommend deepseek-r1 --method infer --input-tokens 1024 --output-tokens 1024 --concurrency 64 --tpot-ms 60 --gpu h200-sxm,mi300x --top 1 --format json
