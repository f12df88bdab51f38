$GPUPLAN estimate llama-3.1-8b --gpu h100-sxm:4 --pp 2 --vpp 2 --grad-accum 8 --stack megatron
