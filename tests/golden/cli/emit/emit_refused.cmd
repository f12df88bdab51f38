$GPUPLAN emit deepspeed tests/golden/data/plan-qlora-8b.json --plan 2
