$GPUPLAN inspect Qwen/qwen2.5-7b
