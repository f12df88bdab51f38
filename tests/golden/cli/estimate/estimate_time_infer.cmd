$GPUPLAN estimate llama-3.1-8b --method infer --gpu h100-sxm --batch 16 --context 4096 | sed -n "/^throughput:/,\$p"
