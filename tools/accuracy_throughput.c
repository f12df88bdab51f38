/*
 * accuracy_throughput.c - score the throughput model against published rows.
 *
 *   accuracy_throughput [--csv validation/measurements.csv] [--catalog DIR]
 *                       [--max-median 0.25] [--fit]
 *
 * Reads the RFC-4180 CSV (schema in the task contract: header row with named
 * columns), keeps rows with usable=yes and a tokens_per_s_per_gpu value,
 * builds each row's job through gpuplan_job_set() (the same path as the CLI),
 * loads the model from the catalog's config.json and the GPU from the catalog,
 * predicts tokens/s per GPU and prints, per row, predicted vs measured and the
 * relative error; then the median and p90 error. Rows whose model or GPU is
 * not in the catalog are listed as skipped. Exit 1 when the median error
 * exceeds --max-median, 2 on usage errors.
 *
 * --fit also prints each row's implied efficiency (the efficiency at which the
 * prediction would match, found by bisection on the efficiency override) and,
 * per GPU family (architecture + compute capability), the median implied
 * generation constant: the numbers GEN_EFF in src/lib/estimate/throughput.c is set from.
 *
 * Held-out error (always printed): leave-one-source-out. For each row, the
 * generation constant of its GPU family is refitted as the median implied
 * constant of the rows from OTHER sources (first word of `source`, e.g.
 * "TITAN", "DGXC"), and the row is predicted with it. A family with no row
 * from another source keeps the library constant (counted as "no fit data").
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/gpuplan.h"
#include "gpuplan/job.h"
#include "gpuplan/throughput.h"

#define MAX_COLS  64
#define MAX_FIELD 1024
#define MAX_ROWS  4096

/*
 * Rows left out of the fit (still scored): upper-bound throughputs (MLPerf
 * assumes every sample is 8,192 tokens), and rows whose implied matmul
 * efficiency exceeds what large cuBLAS GEMMs reach (~80 % of the dense peak on
 * A100/H100): those disagree with the model or the row for a reason the
 * efficiency must not absorb.
 */
#define FIT_MAX_EFFICIENCY 0.85

struct row {
    char f[MAX_COLS][MAX_FIELD];
    int n;
};

/* One scored row, kept for the fit and the held-out pass. */
struct scored {
    char id[32];
    char source[32];     /* first word of `source` */
    char family[48];     /* architecture + compute capability, e.g. "Hopper 9.0" */
    double measured;     /* tokens/s per GPU */
    double predicted;    /* with the library constants */
    double size;         /* efficiency / (generation constant * precision factor) */
    double prec;         /* precision factor (fp8) */
    double gen_lib;      /* the library's generation constant for this GPU */
    double implied;      /* generation constant at which the prediction matches */
    bool implied_capped; /* even an efficiency of 1 is too slow */
    bool fit_ok;         /* used for fitting (see FIT_MAX_EFFICIENCY) */
    struct gpuplan_job job;
    const struct gpuplan_gpu *gpu;
    const struct gpuplan_platform *platform;
    struct gpuplan_throughput_profile profile;
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

static int col(const struct row *header, const char *name)
{
    for (int i = 0; i < header->n; i++) {
        if (strcmp(header->f[i], name) == 0)
            return i;
    }
    return -1;
}

static const char *field(const struct row *header, const struct row *r, const char *name)
{
    const int i = col(header, name);
    return i >= 0 && i < r->n ? r->f[i] : "";
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Nearest-rank percentile of a sorted array. */
static double percentile(const double *v, size_t n, double p)
{
    if (n == 0)
        return 0;
    size_t k = (size_t)ceil(p * (double)n);
    if (k < 1)
        k = 1;
    return v[k - 1];
}

static double median(const double *v, size_t n)
{
    if (n == 0)
        return 0;
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Apply one CSV setting to the job when present; report why it was refused. */
static bool
set_opt(struct gpuplan_job *job, const char *name, const char *value, char *why, size_t n)
{
    if (!value[0])
        return true;
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    if (gpuplan_job_set(job, name, value, &err) != GPUPLAN_OK) {
        snprintf(why, n, "%s", err.message);
        return false;
    }
    return true;
}

/* Build the job for a row. */
static bool
row_job(const struct row *h, const struct row *r, struct gpuplan_job *job, char *why, size_t n)
{
    gpuplan_job_init(job);
    char lora[MAX_FIELD], gpu[MAX_FIELD];
    snprintf(lora, sizeof lora, "%s", field(h, r, "lora_targets"));
    for (char *c = lora; *c; c++) {
        if (*c == ';')
            *c = ',';
    }
    const char *quant = field(h, r, "quant");
    const char *q = strcmp(quant, "nf4") == 0      ? "nf4"
                    : strcmp(quant, "nf4-dq") == 0 ? "nf4-dq"
                    : strcmp(quant, "int8") == 0   ? "int8"
                                                   : "";
    uint64_t n_gpus = 1, nodes = 1;
    if (!gpuplan_parse_count(field(h, r, "n_gpus"), &n_gpus) || n_gpus == 0)
        n_gpus = 1;
    if (!gpuplan_parse_count(field(h, r, "nodes"), &nodes) || nodes == 0)
        nodes = 1;
    snprintf(gpu, sizeof gpu, "%s:%llu", field(h, r, "gpu_ref"),
             (unsigned long long)(n_gpus / nodes ? n_gpus / nodes : 1));
    char nodes_text[32];
    snprintf(nodes_text, sizeof nodes_text, "%llu", (unsigned long long)nodes);
    const char *method = field(h, r, "method");
    if (strcmp(method, "dora") == 0)
        method = "lora";
    const char *ckpt = field(h, r, "grad_ckpt");
    /*
     * Fused kernels: the row's `compile` cell; when empty, from the framework:
     * NeMo / Megatron-LM (sources DGXC and MLPERF) fuse norms, rotary and
     * activations (Transformer Engine, apex); Hugging Face, LLaMA-Factory and
     * the rest run eager PyTorch unless the row says compile.
     */
    const char *compile = field(h, r, "compile");
    if (!compile[0]) {
        const char *src = field(h, r, "source");
        compile = strncmp(src, "DGXC ", 5) == 0 || strncmp(src, "MLPERF ", 7) == 0 ? "yes" : "no";
    }
    const struct {
        const char *name, *value;
    } opts[] = {
        { "method", method },
        { "precision", field(h, r, "precision") },
        { "optimizer", field(h, r, "optimizer") },
        { "seq-len", field(h, r, "seq_len") },
        { "micro-batch", field(h, r, "micro_batch") },
        { "grad-accum", field(h, r, "grad_accum") },
        { "grad-ckpt", ckpt },
        { "compile", compile },
        { "attention", field(h, r, "attention") },
        { "lora-rank", field(h, r, "lora_rank") },
        { "lora-targets", lora },
        { "quant", q },
        { "sharding", field(h, r, "sharding") },
        { "offload", field(h, r, "offload") },
        { "tp", field(h, r, "tp") },
        { "pp", field(h, r, "pp") },
        { "gpu", gpu },
        { "nodes", nodes_text },
    };
    for (size_t i = 0; i < sizeof opts / sizeof opts[0]; i++) {
        if (!set_opt(job, opts[i].name, opts[i].value, why, n))
            return false;
    }
    /* An unstated checkpointing setting: assume none (the CSV leaves it empty). */
    if (!ckpt[0])
        job->grad_ckpt = GPUPLAN_CKPT_NONE;
    return true;
}

/* Tokens/s per GPU with the matmul efficiency forced to `eff` (fraction of dense peak). */
static double predict_at(const struct scored *sc, double eff)
{
    struct gpuplan_throughput_system sys;
    gpuplan_throughput_system_init(&sys);
    sys.gpu = sc->gpu;
    sys.platform = sc->platform;
    sys.efficiency_override = eff;
    struct gpuplan_throughput t;
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    if (gpuplan_throughput_eval(&sc->profile, &sc->job, &sys, &t, &err) != GPUPLAN_OK)
        return 0;
    return t.tokens_per_s_per_gpu;
}

/*
 * The efficiency at which the prediction equals the measurement, by bisection
 * (tokens/s rises monotonically with efficiency); expressed as a generation
 * constant by dividing out the size and precision factors.
 */
static void implied_constant(struct scored *sc)
{
    const double lo_eff = 0.005, hi_eff = 1.0;
    sc->implied_capped = false;
    if (predict_at(sc, hi_eff) < sc->measured) {
        sc->implied = hi_eff / (sc->size * sc->prec);
        sc->implied_capped = true;
        return;
    }
    double lo = lo_eff, hi = hi_eff;
    for (int i = 0; i < 60; i++) {
        const double mid = 0.5 * (lo + hi);
        if (predict_at(sc, mid) < sc->measured)
            lo = mid;
        else
            hi = mid;
    }
    sc->implied = 0.5 * (lo + hi) / (sc->size * sc->prec);
}

/* Median of the implied constants of `family`, leaving out `skip_source` (NULL: none). */
static bool family_median(const struct scored *rows,
                          size_t n,
                          const char *family,
                          const char *skip_source,
                          double *out,
                          size_t *n_used)
{
    static double v[MAX_ROWS];
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(rows[i].family, family) != 0)
            continue;
        if (!rows[i].fit_ok || (skip_source && strcmp(rows[i].source, skip_source) == 0))
            continue;
        v[k++] = rows[i].implied;
    }
    *n_used = k;
    if (k == 0)
        return false;
    qsort(v, k, sizeof v[0], cmp_double);
    *out = median(v, k);
    return true;
}

static int usage(void)
{
    fputs("usage: accuracy_throughput [--csv FILE] [--catalog DIR] [--max-median F] [--fit]\n",
          stderr);
    return 2;
}

int main(int argc, char **argv)
{
    const char *csv = "validation/measurements.csv";
    const char *catalog_dir = NULL;
    double max_median = 0.25;
    bool fit = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--csv") == 0 && i + 1 < argc)
            csv = argv[++i];
        else if (strcmp(argv[i], "--catalog") == 0 && i + 1 < argc)
            catalog_dir = argv[++i];
        else if (strcmp(argv[i], "--max-median") == 0 && i + 1 < argc) {
            if (!gpuplan_parse_double(argv[++i], &max_median))
                return usage();
        } else if (strcmp(argv[i], "--fit") == 0)
            fit = true;
        else
            return usage();
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
        fprintf(stderr, "accuracy_throughput: %s\n", err.message);
        fclose(in);
        return 2;
    }
    static struct row header, r;
    static double errors[MAX_ROWS], held_errors[MAX_ROWS];
    static struct scored rows[MAX_ROWS];
    size_t n_err = 0, n_skipped = 0;
    if (!read_record(in, &header) || col(&header, "tokens_per_s_per_gpu") < 0) {
        fprintf(stderr, "accuracy_throughput: %s: no header with 'tokens_per_s_per_gpu'\n", csv);
        fclose(in);
        gpuplan_catalog_free(catalog);
        return 2;
    }
    printf("%-9s %-16s %-6s %-10s %-14s %5s %9s %9s %7s  %s\n", "row", "model", "method",
           "precision", "gpu", "gpus", "measured", "predicted", "error",
           fit ? "implied_eff (eff)" : "bottleneck");
    while (read_record(in, &r) && n_err < MAX_ROWS) {
        const char *id = field(&header, &r, "row_id");
        const char *measured_text = field(&header, &r, "tokens_per_s_per_gpu");
        double measured = 0;
        if (strcmp(field(&header, &r, "usable"), "yes") != 0 || !measured_text[0] ||
            !gpuplan_parse_double(measured_text, &measured) || !(measured > 0) ||
            strcmp(field(&header, &r, "method"), "infer") == 0)
            continue;
        char why[GPUPLAN_ERROR_MESSAGE_MAX] = "";
        const struct gpuplan_catalog_model *cm =
            gpuplan_catalog_find_model(catalog, field(&header, &r, "model_ref"));
        const struct gpuplan_gpu *gpu =
            gpuplan_catalog_find_gpu(catalog, field(&header, &r, "gpu_ref"));
        struct gpuplan_job job;
        if (!cm || !gpu) {
            printf("%-9s skipped: %s '%s' not in the catalog\n", id, cm ? "GPU" : "model",
                   cm ? field(&header, &r, "gpu_ref") : field(&header, &r, "model_ref"));
            n_skipped++;
            continue;
        }
        if (!row_job(&header, &r, &job, why, sizeof why)) {
            printf("%-9s skipped: %s\n", id, why);
            n_skipped++;
            continue;
        }
        struct gpuplan_model model;
        gpuplan_model_init(&model);
        struct gpuplan_throughput_profile profile;
        struct gpuplan_throughput t;
        struct gpuplan_throughput_system sys;
        gpuplan_throughput_system_init(&sys);
        sys.gpu = gpu;
        sys.platform =
            gpu->n_platforms ? gpuplan_catalog_find_platform(catalog, gpu->platforms[0]) : NULL;
        if (gpuplan_model_from_hf_config(&model, (const uint8_t *)cm->config_json,
                                         cm->config_json_len, cm->id, &err) != GPUPLAN_OK ||
            gpuplan_throughput_profile_build(&profile, &model, &err) != GPUPLAN_OK ||
            gpuplan_throughput_eval(&profile, &job, &sys, &t, &err) != GPUPLAN_OK) {
            printf("%-9s skipped: %s\n", id, err.message);
            n_skipped++;
            gpuplan_model_release(&model);
            continue;
        }
        const double predicted = t.tokens_per_s_per_gpu;
        const double e = fabs(predicted - measured) / measured;
        struct scored *sc = &rows[n_err];
        errors[n_err++] = e;
        memset(sc, 0, sizeof *sc);
        snprintf(sc->id, sizeof sc->id, "%s", id);
        const char *src = field(&header, &r, "source");
        const size_t src_len = strcspn(src, " ");
        snprintf(sc->source, sizeof sc->source, "%.*s", (int)src_len, src);
        snprintf(sc->family, sizeof sc->family, "%s %s", gpu->architecture,
                 gpu->compute_capability[0] ? gpu->compute_capability : gpu->gfx_target);
        sc->measured = measured;
        sc->predicted = predicted;
        sc->job = job;
        sc->gpu = gpu;
        sc->platform = sys.platform;
        sc->profile = profile;
        /* Large-GEMM limits: the generation constant, and with the job's precision. */
        const double big = 1e15;
        sc->gen_lib = gpuplan_throughput_efficiency(gpu, GPUPLAN_PRECISION_BF16_MIXED, big, big);
        const double base = gpuplan_throughput_efficiency(gpu, job.precision, big, big);
        sc->prec = sc->gen_lib > 0 ? base / sc->gen_lib : 1.0;
        sc->size = base > 0 ? t.efficiency / base : 1.0;
        implied_constant(sc);
        sc->fit_ok = strcmp(field(&header, &r, "throughput_kind"), "upper-bound") != 0 &&
                     !sc->implied_capped && sc->implied * sc->size * sc->prec <= FIT_MAX_EFFICIENCY;
        printf("%-9s %-16s %-6s %-10s %-14s %5u %9.0f %9.0f %+6.1f%%  ", id, cm->id,
               gpuplan_method_name(job.method), gpuplan_precision_name(job.precision), gpu->id,
               job.gpus_per_node * job.nodes, measured, predicted,
               100.0 * (predicted - measured) / measured);
        if (fit)
            printf("%s%.3f (%.3f)%s\n", sc->implied_capped ? ">" : "", sc->implied, sc->gen_lib,
                   sc->fit_ok ? "" : " not fitted");
        else
            printf("%s\n", gpuplan_bottleneck_name(t.bottleneck));
        gpuplan_model_release(&model);
    }
    fclose(in);

    /* Per family: the constant in the library and the median implied one (the fit). */
    if (fit) {
        printf("\n%-22s %5s %9s %9s %9s\n", "family", "rows", "library", "fit", "fit_fp8");
        for (size_t i = 0; i < n_err; i++) {
            bool seen = false;
            for (size_t j = 0; j < i && !seen; j++)
                seen = strcmp(rows[j].family, rows[i].family) == 0;
            if (seen)
                continue;
            double all = 0, fp8 = 0;
            size_t n_all = 0, n_fp8 = 0;
            family_median(rows, n_err, rows[i].family, NULL, &all, &n_all);
            static double v[MAX_ROWS];
            for (size_t j = 0; j < n_err; j++) {
                if (strcmp(rows[j].family, rows[i].family) == 0 && rows[j].prec != 1.0 &&
                    rows[j].fit_ok)
                    v[n_fp8++] = rows[j].implied;
            }
            qsort(v, n_fp8, sizeof v[0], cmp_double);
            fp8 = median(v, n_fp8);
            printf("%-22s %5zu %9.3f %9.3f %9.3f (%zu fp8 rows)\n", rows[i].family, n_all,
                   rows[i].gen_lib, all, fp8, n_fp8);
        }
    }

    /* Held out: leave one source out. */
    size_t n_held = 0, n_nofit = 0;
    printf("\nheld-out (leave-one-source-out):\n");
    for (size_t i = 0; i < n_err; i++) {
        const struct scored *sc = &rows[i];
        double gen = sc->gen_lib;
        size_t n_used = 0;
        const bool has_fit = family_median(rows, n_err, sc->family, sc->source, &gen, &n_used);
        if (!has_fit) {
            gen = sc->gen_lib;
            n_nofit++;
        }
        const double eff = gen * sc->prec * sc->size;
        const double pred = predict_at(sc, eff > 1.0 ? 1.0 : eff);
        held_errors[n_held++] = fabs(pred - sc->measured) / sc->measured;
        printf("  %-9s %-8s %-20s constant %.3f (%zu rows)  predicted %9.0f  %+6.1f%%\n", sc->id,
               sc->source, sc->family, gen, n_used, pred,
               100.0 * (pred - sc->measured) / sc->measured);
    }
    gpuplan_catalog_free(catalog);
    qsort(errors, n_err, sizeof errors[0], cmp_double);
    qsort(held_errors, n_held, sizeof held_errors[0], cmp_double);
    const double med = median(errors, n_err), p90 = percentile(errors, n_err, 0.9);
    const double hmed = median(held_errors, n_held), hp90 = percentile(held_errors, n_held, 0.9);
    printf("\nscored %zu rows, skipped %zu; median error %.1f%%, p90 error %.1f%%; held-out "
           "(leave-one-source-out, %zu rows without other-source fit data) median %.1f%%, "
           "p90 %.1f%% (limit: median %.0f%%)\n",
           n_err, n_skipped, 100.0 * med, 100.0 * p90, n_nofit, 100.0 * hmed, 100.0 * hp90,
           100.0 * max_median);
    if (n_err == 0) {
        fputs("accuracy_throughput: no scorable rows\n", stderr);
        return 1;
    }
    return med > max_median ? 1 : 0;
}
