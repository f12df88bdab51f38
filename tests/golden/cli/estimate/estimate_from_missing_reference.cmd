$GPUPLAN estimate --from $FIXTURES/configs/accelerate-deepspeed.yaml llama-3.1-8b --gpu h100-sxm:8 --micro-batch 2
