$GPUPLAN recommend deepseek-r1 --method infer --input-tokens 8192 --output-tokens 512 --concurrency 64 --tpot-ms 60 --top 3
