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
# The README's first command: `make demo` runs scripts/demo.sh, which must end with status 0.
if scripts/demo.sh "$GPUPLAN" >"$tmp/demo" 2>&1; then
    ok "make demo's script runs to the end (status 0)"
else
    bad "make demo's script failed: $(tail -n 3 "$tmp/demo")"
fi

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
# The formats table says what each command's --help says.
if python3 - "$GPUPLAN" <<'PY' >"$tmp/fmt" 2>&1; then ok "README's formats table matches every command's --help"; else bad "README's formats table: $(cat "$tmp/fmt")"; fi
import re, subprocess, sys
text = open("README.md", encoding="utf-8").read()
i = text.index("| command | formats |")
rows = [l for l in text[i:].split("\n")[2:] if l.startswith("|")]
seen = 0
for row in rows:
    cmds_cell, formats_cell = [c.strip() for c in row.strip("|").split("|")[:2]]
    if "launch file" in formats_cell:
        continue
    want = [f.strip() for f in formats_cell.split(",")]
    for cmd in re.findall(r"`([a-z]+)`", cmds_cell):
        out = subprocess.run([sys.argv[1], cmd, "--help"], capture_output=True, text=True).stdout
        m = re.search(r"--format ([a-z|]+)", out)
        got = m.group(1).split("|") if m else []
        if got != want:
            print(f"{cmd}: README says {want}, --help says {got}")
            sys.exit(1)
        seen += 1
sys.exit(0 if seen >= 8 else 1)
PY
README_BASE=$base python3 tests/tools/readme_examples.py README.md "$BUILD" >"$tmp/out"
rc=$?
cat "$tmp/out"
p=$(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1/p' "$tmp/out")
f=$(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\2/p' "$tmp/out")
pass=$((pass + ${p:-0}))
fail=$((fail + ${f:-1}))
[ $rc = 0 ] || [ "${f:-1}" != 0 ] || fail=$((fail + 1))
finish
