SOURCE_DATE_EPOCH=1764547200 $GPUPLAN propose llama-3.1-8b --method lora --tokens 2B --gpu h100-sxm,a100-80gb-sxm,l40s --format html
