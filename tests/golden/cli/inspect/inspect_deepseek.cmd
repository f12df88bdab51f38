$GPUPLAN inspect $FIXTURES/hf-configs/deepseek-v3.json
