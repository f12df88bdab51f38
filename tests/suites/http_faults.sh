#!/bin/bash
# http_faults.sh - `gpuplan serve` under faults and hostile HTTP, short
# forms (a few seconds each; the load runs are in scripts/bench-extra.sh):
# slow clients, half-closed and reset connections, 10,000 idle connections
# from one address while /healthz keeps answering from another, bodies over
# the limit, pipelined requests, strict HTTP (NUL in the target, Host,
# Content-Length/Transfer-Encoding conflicts, Content-Type), SIGTERM
# draining in-flight requests; then a second server with 2 s deadlines: the
# access log (sampled, whole lines), header and body deadlines a trickle
# cannot extend, a slowloris of 1,200 connections from three addresses while
# 127.0.0.1 keeps being served, and one address at its connection cap. The
# servers must stay up, answer /healthz after every fault, end with no
# request in flight, and exit 0 with clean logs (no sanitizer reports).
# Raw-socket cases use tests/tools/httpc.c ($BUILD/tools/httpc).
# Ends with "N passed, N failed".
set -u
BUILD=${BUILD:-build}
GPUPLAN=$(pwd)/$BUILD/gpuplan
HTTPC=$(pwd)/$BUILD/tools/httpc
export LC_ALL=C
. "$(dirname "$0")/../lib/server_suite.sh"
cleanup() {
    stop_server
    kill "$watchdog" 2>/dev/null
    for p in $(jobs -p); do kill "$p" 2>/dev/null; done
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
# Watchdog: whatever hangs, the suite ends within 180 s and says so.
( sleep 180 >/dev/null 2>&1 &
  wait $!
  echo "FAIL watchdog: http_faults.sh ran past 180 s"
  kill -TERM $$ ) &
watchdog=$!

finish() {
    echo "$pass passed, $fail failed"
    [ $fail = 0 ]
    exit
}

for tool in curl; do
    command -v "$tool" >/dev/null 2>&1 || {
        bad "'$tool' is required (scripts/deps.sh test installs it)"
        finish
    }
done
for bin in "$GPUPLAN" "$HTTPC"; do
    [ -x "$bin" ] || {
        bad "no binary at $bin (make check builds it)"
        finish
    }
done

# 10,000 client sockets plus the server's own: raise the soft limit if we can.
ulimit -n 20000 2>/dev/null || ulimit -n "$(ulimit -Hn)" 2>/dev/null || true

# start_server LOG [ARGS...]: sets $server_pid, $port, $base.
start_server() {
    log=$1
    shift
    : >"$log"
    "$GPUPLAN" serve --listen 127.0.0.1:0 "$@" 2>"$log" &
    server_pid=$!
    port=""
    for _ in $(seq 100); do
        port=$(sed -n 's|^gpuplan: listening on http://127\.0\.0\.1:\([0-9]*\)/.*|\1|p' "$log")
        [ -n "$port" ] && break
        kill -0 "$server_pid" 2>/dev/null || break
        sleep 0.1
    done
    base=http://127.0.0.1:$port
    [ -n "$port" ]
}

# healthy NAME: the server is alive and /healthz answers 200 within 3 s.
healthy() {
    got=$(curl -s -o /dev/null -w '%{http_code}' --max-time 3 "$base/healthz")
    if [ "$got" = 200 ] && kill -0 "$server_pid" 2>/dev/null; then
        ok "$1: /healthz 200"
    else
        bad "$1: /healthz answered '$got'"
    fi
}

rss_kib() { sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$server_pid/status"; }
in_flight() {
    curl -s --max-time 3 "$base/metrics" | sed -n 's/^gpuplan_http_in_flight_requests \([0-9]*\)$/\1/p'
}

if ! start_server "$tmp/log" --threads 4 --timeout 3; then
    bad "server did not start"
    cat "$tmp/log"
    finish
fi
ok "server listening on $base"
rss_start=$(rss_kib)

estimate_body='{"model": "llama-3.1-8b", "method": "qlora", "gpu": "h100-sxm:1"}'
post_request() { # BODY -> a complete HTTP/1.1 POST /v1/estimate request on stdout
    printf 'POST /v1/estimate HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s' \
        "${#1}" "$1"
}

# ---- slow clients ---------------------------------------------------------------------------
# Five clients sending one byte every 100 ms (each byte restarts the 3 s idle timer): all are
# answered, and /healthz answers while they trickle.
pids=""
for i in 1 2 3 4 5; do
    printf 'GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n' |
        "$HTTPC" slow "$port" 100 >"$tmp/slow.$i" 2>&1 &
    pids="$pids $!"
done
sleep 1
healthy "during 5 slow clients"
# Never a bare `wait`: it would wait for the server too.
for p in $pids; do wait "$p"; done
n=$(cat "$tmp"/slow.* | grep -c '^HTTP/1.1 200')
[ "$n" = 5 ] && ok "5 slow clients (1 byte / 100 ms) all answered" || bad "slow clients: $n of 5 answered"

# Slower than the idle timeout (1 byte / 4 s, timeout 3 s): the server hangs up, no reply.
printf 'GET /healthz HTTP/1.1\r\n' | "$HTTPC" slow "$port" 4000 >"$tmp/slower" 2>&1
if grep -q 'HTTP/1.1' "$tmp/slower"; then
    bad "client slower than --timeout was answered"
else
    ok "client slower than --timeout: closed by the server"
fi
healthy "after slow clients"

# ---- half-closed and reset connections -----------------------------------------------------
# A full request then SHUT_WR: still answered (RFC 9112 allows a half-close after the request).
post_request "$estimate_body" | "$HTTPC" halfclose "$port" >"$tmp/half" 2>&1
head -n 1 "$tmp/half" | grep -q '^HTTP/1.1 200' && ok "half-closed after a full POST: answered 200" ||
    bad "half-closed full POST: $(head -n 1 "$tmp/half")"
# Half the body, then SHUT_WR: the server must not wait forever for the rest.
start_s=$(date +%s)
post_request "$estimate_body" | head -c 150 | "$HTTPC" halfclose "$port" >"$tmp/half2" 2>&1
took=$(($(date +%s) - start_s))
[ "$took" -le 8 ] && ok "half-closed mid-body: connection ended in ${took} s" ||
    bad "half-closed mid-body: took ${took} s"
# Reset (RST) in the middle of the headers and of the body, 20 times each.
for _ in $(seq 20); do
    printf 'POST /v1/estimate HTTP/1.1\r\nHost: x\r\nContent-Le' | "$HTTPC" reset "$port"
    post_request "$estimate_body" | head -c 150 | "$HTTPC" reset "$port"
done
ok "40 connections reset mid-request"
healthy "after half-closed and reset connections"

# ---- 10,000 idle connections ---------------------------------------------------------------
# From 127.0.0.2: the per-address limit (SERVER_MAX_CONNECTIONS_PER_IP) caps what one address
# holds, so /healthz from 127.0.0.1 keeps answering throughout; the idle ones are dropped
# (over the limit at once, the rest after --timeout).
"$HTTPC" idle "$port" 10000 6 127.0.0.2 >"$tmp/idle" 2>&1 &
idle_pid=$!
sleep 1.5
n_ok=0
for _ in 1 2 3 4 5 6 7 8; do
    got=$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "$base/healthz")
    [ "$got" = 200 ] && n_ok=$((n_ok + 1))
    sleep 0.4
done
wait "$idle_pid"
opened=$(sed -n 's/^opened \([0-9]*\), closed by server \([0-9]*\)$/\1/p' "$tmp/idle")
closed=$(sed -n 's/^opened \([0-9]*\), closed by server \([0-9]*\)$/\2/p' "$tmp/idle")
echo "note: idle flood: opened ${opened:-?}, closed by the server ${closed:-?} within 6 s"
[ "${opened:-0}" -ge 10000 ] && ok "10,000 idle connections opened" || bad "idle flood opened only ${opened:-0}"
[ "$n_ok" = 8 ] && ok "/healthz answered 8 of 8 times during the idle flood" ||
    bad "/healthz answered $n_ok of 8 times during the idle flood"
[ "${closed:-0}" -ge 9000 ] && ok "idle connections dropped by the server (${closed})" ||
    bad "server dropped only ${closed:-0} idle connections"
healthy "after the idle flood"
# One log line per refused connection would be ~10,000 lines: the limit message is sampled.
n_log=$(wc -l <"$tmp/log")
[ "$n_log" -lt 100 ] && ok "server log after the idle flood: $n_log lines (sampled)" ||
    bad "server log after the idle flood: $n_log lines"

# ---- bodies over the limit ---------------------------------------------------------------------
head -c $((2 * 1024 * 1024)) /dev/zero | tr '\0' 'x' >"$tmp/2mib"
json='Content-Type: application/json'
got=$(curl -s -o "$tmp/body" -w '%{http_code}' --max-time 10 -H "$json" --data-binary @"$tmp/2mib" \
    "$base/v1/estimate")
[ "$got" = 413 ] && ok "2 MiB body (Content-Length): 413" || bad "2 MiB body: HTTP $got"
got=$(curl -s -o "$tmp/body" -w '%{http_code}' --max-time 10 -H "$json" -H 'Transfer-Encoding: chunked' \
    --data-binary @"$tmp/2mib" "$base/v1/tco")
[ "$got" = 413 ] && ok "2 MiB chunked body to /v1/tco: 413" || bad "2 MiB chunked /v1/tco: HTTP $got"
# 40 MiB streamed: past the discard cap the server cuts the connection instead of draining.
head -c $((40 * 1024 * 1024)) /dev/zero >"$tmp/40mib"
got=$(curl -s -o /dev/null -w '%{http_code}' --max-time 20 -H "$json" -H 'Transfer-Encoding: chunked' \
    --data-binary @"$tmp/40mib" "$base/v1/recommend")
# (curl reports 100 or 000 when the connection is cut before a final status)
case $got in 413 | 000 | 100) ok "40 MiB chunked body: cut off ($got)" ;; *) bad "40 MiB chunked body: HTTP $got" ;; esac
rm -f "$tmp/40mib"
healthy "after oversized bodies"

# ---- pipelining ---------------------------------------------------------------------------------
n=$(printf 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n' | "$HTTPC" pipeline "$port" 50)
[ "$n" = 50 ] && ok "50 pipelined GETs: 50 answers" || bad "50 pipelined GETs: $n answers"
one=$(printf 'POST /v1/estimate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s' \
    "${#estimate_body}" "$estimate_body")
n=$(printf '%s' "$one" | "$HTTPC" pipeline "$port" 20)
[ "$n" = 20 ] && ok "20 pipelined POST /v1/estimate: 20 answers" || bad "20 pipelined POSTs: $n answers"
healthy "after pipelining"

# ---- strict HTTP ---------------------------------------------------------------------------------
# raw NAME WANT REQUEST: send REQUEST (printf format, so \0 is a NUL byte) on its own connection,
# half-close, and compare the status line of the reply with WANT.
raw() {
    # shellcheck disable=SC2059
    got=$(printf "$3" | "$HTTPC" halfclose "$port" 2>&1 | head -n 1 | tr -d '\r')
    case $got in "HTTP/1.1 $2 "*) ok "$1: $2" ;; *) bad "$1: got '$got', want $2" ;; esac
}
raw "GET /v1/gpus%00" 400 'GET /v1/gpus%%00 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'
raw "GET /v1/gpus%00.json" 400 'GET /v1/gpus%%00.json HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'
raw "%00 in the query" 400 'GET /healthz?x=%%00 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'
raw "literal NUL in the path" 400 'GET /v1/gpus\0.json HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'
raw "control byte in the path" 400 'GET /v1/gp\001us HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'
raw "%2500 is not a NUL" 404 'GET /v1/gpus%%2500 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'
raw "HTTP/1.1 without Host" 400 'GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n'
raw "two Host headers" 400 'GET /healthz HTTP/1.1\r\nHost: a\r\nHost: b\r\nConnection: close\r\n\r\n'
raw "HTTP/1.0 without Host" 200 'GET /healthz HTTP/1.0\r\n\r\n'
post_head='POST /v1/estimate HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\n'
raw "two different Content-Length" 400 "${post_head}Content-Length: 2\r\nContent-Length: 30\r\n\r\n{}"
# Identical values are one length (RFC 9110 section 8.6 lets a recipient accept them).
raw "two equal Content-Length" 200 \
    "${post_head}Content-Length: ${#estimate_body}\r\nContent-Length: ${#estimate_body}\r\n\r\n$estimate_body"
raw "Content-Length and chunked" 400 "${post_head}Content-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n"
raw "Transfer-Encoding gzip" 400 "${post_head}Transfer-Encoding: gzip\r\n\r\n{}"
# A POST body must be application/json (415 otherwise): the types a cross-origin page may send
# without a CORS preflight (text/plain, form encodings) are refused before the body is read.
ct_post() { # NAME WANT [CURL_ARGS...]
    name=$1
    want=$2
    shift 2
    got=$(curl -s -o "$tmp/ct" -w '%{http_code}' --max-time 5 "$@" --data-binary "$estimate_body" \
        "$base/v1/estimate")
    [ "$got" = "$want" ] && ok "$name: $want" || bad "$name: HTTP $got, want $want"
}
ct_post "POST without Content-Type" 415 -H 'Content-Type:'
ct_post "POST text/plain" 415 -H 'Content-Type: text/plain'
ct_post "POST form-urlencoded (curl's default)" 415
ct_post "POST multipart/form-data" 415 -H 'Content-Type: multipart/form-data; boundary=x'
ct_post "POST application/jsonp" 415 -H 'Content-Type: application/jsonp'
grep -q '"code":"usage"' "$tmp/ct" && grep -q '"where":"Content-Type"' "$tmp/ct" &&
    ok "415 is a JSON error document at 'Content-Type'" || bad "415 body: $(head -c 300 "$tmp/ct")"
ct_post "POST application/json; charset=utf-8" 200 -H 'Content-Type: application/json; charset=utf-8'
ct_post "POST Application/JSON" 200 -H 'Content-Type: Application/JSON'
healthy "after the strict-HTTP cases"

# ---- bounded memory, nothing left in flight -----------------------------------------------------
for _ in $(seq 50); do in_now=$(in_flight); [ "$in_now" = 1 ] && break; sleep 0.1; done
[ "$in_now" = 1 ] && ok "in-flight gauge back to 1 (the metrics request itself)" ||
    bad "in-flight gauge is '$in_now' after the faults"
rss_end=$(rss_kib)
echo "note: server RSS ${rss_start} KiB at start, ${rss_end} KiB after the faults"
# A request struct per leaked connection would show here; 64 MiB is far above the steady state.
[ "$((rss_end - rss_start))" -lt 65536 ] && ok "RSS grew $((rss_end - rss_start)) KiB (< 64 MiB)" ||
    bad "RSS grew $((rss_end - rss_start)) KiB"

# ---- SIGTERM drains in-flight requests ---------------------------------------------------------
# Three POSTs are mid-body (headers sent, body at 1 byte / 25 ms) when SIGTERM arrives; each
# must still be answered, new connections refused, then exit 0.
headers_len=$(($(post_request "$estimate_body" | wc -c) - ${#estimate_body}))
pids=""
for i in 1 2 3; do
    post_request "$estimate_body" | "$HTTPC" slow "$port" 25 "$headers_len" >"$tmp/drain.$i" 2>&1 &
    pids="$pids $!"
done
sleep 0.5
kill -TERM "$server_pid"
sleep 0.3
got=$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "$base/healthz")
[ "$got" = 000 ] && ok "after SIGTERM: new connections refused" || bad "after SIGTERM: new request got $got"
wait "$server_pid"
rc=$?
server_pid=""
for p in $pids; do wait "$p"; done
n=$(cat "$tmp"/drain.* | grep -c '^HTTP/1.1 200')
[ "$n" = 3 ] && ok "SIGTERM: 3 in-flight slow POSTs answered" || bad "SIGTERM: $n of 3 in-flight answered"
[ $rc = 0 ] && ok "SIGTERM: exit 0" || bad "SIGTERM: exit $rc"
grep -q 'gpuplan: stopped' "$tmp/log" && ok "SIGTERM: clean stop logged" || bad "SIGTERM: no stop line"
if grep -qiE 'sanitizer|runtime error|leak|double free|segv' "$tmp/log"; then
    bad "sanitizer or crash report in the server log"
    grep -iE -m 20 'sanitizer|runtime error|leak|SUMMARY' "$tmp/log"
else
    ok "server log has no sanitizer or crash report"
fi
# ---- a server with 2 s deadlines: access log, deadlines, slowloris, fair share ----------------
if ! start_server "$tmp/log2" --threads 4 --timeout 10 --header-timeout 2 --body-timeout 2 \
    --log-sample 10; then
    bad "guard server did not start"
    cat "$tmp/log2"
    finish
fi
ok "server with 2 s header and body deadlines listening on $base"
# Access log: a fresh server has counted nothing yet, so 100 requests give exactly 10 sampled
# lines, and 5 errors 5 more; 8 clients at once add 400 requests (40 lines); every line whole.
n=$(printf 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n' | "$HTTPC" pipeline "$port" 100)
[ "$n" = 100 ] || bad "access log: 100 pipelined requests got $n answers"
# (an error closes its connection, so one connection per error)
n=$(printf 'GET /nope HTTP/1.1\r\nHost: x\r\n\r\n' | "$HTTPC" repeat "$port" 5)
[ "$n" = 5 ] || bad "access log: 5 errors got $n answers"
pids=""
for i in 1 2 3 4 5 6 7 8; do
    printf 'GET /v1/gpus HTTP/1.1\r\nHost: x\r\n\r\n' | "$HTTPC" pipeline "$port" 50 >"$tmp/par.$i" &
    pids="$pids $!"
done
for p in $pids; do wait "$p"; done
n_access=$(grep -c '^gpuplan: access: ' "$tmp/log2")
[ "$n_access" = 55 ] && ok "access log: --log-sample 10 over 500 requests + 5 errors: 55 lines" ||
    bad "access log: $n_access lines, want 55 (10 + 5 + 40)"
access_re='^gpuplan: access: [0-9a-f.:]+ "[A-Z]+ [^"]* HTTP/1\.[01]" ([0-9]{3}|aborted) [0-9]+ [0-9]+\.[0-9]{3} ms$'
n_whole=$(grep -cE "$access_re" "$tmp/log2")
n_gpus=$(grep -cE '^gpuplan: access: 127\.0\.0\.1 "GET /v1/gpus HTTP/1\.1" 200 [0-9]+ ' "$tmp/log2")
[ "$n_whole" = "$n_access" ] && [ "$n_gpus" = 40 ] &&
    ok "access log: every line whole (one write each), 40 from the 8 parallel clients" ||
    bad "access log: $n_whole of $n_access lines whole, $n_gpus of 40 from the parallel clients"
grep -q '^gpuplan: access: 127\.0\.0\.1 "GET /nope HTTP/1\.1" 404 ' "$tmp/log2" &&
    ok "access log: errors always logged" || bad "access log: the 404s are missing"
if grep -v '^gpuplan: ' "$tmp/log2" | grep -q .; then
    bad "log has a line not starting 'gpuplan: ' (interleaved writes)"
    grep -v '^gpuplan: ' "$tmp/log2" | head -3
else
    ok "log: every line starts 'gpuplan: '"
fi

# Deadlines a trickle cannot extend: one byte every 250 ms restarts the 10 s idle timer each
# time, yet headers (and, after fast headers, a body) not complete within 2 s are cut off.
slow_headers=$(printf 'GET /healthz HTTP/1.1\r\nHost: x\r\nX-Pad: %s\r\n\r\n' "$(printf '%060d' 0)")
start_ns=$(date +%s%N)
printf '%s' "$slow_headers" | "$HTTPC" slow "$port" 250 >"$tmp/dl.headers" 2>&1 &
dl_headers=$!
slow_body='{"model": "llama-3.1-8b", "method": "qlora", "gpu": "h100-sxm:1", "seq_len": 4096}'
post_request "$slow_body" | "$HTTPC" slow "$port" 250 "$headers_len" >"$tmp/dl.body" 2>&1 &
dl_body=$!
get_head=$(printf 'GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 60\r\n\r\n')
printf '%s%060d' "$get_head" 0 | "$HTTPC" slow "$port" 250 "${#get_head}" >"$tmp/dl.get" 2>&1 &
dl_get=$!
wait "$dl_headers"
headers_ms=$((($(date +%s%N) - start_ns) / 1000000))
wait "$dl_body"
body_ms=$((($(date +%s%N) - start_ns) / 1000000))
wait "$dl_get"
get_ms=$((($(date +%s%N) - start_ns) / 1000000))
echo "note: trickled headers cut after ${headers_ms} ms, trickled body after ${body_ms} ms, GET body after ${get_ms} ms"
if ! grep -q 'HTTP/1.1' "$tmp/dl.headers" && [ "$headers_ms" -ge 1500 ] && [ "$headers_ms" -le 4000 ]; then
    ok "header deadline: a header byte every 250 ms is cut at 2 s (${headers_ms} ms), no answer"
else
    bad "header deadline: ${headers_ms} ms, reply '$(head -c 80 "$tmp/dl.headers")'"
fi
if ! grep -q 'HTTP/1.1' "$tmp/dl.body" && [ "$body_ms" -ge 1500 ] && [ "$body_ms" -le 4000 ]; then
    ok "body deadline: a body byte every 250 ms is cut at 2 s (${body_ms} ms), no answer"
else
    bad "body deadline: ${body_ms} ms, reply '$(head -c 80 "$tmp/dl.body")'"
fi
if ! grep -q 'HTTP/1.1' "$tmp/dl.get" && [ "$get_ms" -ge 1500 ] && [ "$get_ms" -le 4000 ]; then
    ok "body deadline on a GET with a trickled body (${get_ms} ms), no answer"
else
    bad "GET with a trickled body: ${get_ms} ms, reply '$(head -c 80 "$tmp/dl.get")'"
fi
metric() { curl -s --max-time 3 "$base/metrics" | sed -n "s/^$1 \([0-9]*\)$/\1/p"; }
guarded() { metric "gpuplan_http_connections_guarded_total{reason=\"$1\"}"; }
[ "$(guarded body_deadline)" -ge 1 ] 2>/dev/null && ok "metrics count the body deadline" ||
    bad "body_deadline metric is '$(guarded body_deadline)'"

# Slowloris: 1,200 connections from 127.0.0.2-4 (more than --max-connections 1,024 in all,
# 400 per address against --max-per-ip 384), each a request line, Host and a header byte
# every 500 ms, reopened whenever the server closes one. Meanwhile 127.0.0.1 sends GET
# /healthz and POST /v1/estimate every 0.2 s: every one must be answered within 1 s.
"$HTTPC" slowloris "$port" 1200 8 127.0.0.2,127.0.0.3,127.0.0.4 500 >"$tmp/loris" 2>&1 &
loris=$!
sleep 1.5
n_probe=0
n_probe_ok=0
slowest=0
for _ in $(seq 15); do
    for what in healthz estimate; do
        if [ $what = healthz ]; then
            got=$(curl -s -o /dev/null -w '%{http_code} %{time_total}' --max-time 3 "$base/healthz")
        else
            got=$(curl -s -o /dev/null -w '%{http_code} %{time_total}' --max-time 3 -H "$json" \
                --data-binary "$estimate_body" "$base/v1/estimate")
        fi
        n_probe=$((n_probe + 1))
        ms=$(echo "$got" | awk '{ printf "%d", $2 * 1000 }')
        [ "$ms" -gt "$slowest" ] && slowest=$ms
        [ "${got%% *}" = 200 ] && [ "$ms" -le 1000 ] && n_probe_ok=$((n_probe_ok + 1))
    done
    sleep 0.2
done
wait "$loris"
echo "note: slowloris: $(cat "$tmp/loris"); probes: $n_probe_ok of $n_probe within 1 s, slowest ${slowest} ms"
[ "$n_probe_ok" = "$n_probe" ] &&
    ok "slowloris (1,200 connections, 3 addresses): 127.0.0.1 answered $n_probe of $n_probe times within 1 s" ||
    bad "slowloris: 127.0.0.1 answered $n_probe_ok of $n_probe times within 1 s (slowest ${slowest} ms)"
most=$(sed -n 's/.*most held at once \([0-9]*\).*/\1/p' "$tmp/loris")
longest=$(sed -n 's/.*longest held \([0-9]*\) ms.*/\1/p' "$tmp/loris")
[ "${most:-0}" -ge 1100 ] && ok "slowloris held ${most} connections at once (over the cap)" ||
    bad "slowloris held only ${most:-0} connections"
[ "${longest:-99999}" -le 4000 ] && ok "no slowloris connection outlived the 2 s header deadline by 2 s (${longest} ms)" ||
    bad "a slowloris connection lived ${longest:-?} ms"
[ "$(guarded header_deadline)" -ge 1000 ] 2>/dev/null &&
    ok "metrics: $(guarded header_deadline) connections cut at the header deadline" ||
    bad "header_deadline metric is '$(guarded header_deadline)'"
healthy "after the slowloris"

# One address at its cap: 400 idle connections from 127.0.0.5 (cap 384). Once they have waited
# a second, a new connection from the same address replaces the one waiting longest.
"$HTTPC" idle "$port" 400 4 127.0.0.5 >"$tmp/idle5" 2>&1 &
idle5=$!
sleep 1.5
got=$(curl -s -o /dev/null -w '%{http_code}' --max-time 3 --interface 127.0.0.5 "$base/healthz")
[ "$got" = 200 ] && ok "127.0.0.5 holding 384 idle connections still gets an answer" ||
    bad "127.0.0.5 at its cap: HTTP $got"
wait "$idle5"
[ "$(guarded replaced_same_address)" -ge 1 ] 2>/dev/null && ok "metrics count the replacement" ||
    bad "replaced_same_address metric is '$(guarded replaced_same_address)'"

# Error lines are capped per second: 200 404s in a burst give at most 2 x 50 lines, and the
# count left out is logged (at the latest on SIGTERM).
before=$(grep -c ' 404 ' "$tmp/log2")
n=$(printf 'GET /nope HTTP/1.1\r\nHost: x\r\n\r\n' | "$HTTPC" repeat "$port" 200)
[ "$n" = 200 ] || bad "error burst: 200 requests got $n answers"
for _ in $(seq 50); do in_now=$(in_flight); [ "$in_now" = 1 ] && break; sleep 0.1; done
[ "$in_now" = 1 ] && ok "guard server: in-flight gauge back to 1" || bad "guard server: in flight '$in_now'"
kill -TERM "$server_pid"
wait "$server_pid"
rc=$?
server_pid=""
after=$(grep -c ' 404 ' "$tmp/log2")
[ $((after - before)) -le 100 ] && grep -q 'error lines left out' "$tmp/log2" &&
    ok "a burst of 200 errors: $((after - before)) lines, the rest counted" ||
    bad "a burst of 200 errors: $((after - before)) lines"
[ $rc = 0 ] && ok "guard server: SIGTERM exit 0" || bad "guard server: exit $rc"
n_log=$(wc -l <"$tmp/log2")
[ "$n_log" -lt 400 ] && ok "guard server log: $n_log lines after ~50,000 hostile connections (sampled)" ||
    bad "guard server log: $n_log lines"
if grep -qiE 'sanitizer|runtime error|leak|double free|segv' "$tmp/log2"; then
    bad "sanitizer or crash report in the guard server's log"
    grep -iE -m 20 'sanitizer|runtime error|leak|SUMMARY' "$tmp/log2"
else
    ok "guard server log has no sanitizer or crash report"
fi
finish
