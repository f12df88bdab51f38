$GPUPLAN inspect tests/golden/data/zero-heads.json
