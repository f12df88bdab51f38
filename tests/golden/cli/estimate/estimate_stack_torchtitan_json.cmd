$GPUPLAN estimate llama-3.1-8b --stack torchtitan --gpu h100-sxm:8 --tokens 1e9 --format json
