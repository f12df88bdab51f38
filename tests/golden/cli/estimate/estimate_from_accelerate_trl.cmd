$GPUPLAN estimate --from $FIXTURES/configs/accelerate-fsdp.yaml --from trl:$FIXTURES/configs/trl-example-config.yaml llama-3.2-1b --gpu h100-sxm:2 --micro-batch 2
