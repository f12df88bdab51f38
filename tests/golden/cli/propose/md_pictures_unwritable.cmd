SOURCE_DATE_EPOCH=1764547200 $GPUPLAN propose llama-3.1-8b --format md -o /nonexistent-gpuplan-dir/offer.md
