#!/bin/sh
# readme.sh - every example of README.md prints what the README shows
# (tests/tools/readme_examples.py: each shown line is printed, in order).
# The curl examples run against a `gpuplan serve` started here on a free
# port (the README's http://127.0.0.1:8080 is replaced by its address).
# Ends with "N passed, N failed".
. "$(dirname "$0")/../lib/server_suite.sh"
need_tool python3 curl
need_binary
: >"$tmp/log"
"$GPUPLAN" serve --listen 127.0.0.1:0 2>"$tmp/log" &
server_pid=$!
base=""
i=0
while [ $i -lt 100 ] && [ -z "$base" ]; do
    base=$(sed -n 's|^gpuplan: listening on \(http://127\.0\.0\.1:[0-9]*\)/.*|\1|p' "$tmp/log")
    kill -0 "$server_pid" 2>/dev/null || break
    [ -n "$base" ] || sleep 0.1
    i=$((i + 1))
done
# Every route of the service is in README's endpoint table, with its method.
missing=""
n_routes=0
for route in $(sed -n 's#^ *{ "\(/[^"]*\)", [A-Z_]*_TYPE, \([a-z_]*\|NULL\), .*#\2:\1#p' src/server/server.c); do
    n_routes=$((n_routes + 1))
    path=${route#*:}
    case ${route%%:*} in NULL) method=POST ;; *) method=GET ;; esac
    grep -qF "\`$method $path\`" README.md || missing="$missing $method $path,"
done
if [ "$n_routes" -lt 8 ]; then
    bad "found $n_routes routes in src/server/server.c (the table's layout changed?)"
elif [ -n "$missing" ]; then
    bad "README's endpoint table lacks:$missing"
else
    ok "README lists all $n_routes endpoints of the service"
fi
README_BASE=$base python3 tests/tools/readme_examples.py README.md "$BUILD" >"$tmp/out"
rc=$?
cat "$tmp/out"
p=$(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1/p' "$tmp/out")
f=$(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\2/p' "$tmp/out")
pass=$((pass + ${p:-0}))
fail=$((fail + ${f:-1}))
[ $rc = 0 ] || [ "${f:-1}" != 0 ] || fail=$((fail + 1))
finish
