#!/bin/sh
# browser.sh - the pages served by `gpuplan serve` in a real browser, with
# Debian's packages only: chromium, headless, driven through chromium-driver
# (/usr/bin/chromedriver) by python3-selenium under Debian's /usr/bin/python3
# (not whatever python3 comes first on PATH), and pdftotext (poppler-utils) for
# the printed proposal's first page (test_propose.py skips that check without it).
# tests/browser/harness.py holds the helpers; every tests/browser/test_*.py is
# run (test_page.py: the main page; test_propose.py: the proposal and issue 18's
# page checks; test_harness.py: a smoke test of each helper) and its counts added up.
#
# Installs what is missing with `scripts/deps.sh browser` (as root). Skips,
# with one "note:" line saying what is missing and how to install it, only
# when that cannot be done (not root, no network, no apt-get); every other
# problem is a failure. Screenshots and PDFs: $BUILD/browser/.
# CHROMIUM, CHROMEDRIVER, BROWSER_PYTHON override the three paths.
# Ends with "N passed, N failed".
set -u
BUILD=${BUILD:-build}
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
CHROMEDRIVER=${CHROMEDRIVER:-/usr/bin/chromedriver}
PYTHON=${BROWSER_PYTHON:-/usr/bin/python3}
export BUILD CHROMIUM CHROMEDRIVER

fail() {
    echo "FAIL browser: $1"
    echo "0 passed, 1 failed"
    exit 1
}

[ -x "$BUILD/gpuplan" ] || fail "no binary at $BUILD/gpuplan; run make BUILD=$BUILD first"

# missing: the Debian packages (with the path looked for) that are not there.
missing() {
    m=""
    [ -x "$CHROMIUM" ] || m="$m chromium ($CHROMIUM)"
    [ -x "$CHROMEDRIVER" ] || m="$m chromium-driver ($CHROMEDRIVER)"
    if [ ! -x "$PYTHON" ]; then
        m="$m python3 ($PYTHON)"
    elif ! "$PYTHON" -c 'import selenium.webdriver' 2>/dev/null; then
        m="$m python3-selenium (for $PYTHON)"
    fi
    echo "$m"
}

lack=$(missing)
if [ -n "$lack" ]; then
    deps_log=$(mktemp)
    scripts/deps.sh browser >"$deps_log" 2>&1
    deps_rc=$?
    grep '^gpuplan: install' "$deps_log"
    lack=$(missing)
    if [ -n "$lack" ]; then
        if [ "$deps_rc" = 0 ]; then
            why="scripts/deps.sh finds the packages installed: check CHROMIUM, CHROMEDRIVER, BROWSER_PYTHON"
        elif [ "$(id -u)" != 0 ]; then
            why="not root, so not installed"
        elif ! command -v apt-get >/dev/null 2>&1; then
            why="no apt-get here"
        else
            why="apt-get failed (no network?): $(grep -v '^gpuplan:' "$deps_log" | tail -n 1)"
        fi
        rm -f "$deps_log"
        echo "note: browser: skipped: missing$lack; $why; to install, as root: scripts/deps.sh browser (apt-get install -y chromium chromium-driver python3-selenium)"
        echo "0 passed, 0 failed"
        exit 0
    fi
    rm -f "$deps_log"
fi

passed=0
failed=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT
for t in tests/browser/test_*.py; do
    [ -f "$t" ] || continue
    # -B: no __pycache__ in the source tree. A hung browser is a failure, not a hang.
    timeout 300 "$PYTHON" -B "$t" >"$log" 2>&1
    rc=$?
    # Each file's own total, named, so that the last bare total is this suite's.
    sed -E "s/^([0-9]+ passed, [0-9]+ failed)\$/${t##*/}: \1/" "$log"
    line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$log" | tail -n 1)
    p=$(echo "$line" | sed -n 's/^\([0-9]*\) passed.*/\1/p')
    f=$(echo "$line" | sed -n 's/^[0-9]* passed, \([0-9]*\) failed$/\1/p')
    p=${p:-0}
    f=${f:-0}
    if [ "$rc" != 0 ] && [ "$f" = 0 ]; then
        echo "FAIL browser: $t exited with status $rc"
        f=1
    fi
    passed=$((passed + p))
    failed=$((failed + f))
done
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
