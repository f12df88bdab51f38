/*
 * accuracy_throughput.c - score the throughput model against published rows.
 *
 *   accuracy_throughput [--csv validation/measurements.csv] [--catalog DIR] [--fit]
 *                       [--max-median F] [--max-p90 F] [--min-coverage F]
 *                       [--max-gt-lib-median F]
 *                       [--target-median F] [--target-coverage F]
 *                       [--write-intervals FILE --stamp TEXT] [--check-intervals FILE]
 *
 * Reads the RFC-4180 CSV (validation/README.md), keeps rows with usable=yes
 * and a tokens_per_s_per_gpu value, builds each row's job through
 * gpuplan_job_set() (the same path as the CLI), loads the model from the
 * catalog's config.json and the GPU from the catalog, predicts tokens/s per
 * GPU and prints, per row, predicted vs measured and the signed error
 * (predicted - measured) / measured. Rows whose model or GPU is not in the
 * catalog are listed as skipped. Fractions on the command line (0.25 = 25 %).
 *
 * The library fits two kinds of constant to these rows (src/lib/estimate/
 * throughput.c): the per-generation matmul efficiency GEN_EFF (median implied
 * constant of a GPU generation's fit rows) and FP8_FACTOR (fp8 over bf16
 * efficiency, from fp8/bf16 pairs of one source). Three predictions per row:
 *   library:       the constants as shipped;
 *   in sample:     both refitted on all rows now in the CSV;
 *   out of sample: both refitted without the row's source family
 *                  (scoring.h: the source key up to its first '-'), the
 *                  headline. FP8_FACTOR refit = library factor x the median,
 *                  over the fp8/bf16 pairs (same source key, model, GPU, GPU
 *                  count, sequence, batch, parallel layout), of the pair's
 *                  implied-constant ratio; no pair left: the library factor.
 *                  A generation with no fit row left keeps the library
 *                  constant ("no fit data").
 * Then tables per stack, method and source family with the sign of the error
 * (under = predicted slower than measured), the 80 % intervals per class
 * (stack x method, scoring.h) and their out-of-sample coverage, written to /
 * checked against validation/intervals-throughput.csv.
 *
 * --fit also prints each row's implied efficiency (the efficiency at which
 * the prediction would match, found by bisection on the efficiency override)
 * and, per GPU generation, the median implied constant: the numbers GEN_EFF is
 * set from. Gates (--max-*, --min-*, --check-intervals) print "suite:" lines
 * and "N passed, N failed" and exit 1 on a failure; --target-* only report.
 * Exit 2 on usage errors.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/gpuplan.h"
#include "gpuplan/job.h"
#include "gpuplan/throughput.h"
#include "scoring.h"

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
    char source[32];     /* source family (scoring.h) */
    char pair_key[256];  /* what an fp8/bf16 pair shares (source key, model, GPU, layout) */
    char family[48];     /* GPU generation: architecture + compute capability, e.g. "Hopper 9.0" */
    double measured;     /* tokens/s per GPU */
    double predicted;    /* with the library constants */
    double size;         /* efficiency / (generation constant * precision factor) */
    double prec;         /* precision factor (fp8) */
    double gen_lib;      /* the library's generation constant for this GPU */
    double implied;      /* generation constant at which the prediction matches */
    bool implied_capped; /* even an efficiency of 1 is too slow */
    bool fit_ok;         /* used for fitting (see FIT_MAX_EFFICIENCY) */
    bool fp8;            /* fp8-mixed precision */
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
     * Fused kernels: the row's `compile` cell; when empty, from the framework
     * (`stack`): Megatron-Core stacks (NeMo, Megatron-LM, Megatron-SWIFT,
     * Pai-Megatron-Patch) fuse norms, rotary and activations (Transformer
     * Engine, apex); Hugging Face, LLaMA-Factory and the rest run eager
     * PyTorch unless the row says compile.
     */
    const char *compile = field(h, r, "compile");
    if (!compile[0])
        compile = strcmp(field(h, r, "stack"), "megatron") == 0 ? "yes" : "no";
    /*
     * MoE experts: Megatron-Core stacks run them as grouped GEMMs (the MoE
     * recipes' --moe-grouped-gemm), torchtitan as grouped_mm; the rest loop.
     * The stack itself where it is one of --stack's names (the time model
     * reads it for Megatron's overlapped parameter all-gather); other
     * frameworks (xtuner, ms-swift, ...) keep the default.
     */
    const char *stack = field(h, r, "stack");
    const bool grouped = strcmp(stack, "megatron") == 0 || strcmp(stack, "torchtitan") == 0;
    struct gpuplan_error stack_err;
    gpuplan_error_init(&stack_err);
    if (stack[0])
        (void)gpuplan_job_set(job, "stack", stack, &stack_err);
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
        { "moe-experts", grouped ? "grouped" : "loop" },
        { "attention", field(h, r, "attention") },
        { "lora-rank", field(h, r, "lora_rank") },
        { "lora-targets", lora },
        { "quant", q },
        { "sharding", field(h, r, "sharding") },
        { "offload", field(h, r, "offload") },
        { "tp", field(h, r, "tp") },
        { "pp", field(h, r, "pp") },
        { "cp", field(h, r, "cp") },
        { "ep", field(h, r, "ep") },
        { "vpp", field(h, r, "vpp") },
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

/*
 * FP8_FACTOR refitted on the fp8/bf16 pairs, leaving out `skip` (NULL: none):
 * the library factor times the median ratio of the pair's implied constants
 * (each computed with the library factor, so a ratio of 1 means the library
 * factor is right). No pair: the library factor.
 */
static double
fp8_refit(const struct scored *rows, size_t n, const char *skip, double lib_fp8, size_t *n_pairs)
{
    static double v[MAX_ROWS];
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (!rows[i].fp8 || !rows[i].fit_ok || (skip && strcmp(rows[i].source, skip) == 0))
            continue;
        for (size_t j = 0; j < n && k < MAX_ROWS; j++) {
            if (rows[j].fp8 || !rows[j].fit_ok || strcmp(rows[i].pair_key, rows[j].pair_key) != 0)
                continue;
            v[k++] = rows[i].implied / rows[j].implied;
        }
    }
    *n_pairs = k;
    if (k == 0)
        return lib_fp8;
    qsort(v, k, sizeof v[0], sc_cmp_double);
    return lib_fp8 * sc_median(v, k);
}

/*
 * Generation constant of `family` refitted as the median implied constant of
 * its fit rows, leaving out source family `skip` (NULL: none), the fp8 rows'
 * implied constants re-expressed with the refitted fp8 factor.
 */
static bool gen_refit(const struct scored *rows,
                      size_t n,
                      const char *family,
                      const char *skip,
                      double lib_fp8,
                      double fp8,
                      double *out,
                      size_t *n_used)
{
    static double v[MAX_ROWS];
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(rows[i].family, family) != 0 || !rows[i].fit_ok ||
            (skip && strcmp(rows[i].source, skip) == 0))
            continue;
        v[k++] = rows[i].implied * (rows[i].fp8 ? lib_fp8 / fp8 : 1.0);
    }
    *n_used = k;
    if (k == 0)
        return false;
    qsort(v, k, sizeof v[0], sc_cmp_double);
    *out = sc_median(v, k);
    return true;
}

/* Tokens/s per GPU with a generation constant and an fp8 factor. */
static double predict_refit(const struct scored *sc, double gen, double fp8)
{
    const double eff = gen * (sc->fp8 ? fp8 : 1.0) * sc->size;
    return predict_at(sc, eff > 1.0 ? 1.0 : eff);
}

static int usage(void)
{
    fputs("usage: accuracy_throughput [--csv FILE] [--catalog DIR] [--fit] [--max-median F] "
          "[--max-p90 F] [--min-coverage F] [--max-gt-lib-median F] [--target-median F] "
          "[--target-coverage F] [--write-intervals FILE --stamp TEXT] [--check-intervals FILE]\n",
          stderr);
    return 2;
}

static bool parse_fraction(const char *text, double *out)
{
    return gpuplan_parse_double(text, out);
}

int main(int argc, char **argv)
{
    const char *csv = "validation/measurements.csv";
    const char *catalog_dir = NULL, *write_path = NULL, *check_path = NULL, *stamp = "";
    double max_median = -1, max_p90 = -1, min_cov = -1, max_gt_lib = -1, t_median = -1, t_cov = -1;
    bool fit = false;
    for (int i = 1; i < argc; i++) {
        double *target = NULL;
        if (strcmp(argv[i], "--csv") == 0 && i + 1 < argc)
            csv = argv[++i];
        else if (strcmp(argv[i], "--catalog") == 0 && i + 1 < argc)
            catalog_dir = argv[++i];
        else if (strcmp(argv[i], "--write-intervals") == 0 && i + 1 < argc)
            write_path = argv[++i];
        else if (strcmp(argv[i], "--check-intervals") == 0 && i + 1 < argc)
            check_path = argv[++i];
        else if (strcmp(argv[i], "--stamp") == 0 && i + 1 < argc)
            stamp = argv[++i];
        else if (strcmp(argv[i], "--fit") == 0)
            fit = true;
        else if (strcmp(argv[i], "--max-median") == 0)
            target = &max_median;
        else if (strcmp(argv[i], "--max-p90") == 0)
            target = &max_p90;
        else if (strcmp(argv[i], "--min-coverage") == 0)
            target = &min_cov;
        else if (strcmp(argv[i], "--max-gt-lib-median") == 0)
            target = &max_gt_lib;
        else if (strcmp(argv[i], "--target-median") == 0)
            target = &t_median;
        else if (strcmp(argv[i], "--target-coverage") == 0)
            target = &t_cov;
        else
            return usage();
        if (target && (i + 1 >= argc || !parse_fraction(argv[++i], target)))
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
    static struct scored rows[MAX_ROWS];
    static struct sc_row srows[SC_MAX_ROWS];
    static double lib_err[MAX_ROWS];
    size_t n_err = 0, n_skipped = 0;
    if (!read_record(in, &header) || col(&header, "tokens_per_s_per_gpu") < 0) {
        fprintf(stderr, "accuracy_throughput: %s: no header with 'tokens_per_s_per_gpu'\n", csv);
        fclose(in);
        gpuplan_catalog_free(catalog);
        return 2;
    }
    double lib_fp8 = 1.0;
    printf("%-9s %-16s %-6s %-10s %-13s %-14s %5s %9s %9s %7s  %s\n", "row", "model", "method",
           "precision", "stack", "gpu", "gpus", "measured", "library", "error",
           fit ? "implied_eff (eff)" : "bottleneck");
    while (read_record(in, &r) && n_err < MAX_ROWS && n_err < SC_MAX_ROWS) {
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
        struct scored *sc = &rows[n_err];
        struct sc_row *sr = &srows[n_err];
        lib_err[n_err] = (predicted - measured) / measured;
        n_err++;
        memset(sc, 0, sizeof *sc);
        memset(sr, 0, sizeof *sr);
        snprintf(sc->id, sizeof sc->id, "%s", id);
        const char *src = field(&header, &r, "source");
        sc_family(src, sc->source, sizeof sc->source);
        snprintf(sc->pair_key, sizeof sc->pair_key, "%.*s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s",
                 (int)strcspn(src, " "), src, cm->id, gpu->id, field(&header, &r, "n_gpus"),
                 field(&header, &r, "seq_len"), field(&header, &r, "micro_batch"),
                 field(&header, &r, "grad_accum"), field(&header, &r, "method"),
                 field(&header, &r, "tp"), field(&header, &r, "pp"), field(&header, &r, "cp"),
                 field(&header, &r, "sharding"));
        snprintf(sc->family, sizeof sc->family, "%s %s", gpu->architecture,
                 gpu->compute_capability[0] ? gpu->compute_capability : gpu->gfx_target);
        sc->measured = measured;
        sc->predicted = predicted;
        sc->job = job;
        sc->gpu = gpu;
        sc->platform = sys.platform;
        sc->profile = profile;
        sc->fp8 = job.precision == GPUPLAN_PRECISION_FP8_MIXED;
        /* Large-GEMM limits: the generation constant, and with the job's precision. */
        const double big = 1e15;
        sc->gen_lib = gpuplan_throughput_efficiency(gpu, GPUPLAN_PRECISION_BF16_MIXED, big, big);
        const double base = gpuplan_throughput_efficiency(gpu, job.precision, big, big);
        sc->prec = sc->gen_lib > 0 ? base / sc->gen_lib : 1.0;
        if (sc->fp8)
            lib_fp8 = sc->prec;
        sc->size = base > 0 ? t.efficiency / base : 1.0;
        implied_constant(sc);
        sc->fit_ok = strcmp(field(&header, &r, "throughput_kind"), "upper-bound") != 0 &&
                     !sc->implied_capped && sc->implied * sc->size * sc->prec <= FIT_MAX_EFFICIENCY;
        snprintf(sr->id, sizeof sr->id, "%s", id);
        snprintf(sr->family, sizeof sr->family, "%s", sc->source);
        const char *stack = field(&header, &r, "stack");
        snprintf(sr->stack, sizeof sr->stack, "%s", stack[0] ? stack : "unknown");
        const char *method = field(&header, &r, "method");
        snprintf(sr->method, sizeof sr->method, "%s",
                 strcmp(method, "dora") == 0 ? "lora" : method);
        snprintf(sr->kind, sizeof sr->kind, "-");
        sr->is_new = strncmp(id, "NT-", 3) == 0;
        printf("%-9s %-16s %-6s %-10s %-13s %-14s %5u %9.0f %9.0f %+6.1f%%  ", id, cm->id,
               gpuplan_method_name(job.method), gpuplan_precision_name(job.precision), sr->stack,
               gpu->id, job.gpus_per_node * job.nodes, measured, predicted,
               100.0 * lib_err[n_err - 1]);
        if (fit)
            printf("%s%.3f (%.3f)%s\n", sc->implied_capped ? ">" : "", sc->implied, sc->gen_lib,
                   sc->fit_ok ? "" : " not fitted");
        else
            printf("%s\n", gpuplan_bottleneck_name(t.bottleneck));
        gpuplan_model_release(&model);
    }
    fclose(in);
    if (n_err == 0) {
        gpuplan_catalog_free(catalog);
        fputs("accuracy_throughput: no scorable rows\n", stderr);
        puts("0 passed, 1 failed");
        return 1;
    }

    /* Per generation: the constant in the library and the median implied one (the fit). */
    size_t n_pairs_all = 0;
    const double fp8_all = fp8_refit(rows, n_err, NULL, lib_fp8, &n_pairs_all);
    if (fit) {
        printf("\n%-22s %5s %9s %9s\n", "generation", "rows", "library", "fit");
        for (size_t i = 0; i < n_err; i++) {
            bool seen = false;
            for (size_t j = 0; j < i && !seen; j++)
                seen = strcmp(rows[j].family, rows[i].family) == 0;
            if (seen)
                continue;
            double all = 0;
            size_t n_all = 0;
            gen_refit(rows, n_err, rows[i].family, NULL, lib_fp8, fp8_all, &all, &n_all);
            printf("%-22s %5zu %9.3f %9.3f\n", rows[i].family, n_all, rows[i].gen_lib, all);
        }
        printf("FP8 factor: library %.3f, refit on %zu fp8/bf16 pairs %.3f\n", lib_fp8, n_pairs_all,
               fp8_all);
    }

    /* In sample (refit on all rows) and out of sample (refit without the row's family). */
    size_t n_nofit = 0, n_nofp8 = 0;
    printf("\nout of sample (leave-one-source-family-out refit of GEN_EFF and FP8_FACTOR):\n");
    for (size_t i = 0; i < n_err; i++) {
        const struct scored *sc = &rows[i];
        double gen_in = sc->gen_lib, gen_out = sc->gen_lib;
        size_t n_in = 0, n_out = 0, n_pairs = 0;
        gen_refit(rows, n_err, sc->family, NULL, lib_fp8, fp8_all, &gen_in, &n_in);
        const double fp8_out = fp8_refit(rows, n_err, sc->source, lib_fp8, &n_pairs);
        if (sc->fp8 && n_pairs == 0)
            n_nofp8++;
        if (!gen_refit(rows, n_err, sc->family, sc->source, lib_fp8, fp8_out, &gen_out, &n_out)) {
            gen_out = sc->gen_lib;
            n_nofit++;
        }
        const double p_in = predict_refit(sc, gen_in, fp8_all);
        const double p_out = predict_refit(sc, gen_out, fp8_out);
        srows[i].err_in = (p_in - sc->measured) / sc->measured;
        srows[i].err_out = (p_out - sc->measured) / sc->measured;
        printf("  %-9s %-8s %-13s %-20s constant %.3f (%zu rows)%s  predicted %9.0f  %+6.1f%%\n",
               sc->id, sc->source, srows[i].stack, sc->family, gen_out, n_out,
               n_out ? "" : " no fit data", p_out, 100.0 * srows[i].err_out);
    }
    /* The rows point into the catalog (GPUs, platforms): free it after the last prediction. */
    gpuplan_catalog_free(catalog);
    const size_t n = n_err;
    printf("\ncolumns: cp, ep and vpp are read (ring attention, expert parallelism with its "
           "all-to-all, the interleaved schedule's bubble); dp is not read (the job derives it "
           "from n_gpus / (tp x pp), context-parallel ranks included); stack picks the "
           "fused-kernel default (megatron: fused), the MoE experts' kernels (megatron, "
           "torchtitan: grouped GEMM; others: a per-expert loop), Megatron's overlapped "
           "parameter all-gather, and the tables.\n");
    printf("\nthroughput, headline: out of sample, signed error = (predicted - measured) / "
           "measured (under = predicted slower than measured):\n");
    static bool take[SC_MAX_ROWS];
    static struct sc_row lib_rows[SC_MAX_ROWS];
    for (size_t i = 0; i < n; i++) {
        lib_rows[i] = srows[i];
        lib_rows[i].err_in = lib_rows[i].err_out = lib_err[i];
    }
    sc_print_stats("library constants, all rows", sc_stats_of(lib_rows, n, NULL, true));
    for (size_t i = 0; i < n; i++)
        take[i] = !srows[i].is_new;
    const struct sc_stats gt_lib = sc_stats_of(lib_rows, n, take, true);
    sc_print_stats("  library constants, GT- rows", gt_lib);
    const struct sc_stats st_in = sc_stats_of(srows, n, NULL, false);
    const struct sc_stats st_out = sc_stats_of(srows, n, NULL, true);
    sc_print_stats("in sample (refit on all rows)", st_in);
    sc_print_stats("OUT OF SAMPLE (headline)", st_out);
    for (size_t i = 0; i < n; i++)
        take[i] = srows[i].is_new;
    sc_print_stats("  rows of the new sources (NT-)", sc_stats_of(srows, n, take, true));
    for (size_t i = 0; i < n; i++)
        take[i] = !srows[i].is_new;
    sc_print_stats("  rows of the older sources (GT-)", sc_stats_of(srows, n, take, true));
    printf("  scored %zu rows, skipped %zu; %zu rows without other-source fit data for their "
           "GPU generation; %zu fp8 rows without another source's fp8/bf16 pair; FP8 factor: "
           "library %.3f, in-sample refit %.3f (%zu pairs)\n",
           n, n_skipped, n_nofit, n_nofp8, lib_fp8, fp8_all, n_pairs_all);

    sc_print_table("per stack", srows, n, SC_BY_STACK);
    sc_print_table("per method", srows, n, SC_BY_METHOD);
    sc_print_table("per source family", srows, n, SC_BY_FAMILY);

    static char table[65536];
    sc_interval_table("throughput", srows, n, table, sizeof table);
    sc_print_intervals(table);
    const double cov = sc_print_coverage("throughput", srows, n);
    if (write_path) {
        if (!sc_write_intervals(write_path, table, stamp)) {
            fprintf(stderr, "accuracy_throughput: cannot write '%s'\n", write_path);
            return 1;
        }
        printf("wrote %s\n", write_path);
    }
    if (t_median >= 0 || t_cov >= 0) {
        printf("\nissue targets (reported, not gated here):\n");
        if (t_median >= 0)
            printf("target: throughput out-of-sample median %.1f %% (target <= %.0f %%): %s\n",
                   100.0 * st_out.median_abs, 100.0 * t_median,
                   st_out.median_abs <= t_median ? "met" : "NOT MET");
        if (t_cov >= 0)
            printf("target: throughput interval coverage %.1f %% (target >= %.0f %%): %s\n",
                   100.0 * cov, 100.0 * t_cov, cov >= t_cov ? "met" : "NOT MET");
    }
    if (max_median < 0 && max_p90 < 0 && min_cov < 0 && max_gt_lib < 0 && !check_path)
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
        GATE(st_out.median_abs <= max_median,
             "throughput out-of-sample median %.1f %% over %zu rows (max %.1f %%)",
             100.0 * st_out.median_abs, n, 100.0 * max_median);
    if (max_p90 >= 0)
        GATE(st_out.p90_abs <= max_p90, "throughput out-of-sample p90 %.1f %% (max %.1f %%)",
             100.0 * st_out.p90_abs, 100.0 * max_p90);
    if (min_cov >= 0)
        GATE(cov >= min_cov, "throughput interval coverage %.1f %% (min %.1f %%)", 100.0 * cov,
             100.0 * min_cov);
    if (max_gt_lib >= 0)
        GATE(gt_lib.median_abs <= max_gt_lib,
             "throughput median on the GT- rows with the library constants %.1f %% over %zu "
             "rows (max %.1f %%)",
             100.0 * gt_lib.median_abs, gt_lib.n, 100.0 * max_gt_lib);
    if (check_path)
        GATE(sc_check_intervals(check_path, table), "%s matches what the tool computes now",
             check_path);
#undef GATE
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
