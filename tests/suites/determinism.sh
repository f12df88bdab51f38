#!/bin/sh
# determinism.sh - the same request gives byte-identical output across runs,
# locales and server threads.
#
# 1. estimate / tco / inspect / recommend, JSON (and text where no
#    translation applies), run twice each under LANG=C, LANG=ru_RU.UTF-8 and
#    LC_ALL=de_DE.UTF-8 (decimal comma): every JSON output equals the C one;
#    text output under de_DE equals C (no German catalog exists, so any
#    difference is a locale-dependent number format).
#    Missing locales are built into a private LOCPATH with localedef, so the
#    comparison really runs in them; when that is impossible the suite says so.
# 2. 8 parallel HTTP requests per endpoint to an 8-thread server: all 8
#    bodies equal each other and the CLI's --format json.
# Ends with "N passed, N failed".
. "$(dirname "$0")/../lib/server_suite.sh"
need_binary
unset LANGUAGE LC_MESSAGES LC_NUMERIC LC_ALL LANG

# ---- locales ---------------------------------------------------------------------------------
# has_locale NAME: the C library can switch to NAME (with $LOCPATH when set).
has_locale() {
    LC_ALL=$1 locale -k decimal_point 2>&1 | grep -q '^decimal_point=' &&
        ! LC_ALL=$1 locale 2>&1 | grep -q 'Cannot set'
}
mkdir -p "$tmp/locales"
for loc in ru_RU de_DE; do
    if ! has_locale "$loc.UTF-8"; then
        localedef -i "$loc" -f UTF-8 "$tmp/locales/$loc.UTF-8" >/dev/null 2>&1 || true
    fi
done
if [ -n "$(ls "$tmp/locales")" ]; then
    LOCPATH=$tmp/locales
    export LOCPATH
    # glibc's setlocale keeps a 26-byte argz of LOCPATH for the process lifetime
    # (__argz_add_sep in _nl_find_locale); LeakSanitizer reports it under SAN=1.
    echo 'leak:__argz_add_sep' >"$tmp/lsan.supp"
    LSAN_OPTIONS="suppressions=$tmp/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
    export LSAN_OPTIONS
fi
for loc in ru_RU de_DE; do
    if has_locale "$loc.UTF-8"; then
        ok "locale $loc.UTF-8 available"
    else
        bad "locale $loc.UTF-8 not available and localedef could not build it (apt-get install locales)"
    fi
done
if has_locale de_DE.UTF-8 && [ "$(LC_ALL=de_DE.UTF-8 locale -k decimal_point)" = 'decimal_point=","' ]; then
    ok "de_DE.UTF-8 uses a decimal comma (the case this suite guards)"
else
    bad "de_DE.UTF-8 decimal point is not ','"
fi

# ---- CLI across runs and locales ---------------------------------------------------------------
# case NAME TEXT_TOO ARGS...: TEXT_TOO=1 also compares --format text under de_DE.
n_case=0
case_() {
    name=$1
    text_too=$2
    shift 2
    n_case=$((n_case + 1))
    env LANG=C "$GPUPLAN" "$@" --format json >"$tmp/c.json" 2>"$tmp/c.err"
    rc=$?
    # 3 / 4 are verdicts (DOES NOT FIT / MAY NOT FIT), not failures
    if { [ $rc != 0 ] && [ $rc != 3 ] && [ $rc != 4 ]; } || [ ! -s "$tmp/c.json" ]; then
        bad "$name: 'gpuplan $*' failed under LANG=C (exit $rc)"
        head -3 "$tmp/c.err"
        return
    fi
    env LANG=C "$GPUPLAN" "$@" --format json >"$tmp/c2.json" 2>/dev/null
    cmp -s "$tmp/c.json" "$tmp/c2.json" && ok "$name: two runs byte-identical" ||
        bad "$name: two runs differ"
    for envs in "LANG=ru_RU.UTF-8" "LC_ALL=de_DE.UTF-8" "LANG=ru_RU.UTF-8 LC_NUMERIC=de_DE.UTF-8"; do
        # shellcheck disable=SC2086
        env $envs "$GPUPLAN" "$@" --format json >"$tmp/l.json" 2>/dev/null
        if cmp -s "$tmp/c.json" "$tmp/l.json"; then
            ok "$name: JSON under $envs equals LANG=C"
        else
            bad "$name: JSON under $envs differs from LANG=C"
            diff "$tmp/c.json" "$tmp/l.json" | head -6
        fi
    done
    if [ "$text_too" = 1 ]; then
        env LANG=C "$GPUPLAN" "$@" --format text >"$tmp/c.txt" 2>&1
        env LC_ALL=de_DE.UTF-8 "$GPUPLAN" "$@" --format text >"$tmp/de.txt" 2>&1
        if cmp -s "$tmp/c.txt" "$tmp/de.txt"; then
            ok "$name: text under LC_ALL=de_DE.UTF-8 equals LANG=C"
        else
            bad "$name: text under LC_ALL=de_DE.UTF-8 differs"
            diff "$tmp/c.txt" "$tmp/de.txt" | head -6
        fi
    fi
}
case_ "estimate qlora" 1 estimate llama-3.1-8b --method qlora --gpu h100-sxm:1 --lora-alpha 32.5
case_ "estimate fsdp" 1 estimate llama-3.1-70b --gpu h100-sxm:8 --sharding fsdp --grad-ckpt full \
    --gpu-memory-utilization 0.85
case_ "estimate infer" 1 estimate qwen2.5-7b --method infer --max-model-len 8k --concurrency 16 --kv-dtype fp8 --gpu h100-sxm
case_ "tco" 1 tco --gpu h100-sxm:8 --hours-per-day 12.5 --power-price 0.155 --pue 1.25
case_ "inspect config" 1 inspect "$FIXTURES/hf-configs/qwen3-30b-a3b.json"
case_ "inspect gguf" 1 inspect "$FIXTURES/weights/llama-2-tiny-random.gguf"
case_ "recommend" 0 recommend llama-3.1-8b --method qlora --tokens 100M --top 3

# ---- HTTP: 8 parallel requests, 8 server threads --------------------------------------------------
: >"$tmp/log"
LANG=de_DE.UTF-8 LC_ALL=de_DE.UTF-8 "$GPUPLAN" serve --listen 127.0.0.1:0 --threads 8 2>"$tmp/log" &
server_pid=$!
port=""
for _ in $(seq 100); do
    port=$(sed -n 's|^gpuplan: listening on http://127\.0\.0\.1:\([0-9]*\)/.*|\1|p' "$tmp/log")
    [ -n "$port" ] && break
    sleep 0.1
done
if [ -z "$port" ]; then
    bad "server did not start"
else
    # parallel NAME ENDPOINT BODY CLI_ARGS...
    parallel() {
        name=$1
        endpoint=$2
        body=$3
        shift 3
        pids=""
        for i in 1 2 3 4 5 6 7 8; do
            curl -s --max-time 60 -H 'Content-Type: application/json' --data-binary "$body" \
                -o "$tmp/p.$i" \
                "http://127.0.0.1:$port/v1/$endpoint" &
            pids="$pids $!"
        done
        for p in $pids; do wait "$p"; done
        LANG=C "$GPUPLAN" "$@" --format json >"$tmp/p.cli" 2>/dev/null
        same=0
        for i in 1 2 3 4 5 6 7 8; do
            cmp -s "$tmp/p.$i" "$tmp/p.cli" && same=$((same + 1))
        done
        [ $same = 8 ] && ok "$name: 8 parallel responses equal the CLI's JSON" ||
            bad "$name: $same of 8 parallel responses equal the CLI's JSON"
    }
    parallel "http estimate" estimate '{"model": "llama-3.1-70b", "gpu": "h100-sxm:8", "sharding": "fsdp"}' \
        estimate llama-3.1-70b --gpu h100-sxm:8 --sharding fsdp
    parallel "http tco" tco '{"gpu": "h100-sxm:8", "hours_per_day": 12.5, "power_price": 0.155}' \
        tco --gpu h100-sxm:8 --hours-per-day 12.5 --power-price 0.155
    parallel "http recommend" recommend '{"model": "llama-3.1-8b", "method": "qlora", "tokens": "100M", "top": 3}' \
        recommend llama-3.1-8b --method qlora --tokens 100M --top 3
fi
finish
