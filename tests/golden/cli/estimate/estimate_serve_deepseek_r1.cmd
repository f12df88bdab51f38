$GPUPLAN estimate deepseek-r1 --method infer --gpu h200-sxm:8 | sed -n "/^GPU KV cache/,\$p"
