#!/bin/sh
# Memory-model accuracy against validation/measurements.csv (docs/validation.md).
#
# Two gates on the band rule (an unknown-kind figure scores 0 inside
# [predicted allocated, predicted device total incl. CUDA context], else the
# distance to the nearer end), over every scored row, torch.compile rows
# included since the model derives what compile saves:
#  - the memory issue's target, median <= 10 % and p90 <= 25 %: reported here
#    as a note and enforced by `make accuracy`. The median is met (7.2 % over
#    53 rows) and gated below; the p90 is NOT met today (34.2 %: see
#    docs/validation.md for the rows that miss and why), so it cannot gate CI
#    without blocking every other change;
#  - a regression gate at today's figures (median <= REG_MEDIAN, p90 <= REG_P90):
#    a change that makes the model worse fails `make check`. Tighten these
#    whenever the model improves; never loosen them (they were set on 29 rows
#    at 8.5 / 34 before the 24 compile rows joined on 2026-11-30).
set -u
BUILD=${BUILD:-build}
REG_MEDIAN=${REG_MEDIAN:-7.5}
REG_P90=${REG_P90:-34.5}
if ! make --no-print-directory -s BUILD="$BUILD" SAN="${SAN:-}" "$BUILD/tools/accuracy" >/dev/null 2>&1; then
    echo "suite: cannot build $BUILD/tools/accuracy"
    echo "0 passed, 1 failed"
    exit 1
fi
out=$("$BUILD/tools/accuracy" --csv validation/measurements.csv --max-median 10 --max-p90 25 2>&1)
echo "$out" | grep -E '^  gpuplan|^  (LlamaFactory|18 B|accelerate)' | sed 's/^/note: /'
echo "$out" | grep '^suite:' | sed 's/^suite: /note: issue target: /'
"$BUILD/tools/accuracy" --csv validation/measurements.csv --max-median "$REG_MEDIAN" --max-p90 "$REG_P90" |
    grep -E '^suite:|passed, [0-9]+ failed$' | sed 's/^suite: /suite: regression gate: /'
