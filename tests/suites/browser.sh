#!/bin/sh
# browser.sh - the page served by `gpuplan serve` in a real browser: Debian's
# chromium, headless, driven by playwright-core (tests/browser/test.mjs).
# Installs what it needs: `scripts/deps.sh browser` (chromium, nodejs, npm; as
# root) and `npm ci --prefix tests/browser` when node_modules is missing.
# Skips, with a "note:" line saying why, only when chromium cannot be
# installed (no network, or no apt-get); every other problem is a failure.
# Screenshots: $BUILD/browser/*.png. Ends with "N passed, N failed".
set -u
BUILD=${BUILD:-build}
DIR=tests/browser

fail() {
    echo "FAIL browser: $1"
    echo "0 passed, 1 failed"
    exit 1
}

[ -x "$BUILD/gpuplan" ] || fail "no binary at $BUILD/gpuplan; run make BUILD=$BUILD first"

if ! command -v chromium >/dev/null 2>&1 || ! command -v node >/dev/null 2>&1 ||
    ! command -v npm >/dev/null 2>&1; then
    if [ "$(id -u)" != 0 ]; then
        scripts/deps.sh browser
        fail "chromium, nodejs and npm are needed; install them as root (scripts/deps.sh browser)"
    fi
    deps_log=$(mktemp)
    if ! scripts/deps.sh browser >"$deps_log" 2>&1 || ! command -v chromium >/dev/null 2>&1; then
        echo "note: browser: skipped: chromium cannot be installed here (apt-get failed: no network?)"
        sed 's/^/note: browser:   /' "$deps_log" | tail -n 3
        rm -f "$deps_log"
        echo "0 passed, 0 failed"
        exit 0
    fi
    rm -f "$deps_log"
fi
command -v node >/dev/null 2>&1 || fail "chromium is installed but node is not (scripts/deps.sh browser)"

if [ ! -d "$DIR/node_modules/playwright-core" ]; then
    npm ci --prefix "$DIR" --no-audit --no-fund --loglevel=error ||
        fail "npm ci --prefix $DIR failed (the npm registry is needed once)"
fi

BUILD=$BUILD node "$DIR/test.mjs"
rc=$?
# test.mjs prints its own final "N passed, N failed"; a crash before it does is one failure.
[ "$rc" = 0 ] || [ "$rc" = 1 ] || {
    echo "FAIL browser: test.mjs exited with status $rc"
    echo "0 passed, 1 failed"
}
exit "$rc"
