HF_HUB_CACHE= HF_HOME=tests/fixtures/hf-home-missing $GPUPLAN estimate acme/Tiny-Llama-1B --gpu rtx-4090
