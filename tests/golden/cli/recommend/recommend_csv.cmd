$GPUPLAN recommend llama-3.1-8b --method qlora --tokens 100M --format csv
