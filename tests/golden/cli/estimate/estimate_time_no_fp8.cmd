$GPUPLAN estimate llama-3.1-8b --gpu a100-80gb-sxm --precision fp8-mixed | tail -n 1
