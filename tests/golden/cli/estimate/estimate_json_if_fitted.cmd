$GPUPLAN estimate llama-3.1-8b --method full --gpu rtx-4090 --tokens 100M --format json | grep -n -e "\"fits\"" -e "if_fitted" -e "cloud_usd"
