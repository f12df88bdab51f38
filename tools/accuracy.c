/*
 * accuracy.c - score the memory model against validation/measurements.csv.
 *
 * For every usable memory row: build the job from the row's settings,
 * predict, and compare with the published figure by memory kind:
 *   allocated, active -> peak_allocated;  reserved -> peak_reserved;
 *   smi -> device_total (reserved + CUDA context + NCCL);
 *   unknown -> two rules, both printed:
 *     "band" (the gated rule): the source did not say which figure it
 *       reports, so any of PyTorch's allocated peak, its reserved peak, or
 *       the device total nvidia-smi shows is a correct reading; the error
 *       is 0 when the figure lies in [predicted allocated, predicted device
 *       total] and the distance to the nearer end otherwise;
 *     "reserved": compared with predicted reserved alone (stricter, shown
 *       for comparison).
 * Rows measured with torch.compile are scored like the others (the model
 * derives what AOTAutograd's partitioner saves, docs/formulas.md
 * "torch.compile") and also summarised apart.
 * OOM rows are right when the prediction exceeds the GPU; "fits" rows when
 * it does not. Rows with options gpuplan does not model are excluded with
 * the reason. The simple rules users rely on (LlamaFactory's table, 18
 * B/param, accelerate's estimate-memory) are scored on the same rows.
 *
 * usage: accuracy [--csv FILE] [--catalog DIR] [--max-median PCT --max-p90 PCT] [--verbose]
 * Exit 0; with thresholds, prints "N passed, N failed" and exits 1 on failure.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gpuplan/catalog.h"
#include "gpuplan/estimate.h"
#include "gpuplan/job.h"
#include "gpuplan/model.h"
#include "gpuplan/units.h"

/* CSV cells were checked by tests/suites/measurements_csv.sh; an empty or bad cell reads 0. */
static int csv_int(const char *text)
{
    char *end = NULL;
    const long v = strtol(text, &end, 10);
    return end == text || v < INT_MIN || v > INT_MAX ? 0 : (int)v;
}

static double csv_double(const char *text)
{
    char *end = NULL;
    const double v = strtod(text, &end);
    return end == text || !isfinite(v) ? 0.0 : v;
}

#define MAX_FIELDS 64
#define MAX_ROWS   1024

struct csv_row {
    char *field[MAX_FIELDS];
    int n;
};

/* RFC 4180: quoted fields with "" escapes and embedded newlines. Parses in place. */
static char *csv_next_row(char *p, struct csv_row *row)
{
    row->n = 0;
    if (!*p)
        return NULL;
    for (;;) {
        char *start = p, *w = p;
        if (*p == '"') {
            p++;
            for (;;) {
                if (!*p)
                    break;
                if (*p == '"' && p[1] == '"') {
                    *w++ = '"';
                    p += 2;
                } else if (*p == '"') {
                    p++;
                    break;
                } else {
                    *w++ = *p++;
                }
            }
        } else {
            while (*p && *p != ',' && *p != '\n' && *p != '\r')
                *w++ = *p++;
        }
        const char end = *p;
        *w = '\0';
        if (row->n < MAX_FIELDS)
            row->field[row->n++] = start;
        if (end == ',') {
            p++;
            continue;
        }
        if (end == '\r')
            p++;
        if (*p == '\n')
            p++;
        return p;
    }
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    const long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *data = size >= 0 ? malloc((size_t)size + 1) : NULL;
    if (data && fread(data, 1, (size_t)size, f) != (size_t)size) {
        free(data);
        data = NULL;
    }
    fclose(f);
    if (data)
        data[size] = '\0';
    return data;
}

struct header {
    char *names[MAX_FIELDS];
    int n;
};

static const char *col(const struct header *h, const struct csv_row *r, const char *name)
{
    for (int i = 0; i < h->n && i < r->n; i++) {
        if (strcmp(h->names[i], name) == 0)
            return r->field[i];
    }
    return "";
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Nearest-rank percentile of a sorted array. */
static double percentile(const double *v, size_t n, double pct)
{
    if (n == 0)
        return NAN;
    size_t k = (size_t)ceil(pct / 100.0 * (double)n);
    if (k < 1)
        k = 1;
    return v[k - 1];
}

static double median(const double *v, size_t n)
{
    if (n == 0)
        return NAN;
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

static double unit_bytes(const char *unit)
{
    if (strcmp(unit, "GB") == 0)
        return (double)GPUPLAN_BYTES_PER_GB;
    if (strcmp(unit, "GiB") == 0)
        return (double)GPUPLAN_BYTES_PER_GIB;
    if (strcmp(unit, "MB") == 0)
        return (double)GPUPLAN_BYTES_PER_MB;
    if (strcmp(unit, "MiB") == 0)
        return (double)GPUPLAN_BYTES_PER_MIB;
    return 0.0;
}

/* Apply one CSV setting through the option table; returns false with a reason. */
static bool
set_opt(struct gpuplan_job *job, const char *name, const char *value, char *why, size_t why_size)
{
    if (!value[0])
        return true;
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    if (gpuplan_job_set(job, name, value, &err) != GPUPLAN_OK) {
        snprintf(why, why_size, "%.200s", err.message);
        return false;
    }
    return true;
}

/* Simple rules (calculators.md 1.1, 1.8, 1.10), per GPU, bytes. */
struct rules {
    double llamafactory, bytes18, accelerate;
};

static struct rules
simple_rules(const struct gpuplan_model *m, const struct gpuplan_job *job, double n_shard)
{
    const double p = (double)m->n_params_total;
    struct rules r;
    const bool pure = job->precision == GPUPLAN_PRECISION_BF16;
    switch (job->method) {
    case GPUPLAN_METHOD_FULL:
        r.llamafactory = (pure ? 8.0 : 18.0) * p; /* "18x GB" for x billion params = 18 B/param */
        r.bytes18 = 18.0 * p;
        r.accelerate = (job->precision == GPUPLAN_PRECISION_FP32 ? 16.0 : 8.0) * p;
        break;
    case GPUPLAN_METHOD_LORA:
        r.llamafactory = 2.0 * p;
        r.bytes18 = 2.0 * p;
        r.accelerate = (job->precision == GPUPLAN_PRECISION_FP32 ? 4.0 : 2.0) * p;
        break;
    default:
        r.llamafactory = (job->quant == GPUPLAN_DTYPE_INT8 ? 1.0 : 0.5) * p;
        r.bytes18 = 0.5 * p;
        r.accelerate = 0.5 * p;
        break;
    }
    r.llamafactory /= n_shard;
    r.bytes18 /= n_shard;
    r.accelerate /= n_shard;
    return r;
}

struct tally {
    double err[MAX_ROWS];
    size_t n;
};

static void add(struct tally *t, double e)
{
    if (t->n < MAX_ROWS)
        t->err[t->n++] = e;
}

static void summary(const char *name, struct tally *t, double *med_out, double *p90_out)
{
    qsort(t->err, t->n, sizeof t->err[0], cmp_double);
    const double med = median(t->err, t->n), p90 = percentile(t->err, t->n, 90.0);
    printf("  %-42s rows %3zu  median %6.1f %%  p90 %6.1f %%\n", name, t->n, med, p90);
    if (med_out)
        *med_out = med;
    if (p90_out)
        *p90_out = p90;
}

int main(int argc, char **argv)
{
    const char *csv_path = "validation/measurements.csv", *catalog_dir = NULL;
    double max_median = -1.0, max_p90 = -1.0;
    bool verbose = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--verbose") == 0)
            verbose = true;
        else if (i + 1 >= argc)
            break;
        else if (strcmp(argv[i], "--csv") == 0)
            csv_path = argv[++i];
        else if (strcmp(argv[i], "--catalog") == 0)
            catalog_dir = argv[++i];
        else if (strcmp(argv[i], "--max-median") == 0)
            max_median = csv_double(argv[++i]);
        else if (strcmp(argv[i], "--max-p90") == 0)
            max_p90 = csv_double(argv[++i]);
    }
    char *text = slurp(csv_path);
    if (!text) {
        fprintf(stderr, "accuracy: cannot read '%s'\n", csv_path);
        puts("0 passed, 1 failed");
        return 1;
    }
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    struct gpuplan_catalog *catalog = NULL;
    if (gpuplan_catalog_load(&catalog, catalog_dir, &err) != GPUPLAN_OK) {
        fprintf(stderr, "accuracy: %s\n", err.message);
        free(text);
        puts("0 passed, 1 failed");
        return 1;
    }
    struct csv_row row;
    struct header h;
    char *p = csv_next_row(text, &row);
    h.n = row.n;
    memcpy(h.names, row.field, sizeof(char *) * (size_t)row.n);

    static struct tally primary, band, alloc_kind, reserved_kind, unknown_kind, lf, b18, acc, even,
        odd, eager_band, compiled_band, host_ram;
    int oom_right = 0, oom_total = 0, excluded = 0;
    printf("%-8s %-15s %-6s %-9s %10s %10s %10s %10s %8s %8s  %s\n", "row", "model", "method",
           "kind", "measured", "pred_alloc", "pred_res", "pred_dev", "res_err%", "band%",
           "llamafactory/18B/accelerate err%");
    while (p && (p = csv_next_row(p, &row)) != NULL) {
        if (row.n < h.n)
            continue;
        const char *id = col(&h, &row, "row_id"), *ref = col(&h, &row, "model_ref");
        const char *outcome = col(&h, &row, "outcome"), *kind = col(&h, &row, "memory_kind");
        const char *method = col(&h, &row, "method");
        const bool is_mem = col(&h, &row, "memory_value")[0] || strcmp(outcome, "oom") == 0 ||
                            strcmp(outcome, "fits") == 0;
        if (!is_mem)
            continue;
        char why[640] = "";
        if (strcmp(col(&h, &row, "usable"), "yes") != 0)
            snprintf(why, sizeof why, "usable=no");
        else if (strcmp(method, "dora") == 0)
            snprintf(why, sizeof why, "DoRA not modelled");
        else if (!ref[0])
            snprintf(why, sizeof why, "no model_ref");
        else if (!col(&h, &row, "seq_len")[0] || !col(&h, &row, "micro_batch")[0])
            snprintf(why, sizeof why, "seq_len or micro_batch n/s");
        else if (strcmp(col(&h, &row, "cp"), "") != 0 && csv_int(col(&h, &row, "cp")) > 1)
            snprintf(why, sizeof why, "context parallelism not modelled");
        const struct gpuplan_catalog_model *cm =
            why[0] ? NULL : gpuplan_catalog_find_model(catalog, ref);
        if (!why[0] && (!cm || !cm->config_json))
            snprintf(why, sizeof why, "model '%s' not in the catalog", ref);
        struct gpuplan_model model;
        gpuplan_model_init(&model);
        if (!why[0] && gpuplan_model_from_hf_config(&model, (const uint8_t *)cm->config_json,
                                                    cm->config_json_len, ref, &err) != GPUPLAN_OK)
            snprintf(why, sizeof why, "model: %.200s", err.message);
        struct gpuplan_job job;
        gpuplan_job_init(&job);
        char targets[256];
        snprintf(targets, sizeof targets, "%s", col(&h, &row, "lora_targets"));
        for (char *t = targets; *t; t++)
            *t = *t == ';' ? ',' : *t;
        const char *gpu_ref = col(&h, &row, "gpu_ref");
        const int n_gpus = csv_int(col(&h, &row, "n_gpus")),
                  nodes = csv_int(col(&h, &row, "nodes"));
        char gpu_text[96];
        snprintf(gpu_text, sizeof gpu_text, "%s:%d", gpu_ref[0] ? gpu_ref : "none",
                 n_gpus > 0 && nodes > 0 ? n_gpus / nodes : 1);
        const char *ckpt = col(&h, &row, "grad_ckpt");
        if (!why[0]) {
            bool ok =
                set_opt(&job, "method", method, why, sizeof why) &&
                set_opt(&job, "precision", col(&h, &row, "precision"), why, sizeof why) &&
                set_opt(&job, "optimizer", col(&h, &row, "optimizer"), why, sizeof why) &&
                set_opt(&job, "optim-in-bwd", col(&h, &row, "optim_in_bwd"), why, sizeof why) &&
                set_opt(&job, "seq-len", col(&h, &row, "seq_len"), why, sizeof why) &&
                set_opt(&job, "micro-batch", col(&h, &row, "micro_batch"), why, sizeof why) &&
                set_opt(&job, "grad-accum", col(&h, &row, "grad_accum"), why, sizeof why) &&
                set_opt(&job, "grad-ckpt", ckpt, why, sizeof why) &&
                set_opt(&job, "attention", col(&h, &row, "attention"), why, sizeof why) &&
                set_opt(&job, "lora-rank", col(&h, &row, "lora_rank"), why, sizeof why) &&
                set_opt(&job, "lora-dropout", col(&h, &row, "lora_dropout"), why, sizeof why) &&
                (strcmp(method, "full") == 0 ||
                 set_opt(&job, "lora-targets", targets, why, sizeof why)) &&
                set_opt(&job, "quant", col(&h, &row, "quant"), why, sizeof why) &&
                set_opt(&job, "act-offload", col(&h, &row, "act_offload"), why, sizeof why) &&
                set_opt(&job, "chunked-ce", col(&h, &row, "chunked_ce"), why, sizeof why) &&
                set_opt(&job, "compile", col(&h, &row, "compile"), why, sizeof why) &&
                set_opt(&job, "gpu", gpu_text, why, sizeof why) &&
                set_opt(&job, "nodes", col(&h, &row, "nodes"), why, sizeof why) &&
                set_opt(&job, "sharding", col(&h, &row, "sharding"), why, sizeof why) &&
                set_opt(&job, "offload", col(&h, &row, "offload"), why, sizeof why) &&
                set_opt(&job, "fsdp-wrap", col(&h, &row, "fsdp_wrap"), why, sizeof why) &&
                set_opt(&job, "tp", col(&h, &row, "tp"), why, sizeof why) &&
                set_opt(&job, "pp", col(&h, &row, "pp"), why, sizeof why) &&
                /* Training-loop facts of the source's script (validation/README.md). */
                set_opt(&job, "keep-outputs", col(&h, &row, "keep_outputs"), why, sizeof why) &&
                set_opt(&job, "base-fp32", col(&h, &row, "base_fp32"), why, sizeof why);
            (void)ok;
        }
        const struct gpuplan_gpu *gpu =
            gpu_ref[0] ? gpuplan_catalog_find_gpu(catalog, gpu_ref) : NULL;
        if (why[0]) {
            printf("%-8s excluded: %s\n", id, why);
            excluded++;
            gpuplan_model_release(&model);
            continue;
        }
        struct gpuplan_memory_report *rep = calloc(1, sizeof *rep);
        if (!rep || gpuplan_estimate_memory(&model, &job, gpu, rep, &err) != GPUPLAN_OK) {
            printf("%-8s excluded: %s\n", id, rep ? err.message : "out of memory");
            excluded++;
            free(rep);
            gpuplan_model_release(&model);
            continue;
        }
        const struct gpuplan_memory_per_gpu *g = &rep->est.per_gpu;
        if (strcmp(outcome, "oom") == 0 || strcmp(outcome, "fits") == 0) {
            const bool want_oom = strcmp(outcome, "oom") == 0;
            if (!gpu) {
                const uint64_t usable =
                    48ULL * GPUPLAN_BYTES_PER_GB; /* row 116: "a single 48GB GPU" */
                const bool oom = g->device_total_bytes > usable;
                oom_total++;
                oom_right += oom == want_oom;
                printf("%-8s %-15s %-6s %-9s %10s %10.2f %10s  %s (48 GB GPU)\n", id, ref, method,
                       outcome, "-", gpuplan_gb_from_bytes(g->device_total_bytes), "-",
                       oom == want_oom ? "right" : "WRONG");
            } else {
                oom_total++;
                oom_right += rep->est.fits != want_oom;
                printf("%-8s %-15s %-6s %-9s %10s %10.2f %10s  %s (usable %.1f GB)\n", id, ref,
                       method, outcome, "-", gpuplan_gb_from_bytes(g->device_total_bytes), "-",
                       rep->est.fits != want_oom ? "right" : "WRONG",
                       gpuplan_gb_from_bytes(rep->est.gpu_usable_bytes));
            }
            free(rep);
            gpuplan_model_release(&model);
            continue;
        }
        const double measured =
            csv_double(col(&h, &row, "memory_value")) * unit_bytes(col(&h, &row, "memory_unit"));
        const double alloc = (double)g->peak_allocated_bytes, res = (double)g->peak_reserved_bytes;
        const double dev = (double)g->device_total_bytes;
        double pred = res;
        struct tally *by_kind = &unknown_kind;
        const bool unknown = strcmp(kind, "unknown") == 0;
        if (strcmp(kind, "allocated") == 0 || strcmp(kind, "active") == 0) {
            pred = alloc;
            by_kind = &alloc_kind;
        } else if (strcmp(kind, "reserved") == 0) {
            by_kind = &reserved_kind;
        } else if (strcmp(kind, "smi") == 0) {
            pred = dev;
            by_kind = &reserved_kind;
        }
        const double e = fabs(pred - measured) / measured * 100.0;
        /* band rule: an unknown-kind figure may be allocated, reserved or nvidia-smi. */
        double e_band = e;
        if (unknown)
            e_band = measured < alloc ? (alloc - measured) / measured * 100.0
                     : measured > dev ? (measured - dev) / measured * 100.0
                                      : 0.0;
        const char *compile = col(&h, &row, "compile");
        const bool is_compiled = strcmp(compile, "yes") == 0 || strcmp(compile, "blocks") == 0;
        const int num = csv_int(id + (strncmp(id, "GT-", 3) == 0 ? 3 : 0));
        const double n_shard = rep->est.shard_degree > 1 && job.sharding >= GPUPLAN_SHARDING_ZERO3
                                   ? (double)rep->est.shard_degree
                                   : 1.0;
        const struct rules rr = simple_rules(&model, &job, n_shard);
        const double e_lf = fabs(rr.llamafactory - measured) / measured * 100.0;
        const double e_18 = fabs(rr.bytes18 - measured) / measured * 100.0;
        const double e_acc = fabs(rr.accelerate - measured) / measured * 100.0;
        add(&primary, e);
        add(&band, e_band);
        add(by_kind, e);
        add(is_compiled ? &compiled_band : &eager_band, e_band);
        add(&lf, e_lf);
        add(&b18, e_18);
        add(&acc, e_acc);
        /* even/odd split by the row number, for constants fitted on one half */
        add(num % 2 == 0 ? &even : &odd, e_band);
        printf("%-8s %-15s %-6s %-9s %10.2f %10.2f %10.2f %10.2f %8.1f %8.1f  %.0f/%.0f/%.0f%s%s\n",
               id, ref, method, kind, measured / (double)GPUPLAN_BYTES_PER_GB,
               alloc / (double)GPUPLAN_BYTES_PER_GB, res / (double)GPUPLAN_BYTES_PER_GB,
               dev / (double)GPUPLAN_BYTES_PER_GB, e, e_band, e_lf, e_18, e_acc,
               is_compiled ? "  compile " : "", is_compiled ? compile : "");
        /* Host RAM, where the source gives it (not gated: the whole process's RSS). */
        const double host_gb = csv_double(col(&h, &row, "host_ram_gb"));
        if (host_gb > 0.0) {
            const double pred_gb = (double)rep->est.host_ram_bytes / (double)GPUPLAN_BYTES_PER_GB;
            add(&host_ram, fabs(pred_gb - host_gb) / host_gb * 100.0);
            printf("         host RAM per node: measured %.0f GB, predicted %.1f GB (offloaded "
                   "states and pinned buffers)\n",
                   host_gb, pred_gb);
        }
        if (verbose)
            printf(
                "         weights %.2f grads %.2f optim %.2f act %.2f adapters %.2f overhead %.2f "
                "context %.2f (GB)\n",
                (double)g->weights_bytes / (double)GPUPLAN_BYTES_PER_GB,
                (double)g->gradients_bytes / (double)GPUPLAN_BYTES_PER_GB,
                (double)g->optimizer_bytes / (double)GPUPLAN_BYTES_PER_GB,
                (double)g->activations_bytes / (double)GPUPLAN_BYTES_PER_GB,
                (double)g->adapters_bytes / (double)GPUPLAN_BYTES_PER_GB,
                (double)g->overhead_bytes / (double)GPUPLAN_BYTES_PER_GB,
                (double)g->cuda_context_bytes / (double)GPUPLAN_BYTES_PER_GB);
        free(rep);
        gpuplan_model_release(&model);
    }
    double med = 0, p90 = 0;
    printf("\nsummary (absolute %% error; GB = 1e9 bytes in the table):\n");
    summary("gpuplan (unknown -> [alloc,device] band)", &band, &med, &p90);
    summary("gpuplan (unknown -> reserved)", &primary, NULL, NULL);
    summary("  allocated/active rows", &alloc_kind, NULL, NULL);
    summary("  reserved/smi rows", &reserved_kind, NULL, NULL);
    summary("  unknown-kind rows", &unknown_kind, NULL, NULL);
    summary("  even row ids (band)", &even, NULL, NULL);
    summary("  odd row ids (band)", &odd, NULL, NULL);
    summary("LlamaFactory table rule", &lf, NULL, NULL);
    summary("18 B/param rule", &b18, NULL, NULL);
    summary("accelerate estimate-memory", &acc, NULL, NULL);
    summary("  eager rows (band)", &eager_band, NULL, NULL);
    summary("  torch.compile rows (band)", &compiled_band, NULL, NULL);
    summary("host RAM rows, not gated", &host_ram, NULL, NULL);
    printf("  OOM/fits rows right: %d of %d; excluded rows: %d\n", oom_right, oom_total, excluded);
    gpuplan_catalog_free(catalog);
    free(text);
    if (max_median < 0.0)
        return 0;
    int passed = 0, failed = 0;
    const bool med_ok = band.n > 0 && med <= max_median, p90_ok = band.n > 0 && p90 <= max_p90;
    printf("suite: band-rule median %.1f %% over %zu rows (max %g %%): %s\n", med, band.n,
           max_median, med_ok ? "ok" : "FAIL");
    printf("suite: band-rule p90 %.1f %% (max %g %%): %s\n", p90, max_p90, p90_ok ? "ok" : "FAIL");
    passed += med_ok + p90_ok;
    failed += !med_ok + !p90_ok;
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
