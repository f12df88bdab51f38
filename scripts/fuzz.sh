#!/bin/sh
# fuzz.sh - run libFuzzer targets built by `make fuzz` (build-fuzz/fuzz_NAME,
# clang with ASan+UBSan) for FUZZ_SECONDS each.
#
#   FUZZ_SECONDS=600 FUZZ_JOBS=2 scripts/fuzz.sh catalog gguf ...
#
# Each target starts from its checked-in corpus tests/fuzz/corpus/NAME/
# (read-only here) plus a working corpus build-fuzz/corpus/NAME/ that keeps
# what earlier runs found, so repeated runs add up. Crashes, leaks, timeouts
# (-timeout, seconds per input) and out-of-memory inputs land in
# build-fuzz/artifacts/NAME/; copy each one into tests/fuzz/corpus/NAME/
# after fixing its cause so `make check` replays it forever.
#
# Per run, one line is appended to build-fuzz/totals.tsv:
#   date  target  seconds  executions  coverage(edges)  features  corpus  result
# and the script prints the running totals per target (what docs/reliability.md
# quotes). Exit status: 0 when every target ran clean, 1 otherwise.
set -u
FUZZ_SECONDS=${FUZZ_SECONDS:-60}
FUZZ_JOBS=${FUZZ_JOBS:-1}
FUZZ_TIMEOUT_S=${FUZZ_TIMEOUT_S:-10}
FUZZ_RSS_MB=${FUZZ_RSS_MB:-2048}
NICE=${NICE:-nice -n 19}
OUT=build-fuzz
totals=$OUT/totals.tsv

if [ $# = 0 ]; then
    set -- $(ls tests/fuzz/targets/ | sed -n 's/^fuzz_\(.*\)\.c$/\1/p')
fi
mkdir -p "$OUT/logs"

# Largest input per target: binary headers need room, text inputs stay small.
max_len_of() {
    case $1 in
    gguf | safetensors) echo 65536 ;;
    *) echo 16384 ;;
    esac
}

run_one() { # NAME
    name=$1
    bin=$OUT/fuzz_$name
    seeds=tests/fuzz/corpus/$name
    work=$OUT/corpus/$name
    art=$OUT/artifacts/$name
    log=$OUT/logs/$name.log
    if [ ! -x "$bin" ]; then
        echo "fuzz $name: no binary $bin (run 'make fuzz')" >&2
        return 1
    fi
    mkdir -p "$work" "$art" "$seeds"
    dict=""
    [ -f "tests/fuzz/$name.dict" ] && dict="-dict=tests/fuzz/$name.dict"
    # shellcheck disable=SC2086
    $NICE "$bin" "$work" "$seeds" -max_total_time="$FUZZ_SECONDS" -print_final_stats=1 \
        -timeout="$FUZZ_TIMEOUT_S" -rss_limit_mb="$FUZZ_RSS_MB" -max_len="$(max_len_of "$name")" \
        -artifact_prefix="$art/" $dict >"$log" 2>&1
    rc=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *\([0-9]*\).*/\1/p' "$log" | tail -n 1)
    cov=$(grep -E '^#[0-9]+' "$log" | tail -n 1 | sed -n 's/.* cov: \([0-9]*\).*/\1/p')
    ft=$(grep -E '^#[0-9]+' "$log" | tail -n 1 | sed -n 's/.* ft: \([0-9]*\).*/\1/p')
    corp=$(find "$work" -type f | wc -l)
    result=clean
    if [ "$rc" != 0 ]; then
        result="FAILED(rc=$rc)"
    fi
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$name" \
        "$FUZZ_SECONDS" "${execs:-0}" "${cov:-0}" "${ft:-0}" "$corp" "$result" >>"$totals"
    echo "fuzz $name: ${execs:-0} executions in ${FUZZ_SECONDS} s, cov ${cov:-0}, ft ${ft:-0}," \
        "corpus $corp: $result"
    if [ "$rc" != 0 ]; then
        grep -E 'ERROR: |SUMMARY: |^artifact_prefix|Test unit written' "$log" | head -n 8
        return 1
    fi
    return 0
}

status=0
pids=""
running=0
for name in "$@"; do
    run_one "$name" &
    pids="$pids $!"
    running=$((running + 1))
    if [ "$running" -ge "$FUZZ_JOBS" ]; then
        for p in $pids; do wait "$p" || status=1; done
        pids=""
        running=0
    fi
done
for p in $pids; do wait "$p" || status=1; done

# Running totals over every recorded run.
if [ -f "$totals" ]; then
    echo "running totals (build-fuzz/totals.tsv):"
    awk -F '\t' '{ s[$2] += $3; e[$2] += $4; if ($5 > c[$2]) c[$2] = $5; n[$2] = $7 }
        END { for (t in s) printf "  %-12s %7d s %12d executions  max cov %5d  corpus %d\n",
              t, s[t], e[t], c[t], n[t] }' "$totals" | sort
fi
exit $status
