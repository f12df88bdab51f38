/*
 * accuracy.c - score the memory model against validation/measurements.csv.
 *
 * For every usable memory row: build the job from the row's settings,
 * predict, and compare with the published figure by memory kind:
 *   allocated, active -> peak_allocated;  reserved -> peak_reserved;
 *   smi -> device_total (reserved + CUDA context + NCCL);
 *   unknown -> peak_reserved (the headline "reserved rule"). The "band rule"
 *     (0 when the figure lies anywhere in [predicted allocated, predicted
 *     device total], else the distance to the nearer end) is printed as a
 *     secondary line only: a band lets an unknown figure count as exact.
 * The headline is out of sample (leave-one-source-out, scoring.h). The
 * memory model fits no constant to these rows (src/lib/estimate/
 * memory_model.c: the CUDA context, NCCL buffers and allocator slack are
 * stated assumptions; docs/validation.md), so its out-of-sample predictions
 * equal the in-sample ones, and the tool says so. What is fitted here are the
 * 80 % intervals: per class (stack x method x memory kind, pooled into the
 * parent class below 4 source families), split-conformal with the source
 * family as the unit (scoring.h), and their coverage is scored with each
 * row's source family left out. Tables per stack, method, memory
 * kind and source family give the sign of the error (under-prediction is the
 * dangerous direction). OOM rows are right when the prediction exceeds the
 * GPU; "fits" rows when it does not. Rows with options gpuplan does not model
 * (DoRA, context or expert parallelism) are excluded with the reason. The
 * simple rules users rely on (LlamaFactory's table, 18 B/param, accelerate's
 * estimate-memory) are scored on the same rows.
 *
 * usage: accuracy [--csv FILE] [--catalog DIR] [--verbose]
 *                 [--max-median PCT] [--max-p90 PCT] [--min-coverage PCT]
 *                 [--max-gt-band-median PCT] [--max-gt-band-p90 PCT]
 *                 [--target-median PCT] [--target-p90 PCT] [--target-coverage PCT]
 *                 [--write-intervals FILE --stamp TEXT] [--check-intervals FILE]
 * --max-* / --min-* / --check-intervals are gates: "suite:" lines, then
 * "N passed, N failed", exit 1 on a failure. --target-* only print whether the
 * issue's targets are met (exit 0: `make accuracy` is a report).
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
#include "scoring.h"

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

/* Per scored row, beside its sc_row: what the secondary lines need. */
struct mem_extra {
    double band; /* band-rule absolute error (fraction) */
    double lf, b18, acc;
    double measured_gb, pred_gb;
    bool compiled;
    int varlen;        /* packed=no reserved rows: 1 measured inside the reserved band, 2 outside */
    double varlen_err; /* ... the signed error against the band's nearer end (0 inside) */
};

static struct sc_row rows[SC_MAX_ROWS];
static struct mem_extra extra[SC_MAX_ROWS];
static bool take[SC_MAX_ROWS];

/* Absolute-error statistics (median, p90) of one side array over the rows `take` selects. */
static void print_abs(const char *label, const double *v, size_t n, const bool *sel)
{
    static double a[SC_MAX_ROWS];
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (!sel || sel[i])
            a[k++] = v[i];
    }
    qsort(a, k, sizeof a[0], sc_cmp_double);
    printf("  %-40s rows %3zu  median %6.1f %%  p90 %6.1f %%\n", label, k, 100.0 * sc_median(a, k),
           100.0 * sc_percentile(a, k, 90.0));
}

static void select_new(size_t n, int which) /* 0 all, 1 NT rows, 2 GT rows */
{
    for (size_t i = 0; i < n; i++)
        take[i] = which == 0 || (which == 1) == rows[i].is_new;
}

static double opt_pct(const char *text)
{
    return csv_double(text) / 100.0;
}

int main(int argc, char **argv)
{
    const char *csv_path = "validation/measurements.csv", *catalog_dir = NULL;
    const char *write_path = NULL, *check_path = NULL, *stamp = "";
    double max_median = -1.0, max_p90 = -1.0, min_cov = -1.0, max_gt_band_med = -1.0,
           max_gt_band_p90 = -1.0, t_median = -1.0, t_p90 = -1.0, t_cov = -1.0;
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
            max_median = opt_pct(argv[++i]);
        else if (strcmp(argv[i], "--max-p90") == 0)
            max_p90 = opt_pct(argv[++i]);
        else if (strcmp(argv[i], "--min-coverage") == 0)
            min_cov = opt_pct(argv[++i]);
        else if (strcmp(argv[i], "--max-gt-band-median") == 0)
            max_gt_band_med = opt_pct(argv[++i]);
        else if (strcmp(argv[i], "--max-gt-band-p90") == 0)
            max_gt_band_p90 = opt_pct(argv[++i]);
        else if (strcmp(argv[i], "--target-median") == 0)
            t_median = opt_pct(argv[++i]);
        else if (strcmp(argv[i], "--target-p90") == 0)
            t_p90 = opt_pct(argv[++i]);
        else if (strcmp(argv[i], "--target-coverage") == 0)
            t_cov = opt_pct(argv[++i]);
        else if (strcmp(argv[i], "--write-intervals") == 0)
            write_path = argv[++i];
        else if (strcmp(argv[i], "--check-intervals") == 0)
            check_path = argv[++i];
        else if (strcmp(argv[i], "--stamp") == 0)
            stamp = argv[++i];
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

    size_t n = 0;
    static double host_err[SC_MAX_ROWS];
    size_t n_host = 0;
    int oom_right = 0, oom_total = 0, excluded = 0;
    printf("%-8s %-15s %-6s %-13s %-9s %9s %9s %9s %9s %8s %7s  %s\n", "row", "model", "method",
           "stack", "kind", "measured", "pred_alloc", "pred_res", "pred_dev", "signed%", "band%",
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
        else if (csv_int(col(&h, &row, "ep")) > 1)
            snprintf(why, sizeof why, "expert parallelism not modelled (no ep job field)");
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
                set_opt(&job, "packed", col(&h, &row, "packed"), why, sizeof why) &&
                set_opt(&job, "compile", col(&h, &row, "compile"), why, sizeof why) &&
                set_opt(&job, "gpu", gpu_text, why, sizeof why) &&
                set_opt(&job, "nodes", col(&h, &row, "nodes"), why, sizeof why) &&
                set_opt(&job, "sharding", col(&h, &row, "sharding"), why, sizeof why) &&
                set_opt(&job, "offload", col(&h, &row, "offload"), why, sizeof why) &&
                set_opt(&job, "fsdp-wrap", col(&h, &row, "fsdp_wrap"), why, sizeof why) &&
                set_opt(&job, "tp", col(&h, &row, "tp"), why, sizeof why) &&
                set_opt(&job, "pp", col(&h, &row, "pp"), why, sizeof why) &&
                set_opt(&job, "cp", col(&h, &row, "cp"), why, sizeof why) &&
                /* Training-loop facts of the source's script (validation/README.md). */
                set_opt(&job, "keep-outputs", col(&h, &row, "keep_outputs"), why, sizeof why) &&
                set_opt(&job, "base-fp32", col(&h, &row, "base_fp32"), why, sizeof why);
            (void)ok;
            /*
             * The row's stack as the implementation the memory model distinguishes (TRL's
             * logits-free chunked_nll, a raw DeepSpeed script's load moment), not as its
             * defaults: the profile's knobs count as given, so an empty cell keeps meaning
             * gpuplan's default (docs/stacks.md: many rows predate the profiles' versions).
             */
            struct gpuplan_job named; /* accelerate, xtuner, other: no profile */
            gpuplan_job_init(&named);
            if (ok && col(&h, &row, "stack")[0] &&
                gpuplan_job_set(&named, "stack", col(&h, &row, "stack"), NULL) == GPUPLAN_OK)
                gpuplan_job_set_stack_only(&job, named.stack);
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
                printf("%-8s %-15s %-6s %-13s %-9s %9s %9.2f %9s  %s (48 GB GPU)\n", id, ref,
                       method, col(&h, &row, "stack"), outcome, "-",
                       gpuplan_gb_from_bytes(g->device_total_bytes), "-",
                       oom == want_oom ? "right" : "WRONG");
            } else {
                oom_total++;
                oom_right += rep->est.fits != want_oom;
                printf("%-8s %-15s %-6s %-13s %-9s %9s %9.2f %9s  %s (usable %.1f GB)\n", id, ref,
                       method, col(&h, &row, "stack"), outcome, "-",
                       gpuplan_gb_from_bytes(g->device_total_bytes), "-",
                       rep->est.fits != want_oom ? "right" : "WRONG",
                       gpuplan_gb_from_bytes(rep->est.gpu_usable_bytes));
            }
            free(rep);
            gpuplan_model_release(&model);
            continue;
        }
        if (n >= SC_MAX_ROWS) {
            free(rep);
            gpuplan_model_release(&model);
            break;
        }
        const double measured =
            csv_double(col(&h, &row, "memory_value")) * unit_bytes(col(&h, &row, "memory_unit"));
        const double alloc = (double)g->peak_allocated_bytes, res = (double)g->peak_reserved_bytes;
        const double dev = (double)g->device_total_bytes;
        struct sc_row *sr = &rows[n];
        struct mem_extra *x = &extra[n];
        memset(sr, 0, sizeof *sr);
        snprintf(sr->id, sizeof sr->id, "%s", id);
        sc_family(col(&h, &row, "source"), sr->family, sizeof sr->family);
        snprintf(sr->stack, sizeof sr->stack, "%s",
                 col(&h, &row, "stack")[0] ? col(&h, &row, "stack") : "unknown");
        snprintf(sr->method, sizeof sr->method, "%s", method);
        sr->is_new = strncmp(id, "NT-", 3) == 0;
        double pred = res;
        if (strcmp(kind, "allocated") == 0 || strcmp(kind, "active") == 0) {
            pred = alloc;
            snprintf(sr->kind, sizeof sr->kind, "allocated");
        } else if (strcmp(kind, "smi") == 0) {
            pred = dev;
            snprintf(sr->kind, sizeof sr->kind, "smi");
        } else {
            snprintf(sr->kind, sizeof sr->kind, "%s",
                     strcmp(kind, "reserved") == 0 ? "reserved" : "unknown");
        }
        /* No fitted memory constant: the out-of-sample prediction is the in-sample one. */
        sr->err_in = sr->err_out = (pred - measured) / measured;
        const bool unknown = strcmp(sr->kind, "unknown") == 0;
        x->band = fabs(sr->err_in);
        if (unknown)
            x->band = measured < alloc ? (alloc - measured) / measured
                      : measured > dev ? (measured - dev) / measured
                                       : 0.0;
        const char *compile = col(&h, &row, "compile");
        x->compiled = strcmp(compile, "yes") == 0 || strcmp(compile, "blocks") == 0;
        x->varlen = 0;
        if (strcmp(sr->kind, "reserved") == 0 && g->reserved_varlen_high_bytes > 0) {
            const double top = (double)g->reserved_varlen_high_bytes;
            x->varlen = measured >= res && measured <= top ? 1 : 2;
            x->varlen_err = measured < res   ? (res - measured) / measured
                            : measured > top ? (top - measured) / measured
                                             : 0.0;
        }
        const double n_shard = rep->est.shard_degree > 1 && job.sharding >= GPUPLAN_SHARDING_ZERO3
                                   ? (double)rep->est.shard_degree
                                   : 1.0;
        const struct rules rr = simple_rules(&model, &job, n_shard);
        x->lf = fabs(rr.llamafactory - measured) / measured;
        x->b18 = fabs(rr.bytes18 - measured) / measured;
        x->acc = fabs(rr.accelerate - measured) / measured;
        n++;
        printf("%-8s %-15s %-6s %-13s %-9s %9.2f %9.2f %9.2f %9.2f %+8.1f %7.1f  "
               "%.0f/%.0f/%.0f%s%s\n",
               id, ref, method, sr->stack, kind, measured / (double)GPUPLAN_BYTES_PER_GB,
               alloc / (double)GPUPLAN_BYTES_PER_GB, res / (double)GPUPLAN_BYTES_PER_GB,
               dev / (double)GPUPLAN_BYTES_PER_GB, 100.0 * sr->err_in, 100.0 * x->band,
               100.0 * x->lf, 100.0 * x->b18, 100.0 * x->acc, x->compiled ? "  compile " : "",
               x->compiled ? compile : "");
        /* Host RAM, where the source gives it (not gated: the whole process's RSS). */
        const double host_gb = csv_double(col(&h, &row, "host_ram_gb"));
        if (host_gb > 0.0) {
            const double pred_gb = (double)rep->est.host_ram_bytes / (double)GPUPLAN_BYTES_PER_GB;
            host_err[n_host++] = fabs(pred_gb - host_gb) / host_gb;
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
    gpuplan_catalog_free(catalog);
    free(text);

    printf(
        "\ncolumns: cp is the job's --cp (context parallelism: seq/cp tokens per rank); ep > 1 "
        "rows are excluded (the job has no expert-parallel field for training); vpp is ignored (the extra in-flight micro-batches of an "
        "interleaved schedule are not modelled); dp is not read (the job derives it from "
        "n_gpus / (tp x pp)); stack is read for the tables and intervals only.\n");
    printf("\nmemory, headline: reserved rule (unknown kind compared with predicted reserved), "
           "signed error = (predicted - measured) / measured, GB = 1e9 bytes in the table.\n");
    printf("note: the memory model fits no constant to these rows (CUDA context, NCCL buffers "
           "and allocator slack are stated assumptions, src/lib/estimate/memory_model.c), so "
           "every leave-one-source-out prediction equals the in-sample one: out of sample = in "
           "sample for memory. The intervals below are fitted, and scored out of sample.\n");
    select_new(n, 0);
    const struct sc_stats in_all = sc_stats_of(rows, n, NULL, false);
    const struct sc_stats out_all = sc_stats_of(rows, n, NULL, true);
    sc_print_stats("in sample, all rows", in_all);
    sc_print_stats("OUT OF SAMPLE, all rows (headline)", out_all);
    select_new(n, 1);
    sc_print_stats("  rows of the new sources (NT-)", sc_stats_of(rows, n, take, true));
    select_new(n, 2);
    sc_print_stats("  rows of the older sources (GT-)", sc_stats_of(rows, n, take, true));

    printf("\nsecondary: band rule (an unknown-kind figure scores 0 anywhere in [predicted "
           "allocated, predicted device total]; absolute error):\n");
    static double band[SC_MAX_ROWS], lf[SC_MAX_ROWS], b18[SC_MAX_ROWS], acc[SC_MAX_ROWS];
    for (size_t i = 0; i < n; i++) {
        band[i] = extra[i].band;
        lf[i] = extra[i].lf;
        b18[i] = extra[i].b18;
        acc[i] = extra[i].acc;
    }
    print_abs("band rule, all rows", band, n, NULL);
    select_new(n, 2);
    print_abs("band rule, GT- rows (the former gate set)", band, n, take);
    static double gt_band[SC_MAX_ROWS];
    size_t n_gt = 0;
    for (size_t i = 0; i < n; i++) {
        if (!rows[i].is_new)
            gt_band[n_gt++] = band[i];
    }
    qsort(gt_band, n_gt, sizeof gt_band[0], sc_cmp_double);
    const double gt_band_med = sc_median(gt_band, n_gt),
                 gt_band_p90 = sc_percentile(gt_band, n_gt, 90.0);
    for (size_t i = 0; i < n; i++)
        take[i] = extra[i].compiled;
    print_abs("band rule, torch.compile rows", band, n, take);
    for (size_t i = 0; i < n; i++)
        take[i] = !extra[i].compiled;
    print_abs("band rule, eager rows", band, n, take);
    /* The caching allocator under variable-length batches (docs/formulas.md "Reserved band"). */
    size_t n_var = 0, n_var_in = 0;
    for (size_t i = 0; i < n; i++) {
        n_var += extra[i].varlen != 0;
        n_var_in += extra[i].varlen == 1;
    }
    printf("  variable-length reserved band (packed=no rows of kind reserved: measured in "
           "[predicted reserved, the free memory]): %zu of %zu rows inside\n",
           n_var_in, n_var);
    for (size_t i = 0; i < n; i++) {
        if (extra[i].varlen)
            printf("    %-8s reserved-rule error %+6.1f %%, against the band %+6.1f %%\n",
                   rows[i].id, 100.0 * rows[i].err_in, 100.0 * extra[i].varlen_err);
    }

    sc_print_table("per stack", rows, n, SC_BY_STACK);
    sc_print_table("per method", rows, n, SC_BY_METHOD);
    sc_print_table("per memory kind (allocated includes active)", rows, n, SC_BY_KIND);
    sc_print_table("per source family", rows, n, SC_BY_FAMILY);

    printf("\nsimple rules on the same rows (absolute error):\n");
    print_abs("LlamaFactory table rule", lf, n, NULL);
    print_abs("18 B/param rule", b18, n, NULL);
    print_abs("accelerate estimate-memory", acc, n, NULL);
    print_abs("host RAM rows, not gated", host_err, n_host, NULL);
    printf("  OOM/fits rows right: %d of %d; excluded rows: %d\n", oom_right, oom_total, excluded);

    static char table[65536];
    sc_interval_table("memory", rows, n, table, sizeof table);
    sc_print_intervals(table);
    const size_t n_cov = n;
    const double cov = sc_print_coverage("memory", rows, n);

    if (write_path) {
        if (!sc_write_intervals(write_path, table, stamp)) {
            fprintf(stderr, "accuracy: cannot write '%s'\n", write_path);
            return 1;
        }
        printf("wrote %s\n", write_path);
    }

    if (t_median >= 0 || t_p90 >= 0 || t_cov >= 0) {
        printf("\nissue targets (reported, not gated here):\n");
        if (t_median >= 0)
            printf("target: memory out-of-sample median %.1f %% (target <= %.0f %%): %s\n",
                   100.0 * out_all.median_abs, 100.0 * t_median,
                   out_all.median_abs <= t_median ? "met" : "NOT MET");
        if (t_p90 >= 0)
            printf("target: memory out-of-sample p90 %.1f %% (target <= %.0f %%): %s\n",
                   100.0 * out_all.p90_abs, 100.0 * t_p90,
                   out_all.p90_abs <= t_p90 ? "met" : "NOT MET");
        if (t_cov >= 0)
            printf("target: memory interval coverage %.1f %% (target >= %.0f %%): %s\n",
                   100.0 * cov, 100.0 * t_cov, cov >= t_cov ? "met" : "NOT MET");
    }

    const bool gating = max_median >= 0 || max_p90 >= 0 || min_cov >= 0 || max_gt_band_med >= 0 ||
                        max_gt_band_p90 >= 0 || check_path;
    if (!gating)
        return 0;
    int passed = 0, failed = 0;
#define GATE(cond, ...)                        \
    do {                                       \
        const bool ok_ = (cond);               \
        printf("suite: " __VA_ARGS__);         \
        printf(": %s\n", ok_ ? "ok" : "FAIL"); \
        passed += ok_;                         \
        failed += !ok_;                        \
    } while (0)
    if (max_median >= 0)
        GATE(n > 0 && out_all.median_abs <= max_median,
             "memory out-of-sample median %.1f %% over %zu rows (max %.1f %%)",
             100.0 * out_all.median_abs, n, 100.0 * max_median);
    if (max_p90 >= 0)
        GATE(n > 0 && out_all.p90_abs <= max_p90, "memory out-of-sample p90 %.1f %% (max %.1f %%)",
             100.0 * out_all.p90_abs, 100.0 * max_p90);
    if (min_cov >= 0)
        GATE(n_cov > 0 && cov >= min_cov, "memory interval coverage %.1f %% (min %.1f %%)",
             100.0 * cov, 100.0 * min_cov);
    if (max_gt_band_med >= 0)
        GATE(n_gt > 0 && gt_band_med <= max_gt_band_med,
             "band-rule median on the GT- rows %.1f %% over %zu rows (max %.1f %%)",
             100.0 * gt_band_med, n_gt, 100.0 * max_gt_band_med);
    if (max_gt_band_p90 >= 0)
        GATE(n_gt > 0 && gt_band_p90 <= max_gt_band_p90,
             "band-rule p90 on the GT- rows %.1f %% (max %.1f %%)", 100.0 * gt_band_p90,
             100.0 * max_gt_band_p90);
    if (check_path)
        GATE(sc_check_intervals(check_path, table), "%s matches what the tool computes now",
             check_path);
#undef GATE
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
