$GPUPLAN recommend qwen3-30b-a3b --method infer --engine sglang --concurrency 128 --tpot-ms 40 --on-prem --gpu h100-sxm,h200-sxm --top 2
