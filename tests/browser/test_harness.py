"""test_harness.py - one smoke test of each function of tests/browser/harness.py,
on the main page (data/index.html as `gpuplan serve` serves it): the server
starts and stops, pages open at 1280 and 390 px, screenshots of both, overflow
measured (and seen when made), page text in both languages, console errors
collected, requests and responses logged, fetch() routed, a page overridden,
and the page printed to PDF.

Usage: BUILD=build /usr/bin/python3 tests/browser/test_harness.py
(run by tests/suites/browser.sh). Ends with "N passed, N failed".
"""

import os
import struct
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Browser, Missing, PageOverride, Results, Server, http  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BUILD = os.environ.get("BUILD", "build")
GPUPLAN = os.path.join(ROOT, BUILD, "gpuplan")
OUT = os.path.join(ROOT, BUILD, "browser")

CATALOG_SHOWN = "return document.querySelectorAll('#model option').length > 0;"


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    if head[:8] != b"\x89PNG\r\n\x1a\n":
        return None
    return struct.unpack(">II", head[16:24])


def main(res):
    with Server(GPUPLAN) as srv, Browser(OUT) as br:
        status, _, _, models = http("GET", srv.url("/v1/models"))
        res.eq("server: GET /v1/models", status, 200)

        # Wide: 1280 px.
        br.mark()
        wide = br.open(srv.url("/?lang=en"), width=1280)
        wide.wait(CATALOG_SHOWN, what="the catalog")
        res.eq("open 1280: viewport width", wide.js("return window.innerWidth;"), 1280)
        docs = [r for r in br.responses() if r["type"] == "Document" and r["url"].startswith(srv.base)]
        res.true("responses: the page's own answer is logged",
                 len(docs) == 1 and docs[0]["status"] == 200 and
                 "default-src 'none'" in docs[0]["headers"].get("content-security-policy", ""),
                 f"documents {docs}")
        gets = [r["url"] for r in br.requests() if r["method"] == "GET" and r["url"].startswith(srv.base)]
        res.true("requests: the page's catalog fetches are logged",
                 srv.url("/v1/models") in gets and srv.url("/v1/gpus") in gets, f"requests {gets}")
        path = wide.screenshot("main-1280")
        size = png_size(path)
        res.true("screenshot 1280: a PNG the page's width, taller than the viewport",
                 size is not None and size[0] == 1280 and size[1] > 900, f"{path}: {size}")
        res.eq("overflow 1280: the page is not wider than the window", wide.overflow(":root")["overflows"], False)

        # Text: both languages.
        i18n = wide.js("return window.gpuplan.I18N;")
        text = wide.page_text()
        res.true("page text in English", i18n["en"]["method"] in text and i18n["ru"]["method"] not in text,
                 f"no '{i18n['en']['method']}' in the page text")
        wide.goto(srv.url("/?lang=ru"))
        wide.wait(CATALOG_SHOWN, what="the catalog")
        text = wide.page_text()
        res.true("page text in Russian", i18n["ru"]["method"] in text and i18n["en"]["method"] not in text,
                 f"no '{i18n['ru']['method']}' in the page text")

        # Narrow: 390 px.
        narrow = br.open(srv.url("/?lang=en"), width=390, height=844)
        narrow.wait(CATALOG_SHOWN, what="the catalog")
        res.eq("open 390: viewport width", narrow.js("return window.innerWidth;"), 390)
        path = narrow.screenshot("main-390")
        size = png_size(path)
        res.true("screenshot 390: a PNG the page's width", size is not None and size[0] == 390, f"{path}: {size}")
        m = narrow.overflow(":root")
        res.true("overflow 390: the page fits the phone", not m["overflows"], f"{m}")
        narrow.js("const d = document.createElement('div'); d.id = 'harness-wide';"
                  "d.style.cssText = 'width: 200px; overflow: auto';"
                  "d.innerHTML = '<div style=\"width: 600px\">x</div>';"
                  "document.body.appendChild(d);")
        m = narrow.overflow("#harness-wide")
        res.true("overflow: a 600 px child in a 200 px box is seen",
                 m["overflows"] and m["scrollWidth"] == 600 and m["clientWidth"] == 200, f"{m}")

        # Console errors: none from the page; one made here is seen, in either tab.
        res.eq("console errors: none on load", br.console_errors(), [])
        narrow.js("console.error('harness-probe');")
        wide.js("setTimeout(function () { undefinedFunction(); }, 0);")
        wide.wait("return true;")
        errs = br.console_errors()
        res.true("console errors: console.error and an uncaught exception are collected",
                 any("harness-probe" in e for e in errs) and any("undefinedFunction" in e for e in errs),
                 f"errors {errs}")

        # route(): the page's fetch() answered with given JSON, then the server again.
        narrow.route("/v1/models", {"models": [{"id": "routed"}]})
        got = narrow.js("return fetch('/v1/models?x=1').then(r => r.json());")
        res.eq("route: fetch answered in the page", got, {"models": [{"id": "routed"}]})
        narrow.unroute("/v1/models")
        got = narrow.js("return fetch('/v1/models').then(r => r.json());")
        res.eq("unroute: fetch reaches the server", len(got["models"]), len(models["models"]))

        # PDF of the main page.
        narrow.goto(srv.url("/?lang=en"))
        narrow.wait(CATALOG_SHOWN, what="the catalog")
        pdf = narrow.pdf(save="main.pdf")
        res.true("pdf: Page.printToPDF gives a PDF", pdf.startswith(b"%PDF") and len(pdf) > 1000,
                 f"{len(pdf)} bytes starting {pdf[:8]!r}")
        narrow.close()

        # PageOverride: another page at / in front of the same server.
        with tempfile.NamedTemporaryFile("w", suffix=".html", delete=False) as f:
            f.write("<!doctype html><title>o</title><p>override page</p>")
        front = PageOverride(srv.base, "/", f.name, {"Content-Type": "text/html; charset=utf-8"})
        try:
            wide.goto(front.url("/?lang=en"))
            res.eq("page override: the file is served", wide.page_text().strip(), "override page")
            got = wide.js("return fetch('/v1/models').then(r => r.json());")
            res.eq("page override: the API passes through", len(got["models"]), len(models["models"]))
        finally:
            front.stop()
            os.unlink(f.name)
    res.true("server: stopped", srv.proc.poll() is not None, "still running")


if __name__ == "__main__":
    r = Results()
    if not os.access(GPUPLAN, os.X_OK):
        r.fail("binary", f"no {GPUPLAN}; run make BUILD={BUILD} first")
    else:
        try:
            main(r)
        except Missing as e:
            print(f"note: browser: skipped: missing {e}")
        except Exception:  # noqa: BLE001
            import traceback
            r.fail("harness smoke test", traceback.format_exc().rstrip())
    sys.exit(r.finish("harness smoke test"))
