#!/bin/sh
# The main job on the embedded catalog (see README): what server to use for
# a real fine-tuning job, and whether to buy it or rent it.
set -eu
GPUPLAN=${1:-build/gpuplan}
# Exit 3 (DOES NOT FIT) and 4 (MAY NOT FIT) are the estimate's verdicts, answers the demo
# shows, not failures (README, "Will it fit?").
run() {
    echo "\$ gpuplan $*"
    rc=0
    "$GPUPLAN" "$@" || rc=$?
    if [ "$rc" != 0 ] && [ "$rc" != 3 ] && [ "$rc" != 4 ]; then
        exit "$rc"
    fi
    echo
}
if "$GPUPLAN" recommend --help >/dev/null 2>&1; then
    run recommend llama-3.1-70b --method qlora --tokens 100M --top 3
fi
run estimate llama-3.1-70b --method qlora --gpu h100-sxm
run tco --gpu h100-sxm:8 --hours-per-day 8
