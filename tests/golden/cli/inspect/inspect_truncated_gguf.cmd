$GPUPLAN inspect tests/golden/data/truncated.gguf
