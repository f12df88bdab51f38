$GPUPLAN estimate llama-3.1-8b --tokens 1e9 --format json | grep -cE '"(throughput|time|cost)"'
