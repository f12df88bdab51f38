$GPUPLAN estimate llama-3.1-8b --gpu h100-sxm:8 --sharding fsdp --tokens 1e9 --epochs 2 --format json | awk '/^  "(cost|throughput|throughput_error|time)": /{p=1} p{print} p&&/^  }/{p=0}'
