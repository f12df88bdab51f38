$GPUPLAN estimate llama-3.1-8b --gpu h100-sxm --tokens 1e9 --dataset-tokens 2e9
