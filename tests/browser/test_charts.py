"""test_charts.py - the charts and the proposal document (src/lib/render/svg*.c,
doc.c) in a real browser: Debian's headless chromium through the harness.

Opens, as file:// pages, the sample documents test_doc writes as its goldens
(tests/golden/svg/doc-sample.html and doc-sample-ru.html: every chart, the
bill of materials, a nine-column table, code blocks) and every standalone
chart (tests/golden/svg/*.svg), and checks what the C tests can only estimate:

  - at 1280, 768, 641 and 390 px nothing is wider than the window (the main
    table fits: a table at a desktop width, cards on a phone);
  - no two text labels of a chart overlap and none leaves its chart, by the
    browser's own boxes (getBoundingClientRect of every SVG <text>), in both
    languages and at every width;
  - every chart names itself to a screen reader (role img, a <title> its
    aria-labelledby points at), and each standalone .svg is well-formed XML;
  - printed (print media at A4 and Letter), the bill of materials ends on
    page one, the closed launch configuration is shown, and chromium's PDF
    of the page is a PDF with more than one page;
  - no console error and no Content-Security-Policy violation (the page
    loads nothing).

Screenshots and PDFs: $BUILD/browser/charts-*.png, doc-sample-*.pdf.
Usage: BUILD=build /usr/bin/python3 tests/browser/test_charts.py (run by
tests/suites/browser.sh). Ends with "N passed, N failed".
"""

import glob
import os
import re
import sys
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Browser, Missing, Results  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BUILD = os.environ.get("BUILD", "build")
OUT = os.path.join(ROOT, BUILD, "browser")
GOLDEN = os.path.join(ROOT, "tests", "golden", "svg")
DOCS = {"en": os.path.join(GOLDEN, "doc-sample.html"), "ru": os.path.join(GOLDEN, "doc-sample-ru.html")}
WIDTHS = (1280, 768, 641, 390)
MM_PX = 96 / 25.4
# Page boxes less the document's @page margins (14 mm top and bottom, 12 mm sides).
PAPERS = {"a4": (210, 297), "letter": (215.9, 279.4)}

res = Results()

# Every <text> of every chart: its box, its chart's box, its text.
TEXT_BOXES = """
return Array.from(document.querySelectorAll('svg.gpuplan-chart')).map((svg, i) => {
  const s = svg.getBoundingClientRect();
  return {chart: svg.id || svg.getAttribute('data-chart') + '#' + i,
          box: [s.left, s.top, s.right, s.bottom],
          texts: Array.from(svg.querySelectorAll('text')).map(t => {
            const r = t.getBoundingClientRect();
            return {text: t.textContent, box: [r.left, r.top, r.right, r.bottom]};
          })};
});
"""

NAMES = """
return Array.from(document.querySelectorAll('svg.gpuplan-chart')).map(svg => {
  const ids = (svg.getAttribute('aria-labelledby') || '').split(/\\s+/).filter(Boolean);
  const named = ids.length > 0 && ids.every(id => document.getElementById(id));
  const title = svg.querySelector(':scope > title');
  return {chart: svg.id, role: svg.getAttribute('role'),
          named: named || !!svg.getAttribute('aria-label'),
          title: title ? title.textContent : ''};
});
"""


def overlaps(a, b, tol=0.5):
    return a[0] < b[2] - tol and b[0] < a[2] - tol and a[1] < b[3] - tol and b[1] < a[3] - tol


def label_faults(charts):
    """(number of labels, what is wrong): labels that overlap or leave their chart."""
    bad = []
    n_texts = 0
    for c in charts:
        texts = [t for t in c["texts"] if t["box"][2] > t["box"][0]]
        n_texts += len(texts)
        cb = c["box"]
        for t in texts:
            b = t["box"]
            if b[0] < cb[0] - 0.5 or b[2] > cb[2] + 0.5 or b[1] < cb[1] - 0.5 or b[3] > cb[3] + 0.5:
                bad.append(f"{c['chart']}: '{t['text']}' leaves the chart")
        for i in range(len(texts)):
            for j in range(i + 1, len(texts)):
                if overlaps(texts[i]["box"], texts[j]["box"]):
                    bad.append(f"{c['chart']}: '{texts[i]['text']}' overlaps '{texts[j]['text']}'")
    return n_texts, bad


def check_labels(name, charts):
    """No two labels of a chart overlap; every label inside its chart."""
    n_texts, bad = label_faults(charts)
    res.true(f"{name}: {n_texts} labels in {len(charts)} charts, none overlapping or outside",
             n_texts > 0 and not bad, "; ".join(bad[:8]) or "no labels found")


def load(page, url, width, height):
    """One tab for every page: closing a session's last tab would end it."""
    page.set_viewport(width, height)
    page.goto(url)
    page.wait("return document.readyState === 'complete';")


def t_document(page, lang):
    url = "file://" + DOCS[lang]
    for width in WIDTHS:
        load(page, url, width, 900)
        name = f"{lang} {width}px"
        res.eq(f"{name}: the page is not wider than the window", page.overflow(":root")["overflows"], False)
        right = page.js("return Math.max(...Array.from(document.querySelectorAll("
                        "'table, svg, pre, dl')).map(e => e.getBoundingClientRect().right));")
        res.true(f"{name}: tables, charts and code end inside the window",
                 right <= width + 0.5, f"rightmost edge at {right:.1f} px")
        cards = page.js("const r = document.querySelector('#plans-table tbody tr');"
                        "return getComputedStyle(r).display;")
        res.eq(f"{name}: the plans table is {'cards' if width <= 640 else 'a table'}",
               cards, "block" if width <= 640 else "table-row")
        check_labels(name, page.js(TEXT_BOXES))
        if width in (1280, 390):
            page.screenshot(f"charts-{lang}-{width}")
        if width == 1280:
            names = page.js(NAMES)
            res.true(f"{lang}: every chart is an image with a name and a title",
                     len(names) == 5 and all(n["role"] == "img" and n["named"] and n["title"]
                                             for n in names), str(names))
            res.eq(f"{lang}: html lang", page.js("return document.documentElement.lang;"), lang)
            t_print(page, lang)


def t_print(page, lang):
    """Print media at each paper's content width: the BOM ends on page one, code shown; PDFs."""
    for paper, (w_mm, h_mm) in PAPERS.items():
        content_w = round((w_mm - 24) * MM_PX)
        content_h = (h_mm - 28) * MM_PX
        page.set_viewport(content_w, 900)
        page.driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "print"})
        bom_bottom = page.js("const b = document.querySelector('#bom').getBoundingClientRect();"
                             "return b.bottom + window.scrollY;")
        res.true(f"{lang} print {paper}: the bill of materials ends on page one",
                 bom_bottom <= content_h, f"it ends {bom_bottom:.0f} px down; a page holds {content_h:.0f}")
        shown = page.js("const p = document.querySelector('details.gp-code:not([open]) pre');"
                        "return !!p && p.getClientRects().length > 0 && p.offsetHeight > 0;")
        res.true(f"{lang} print {paper}: the closed launch configuration is printed", shown,
                 "its <pre> has no box in print media")
        over = page.js("return document.documentElement.scrollWidth > document.documentElement.clientWidth;")
        res.eq(f"{lang} print {paper}: nothing wider than the paper", over, False)
        page.driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": ""})
        inch = 25.4
        pdf = page.pdf(save=f"doc-sample-{lang}-{paper}.pdf", paperWidth=w_mm / inch,
                       paperHeight=h_mm / inch, preferCSSPageSize=False)
        pages = len(re.findall(rb"/Type\s*/Page[^s]", pdf))
        res.true(f"{lang} print {paper}: a PDF of several pages", pdf.startswith(b"%PDF") and pages >= 3,
                 f"{len(pdf)} bytes, {pages} pages")
    page.set_viewport(1280, 900)


PROBE = ('<svg xmlns="http://www.w3.org/2000/svg" class="gpuplan-chart" width="200" height="60" '
         'viewBox="0 0 200 60" role="img" aria-label="probe"><title>probe</title>'
         '<text x="10" y="30">overlapping</text><text x="40" y="34">labels</text>'
         '<text x="190" y="50">outside</text></svg>\n')


def t_probe(page):
    """The check itself: a chart made with two overlapping labels and one outside is caught."""
    path = os.path.join(OUT, "overlap-probe.svg")
    with open(path, "w") as f:
        f.write(PROBE)
    load(page, "file://" + path, 400, 200)
    n, bad = label_faults(page.js(TEXT_BOXES))
    res.true("the overlap check sees overlapping labels and one outside its chart",
             n == 3 and any("overlaps" in b for b in bad) and any("leaves" in b for b in bad), str(bad))


def t_standalone(page):
    files = sorted(glob.glob(os.path.join(GOLDEN, "*.svg")))
    res.true("standalone charts: the goldens are there", len(files) >= 9, f"found {files}")
    for path in files:
        name = os.path.basename(path)
        try:
            root = ET.parse(path).getroot()
            ok = root.tag == "{http://www.w3.org/2000/svg}svg" and root.find(
                "{http://www.w3.org/2000/svg}title") is not None
            res.true(f"{name}: well-formed SVG with a title", ok, f"root {root.tag}")
        except ET.ParseError as e:
            res.fail(f"{name}: well-formed SVG with a title", str(e))
        for width in (700, 360):
            load(page, "file://" + path, width, 800)
            check_labels(f"{name} at {width}px", page.js(TEXT_BOXES))
            if width == 700:
                page.screenshot(f"charts-{name[:-4]}", full_page=False)


def main():
    with Browser(OUT) as br:
        page = br.open(width=1280, height=900)
        for lang in ("en", "ru"):
            res.step(f"document {lang}", t_document, page, lang)
        res.step("overlap probe", t_probe, page)
        res.step("standalone charts", t_standalone, page)
        res.eq("no console errors or CSP violations", br.console_errors(), [])


if __name__ == "__main__":
    missing = [p for p in DOCS.values() if not os.path.exists(p)]
    if missing:
        res.fail("samples", f"no {missing}; GOLDEN_UPDATE=1 {BUILD}/tests/test_doc writes them")
    else:
        try:
            main()
        except Missing as e:
            print(f"note: browser: skipped: missing {e}")
        except Exception:  # noqa: BLE001
            import traceback
            res.fail("browser test", traceback.format_exc().rstrip())
    print(f"screenshots in {OUT}")
    sys.exit(res.finish(what="charts browser test"))
