// test.mjs - the page served by `gpuplan serve` (data/index.html) in a real
// browser: Debian's chromium, headless, driven by playwright-core.
//
// Starts `$BUILD/gpuplan serve --listen 127.0.0.1:0` (a free port), loads
// GET /, fills the form as a user would, and checks that every number the
// page shows equals the API's answer to the same request (fetched again here
// with Node's fetch, and compared with the CLI's `--format json` output for
// the command line the page prints). Also: error display, suggestions that
// apply themselves, a pasted config.json, both languages, labels, keyboard
// use, text contrast, and a 360 px wide phone layout. Screenshots go to
// $BUILD/browser/*.png.
//
// Endpoints that are not built yet (501) must show their error in their own
// section; their charts are then checked with the CLI's output (tco) or a
// sample shaped like the documented schema (recommend), served by
// intercepting the request in the browser.
//
// Usage: BUILD=build node tests/browser/test.mjs   (run by tests/suites/browser.sh)
// GPUPLAN_TEST_PAGE=FILE serves FILE instead of the embedded page (to try an edit
// without rebuilding, or to check that a broken page fails the test).
// Prints "ok"/"FAIL"/"skip" lines and a final "N passed, N failed"; exit 1 on a failure.

import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const BUILD = process.env.BUILD || 'build';
const GPUPLAN = path.resolve(ROOT, BUILD, 'gpuplan');
const OUT = path.resolve(ROOT, BUILD, 'browser');
const FIXTURES = path.resolve(ROOT, 'tests', 'fixtures');
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const BYTES_PER_GIB = 2 ** 30;
const TIMEOUT_MS = 15000;

let passed = 0;
let failed = 0;

function ok(name) {
  passed++;
  console.log(`ok ${name}`);
}
function fail(name, why) {
  failed++;
  console.log(`FAIL ${name}: ${why}`);
}
function skip(name, why) {
  console.log(`skip ${name}: ${why}`);
}
function expectEq(name, got, want) {
  const g = JSON.stringify(got);
  const w = JSON.stringify(want);
  if (g === w) ok(name);
  else fail(name, `got ${g}, want ${w}`);
}
function expectTrue(name, cond, why) {
  if (cond) ok(name);
  else fail(name, why);
}
async function step(name, fn) {
  try {
    await fn();
  } catch (e) {
    fail(name, (e && e.stack) || String(e));
  }
}

const gibEn = (bytes) => (bytes / BYTES_PER_GIB).toFixed(2);
const gib = gibEn;
const num = (x, d) =>
  x === null || x === undefined ? '—' : x.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d });
const money = (x) => (x === null || x === undefined ? '—' : num(x, Math.abs(x) < 1000 ? 2 : 0));

// A recommendation as the page's table shows it (en): the documented fields, rounded.
function planRow(r) {
  return [
    r.gpu,
    `${r.gpus_per_node} × ${r.nodes}`,
    r.method,
    r.method === 'infer' ? r.weights_dtype || r.precision : r.precision,
    r.sharding,
    String(r.micro_batch),
    gib(r.memory_per_gpu_bytes),
    num(r.tokens_per_s, 0),
    num(r.time_hours, 2),
    money(r.cost_usd),
    num(r.cost_usd_per_hour, 2),
    num(r.capex_usd, 0),
  ];
}

async function shownPlanRows(page) {
  return page.locator('#rec-table tbody tr').evaluateAll((trs) =>
    trs.map((tr) => [...tr.querySelectorAll('td[data-col]')].filter((td) => td.dataset.col !== 'col_server')
      .map((td) => td.textContent)),
  );
}

// ---- server ----

function startServer() {
  return new Promise((resolve, reject) => {
    const child = spawn(GPUPLAN, ['serve', '--listen', '127.0.0.1:0'], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let log = '';
    const timer = setTimeout(() => reject(new Error(`server did not start: ${log}`)), 10000);
    child.stderr.on('data', (chunk) => {
      log += chunk;
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+\/)/.exec(log);
      if (m) {
        clearTimeout(timer);
        resolve({ child, base: m[1] });
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}: ${log}`));
    });
  });
}

async function apiPost(base, route, body) {
  const r = await fetch(new URL(route, base), {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await r.text();
  let json = null;
  try {
    json = JSON.parse(text);
  } catch {
    json = null;
  }
  return { status: r.status, json, text };
}

// Run a command line the page printed ("gpuplan estimate MODEL --k v ...") with the
// build's binary and --format json. Arguments carry no spaces, so split on blanks.
function runCli(line) {
  const args = line.trim().split(/\s+/);
  if (args[0] !== 'gpuplan') throw new Error(`not a gpuplan command: ${line}`);
  const text = execFileSync(GPUPLAN, [...args.slice(1), '--format', 'json'], { encoding: 'utf8' });
  return JSON.parse(text);
}

// Body {k: v} -> CLI arguments --k-with-dashes v (the documented one-to-one mapping).
function bodyToArgs(body, positional) {
  const args = positional ? [body[positional]] : [];
  for (const [k, v] of Object.entries(body)) {
    if (k === positional) continue;
    args.push(`--${k.replace(/_/g, '-')}`, typeof v === 'boolean' ? (v ? 'yes' : 'no') : String(v));
  }
  return args;
}

// ---- page helpers ----

async function waitCatalog(page) {
  await page.waitForFunction(() => document.querySelectorAll('#model option').length > 0, null, {
    timeout: TIMEOUT_MS,
  });
}

// Submit the form and return the body of the POST /v1/estimate it sent and the
// page once the estimate section shows the answer.
async function submitAndCapture(page, trigger) {
  const reqP = page.waitForRequest((r) => r.url().endsWith('/v1/estimate') && r.method() === 'POST', {
    timeout: TIMEOUT_MS,
  });
  await trigger();
  const req = await reqP;
  await page.waitForFunction(() => !document.querySelector('#run').disabled, null, { timeout: TIMEOUT_MS });
  return JSON.parse(req.postData());
}

async function chooseModel(page, id) {
  await page.fill('#model-search', id);
  await page.selectOption('#model', id);
}

// Compare what the estimate section shows with the API's JSON.
async function checkEstimateShown(page, name, api) {
  // Russian shows a decimal comma; the digits are the same.
  const ru = (await page.getAttribute('html', 'lang')) === 'ru';
  const gib = (bytes) => (ru ? gibEn(bytes).replace('.', ',') : gibEn(bytes));
  const shown = await page.evaluate(() => ({
    total: document.querySelector('#total-gib')?.textContent,
    usable: document.querySelector('#usable-gib')?.textContent ?? null,
    rows: Object.fromEntries(
      [...document.querySelectorAll('#mem-table tr[data-component]')].map((tr) => [
        tr.dataset.component,
        tr.querySelector('td.num').textContent,
      ]),
    ),
    bars: document.querySelectorAll('#mem-chart .gpu-bar').length,
    totalLabel: document.querySelector('#total-label')?.textContent,
    verdict: document.querySelector('#verdict')?.textContent,
    fits: document.querySelector('#verdict')?.dataset.fits ?? null,
    suggestions: [...document.querySelectorAll('#suggestions li')].map((li) => li.dataset.change),
  }));
  const pg = api.memory.per_gpu;
  expectEq(`${name}: per-GPU total GiB`, shown.total, gib(pg.device_total_bytes));
  expectTrue(`${name}: total label on the chart`, (shown.totalLabel || '').includes(gib(pg.device_total_bytes)),
    `label '${shown.totalLabel}'`);
  const want = {
    weights: gib(pg.weights_bytes),
    adapters: gib(pg.adapters_bytes),
    gradients: gib(pg.gradients_bytes),
    optimizer: gib(pg.optimizer_bytes),
    activations: gib(pg.activations_bytes),
    kv_cache: gib(pg.kv_cache_bytes),
    overhead: gib(pg.overhead_bytes),
    reserve: gib(pg.peak_reserved_bytes - pg.peak_allocated_bytes),
    cuda_context: gib(pg.cuda_context_bytes),
    total: gib(pg.device_total_bytes),
  };
  if ('usable_bytes' in api) want.usable = gib(api.usable_bytes);
  expectEq(`${name}: breakdown rows`, shown.rows, want);
  expectEq(`${name}: one bar per GPU`, shown.bars, Math.min(api.n_gpus, 8));
  if ('fits' in api) {
    expectEq(`${name}: verdict`, shown.fits, String(api.fits));
    expectTrue(`${name}: headroom in the verdict`, shown.verdict.includes(gib(Math.abs(api.headroom_bytes))),
      `verdict '${shown.verdict}' lacks ${gib(Math.abs(api.headroom_bytes))}`);
  }
  expectEq(`${name}: suggestions`, shown.suggestions, api.suggestions.map((s) => s.change));
}

// Relative luminance and contrast ratio (WCAG 2.x definitions), run in the page.
async function contrastFailures(page) {
  return page.evaluate(() => {
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
  });
}

// The y-axis tick labels of an SVG chart ("300k", "1.5M", "40") as numbers.
async function yTicks(page, chartId) {
  return page.evaluate((id) =>
    [...document.querySelectorAll(`#${id} > text[text-anchor="end"]`)].map((t) => {
      const m = /^(-?[\d.]+)([kM]?)$/.exec(t.textContent);
      return m ? Number(m[1]) * (m[2] === 'k' ? 1e3 : m[2] === 'M' ? 1e6 : 1) : NaN;
    }), chartId);
}

// Check that a chart's y axis spans the values drawn: ticks ascend and the top one >= max.
async function checkAxis(page, name, chartId, values) {
  const ticks = await yTicks(page, chartId);
  const max = Math.max(...values);
  const ascending = ticks.every((v, i) => i === 0 || v > ticks[i - 1]);
  expectTrue(`${name}: y axis covers the data`, ticks.length >= 2 && ascending && !ticks.some(Number.isNaN) &&
    ticks[ticks.length - 1] >= max && ticks[0] <= Math.min(...values),
    `ticks ${JSON.stringify(ticks)} for values up to ${max}`);
}

// ---- the tests ----

async function main() {
  if (!fs.existsSync(GPUPLAN)) {
    fail('binary', `no ${GPUPLAN}; run make BUILD=${BUILD} first`);
    return;
  }
  fs.mkdirSync(OUT, { recursive: true });
  const { child, base } = await startServer();
  const killServer = () => {
    if (child.exitCode === null) child.kill('SIGTERM');
  };
  process.on('exit', killServer);
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gpuplan-chromium-'));
  let context = null;
  try {
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM,
      headless: true,
      locale: 'en-US',
      viewport: { width: 1280, height: 900 },
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    await runTests(context, base);
  } finally {
    if (context) await context.close().catch(() => {});
    killServer();
    fs.rmSync(userDataDir, { recursive: true, force: true });
  }
}

async function runTests(context, base) {
  const page = context.pages()[0] || (await context.newPage());
  const pageErrors = [];
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  page.on('console', (m) => {
    // A 501 or 4xx answer is logged by chromium as "Failed to load resource"; the page
    // handles those. Anything else (a script error, a CSP violation) is a failure.
    if (m.type() === 'error' && !/Failed to load resource/.test(m.text())) pageErrors.push(m.text());
  });

  if (process.env.GPUPLAN_TEST_PAGE) {
    const html = fs.readFileSync(process.env.GPUPLAN_TEST_PAGE, 'utf8');
    await context.route(/\/(\?.*)?$/, (route) =>
      route.request().url().replace(/\?.*/, '') === base
        ? route.fulfill({ status: 200, contentType: 'text/html; charset=utf-8', body: html,
          headers: { 'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; connect-src 'self'" } })
        : route.continue(),
    );
  }
  const models = (await (await fetch(new URL('/v1/models', base))).json()).models;

  await step('page', async () => {
    const resp = await page.goto(new URL('/?lang=en', base).href);
    expectEq('GET / status', resp.status(), 200);
    const csp = resp.headers()['content-security-policy'] || '';
    expectTrue('GET / has a CSP without remote sources', csp.includes("default-src 'none'") && !/https?:/.test(csp),
      `csp '${csp}'`);
    await waitCatalog(page);
    const n = await page.locator('#model option').count();
    expectEq('catalog models listed', n, models.length);
  });

  await step('search', async () => {
    await page.fill('#model-search', 'qwen3');
    const shown = await page.locator('#model option').evaluateAll((os) => os.map((o) => o.value));
    const want = models
      .filter((m) => `${m.id} ${m.name || ''} ${m.family || ''} ${m.hf_repo || ''}`.toLowerCase().includes('qwen3'))
      .map((m) => m.id);
    expectEq('catalog search filters', shown, want);
    expectTrue('catalog search finds something', want.length > 0, 'no qwen3 model in the catalog');
  });

  // 1. A job that fits: llama-3.1-8b, QLoRA, one H100, seq 4096, micro-batch 2,
  //    submitted from the keyboard.
  await step('estimate fits', async () => {
    await chooseModel(page, 'llama-3.1-8b');
    await page.selectOption('#method', 'qlora');
    await page.selectOption('#gpu', 'h100-sxm');
    await page.fill('#gpu_count', '1');
    await page.fill('#seq_len', '4096');
    await page.fill('#micro_batch', '2');
    const body = await submitAndCapture(page, async () => {
      await page.focus('#run');
      await page.keyboard.press('Enter');
    });
    expectEq('request body from the form', body, {
      model: 'llama-3.1-8b',
      method: 'qlora',
      gpu: 'h100-sxm:1',
      seq_len: 4096,
      micro_batch: 2,
    });
    const api = await apiPost(base, '/v1/estimate', body);
    expectEq('API answers the same request', api.status, 200);
    await checkEstimateShown(page, 'qlora 8b', api.json);
    const cli = (await page.textContent('#cli-text')).split('\n')[0];
    expectEq('printed command line = API answer', runCli(cli), api.json);
    await page.screenshot({ path: path.join(OUT, 'estimate.png'), fullPage: true });
  });

  // 2. One that does not fit on 8 GPUs, then a suggestion applied with one click.
  await step('estimate does not fit', async () => {
    await chooseModel(page, 'llama-3.1-70b');
    await page.selectOption('#method', 'full');
    await page.fill('#gpu_count', '8');
    await page.fill('#seq_len', '2048');
    await page.fill('#micro_batch', '1');
    const body = await submitAndCapture(page, () => page.click('#run'));
    const api = await apiPost(base, '/v1/estimate', body);
    expectEq('70b full request', body, { model: 'llama-3.1-70b', method: 'full', gpu: 'h100-sxm:8' });
    await checkEstimateShown(page, 'full 70b x8', api.json);
    const first = api.json.suggestions[0];
    if (!first) {
      skip('apply a suggestion', 'the API made none');
      return;
    }
    const body2 = await submitAndCapture(page, () =>
      page.click(`#suggestions li[data-change="${first.change}"] button`),
    );
    const api2 = await apiPost(base, '/v1/estimate', body2);
    const flags = bodyToArgs(body2, 'model').join(' ');
    expectTrue(`suggestion '${first.change}' applied`, flags.includes(first.change), `request became ${flags}`);
    await checkEstimateShown(page, 'after the suggestion', api2.json);
    expectEq('suggestion said it fits, and it does', api2.json.fits, first.fits);
  });

  // 3. An error from the API is shown, not swallowed.
  await step('estimate error', async () => {
    await chooseModel(page, 'llama-3.1-8b');
    await page.selectOption('#method', 'full');
    await page.fill('#gpu_count', '1');
    await page.evaluate(() => {
      document.querySelector('#advanced').open = true;
    });
    await page.fill('#tp', '3');
    const body = await submitAndCapture(page, () => page.click('#run'));
    const api = await apiPost(base, '/v1/estimate', body);
    expectTrue('tp=3 is rejected by the API', api.status >= 400, `status ${api.status}`);
    const shown = await page.textContent('#estimate-out .err-message');
    expectEq('error message shown', shown, api.json.error.message);
    await page.fill('#tp', '1');
  });

  // 4. A pasted config.json is matched against the catalog.
  await step('paste config', async () => {
    const file = path.join(FIXTURES, 'hf-configs', 'llama-3.2-1b.json');
    if (!fs.existsSync(file)) {
      skip('paste config', `no fixture ${file}`);
      return;
    }
    await page.evaluate(() => {
      document.querySelector('#paste').open = true;
    });
    await page.fill('#config', '{"hidden_size": 4096,');
    await page.click('#config-use');
    expectTrue('bad JSON is reported', /not valid JSON/.test(await page.textContent('#config-status')),
      await page.textContent('#config-status'));
    await page.fill('#config', fs.readFileSync(file, 'utf8'));
    await page.click('#config-use');
    expectEq('pasted config picks the catalog model', await page.inputValue('#model'), 'llama-3.2-1b');
  });

  // 5. Recommend: the real endpoint, then the table and the Pareto chart.
  await step('recommend', async () => {
    await chooseModel(page, 'llama-3.1-8b');
    await page.selectOption('#method', 'lora');
    await page.fill('#tokens', '1e9');
    const recReq = page.waitForRequest((r) => r.url().endsWith('/v1/recommend'), { timeout: TIMEOUT_MS });
    await submitAndCapture(page, () => page.click('#run'));
    const recBody = JSON.parse((await recReq).postData());
    expectEq('recommend body', recBody, { model: 'llama-3.1-8b', method: 'lora', tokens: '1e9' });
    const api = await apiPost(base, '/v1/recommend', recBody);
    await page.waitForSelector('#recommend-out > *', { timeout: TIMEOUT_MS });
    if (api.status === 200) {
      expectEq('recommendations table = API', await shownPlanRows(page), api.json.recommendations.map(planRow));
      const pts = await page.locator('#pareto-chart circle.pareto-point').count();
      const want = api.json.pareto.filter((p) => p.time_hours != null && p.cost_usd != null).length;
      expectEq('one point per Pareto plan', pts, want);
      if (want) {
        await checkAxis(page, 'Pareto chart', 'pareto-chart', api.json.pareto.map((p) => p.cost_usd));
      }
      const cli = (await page.textContent('#cli-text')).split('\n')[1];
      expectEq('printed recommend command = API answer', runCli(cli), api.json);
      const r0 = api.json.recommendations[0];
      if (r0) {
        // "Use" puts plan 1 into the form; the estimate must then show that plan's memory.
        const body = await submitAndCapture(page, () => page.click('#rec-table tbody tr:first-child button.use-plan'));
        const est = await apiPost(base, '/v1/estimate', body);
        await checkEstimateShown(page, 'plan 1 used', est.json);
        expectEq('plan 1: estimate = planner memory per GPU', await page.textContent('#total-gib'),
          gib(r0.memory_per_gpu_bytes));
        expectEq('plan 1: GPU in the form', `${await page.inputValue('#gpu')}:${await page.inputValue('#gpu_count')}`,
          `${r0.gpu}:${r0.gpus_per_node}`);
        await page.screenshot({ path: path.join(OUT, 'recommend-live.png'), fullPage: true });
        await page.reload();
        await waitCatalog(page);
        await chooseModel(page, 'llama-3.1-8b');
        await page.selectOption('#method', 'lora');
        await page.selectOption('#gpu', 'h100-sxm');
        await page.fill('#tokens', '1e9');
      }
    } else {
      const shown = await page.textContent('#recommend-out .err-message');
      expectEq(`recommend ${api.status}: the API's error is shown`, shown, api.json && api.json.error.message);
    }
    // The rendering itself, with a sample shaped like the schema in include/gpuplan/plan.h.
    const sample = JSON.parse(fs.readFileSync(new URL('./recommend-sample.json', import.meta.url), 'utf8'));
    await page.route('**/v1/recommend', (route) =>
      route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify(sample) }),
    );
    await submitAndCapture(page, () => page.click('#run'));
    await page.waitForSelector('#rec-table', { timeout: TIMEOUT_MS });
    expectEq('sample: table rows', await page.locator('#rec-table tbody tr').count(),
      sample.recommendations.length);
    expectEq('sample: Pareto points', await page.locator('#pareto-chart circle.pareto-point').count(),
      sample.pareto.length);
    await checkAxis(page, 'sample Pareto', 'pareto-chart', sample.pareto.map((p) => p.cost_usd));
    const cost = await page.locator('#rec-table tbody tr').first().locator('td[data-col="col_cost"]').textContent();
    expectEq('sample: cost column', cost, money(sample.recommendations[0].cost_usd));
    expectEq('sample: table = sample', await shownPlanRows(page), sample.recommendations.map(planRow));
    await page.screenshot({ path: path.join(OUT, 'recommend.png'), fullPage: true });
    await page.unroute('**/v1/recommend');
  });

  // 6. Buy vs rent: the real endpoint, then the chart with the CLI's own answer.
  await step('tco', async () => {
    await page.fill('#tokens', '');
    await page.fill('#gpu_count', '8');
    const tcoReq = page.waitForRequest((r) => r.url().endsWith('/v1/tco'), { timeout: TIMEOUT_MS });
    await submitAndCapture(page, () => page.click('#run'));
    const body = JSON.parse((await tcoReq).postData());
    expectEq('tco body', body, { gpu: 'h100-sxm:8' });
    await page.waitForFunction(() => document.querySelector('#tco-out').children.length > 0, null,
      { timeout: TIMEOUT_MS });
    const api = await apiPost(base, '/v1/tco', body);
    const cliJson = JSON.parse(execFileSync(GPUPLAN, ['tco', ...bodyToArgs(body), '--format', 'json'],
      { encoding: 'utf8' }));
    let shownJson = api.json;
    if (api.status === 200) {
      expectEq('tco API = CLI', api.json, cliJson);
    } else {
      const shown = await page.textContent('#tco-out .err-message');
      expectEq(`tco ${api.status}: the API's error is shown`, shown, api.json && api.json.error.message);
      // Draw the CLI's answer for the same request (what the endpoint will return).
      await page.route('**/v1/tco', (route) =>
        route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify(cliJson) }),
      );
      await submitAndCapture(page, () => page.click('#run'));
      await page.waitForSelector('#tco-chart', { timeout: TIMEOUT_MS });
      shownJson = cliJson;
    }
    await page.fill('#hours_per_day', '8');
    const shown = await page.evaluate(() => ({
      capex: document.querySelector('#tco-capex')?.textContent,
      own: document.querySelector('#tco-own')?.textContent,
      cloud: document.querySelector('#tco-cloud')?.textContent,
      beHours: document.querySelector('#tco-be-hours')?.textContent,
      ownPoints: document.querySelector('#tco-own-line')?.dataset.points,
      cloudPoints: document.querySelector('#tco-cloud-line')?.dataset.points,
    }));
    expectEq('tco numbers shown', shown, {
      capex: '$' + money(shownJson.capex_usd),
      own: '$' + num(shownJson.monthly_usd.own, 2),
      cloud: '$' + num(shownJson.monthly_usd.cloud, 2),
      beHours: shownJson.break_even_hours_per_day == null ? 'never within the period'
        : `${shownJson.break_even_hours_per_day.toFixed(2)} h/day`,
      ownPoints: String(shownJson.cumulative_usd.own.length),
      cloudPoints: String(shownJson.cumulative_usd.cloud.length),
    });
    await checkAxis(page, 'tco chart', 'tco-chart', shownJson.cumulative_usd.own.concat(shownJson.cumulative_usd.cloud));
    await page.screenshot({ path: path.join(OUT, 'tco.png'), fullPage: true });
  });

  // 7. Accessibility: labels, live regions, keyboard, contrast.
  await step('accessibility', async () => {
    const unlabelled = await page.evaluate(() =>
      [...document.querySelectorAll('input, select, textarea')]
        .filter((e) => !(e.labels && e.labels.length) && !e.getAttribute('aria-label'))
        .map((e) => e.id || e.outerHTML.slice(0, 40)),
    );
    expectEq('every input has a label', unlabelled, []);
    const live = await page.evaluate(() =>
      ['estimate-out', 'recommend-out', 'tco-out'].map((id) => document.getElementById(id).getAttribute('aria-live')),
    );
    expectEq('results are aria-live', live, ['polite', 'polite', 'polite']);
    await page.focus('#lang');
    const seen = new Set();
    for (let i = 0; i < 80; i++) {
      await page.keyboard.press('Tab');
      seen.add(await page.evaluate(() => document.activeElement.id));
    }
    const need = ['model-search', 'model', 'method', 'gpu', 'seq_len', 'run'];
    expectEq('keyboard reaches the form and the button', need.filter((id) => !seen.has(id)), []);
    expectEq('text contrast >= 4.5:1 (3:1 large)', await contrastFailures(page), []);
  });

  // 8. Russian: by ?lang=, by navigator.language, and the switch.
  await step('russian', async () => {
    const dict = await page.evaluate(() => window.gpuplan.I18N);
    const en = Object.keys(dict.en).sort();
    const ru = Object.keys(dict.ru).sort();
    expectEq('both languages have the same keys', ru.filter((k) => !en.includes(k)).concat(
      en.filter((k) => !ru.includes(k))), []);
    const untranslated = await page.evaluate(() =>
      [...document.querySelectorAll('[data-i18n]')].map((n) => n.dataset.i18n)
        .filter((k) => !(k in window.gpuplan.I18N.en)),
    );
    expectEq('every data-i18n key is in the dictionary', [...new Set(untranslated)], []);
    await page.selectOption('#lang', 'ru');
    expectEq('switch: label in Russian', await page.textContent('label[for="method"]'), dict.ru.method);
    expectEq('switch: html lang', await page.getAttribute('html', 'lang'), 'ru');
    await page.selectOption('#lang', 'en');
    expectEq('switch back', await page.textContent('label[for="method"]'), dict.en.method);

    const ruPage = await context.newPage();
    await ruPage.addInitScript(() => {
      Object.defineProperty(navigator, 'language', { get: () => 'ru-RU' });
      Object.defineProperty(navigator, 'languages', { get: () => ['ru-RU', 'ru'] });
    });
    await ruPage.goto(base);
    await waitCatalog(ruPage);
    expectEq('default from navigator.language', await ruPage.getAttribute('html', 'lang'), 'ru');
    await chooseModel(ruPage, 'llama-3.1-8b');
    await ruPage.selectOption('#method', 'qlora');
    await ruPage.selectOption('#gpu', 'h100-sxm');
    const body = await submitAndCapture(ruPage, () => ruPage.click('#run'));
    const api = await apiPost(base, '/v1/estimate', body);
    await checkEstimateShown(ruPage, 'ru', api.json);
    expectTrue('verdict in Russian', /ПОМЕЩАЕТСЯ/.test(await ruPage.textContent('#verdict')),
      await ruPage.textContent('#verdict'));
    await ruPage.screenshot({ path: path.join(OUT, 'estimate-ru.png'), fullPage: true });
    await ruPage.close();
  });

  // 9. A phone: 360 px wide, no horizontal scrolling, numbers still right.
  await step('phone', async () => {
    const phone = await context.newPage();
    await phone.setViewportSize({ width: 360, height: 740 });
    await phone.goto(new URL('/?lang=en', base).href);
    await waitCatalog(phone);
    await chooseModel(phone, 'llama-3.1-70b');
    await phone.selectOption('#method', 'qlora');
    await phone.selectOption('#gpu', 'a100-80gb-sxm');
    await phone.fill('#gpu_count', '2');
    const body = await submitAndCapture(phone, () => phone.click('#run'));
    const api = await apiPost(base, '/v1/estimate', body);
    await checkEstimateShown(phone, 'phone', api.json);
    const width = await phone.evaluate(() => document.documentElement.scrollWidth);
    expectTrue('no horizontal scrolling at 360 px', width <= 360, `page is ${width} px wide`);
    const tooSmall = await phone.evaluate(() =>
      [...document.querySelectorAll('button, select, input:not([type=checkbox])')]
        .filter((e) => e.getClientRects().length && e.getBoundingClientRect().height < 24)
        .map((e) => e.id || e.textContent),
    );
    expectEq('touch targets at least 24 px high', tooSmall, []);
    await phone.screenshot({ path: path.join(OUT, 'phone.png'), fullPage: true });
    await phone.close();
  });

  expectEq('no script errors or CSP violations', pageErrors, []);
}

const started = Date.now();
try {
  await main();
} catch (e) {
  fail('browser test', (e && e.stack) || String(e));
}
console.log(`browser test took ${((Date.now() - started) / 1000).toFixed(1)} s; screenshots in ${OUT}`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
