$GPUPLAN check $FIXTURES/configs/axolotl-fft-8b-liger-fsdp.yaml --gpu rtx-4090:2 --model llama-3.1-8b --offload none
