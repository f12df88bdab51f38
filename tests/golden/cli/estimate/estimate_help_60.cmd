COLUMNS=60 $GPUPLAN estimate --help
