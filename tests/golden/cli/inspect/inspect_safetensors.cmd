$GPUPLAN inspect $FIXTURES/weights/llama-3.2-3b_model-00001-model.layers.0.input_layernorm.weight.safetensors
