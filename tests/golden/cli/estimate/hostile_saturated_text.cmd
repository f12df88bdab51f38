$GPUPLAN estimate llama-3.1-70b --seq-len 16M --micro-batch 1M --gpu h100-sxm:8 | grep -E '^(verdict|  --micro-batch)' | sed 's/[0-9][0-9.]*/N/g'
