$GPUPLAN gpus --catalog tests/golden/cli/hostile_catalog.d/zero
