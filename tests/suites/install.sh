#!/bin/sh
# `make install` into a temporary prefix (and with DESTDIR) puts every file
# in place; the installed binary runs (--version, Russian help from
# share/locale); a tiny C program compiles and runs against the installed
# header and library through `pkg-config --cflags --libs gpuplan`; the man
# page is found through MANPATH; `make uninstall` leaves no file behind.
. "$(dirname "$0")/../lib/suite.sh"
SAN=${SAN:-}
MAKE=${MAKE:-make}
unset LANGUAGE LC_ALL LC_MESSAGES LANG
prefix=$tmp/prefix
version=$(sed -n 's/^#define GPUPLAN_VERSION "\(.*\)"/\1/p' include/gpuplan/gpuplan.h)

installed_files() { # root
    echo "$1/bin/gpuplan"
    echo "$1/lib/libgpuplan.a"
    echo "$1/lib/pkgconfig/gpuplan.pc"
    echo "$1/share/man/man1/gpuplan.1"
    echo "$1/share/bash-completion/completions/gpuplan"
    echo "$1/share/zsh/site-functions/_gpuplan"
    for po in po/*.po; do
        lang=$(basename "$po" .po)
        echo "$1/share/locale/$lang/LC_MESSAGES/gpuplan.mo"
    done
    for h in include/gpuplan/*.h; do echo "$1/$h"; done
}
check_installed() { # root label
    missing=0
    for f in $(installed_files "$1"); do
        [ -s "$f" ] || {
            echo "missing: $f"
            missing=$((missing + 1))
        }
    done
    if [ "$missing" = 0 ]; then
        ok "$2: all $(installed_files "$1" | wc -l) files installed"
    else
        bad "$2: $missing files missing"
    fi
}
check_empty() { # root label
    left=$(find "$1" \( -type f -o -type l \) 2>/dev/null)
    if [ -z "$left" ]; then
        ok "$2: uninstall leaves no file"
    else
        echo "$left"
        bad "$2: uninstall left files"
    fi
}

# 1. PREFIX install
if "$MAKE" -s --no-print-directory BUILD="$BUILD" SAN="$SAN" PREFIX="$prefix" install \
    >"$tmp/install.log" 2>&1; then
    ok "make install PREFIX=..."
else
    cat "$tmp/install.log"
    bad "make install PREFIX=..."
fi
check_installed "$prefix" "PREFIX"
[ -x "$prefix/bin/gpuplan" ] && ok "binary is executable" || bad "binary not executable"

out=$("$prefix/bin/gpuplan" --version 2>&1)
if echo "$out" | grep -Eq "^gpuplan $version \(catalog [0-9]{4}-[0-9]{2}-[0-9]{2}\)$"; then
    ok "installed --version: $out"
else
    bad "installed --version printed '$out'"
fi
cyrillic=$(printf '\320\272\320\276\320\274\320\260\320\275\320\264\321\213') # "команды"
if "$prefix/bin/gpuplan" --lang ru --help 2>&1 | grep -qF "$cyrillic"; then
    ok "installed binary finds its catalog in share/locale"
else
    bad "installed binary prints no Russian with --lang ru"
fi
if command -v man >/dev/null 2>&1; then
    if MANPATH=$prefix/share/man man -w gpuplan 2>/dev/null | grep -q "$prefix/share/man/man1/gpuplan.1"; then
        ok "man finds the page through MANPATH"
    else
        bad "man -w gpuplan does not find the installed page"
    fi
fi
if bash -c ". '$prefix/share/bash-completion/completions/gpuplan'; PATH='$prefix/bin':\$PATH;
        COMP_WORDS=(gpuplan est); COMP_CWORD=1; _gpuplan; [ \"\${COMPREPLY[*]}\" = estimate ]"; then
    ok "installed bash completion completes with the installed binary"
else
    bad "installed bash completion"
fi

# 2. pkg-config and a program against the installed library
cat >"$tmp/hello.c" <<'C'
#include <stdio.h>
#include <string.h>

#include <gpuplan/gpuplan.h>

int main(void)
{
    struct gpuplan_catalog *catalog = NULL;
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    if (gpuplan_catalog_load(&catalog, NULL, &err) != GPUPLAN_OK) {
        fprintf(stderr, "%s\n", err.message);
        return 1;
    }
    const struct gpuplan_gpu *gpu = gpuplan_catalog_find_gpu(catalog, "h100-sxm");
    printf("%s %s %s\n", GPUPLAN_VERSION, gpuplan_catalog_date(catalog), gpu ? gpu->id : "-");
    gpuplan_catalog_free(catalog);
    return 0;
}
C
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
pc_version=$(pkg-config --modversion gpuplan 2>&1)
[ "$pc_version" = "$version" ] && ok "pkg-config --modversion gpuplan = $version" ||
    bad "pkg-config --modversion gpuplan printed '$pc_version'"
san_flags=""
[ -n "$SAN" ] && san_flags="-fsanitize=address,undefined"
# shellcheck disable=SC2046
if ${CC:-cc} -std=c17 -Wall -Werror $san_flags -o "$tmp/hello" "$tmp/hello.c" \
    $(pkg-config --cflags --libs gpuplan) >"$tmp/cc.log" 2>&1; then
    ok "a program compiles against the installed header and pkg-config flags"
else
    cat "$tmp/cc.log"
    bad "compiling against the installed library"
fi
if [ -x "$tmp/hello" ] && run=$("$tmp/hello" 2>&1) &&
    echo "$run" | grep -Eq "^$version [0-9]{4}-[0-9]{2}-[0-9]{2} h100-sxm$"; then
    ok "it runs: $run"
else
    bad "the program against the installed library printed '${run:-}'"
fi

# 3. uninstall
if "$MAKE" -s --no-print-directory BUILD="$BUILD" SAN="$SAN" PREFIX="$prefix" uninstall \
    >"$tmp/uninstall.log" 2>&1; then
    ok "make uninstall PREFIX=..."
else
    cat "$tmp/uninstall.log"
    bad "make uninstall PREFIX=..."
fi
check_empty "$prefix" "PREFIX"

# 4. DESTDIR staging: files land under DESTDIR/PREFIX, the .pc names PREFIX
stage=$tmp/stage
if "$MAKE" -s --no-print-directory BUILD="$BUILD" SAN="$SAN" PREFIX=/opt/gpuplan DESTDIR="$stage" \
    install >"$tmp/install.log" 2>&1; then
    ok "make install DESTDIR=... PREFIX=/opt/gpuplan"
else
    cat "$tmp/install.log"
    bad "make install DESTDIR=..."
fi
check_installed "$stage/opt/gpuplan" "DESTDIR"
grep -qx 'prefix=/opt/gpuplan' "$stage/opt/gpuplan/lib/pkgconfig/gpuplan.pc" 2>/dev/null &&
    ok "gpuplan.pc names the final prefix, not DESTDIR" || bad "gpuplan.pc prefix"
"$MAKE" -s --no-print-directory BUILD="$BUILD" SAN="$SAN" PREFIX=/opt/gpuplan DESTDIR="$stage" \
    uninstall >"$tmp/uninstall.log" 2>&1 || cat "$tmp/uninstall.log"
check_empty "$stage" "DESTDIR"

finish
