$GPUPLAN check $FIXTURES/configs/trl-example-config.yaml --gpu h100-sxm --model llama-3.2-1b --format json
