#!/bin/sh
# The main job on the embedded catalog (see README): what server to use for
# a real fine-tuning job, and whether to buy it or rent it.
set -eu
GPUPLAN=${1:-build/gpuplan}
run() {
    echo "\$ gpuplan $*"
    "$GPUPLAN" "$@"
    echo
}
if "$GPUPLAN" recommend --help >/dev/null 2>&1; then
    run recommend llama-3.1-70b --method qlora --tokens 100M --top 3
fi
run estimate llama-3.1-70b --method qlora --gpu h100-sxm
run tco --gpu h100-sxm:8 --hours-per-day 8
