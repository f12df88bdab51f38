#!/bin/sh
# http.sh - black-box tests of `gpuplan serve` over real HTTP with curl:
# every endpoint, every bad-request class, limits, slow clients, concurrency,
# and a clean SIGTERM shutdown that drains an in-flight request.
# Stable bodies are compared byte-for-byte with tests/golden/http/NAME.json
# (GOLDEN_UPDATE=1 rewrites them); catalog listings are compared with the
# CLI's `--format json` output. Ends with "N passed, N failed".
GOLDEN=tests/golden/http
export LC_ALL=C
# The proposal's date (POST /v1/propose): fixed, so its golden is stable.
export SOURCE_DATE_EPOCH=1764547200
. "$(dirname "$0")/../lib/server_suite.sh"
need_tool curl python3
need_binary

# The binary loads libmicrohttpd when it serves (src/server/mhd.h), not at every start:
# other commands do not load GnuTLS and its libraries (issue 19).
if command -v readelf >/dev/null 2>&1; then
    if readelf -d "$GPUPLAN" | grep -q 'NEEDED.*libmicrohttpd'; then
        bad "the binary links libmicrohttpd (serve should dlopen it)"
    else
        ok "the binary does not link libmicrohttpd; serve loads it"
    fi
fi

# start_server LOG [ARGS...]: run `gpuplan serve --listen 127.0.0.1:0` and
# set $server_pid and $base from the port it prints.
start_server() {
    log=$1
    shift
    : >"$log"
    "$GPUPLAN" serve --listen 127.0.0.1:0 "$@" 2>"$log" &
    server_pid=$!
    port=""
    i=0
    while [ $i -lt 100 ]; do
        port=$(sed -n 's|^gpuplan: listening on http://127\.0\.0\.1:\([0-9]*\)/.*|\1|p' "$log")
        [ -n "$port" ] && break
        kill -0 "$server_pid" 2>/dev/null || break
        sleep 0.1
        i=$((i + 1))
    done
    base=http://127.0.0.1:$port
    [ -n "$port" ]
}

# request NAME WANT_STATUS CURL_ARGS...: the body lands in $tmp/body, headers in $tmp/headers.
request() {
    name=$1
    want=$2
    shift 2
    got=$(curl -s -o "$tmp/body" -D "$tmp/headers" -w '%{http_code}' --max-time 20 "$@")
    if [ "$got" = "$want" ]; then
        ok "$name: HTTP $got"
        return 0
    fi
    bad "$name: HTTP $got, want $want"
    head -c 600 "$tmp/body"
    echo
    return 1
}

# golden NAME: the last body equals $GOLDEN/NAME.json.
golden() {
    if [ "${GOLDEN_UPDATE:-0}" = 1 ]; then
        mkdir -p "$GOLDEN"
        cp "$tmp/body" "$GOLDEN/$1.json"
        ok "$1: golden updated"
    elif cmp -s "$tmp/body" "$GOLDEN/$1.json"; then
        ok "$1: body matches $GOLDEN/$1.json"
    else
        bad "$1: body differs from $GOLDEN/$1.json"
        diff -u "$GOLDEN/$1.json" "$tmp/body" | head -20
    fi
}

# body_has NAME TEXT: the last body contains TEXT (fixed string).
body_has() {
    if grep -qF -- "$2" "$tmp/body"; then ok "$1: has '$2'"; else bad "$1: lacks '$2'"; fi
}
# header_has NAME TEXT: the last response headers contain TEXT (case-insensitive).
header_has() {
    if tr -d '\r' <"$tmp/headers" | grep -qiF -- "$2"; then
        ok "$1: header '$2'"
    else
        bad "$1: no header '$2'"
        cat "$tmp/headers"
    fi
}
# error_is NAME CODE WHERE: the last body is an error document with that code and where.
error_is() {
    if python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))["error"]
assert d["code"] == sys.argv[2], d
assert d["where"] == sys.argv[3], d
assert d["message"] and isinstance(d["hint"], str), d
' "$tmp/body" "$2" "$3" 2>"$tmp/py"; then
        ok "$1: error code '$2' at '$3'"
    else
        bad "$1: not an error '$2' at '$3'"
        cat "$tmp/body" "$tmp/py"
    fi
}

# ---- command line -----------------------------------------------------------
"$GPUPLAN" serve --help >"$tmp/out" 2>&1
[ $? = 0 ] && grep -q -- '--listen' "$tmp/out" && ok "serve --help" || bad "serve --help"
for args in "--threads 0" "--threads x" "--listen nonsense" "--listen 127.0.0.1:70000" \
    "--timeout 0" "--bogus" "--header-timeout 0" "--body-timeout 4000" "--max-connections 8" \
    "--max-per-ip 0" "--max-connections 100 --max-per-ip 200" "--log-sample -1" \
    "--cors https://example.org/app" "--cors ftp://example.org" "--cors"; do
    # shellcheck disable=SC2086
    "$GPUPLAN" serve $args >"$tmp/out" 2>&1
    rc=$?
    [ $rc = 2 ] && ok "serve $args: exit 2" || bad "serve $args: exit $rc, want 2"
done

# ---- start --------------------------------------------------------------------
if ! start_server "$tmp/log" --threads 4 --timeout 2; then
    cat "$tmp/log"
    abort "server did not start"
fi
ok "server listening on $base"
if grep -q 'warning' "$tmp/log"; then bad "loopback bind warns"; else ok "loopback bind: no warning"; fi

# A second server on the same port must fail, not share it.
"$GPUPLAN" serve --listen "127.0.0.1:$port" >"$tmp/out2" 2>&1 &
second=$!
# It must exit on its own; under a sanitizer on a loaded machine start-up takes a
# while, so wait up to 10 s for the exit, and count it as started only when it
# says it listens or outlives the wait.
for _ in $(seq 100); do
    kill -0 "$second" 2>/dev/null || break
    grep -q 'listening on' "$tmp/out2" && break
    sleep 0.1
done
if kill -0 "$second" 2>/dev/null; then
    kill -TERM "$second"
    wait "$second"
    bad "second server on a used port started"
else
    wait "$second"
    rc=$?
    [ $rc = 1 ] && ok "port in use: exit 1" || bad "port in use: exit $rc, want 1"
fi

# ---- GET endpoints --------------------------------------------------------------
request healthz 200 "$base/healthz" && golden healthz
header_has healthz "Content-Type: application/json"
request "healthz HEAD" 200 -I "$base/healthz"

# No CORS header without --cors (a page on another origin cannot read any answer), and no
# preflight: OPTIONS is just another method.
request "no cors: GET" 200 -H 'Origin: https://evil.example' "$base/healthz"
if tr -d '\r' <"$tmp/headers" | grep -qi '^access-control-'; then
    bad "no cors: an Access-Control header was sent"
else
    ok "no cors: no Access-Control header"
fi
request "no cors: OPTIONS is 405" 405 -X OPTIONS -H 'Origin: https://evil.example' \
    -H 'Access-Control-Request-Method: POST' "$base/v1/estimate"

request page 200 "$base/"
header_has page "Content-Type: text/html"
header_has page "Content-Security-Policy: default-src 'none'"
if cmp -s "$tmp/body" data/index.html; then ok "page: equals data/index.html"; else bad "page: differs from data/index.html"; fi

for what in gpus models; do
    if request "$what" 200 "$base/v1/$what"; then
        cp "$tmp/body" "$tmp/$what.http"
        if "$GPUPLAN" "$what" --format json >"$tmp/$what.cli" 2>"$tmp/err"; then
            if cmp -s "$tmp/$what.http" "$tmp/$what.cli"; then
                ok "$what: byte-identical to 'gpuplan $what --format json'"
            else
                bad "$what: differs from 'gpuplan $what --format json'"
            fi
        else
            echo "note: 'gpuplan $what' not available; checked JSON shape only"
        fi
        python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["schema_version"] >= 1 and sys.argv[2] in d' \
            "$tmp/$what.http" "$what" && ok "$what: JSON with schema_version" || bad "$what: bad JSON"
    fi
done

# ---- POST /v1/estimate: byte-identical to `gpuplan estimate ... --format json` ----------
# estimate_case NAME BODY CLI_ARGS...
estimate_case() {
    name=$1
    body=$2
    shift 2
    if request "estimate $name" 200 -H 'Content-Type: application/json' --data-binary "$body" \
        "$base/v1/estimate"; then
        "$GPUPLAN" estimate "$@" --format json >"$tmp/cli.json" 2>"$tmp/cli.err"
        rc=$?
        # exit 3 / 4 are the CLI's DOES NOT FIT / MAY NOT FIT verdicts (the service answers 200)
        if { [ $rc = 0 ] || [ $rc = 3 ] || [ $rc = 4 ]; } && cmp -s "$tmp/body" "$tmp/cli.json"; then
            ok "estimate $name: byte-identical to the CLI"
        else
            bad "estimate $name: differs from 'gpuplan estimate $*' (exit $rc)"
            diff "$tmp/cli.json" "$tmp/body" | head -10
            head -3 "$tmp/cli.err"
        fi
    fi
}
estimate_case "defaults" '{"model": "llama-3.1-8b"}' llama-3.1-8b
estimate_case "cloud tier" \
    '{"model": "llama-3.1-8b", "method": "lora", "gpu": "h100-sxm", "tokens": "100M", "cloud_tier": "marketplace"}' \
    llama-3.1-8b --method lora --gpu h100-sxm --tokens 100M --cloud-tier marketplace
estimate_case "qlora on h100" \
    '{"model": "llama-3.1-8b", "method": "qlora", "seq_len": 4096, "gpu": "h100-sxm:1", "lora_rank": 16}' \
    llama-3.1-8b --method qlora --seq-len 4096 --gpu h100-sxm:1 --lora-rank 16
estimate_case "full fsdp 8 gpus" \
    '{"model": "llama-3.1-70b", "method": "full", "gpu": "h100-sxm:8", "sharding": "fsdp", "grad_ckpt": "full", "micro_batch": 2}' \
    llama-3.1-70b --method full --gpu h100-sxm:8 --sharding fsdp --grad-ckpt full --micro-batch 2
estimate_case "inference" \
    '{"model": "qwen2.5-7b", "method": "infer", "max_model_len": "8k", "concurrency": 16, "input_tokens": 2048, "output_tokens": 256, "kv_dtype": "fp8", "gpu_memory_utilization": 0.9, "engine": "vllm", "engine_version": "0.11.0", "gpu": "l40s"}' \
    qwen2.5-7b --method infer --max-model-len 8k --concurrency 16 --input-tokens 2048 --output-tokens 256 --kv-dtype fp8 --gpu-memory-utilization 0.9 --engine vllm --engine-version 0.11.0 --gpu l40s
request "estimate HEAD-less GET" 405 "$base/v1/estimate"
post_unknown_gpu=$(curl -s -o "$tmp/body" -w '%{http_code}' -H 'Content-Type: application/json' \
    --data-binary '{"model": "llama-3.1-8b", "gpu": "h100sxm:8"}' "$base/v1/estimate")
[ "$post_unknown_gpu" = 404 ] && ok "unknown GPU: HTTP 404" || bad "unknown GPU: HTTP $post_unknown_gpu, want 404"
error_is "unknown GPU" not_found '$.gpu'
body_has "unknown GPU" "h100-sxm"

# ---- bad requests -----------------------------------------------------------------
post() { # NAME STATUS BODY
    request "$1" "$2" -H 'Content-Type: application/json' --data-binary "$3" "$base/v1/estimate"
}
post "malformed JSON" 400 '{"model": "llama-3.1-8b",' && golden estimate-malformed
post "top level array" 400 '["model"]' && golden estimate-not-object
post "wrong type" 400 '{"model": "x", "seq_len": [4096]}' && golden estimate-wrong-type
post "unknown field" 400 '{"seq_lne": 4096}' && golden estimate-unknown-field
post "out of range" 400 '{"seq_len": 0}' && error_is "out of range" usage '$.seq_len'
post "bad choice" 400 '{"method": "sft"}' && error_is "bad choice" usage '$.method'
post "missing model" 400 '{"seq_len": 4096}' && golden estimate-missing-model
post "unknown model" 404 '{"model": "no-such-model-xyz"}' && error_is "unknown model" not_found '$.model'
post "model path refused" 404 '{"model": "/etc/passwd"}' && error_is "model path" not_found '$.model'
post "model dir refused" 404 '{"model": "tests/fixtures/hf-configs"}' && error_is "model dir" not_found '$.model'

# ---- POST /v1/tco and /v1/recommend: byte-identical to the CLI's --format json ----------
# same_as_cli NAME ENDPOINT BODY CMD CLI_ARGS...
same_as_cli() {
    name=$1
    endpoint=$2
    body=$3
    shift 3
    if request "$name" 200 -H 'Content-Type: application/json' --data-binary "$body" \
        "$base/v1/$endpoint"; then
        "$GPUPLAN" "$@" --format json >"$tmp/cli.json" 2>"$tmp/cli.err"
        rc=$?
        if [ $rc = 0 ] && cmp -s "$tmp/body" "$tmp/cli.json"; then
            ok "$name: byte-identical to 'gpuplan $*'"
        else
            bad "$name: differs from 'gpuplan $*' (exit $rc)"
            diff "$tmp/cli.json" "$tmp/body" | head -10
            head -3 "$tmp/cli.err"
        fi
    fi
}
same_as_cli "tco h100x8" tco '{"gpu": "h100-sxm:8"}' tco --gpu h100-sxm:8
same_as_cli "tco overrides" tco \
    '{"gpu": "h100-sxm:8", "hours_per_day": 12, "years": 4, "power_price": "0.15", "pue": 1.2, "cloud_price": 2.5}' \
    tco --gpu h100-sxm:8 --hours-per-day 12 --years 4 --power-price 0.15 --pue 1.2 --cloud-price 2.5
same_as_cli "tco l40s one" tco '{"gpu": "l40s", "gpu_price": 8000, "load": 0.6, "platform": null}' \
    tco --gpu l40s --gpu-price 8000 --load 0.6
same_as_cli "tco cloud tier and capex lines" tco \
    '{"gpu": "h100-sxm:16", "cloud_tier": "hyperscaler", "ram_gib": 4000, "nvme_tb": 60}' \
    tco --gpu h100-sxm:16 --cloud-tier hyperscaler --ram-gib 4000 --nvme-tb 60
same_as_cli "tco tier fallback" tco '{"gpu": "mi325x:8", "cloud_tier": "commit-1y"}' \
    tco --gpu mi325x:8 --cloud-tier commit-1y
tco_post() { # NAME STATUS BODY
    request "$1" "$2" -H 'Content-Type: application/json' --data-binary "$3" "$base/v1/tco"
}
tco_post "tco missing gpu" 400 '{"years": 3}' && error_is "tco missing gpu" usage '$.gpu'
tco_post "tco unknown gpu" 404 '{"gpu": "h100sxm:8"}' && error_is "tco unknown gpu" not_found '$.gpu'
tco_post "tco bad count" 400 '{"gpu": "h100-sxm:0"}' && error_is "tco bad count" usage '$.gpu'
tco_post "tco years out of range" 400 '{"gpu": "h100-sxm:8", "years": 40}' &&
    error_is "tco years" usage '$.years'
tco_post "tco unknown field" 400 '{"gpu": "h100-sxm:8", "hours_per_dya": 8}' &&
    error_is "tco unknown field" usage '$.hours_per_dya'
body_has "tco unknown field" "did you mean 'hours_per_day'"
tco_post "tco unknown platform" 404 '{"gpu": "h100-sxm:8", "platform": "nope"}' &&
    error_is "tco unknown platform" not_found '$.platform'
tco_post "tco unknown tier" 400 '{"gpu": "h100-sxm:8", "cloud_tier": "spot"}' &&
    error_is "tco unknown tier" usage '$.cloud_tier'
tco_post "tco wrong type" 400 '{"gpu": "h100-sxm:8", "pue": [1.2]}' && error_is "tco wrong type" usage '$.pue'
tco_post "tco malformed" 400 '{"gpu": ' && error_is "tco malformed" invalid_input 'body:1:8'

same_as_cli "recommend qlora 8b" recommend '{"model": "llama-3.1-8b", "method": "qlora", "tokens": "100M"}' \
    recommend llama-3.1-8b --method qlora --tokens 100M
same_as_cli "recommend 70b on-prem by time" recommend \
    '{"model": "llama-3.1-70b", "on_prem": true, "objective": "time", "top": 3, "vendor": "nvidia", "budget": null}' \
    recommend llama-3.1-70b --on-prem --objective time --top 3 --vendor nvidia
same_as_cli "recommend serving" recommend \
    '{"model": "qwen2.5-7b", "method": "infer", "concurrency": 32, "max_model_len": "8k", "gpu": "l40s,h100-sxm"}' \
    recommend qwen2.5-7b --method infer --concurrency 32 --max-model-len 8k --gpu l40s,h100-sxm
same_as_cli "recommend serving targets" recommend \
    '{"model": "llama-3.3-70b", "method": "infer", "input_tokens": 2048, "output_tokens": 512, "request_rate": 10, "ttft_ms": 1000, "tpot_ms": 50, "gpu": "h100-sxm,h200-sxm", "top": 2}' \
    recommend llama-3.3-70b --method infer --input-tokens 2048 --output-tokens 512 --request-rate 10 --ttft-ms 1000 --tpot-ms 50 --gpu h100-sxm,h200-sxm --top 2
same_as_cli "recommend serving sglang" recommend \
    '{"model": "qwen2.5-7b", "method": "infer", "engine": "sglang", "concurrency": 64, "tpot_ms": 30, "gpu": "h100-sxm", "top": 1}' \
    recommend qwen2.5-7b --method infer --engine sglang --concurrency 64 --tpot-ms 30 --gpu h100-sxm --top 1
rec_post() { # NAME STATUS BODY
    request "$1" "$2" -H 'Content-Type: application/json' --data-binary "$3" "$base/v1/recommend"
}
rec_post "recommend nodes refused" 400 '{"model": "llama-3.1-8b", "nodes": 2}' &&
    error_is "recommend nodes" usage '$.nodes'
rec_post "recommend top 0" 400 '{"model": "llama-3.1-8b", "top": 0}' && error_is "recommend top" usage '$.top'
rec_post "recommend negative TPOT target" 400 '{"model": "llama-3.1-8b", "method": "infer", "tpot_ms": -1}' &&
    error_is "recommend tpot_ms" usage '$.tpot_ms'
rec_post "recommend ep refused" 400 '{"model": "qwen3-30b-a3b", "method": "infer", "ep": 2}' &&
    error_is "recommend ep" usage '$.ep'
post "estimate bad engine" 400 '{"model": "llama-3.1-8b", "method": "infer", "engine": "tgi"}' &&
    error_is "estimate engine" usage '$.engine'

rec_post "recommend bad objective" 400 '{"model": "llama-3.1-8b", "objective": "fast"}' &&
    error_is "recommend objective" usage '$.objective'
rec_post "recommend missing model" 400 '{"method": "lora"}' && error_is "recommend model" usage '$.model'
# ---- POST /v1/propose: the document of `gpuplan propose` -------------------------------------
prop_post() { # NAME STATUS BODY
    request "$1" "$2" -H 'Content-Type: application/json' --data-binary "$3" "$base/v1/propose"
}
# golden_doc NAME EXT: the last body equals $GOLDEN/NAME.EXT.
golden_doc() {
    if [ "${GOLDEN_UPDATE:-0}" = 1 ]; then
        cp "$tmp/body" "$GOLDEN/$1.$2"
        ok "$1: golden updated"
    elif cmp -s "$tmp/body" "$GOLDEN/$1.$2"; then
        ok "$1: body matches $GOLDEN/$1.$2"
    else
        bad "$1: body differs from $GOLDEN/$1.$2"
        diff -u "$GOLDEN/$1.$2" "$tmp/body" | head -20
    fi
}
# the CLI's document less its "reproduce" block (the service has no command line to show)
cli_doc() { # OUT ARGS...
    out=$1
    shift
    "$GPUPLAN" "$@" | python3 -c '
import re, sys
t = sys.stdin.read()
t = re.sub(r"\n\*\*(Reproduce this document|Как воспроизвести этот документ)\*\*\n\n```sh\n.*?\n```\n", "", t, flags=re.S)
t = re.sub(r"<details class=\"gp-code\" open>\n<summary>(Reproduce this document|Как воспроизвести этот документ)</summary>.*?</details>\n", "", t, flags=re.S)
sys.stdout.write(t)' >"$out"
}
if prop_post "propose qlora 70b on-prem, ru, md" 200 \
    '{"model": "llama-3.1-70b", "method": "qlora", "on_prem": true, "lang": "ru", "format": "md"}'; then
    header_has "propose md" "Content-Type: text/markdown; charset=utf-8"
    golden_doc propose-qlora-70b-ru md
    cli_doc "$tmp/cli.md" --lang ru propose llama-3.1-70b --method qlora --on-prem --format md
    if cmp -s "$tmp/body" "$tmp/cli.md"; then
        ok "propose ru md: the CLI's document"
    else
        bad "propose ru md: differs from gpuplan propose"
        diff "$tmp/cli.md" "$tmp/body" | head -10
    fi
fi
if prop_post "propose lora 8b, en, html" 200 \
    '{"model": "llama-3.1-8b", "method": "lora", "tokens": "2B", "gpu": "h100-sxm,a100-80gb-sxm,l40s"}'; then
    header_has "propose html" "Content-Type: text/html; charset=utf-8"
    body_has "propose html" '<html lang="en">'
    body_has "propose html" 'id="bom"'
    cli_doc "$tmp/cli.html" propose llama-3.1-8b --method lora --tokens 2B --gpu h100-sxm,a100-80gb-sxm,l40s
    if cmp -s "$tmp/body" "$tmp/cli.html"; then
        ok "propose en html: the CLI's document"
    else
        bad "propose en html: differs from gpuplan propose"
        diff "$tmp/cli.html" "$tmp/body" | head -10
    fi
fi
if prop_post "propose charts (json)" 200 \
    '{"model": "llama-3.1-70b", "method": "qlora", "on_prem": true, "format": "json", "chart_width": 480}'; then
    header_has "propose json" "Content-Type: application/json"
    if python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
c = d["charts"]
assert d["schema_version"] == 1 and d["model"] == "llama-3.1-70b", d
assert c["memory"].startswith("<svg ") and "width=\"480\"" in c["memory"], c["memory"][:120]
assert c["buy_rent"].startswith("<svg ") and "<style>" in c["buy_rent"], c["buy_rent"][:120]
assert c["time_cost"] is None  # no --tokens: no run time to draw
' "$tmp/body"; then ok "propose json: the charts as standalone SVG"; else bad "propose json: charts"; fi
fi
prop_post "propose chart width out of range" 400 '{"model": "llama-3.1-8b", "format": "json", "chart_width": 10}' &&
    error_is "propose chart_width" usage '$.chart_width'
prop_post "propose pdf refused" 400 '{"model": "llama-3.1-8b", "format": "pdf"}' &&
    error_is "propose format" usage '$.format'
prop_post "propose bad lang" 400 '{"model": "llama-3.1-8b", "lang": "de"}' &&
    error_is "propose lang" usage '$.lang'
prop_post "propose no plan" 422 '{"model": "llama-3.1-70b", "tokens": "1B", "budget": 1}' &&
    body_has "propose no plan" "no plan meets the constraints"
# A Russian document switched one thread's messages only: the service's answers stay English.
prop_post "propose ru again" 200 '{"model": "llama-3.1-8b", "lang": "ru", "format": "md"}'
request "recommend after a Russian proposal" 400 -H 'Content-Type: application/json' \
    --data-binary '{"model": "llama-3.1-8b", "top": 0}' "$base/v1/recommend" &&
    body_has "English after a Russian proposal" "must be an integer in 1..16"

rec_post "recommend model path refused" 404 '{"model": "/etc/passwd"}' &&
    error_is "recommend model path" not_found '$.model'

# The answer's language: "lang" in the body, else Accept-Language; the text is translated,
# the keys and enum values are not.
cyrillic() { # NAME JSON-PATH-IN-PYTHON WANT(1 Cyrillic, 0 ASCII)
    if python3 -c '
import json, re, sys
d = json.load(open(sys.argv[1]))
text = eval(sys.argv[2], {"d": d})
has = bool(re.search("[\u0400-\u04ff]", json.dumps(text, ensure_ascii=False)))
sys.exit(0 if has == (sys.argv[3] == "1") else 1)
' "$tmp/body" "$2" "$3"; then ok "$1"; else bad "$1"; head -c 400 "$tmp/body"; echo; fi
}
rec_post "recommend lang ru" 200 '{"model": "llama-3.1-8b", "method": "qlora", "tokens": "100M", "top": 1, "lang": "ru"}' &&
    cyrillic "recommend lang ru: reasons in Russian" 'd["recommendations"][0]["reasons"]' 1 &&
    cyrillic "recommend lang ru: enum values stay English" 'd["recommendations"][0]["method"]' 0
rec_post "recommend English by default" 200 '{"model": "llama-3.1-8b", "method": "qlora", "tokens": "100M", "top": 1}' &&
    cyrillic "recommend without lang: reasons in English" 'd["recommendations"][0]["reasons"]' 0
request "estimate Accept-Language ru" 400 -H 'Content-Type: application/json' -H 'Accept-Language: ru-RU,ru;q=0.9,en;q=0.8' \
    --data-binary '{"model": "llama-3.1-8b", "seq_len": 0}' "$base/v1/estimate" &&
    cyrillic "estimate Accept-Language ru: the error in Russian" 'd["error"]["message"]' 1
request "estimate Accept-Language en first" 400 -H 'Content-Type: application/json' -H 'Accept-Language: en;q=1, ru;q=0.5' \
    --data-binary '{"model": "llama-3.1-8b", "seq_len": 0}' "$base/v1/estimate" &&
    cyrillic "estimate Accept-Language en first: English" 'd["error"]["message"]' 0
request "estimate lang en over Accept-Language ru" 400 -H 'Content-Type: application/json' -H 'Accept-Language: ru' \
    --data-binary '{"model": "llama-3.1-8b", "seq_len": 0, "lang": "en"}' "$base/v1/estimate" &&
    cyrillic "estimate lang en wins over the header" 'd["error"]["message"]' 0
post "estimate bad lang" 400 '{"model": "llama-3.1-8b", "lang": "de"}' && error_is "estimate lang" usage '$.lang'

# Over 1 MiB: rejected from Content-Length, and while streaming a chunked body.
python3 -c 'import sys; sys.stdout.write("{\"model\":\"" + "x" * (1024 * 1024) + "\"}")' >"$tmp/big.json"
request "body > 1 MiB (Content-Length)" 413 -H 'Content-Type: application/json' \
    --data-binary @"$tmp/big.json" "$base/v1/estimate" &&
    golden estimate-too-large
request "body > 1 MiB (chunked)" 413 -H 'Content-Type: application/json' \
    -H 'Transfer-Encoding: chunked' --data-binary @"$tmp/big.json" \
    "$base/v1/estimate" && error_is "chunked 413" too_large body
python3 -c 'import sys; sys.stdout.write("{\"model\":\"" + "x" * (1024 * 1024 - 20) + "\"}")' >"$tmp/under.json"
post_file_status=$(curl -s -o "$tmp/body" -w '%{http_code}' -H 'Content-Type: application/json' \
    --data-binary @"$tmp/under.json" "$base/v1/estimate")
[ "$post_file_status" = 400 ] && ok "body just under 1 MiB is read (400 for the long model id)" ||
    bad "body just under 1 MiB: HTTP $post_file_status, want 400"

# Only the routes exist: no file is served.
for path in /../etc/passwd /../../../../etc/passwd /%2e%2e/etc/passwd /v1/../../etc/passwd \
    /index.html /data/index.html //etc/passwd /v1/gpus/ /healthz/../metrics; do
    request "path '$path'" 404 --path-as-is "$base$path"
    if grep -q 'root:' "$tmp/body"; then bad "path '$path' leaked a file"; fi
done
request "404 document" 404 "$base/nope" && golden not-found

request "DELETE /v1/gpus" 405 -X DELETE "$base/v1/gpus" && header_has "405 GET route" "Allow: GET, HEAD"
request "GET /v1/estimate" 405 "$base/v1/estimate" && header_has "405 POST route" "Allow: POST"
request "PUT /v1/estimate" 405 -X PUT -d '{}' "$base/v1/estimate" && golden method-not-allowed
request "BREW /healthz" 405 -X BREW "$base/healthz"

# Request line and header limits (MHD_OPTION_CONNECTION_MEMORY_LIMIT).
long=$(python3 -c 'print("a" * 40000)')
got=$(curl -s -o /dev/null -w '%{http_code}' "$base/$long")
case $got in 414 | 431) ok "40 KB URL: HTTP $got" ;; *) bad "40 KB URL: HTTP $got, want 414" ;; esac
got=$(curl -s -o /dev/null -w '%{http_code}' -H "X-Big: $long" "$base/healthz")
case $got in 431 | 413 | 400) ok "40 KB header: HTTP $got" ;; *) bad "40 KB header: HTTP $got, want 431" ;; esac

# Slow client: an unfinished request is closed after --timeout (2 s).
python3 - "$port" <<'EOF' && ok "slow client closed after the timeout" || bad "slow client not timed out"
import socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
s.settimeout(15)
t0 = time.monotonic()
data = s.recv(4096)
sys.exit(0 if data == b"" and 1.0 < time.monotonic() - t0 < 10 else 1)
EOF

# Concurrency: 40 parallel requests all succeed.
i=0
while [ $i -lt 40 ]; do
    curl -s -o /dev/null -w '%{http_code}\n' "$base/v1/gpus" >"$tmp/par.$i" &
    i=$((i + 1))
done
wait_n=0
while [ "$(cat "$tmp"/par.* 2>/dev/null | wc -l)" -lt 40 ] && [ $wait_n -lt 200 ]; do
    sleep 0.1
    wait_n=$((wait_n + 1))
done
n200=$(cat "$tmp"/par.* | grep -c '^200$')
[ "$n200" = 40 ] && ok "40 parallel requests: all 200" || bad "40 parallel requests: $n200 of 40 OK"

# ---- metrics ----------------------------------------------------------------------------
request metrics 200 "$base/metrics"
header_has metrics "Content-Type: text/plain; version=0.0.4"
python3 - "$tmp/body" <<'EOF' && ok "metrics: counters and a consistent histogram" || bad "metrics: inconsistent"
import re, sys
text = open(sys.argv[1]).read()
val = lambda name: float(re.search("^" + re.escape(name) + r" (\S+)$", text, re.M).group(1))
assert val('gpuplan_http_requests_total{route="/healthz"}') >= 2
assert val('gpuplan_http_requests_total{route="/v1/gpus"}') >= 41
assert val('gpuplan_http_errors_total{route="/v1/estimate"}') >= 8
assert val('gpuplan_http_errors_total{route="/healthz"}') >= 1          # the BREW
assert val('gpuplan_http_requests_total{route="other"}') >= 9
assert val('gpuplan_http_responses_total{class="4xx"}') >= 20
count = val("gpuplan_http_request_duration_seconds_count")
buckets = [float(v) for v in re.findall(r'^gpuplan_http_request_duration_seconds_bucket\{le="[^"]+"\} (\S+)$', text, re.M)]
assert buckets == sorted(buckets) and buckets[-1] == count and count >= 60, (buckets, count)
assert 'le="+Inf"' in text and val("gpuplan_http_request_duration_seconds_sum") > 0
assert val("gpuplan_http_in_flight_requests") == 1                        # this request
assert "# TYPE gpuplan_http_request_duration_seconds histogram" in text
EOF

# ---- shutdown: SIGTERM drains an in-flight request, then exits 0 ---------------------
python3 - "$port" "$server_pid" <<'EOF' >"$tmp/drain" 2>&1
import os, signal, socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
body = b'{"seq_len": 4096}'
s.sendall(b"POST /v1/estimate HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
          b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(body) + body[:5])
time.sleep(0.3)
os.kill(int(sys.argv[2]), signal.SIGTERM)
time.sleep(0.3)
s.sendall(body[5:])
s.settimeout(10)
reply = b""
while True:
    chunk = s.recv(65536)
    if not chunk:
        break
    reply += chunk
print(reply.split(b"\r\n", 1)[0].decode())
EOF
if grep -q '^HTTP/1.1 400' "$tmp/drain"; then
    ok "in-flight request answered after SIGTERM"
else
    bad "in-flight request lost on SIGTERM"
    cat "$tmp/drain"
fi
wait "$server_pid"
rc=$?
server_pid=""
[ $rc = 0 ] && ok "SIGTERM: exit 0" || bad "SIGTERM: exit $rc, want 0"
grep -q 'gpuplan: stopped' "$tmp/log" && ok "SIGTERM: clean stop logged" || bad "SIGTERM: no stop line"
if grep -qiE 'sanitizer|runtime error|leak' "$tmp/log"; then
    bad "sanitizer report in the server log"
    cat "$tmp/log"
fi

# ---- CORS: no header unless --cors ORIGIN ------------------------------------------------
if start_server "$tmp/log3" --cors https://example.org; then
    request "cors: GET /healthz" 200 -H 'Origin: https://example.org' "$base/healthz"
    header_has "cors: GET" "Access-Control-Allow-Origin: https://example.org"
    header_has "cors: GET" "Vary: Origin"
    request "cors: preflight" 204 -X OPTIONS -H 'Origin: https://example.org' \
        -H 'Access-Control-Request-Method: POST' -H 'Access-Control-Request-Headers: content-type' \
        "$base/v1/estimate"
    header_has "cors: preflight" "Access-Control-Allow-Methods: POST"
    header_has "cors: preflight" "Access-Control-Allow-Headers: Content-Type"
    header_has "cors: preflight" "Access-Control-Allow-Origin: https://example.org"
    request "cors: POST" 200 -H 'Origin: https://example.org' -H 'Content-Type: application/json' \
        --data-binary '{"model": "llama-3.1-8b"}' "$base/v1/estimate"
    header_has "cors: POST" "Access-Control-Allow-Origin: https://example.org"
    request "cors: text/plain POST still refused" 415 -H 'Content-Type: text/plain' \
        --data-binary '{"model": "llama-3.1-8b"}' "$base/v1/estimate"
    request "cors: 405 lists OPTIONS" 405 -X DELETE "$base/v1/estimate"
    header_has "cors: 405" "Allow: POST, OPTIONS"
    stop_server
    server_pid=""
else
    bad "server with --cors did not start"
fi

# SIGINT on an idle server also exits 0.
if start_server "$tmp/log2"; then
    kill -INT "$server_pid"
    wait "$server_pid"
    rc=$?
    server_pid=""
    [ $rc = 0 ] && ok "SIGINT: exit 0" || bad "SIGINT: exit $rc, want 0"
else
    bad "second start failed"
fi

finish
