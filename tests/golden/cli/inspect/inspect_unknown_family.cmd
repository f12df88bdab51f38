$GPUPLAN inspect tests/golden/data/unknown-family.json
