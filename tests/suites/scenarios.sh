#!/bin/sh
# scenarios.sh - the scenario book (docs/scenarios.md) equals its golden tests:
# every scenario's command, exit status and quoted answer lines are those of
# tests/golden/cli/recommend/scenario_NAME.*, every scenario golden is in the
# book, and the book has at least 25 scenarios (tools/scenarios.py check).
# The goldens themselves are checked against the binary by tests/golden/run.sh.
# Ends with "N passed, N failed".
cd "$(dirname "$0")/../.." || exit 1
if ! command -v python3 >/dev/null 2>&1; then
    echo "FAIL python3 is needed to read the book"
    echo "0 passed, 1 failed"
    exit 1
fi
python3 tools/scenarios.py check
