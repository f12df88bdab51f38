$GPUPLAN inspect $FIXTURES/weights/llama-2-tiny-random.gguf
