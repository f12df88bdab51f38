#!/bin/sh
# check-format.sh - the C sources are as clang-format writes them with the
# repository's .clang-format (`clang-format --dry-run -Werror`). Run by
# `make lint` and, as the suite tests/suites/source_rules.sh, by `make check`.
# `make format` fixes what this reports. Exit 2 when clang-format is missing.
set -u
cd "$(dirname "$0")/.." || exit 1
if ! command -v clang-format >/dev/null 2>&1; then
    echo "format: clang-format not installed (apt-get install clang-format)"
    exit 2
fi
files=$(ls include/gpuplan/*.h src/*/*.c src/*/*.h src/lib/*/*.c src/lib/*/*.h tests/*/*.c \
    tests/*/*.h tests/fuzz/targets/*.c tools/*.c 2>/dev/null)
# shellcheck disable=SC2086
if clang-format --dry-run -Werror $files >/dev/null 2>&1; then
    echo "format: $(echo "$files" | wc -l) files as clang-format writes them"
    exit 0
fi
# shellcheck disable=SC2086
bad=$(for f in $files; do clang-format --dry-run -Werror "$f" >/dev/null 2>&1 || echo "$f"; done)
echo "format: not clang-format clean (run 'make format'):"
echo "$bad" | sed 's/^/format:   /'
exit 1
