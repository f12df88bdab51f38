$GPUPLAN inspect $SHARED/fixtures/hf-configs/deepseek-v3.json
