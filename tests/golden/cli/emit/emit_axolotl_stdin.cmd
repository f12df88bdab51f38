$GPUPLAN emit axolotl < tests/golden/data/plan-qlora-8b.json
