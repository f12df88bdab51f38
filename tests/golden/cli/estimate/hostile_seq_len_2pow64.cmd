$GPUPLAN estimate llama-3.1-8b --seq-len 18446744073709551616
