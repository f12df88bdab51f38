"""test_page.py - the page served by `gpuplan serve` (data/index.html) in a real
browser: Debian's chromium, headless, driven through chromedriver by Debian's
python3-selenium (tests/browser/harness.py).

Starts `$BUILD/gpuplan serve --listen 127.0.0.1:0` (a free port), loads GET /,
fills the form as a user would, and checks that every number the page shows
equals the API's answer to the same request (the request the page sent, read
from chromium's network log and sent again from here, and compared with the
CLI's `--format json` output for the command line the page prints). Also:
error display, suggestions that apply themselves, a pasted config.json, both
languages, labels, keyboard use, text contrast, a 360 px wide phone layout and
no console errors. Screenshots go to $BUILD/browser/*.png.

Endpoints that are not built yet (501) must show their error in their own
section; their charts are then checked with the CLI's output (tco) or a sample
shaped like the documented schema (recommend), answered in the page in place
of the server (Page.route).

Usage: BUILD=build /usr/bin/python3 tests/browser/test_page.py
(run by tests/suites/browser.sh). GPUPLAN_TEST_PAGE=FILE serves FILE instead
of the embedded page (to try an edit without rebuilding, or to check that a
broken page fails the test). Prints "ok"/"FAIL"/"skip" lines and a final
"N passed, N failed"; exit 1 on a failure.
"""

import json
import os
import re
import subprocess
import sys
from decimal import ROUND_HALF_UP, Decimal

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Browser, Missing, PageOverride, Results, Server, http  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BUILD = os.environ.get("BUILD", "build")
GPUPLAN = os.path.join(ROOT, BUILD, "gpuplan")
OUT = os.path.join(ROOT, BUILD, "browser")
FIXTURES = os.path.join(ROOT, "tests", "fixtures")
SAMPLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "recommend-sample.json")
BYTES_PER_GIB = 2 ** 30
TEST_PAGE_CSP = ("default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; "
                 "connect-src 'self'")

res = Results()


# ---- numbers as the page prints them ------------------------------------------

def to_fixed(x, d):
    """JavaScript's x.toFixed(d): the exact binary value, halves away from zero."""
    q = Decimal(x).quantize(Decimal(1).scaleb(-d), rounding=ROUND_HALF_UP)
    return f"{q:.{d}f}"


def gib(nbytes):
    return to_fixed(nbytes / BYTES_PER_GIB, 2)


def num(x, d):
    """x.toLocaleString('en-US', {minimum,maximumFractionDigits: d}): ICU rounds
    the shortest decimal form of x, halves away from zero, and groups by 3."""
    if x is None:
        return "—"
    q = Decimal(repr(float(x))).quantize(Decimal(1).scaleb(-d), rounding=ROUND_HALF_UP)
    return f"{q:,.{d}f}"


def money(x):
    return "—" if x is None else num(x, 2 if abs(x) < 1000 else 0)


def js_string(v):
    """String(v) in JavaScript, for the values a request body holds."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


PRECISION_WORDS = {"bf16-mixed": "BF16 mixed", "fp16-mixed": "FP16 mixed", "fp8-mixed": "FP8 mixed",
                   "amp-bf16": "BF16 autocast", "bf16": "BF16", "fp32": "FP32", "fp8": "FP8", "fp16": "FP16",
                   "auto": "as stored", "F8_E4M3": "FP8 E4M3", "fp8_e4m3": "FP8 E4M3", "F16": "FP16",
                   "BF16": "BF16", "F32": "FP32", "nf4": "NF4", "int8": "INT8", "int4": "INT4"}


def readable(v):
    """A precision or storage format as the page writes it (en): FP8 E4M3, never F8_E4M3."""
    if v in (None, ""):
        return "—"
    return PRECISION_WORDS.get(v, str(v).upper().replace("_", " "))


def plan_row(r):
    """A recommendation as the page's table shows it (en): the chosen columns, rounded."""
    layout = (f"{r['nodes']} × " if r["nodes"] > 1 else "") + f"{r['gpus_per_node']} × {r['gpu']}"
    sharding = r["sharding"] + (f" + {r['offload']}" if r.get("offload") not in (None, "none") else "")
    return [
        layout,
        ("NF4 + " if r["method"] == "qlora" else "") + readable(r["precision"]),
        sharding,
        gib(r["memory_per_gpu_bytes"]),
        num(r.get("tokens_per_s"), 0),
        num(r.get("time_hours"), 2),
        money(r.get("cost_usd")),
        num(r.get("capex_usd"), 0),
        num(r.get("own_usd_per_hour"), 2),
    ]


def shown_plan_rows(page):
    return page.js("""
      return [...document.querySelectorAll('#rec-table tbody tr[data-rank]')].map((tr) =>
        [...tr.querySelectorAll('td[data-col]')].filter((td) => td.dataset.col !== 'col_server')
          .map((td) => td.textContent));""")


# ---- the API and the CLI --------------------------------------------------------

def api_post(base, route, body):
    status, _, text, parsed = http("POST", base + route.lstrip("/"), body)
    return status, parsed, text


def run_cli(line):
    """Run a command line the page printed ("gpuplan estimate MODEL --k v ...") with
    the build's binary and --format json. Arguments carry no spaces."""
    args = line.split()
    if not args or args[0] != "gpuplan":
        raise ValueError(f"not a gpuplan command: {line}")
    out = subprocess.run([GPUPLAN, *args[1:], "--format", "json"], check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)


def body_to_args(body, positional=None):
    """Body {k: v} -> CLI arguments --k-with-dashes v (the documented one-to-one mapping)."""
    args = [body[positional]] if positional else []
    for k, v in body.items():
        if k == positional:
            continue
        args += [f"--{k.replace('_', '-')}", ("yes" if v else "no") if isinstance(v, bool) else js_string(v)]
    return args


# ---- page helpers ---------------------------------------------------------------

def wait_catalog(page):
    page.wait("return document.querySelectorAll('#model option').length > 0;", what="the catalog")


def submit_and_capture(page, trigger):
    """Run TRIGGER (which submits the form); return the body of the POST
    /v1/estimate it sent, once the form is ready again (the answer shown)."""
    br = page.browser
    br.mark()
    trigger()
    req = br.wait_request(lambda r: r["method"] == "POST" and r["url"].endswith("/v1/estimate"))
    page.wait("return !document.querySelector('#run').disabled;", what="#run enabled again")
    return json.loads(req["post"])


def wait_request_to(page, route):
    """The body of the request to ROUTE sent since the last mark (submit_and_capture)."""
    req = page.browser.wait_request(lambda r: r["url"].endswith(route) and r["type"] == "Fetch")
    return json.loads(req["post"]) if req["post"] else None


def choose_model(page, model_id):
    page.fill("#model-search", model_id)
    page.select("#model", model_id)


def check_estimate_shown(page, name, api):
    """Compare what the estimate section shows with the API's JSON."""
    # Russian shows a decimal comma; the digits are the same.
    ru = page.attr("html", "lang") == "ru"

    def g(nbytes):
        s = gib(nbytes)
        return s.replace(".", ",") if ru else s

    shown = page.js("""
      const q = (s) => document.querySelector(s);
      return {
        total: q('#total-gib') ? q('#total-gib').textContent : null,
        rows: [...document.querySelectorAll('#mem-table tr[data-component]')].map((tr) =>
          [tr.dataset.component, tr.querySelector('td.num').textContent]),
        bars: document.querySelectorAll('#mem-chart .gpu-bar').length,
        totalLabel: q('#total-label') ? q('#total-label').textContent : null,
        verdict: q('#verdict') ? q('#verdict').textContent : null,
        fits: q('#verdict') ? (q('#verdict').dataset.fits ?? null) : null,
        verdict_kind: q('#verdict') ? (q('#verdict').dataset.verdict ?? null) : null,
        suggestions: [...document.querySelectorAll('#suggestions li')].map((li) => li.dataset.change),
      };""")
    pg = api["memory"]["per_gpu"]
    res.eq(f"{name}: per-GPU total GiB", shown["total"], g(pg["device_total_bytes"]))
    res.true(f"{name}: total label on the chart", g(pg["device_total_bytes"]) in (shown["totalLabel"] or ""),
             f"label '{shown['totalLabel']}'")
    want = [
        ["weights", g(pg["weights_bytes"])],
        ["adapters", g(pg["adapters_bytes"])],
        ["gradients", g(pg["gradients_bytes"])],
        ["optimizer", g(pg["optimizer_bytes"])],
        ["activations", g(pg["activations_bytes"])],
        ["kv_cache", g(pg["kv_cache_bytes"])],
        ["overhead", g(pg["overhead_bytes"])],
        ["reserve", g(pg["peak_reserved_bytes"] - pg["peak_allocated_bytes"])],
        ["cuda_context", g(pg["cuda_context_bytes"])],
        ["total", g(pg["device_total_bytes"])],
    ]
    if "usable_bytes" in api:
        want.append(["usable", g(api["usable_bytes"])])
    res.eq(f"{name}: breakdown rows", shown["rows"], want)
    res.eq(f"{name}: one bar per GPU", shown["bars"], min(api["n_gpus"], 8))
    if "fits" in api:
        res.eq(f"{name}: verdict", shown["fits"], "true" if api["fits"] else "false")
        res.eq(f"{name}: range verdict", shown["verdict_kind"],
               api.get("verdict") or ("fits" if api["fits"] else "does-not-fit"))
        # MAY NOT FIT says by how much the top of the range is over; the others the headroom
        if api.get("verdict") == "may-not-fit":
            head = g(api["over_bytes"])
        elif api.get("verdict") == "does-not-fit" and api["fits"]:  # the range's bottom is over
            head = g(pg["device_total_low_bytes"] - api["usable_bytes"])
        else:
            head = g(abs(api["headroom_bytes"]))
        res.true(f"{name}: headroom in the verdict", head in (shown["verdict"] or ""),
                 f"verdict '{shown['verdict']}' lacks {head}")
    res.eq(f"{name}: suggestions", shown["suggestions"], [s["change"] for s in api["suggestions"]])


# Relative luminance and contrast ratio (WCAG 2.x definitions), run in the page.
CONTRAST_FAILURES = r"""
  const parse = (c) => {
    const m = /rgba?\(([\d.]+), ([\d.]+), ([\d.]+)(?:, ([\d.]+))?\)/.exec(c);
    return m ? { r: +m[1], g: +m[2], b: +m[3], a: m[4] === undefined ? 1 : +m[4] } : null;
  };
  const lum = ({ r, g, b }) => {
    const f = (v) => {
      v /= 255;
      return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
    };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const background = (node) => {
    for (let n = node; n && n.nodeType === 1; n = n.parentElement) {
      const c = parse(getComputedStyle(n).backgroundColor);
      if (c && c.a > 0.99) return c;
    }
    return { r: 255, g: 255, b: 255, a: 1 };
  };
  const bad = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let t = walker.nextNode(); t; t = walker.nextNode()) {
    const e = t.parentElement;
    if (!t.textContent.trim() || !e || e.closest('svg, script, style, .hidden, option')) continue;
    const cs = getComputedStyle(e);
    if (cs.visibility === 'hidden' || cs.display === 'none' || e.getClientRects().length === 0) continue;
    const fg = parse(cs.color);
    const bg = background(e);
    const l1 = lum(fg);
    const l2 = lum(bg);
    const ratio = (Math.max(l1, l2) + 0.05) / (Math.min(l1, l2) + 0.05);
    const large = parseFloat(cs.fontSize) >= 24 || (parseFloat(cs.fontSize) >= 18.66 && +cs.fontWeight >= 700);
    const need = large ? 3 : 4.5;
    if (ratio < need && !(e.closest('button:disabled'))) {
      bad.push(`${e.tagName.toLowerCase()}#${e.id} '${t.textContent.trim().slice(0, 30)}' ${ratio.toFixed(2)}`);
    }
  }
  return bad;
"""


def y_ticks(page, chart_id):
    """The y-axis tick labels of an SVG chart ("300k", "1.5M", "40") as numbers (None: unreadable)."""
    return page.js(r"""
      return [...document.querySelectorAll(`#${arguments[0]} > text[text-anchor="end"]:not(.point-label)`)].map((t) => {
        const m = /^(-?[\d.]+)([kM]?)$/.exec(t.textContent);
        return m ? Number(m[1]) * (m[2] === 'k' ? 1e3 : m[2] === 'M' ? 1e6 : 1) : null;
      });""", chart_id)


def check_axis(page, name, chart_id, values):
    """A chart's y axis spans the values drawn: ticks ascend and the top one >= max."""
    ticks = y_ticks(page, chart_id)
    good = len(ticks) >= 2 and None not in ticks
    good = good and all(ticks[i] > ticks[i - 1] for i in range(1, len(ticks)))
    good = good and ticks[-1] >= max(values) and ticks[0] <= min(values)
    res.true(f"{name}: y axis covers the data", good, f"ticks {ticks} for values up to {max(values)}")


# ---- the tests ------------------------------------------------------------------

def t_page(page, base, models):
    page.browser.mark()
    page.goto(base + "?lang=en")
    doc = [r for r in page.browser.responses() if r["type"] == "Document"]
    res.eq("GET / status", doc[-1]["status"] if doc else None, 200)
    csp = doc[-1]["headers"].get("content-security-policy", "") if doc else ""
    res.true("GET / has a CSP without remote sources",
             "default-src 'none'" in csp and not re.search(r"https?:", csp), f"csp '{csp}'")
    wait_catalog(page)
    res.eq("catalog models listed", page.count("#model option"), len(models))


def t_search(page, models):
    page.fill("#model-search", "qwen3")
    shown = page.js("return [...document.querySelectorAll('#model option')].map((o) => o.value);")
    want = [m["id"] for m in models if "qwen3" in
            f"{m['id']} {m.get('name') or ''} {m.get('family') or ''} {m.get('hf_repo') or ''}".lower()]
    res.eq("catalog search filters", shown, want)
    res.true("catalog search finds something", len(want) > 0, "no qwen3 model in the catalog")


def t_estimate_fits(page, api_base):
    """A job that fits: llama-3.1-8b, QLoRA, one H100, seq 4096, micro-batch 2, from the keyboard."""
    choose_model(page, "llama-3.1-8b")
    page.select("#method", "qlora")
    page.select("#gpu", "h100-sxm")
    page.fill("#gpu_count", "1")
    page.fill("#seq_len", "4096")
    page.fill("#micro_batch", "2")
    body = submit_and_capture(page, lambda: page.press("#run", "ENTER"))
    res.eq("request body from the form", body, {
        "model": "llama-3.1-8b", "method": "qlora", "gpu": "h100-sxm:1", "seq_len": 4096, "micro_batch": 2})
    status, api, _ = api_post(api_base, "/v1/estimate", body)
    res.eq("API answers the same request", status, 200)
    check_estimate_shown(page, "qlora 8b", api)
    cli = page.text("#cli-text").split("\n")[0]
    res.eq("printed command line = API answer", run_cli(cli), api)
    page.screenshot("estimate")


def t_estimate_no_fit(page, api_base):
    """One that does not fit on 8 GPUs, then a suggestion applied with one click."""
    choose_model(page, "llama-3.1-70b")
    page.select("#method", "full")
    page.fill("#gpu_count", "8")
    page.fill("#seq_len", "2048")
    page.fill("#micro_batch", "1")
    body = submit_and_capture(page, lambda: page.click("#run"))
    _, api, _ = api_post(api_base, "/v1/estimate", body)
    res.eq("70b full request", body, {"model": "llama-3.1-70b", "method": "full", "gpu": "h100-sxm:8"})
    check_estimate_shown(page, "full 70b x8", api)
    if not api["suggestions"]:
        res.skip("apply a suggestion", "the API made none")
        return
    first = api["suggestions"][0]
    body2 = submit_and_capture(page, lambda: page.click(f'#suggestions li[data-change="{first["change"]}"] button'))
    _, api2, _ = api_post(api_base, "/v1/estimate", body2)
    flags = " ".join(body_to_args(body2, "model"))
    res.true(f"suggestion '{first['change']}' applied", first["change"] in flags, f"request became {flags}")
    check_estimate_shown(page, "after the suggestion", api2)
    res.eq("suggestion said it fits, and it does", api2["fits"], first["fits"])


def t_estimate_error(page, api_base):
    """An error from the API is shown, not swallowed."""
    choose_model(page, "llama-3.1-8b")
    page.select("#method", "full")
    page.fill("#gpu_count", "1")
    page.js("document.querySelector('#advanced').open = true;")
    page.fill("#tp", "3")
    body = submit_and_capture(page, lambda: page.click("#run"))
    status, api, _ = api_post(api_base, "/v1/estimate", body)
    res.true("tp=3 is rejected by the API", status >= 400, f"status {status}")
    res.eq("error message shown", page.text("#estimate-out .err-message"), api["error"]["message"])
    page.fill("#tp", "1")


def t_paste_config(page):
    """A pasted config.json is matched against the catalog."""
    path = os.path.join(FIXTURES, "hf-configs", "llama-3.2-1b.json")
    if not os.path.exists(path):
        res.skip("paste config", f"no fixture {path}")
        return
    page.js("document.querySelector('#paste').open = true;")
    page.fill("#config", '{"hidden_size": 4096,')
    page.click("#config-use")
    status = page.text("#config-status")
    res.true("bad JSON is reported", "not valid JSON" in (status or ""), status)
    with open(path, encoding="utf-8") as f:
        page.fill("#config", f.read())
    page.click("#config-use")
    res.eq("pasted config picks the catalog model", page.value("#model"), "llama-3.2-1b")


def t_recommend(page, api_base):
    """Recommend: the real endpoint, then the table and the Pareto chart."""
    choose_model(page, "llama-3.1-8b")
    page.select("#method", "lora")
    page.fill("#tokens", "1e9")
    submit_and_capture(page, lambda: page.click("#run"))
    rec_body = wait_request_to(page, "/v1/recommend")
    res.eq("recommend body", rec_body, {"model": "llama-3.1-8b", "method": "lora", "tokens": "1e9"})
    status, api, _ = api_post(api_base, "/v1/recommend", rec_body)
    page.wait_visible("#recommend-out > *")
    if status == 200:
        res.eq("recommendations table = API", shown_plan_rows(page), [plan_row(r) for r in api["recommendations"]])
        pts = page.count("#pareto-chart circle.pareto-point")
        want = len([p for p in api["pareto"] if p.get("time_hours") is not None and p.get("cost_usd") is not None])
        res.eq("one point per Pareto plan", pts, want)
        if want:
            check_axis(page, "Pareto chart", "pareto-chart", [p["cost_usd"] for p in api["pareto"]])
        cli = page.text("#cli-text").split("\n")[1]
        res.eq("printed recommend command = API answer", run_cli(cli), api)
        if api["recommendations"]:
            r0 = api["recommendations"][0]
            # "Use" puts plan 1 into the form; the estimate must then show that plan's memory.
            body = submit_and_capture(page, lambda: page.click("#rec-table tbody tr:first-child button.use-plan"))
            _, est, _ = api_post(api_base, "/v1/estimate", body)
            check_estimate_shown(page, "plan 1 used", est)
            res.eq("plan 1: estimate = planner memory per GPU", page.text("#total-gib"),
                   gib(r0["memory_per_gpu_bytes"]))
            res.eq("plan 1: GPU in the form", f"{page.value('#gpu')}:{page.value('#gpu_count')}",
                   f"{r0['gpu']}:{r0['gpus_per_node']}")
            page.screenshot("recommend-live")
            page.reload()
            wait_catalog(page)
            choose_model(page, "llama-3.1-8b")
            page.select("#method", "lora")
            page.select("#gpu", "h100-sxm")
            page.fill("#tokens", "1e9")
    else:
        shown = page.text("#recommend-out .err-message")
        res.eq(f"recommend {status}: the API's error is shown", shown, api and api["error"]["message"])
    # The rendering itself, with a sample shaped like the schema in include/gpuplan/plan.h.
    with open(SAMPLE, encoding="utf-8") as f:
        sample = json.load(f)
    page.route("/v1/recommend", sample)
    submit_and_capture(page, lambda: page.click("#run"))
    page.wait_visible("#rec-table")
    res.eq("sample: table rows", page.count("#rec-table tbody tr[data-rank]"), len(sample["recommendations"]))
    res.eq("sample: Pareto points", page.count("#pareto-chart circle.pareto-point"), len(sample["pareto"]))
    check_axis(page, "sample Pareto", "pareto-chart", [p["cost_usd"] for p in sample["pareto"]])
    cost = page.text('#rec-table tbody tr td[data-col="col_cost"]')
    res.eq("sample: cost column", cost, money(sample["recommendations"][0]["cost_usd"]))
    res.eq("sample: table = sample", shown_plan_rows(page), [plan_row(r) for r in sample["recommendations"]])
    page.screenshot("recommend")
    page.unroute("/v1/recommend")


def t_tco(page, api_base):
    """Buy vs rent: the real endpoint, then the chart with the CLI's own answer."""
    page.fill("#tokens", "")
    page.fill("#gpu_count", "8")
    submit_and_capture(page, lambda: page.click("#run"))
    body = wait_request_to(page, "/v1/tco")
    res.eq("tco body", body, {"gpu": "h100-sxm:8"})
    page.wait("return document.querySelector('#tco-out').children.length > 0;", what="#tco-out")
    status, api, _ = api_post(api_base, "/v1/tco", body)
    cli_json = json.loads(subprocess.run([GPUPLAN, "tco", *body_to_args(body), "--format", "json"],
                                         check=True, capture_output=True, text=True).stdout)
    shown_json = api
    if status == 200:
        res.eq("tco API = CLI", api, cli_json)
    else:
        shown = page.text("#tco-out .err-message")
        res.eq(f"tco {status}: the API's error is shown", shown, api and api["error"]["message"])
        # Draw the CLI's answer for the same request (what the endpoint will return).
        page.route("/v1/tco", cli_json)
        submit_and_capture(page, lambda: page.click("#run"))
        page.wait_visible("#tco-chart")
        shown_json = cli_json
    page.fill("#hours_per_day", "8")
    shown = page.js("""
      const q = (s) => document.querySelector(s);
      const t = (s) => q(s) ? q(s).textContent : null;
      return {
        capex: t('#tco-capex'), own: t('#tco-own'), cloud: t('#tco-cloud'), beHours: t('#tco-be-hours'),
        ownPoints: q('#tco-own-line') ? q('#tco-own-line').dataset.points : null,
        cloudPoints: q('#tco-cloud-line') ? q('#tco-cloud-line').dataset.points : null,
      };""")
    be = shown_json.get("break_even_hours_per_day")
    res.eq("tco numbers shown", shown, {
        "capex": "$" + money(shown_json["capex_usd"]),
        "own": "$" + num(shown_json["monthly_usd"]["own"], 2),
        "cloud": "$" + num(shown_json["monthly_usd"]["cloud"], 2),
        "beHours": "never within the period" if be is None else f"{to_fixed(be, 2)} h/day",
        "ownPoints": str(len(shown_json["cumulative_usd"]["own"])),
        "cloudPoints": str(len(shown_json["cumulative_usd"]["cloud"])),
    })
    check_axis(page, "tco chart", "tco-chart",
               shown_json["cumulative_usd"]["own"] + shown_json["cumulative_usd"]["cloud"])
    page.screenshot("tco")


def serving_row(r):
    """A serving plan as the page's serving table shows it (en)."""
    sv = r["serving"]
    return [
        f"{sv['replicas']} × {sv['gpus_per_replica']} × {r['gpu']}", f"{sv['tp']} / {sv['pp']} / {sv['ep']}",
        readable(sv["weights"]), readable(sv["kv_dtype"]),
        num(sv["ttft_s"] * 1000, 0), num(sv["tpot_s"] * 1000, 1),
        num(sv["output_tokens_per_s_per_gpu"], 0),
        num(r.get("cost_per_mtok_usd"), 2), num(r.get("capex_usd"), 0),
    ]


def shown_rows(page, table_id):
    return page.js("""
      return [...document.querySelectorAll(`#${arguments[0]} tbody tr[data-rank]`)].map((tr) =>
        [...tr.querySelectorAll('td[data-col]')].filter((td) => td.dataset.col !== 'col_server')
          .map((td) => td.textContent));""", table_id)


def t_serving(page, api_base):
    """Serving: the engine's pool and steady state in the estimate, the serving search with
    targets, the verify artifact, a plan put back into the form, and nothing meeting the targets."""
    choose_model(page, "llama-3.3-70b")
    page.select("#method", "infer")
    page.select("#gpu", "h100-sxm")
    page.fill("#gpu_count", "2")
    page.fill("#max_model_len", "4096")
    page.fill("#input_tokens", "2048")
    page.fill("#output_tokens", "512")
    page.fill("#concurrency", "8")
    page.fill("#request_rate", "10")
    page.fill("#ttft_ms", "1000")
    page.fill("#tpot_ms", "50")
    body = submit_and_capture(page, lambda: page.click("#run"))
    res.eq("serving estimate body", body, {
        "model": "llama-3.3-70b", "method": "infer", "gpu": "h100-sxm:2", "input_tokens": 2048,
        "output_tokens": 512, "concurrency": 8, "max_model_len": 4096})
    _, api, _ = api_post(api_base, "/v1/estimate", body)
    check_estimate_shown(page, "serving 70b x2", api)
    res.eq("KV line as the engine prints it", page.text("#kv-info"), api["memory"]["summary"])
    res.true("KV line names tokens and concurrency",
             "GPU KV cache:" in (page.text("#kv-info") or "") and "max concurrency" in page.text("#kv-info"),
             page.text("#kv-info"))
    sv = api["serving"]
    if sv["has_time"]:
        res.eq("TPOT shown", page.text("#s-tpot"), num(sv["tpot_s"] * 1000, 2))
        res.eq("TTFT shown", page.text("#s-ttft"), num(sv["ttft_s"] * 1000, 1))
    res.eq("launch line shown", page.text("#est-launch"), sv["commands"]["launch"])
    res.eq("benchmark shown", page.text("#est-verify"), sv["commands"]["bench"])
    cli = page.text("#cli-text").split("\n")
    res.eq("printed serving estimate command = API answer", run_cli(cli[0]), api)
    rec_body = wait_request_to(page, "/v1/recommend")
    res.eq("serving recommend body", rec_body, {
        "model": "llama-3.3-70b", "method": "infer", "input_tokens": 2048, "output_tokens": 512,
        "concurrency": 8, "max_model_len": 4096, "request_rate": 10, "ttft_ms": 1000, "tpot_ms": 50})
    status, rec, _ = api_post(api_base, "/v1/recommend", rec_body)
    res.eq("serving recommend status", status, 200)
    page.wait_visible("#rec-table")
    res.eq("serving table = API", shown_rows(page, "rec-table"), [serving_row(r) for r in rec["recommendations"]])
    res.true("serving plans found", len(rec["recommendations"]) > 0, "no plan")
    if rec["recommendations"]:
        r0 = rec["recommendations"][0]
        res.eq("plan 1 launch line", page.text("#rec-launch"), r0["serving"]["commands"]["launch"])
        res.eq("plan 1 benchmark", page.text("#rec-verify"), r0["serving"]["commands"]["bench"])
    res.eq("printed serving recommend command = API answer", run_cli(cli[1]), rec)
    want = len([p for p in rec["pareto"] if p.get("cost_per_mtok_usd") is not None])
    res.eq("one point per serving Pareto plan", page.count("#pareto-chart circle.pareto-point"), want)
    page.screenshot("serving")
    if rec["recommendations"]:
        r0 = rec["recommendations"][0]
        body = submit_and_capture(page, lambda: page.click("#rec-table tbody tr:first-child button.use-plan"))
        res.eq("plan 1 into the form: one replica", body.get("gpu"), f"{r0['gpu']}:{r0['serving']['tp']}")
        _, est, _ = api_post(api_base, "/v1/estimate", body)
        res.true("plan 1 replica starts", est.get("fits") is True, f"estimate {est.get('fits')}")
    # Targets nothing meets: the nearest misses instead of plans.
    page.fill("#tpot_ms", "2")
    submit_and_capture(page, lambda: page.click("#run"))
    rec_body = wait_request_to(page, "/v1/recommend")
    _, rec, _ = api_post(api_base, "/v1/recommend", rec_body)
    page.wait_visible("#recommend-out > *")
    res.eq("no plan meets TPOT 2 ms", rec["recommendations"], [])
    res.eq("nearest misses shown", shown_rows(page, "miss-table"), [serving_row(r) for r in rec["nearest_misses"]])
    page.reload()
    wait_catalog(page)
    choose_model(page, "llama-3.1-8b")
    page.select("#method", "lora")
    page.select("#gpu", "h100-sxm")


def t_accessibility(page):
    """Labels, live regions, keyboard, contrast."""
    unlabelled = page.js("""
      return [...document.querySelectorAll('input, select, textarea')]
        .filter((e) => !(e.labels && e.labels.length) && !e.getAttribute('aria-label'))
        .map((e) => e.id || e.outerHTML.slice(0, 40));""")
    res.eq("every input has a label", unlabelled, [])
    live = page.js("return ['estimate-out', 'recommend-out', 'tco-out']"
                   ".map((id) => document.getElementById(id).getAttribute('aria-live'));")
    res.eq("results are aria-live", live, ["polite", "polite", "polite"])
    page.focus("#lang")
    seen = {page.tab() for _ in range(80)}
    need = ["model-search", "model", "method", "gpu", "seq_len", "run"]
    res.eq("keyboard reaches the form and the button", [i for i in need if i not in seen], [])
    res.eq("text contrast >= 4.5:1 (3:1 large)", page.js(CONTRAST_FAILURES), [])


RU_NAVIGATOR = """
  Object.defineProperty(navigator, 'language', { get: () => 'ru-RU' });
  Object.defineProperty(navigator, 'languages', { get: () => ['ru-RU', 'ru'] });
"""


def t_russian(page, br, base, api_base):
    """Russian: by ?lang=, by navigator.language, and the switch."""
    d = page.js("return window.gpuplan.I18N;")
    en, ru = set(d["en"]), set(d["ru"])
    res.eq("both languages have the same keys", sorted(ru - en) + sorted(en - ru), [])
    untranslated = page.js("""
      return [...new Set([...document.querySelectorAll('[data-i18n]')].map((n) => n.dataset.i18n)
        .filter((k) => !(k in window.gpuplan.I18N.en)))];""")
    res.eq("every data-i18n key is in the dictionary", untranslated, [])
    page.select("#lang", "ru")
    res.eq("switch: label in Russian", page.text('label[for="method"]'), d["ru"]["method"])
    res.eq("switch: html lang", page.attr("html", "lang"), "ru")
    res.true("switch: the page reads in Russian", d["ru"]["method"] in page.page_text(), "no Russian label")
    page.select("#lang", "en")
    res.eq("switch back", page.text('label[for="method"]'), d["en"]["method"])

    ru_page = br.open(base, width=1280, height=900, init_script=RU_NAVIGATOR)
    wait_catalog(ru_page)
    res.eq("default from navigator.language", ru_page.attr("html", "lang"), "ru")
    choose_model(ru_page, "llama-3.1-8b")
    ru_page.select("#method", "qlora")
    ru_page.select("#gpu", "h100-sxm")
    body = submit_and_capture(ru_page, lambda: ru_page.click("#run"))
    _, api, _ = api_post(api_base, "/v1/estimate", body)
    check_estimate_shown(ru_page, "ru", api)
    verdict = ru_page.text("#verdict") or ""
    res.true("verdict in Russian", "ПОМЕЩАЕТСЯ" in verdict, verdict)
    ru_page.screenshot("estimate-ru")
    ru_page.close()


def t_phone(br, base, api_base):
    """A phone: 360 px wide, no horizontal scrolling, numbers still right."""
    phone = br.open(base + "?lang=en", width=360, height=740)
    wait_catalog(phone)
    choose_model(phone, "llama-3.1-70b")
    phone.select("#method", "qlora")
    phone.select("#gpu", "a100-80gb-sxm")
    phone.fill("#gpu_count", "2")
    body = submit_and_capture(phone, lambda: phone.click("#run"))
    _, api, _ = api_post(api_base, "/v1/estimate", body)
    check_estimate_shown(phone, "phone", api)
    m = phone.overflow(":root")
    res.true("no horizontal scrolling at 360 px", m["scrollWidth"] <= 360 and not m["overflows"],
             f"page is {m['scrollWidth']} px wide in {m['clientWidth']}")
    too_small = phone.js("""
      return [...document.querySelectorAll('button, select, input:not([type=checkbox])')]
        .filter((e) => e.getClientRects().length && e.getBoundingClientRect().height < 24)
        .map((e) => e.id || e.textContent);""")
    res.eq("touch targets at least 24 px high", too_small, [])
    phone.screenshot("phone")
    phone.close()


def main():
    with Server(GPUPLAN) as srv:
        api_base = srv.base
        front = None
        base = srv.base
        if os.environ.get("GPUPLAN_TEST_PAGE"):
            front = PageOverride(srv.base, "/", os.environ["GPUPLAN_TEST_PAGE"], {
                "Content-Type": "text/html; charset=utf-8", "Content-Security-Policy": TEST_PAGE_CSP})
            base = front.base
        try:
            with Browser(OUT) as br:
                _, _, _, models = http("GET", api_base + "v1/models")
                models = models["models"]
                page = br.open(width=1280, height=900)
                res.step("page", t_page, page, base, models)
                res.step("search", t_search, page, models)
                res.step("estimate fits", t_estimate_fits, page, api_base)
                res.step("estimate does not fit", t_estimate_no_fit, page, api_base)
                res.step("estimate error", t_estimate_error, page, api_base)
                res.step("paste config", t_paste_config, page)
                res.step("recommend", t_recommend, page, api_base)
                res.step("tco", t_tco, page, api_base)
                res.step("serving", t_serving, page, api_base)
                res.step("accessibility", t_accessibility, page)
                res.step("russian", t_russian, page, br, base, api_base)
                res.step("phone", t_phone, br, base, api_base)
                res.eq("no script errors or CSP violations", br.console_errors(), [])
        finally:
            if front:
                front.stop()


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
