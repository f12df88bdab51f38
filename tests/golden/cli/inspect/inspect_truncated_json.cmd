$GPUPLAN inspect tests/golden/data/truncated.json
