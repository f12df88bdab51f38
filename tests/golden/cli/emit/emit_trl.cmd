$GPUPLAN emit trl tests/golden/data/plan-qlora-8b.json
