$GPUPLAN estimate gpt2-large --method lora --lora-targets q_proj,v_proj --gpu h100-sxm
