$GPUPLAN recommend llama-3.3-70b --method infer --input-tokens 2048 --output-tokens 512 --request-rate 10 --ttft-ms 1000 --tpot-ms 50 --top 3
