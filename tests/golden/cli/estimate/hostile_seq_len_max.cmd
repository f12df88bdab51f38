$GPUPLAN estimate llama-3.1-70b --seq-len 16M --micro-batch 1M --gpu h100-sxm:8 --format json | grep -E '^  "(fits|model)"'
