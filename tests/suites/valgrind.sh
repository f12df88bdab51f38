#!/bin/sh
# valgrind.sh - every golden CLI case (tests/golden/cli/*/*.cmd) under valgrind
# memcheck: zero errors and zero definite/indirect leaks, and the same stdout,
# stderr and exit code as without valgrind (so a case that passes here passes
# the golden test too).
#
#   VALGRIND_LONG=1  also the cmocka unit tests and the HTTP service (every
#                    endpoint, then SIGTERM) under memcheck; used by
#                    scripts/bench-extra.sh (`make bench`), several minutes.
#
# Skipped (0 passed, 0 failed, with a note) under SAN=1: ASan and valgrind
# cannot share a process. Ends with "N passed, N failed".
. "$(dirname "$0")/../lib/suite.sh"
BIN=$GPUPLAN
export LC_ALL=C LANG=C
unset LANGUAGE LC_MESSAGES COLUMNS

[ -z "${SAN:-}" ] || skip "SAN=$SAN build: valgrind skipped (it cannot run ASan binaries)"
need_tool valgrind
need_binary

# --error-exitcode: any memcheck error or definite/indirect leak makes the run exit 99.
VG="valgrind --quiet --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect --show-leak-kinds=definite,indirect --track-fds=no --log-file=$tmp/vg.%p"

check_vg_logs() { # NAME: fail when any valgrind log has content
    if cat "$tmp"/vg.* 2>/dev/null | grep -q .; then
        echo "FAIL $1: valgrind reported:"
        cat "$tmp"/vg.* | head -40
        return 1
    fi
    return 0
}

start=$(date +%s)
for cmd in tests/golden/cli/*/*.cmd; do
    [ -e "$cmd" ] || continue
    base=${cmd%.cmd}
    name=${base#tests/golden/cli/}
    rm -f "$tmp"/vg.*
    GPUPLAN="$VG $BIN" sh -c "$(cat "$cmd")" >"$tmp/out" 2>"$tmp/err"
    echo $? >"$tmp/exit"
    ok=1
    check_vg_logs "$name" || ok=0
    for part in stdout stderr exit; do
        case $part in stdout) got=$tmp/out ;; stderr) got=$tmp/err ;; exit) got=$tmp/exit ;; esac
        [ -e "$base.$part" ] || continue
        if ! cmp -s "$got" "$base.$part"; then
            ok=0
            echo "FAIL $name: $part differs under valgrind"
            diff -u "$base.$part" "$got" | head -20
        fi
    done
    if [ $ok = 1 ]; then
        ok "$name"
    else
        fail=$((fail + 1))
    fi
done
echo "note: $((pass + fail)) golden cases under memcheck in $(($(date +%s) - start)) s"

if [ "${VALGRIND_LONG:-0}" = 1 ]; then
    # Unit tests (cmocka) under memcheck.
    for t in "$BUILD"/tests/test_*; do
        [ -x "$t" ] || continue
        name=$(basename "$t")
        rm -f "$tmp"/vg.*
        $VG "$t" >"$tmp/out" 2>&1
        rc=$?
        if [ $rc = 0 ] && check_vg_logs "$name"; then
            ok "unit $name"
        else
            bad "unit $name: exit $rc"
            tail -20 "$tmp/out"
        fi
    done
    # The service: every endpoint, then SIGTERM; no leak at exit.
    rm -f "$tmp"/vg.*
    $VG "$BIN" serve --listen 127.0.0.1:0 --threads 2 2>"$tmp/log" &
    pid=$!
    port=""
    for _ in $(seq 300); do
        port=$(sed -n 's|^gpuplan: listening on http://127\.0\.0\.1:\([0-9]*\)/.*|\1|p' "$tmp/log")
        [ -n "$port" ] && break
        sleep 0.1
    done
    b=http://127.0.0.1:$port
    n_ok=0
    for path in / /healthz /metrics /v1/gpus /v1/models /nope; do
        curl -s -o /dev/null --max-time 60 "$b$path" && n_ok=$((n_ok + 1))
    done
    for req in 'estimate {"model":"llama-3.1-8b","method":"qlora","gpu":"h100-sxm:1"}' \
        'estimate {"model":"nope"}' 'estimate {"seq_len":[1]}' 'tco {"gpu":"h100-sxm:8"}' \
        'tco {"gpu":"h100-sxm:8","years":40}' 'recommend {"model":"llama-3.1-8b","top":2}' \
        'recommend {"model":"qwen2.5-7b","method":"infer"}'; do
        curl -s -o /dev/null --max-time 120 -H 'Content-Type: application/json' \
            --data-binary "${req#* }" "$b/v1/${req%% *}" &&
            n_ok=$((n_ok + 1))
    done
    kill -TERM "$pid"
    wait "$pid"
    rc=$?
    if [ $rc = 0 ] && [ $n_ok = 13 ] && check_vg_logs serve; then
        ok "serve: 13 requests, SIGTERM, no memcheck error or leak"
    else
        bad "serve under memcheck: exit $rc, $n_ok of 13 requests"
        tail -20 "$tmp/log"
    fi
fi
finish
