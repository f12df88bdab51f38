"""test_propose.py - the customer proposal (issue 18) in a real browser: Debian's
chromium, headless, through chromedriver and python3-selenium (harness.py).

Starts `$BUILD/gpuplan serve`, and checks:
  - a link with the form state (?model=...&method=...&where=on_prem&lang=ru)
    runs on load and reproduces the result of the same form filled by hand
    (the same POST /v1/recommend body, the same rows);
  - the recommendation table does not overflow its box at 1280 px and turns
    into cards at 390 px (no sideways scroll);
  - precision names are readable (no raw dtype names such as F8_E4M3), serving
    plans have a TP / PP / EP column, and a serving run draws the TPOT and TTFT
    curves of the recommended replica with the targets and the planned point;
  - buy-or-rent follows the plan picked with "Use" (its GPU count and
    platform, not the form's GPU in a full chassis);
  - the Proposal view shows the document of POST /v1/propose (the bill of
    materials in it), at 1280 and 390 px without sideways scroll;
  - a Russian page (its own text and the proposal) has no English words
    outside product names, units and code;
  - the proposal printed to PDF (chromium's print of the document, and
    `gpuplan propose --format pdf`) has the bill of materials on page one
    (pdftotext from poppler-utils, and the print layout's page break in the DOM).
Screenshots and PDFs: $BUILD/browser/proposal-*.png, page-*.png, proposal-*.pdf.

Usage: BUILD=build /usr/bin/python3 tests/browser/test_propose.py
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Browser, Missing, Results, Server, http  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BUILD = os.environ.get("BUILD", "build")
GPUPLAN = os.path.join(ROOT, BUILD, "gpuplan")
OUT = os.path.join(ROOT, BUILD, "browser")
A4_HEIGHT_MM = 297.0
PRINT_MARGIN_MM = 14.0  # doc.c: @page { margin: 14mm 12mm }
PX_PER_MM = 96.0 / 25.4  # CSS px

res = Results()

# Latin words a Russian document may hold: product and technique names, units,
# acronyms, file kinds. Anything else Latin is an English word left untranslated.
ALLOWED = set("""
GPU GPUs CPU NVMe USD GiB GB TB kW W MFU TP PP EP TTFT TPOT KV LoRA QLoRA NF4 DQ BF16 FP16 FP32 FP8
E4M3 E5M2 INT8 INT4 AWQ GPTQ DDP FSDP ZeRO HTML PDF Markdown CUDA PCIe Gen NVLink NVSwitch InfiniBand
RoCE Ethernet NDR HDR XDR GbE OSFP SXM SXM4 SXM5 OAM HBM HBM2e HBM3 HBM3e HBM3E GDDR6 GDDR7 ECC RDIMM
DDR5 vLLM vllm SGLang sglang DeepSpeed accelerate torchrun Slurm slurm axolotl torchtune TRL PUE TDP
gpuplan propose tco emit KIND docs md tokens json yaml sh all-reduce Pareto MiB KiB Gb Llama Meta
RAM TCO kWh HPU CC PEFT Accelerate bitsandbytes Transformers qlora lora PyTorch Hugging Face EPYC Xeon ROCm PyPI
compute selective full none deepspeed ddp zero3 fsdp
torch compile config eager backward Dropout
""".split())
# The lines above past "PyTorch": the planner's and the page's option values and code names, as
# the CLI prints them in every language (enum values are never translated, docs/i18n.md):
# --grad-ckpt selective, bottleneck compute, --sharding ddp, torch.compile, config.json,
# vLLM's eager mode, the optimizer step in backward(), LoRA dropout.
CODE_TOKEN = re.compile(r"^(x\d+|S\d+|gfx\d+[a-z]?)$")  # "8x8" layouts, seed ids (S14), gfx942

ENGLISH_WORD = re.compile(r"[A-Za-z][A-Za-z0-9'\-]*[A-Za-z0-9]|[A-Za-z]")


def english_words(text, allowed):
    """The Latin-letter words of TEXT that are not in ALLOWED (product names, units, code)."""
    bad = []
    # code: command-line options (--grad-ckpt full) and identifiers (FULL_SHARD, gradient_checkpointing)
    text = re.sub(r"--[a-z][a-z0-9-]*|\b\w+_\w+\b", " ", text)
    for w in ENGLISH_WORD.findall(text):
        parts = [p for p in re.split(r"[-']", w) if p]
        if w in allowed or CODE_TOKEN.match(w) or all(p in allowed or len(p) <= 1 for p in parts):
            continue
        bad.append(w)
    return sorted(set(bad))


def catalog_words(api_base):
    """Words of the catalog's product names (GPU, platform and model names, ids)."""
    words = set()
    for route, key in (("v1/gpus", "gpus"), ("v1/models", "models")):
        _, _, _, body = http("GET", api_base + route)
        for item in body[key]:
            # cloud providers are company names too (a rate's provider, e.g. RunPod)
            for rate in item.get("cloud_rates") or []:
                words.update(ENGLISH_WORD.findall(rate.get("provider", "")))
            for field in ("id", "name", "architecture", "memory", "hf_repo", "platforms"):
                v = item.get(field)
                for s in (v if isinstance(v, list) else [v]):
                    if isinstance(s, str):
                        words.update(ENGLISH_WORD.findall(s))
                        words.update(re.split(r"[\s,/()]+", s))
    return words


def wait_plans(page):
    page.wait("return document.querySelectorAll('#rec-table tbody tr[data-rank]').length > 0;",
              what="the plans table")
    page.wait("return !document.querySelector('#run').disabled;", what="the run to finish")


def plan_rows(page):
    return page.js("""
      return [...document.querySelectorAll('#rec-table tbody tr[data-rank]')].map((tr) =>
        [...tr.querySelectorAll('td[data-col]')].map((td) => td.textContent));""")


def last_recommend_body(page):
    return page.js("return window.gpuplan.last.recommendBody;")


def t_link(br, base):
    """The form filled by hand, then its URL opened afresh: the same request, the same rows."""
    page = br.open(base + "?lang=en", width=1280, height=900)
    page.wait("return document.querySelectorAll('#model option').length > 0;", what="the catalog")
    page.fill("#model-search", "llama-3.1-70b")
    page.select("#model", "llama-3.1-70b")
    page.select("#method", "qlora")
    page.select("#where", "on_prem")
    page.click("#run")
    wait_plans(page)
    body, rows = last_recommend_body(page), plan_rows(page)
    url = page.js("return location.href;")
    res.true("the URL carries the form", "model=llama-3.1-70b" in url and "method=qlora" in url and
             "where=on_prem" in url, url)
    page.close()
    again = br.open(url, width=1280, height=900)
    wait_plans(again)
    res.eq("a link runs on load with the same request", last_recommend_body(again), body)
    res.eq("a link shows the same plans", plan_rows(again), rows)
    again.close()
    return url


def t_table_1280(br, base, api_base):
    page = br.open(base + "?lang=en&model=llama-3.1-70b&method=qlora&where=on_prem", width=1280, height=900)
    wait_plans(page)
    m = page.overflow("#recommend-out .tablewrap")
    res.true("plans table fits at 1280 px", not m["overflows"],
             f"{m['scrollWidth']} px of table in {m['clientWidth']} px")
    m = page.overflow(":root")
    res.true("no sideways scroll at 1280 px", not m["overflows"], f"{m['scrollWidth']} in {m['clientWidth']}")
    text = page.page_text()
    res.true("readable precision (BF16 mixed)", "BF16 mixed" in text, "no 'BF16 mixed' in the page")
    res.true("no raw precision names", "bf16-mixed" not in page.text("#rec-table"), "raw 'bf16-mixed' shown")
    # details on demand: the hidden row opens
    page.click("#rec-table tbody tr[data-rank='1'] button.plan-more")
    res.true("details on demand", page.js(
        "return !document.querySelector('#rec-table tr.plan-details').hidden;"), "details row stays hidden")
    # the pictures of the plans are the library's SVG (POST /v1/propose, format json)
    page.wait("return !!document.querySelector('#lib-charts figure[data-chart=memory] svg');",
              what="the library's charts")
    body = page.js("const b = Object.assign({}, window.gpuplan.last.recommendBody); return b;")
    width = page.js("return window.gpuplan.last.charts && "
                    "document.querySelector('#lib-charts figure svg').getAttribute('width');")
    body.update(format="json", lang="en", chart_width=float(width))
    _, _, _, charts = http("POST", api_base + "v1/propose", body)
    res.eq("the page's pictures are the library's SVG", page.js("return window.gpuplan.last.charts;"), charts)
    shown = page.js("return [...document.querySelectorAll('#lib-charts figure')].map((f) => f.dataset.chart);")
    res.eq("memory and buy-or-rent pictures shown", shown,
           [k for k in ("memory", "time_cost", "buy_rent") if charts["charts"][k]])
    m = page.overflow("#lib-charts")
    res.true("the pictures fit at 1280 px", not m["overflows"], f"{m['scrollWidth']} in {m['clientWidth']}")
    page.screenshot("page-en-1280")
    # buy-or-rent follows the plan picked: the second GPU type of the list
    picked = page.js("""
      const rows = [...document.querySelectorAll('#rec-table tbody tr[data-rank]')];
      const recs = window.gpuplan.last.recommend.body.recommendations;
      const i = recs.findIndex((r) => r.gpu !== recs[0].gpu);
      return i < 0 ? null : i;""")
    if picked is None:
        res.skip("buy-or-rent follows the plan", "one GPU type in the list")
    else:
        plan = page.js(f"return window.gpuplan.last.recommend.body.recommendations[{picked}];")
        br.mark()
        page.click(f"#rec-table tbody tr[data-rank='{picked + 1}'] button.use-plan")
        req = br.wait_request(lambda r: r["url"].endswith("/v1/tco") and r["type"] == "Fetch")
        tco_body = json.loads(req["post"])
        want_n = plan["gpus_per_node"] * plan["nodes"]
        res.eq("buy-or-rent priced for the picked plan's GPUs",
               tco_body.get("gpu"), f"{plan['gpu']}:{want_n}")
        res.eq("buy-or-rent in the picked plan's platform", tco_body.get("platform"), plan["server"]["platform"])
        page.wait("return !!document.querySelector('#tco-plan');", what="the picked plan line")
        _, _, _, tco = http("POST", api_base + "v1/tco", tco_body)
        shown = page.text("#tco-capex")
        res.true("buy-or-rent shows the API's capex for that plan",
                 f"{tco['capex_usd']:,.0f}" in shown.replace("$", ""), f"{shown} vs {tco['capex_usd']}")
    page.close()


def t_serving(br, base):
    page = br.open(base + "?lang=en&model=qwen2.5-7b&method=infer&concurrency=32", width=1280, height=900)
    wait_plans(page)
    heads = page.js("return [...document.querySelectorAll('#rec-table thead th')].map((t) => t.textContent);")
    res.true("serving table has TP / PP / EP", "TP / PP / EP" in heads, str(heads))
    text = page.text("#recommend-out")
    res.true("no raw dtype names (F8_E4M3)", not re.search(r"\bF8_E\dM\d\b|\bF16\b|\bF32\b", text),
             "a raw dtype name is shown")
    m = page.overflow("#recommend-out .tablewrap")
    res.true("serving table fits at 1280 px", not m["overflows"], f"{m['scrollWidth']} in {m['clientWidth']}")
    page.close()
    # the latency-throughput curves of the recommended replica, with the targets drawn in
    page = br.open(base + "?lang=en&model=qwen2.5-7b&method=infer&concurrency=32&ttft_ms=1000&tpot_ms=50",
                   width=1280, height=900)
    wait_plans(page)
    page.wait("return !!document.querySelector('#lib-charts figure[data-chart=ttft] svg');",
              what="the serving curves")
    shown = page.js("return [...document.querySelectorAll('#lib-charts figure')].map((f) => f.dataset.chart);")
    res.true("TPOT and TTFT curves shown", "tpot" in shown and "ttft" in shown, str(shown))
    tpot = page.text("#lib-charts figure[data-chart=tpot]")
    ttft = page.text("#lib-charts figure[data-chart=ttft]")
    res.true("TPOT target drawn", "TPOT target 50 ms" in tpot, tpot[:200])
    res.true("TTFT target drawn", "TTFT target 1 s" in ttft, ttft[:200])
    res.true("the planned operating point marked", "(planned)" in tpot, tpot[:200])
    m = page.overflow("#lib-charts")
    res.true("the serving pictures fit at 1280 px", not m["overflows"], f"{m['scrollWidth']} in {m['clientWidth']}")
    page.js("document.querySelector('#lib-charts figure[data-chart=tpot]').scrollIntoView();")
    page.screenshot("page-serving-en-1280")
    page.close()


def shadow_text(page):
    return page.js("const h = document.querySelector('#proposal-doc'); "
                   "return h && h.shadowRoot ? h.shadowRoot.textContent : '';")


def russian_text_outside_code(page):
    """The proposal's text in the page without code, the catalog's quoted citations and the
    service's English notes; and the page's own visible text."""
    doc = page.js("""
      const root = document.querySelector('#proposal-doc').shadowRoot;
      const box = document.createElement('div');
      box.append(...[...root.childNodes].map((n) => n.cloneNode(true)));
      box.querySelectorAll('style, pre, code, details.gp-code').forEach((n) => n.remove());
      // the Source column of the sources table: catalog citations quoted as published
      box.querySelectorAll('#sources td:nth-child(3)').forEach((n) => n.remove());
      const words = [];
      const walk = document.createTreeWalker(box, NodeFilter.SHOW_TEXT);
      while (walk.nextNode()) words.push(walk.currentNode.nodeValue);
      return words.join(' ');""")
    # The page's own words: every label, heading, button and legend of its dictionary, the
    # plans table (headers and cells) and the buy-or-rent card. The estimate's suggestions and
    # the planner's reasons, warnings and notes are the service's JSON text, English by design.
    own = page.js("""
      const parts = [...document.querySelectorAll('[data-i18n]')].map((n) => n.textContent);
      document.querySelectorAll('#rec-table th, #rec-table tr[data-rank] td, #tco-out th, #tco-out p')
        .forEach((n) => parts.push(n.textContent));
      return parts.join(' ');""")
    return doc, own


def t_proposal(br, base, api_base, allowed):
    url = base + "?lang=ru&model=llama-3.1-70b&method=qlora&where=on_prem"
    for width in (1280, 390):
        page = br.open(url, width=width, height=900)
        wait_plans(page)
        page.click("#proposal-btn")
        page.wait("const h = document.querySelector('#proposal-doc');"
                  "return !!(h && h.shadowRoot && h.shadowRoot.querySelector('#bom'));", what="the proposal")
        text = shadow_text(page)
        res.true(f"proposal at {width} px: the bill of materials", "Спецификация" in text and "Итого" in text,
                 text[:200])
        m = page.overflow(":root")
        res.true(f"proposal at {width} px: no sideways scroll", not m["overflows"],
                 f"{m['scrollWidth']} in {m['clientWidth']}")
        if width == 390:
            m = page.overflow("#recommend-out .tablewrap")
            res.true("plans table at 390 px: cards, no sideways scroll", not m["overflows"],
                     f"{m['scrollWidth']} in {m['clientWidth']}")
        doc, own = russian_text_outside_code(page)
        res.eq(f"Russian proposal at {width} px: no English words outside names, units, code",
               english_words(doc, allowed), [])
        res.eq(f"Russian page at {width} px: no English words outside names, units, code",
               english_words(own, allowed), [])
        res.true("download links", page.js("return !document.querySelector('#proposal-html').hidden;"),
                 "no HTML download link")
        page.js("document.querySelector('#proposal-card').scrollIntoView();")
        page.screenshot(f"proposal-ru-{width}", full_page=False)
        page.screenshot(f"page-ru-{width}", full_page=True)
        page.close()
    # the same document over HTTP equals what the page shows
    status, _, html, _ = http("POST", api_base + "v1/propose",
                              {"model": "llama-3.1-70b", "method": "qlora", "on_prem": True, "lang": "ru"})
    res.eq("POST /v1/propose", status, 200)
    return html


def pdf_page_one(path):
    if not shutil.which("pdftotext"):
        return None
    return subprocess.run(["pdftotext", "-l", "1", "-layout", path, "-"], capture_output=True, text=True,
                          check=True).stdout


def t_print(br, html):
    """The proposal printed: the bill of materials (and its total) on page one."""
    path = os.path.join(OUT, "proposal-ru.html")
    with open(path, "w", encoding="utf-8") as f:
        f.write(html)
    page = br.open("file://" + path, width=1280, height=900)
    page.wait("return !!document.querySelector('#bom');", what="the document")
    # the print layout: the bill of materials ends above the first page's bottom (A4 at 96 px/in)
    page.driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "print"})
    bottom = page.js("return document.querySelector('#bom').getBoundingClientRect().bottom + scrollY;")
    room_px = (A4_HEIGHT_MM - 2 * PRINT_MARGIN_MM) * PX_PER_MM
    res.true("print layout: the bill of materials ends on page one", bottom <= room_px,
             f"ends at {bottom:.0f} px, page one holds {room_px:.0f} px")
    page.driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": ""})
    for paper, w_in, h_in in (("a4", 8.27, 11.69), ("letter", 8.5, 11.0)):
        name = f"proposal-ru-{paper}.pdf"
        data = page.pdf(save=name, paperWidth=w_in, paperHeight=h_in, preferCSSPageSize=True)
        res.true(f"{paper}: a PDF", data.startswith(b"%PDF-"), data[:8])
        one = pdf_page_one(os.path.join(OUT, name))
        if one is None:
            res.skip(f"{paper}: page one text", "no pdftotext (poppler-utils; scripts/deps.sh browser)")
            continue
        res.true(f"{paper}: page one has the bill of materials",
                 "Спецификация" in one and "Итого" in one and "Платформа" in one, one[:400])
    page.close()
    # the CLI's PDF of the same job (the acceptance command of issue 18)
    cli_pdf = os.path.join(OUT, "proposal-cli-ru.pdf")
    proc = subprocess.run([GPUPLAN, "propose", "llama-3.1-70b", "--method", "qlora", "--on-prem", "--lang", "ru",
                           "--format", "pdf", "-o", cli_pdf], capture_output=True, text=True)
    res.eq("gpuplan propose --format pdf: exit 0", (proc.returncode, proc.stderr), (0, ""))
    one = pdf_page_one(cli_pdf) if proc.returncode == 0 else None
    if one is None:
        res.skip("CLI PDF page one", "no PDF or no pdftotext")
    else:
        md = subprocess.run([GPUPLAN, "propose", "llama-3.1-70b", "--method", "qlora", "--on-prem",
                             "--format", "md"], capture_output=True, text=True, check=True).stdout
        total = re.search(r"^\| \*\*Total\*\* \|.*\*\*\\(\$[\d,]+)\*\* \|$", md, re.M)
        res.true("CLI PDF: page one has the bill of materials and its total",
                 total is not None and "Спецификация" in one and
                 re.search(r"Итого\s+" + re.escape(total.group(1)), one), one[:400])
        with open(os.path.join(OUT, "proposal-cli-ru-page1.txt"), "w", encoding="utf-8") as f:
            f.write(one)


def main():
    with Server(GPUPLAN) as srv, Browser(OUT) as br:
        base = api_base = srv.base
        home = br.open(base + "?lang=en", width=1280, height=900)  # kept open: the last tab ends the session
        allowed = ALLOWED | catalog_words(api_base)
        # the platforms' names and CPUs (AMD EPYC, Ryzen Threadripper) are product names
        plats = json.loads(subprocess.run([GPUPLAN, "platforms", "--format", "json"], capture_output=True,
                                          text=True, check=True).stdout)
        for pl in plats["platforms"]:
            allowed.update(ENGLISH_WORD.findall(pl.get("name", "") + " " + pl.get("cpu", "")))
        # platform names are product names too
        _, _, _, rec = http("POST", api_base + "v1/recommend",
                            {"model": "llama-3.1-70b", "method": "qlora", "on_prem": True, "top": 16})
        for r in rec["recommendations"]:
            allowed.update(ENGLISH_WORD.findall(r["server"]["platform_name"]))
            allowed.update(ENGLISH_WORD.findall(r["server"]["interconnect"].split(",")[0]))
        for r in rec["recommendations"]:
            allowed.update(ENGLISH_WORD.findall(r["gpu"]))
        res.step("link reproduces", t_link, br, base)
        res.step("table at 1280 px", t_table_1280, br, base, api_base)
        res.step("serving table", t_serving, br, base)
        got = {}
        res.step("proposal view", lambda: got.update(html=t_proposal(br, base, api_base, allowed)))
        if got.get("html"):
            res.step("print", t_print, br, got["html"])
        res.eq("no script errors or CSP violations", br.console_errors(), [])
        del home  # the browser closes with its session


if __name__ == "__main__":
    if not os.access(GPUPLAN, os.X_OK):
        res.fail("binary", f"no {GPUPLAN}; run make BUILD={BUILD} first")
    else:
        try:
            main()
        except Missing as e:
            print(f"note: browser: skipped: missing {e}")
        except Exception:  # noqa: BLE001
            import traceback
            res.fail("browser test", traceback.format_exc().rstrip())
    print(f"screenshots in {OUT}")
    sys.exit(res.finish())
