$GPUPLAN estimate qwen2.5-7b --method infer --engine sglang --gpu h100-sxm --max-model-len 32768 --concurrency 64 --input-tokens 2048 --output-tokens 256
