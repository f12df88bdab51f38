#!/bin/sh
# Throughput accuracy: score the time model against the published rows of
# validation/measurements.csv; fail when the median error passes 25 %.
# Uses the binaries of $BUILD (built by `make check`); builds nothing.
set -u
BUILD=${BUILD:-build}
tool=$BUILD/tools/accuracy_throughput
csv=validation/measurements.csv
if [ ! -x "$tool" ]; then
    echo "suite: accuracy_throughput: $tool not built"
    echo "0 passed, 1 failed"
    exit 1
fi
if [ ! -f "$csv" ]; then
    echo "note: $csv missing; throughput accuracy not scored"
    echo "0 passed, 1 failed"
    exit 1
fi
out=$("$tool" --csv "$csv" --max-median 0.25)
rc=$?
echo "$out"
summary=$(echo "$out" | tail -n 1)
echo "note: throughput $summary"
if [ "$rc" = 0 ]; then
    echo "1 passed, 0 failed"
else
    echo "0 passed, 1 failed"
fi
exit "$rc"
