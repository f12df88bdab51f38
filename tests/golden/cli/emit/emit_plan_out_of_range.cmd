$GPUPLAN emit vllm tests/golden/data/plan-qlora-8b.json --plan 3
