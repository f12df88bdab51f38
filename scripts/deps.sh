#!/bin/sh
# Ensure the Debian packages gpuplan builds and tests with are present.
# Usage: scripts/deps.sh [build|test|bench|fuzz|browser|slurm]...
# Each group names every Debian package it needs explicitly (nothing is left
# to arrive as a recommendation or a dependency of another package). Only the
# missing ones are installed: as root with apt-get, naming them first; otherwise
# the exact apt-get line is printed and the script fails. Used by `make demo`
# and `make check` alike.
set -eu

need=""
add() { case " $need " in *" $1 "*) ;; *) need="$need $1" ;; esac; }

have_pc() { pkg-config --exists "$1" 2>/dev/null; }
# have_deb PKG: the Debian package is installed (dpkg-query), for packages that
# install no command and no .pc file.
have_deb() {
    command -v dpkg-query >/dev/null 2>&1 || return 0
    dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'
}

command -v pkg-config >/dev/null 2>&1 || add pkg-config
command -v cc >/dev/null 2>&1 || add gcc
command -v make >/dev/null 2>&1 || add make
# The C library's headers and crt files: gcc alone does not bring them.
[ -e /usr/include/stdio.h ] || add libc6-dev
have_deb libc6-dev || add libc6-dev

for what in "$@"; do
    case "$what" in
    build)
        have_pc jansson || add libjansson-dev
        have_pc libmicrohttpd || add libmicrohttpd-dev
        have_pc yaml-0.1 || add libyaml-dev
        command -v xgettext >/dev/null 2>&1 || add gettext
        ;;
    test)
        have_pc cmocka || add libcmocka-dev
        command -v python3 >/dev/null 2>&1 || add python3
        command -v curl >/dev/null 2>&1 || add curl
        command -v valgrind >/dev/null 2>&1 || add valgrind
        [ -e /usr/share/i18n/locales/de_DE ] || add locales
        # the engine-format checks of tests/suites/emit_engines.sh (PyYAML, as the engines load)
        /usr/bin/python3 -c 'import yaml' 2>/dev/null || add python3-yaml
        ;;
    browser)
        # tests/browser/harness.py: Debian's selenium under Debian's own
        # /usr/bin/python3 (not whatever python3 comes first on PATH).
        command -v chromium >/dev/null 2>&1 || add chromium
        command -v chromedriver >/dev/null 2>&1 || add chromium-driver
        [ -x /usr/bin/python3 ] || add python3
        /usr/bin/python3 -c 'import selenium.webdriver' 2>/dev/null || add python3-selenium
        # test_propose.py reads the printed proposal's first page with pdftotext
        command -v pdftotext >/dev/null 2>&1 || add poppler-utils
        ;;
    bench)
        command -v wrk >/dev/null 2>&1 || add wrk
        command -v curl >/dev/null 2>&1 || add curl
        command -v valgrind >/dev/null 2>&1 || add valgrind
        ;;
    slurm)
        # tests/suites/emit_engines.sh: a one-node controller for sbatch --test-only
        command -v slurmctld >/dev/null 2>&1 || add slurm-wlm
        command -v munged >/dev/null 2>&1 || add munge
        ;;
    fuzz)
        command -v clang >/dev/null 2>&1 || add clang
        [ -e /usr/lib/llvm-14/lib/clang/14.0.6/lib/linux/libclang_rt.fuzzer-x86_64.a ] || add libclang-rt-14-dev
        ;;
    *) echo "scripts/deps.sh: unknown group '$what'" >&2; exit 2 ;;
    esac
done

[ -z "$need" ] && exit 0

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "gpuplan: installing missing Debian packages:$need" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >&2 || true
    # shellcheck disable=SC2086
    apt-get install -y -qq --no-install-recommends $need >&2
    echo "gpuplan: installed:$need" >&2
    exit 0
fi
echo "gpuplan: error: missing Debian packages:$need" >&2
echo "hint: run as root: apt-get install -y$need" >&2
exit 1
