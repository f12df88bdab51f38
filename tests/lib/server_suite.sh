# server_suite.sh - sourced by the shell suites that start `gpuplan serve`
# (tests/suites/determinism.sh, http.sh, http_faults.sh): pass/fail counters
# with ok/bad, a private temporary directory, and stop_server, which ends the
# server a suite started (its pid in $server_pid) and waits for it.
# A suite's own cleanup calls stop_server and removes "$tmp".
pass=0
fail=0
server_pid=""
tmp=$(mktemp -d)
stop_server() {
    if [ -n "$server_pid" ]; then
        kill -TERM "$server_pid" 2>/dev/null
        wait "$server_pid" 2>/dev/null
    fi
}
ok() {
    pass=$((pass + 1))
    echo "ok $1"
}
bad() {
    fail=$((fail + 1))
    echo "FAIL $1"
}
