$GPUPLAN tco --catalog tests/golden/cli/hostile_catalog.d/unpriced --gpu my-gpu:8
