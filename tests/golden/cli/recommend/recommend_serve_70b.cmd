$GPUPLAN recommend llama-3.1-70b --method infer --context 8192 --concurrency 32 --target-tokens-per-s 20 --vendor nvidia --top 2
