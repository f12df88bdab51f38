$GPUPLAN check $FIXTURES/configs/axolotl-qlora-1b.yml --gpu rtx-4090 --format csv
