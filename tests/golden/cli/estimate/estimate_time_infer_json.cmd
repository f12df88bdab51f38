$GPUPLAN estimate mixtral-8x7b --method infer --gpu h100-sxm:2 --batch 32 --format json | awk '/^  "(cost|throughput|throughput_error|time)": /{p=1} p{print} p&&/^  }/{p=0}'
