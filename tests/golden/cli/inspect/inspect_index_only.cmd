$GPUPLAN inspect $FIXTURES/hf-configs/llama-3.2-3b.resharded.safetensors.index.json
