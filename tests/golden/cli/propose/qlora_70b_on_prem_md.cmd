SOURCE_DATE_EPOCH=1764547200 $GPUPLAN propose llama-3.1-70b --method qlora --on-prem --format md
