#!/bin/sh
# standalone.sh - the repository stands on its own: no tracked file reaches
# outside it for fixtures, data or docs (a user's clone has nothing beside it),
# and every fixture the tests name is inside the repository.
#  1. no tracked file names the research workspace that sat beside the
#     repository while it was written (the pattern is assembled below so this
#     file does not match itself);
#  2. every `tests/fixtures/...` path named by a golden command, a suite or a
#     unit test exists;
#  3. tests/fixtures/README.md lists the source of every fixture file.
# Ends with "N passed, N failed".
. "$(dirname "$0")/../lib/suite.sh"

if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    files=$(git ls-files)
else
    files=$(find . -type f ! -path './build*' ! -path './.git/*' | sed 's|^\./||')
fi
outside='\.\./'"shar"'ed|GPUPLAN_'"SHAR"'ED|/work/'"shar"'ed'
hits=$(echo "$files" | grep -v '^tests/fuzz/corpus/' | while read -r f; do
    [ -f "$f" ] && grep -l -E "$outside" "$f" 2>/dev/null
done)
if [ -z "$hits" ]; then
    ok "no tracked file reaches outside the repository"
else
    bad "these files reach outside the repository: $(echo $hits)"
fi

# Every tests/fixtures path the tests name exists.
named=$(grep -h -o -E 'tests/fixtures/[A-Za-z0-9._/-]+' tests/golden/cli/*/*.cmd tests/suites/*.sh \
    tests/unit/*.c tests/unit/*.h tests/bench/*.c 2>/dev/null | sed 's/[.,;:)]*$//' | sort -u)
fixtures_cmd=$(grep -h -o -E '\$FIXTURES/[A-Za-z0-9._/-]+' tests/golden/cli/*/*.cmd 2>/dev/null |
    sed 's|^\$FIXTURES|tests/fixtures|' | sort -u)
missing=""
for p in $named $fixtures_cmd; do
    [ -e "$p" ] || missing="$missing $p"
done
if [ -z "$missing" ]; then ok "every fixture path the tests name exists"; else bad "missing fixtures:$missing"; fi
for rel in $(grep -h -o -E 'fixture_path\("[^"]+"\)' tests/unit/*.c | sed 's/fixture_path("\(.*\)")/\1/' | sort -u); do
    [ -e "tests/fixtures/$rel" ] || missing="$missing tests/fixtures/$rel"
done
if [ -z "$missing" ]; then ok "every fixture_path() of the unit tests exists"; else bad "missing fixtures:$missing"; fi

# Every fixture file has its source in the README.
unlisted=""
for f in tests/fixtures/hf-configs/* tests/fixtures/weights/* tests/fixtures/configs/*; do
    [ -f "$f" ] || continue
    rel=${f#tests/fixtures/}
    grep -q -F "| $rel |" tests/fixtures/README.md || unlisted="$unlisted $rel"
done
if [ -z "$unlisted" ]; then ok "tests/fixtures/README.md gives the source of every fixture"; else bad "no source listed for:$unlisted"; fi

# Every engine key list names where its keys come from (a "# Source:" line).
unsourced=""
for f in tests/fixtures/engine-keys/*.txt; do
    [ -f "$f" ] || continue
    grep -q -E '^# Sources?: ' "$f" || unsourced="$unsourced ${f#tests/fixtures/}"
done
if [ -z "$unsourced" ]; then ok "every engine key list names its source"; else bad "no '# Source:' or '# Sources:' line in:$unsourced"; fi

finish
