#!/bin/sh
# make lint: banned functions (curl's checksrc list), the layer rules of
# docs/architecture.md (scripts/check-layers.sh), clang-format cleanliness
# (scripts/check-format.sh), then cppcheck and clang-tidy when installed.
# Exits non-zero on any finding.
set -u
status=0
files=$(ls include/gpuplan/*.h src/*/*.c src/*/*.h src/lib/*/*.c src/lib/*/*.h tools/*.c 2>/dev/null)

# Banned: unbounded or error-swallowing C library calls (docs/style.md).
if grep -nE '\b(atoi|atof|atol|sprintf|vsprintf|strcpy|strcat|strncpy|strtok|gets)\s*\(' $files; then
    echo "lint: banned function above (use snprintf, strtoull/strtod with checks, memcpy with bounds)"
    status=1
fi

scripts/check-layers.sh || status=1
scripts/check-format.sh || status=1

if command -v cppcheck >/dev/null 2>&1; then
    cppcheck --quiet --error-exitcode=1 --std=c11 --enable=warning,portability \
        --suppress=missingIncludeSystem -Iinclude -Isrc/lib src || status=1
else
    echo "lint: cppcheck not installed (apt-get install cppcheck); skipped"
fi

if command -v clang-tidy >/dev/null 2>&1 && [ -f compile_commands.json ]; then
    clang-tidy --quiet -checks='-*,clang-analyzer-*,bugprone-*,cert-err33-c,cert-err34-c' \
        $(ls src/lib/*/*.c src/cli/*.c src/server/*.c) >/tmp/gpuplan-tidy.log 2>&1 || status=1
    grep -E 'warning:|error:' /tmp/gpuplan-tidy.log | head -50
else
    echo "lint: clang-tidy needs compile_commands.json ('bear -- make'); skipped"
fi
exit $status
