$GPUPLAN estimate llama-3.1-8b --method lora --gpu mi325x --tokens 100M --cloud-tier hyperscaler
