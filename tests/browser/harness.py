"""harness.py - drive the pages `gpuplan serve` serves in Debian's headless
chromium, with Debian's own packages only: chromium, chromium-driver
(/usr/bin/chromedriver) and python3-selenium, run by Debian's /usr/bin/python3.

Used by the tests/browser/test_*.py files that tests/suites/browser.sh runs:

    from harness import Results, Server, Browser
    res = Results()
    with Server(gpuplan) as srv, Browser(artifacts) as br:
        page = br.open(srv.url('/?lang=en'), width=390)
        res.eq('no overflow', page.overflow('main')['overflows'], False)
        page.screenshot('main-390')          # -> $BUILD/browser/main-390.png
        res.true('pdf', page.pdf().startswith(b'%PDF'), 'not a PDF')
        res.eq('console errors', br.console_errors(), [])
    sys.exit(res.finish())                    # prints "N passed, N failed"

What it offers:
  Server       `gpuplan serve --listen 127.0.0.1:0`, the port read from the
               line it prints; stop() ends it (also on exit).
  PageOverride a local front for the server that answers one path with a file
               (GPUPLAN_TEST_PAGE: try an edited page without rebuilding).
  Browser      one chromium (one user data directory, removed at the end);
               open(url, width, height) a tab of that viewport size;
               console_errors(); requests() (from chromedriver's performance
               log: what the page really sent).
  Page         goto/reload, js, wait, text/attr/value/count, fill/select/click/
               press/focus/tab, screenshot (full page, PNG artifact),
               overflow (scrollWidth vs clientWidth of an element), page_text
               (document.body.innerText), pdf (Page.printToPDF, the bytes),
               route/unroute (answer a fetch() path in the page with given JSON).
  Results      ok/fail/skip lines, eq/true checks, step() that turns an
               exception into one failure, finish() with the final line.

Chromium runs with the flags this closed network needs (no background
networking, no component updates, no sync, no QUIC) and hidden scrollbars, so
a viewport of W px lays the page out W px wide, as on a phone.
"""

import base64
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver")
TIMEOUT_S = 15.0

CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
    "--lang=en-US",
]


class Missing(Exception):
    """A Debian package the harness needs is not installed."""


# ---- results -----------------------------------------------------------------


class Results:
    """Counts checks; prints "ok NAME", "FAIL NAME: why", "skip NAME: why"."""

    def __init__(self):
        self.passed = 0
        self.failed = 0
        self.started = time.monotonic()

    def ok(self, name):
        self.passed += 1
        print(f"ok {name}", flush=True)

    def fail(self, name, why):
        self.failed += 1
        print(f"FAIL {name}: {why}", flush=True)

    def skip(self, name, why):
        print(f"skip {name}: {why}", flush=True)

    def eq(self, name, got, want):
        if got == want:
            self.ok(name)
        else:
            self.fail(name, f"got {json.dumps(got, ensure_ascii=False)}, "
                            f"want {json.dumps(want, ensure_ascii=False)}")

    def true(self, name, cond, why):
        if cond:
            self.ok(name)
        else:
            self.fail(name, why)

    def step(self, name, fn, *args):
        """Run fn(*args); an exception is one failure named NAME."""
        try:
            fn(*args)
        except Exception:  # noqa: BLE001 - every error is a test failure
            self.fail(name, traceback.format_exc().rstrip())

    def finish(self, what="browser test"):
        """Print the timing and the final "N passed, N failed"; the exit status."""
        print(f"{what} took {time.monotonic() - self.started:.1f} s", flush=True)
        print(f"{self.passed} passed, {self.failed} failed", flush=True)
        return 1 if self.failed else 0


# ---- the server ----------------------------------------------------------------


class Server:
    """`GPUPLAN serve --listen 127.0.0.1:0 ARGS...`; base is its http://127.0.0.1:PORT/."""

    def __init__(self, gpuplan, *args, timeout=10.0):
        self.log = []
        self.proc = subprocess.Popen(
            [gpuplan, "serve", "--listen", "127.0.0.1:0", *args],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            text=True, errors="replace")
        found = threading.Event()
        self.base = None

        def reader():  # keeps reading stderr so the server never blocks on it
            for line in self.proc.stderr:
                self.log.append(line)
                m = re.match(r"gpuplan: listening on (http://127\.0\.0\.1:\d+/)", line)
                if m and not self.base:
                    self.base = m.group(1)
                    found.set()
            found.set()

        threading.Thread(target=reader, daemon=True).start()
        if not found.wait(timeout) or not self.base:
            self.stop()
            raise RuntimeError("gpuplan serve did not start: " + "".join(self.log))

    def url(self, path="/"):
        return self.base + path.lstrip("/")

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()


def http(method, url, body=None):
    """One request; (status, headers dict with lower-case names, text, parsed JSON or None)."""
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method,
                                 headers={"Content-Type": "application/json"} if data else {})
    try:
        with urllib.request.urlopen(req, timeout=TIMEOUT_S) as r:
            status, headers, raw = r.status, r.headers, r.read()
    except urllib.error.HTTPError as e:
        status, headers, raw = e.code, e.headers, e.read()
    text = raw.decode("utf-8", "replace")
    try:
        parsed = json.loads(text)
    except ValueError:
        parsed = None
    return status, {k.lower(): v for k, v in headers.items()}, text, parsed


class PageOverride:
    """A local HTTP front for UPSTREAM (a base URL) that answers GET PATH (any
    query) with FILE's bytes and HEADERS, and passes every other request on."""

    def __init__(self, upstream, path, file, headers):
        body = open(file, "rb").read()
        upstream = upstream.rstrip("/")

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def forward(self):
                if self.command == "GET" and self.path.split("?")[0] == path:
                    self.send_response(200)
                    for k, v in headers.items():
                        self.send_header(k, v)
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                    return
                n = int(self.headers.get("Content-Length") or 0)
                data = self.rfile.read(n) if n else None
                req = urllib.request.Request(upstream + self.path, data=data, method=self.command)
                if self.headers.get("Content-Type"):
                    req.add_header("Content-Type", self.headers["Content-Type"])
                try:
                    with urllib.request.urlopen(req, timeout=TIMEOUT_S) as r:
                        status, hdrs, raw = r.status, r.headers, r.read()
                except urllib.error.HTTPError as e:
                    status, hdrs, raw = e.code, e.headers, e.read()
                self.send_response(status)
                for k, v in hdrs.items():
                    if k.lower() not in ("content-length", "connection", "date", "server"):
                        self.send_header(k, v)
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

            do_GET = do_POST = do_PUT = do_DELETE = forward

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.base = f"http://127.0.0.1:{self.httpd.server_address[1]}/"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def url(self, p="/"):
        return self.base + p.lstrip("/")

    def stop(self):
        self.httpd.shutdown()
        self.httpd.server_close()


# ---- the browser ----------------------------------------------------------------


def _selenium():
    try:
        from selenium import webdriver  # Debian: python3-selenium
        from selenium.webdriver.chrome.service import Service
    except ImportError as e:
        raise Missing(f"python3-selenium ({e}) for {sys.executable}") from e
    return webdriver, Service


class Browser:
    """One headless chromium through chromedriver. Tabs are Page objects."""

    def __init__(self, artifacts, chromium=CHROMIUM, chromedriver=CHROMEDRIVER):
        webdriver, Service = _selenium()
        for path, pkg in ((chromium, "chromium"), (chromedriver, "chromium-driver")):
            if not os.access(path, os.X_OK):
                raise Missing(f"{pkg} (no {path})")
        self.artifacts = artifacts
        os.makedirs(artifacts, exist_ok=True)
        self.user_data_dir = tempfile.mkdtemp(prefix="gpuplan-chromium-")
        opts = webdriver.ChromeOptions()
        opts.binary_location = chromium
        for flag in CHROMIUM_FLAGS + [f"--user-data-dir={self.user_data_dir}"]:
            opts.add_argument(flag)
        opts.add_experimental_option("prefs", {"intl.accept_languages": "en-US,en"})
        opts.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
        try:
            self.driver = webdriver.Chrome(service=Service(chromedriver), options=opts)
        except Exception:
            shutil.rmtree(self.user_data_dir, ignore_errors=True)
            raise
        self.driver.set_script_timeout(TIMEOUT_S)
        self._console = []
        self._events = []
        self._current = self.driver.current_window_handle
        self._first_free = True  # the tab chromedriver opened, not yet used

    # -- tabs
    def open(self, url=None, width=1280, height=900, init_script=None):
        """A tab with a WIDTH x HEIGHT CSS px viewport; INIT_SCRIPT (JS) runs
        before the page's own scripts in every document it loads; then URL."""
        if self._first_free:
            self._first_free = False
        else:
            self.driver.switch_to.new_window("tab")
        page = Page(self, self.driver.current_window_handle)
        self._current = page.handle
        page.set_viewport(width, height)
        if init_script:
            self.driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument",
                                        {"source": init_script})
        if url:
            page.goto(url)
        return page

    def _use(self, handle):
        if self._current != handle:
            self.driver.switch_to.window(handle)
            self._current = handle

    # -- logs
    def _drain(self):
        self._console += self.driver.get_log("browser")
        for e in self.driver.get_log("performance"):
            try:
                self._events.append(json.loads(e["message"])["message"])
            except (ValueError, KeyError):
                pass

    def console_errors(self, ignore=r"Failed to load resource"):
        """Every console error, uncaught exception and CSP violation so far
        (level SEVERE), less the messages matching IGNORE (chromium logs each
        4xx/5xx answer as "Failed to load resource"; pages handle those)."""
        self._drain()
        return [e["message"] for e in self._console
                if e.get("level") == "SEVERE" and not (ignore and re.search(ignore, e["message"]))]

    def mark(self):
        """Forget the requests seen so far (see requests())."""
        self._drain()
        self._events = []

    def requests(self):
        """The HTTP requests the tabs sent since mark(): dicts with url, method,
        post (the body as text, or None), type (Document, Fetch...)."""
        self._drain()
        out = []
        for m in self._events:
            if m.get("method") != "Network.requestWillBeSent":
                continue
            p = m["params"]
            r = p["request"]
            post = r.get("postData")
            if post is None and r.get("postDataEntries"):
                post = b"".join(base64.b64decode(x.get("bytes", "")) for x in
                                r["postDataEntries"]).decode("utf-8", "replace")
            out.append({"url": r["url"], "method": r["method"], "post": post,
                        "type": p.get("type"), "id": p.get("requestId")})
        return out

    def responses(self):
        """The responses since mark(): dicts with url, status, headers (lower-case names), type."""
        self._drain()
        out = []
        for m in self._events:
            if m.get("method") == "Network.responseReceived":
                r = m["params"]["response"]
                out.append({"url": r["url"], "status": r["status"], "type": m["params"].get("type"),
                            "headers": {k.lower(): v for k, v in r.get("headers", {}).items()}})
        return out

    def wait_request(self, pred, timeout=TIMEOUT_S):
        """The first request since mark() for which pred(request) is true."""
        end = time.monotonic() + timeout
        while True:
            for r in self.requests():
                if pred(r):
                    return r
            if time.monotonic() > end:
                raise TimeoutError("no such request within %.0f s; saw %s" % (
                    timeout, [(r["method"], r["url"]) for r in self.requests()]))
            time.sleep(0.05)

    def quit(self):
        try:
            self.driver.quit()
        finally:
            shutil.rmtree(self.user_data_dir, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.quit()


_FILL = """
const e = document.querySelector(arguments[0]);
if (!e) throw new Error('no element ' + arguments[0]);
e.focus();
const proto = e instanceof HTMLTextAreaElement ? HTMLTextAreaElement.prototype
            : e instanceof HTMLSelectElement ? HTMLSelectElement.prototype : HTMLInputElement.prototype;
Object.getOwnPropertyDescriptor(proto, 'value').set.call(e, arguments[1]);
if (e instanceof HTMLSelectElement && e.value !== arguments[1])
  throw new Error(arguments[0] + ' has no option ' + arguments[1]);
e.dispatchEvent(new Event('input', { bubbles: true }));
e.dispatchEvent(new Event('change', { bubbles: true }));
"""

_ROUTE = """
if (!window.__harnessRoutes) {
  window.__harnessRoutes = {};
  const real = window.fetch;
  window.fetch = function (input, init) {
    const url = new URL(typeof input === 'string' ? input : input.url, location.href);
    const r = window.__harnessRoutes[url.pathname];
    if (!r) return real.apply(this, arguments);
    return Promise.resolve(new Response(r.body, { status: r.status, headers: { 'Content-Type': r.type } }));
  };
}
if (arguments[1] === null) delete window.__harnessRoutes[arguments[0]];
else window.__harnessRoutes[arguments[0]] = { status: arguments[1], body: arguments[2], type: arguments[3] };
"""


class Page:
    """One tab. Selectors are CSS; scripts are JS function bodies (arguments[i])."""

    def __init__(self, browser, handle):
        self.browser = browser
        self.handle = handle
        self.width = self.height = None

    @property
    def driver(self):
        self.browser._use(self.handle)
        return self.browser.driver

    def set_viewport(self, width, height=900):
        self.width, self.height = width, height
        self.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
            "width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})

    def goto(self, url):
        self.driver.get(url)

    def reload(self):
        self.driver.refresh()

    def close(self):
        d = self.driver
        d.close()
        rest = d.window_handles
        if rest:
            d.switch_to.window(rest[0])
            self.browser._current = rest[0]

    # -- reading
    def js(self, script, *args):
        return self.driver.execute_script(script, *args)

    def wait(self, script, *args, timeout=TIMEOUT_S, what=None):
        """Poll until the JS SCRIPT returns a truthy value; return it."""
        end = time.monotonic() + timeout
        while True:
            v = self.js(script, *args)
            if v:
                return v
            if time.monotonic() > end:
                raise TimeoutError(f"waited {timeout:.0f} s for {what or script.strip()}")
            time.sleep(0.05)

    def wait_visible(self, selector, timeout=TIMEOUT_S):
        self.wait("const e = document.querySelector(arguments[0]);"
                  "return !!e && e.getClientRects().length > 0;", selector,
                  timeout=timeout, what=f"{selector} visible")

    def text(self, selector):
        """textContent of the first match (None when nothing matches)."""
        return self.js("const e = document.querySelector(arguments[0]);"
                       "return e ? e.textContent : null;", selector)

    def attr(self, selector, name):
        return self.js("const e = document.querySelector(arguments[0]);"
                       "return e ? e.getAttribute(arguments[1]) : null;", selector, name)

    def value(self, selector):
        return self.js("return document.querySelector(arguments[0]).value;", selector)

    def count(self, selector):
        return self.js("return document.querySelectorAll(arguments[0]).length;", selector)

    def page_text(self):
        """The text a reader sees (document.body.innerText), for language checks."""
        return self.js("return document.body.innerText;")

    def overflow(self, selector):
        """Whether SELECTOR's content is wider than its box: {scrollWidth,
        clientWidth, overflows}. ':root' is the page itself."""
        r = self.js("const e = document.querySelector(arguments[0]);"
                    "if (!e) throw new Error('no element ' + arguments[0]);"
                    "return [e.scrollWidth, e.clientWidth];", selector)
        return {"scrollWidth": r[0], "clientWidth": r[1], "overflows": r[0] > r[1]}

    # -- acting (as a user would; fill/select set the value and fire input + change)
    def fill(self, selector, text):
        self.js(_FILL, selector, str(text))

    def select(self, selector, value):
        self.js(_FILL, selector, value)

    def element(self, selector):
        from selenium.webdriver.common.by import By
        return self.driver.find_element(By.CSS_SELECTOR, selector)

    def click(self, selector):
        self.element(selector).click()

    def focus(self, selector):
        self.js("document.querySelector(arguments[0]).focus();", selector)

    def press(self, selector, key):
        """Send KEY (a selenium Keys name such as 'ENTER', or text) to SELECTOR."""
        from selenium.webdriver.common.keys import Keys
        self.element(selector).send_keys(getattr(Keys, key, key))

    def tab(self):
        """Press Tab; return the id of the element focused then."""
        from selenium.webdriver.common.action_chains import ActionChains
        from selenium.webdriver.common.keys import Keys
        ActionChains(self.driver).send_keys(Keys.TAB).perform()
        return self.js("return document.activeElement ? document.activeElement.id : null;")

    def route(self, path, body, status=200, content_type="application/json"):
        """Answer the page's fetch() of PATH (any query) with BODY (text, or an
        object sent as JSON) until unroute(PATH) or the next navigation."""
        if not isinstance(body, str):
            body = json.dumps(body)
        self.js(_ROUTE, path, status, body, content_type)

    def unroute(self, path):
        self.js(_ROUTE, path, None, None, None)

    # -- artifacts
    def screenshot(self, name, full_page=True):
        """Save NAME.png under the artifacts directory (the whole page, not
        just the viewport, unless full_page=False); return its path."""
        params = {"format": "png"}
        if full_page:
            size = self.driver.execute_cdp_cmd("Page.getLayoutMetrics", {})["cssContentSize"]
            params.update(captureBeyondViewport=True, clip={
                "x": 0, "y": 0, "scale": 1,
                "width": max(size["width"], self.width or 0), "height": size["height"]})
        data = base64.b64decode(self.driver.execute_cdp_cmd("Page.captureScreenshot", params)["data"])
        path = os.path.join(self.browser.artifacts, name if name.endswith(".png") else name + ".png")
        with open(path, "wb") as f:
            f.write(data)
        return path

    def pdf(self, save=None, **options):
        """The page printed to PDF (DevTools Page.printToPDF; OPTIONS are its
        parameters, e.g. landscape=True, paperWidth=8.27); the bytes. SAVE: a
        file name under the artifacts directory to write them to as well."""
        params = {"printBackground": True, **options}
        data = base64.b64decode(self.driver.execute_cdp_cmd("Page.printToPDF", params)["data"])
        if save:
            with open(os.path.join(self.browser.artifacts, save), "wb") as f:
                f.write(data)
        return data
