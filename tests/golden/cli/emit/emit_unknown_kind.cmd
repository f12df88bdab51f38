$GPUPLAN emit megatron tests/golden/data/plan-qlora-8b.json
