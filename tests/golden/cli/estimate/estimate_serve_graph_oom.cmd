$GPUPLAN estimate llama-3.1-8b --method infer --gpu l4 --max-model-len 4096 --engine-version 0.11.0 --gpu-memory-utilization 0.99 | sed -n "/^GPU KV cache/,/^suggestions/p"
