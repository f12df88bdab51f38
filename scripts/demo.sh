#!/bin/sh
# The main job on the embedded catalog (see README).
set -eu
GPUPLAN=${1:-build/gpuplan}
echo "\$ gpuplan --version"
"$GPUPLAN" --version
