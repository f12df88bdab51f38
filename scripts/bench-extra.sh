#!/bin/sh
# bench-extra.sh - the long forms of the service and memory checks, run by
# `make bench` after the C benchmarks (docs/reliability.md quotes its output).
#
#  1. wrk load: POST /v1/estimate and /v1/recommend at 64 and 256
#     connections for BENCH_SECONDS (default 60) each, against one
#     `gpuplan serve`; /healthz is polled once a second throughout. Pass:
#     zero socket errors, zero timeouts, zero non-2xx, every /healthz poll
#     answered, and server RSS after all runs within BENCH_RSS_GROWTH_KIB
#     (default 65536) of its RSS after warm-up.
#  2. A client sending one byte a second (a whole request, ~50 s) is
#     answered, and /healthz keeps answering meanwhile.
#  3. tests/suites/valgrind.sh with VALGRIND_LONG=1: golden CLI cases, unit
#     tests and the service under memcheck.
#
# Results: stdout and $BUILD/bench/http-load.txt. Exit 1 when any check fails.
# BENCH_SKIP_VALGRIND=1 / BENCH_SKIP_SLOW=1 leave those parts out.
set -u
BUILD=${BUILD:-build}
BENCH_SECONDS=${BENCH_SECONDS:-60}
BENCH_RSS_GROWTH_KIB=${BENCH_RSS_GROWTH_KIB:-65536}
GPUPLAN=$(pwd)/$BUILD/gpuplan
OUT=$BUILD/bench/http-load.txt
status=0
server_pid=""
poll_pid=""
tmp=$(mktemp -d)
cleanup() {
    [ -n "$poll_pid" ] && kill "$poll_pid" 2>/dev/null
    if [ -n "$server_pid" ]; then
        kill -TERM "$server_pid" 2>/dev/null
        wait "$server_pid" 2>/dev/null
    fi
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

scripts/deps.sh bench || exit 1
mkdir -p "$(dirname "$OUT")"
: >"$OUT"
say() { echo "$*" | tee -a "$OUT"; }
rss_kib() { sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$server_pid/status"; }

ulimit -n 20000 2>/dev/null || ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
threads=$(nproc 2>/dev/null || echo 4)
[ "$threads" -lt 4 ] && threads=4
"$GPUPLAN" serve --listen 127.0.0.1:0 --threads "$threads" --timeout 30 2>"$tmp/log" &
server_pid=$!
port=""
for _ in $(seq 100); do
    port=$(sed -n 's|^gpuplan: listening on http://127\.0\.0\.1:\([0-9]*\)/.*|\1|p' "$tmp/log")
    [ -n "$port" ] && break
    sleep 0.1
done
[ -n "$port" ] || {
    cat "$tmp/log"
    exit 1
}
base=http://127.0.0.1:$port
say "== gpuplan serve, $threads threads, $(nproc) CPUs, $(date -u +%Y-%m-%dT%H:%M:%SZ)"

# /healthz once a second for the whole run; failures counted in $tmp/poll.
(
    while :; do
        code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 "$base/healthz")
        echo "$code" >>"$tmp/poll"
        sleep 1
    done
) &
poll_pid=$!

estimate_body='{"model": "llama-3.1-70b", "method": "lora", "gpu": "h100-sxm:8", "sharding": "fsdp", "seq_len": 4096}'
recommend_body='{"model": "llama-3.1-8b", "method": "qlora", "tokens": "100M", "top": 3}'

# Warm-up: a few seconds at low concurrency so RSS reflects steady state.
WRK_BODY=$estimate_body wrk -t2 -c8 -d3s -s tests/bench/wrk_post.lua "$base/v1/estimate" >/dev/null 2>&1
WRK_BODY=$recommend_body wrk -t2 -c8 -d3s --timeout 30s -s tests/bench/wrk_post.lua \
    "$base/v1/recommend" >/dev/null 2>&1
rss_warm=$(rss_kib)
say "RSS after warm-up: $rss_warm KiB"

for endpoint in estimate recommend; do
    case $endpoint in estimate) body=$estimate_body ;; recommend) body=$recommend_body ;; esac
    for conns in 64 256; do
        WRK_BODY=$body wrk -t2 -c"$conns" -d"${BENCH_SECONDS}s" --timeout 30s \
            -s tests/bench/wrk_post.lua "$base/v1/$endpoint" >"$tmp/wrk" 2>&1
        line=$(grep '^RESULT ' "$tmp/wrk")
        say "/v1/$endpoint c=$conns ${BENCH_SECONDS}s: ${line#RESULT } rss_kib=$(rss_kib)"
        errors=0
        for k in connect_errors read_errors write_errors timeouts non_2xx; do
            v=$(echo "$line" | sed -n "s/.* $k=\([0-9]*\).*/\1/p")
            errors=$((errors + ${v:-1}))
        done
        if [ -z "$line" ] || [ "$errors" != 0 ]; then
            say "FAIL /v1/$endpoint c=$conns: $errors errors"
            cat "$tmp/wrk"
            status=1
        fi
    done
done
rss_end=$(rss_kib)
say "RSS after load: $rss_end KiB (warm-up $rss_warm KiB, growth $((rss_end - rss_warm)) KiB)"
if [ $((rss_end - rss_warm)) -gt "$BENCH_RSS_GROWTH_KIB" ]; then
    say "FAIL RSS grew more than $BENCH_RSS_GROWTH_KIB KiB"
    status=1
fi

if [ "${BENCH_SKIP_SLOW:-0}" != 1 ]; then
    make --no-print-directory BUILD="$BUILD" "$BUILD/tools/httpc" >/dev/null || status=1
    printf 'GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n' |
        "$BUILD/tools/httpc" slow "$port" 1000 >"$tmp/slow" 2>&1
    if head -n 1 "$tmp/slow" | grep -q '^HTTP/1.1 200'; then
        say "slow client (1 byte/s, $(printf 'GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n' | wc -c) bytes): answered 200"
    else
        say "FAIL slow client (1 byte/s) not answered: $(head -c 200 "$tmp/slow")"
        status=1
    fi
fi

kill "$poll_pid" 2>/dev/null
wait "$poll_pid" 2>/dev/null
poll_pid=""
n_poll=$(wc -l <"$tmp/poll")
n_poll_ok=$(grep -c '^200$' "$tmp/poll")
say "/healthz polled $n_poll times during the run: $n_poll_ok answered 200"
[ "$n_poll" = "$n_poll_ok" ] || status=1

kill -TERM "$server_pid"
wait "$server_pid"
rc=$?
server_pid=""
say "SIGTERM after load: exit $rc"
[ $rc = 0 ] || status=1
if grep -qiE 'sanitizer|runtime error|leak' "$tmp/log"; then
    say "FAIL sanitizer report in the server log"
    status=1
fi

if [ "${BENCH_SKIP_VALGRIND:-0}" != 1 ]; then
    say "== valgrind (long form)"
    # `make bench` builds neither the unit tests nor the NVML stand-ins the golden cases use.
    units=$(ls tests/unit/test_*.c | sed "s|^tests/unit/\(.*\)\.c$|$BUILD/tests/\1|")
    # shellcheck disable=SC2086
    make --no-print-directory BUILD="$BUILD" $units "$BUILD/stubs/libnvidia-ml.so.1" \
        "$BUILD/stubs/libnvidia-ml-nov2.so.1" "$BUILD/stubs/libnvidia-ml-noreq.so.1" >/dev/null ||
        status=1
    VALGRIND_LONG=1 BUILD=$BUILD tests/suites/valgrind.sh >"$tmp/vg" 2>&1 || status=1
    grep -vE '^ok ' "$tmp/vg" | tee -a "$OUT"
fi
exit $status
