#!/bin/sh
# pdf.sh - cli_html_to_pdf (src/cli/pdf.c) with the real headless Chromium:
# the sample proposal (tests/golden/svg/doc-sample.html, test_doc's golden)
# printed through `$BUILD/tests/test_pdf --convert`, which calls the CLI's
# function as a command will. Checks: a PDF of several pages, in reasonable
# time, no temporary directory left in TMPDIR; GPUPLAN_CHROMIUM naming no
# program fails with the install hint and writes nothing. The stand-in
# Chromiums of tests/unit/test_pdf.c cover the other failures.
# Skipped, with a note, when Chromium is not installed (Debian: apt-get
# install chromium, or scripts/deps.sh browser). Ends with "N passed, N failed".
. "$(dirname "$0")/../lib/suite.sh"

driver=$BUILD/tests/test_pdf
[ -x "$driver" ] || abort "no $driver; run make BUILD=$BUILD $driver first"
doc=tests/golden/svg/doc-sample.html
[ -f "$doc" ] || abort "no $doc (GOLDEN_UPDATE=1 $BUILD/tests/test_doc writes it)"

# The program cli_html_to_pdf finds: GPUPLAN_CHROMIUM, chromium in PATH, /usr/bin/chromium.
chromium=${GPUPLAN_CHROMIUM:-$(command -v chromium 2>/dev/null || true)}
[ -n "$chromium" ] || chromium=/usr/bin/chromium
[ -x "$chromium" ] || skip "pdf: skipped: no headless Chromium ($chromium); to install, as root: apt-get install -y chromium (or scripts/deps.sh browser)"

mkdir "$tmp/t"
start=$(date +%s)
if TMPDIR=$tmp/t "$driver" --convert "$doc" "$tmp/doc.pdf" >"$tmp/out" 2>"$tmp/err"; then
    ok "pdf: the sample proposal printed"
else
    bad "pdf: the sample proposal printed: $(cat "$tmp/err")"
fi
took=$(($(date +%s) - start))
if [ "$(head -c 5 "$tmp/doc.pdf" 2>/dev/null)" = "%PDF-" ]; then
    ok "pdf: the output is a PDF"
else
    bad "pdf: the output is a PDF"
fi
pages=$(grep -ao '/Type */Page\($\|[^s]\)' "$tmp/doc.pdf" 2>/dev/null | wc -l)
# Page one (summary and bill of materials), the plans, the charts (and what follows).
if [ "$pages" -ge 3 ]; then ok "pdf: $pages pages"; else bad "pdf: $pages pages, want >= 3"; fi
if [ "$took" -le 60 ]; then ok "pdf: printed in $took s"; else bad "pdf: took $took s"; fi
if [ -z "$(ls -A "$tmp/t")" ]; then
    ok "pdf: no temporary files left"
else
    bad "pdf: left in TMPDIR: $(ls -A "$tmp/t")"
fi

# No Chromium: the error names the fix, and no output appears.
if GPUPLAN_CHROMIUM=$tmp/no-such-chromium TMPDIR=$tmp/t "$driver" --convert "$doc" "$tmp/none.pdf" \
    >"$tmp/out" 2>"$tmp/err"; then
    bad "pdf: a missing Chromium is an error"
elif grep -q "apt-get install chromium" "$tmp/err" && [ ! -e "$tmp/none.pdf" ]; then
    ok "pdf: a missing Chromium is an error with the install hint"
else
    bad "pdf: a missing Chromium's error: $(cat "$tmp/err")"
fi
finish
