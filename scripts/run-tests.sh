#!/bin/sh
# Run every test suite of a built tree and end with one line
# "N passed, N failed" (cmocka cases + golden cases + fuzz-corpus files +
# seed-claim checks). Used by `make check`; BUILD names the tree.
set -u
BUILD=${BUILD:-build}
passed=0
failed=0
failures=""
log=$(mktemp)
trap 'rm -f "$log"' EXIT

tally() { # suite-name exit-code passed-count failed-count
    passed=$((passed + $3))
    failed=$((failed + $4))
    if [ "$2" != 0 ] || [ "$4" != 0 ]; then
        failures="$failures $1"
    fi
}

# cmocka unit suites: count the cases from cmocka's own summary lines.
for t in "$BUILD"/tests/test_*; do
    [ -x "$t" ] || continue
    name=$(basename "$t")
    "$t" >"$log" 2>&1
    rc=$?
    p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$log" | awk '{s+=$1} END {print s+0}')
    f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$log" | awk '{s+=$1} END {print s+0}')
    if [ "$rc" != 0 ] && [ "$f" = 0 ]; then f=1; fi
    echo "unit  $name: $p passed, $f failed"
    [ "$rc" = 0 ] && [ "$f" = 0 ] || cat "$log"
    tally "$name" "$rc" "$p" "$f"
done

# Fuzz corpora, replayed without libFuzzer: every file must run cleanly.
for r in "$BUILD"/fuzz/replay_*; do
    [ -x "$r" ] || continue
    name=${r##*/replay_}
    dir=tests/fuzz/corpus/$name
    [ -d "$dir" ] || { echo "fuzz  $name: no corpus at $dir"; tally "fuzz_$name" 1 0 1; continue; }
    "$r" "$dir" >"$log" 2>&1
    rc=$?
    n=$(find "$dir" -type f | wc -l)
    if [ "$rc" = 0 ]; then
        echo "fuzz  $name: $n corpus files replayed"
        tally "fuzz_$name" 0 1 0
    else
        cat "$log"
        echo "fuzz  $name: replay FAILED"
        tally "fuzz_$name" 1 0 1
    fi
done

# Golden CLI (and HTTP) tests.
for runner in tests/golden/run.sh; do
    [ -x "$runner" ] || continue
    BUILD=$BUILD "$runner" >"$log" 2>&1
    rc=$?
    p=$(sed -n 's/^golden: \([0-9]*\) passed, \([0-9]*\) failed$/\1/p' "$log")
    f=$(sed -n 's/^golden: \([0-9]*\) passed, \([0-9]*\) failed$/\2/p' "$log")
    p=${p:-0}
    f=${f:-1}
    grep -v '^ok ' "$log" || true
    tally golden "$rc" "$p" "$f"
done

# Extra suites (seed claims, accuracy thresholds, browser, install) register
# themselves as executable scripts under tests/suites/; each ends with
# "N passed, N failed".
for s in tests/suites/*.sh; do
    [ -x "$s" ] || continue
    name=$(basename "$s" .sh)
    BUILD=$BUILD SAN=${SAN:-} "$s" >"$log" 2>&1
    rc=$?
    line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
    p=$(echo "$line" | sed -n 's/^\([0-9]*\) passed.*/\1/p')
    f=$(echo "$line" | sed -n 's/^[0-9]* passed, \([0-9]*\) failed.*/\1/p')
    p=${p:-0}
    f=${f:-0}
    if [ "$rc" != 0 ] && [ "$f" = 0 ]; then f=1; fi
    if [ "$rc" != 0 ] || [ "$f" != 0 ]; then cat "$log"; else grep -E '^(suite|note):' "$log" || true; fi
    echo "suite $name: $p passed, $f failed"
    tally "$name" "$rc" "$p" "$f"
done

[ -n "$failures" ] && echo "failing suites:$failures"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
