$GPUPLAN inspect $SHARED/fixtures/weights/llama-2-tiny-random.gguf
