$GPUPLAN estimate llama-3.1-8b --method lora --stack torchtune --gpu h100-sxm --tokens 1e8
