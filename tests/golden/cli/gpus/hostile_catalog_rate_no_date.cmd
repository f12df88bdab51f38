$GPUPLAN gpus --catalog tests/golden/cli/hostile_catalog.d/rate_no_date
