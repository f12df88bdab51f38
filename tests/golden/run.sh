#!/bin/sh
# Golden CLI tests (zstd cli-tests style). Each case is
# tests/golden/cli/COMMAND/NAME.cmd (grouped by the command it runs; main/ for
# the global ones), one shell line run from the repository root with $GPUPLAN
# set to the binary and $FIXTURES to tests/fixtures; its stdout, stderr and
# exit code are compared with NAME.stdout, NAME.stderr, NAME.exit.
# GOLDEN_UPDATE=1 (`make golden-update`) rewrites them.
# Ends with "golden: N passed, N failed".
set -u
BUILD=${BUILD:-build}
GPUPLAN=$(pwd)/$BUILD/gpuplan
FIXTURES=tests/fixtures
export GPUPLAN FIXTURES BUILD
export LC_ALL=C LANG=C
unset LANGUAGE LC_MESSAGES COLUMNS
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for cmd in tests/golden/cli/*/*.cmd; do
    [ -e "$cmd" ] || continue
    base=${cmd%.cmd}
    name=${base#tests/golden/cli/}
    sh -c "$(cat "$cmd")" >"$tmp/out" 2>"$tmp/err"
    echo $? >"$tmp/exit"
    if [ "${GOLDEN_UPDATE:-0}" = 1 ]; then
        cp "$tmp/out" "$base.stdout"
        cp "$tmp/err" "$base.stderr"
        cp "$tmp/exit" "$base.exit"
        echo "ok $name (updated)"
        pass=$((pass + 1))
        continue
    fi
    ok=1
    for part in stdout stderr exit; do
        case $part in stdout) got=$tmp/out ;; stderr) got=$tmp/err ;; exit) got=$tmp/exit ;; esac
        if ! cmp -s "$got" "$base.$part"; then
            ok=0
            echo "FAIL $name: $part differs"
            diff -u "$base.$part" "$got" | head -40
        fi
    done
    if [ $ok = 1 ]; then
        echo "ok $name"
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
    fi
done
echo "golden: $pass passed, $fail failed"
[ $fail = 0 ]
