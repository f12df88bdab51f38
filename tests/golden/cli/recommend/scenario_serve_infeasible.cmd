$GPUPLAN recommend llama-3.3-70b --method infer --concurrency 8 --tpot-ms 2
