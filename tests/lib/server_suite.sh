# server_suite.sh - sourced by the shell suites that start `gpuplan serve`
# (tests/suites/determinism.sh, http.sh, http_faults.sh): the common preamble
# (suite.sh: root, BUILD, GPUPLAN, counters, ok/bad/finish, $tmp) plus
# stop_server, which ends the server a suite started (its pid in
# $server_pid) and waits for it; it runs at exit unless the suite installs
# its own EXIT trap (which then calls stop_server and removes "$tmp").
. "$(dirname "$0")/../lib/suite.sh"
server_pid=""
stop_server() {
    if [ -n "$server_pid" ]; then
        kill -TERM "$server_pid" 2>/dev/null
        wait "$server_pid" 2>/dev/null
    fi
}
suite_exit_hook=stop_server
