HF_HUB_CACHE=tests/fixtures/hf-cache $GPUPLAN inspect acme/Tiny-Llama-1B
