# suite.sh - the preamble every shell suite under tests/suites/ sources:
#
#   . "$(dirname "$0")/../lib/suite.sh"
#
# It moves to the repository root and sets:
#   root      the repository root (also the working directory)
#   BUILD     the build tree (default build), exported
#   GPUPLAN   $root/$BUILD/gpuplan
#   FIXTURES  tests/fixtures, exported
#   tmp       a private temporary directory, removed when the suite exits
#   pass fail the counters, bumped by ok NAME / bad NAME
# and defines:
#   ok NAME, bad NAME     count and print "ok NAME" / "FAIL NAME"
#   finish                print "N passed, N failed" (the line scripts/run-tests.sh
#                         reads) and exit 0 when nothing failed, else 1
#   abort NAME            bad NAME, then finish: for a suite that cannot go on
#   skip WHY              print "note: WHY" and "0 passed, 0 failed", exit 0
#   need_binary           abort unless $GPUPLAN is built
#   need_tool TOOL...     abort unless every TOOL is on PATH
# A suite that has more to clean up sets suite_exit_hook to a function name;
# it runs at exit before $tmp is removed. INT, TERM and HUP end the suite
# (through the same cleanup).
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 1
BUILD=${BUILD:-build}
GPUPLAN=$root/$BUILD/gpuplan
FIXTURES=tests/fixtures
export BUILD FIXTURES
pass=0
fail=0
suite_exit_hook=""
tmp=$(mktemp -d)

suite_cleanup() {
    if [ -n "$suite_exit_hook" ]; then
        "$suite_exit_hook"
    fi
    rm -rf "$tmp"
}
trap suite_cleanup EXIT
trap 'exit 1' INT TERM HUP

ok() {
    pass=$((pass + 1))
    echo "ok $1"
}
bad() {
    fail=$((fail + 1))
    echo "FAIL $1"
}
finish() {
    echo "$pass passed, $fail failed"
    [ "$fail" = 0 ]
    exit
}
abort() {
    bad "$1"
    finish
}
skip() {
    echo "note: $1"
    echo "0 passed, 0 failed"
    exit 0
}
need_binary() {
    [ -x "$GPUPLAN" ] || abort "no binary at $GPUPLAN; run make BUILD=$BUILD first"
}
need_tool() {
    for suite_tool in "$@"; do
        command -v "$suite_tool" >/dev/null 2>&1 ||
            abort "'$suite_tool' is required (scripts/deps.sh test installs it)"
    done
}
