$GPUPLAN estimate llama-3.1-8b --method infer --gpu h100-sxm --concurrency 16 --max-model-len 8192 | sed -n "/^GPU KV cache/,\$p"
