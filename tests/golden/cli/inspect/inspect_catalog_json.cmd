$GPUPLAN inspect qwen3-30b-a3b --format json
