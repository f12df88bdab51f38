$GPUPLAN inspect ./no/such/config.json
