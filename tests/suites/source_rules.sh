#!/bin/sh
# source_rules.sh - the rules `make lint` checks that need no compiler run:
# every #include points down the layers (scripts/check-layers.sh) and the C
# sources are clang-format clean (scripts/check-format.sh; skipped, with a
# note, where clang-format is not installed). Ends with "N passed, N failed".
. "$(dirname "$0")/../lib/suite.sh"
if scripts/check-layers.sh >"$tmp/layers" 2>&1; then
    ok "$(tail -n 1 "$tmp/layers")"
else
    cat "$tmp/layers"
    bad "includes that break the layer rules"
fi
scripts/check-format.sh >"$tmp/format" 2>&1
case $? in
0) ok "$(tail -n 1 "$tmp/format")" ;;
2) echo "note: $(cat "$tmp/format"); format check skipped" ;;
*)
    cat "$tmp/format"
    bad "sources not clang-format clean"
    ;;
esac
finish
