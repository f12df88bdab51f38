HF_HUB_CACHE= HF_HOME=/nonexistent/gpuplan-hf-home $GPUPLAN estimate acme/Tiny-Llama-1B --gpu rtx-4090
