$GPUPLAN recommend llama-3.3-70b --method infer --max-model-len 8192 --concurrency 32 --gpu h100-sxm --emit vllm
