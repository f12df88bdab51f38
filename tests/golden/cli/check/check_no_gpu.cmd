$GPUPLAN check $FIXTURES/configs/axolotl-qlora-1b.yml --model llama-3.2-1b
