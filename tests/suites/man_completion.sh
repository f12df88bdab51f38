#!/bin/sh
# The man page, docs/cli.md and the shell completion agree with --help:
# every option `gpuplan CMD --help` lists is in the man page's section for
# CMD and vice versa; docs/cli.md is what `gpuplan help-md` prints now; the
# bash completion (sourced in bash -c) completes commands, options, option
# values, catalog GPU and model ids, and falls back to file names.
. "$(dirname "$0")/../lib/suite.sh"
bin=$GPUPLAN
man_page=$root/$BUILD/gpuplan.1
bash_comp=$root/$BUILD/completions/gpuplan.bash
zsh_comp=$root/$BUILD/completions/_gpuplan
export LC_ALL=C LANGUAGE=

for f in "$bin" "$man_page" "$bash_comp" "$zsh_comp"; do
    if [ -s "$f" ]; then ok "built $BUILD/${f#"$root/$BUILD/"}"; else bad "missing $f"; fi
done

# The long options of a help text: lines "  --name ..." or "  -x, --name ...".
help_options() {
    sed -n 's/^  \(-[A-Za-z], \)\{0,1\}\(--[a-z0-9][a-z0-9-]*\).*/\2/p' | sort -u
}
# The long options of one man page section (.SS "gpuplan CMD"), from the .TP heads.
man_options() { # section-title
    awk -v title="$1" '
        /^\.S[SH] / { in_section = (index($0, title) > 0); next }
        in_section && prev == ".TP" { print }
        { prev = $0 }' "$man_page" |
        sed 's/\\-/-/g; s/\\f[BIR]//g' | tr ', ' '\n\n' | grep -E '^--[a-z0-9]' | sort -u
}

# 1. the man page renders without roff warnings
if command -v groff >/dev/null 2>&1; then
    if groff -man -Tutf8 -ww -z "$man_page" >"$tmp/groff.log" 2>&1 && [ ! -s "$tmp/groff.log" ]; then
        ok "groff renders gpuplan.1 without warnings"
    else
        cat "$tmp/groff.log"
        bad "groff warnings in gpuplan.1"
    fi
else
    echo "note: groff not found; rendering check skipped"
fi

# 2. every command's options: --help == man page (both directions)
commands=$("$bin" --help | sed -n '/^commands:/,/^$/p' | sed -n 's/^  \([a-z][a-z-]*\) .*/\1/p')
[ -n "$commands" ] && ok "commands listed by --help" || bad "no commands in --help"
for cmd in $commands; do
    "$bin" "$cmd" --help 2>/dev/null | help_options >"$tmp/help"
    man_options "\"gpuplan $cmd\"" >"$tmp/man"
    if [ "$cmd" != version ] && [ ! -s "$tmp/help" ]; then
        bad "'gpuplan $cmd --help' lists no options"
    elif cmp -s "$tmp/help" "$tmp/man"; then
        ok "options of '$cmd': --help and man page agree ($(wc -l <"$tmp/help") options)"
    else
        echo "--help (<) vs man page (>) for $cmd:"
        diff "$tmp/help" "$tmp/man"
        bad "options of '$cmd' differ between --help and the man page"
    fi
done
# estimate's options include the whole job option table (a non-trivial check).
n_estimate=$("$bin" estimate --help | help_options | wc -l)
if [ "$n_estimate" -ge 20 ]; then ok "estimate lists $n_estimate options"; else bad "estimate lists only $n_estimate options"; fi
"$bin" --help | sed -n '/^global options:/,/^$/p' | help_options >"$tmp/help"
man_options "GLOBAL OPTIONS" >"$tmp/man"
if [ -s "$tmp/help" ] && cmp -s "$tmp/help" "$tmp/man"; then
    ok "global options: --help and man page agree"
else
    diff "$tmp/help" "$tmp/man"
    bad "global options differ between --help and the man page"
fi
if grep -q "^\.TH GPUPLAN 1 \"[0-9-]*\" \"gpuplan $("$bin" --version | cut -d' ' -f2)\"" "$man_page"; then
    ok "man page header carries the version"
else
    bad "man page .TH line"
fi

# 3. docs/cli.md is current
if "$bin" help-md >"$tmp/cli.md" && cmp -s "$tmp/cli.md" docs/cli.md; then
    ok "docs/cli.md matches 'gpuplan help-md'"
else
    diff docs/cli.md "$tmp/cli.md" | head -20
    bad "docs/cli.md is stale: run 'make docs'"
fi

# 4. bash completion
if bash -n "$bash_comp"; then ok "bash completion parses"; else bad "bash completion syntax"; fi
# zsh: the script runs with compadd and _files stubbed to print what they get.
zsh_complete() { # expected-word word...
    expect=$1
    shift
    PATH="$root/$BUILD:$PATH" zsh -c '
        f=$1; shift
        compadd() { [[ $1 == -a ]] && print -l -- "${(@P)2}"; }
        _files() { print "(files)"; }
        complete_once() { source "$f"; }
        words=(gpuplan "$@"); CURRENT=$(( $# + 1 ))
        complete_once' zsh "$zsh_comp" "$@" >"$tmp/reply" 2>&1
    if grep -qxF -- "$expect" "$tmp/reply"; then
        ok "zsh: complete 'gpuplan $*' offers '$expect'"
    else
        cat "$tmp/reply"
        bad "zsh: complete 'gpuplan $*' does not offer '$expect'"
    fi
}
if command -v zsh >/dev/null 2>&1; then
    if zsh -n "$zsh_comp"; then ok "zsh completion parses"; else bad "zsh completion syntax"; fi
    zsh_complete estimate est
    zsh_complete --gpu estimate --gp
    zsh_complete llama-3.1-70b estimate llama-3.1-7
    zsh_complete "(files)" gpus --catalog ""
else
    echo "note: zsh not found; zsh completion checks skipped"
fi
mkdir -p "$tmp/files" && : >"$tmp/files/config.json"
complete_words() { # expected-word word...  (the last word is the one completed)
    expect=$1
    shift
    PATH="$root/$BUILD:$PATH" bash -c '
        . "$1"; shift
        COMP_WORDS=(gpuplan "$@"); COMP_CWORD=$#
        cd "$0" && _gpuplan && printf "%s\n" "${COMPREPLY[@]}"' \
        "$tmp/files" "$bash_comp" "$@" >"$tmp/reply" 2>"$tmp/reply.err"
    if grep -qxF -- "$expect" "$tmp/reply"; then
        ok "complete 'gpuplan $*' offers '$expect' ($(wc -l <"$tmp/reply") candidates)"
    else
        cat "$tmp/reply" "$tmp/reply.err"
        bad "complete 'gpuplan $*' does not offer '$expect'"
    fi
}
complete_words estimate est
[ "$(cat "$tmp/reply")" = estimate ] && ok "'gpuplan est' completes to estimate only" ||
    bad "'gpuplan est' offers more than estimate"
complete_words --gpu estimate --gp
complete_words llama-3.1-70b estimate llama-3.1-7
complete_words qlora estimate --method ""
complete_words h100-sxm estimate --gpu h10
complete_words h200-sxm estimate --gpu = h20
complete_words html tco --format ""
complete_words ru --lang ""
complete_words estimate --lang ru est
complete_words --seq-len estimate llama-3.1-8b --lang ru --seq
complete_words config.json gpus --catalog ""
complete_words config.json estimate conf
complete_words --catalog gpus --ca
if grep -q -- '--gpu' "$tmp/reply"; then bad "'gpus --ca' offers estimate options"; else ok "options are per command"; fi
"$bin" __complete estimate --seq-len "" >"$tmp/reply"
[ ! -s "$tmp/reply" ] && ok "no candidates for a number" || bad "candidates offered for --seq-len N"

finish
