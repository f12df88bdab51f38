$GPUPLAN recommend llama-3.1-70b --method infer --format csv
