SOURCE_DATE_EPOCH=1764547200 $GPUPLAN propose qwen2.5-7b --method infer --concurrency 32 --gpu l40s,h100-sxm --format md
