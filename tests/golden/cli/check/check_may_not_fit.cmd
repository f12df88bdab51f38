$GPUPLAN check $FIXTURES/configs/axolotl-qlora-1b.yml --gpu t4 --model llama-3.2-1b --micro-batch 3
