#!/bin/sh
# Throughput accuracy: score the time model against the published rows of
# validation/measurements.csv (docs/validation.md). Headline: out of sample
# (GEN_EFF and FP8_FACTOR refitted without the row's source family).
# Gates:
#  - regression gates at today's out-of-sample figures (set 2026-12-01 on 107
#    rows, the 44 NT- rows included; moved 2026-12-02 with the MoE / EP / CP /
#    vpp time model: median 0.28 -> 0.26 and coverage 0.70 -> 0.72 tightened,
#    p90 1.30 -> 1.41 loosened: NT-004 (Qwen3-30B-A3B, 16 A800, measured at
#    ~10 % MFU) went from +35 % to +219 % once EP took the full-model ZeRO-1
#    traffic that had hidden its gap, and the TITAN rows' held-out Hopper
#    constant rose when the Qwen3-235B Megatron rows stopped implying ~0.2, so
#    GT-155 went from +141 % to +199 % and the B200 TITAN rows by +1..+3
#    points; the four XT capacity-factor rows among the ten worst came down by
#    60-80 points):
#    median <= REG_MEDIAN, p90 <= REG_P90, coverage >= REG_COVERAGE
#    (fractions; the coverage gate set 2026-12-02 with the split-conformal
#    intervals, leave-one-source-out, on the merged model). Tighten when the model improves; never loosen without a
#    reason written here. Tightened 2026-12-02 to median 0.23, p90 0.84 when
#    the 29 usable throughput rows of NT-137..200 joined (136 rows: 22.4 %,
#    83.0 % out of sample, the model unchanged by them).
#  - the former gate, kept on the rows it was set on (the 63 GT- rows, library
#    constants): median <= 0.25.
#  - validation/intervals-throughput.csv must equal what the tool computes now.
# The issue's targets (out-of-sample median <= 15 %, coverage >= 80 %) are
# printed as notes. Uses the binaries of $BUILD (built by `make check`).
. "$(dirname "$0")/../lib/suite.sh"
REG_MEDIAN=${REG_MEDIAN:-0.23}
REG_P90=${REG_P90:-0.84}
REG_COVERAGE=${REG_COVERAGE:-0.83}
tool=$BUILD/tools/accuracy_throughput
csv=validation/measurements.csv
[ -x "$tool" ] || abort "accuracy_throughput: $tool not built"
[ -f "$csv" ] || abort "$csv missing; throughput accuracy not scored"
"$tool" --csv "$csv" --target-median 0.15 --target-coverage 0.80 2>&1 |
    grep -E '^  (library constants|in sample|OUT OF SAMPLE|  rows of the)|^coverage|^interval width|^target:' |
    sed 's/^ */note: /'
"$tool" --csv "$csv" --max-median "$REG_MEDIAN" --max-p90 "$REG_P90" --min-coverage "$REG_COVERAGE" \
    --max-gt-lib-median 0.25 --check-intervals validation/intervals-throughput.csv |
    sed -n '/^suite:/,$p' | grep -E '^suite:|^intervals:|^  (file|now):|passed, [0-9]+ failed$' |
    sed 's/^suite: /suite: regression gate: /'
