#!/bin/sh
# Message catalogs: po/ru.po compiles with no untranslated or fuzzy
# message, holds every msgid of the .pot the build extracts (and the
# checked-in po/gpuplan.pot is current); `--lang ru` and LANG=ru_RU.UTF-8
# print Russian, `--lang en` English, a bad --lang is a usage error, and
# numbers never follow the locale (output is byte-identical).
. "$(dirname "$0")/../lib/suite.sh"
bin=$GPUPLAN
pot=$root/$BUILD/po/gpuplan.pot
unset LANGUAGE LC_ALL LC_MESSAGES LANG
cyrillic=$(printf '\320\272\320\276\320\274\320\260\320\275\320\264\321\213') # "команды"

command -v msgfmt >/dev/null 2>&1 ||
    abort "msgfmt not found (Debian package gettext; scripts/deps.sh build)"

# 1. ru.po: checked, fully translated, nothing fuzzy
for po in po/*.po; do
    if msgfmt -c --statistics -o /dev/null "$po" >"$tmp/stats" 2>&1; then
        ok "$po compiles (msgfmt -c): $(cat "$tmp/stats")"
    else
        cat "$tmp/stats"
        bad "$po: msgfmt -c"
    fi
    if grep -Eq 'fuzzy|untranslated' "$tmp/stats"; then
        bad "$po has fuzzy or untranslated messages: $(cat "$tmp/stats")"
    else
        ok "$po: no fuzzy or untranslated messages"
    fi
    # 2. every msgid of the extracted .pot is in the .po (msgcmp: def.po ref.pot)
    if [ -s "$pot" ] && msgcmp "$po" "$pot" >"$tmp/cmp" 2>&1; then
        ok "$po covers every msgid of $BUILD/po/gpuplan.pot"
    else
        cat "$tmp/cmp"
        bad "$po lacks messages of the .pot: run 'make update-po' and translate"
    fi
done

# The checked-in template matches the sources (both directions).
if [ -s "$pot" ] && msgcmp --use-untranslated po/gpuplan.pot "$pot" >"$tmp/cmp" 2>&1 &&
    msgcmp --use-untranslated "$pot" po/gpuplan.pot >>"$tmp/cmp" 2>&1; then
    ok "po/gpuplan.pot is current"
else
    cat "$tmp/cmp"
    bad "po/gpuplan.pot is stale: run 'make update-po'"
fi
if [ -s "$root/$BUILD/locale/ru/LC_MESSAGES/gpuplan.mo" ]; then
    ok "ru catalog compiled into $BUILD/locale"
else
    bad "no $BUILD/locale/ru/LC_MESSAGES/gpuplan.mo"
fi

# 3. the language switches
expect() { # name expected-exit pattern(fixed string) stream(out|err) command...
    name=$1 want_rc=$2 pattern=$3 stream=$4
    shift 4
    "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    if [ "$rc" = "$want_rc" ] && grep -qF -- "$pattern" "$tmp/$stream"; then
        ok "$name"
    else
        echo "exit $rc (want $want_rc); $stream:"
        cat "$tmp/$stream"
        bad "$name"
    fi
}
expect "--lang ru --help prints Cyrillic" 0 "$cyrillic" out "$bin" --lang ru --help
expect "--help --lang=ru (after) prints Cyrillic" 0 "$cyrillic" out "$bin" --help --lang=ru
expect "--lang en --help prints English" 0 "commands:" out "$bin" --lang en --help
expect "LANG=ru_RU.UTF-8 translates errors" 2 "$(printf 'gpuplan: \320\276\321\210\320\270\320\261\320\272\320\260')" err \
    env LANG=ru_RU.UTF-8 "$bin" no-such-command
expect "LC_MESSAGES=ru_RU.UTF-8 translates" 0 "$cyrillic" out env LC_MESSAGES=ru_RU.UTF-8 "$bin" --help
expect "--lang en overrides LANG=ru_RU.UTF-8" 2 "gpuplan: error: unknown command 'x'" err \
    env LANG=ru_RU.UTF-8 "$bin" --lang en x
expect "LANGUAGE alone (C locale) stays English" 0 "commands:" out env LANGUAGE=ru "$bin" --help
expect "--lang after the command is taken out" 0 "gpuplan 0.1" out "$bin" version --lang ru
expect "unknown --lang is a usage error" 2 "unknown language 'xx'" err "$bin" --lang xx --help
expect "--lang without a value is a usage error" 2 "'--lang' needs a value" err "$bin" --help --lang

# 4. numbers never follow the locale: the same bytes in every language
"$bin" estimate llama-3.1-8b --gpu h100-sxm --format json >"$tmp/en.json" 2>&1
env LANG=ru_RU.UTF-8 LC_ALL=ru_RU.UTF-8 "$bin" --lang ru estimate llama-3.1-8b --gpu h100-sxm \
    --format json >"$tmp/ru.json" 2>&1
if [ -s "$tmp/en.json" ] && cmp -s "$tmp/en.json" "$tmp/ru.json" && grep -q '[0-9]\.[0-9]' "$tmp/en.json"; then
    ok "estimate --format json is byte-identical under --lang ru and a ru locale"
else
    diff "$tmp/en.json" "$tmp/ru.json" | head
    bad "output changes with the locale"
fi

# 5. the sweep: library text (tables, verdicts, reasons, errors) is Russian under --lang ru
ru() { printf "$1"; } # octal escapes keep this file ASCII
expect "estimate --lang ru: Cyrillic table and verdict" 3 "$(ru '\320\262\320\265\321\200\320\264\320\270\320\272\321\202:')" out \
    "$bin" --lang ru estimate llama-3.1-8b --gpu h100-sxm # "вердикт:"
expect "estimate --lang ru: memory rows translated" 3 "$(ru '\320\263\321\200\320\260\320\264\320\270\320\265\320\275\321\202\321\213')" out \
    "$bin" --lang ru estimate llama-3.1-8b --gpu h100-sxm # "градиенты"
expect "tco --lang ru: Cyrillic headings" 0 "$(ru '\320\276\320\272\321\203\320\277\320\260\320\265\320\274\320\276\321\201\321\202\321\214')" out \
    "$bin" --lang ru tco --gpu h100-sxm:8 # "окупаемость"
expect "inspect --lang ru: Cyrillic headings" 0 "$(ru '\320\277\320\260\321\200\320\260\320\274\320\265\321\202\321\200\321\213')" out \
    "$bin" --lang ru inspect llama-3.1-8b # "параметры"
expect "unknown model: the library's error is Russian" 1 "$(ru '\320\275\320\265\320\270\320\267\320\262\320\265\321\201\321\202\320\275\320\260\321\217 \320\274\320\276\320\264\320\265\320\273\321\214 ')'no-such-model'" err \
    "$bin" --lang ru estimate no-such-model # "неизвестная модель 'no-such-model'"
expect "unknown model: its hint is Russian too" 1 "$(ru '\320\277\320\276\320\264\321\201\320\272\320\260\320\267\320\272\320\260:')" err \
    "$bin" --lang ru estimate no-such-model # "подсказка:"
expect "recommend --help --lang ru: job option help from the library" 0 "$(ru '\321\210\320\260\321\200\320\264\320\270\321\200\320\276\320\262\320\260\320\275\320\270\320\265')" out \
    "$bin" --lang ru recommend --help # "шардирование"
expect "without --lang the C locale stays English" 3 "verdict: DOES NOT FIT" out \
    env LC_ALL=C "$bin" estimate llama-3.1-8b --gpu h100-sxm

expect "serve stays English (HTTP answers, log, errors)" 2 "gpuplan: error: '--threads' is '0'" err \
    env LANG=ru_RU.UTF-8 "$bin" --lang ru serve --threads 0

# Machine-readable output never carries a translation: byte-identical JSON/CSV,
# reasons and errors included (the CLI switches messages off for them).
same_bytes() { # name command-args...
    name=$1
    shift
    "$bin" "$@" >"$tmp/en.out" 2>"$tmp/en.err"
    env LANG=ru_RU.UTF-8 "$bin" --lang ru "$@" >"$tmp/ru.out" 2>"$tmp/ru.err"
    if cmp -s "$tmp/en.out" "$tmp/ru.out" && cmp -s "$tmp/en.err" "$tmp/ru.err" &&
        ! grep -q "$(ru '[\320\321]')" "$tmp/ru.out" "$tmp/ru.err"; then
        ok "$name: byte-identical under --lang ru"
    else
        diff "$tmp/en.out" "$tmp/ru.out" | head -5
        diff "$tmp/en.err" "$tmp/ru.err" | head -5
        bad "$name: changes under --lang ru"
    fi
}
same_bytes "tco --format json" tco --gpu h100-sxm:8 --format json
same_bytes "inspect --format json" inspect llama-3.1-8b --format json
same_bytes "estimate infer --format json" estimate llama-3.1-70b --method infer --gpu h100-sxm --format json
same_bytes "recommend --format json (reasons, warnings)" recommend llama-3.1-8b --top 2 --format json
same_bytes "gpus --format csv" gpus --format csv
same_bytes "an error under --format json" estimate no-such-model --format json

# The extraction keywords reach every layer: a CLI format, a library error
# (gpuplan_error_set), a renderer line (GPUPLAN_TR), a table label
# (GPUPLAN_N_) and a planner reason (REASON).
for id in "unknown option '%s'" "unknown model '%s'" "  why: %s\\n" "activations" \
    "%u x %s: %.1f GiB per GPU of %.1f GiB usable (%.0f %% headroom)"; do
    if grep -qF -- "msgid \"$id\"" "$pot"; then
        ok "template holds msgid $(printf '%s' "$id" | tr -d '\\')"
    else
        bad "template lacks msgid $(printf '%s' "$id" | tr -d '\\'): a keyword or marker is missing"
    fi
done

# The C library's own messages (dlerror, strerror) in a Russian run are
# UTF-8 Cyrillic, or English where libc-l10n is not installed, never the
# ASCII transliteration gettext makes under LC_CTYPE=C ("nevozmozhno
# otkry`t`"). The missing NVML library makes dlerror speak.
out=$(GPUPLAN_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1 "$GPUPLAN" detect --lang ru 2>&1)
if printf '%s' "$out" | grep -qE '[a-z]`|nevozmozhno|Net takogo'; then
    bad "detect --lang ru prints a transliterated C library message: $out"
elif printf '%s' "$out" | grep -q '?'; then
    bad "detect --lang ru prints '?' for characters of a C library message: $out"
else
    ok "detect --lang ru: the C library's message is not transliterated"
fi

# User text names what a claim says, never the seed article's internal ids
# ("S14: a single GPU also does it"): no msgid of the template carries one.
ids=$(grep -E '^(msgid|")' po/gpuplan.pot | grep -nE '(^|[^A-Za-z0-9_])S[0-9]{1,2}([^0-9]|$)' | head -n 5)
if [ -n "$ids" ]; then
    bad "user text carries seed claim ids: $ids"
else
    ok "no seed claim ids (S1..S16) in user text"
fi

# Every source file that writes a translatable message is scanned by xgettext.
unlisted=""
for f in $(grep -rlE 'GPUPLAN_TR|GPUPLAN_N_|gpuplan_error_set|gpuplan_error_hint|cli_usage_error|REASON\(|WARNING\(|NOTE\(' src --include='*.c'); do
    grep -qxF "$f" po/POTFILES || unlisted="$unlisted $f"
done
if [ -n "$unlisted" ]; then
    bad "files with messages missing from po/POTFILES:$unlisted"
else
    ok "po/POTFILES lists every source file with messages"
fi

finish
