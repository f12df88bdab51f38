/*
 * accuracy_serving.c - score the serving model (include/gpuplan/serving.h)
 * against validation/serving.csv: published engine logs and benchmarks.
 *
 *   accuracy_serving [--csv validation/serving.csv] [--catalog DIR]
 *                    [--max-kv-median PCT --max-kv-p90 PCT] [--max-tpot-median PCT]
 *                    [--target-kv-median PCT --target-kv-p90 PCT]
 *                    [--engine vllm|sglang|nim] [--fit]
 *
 * For every usable row: load the model (a catalog id or a config path in the
 * repository), the GPU (catalog; a row with only a logged device total gets
 * a stand-in GPU of that memory), fill a struct gpuplan_serving_request from
 * the row's engine flags, and predict:
 *   - weights per rank ("Model loading took", SGLang "mem usage");
 *   - KV capacity: the logged "GPU KV cache size" / "#tokens" when the row
 *     has it, else the logged "Available KV cache memory";
 *   - max concurrency (printed, not summarised: it follows the capacity);
 *   - TPOT (steady state at the row's concurrency; "e2e" rows compare the
 *     whole latency / output tokens, prefill included) and TTFT at
 *     concurrency 1. TPOT twice: out of sample (the headline: the two step
 *     constants fitted on the rows the `fit` column marks are refitted
 *     without the row's source, a repository or a URL's host, as
 *     serving_time.c fits them) and in sample (the constants as fitted).
 * Prints each row's error, the median and p90 of |error| per engine and
 * overall, and the rows that miss (KV > 8 %, weights > 3 %, TPOT > 25 %)
 * with the row's notes, which say what the model leaves out.
 * With --max-* thresholds (the gates of tests/suites/accuracy_serving.sh):
 * one "suite:" line per gate and "N passed, N failed"; exit 1 when a gate
 * fails, 2 on usage or input errors. --target-* (what `make accuracy`
 * passes) only reports whether issue 17's target is met, per engine and
 * overall, and leaves the exit status alone.
 * --engine keeps only that engine's rows (the gates then apply to them).
 * --fit: each TPOT row's implied per-layer fixed cost (dense) or MoE
 * per-layer cost, the numbers src/lib/estimate/serving_time.c is set from.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/gpuplan.h"
#include "gpuplan/serving.h"
#include "gpuplan/units.h"

#define MAX_COLS  64
#define MAX_FIELD 1024
#define MAX_ROWS  1024

#define MISS_KV_PCT      8.0
#define MISS_WEIGHTS_PCT 3.0
#define MISS_TIME_PCT    25.0

struct row {
    char f[MAX_COLS][MAX_FIELD];
    int n;
};

/* One RFC-4180 record; returns false at EOF. Fields longer than MAX_FIELD are truncated. */
static bool read_record(FILE *in, struct row *r)
{
    int c = fgetc(in);
    if (c == EOF)
        return false;
    r->n = 0;
    size_t len = 0;
    bool quoted = false;
    r->f[0][0] = 0;
    for (;; c = fgetc(in)) {
        if (c == EOF || (!quoted && (c == '\n' || c == ','))) {
            if (r->n < MAX_COLS)
                r->f[r->n][len < MAX_FIELD ? len : MAX_FIELD - 1] = 0;
            r->n++;
            len = 0;
            if (c != ',')
                break;
            if (r->n < MAX_COLS)
                r->f[r->n][0] = 0;
            continue;
        }
        if (c == '"') {
            if (quoted) {
                const int next = fgetc(in);
                if (next == '"') {
                    c = '"';
                } else {
                    quoted = false;
                    if (next != EOF)
                        ungetc(next, in);
                    continue;
                }
            } else if (len == 0) {
                quoted = true;
                continue;
            }
        }
        if (c == '\r' && !quoted)
            continue;
        if (r->n < MAX_COLS && len + 1 < MAX_FIELD)
            r->f[r->n][len++] = (char)c;
    }
    if (r->n > MAX_COLS)
        r->n = MAX_COLS;
    return true;
}

static const struct row *g_header;

static const char *field(const struct row *r, const char *name)
{
    for (int i = 0; i < g_header->n && i < r->n; i++)
        if (strcmp(g_header->f[i], name) == 0)
            return r->f[i];
    return "";
}

static double num(const struct row *r, const char *name)
{
    double v = 0;
    const char *t = field(r, name);
    return t[0] && gpuplan_parse_double(t, &v) ? v : 0.0;
}

/* |error| lists per metric and engine; engines: 0 vllm, 1 sglang, 2 other (nim), 3 all. */
/* M_TPOT_LOSO: each TPOT row predicted with the two step constants refitted without its
 * source (the headline); M_TPOT: with the constants as fitted on every source (in sample). */
enum metric { M_KV = 0, M_WEIGHTS, M_TPOT_LOSO, M_TPOT, M_TTFT, M_COUNT };
static const char *const metric_names[M_COUNT] = { "KV capacity", "weights", "TPOT held out",
                                                   "TPOT in sample", "TTFT" };
static const char *const engine_names[4] = { "vllm", "sglang", "nim", "all" };

struct tally {
    double v[M_COUNT][4][MAX_ROWS];
    size_t n[M_COUNT][4];
};

static void add(struct tally *t, enum metric m, int engine, double err_pct)
{
    const double a = fabs(err_pct);
    const int slots[2] = { engine, 3 };
    for (int i = 0; i < 2; i++) {
        if (t->n[m][slots[i]] < MAX_ROWS)
            t->v[m][slots[i]][t->n[m][slots[i]]++] = a;
    }
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Nearest-rank percentile of a sorted array (as tools/accuracy.c). */
static double percentile(const double *v, size_t n, double pct)
{
    if (n == 0)
        return NAN;
    size_t k = (size_t)ceil(pct / 100.0 * (double)n);
    return v[(k < 1 ? 1 : k) - 1];
}

static double median(const double *v, size_t n)
{
    if (n == 0)
        return NAN;
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

static double pct_err(double predicted, double measured)
{
    return 100.0 * (predicted - measured) / measured;
}

/* A missed row, printed after the summary with its notes. */
struct miss {
    char line[MAX_FIELD + 128];
};
static struct miss misses[MAX_ROWS];
static size_t n_misses;

static void note_miss(const struct row *r, const char *what, double err)
{
    if (n_misses >= MAX_ROWS)
        return;
    (void)snprintf(misses[n_misses++].line, sizeof misses[0].line, "%s %s %+.1f %%: %s",
                   field(r, "id"), what, err, field(r, "notes"));
}

static int engine_slot(const char *engine)
{
    return strcmp(engine, "vllm") == 0 ? 0 : strcmp(engine, "sglang") == 0 ? 1 : 2;
}

static bool
fill_request(const struct row *r, struct gpuplan_serving_request *req, struct gpuplan_error *err)
{
    gpuplan_serving_request_init(req);
    const char *engine = field(r, "engine");
    req->engine = strcmp(engine, "sglang") == 0 ? GPUPLAN_SERVING_SGLANG : GPUPLAN_SERVING_VLLM;
    if (strcmp(engine, "nim") != 0)
        (void)snprintf(req->engine_version, sizeof req->engine_version, "%s",
                       field(r, "engine_version"));
    req->offline = strcmp(field(r, "offline"), "yes") == 0;
    req->enforce_eager = strcmp(field(r, "enforce_eager"), "yes") == 0;
    req->memory_fraction = num(r, "memory_fraction");
    req->max_model_len = (uint64_t)num(r, "max_model_len");
    req->max_num_seqs = (uint32_t)num(r, "max_num_seqs");
    req->max_num_batched_tokens = (uint64_t)num(r, "max_num_batched_tokens");
    req->tp = num(r, "tp") > 0 ? (uint32_t)num(r, "tp") : 1;
    req->pp = num(r, "pp") > 0 ? (uint32_t)num(r, "pp") : 1;
    req->ep = num(r, "ep") > 0 ? (uint32_t)num(r, "ep") : 1;
    req->device_total_bytes =
        gpuplan_bytes_from_double(num(r, "device_total_gib") * (double)GPUPLAN_BYTES_PER_GIB);
    req->device_free_bytes =
        gpuplan_bytes_from_double(num(r, "device_free_gib") * (double)GPUPLAN_BYTES_PER_GIB);
    const char *kv = field(r, "kv_dtype");
    if (kv[0] && gpuplan_serving_kv_dtype_from_name(kv, &req->kv_dtype, err) != GPUPLAN_OK)
        return false;
    const char *w = field(r, "weights_format");
    if (w[0]) {
        static const struct {
            const char *name;
            enum gpuplan_dtype dtype;
        } formats[] = { { "fp8", GPUPLAN_DTYPE_F8_E4M3 }, { "awq4", GPUPLAN_DTYPE_AWQ4 },
                        { "gptq4", GPUPLAN_DTYPE_GPTQ4 }, { "mxfp4", GPUPLAN_DTYPE_MXFP4 },
                        { "nvfp4", GPUPLAN_DTYPE_NVFP4 }, { "int8", GPUPLAN_DTYPE_INT8 } };
        req->weights_dtype = GPUPLAN_DTYPE_UNKNOWN;
        for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++)
            if (strcmp(w, formats[i].name) == 0)
                req->weights_dtype = formats[i].dtype;
        if (req->weights_dtype == GPUPLAN_DTYPE_UNKNOWN) {
            gpuplan_error_set(err, GPUPLAN_ERR_USAGE, NULL, "unknown weights_format '%s'", w);
            return false;
        }
    }
    return true;
}

/* A row's GPU: the catalog's, or a stand-in with the logged total (memory rows only). */
static const struct gpuplan_gpu *
row_gpu(const struct gpuplan_catalog *catalog, const struct row *r, struct gpuplan_gpu *standin)
{
    const char *ref = field(r, "gpu_ref");
    if (ref[0])
        return gpuplan_catalog_find_gpu(catalog, ref);
    const double total_gib = num(r, "device_total_gib") + num(r, "device_free_gib");
    if (total_gib <= 0)
        return NULL;
    memset(standin, 0, sizeof *standin);
    (void)snprintf(standin->id, sizeof standin->id, "logged-total");
    (void)snprintf(standin->name, sizeof standin->name, "GPU of the logged total");
    standin->memory_bytes = gpuplan_bytes_from_double(total_gib * (double)GPUPLAN_BYTES_PER_GIB);
    standin->vendor = GPUPLAN_VENDOR_NVIDIA;
    return standin;
}

static void score_memory(struct tally *t,
                         const struct row *r,
                         const struct gpuplan_serving_profile *profile,
                         const struct gpuplan_serving_request *req,
                         const struct gpuplan_gpu *gpu)
{
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    struct gpuplan_serving_memory m;
    if (gpuplan_serving_memory(profile, req, gpu, &m, &err) != GPUPLAN_OK) {
        printf("%-7s error: %s\n", field(r, "id"), err.message);
        return;
    }
    const int slot = engine_slot(field(r, "engine"));
    const double w_meas = num(r, "measured_weights_gib");
    if (w_meas > 0) {
        const double pred = (double)m.weights_bytes / (double)GPUPLAN_BYTES_PER_GIB;
        const double e = pct_err(pred, w_meas);
        printf("%-7s %-7s %-20s %-12s %12.4f %12.4f %+7.1f %%\n", field(r, "id"),
               field(r, "engine"), profile->model_id, "weights GiB", w_meas, pred, e);
        add(t, M_WEIGHTS, slot, e);
        if (fabs(e) > MISS_WEIGHTS_PCT)
            note_miss(r, "weights", e);
    }
    const double tok_meas = num(r, "measured_kv_tokens");
    const double kv_meas = num(r, "measured_available_kv_gib");
    double e = NAN;
    if (tok_meas > 0) {
        e = pct_err((double)m.kv_capacity_tokens, tok_meas);
        printf("%-7s %-7s %-20s %-12s %12.0f %12llu %+7.1f %%\n", field(r, "id"),
               field(r, "engine"), profile->model_id, "KV tokens", tok_meas,
               (unsigned long long)m.kv_capacity_tokens, e);
    } else if (kv_meas > 0) {
        const double pred = (double)m.kv_pool_bytes / (double)GPUPLAN_BYTES_PER_GIB;
        e = pct_err(pred, kv_meas);
        printf("%-7s %-7s %-20s %-12s %12.2f %12.2f %+7.1f %%\n", field(r, "id"),
               field(r, "engine"), profile->model_id, "KV GiB", kv_meas, pred, e);
    }
    if (!isnan(e)) {
        add(t, M_KV, slot, e);
        if (fabs(e) > MISS_KV_PCT)
            note_miss(r, "KV capacity", e);
    }
    const double c_meas = num(r, "measured_max_concurrency");
    if (c_meas > 0)
        printf("%-7s %-7s %-20s %-12s %12.2f %12.2f %+7.1f %%\n", field(r, "id"),
               field(r, "engine"), profile->model_id, "concurrency", c_meas, m.max_concurrency,
               pct_err(m.max_concurrency, c_meas));
}

/* Implied constants for the fit: the row's TPOT minus everything but the fitted term. */
static void print_fit(const struct row *r,
                      const struct gpuplan_serving_profile *profile,
                      const struct gpuplan_serving_step *s,
                      double measured_s)
{
    const double rest = measured_s - (s->step_s - s->layer_overhead_s - s->moe_s);
    if (profile->n_moe_layers > 0)
        printf("%-7s fit: MoE per-layer %.1f us (with the fixed per-layer cost %.1f us)\n",
               field(r, "id"), (rest - s->layer_overhead_s) / (double)profile->n_moe_layers * 1e6,
               s->layer_overhead_s / (double)profile->n_layers * 1e6);
    else
        printf("%-7s fit: fixed per-layer %.1f us\n", field(r, "id"),
               rest / (double)profile->n_layers * 1e6);
}

/*
 * A scored TPOT row, kept for the leave-one-source-out refit of the step
 * model's two fitted constants (LAYER_FIXED_S on the dense rows marked
 * fit=layer, MOE_LAYER_S on the rows marked fit=moe; serving_time.c).
 */
struct tpot_row {
    char id[16];
    char source[96]; /* the publisher: a repository, or a URL's host */
    int engine;      /* engine_slot() */
    int fit;         /* 0 none, 1 the per-layer constant's fit set, 2 the MoE constant's */
    bool e2e;
    double measured_s;
    struct gpuplan_serving_profile profile;
    struct gpuplan_serving_request req;
    struct gpuplan_gpu gpu; /* a copy (catalog GPU or stand-in) */
    struct gpuplan_serving_load load;
    /* one decode step at the row's steady concurrency, with the fitted constants */
    double step_s, layer_overhead_s, moe_s;
};
static struct tpot_row tpot_rows[MAX_ROWS / 8];
static size_t n_tpot_rows;

/* "tenstorrent/tt-inference-server#143 (date)" -> the repository; a URL -> its host. */
static void source_key(const char *source, char *out, size_t cap)
{
    const char *p = strstr(source, "://");
    p = p ? p + 3 : source;
    size_t n = strcspn(p, p == source ? "# (" : "/");
    if (n >= cap)
        n = cap - 1;
    memcpy(out, p, n);
    out[n] = '\0';
}

static void keep_tpot_row(const struct row *r,
                          const struct gpuplan_serving_profile *profile,
                          const struct gpuplan_serving_request *req,
                          const struct gpuplan_gpu *gpu,
                          const struct gpuplan_serving_load *load,
                          uint64_t concurrency)
{
    if (n_tpot_rows >= sizeof tpot_rows / sizeof tpot_rows[0])
        return;
    struct tpot_row *k = &tpot_rows[n_tpot_rows];
    struct gpuplan_serving_step s;
    const uint64_t ctx = load->input_tokens + load->output_tokens / 2;
    if (gpuplan_serving_step_time(profile, req, gpu, concurrency, ctx, 0, &s, NULL) != GPUPLAN_OK)
        return;
    (void)snprintf(k->id, sizeof k->id, "%s", field(r, "id"));
    source_key(field(r, "source"), k->source, sizeof k->source);
    k->engine = engine_slot(field(r, "engine"));
    const char *fit = field(r, "fit");
    k->fit = strcmp(fit, "layer") == 0 ? 1 : strcmp(fit, "moe") == 0 ? 2 : 0;
    k->e2e = strcmp(field(r, "tpot_kind"), "e2e") == 0;
    k->measured_s = num(r, "tpot_ms") / 1e3;
    k->profile = *profile;
    k->req = *req;
    k->gpu = *gpu;
    k->load = *load;
    k->step_s = s.step_s;
    k->layer_overhead_s = s.layer_overhead_s;
    k->moe_s = s.moe_s;
    n_tpot_rows++;
}

static void score_time(struct tally *t,
                       const struct row *r,
                       const struct gpuplan_serving_profile *profile,
                       const struct gpuplan_serving_request *req,
                       const struct gpuplan_gpu *gpu,
                       bool fit)
{
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    struct gpuplan_serving_memory m;
    struct gpuplan_serving_request mreq = *req;
    if (mreq.engine_version[0] == '\0' && strcmp(field(r, "engine"), "nim") == 0)
        mreq.engine = GPUPLAN_SERVING_VLLM;
    if (gpuplan_serving_memory(profile, &mreq, gpu, &m, &err) != GPUPLAN_OK) {
        printf("%-7s error: %s\n", field(r, "id"), err.message);
        return;
    }
    struct gpuplan_serving_load load = { (uint64_t)num(r, "input_len"),
                                         (uint64_t)num(r, "output_len"),
                                         (uint64_t)num(r, "concurrency") };
    if (load.concurrency == 0)
        load.concurrency = 1;
    struct gpuplan_serving_steady ss;
    if (gpuplan_serving_steady_state(profile, &mreq, gpu, &m, &load, &ss, &err) != GPUPLAN_OK) {
        printf("%-7s error: %s\n", field(r, "id"), err.message);
        return;
    }
    const int slot = engine_slot(field(r, "engine"));
    const double tpot_meas = num(r, "tpot_ms");
    if (tpot_meas > 0) {
        double pred = ss.tpot_s * 1e3;
        if (strcmp(field(r, "tpot_kind"), "e2e") == 0 && load.output_tokens > 0)
            pred = (ss.ttft_s + (double)(load.output_tokens - 1) * ss.tpot_s) * 1e3 /
                   (double)load.output_tokens;
        const double e = pct_err(pred, tpot_meas);
        printf("%-7s %-7s %-20s %-12s %12.2f %12.2f %+7.1f %%  (c=%llu)\n", field(r, "id"),
               field(r, "engine"), profile->model_id, "TPOT ms", tpot_meas, pred, e,
               (unsigned long long)ss.concurrency);
        add(t, M_TPOT, slot, e);
        if (fabs(e) > MISS_TIME_PCT)
            note_miss(r, "TPOT", e);
        keep_tpot_row(r, profile, &mreq, gpu, &load, ss.concurrency);
        if (fit) {
            struct gpuplan_serving_step s;
            const uint64_t ctx = load.input_tokens + load.output_tokens / 2;
            if (gpuplan_serving_step_time(profile, &mreq, gpu, ss.concurrency, ctx, 0, &s, &err) ==
                GPUPLAN_OK)
                print_fit(r, profile, &s, tpot_meas / 1e3);
        }
    }
    const double ttft_meas = num(r, "ttft_ms");
    if (ttft_meas > 0 && load.concurrency == 1) {
        const double e = pct_err(ss.ttft_s * 1e3, ttft_meas);
        printf("%-7s %-7s %-20s %-12s %12.2f %12.2f %+7.1f %%\n", field(r, "id"),
               field(r, "engine"), profile->model_id, "TTFT ms", ttft_meas, ss.ttft_s * 1e3, e);
        add(t, M_TTFT, slot, e);
        if (fabs(e) > MISS_TIME_PCT)
            note_miss(r, "TTFT", e);
    }
}

static int
score_row(struct tally *t, const struct gpuplan_catalog *catalog, const struct row *r, bool fit)
{
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    struct gpuplan_gpu standin;
    const struct gpuplan_gpu *gpu = row_gpu(catalog, r, &standin);
    if (!gpu) {
        printf("%-7s skipped: GPU '%s' not in the catalog\n", field(r, "id"), field(r, "gpu_ref"));
        return 0;
    }
    struct gpuplan_model model;
    gpuplan_model_init(&model);
    struct gpuplan_serving_profile profile;
    struct gpuplan_serving_request req;
    if (gpuplan_model_load(&model, field(r, "model_ref"), catalog, &err) != GPUPLAN_OK ||
        gpuplan_serving_profile_build(&profile, &model, &err) != GPUPLAN_OK ||
        !fill_request(r, &req, &err)) {
        printf("%-7s error: %s\n", field(r, "id"), err.message);
        gpuplan_model_release(&model);
        return 1;
    }
    gpuplan_model_release(&model);
    if (strcmp(field(r, "engine"), "nim") != 0)
        score_memory(t, r, &profile, &req, gpu);
    if (num(r, "tpot_ms") > 0 || num(r, "ttft_ms") > 0)
        score_time(t, r, &profile, &req, gpu, fit);
    return 0;
}

static double median_of(double *v, size_t n)
{
    qsort(v, n, sizeof v[0], cmp_double);
    return median(v, n);
}

/* The per-layer constant one row implies: its TPOT less every other term, per layer. */
static double implied_layer_s(const struct tpot_row *k)
{
    const double rest = k->measured_s - (k->step_s - k->layer_overhead_s - k->moe_s);
    return rest / (double)k->profile.n_layers;
}

/* The MoE constant one row implies, given the per-layer one. */
static double implied_moe_s(const struct tpot_row *k, double layer_s)
{
    const double rest = k->measured_s - (k->step_s - k->layer_overhead_s - k->moe_s);
    return (rest - layer_s * (double)k->profile.n_layers) / (double)k->profile.n_moe_layers;
}

/* A row's TPOT (or e2e latency per token) with the given constants; NAN on error. */
static double predict_tpot_s(const struct tpot_row *k, double layer_s, double moe_s)
{
    struct gpuplan_serving_request req = k->req;
    req.layer_fixed_s = layer_s;
    req.moe_layer_s = moe_s;
    struct gpuplan_serving_memory m;
    struct gpuplan_serving_steady ss;
    if (gpuplan_serving_memory(&k->profile, &req, &k->gpu, &m, NULL) != GPUPLAN_OK ||
        gpuplan_serving_steady_state(&k->profile, &req, &k->gpu, &m, &k->load, &ss, NULL) !=
            GPUPLAN_OK)
        return NAN;
    if (k->e2e && k->load.output_tokens > 0)
        return (ss.ttft_s + (double)(k->load.output_tokens - 1) * ss.tpot_s) /
               (double)k->load.output_tokens;
    return ss.tpot_s;
}

/*
 * Leave one source out: for each publisher of TPOT rows, refit the two
 * constants as serving_time.c was fitted (the median implied value over the
 * fit rows: per-layer first, then MoE given it) on the other publishers'
 * rows, and predict that publisher's rows with them.
 */
static void leave_one_source_out(struct tally *t)
{
    static double layer[MAX_ROWS / 8], moe[MAX_ROWS / 8];
    printf("\nTPOT leave-one-source-out (the step constants refitted without each source):\n");
    for (size_t i = 0; i < n_tpot_rows; i++) {
        bool first = true;
        for (size_t j = 0; j < i; j++)
            first &= strcmp(tpot_rows[j].source, tpot_rows[i].source) != 0;
        if (!first)
            continue;
        const char *held = tpot_rows[i].source;
        size_t n_layer = 0, n_moe = 0;
        for (size_t j = 0; j < n_tpot_rows; j++) {
            if (tpot_rows[j].fit == 1 && strcmp(tpot_rows[j].source, held) != 0)
                layer[n_layer++] = implied_layer_s(&tpot_rows[j]);
        }
        const double layer_s = n_layer ? median_of(layer, n_layer) : 0.0;
        for (size_t j = 0; j < n_tpot_rows; j++) {
            if (tpot_rows[j].fit == 2 && strcmp(tpot_rows[j].source, held) != 0 &&
                tpot_rows[j].profile.n_moe_layers > 0)
                moe[n_moe++] = implied_moe_s(&tpot_rows[j], layer_s > 0 ? layer_s : 0.0);
        }
        const double moe_s = n_moe ? median_of(moe, n_moe) : 0.0;
        printf("  without %-32s per-layer %6.1f us (%zu rows), MoE %6.1f us (%zu rows):", held,
               layer_s * 1e6, n_layer, moe_s * 1e6, n_moe);
        for (size_t j = 0; j < n_tpot_rows; j++) {
            const struct tpot_row *k = &tpot_rows[j];
            if (strcmp(k->source, held) != 0)
                continue;
            /* a constant with no row left to fit it falls back to the fitted value (0) */
            const double pred =
                predict_tpot_s(k, layer_s > 0 ? layer_s : 0.0, moe_s > 0 ? moe_s : 0.0);
            if (isnan(pred))
                continue;
            const double e = pct_err(pred, k->measured_s);
            printf(" %s %+.1f %%", k->id, e);
            add(t, M_TPOT_LOSO, k->engine, e);
        }
        printf("\n");
    }
}

/* Issue 17's target per engine and overall: a report, not a gate. */
static void report_targets(const struct tally *t, double max_median, double max_p90)
{
    for (int e = 0; e < 4; e++) {
        const size_t n = t->n[M_KV][e];
        if (n == 0)
            continue;
        const double med = median(t->v[M_KV][e], n), p90 = percentile(t->v[M_KV][e], n, 90.0);
        const bool met = med <= max_median && p90 <= max_p90;
        printf("target: KV capacity %-6s median %.1f %% (<= %.1f), p90 %.1f %% (<= %.1f) over %zu "
               "rows: %s\n",
               engine_names[e], med, max_median, p90, max_p90, n, met ? "met" : "NOT met");
    }
}

static void summarise(struct tally *t, double kv_all[2])
{
    printf("\n%-14s %-7s %5s %9s %9s\n", "metric", "engine", "rows", "median", "p90");
    for (int m = 0; m < M_COUNT; m++) {
        for (int e = 0; e < 4; e++) {
            const size_t n = t->n[m][e];
            if (n == 0)
                continue;
            qsort(t->v[m][e], n, sizeof(double), cmp_double);
            const double med = median(t->v[m][e], n), p90 = percentile(t->v[m][e], n, 90.0);
            printf("%-14s %-7s %5zu %8.1f %% %8.1f %%\n", metric_names[m], engine_names[e], n, med,
                   p90);
            if (m == M_KV && e == 3) {
                kv_all[0] = med;
                kv_all[1] = p90;
            }
        }
    }
    printf("\nrows that miss (KV > %.0f %%, weights > %.0f %%, TPOT/TTFT > %.0f %%): %zu\n",
           MISS_KV_PCT, MISS_WEIGHTS_PCT, MISS_TIME_PCT, n_misses);
    for (size_t i = 0; i < n_misses; i++)
        printf("  %s\n", misses[i].line);
}

static int usage(void)
{
    fprintf(stderr, "usage: accuracy_serving [--csv FILE] [--catalog DIR] [--max-kv-median PCT "
                    "--max-kv-p90 PCT] [--max-tpot-median PCT] [--target-kv-median PCT "
                    "--target-kv-p90 PCT] [--engine NAME] [--fit]\n");
    return 2;
}

int main(int argc, char **argv)
{
    const char *csv = "validation/serving.csv";
    const char *catalog_dir = NULL;
    const char *only_engine = NULL;
    double max_kv_median = -1, max_kv_p90 = -1, max_tpot_median = -1;
    double target_kv_median = -1, target_kv_p90 = -1;
    bool fit = false;
    for (int i = 1; i < argc; i++) {
        double *target = strcmp(argv[i], "--max-kv-median") == 0      ? &max_kv_median
                         : strcmp(argv[i], "--max-kv-p90") == 0       ? &max_kv_p90
                         : strcmp(argv[i], "--max-tpot-median") == 0  ? &max_tpot_median
                         : strcmp(argv[i], "--target-kv-median") == 0 ? &target_kv_median
                         : strcmp(argv[i], "--target-kv-p90") == 0    ? &target_kv_p90
                                                                      : NULL;
        if (target && i + 1 < argc) {
            if (!gpuplan_parse_double(argv[++i], target))
                return usage();
        } else if (strcmp(argv[i], "--csv") == 0 && i + 1 < argc) {
            csv = argv[++i];
        } else if (strcmp(argv[i], "--engine") == 0 && i + 1 < argc) {
            only_engine = argv[++i];
        } else if (strcmp(argv[i], "--catalog") == 0 && i + 1 < argc) {
            catalog_dir = argv[++i];
        } else if (strcmp(argv[i], "--fit") == 0) {
            fit = true;
        } else {
            return usage();
        }
    }
    FILE *in = fopen(csv, "r");
    if (!in) {
        perror(csv);
        return 2;
    }
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    struct gpuplan_catalog *catalog = NULL;
    if (gpuplan_catalog_load(&catalog, catalog_dir, &err) != GPUPLAN_OK) {
        fprintf(stderr, "accuracy_serving: %s\n", err.message);
        fclose(in);
        return 2;
    }
    static struct row header, r;
    static struct tally t;
    int failures = 0;
    g_header = &header;
    if (!read_record(in, &header) || strcmp(header.f[0], "id") != 0) {
        fprintf(stderr, "accuracy_serving: %s: no header starting with 'id'\n", csv);
        fclose(in);
        gpuplan_catalog_free(catalog);
        return 2;
    }
    printf("%-7s %-7s %-20s %-12s %12s %12s %9s\n", "row", "engine", "model", "figure", "measured",
           "predicted", "error");
    size_t n_usable = 0, n_rows = 0;
    while (read_record(in, &r)) {
        if (r.n < 2)
            continue;
        n_rows++;
        if (strcmp(field(&r, "usable"), "yes") != 0 ||
            (only_engine && strcmp(field(&r, "engine"), only_engine) != 0))
            continue;
        n_usable++;
        failures += score_row(&t, catalog, &r, fit);
    }
    fclose(in);
    gpuplan_catalog_free(catalog);
    printf("\n%zu rows, %zu usable\n", n_rows, n_usable);
    double kv[2] = { NAN, NAN };
    leave_one_source_out(&t);
    summarise(&t, kv);
    const size_t n_out = t.n[M_TPOT_LOSO][3], n_in = t.n[M_TPOT][3];
    if (n_out > 0)
        printf("\nheadline: TPOT out of sample (leave one source out) median %.1f %%, p90 %.1f %% "
               "over %zu rows; in sample median %.1f %%, p90 %.1f %%\n",
               median(t.v[M_TPOT_LOSO][3], n_out), percentile(t.v[M_TPOT_LOSO][3], n_out, 90.0),
               n_out, median(t.v[M_TPOT][3], n_in), percentile(t.v[M_TPOT][3], n_in, 90.0));
    if (target_kv_median >= 0 && target_kv_p90 >= 0)
        report_targets(&t, target_kv_median, target_kv_p90);
    size_t tp = 0, tf = 0;
    if (failures) {
        printf("suite: %d usable rows could not be predicted\n", failures);
        tf++;
    }
    if (max_kv_median >= 0 && max_kv_p90 >= 0) {
        const bool ok = kv[0] <= max_kv_median && kv[1] <= max_kv_p90;
        printf("suite: KV capacity median %.1f %% (<= %.1f), p90 %.1f %% (<= %.1f): %s\n", kv[0],
               max_kv_median, kv[1], max_kv_p90, ok ? "ok" : "FAIL");
        ok ? tp++ : tf++;
    }
    if (max_tpot_median >= 0) {
        const size_t n = t.n[M_TPOT][3];
        const double med = median(t.v[M_TPOT][3], n);
        const bool ok = n > 0 && med <= max_tpot_median;
        printf("suite: TPOT median %.1f %% (<= %.1f): %s\n", med, max_tpot_median,
               ok ? "ok" : "FAIL");
        ok ? tp++ : tf++;
    }
    if (max_kv_median >= 0 || max_tpot_median >= 0 || failures)
        printf("%zu passed, %zu failed\n", tp, tf);
    return tf ? 1 : 0;
}
