# bash completion for gpuplan                                  -*- shell-script -*-
#
# Installed as PREFIX/share/bash-completion/completions/gpuplan (or source it).
# The candidates come from the binary itself: `gpuplan __complete WORDS...`
# prints the commands, the options of the command being typed, option values
# (choices, catalog GPU and platform ids) and catalog model ids, one per line,
# from the same tables that drive parsing and --help. Exit status 1 asks for
# file names instead (--catalog DIR, a config.json path).

_gpuplan() {
    local cur=${COMP_WORDS[COMP_CWORD]}
    local out rc
    out=$("${COMP_WORDS[0]}" __complete "${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null)
    rc=$?
    COMPREPLY=()
    if [ "$rc" -eq 1 ]; then
        [ "$cur" = "=" ] && cur=""
        mapfile -t COMPREPLY < <(compgen -f -- "$cur")
        compopt -o filenames 2>/dev/null
    elif [ "$rc" -eq 0 ] && [ -n "$out" ]; then
        mapfile -t COMPREPLY <<<"$out"
    fi
    return 0
}
complete -F _gpuplan gpuplan
