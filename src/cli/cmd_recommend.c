/*
 * cmd_recommend.c - `gpuplan recommend MODEL [options]`: search the catalog
 * for the servers that fine-tune or serve MODEL, rank them, and optionally
 * write the top plan's launch configuration (--emit).
 *
 * Job options go through the library's option table (gpuplan_job_set); the
 * options the user gives for method, precision, micro-batch, checkpointing,
 * sharding, offload and serving formats fix those knobs, the rest are
 * searched. The planner's own options are in planner_options[] below.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "gpuplan/plan.h"
#include "i18n.h"

static const struct {
    const char *name;
    const char *arg;
    const char *help;
} planner_options[] = {
    { "deadline-hours", "H", N_("finish the training within H hours (needs --tokens)") },
    { "budget", "USD", N_("cloud cost of the run (on-prem: capex) at most USD") },
    { "on-prem", "", N_("buy: GPU counts as the platforms sell them") },
    { "cloud", "", N_("rent: any 1/2/4/8-GPU slice with a catalog cloud rate") },
    { "max-gpus", "N", N_("at most N GPUs in all (default 64)") },
    { "vendor", "nvidia|amd|intel|any", N_("only this vendor's GPUs (default any)") },
    { "gpu", "ID,...", N_("only these catalog GPUs") },
    { "objective", "cost|time|gpus|capex",
      N_("what to minimise (default cost: the cloud run; on-prem: its share of owning)") },
    { "top", "K", N_("recommendations to show, 1..16 (default 5)") },
    { "emit", "deepspeed|accelerate|torchrun|slurm",
      N_("print the top plan's launch configuration") },
    { "concurrency", "N", N_("serving: concurrent sequences (same as --batch)") },
    { "target-tokens-per-s", "N", N_("serving: decode tokens/s each user must get") },
    { "headroom", "F", N_("fraction of GPU memory kept free (default 0.05)") },
};

static void print_help(void)
{
    fputs(_("usage: gpuplan recommend MODEL [OPTIONS]\n\n"
            "Search every catalog GPU, server and layout for MODEL; rank by the objective.\n\n"
            "planner options:\n"),
          stdout);
    for (size_t i = 0; i < sizeof planner_options / sizeof planner_options[0]; i++) {
        char left[96];
        snprintf(left, sizeof left, "--%s %s", planner_options[i].name, planner_options[i].arg);
        printf("  %-44s %s\n", left, _(planner_options[i].help));
    }
    fputs(_("\njob options (fixing one stops the planner from searching it):\n"), stdout);
    for (const struct gpuplan_job_option *o = gpuplan_job_options; o->name; o++) {
        if (strcmp(o->name, "gpu") == 0 || strcmp(o->name, "nodes") == 0)
            continue;
        char left[96];
        snprintf(left, sizeof left, "--%s %s", o->name, o->arg_name ? o->arg_name : "");
        printf(_("  %-44s %s (default: %s)\n"), left, _(o->help), _(o->default_text));
    }
    fputs(_("  --format text|json                           output format (default: text)\n"
            "  --catalog DIR                                extra catalog files\n"
            "  --help                                       this help\n"),
          stdout);
}

static bool is_flag(const char *name)
{
    return strcmp(name, "on-prem") == 0 || strcmp(name, "cloud") == 0;
}

static int parse_real(const char *name, const char *value, double *out)
{
    if (!gpuplan_parse_double(value, out) || *out < 0.0)
        return cli_usage_error("recommend", "'--%s' is '%s'; must be a number >= 0", name, value);
    return -1;
}

static int parse_gpu_list(struct gpuplan_plan_request *req, const char *value)
{
    req->n_gpu_ids = 0;
    const char *p = value;
    while (*p) {
        const size_t n = strcspn(p, ",");
        if (n == 0 || n >= sizeof req->gpu_ids[0] || req->n_gpu_ids >= GPUPLAN_PLAN_MAX_GPU_IDS)
            return cli_usage_error("recommend", "'--gpu %s': want up to %d ids separated by ','",
                                   value, GPUPLAN_PLAN_MAX_GPU_IDS);
        memcpy(req->gpu_ids[req->n_gpu_ids], p, n);
        req->gpu_ids[req->n_gpu_ids][n] = '\0';
        char *colon = strchr(req->gpu_ids[req->n_gpu_ids], ':');
        if (colon)
            *colon = '\0'; /* "h100-sxm:8" from estimate: the count is searched here */
        req->n_gpu_ids++;
        p += n;
        if (*p == ',')
            p++;
    }
    return -1;
}

static int
parse_choice(const char *name, const char *value, const char *const *names, int n, int *out)
{
    for (int i = 0; i < n; i++) {
        if (strcmp(value, names[i]) == 0) {
            *out = i;
            return -1;
        }
    }
    return cli_usage_error("recommend", "unknown value '%s' for '--%s'", value, name);
}

/* A planner option; returns -1 to go on, or an exit code. */
static int planner_option(struct gpuplan_plan_request *req,
                          const char *name,
                          const char *value,
                          const char **emit)
{
    static const char *const objectives[] = { "cost", "time", "gpus", "capex" };
    static const char *const vendors[] = { "nvidia", "amd", "intel", "any" };
    uint64_t count = 0;
    int choice = 0, rc = -1;
    if (strcmp(name, "on-prem") == 0) {
        req->where = GPUPLAN_WHERE_ON_PREM;
    } else if (strcmp(name, "cloud") == 0) {
        req->where = GPUPLAN_WHERE_CLOUD;
    } else if (strcmp(name, "deadline-hours") == 0) {
        rc = parse_real(name, value, &req->deadline_hours);
    } else if (strcmp(name, "budget") == 0) {
        rc = parse_real(name, value, &req->budget_usd);
    } else if (strcmp(name, "target-tokens-per-s") == 0) {
        rc = parse_real(name, value, &req->target_tokens_per_s_per_user);
    } else if (strcmp(name, "headroom") == 0) {
        rc = parse_real(name, value, &req->min_headroom_fraction);
    } else if (strcmp(name, "max-gpus") == 0 || strcmp(name, "top") == 0) {
        if (!gpuplan_parse_count(value, &count) || count == 0 || count > 4096)
            return cli_usage_error("recommend", "'--%s' is '%s'; must be 1..4096", name, value);
        if (name[0] == 'm')
            req->max_gpus = (uint32_t)count;
        else
            req->top_k = (uint32_t)count;
    } else if (strcmp(name, "objective") == 0) {
        rc = parse_choice(name, value, objectives, 4, &choice);
        req->objective = (enum gpuplan_plan_objective)choice;
    } else if (strcmp(name, "vendor") == 0) {
        rc = parse_choice(name, value, vendors, 4, &choice);
        req->vendor = choice == 3 ? GPUPLAN_PLAN_ANY_VENDOR : choice;
    } else if (strcmp(name, "gpu") == 0) {
        rc = parse_gpu_list(req, value);
    } else if (strcmp(name, "emit") == 0) {
        *emit = value;
    } else {
        return 0; /* not a planner option */
    }
    return rc;
}

/* Mark the knobs the user fixed, then set the job option. */
static enum gpuplan_status job_option(struct gpuplan_plan_request *req,
                                      const char *name,
                                      const char *value,
                                      struct gpuplan_error *err)
{
    const char *job_name = strcmp(name, "concurrency") == 0 ? "batch" : name;
    const enum gpuplan_status st = gpuplan_job_set(&req->job, job_name, value, err);
    if (st != GPUPLAN_OK)
        return st;
    gpuplan_plan_request_mark_fixed(req, name);
    return GPUPLAN_OK;
}

/* Parse argv into the request; -1 to go on, or an exit code. */
static int parse_args(int argc,
                      char **argv,
                      struct gpuplan_plan_request *req,
                      enum gpuplan_format *format,
                      const char **catalog_dir,
                      const char **model_name,
                      const char **emit)
{
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            print_help();
            return CLI_OK;
        }
        if (strncmp(arg, "--", 2) != 0) {
            if (*model_name)
                return cli_usage_error("recommend", "unexpected argument '%s'", arg);
            *model_name = arg;
            continue;
        }
        char name[64];
        const char *eq = strchr(arg + 2, '=');
        const size_t n = eq ? (size_t)(eq - arg - 2) : strlen(arg + 2);
        if (n >= sizeof name)
            return cli_usage_error("recommend", "unknown option '%s'", arg);
        memcpy(name, arg + 2, n);
        name[n] = '\0';
        const char *value = eq ? eq + 1 : NULL;
        if (!value && !is_flag(name)) {
            if (i + 1 >= argc)
                return cli_usage_error("recommend", "option '--%s' needs a value", name);
            value = argv[++i];
        }
        if (strcmp(name, "nodes") == 0 || strcmp(name, "tp") == 0 || strcmp(name, "pp") == 0)
            return cli_usage_error("recommend", "'--%s' is searched by the planner; use --max-gpus",
                                   name);
        if (strcmp(name, "format") == 0) {
            if (gpuplan_format_parse(value, GPUPLAN_RENDER_PLAN_FORMATS, format, &err) !=
                GPUPLAN_OK)
                return cli_report(&err);
            continue;
        }
        if (strcmp(name, "catalog") == 0) {
            *catalog_dir = value;
            continue;
        }
        const int rc = planner_option(req, name, value, emit);
        if (rc > 0)
            return rc;
        if (rc < 0)
            continue;
        if (job_option(req, name, value, &err) != GPUPLAN_OK)
            return cli_report(&err);
    }
    if (!*model_name)
        return cli_usage_error("recommend", "missing MODEL");
    return -1;
}

/*
 * --gpu local: plan only for the GPUs of this machine: their catalog id, at
 * most their count, on one node. The search takes the catalog's figures for
 * that id (estimate --gpu local also uses the detected memory).
 */
static enum gpuplan_status restrict_to_local(const struct gpuplan_catalog *catalog,
                                             struct gpuplan_plan_request *req,
                                             struct gpuplan_error *err)
{
    if (req->n_gpu_ids != 1 || strcmp(req->gpu_ids[0], "local") != 0)
        return GPUPLAN_OK;
    struct gpuplan_gpu local;
    uint32_t count = 0;
    enum gpuplan_status st = cli_local_gpu(catalog, &local, &count, err);
    if (st != GPUPLAN_OK)
        return st;
    (void)snprintf(req->gpu_ids[0], sizeof req->gpu_ids[0], "%s", local.id);
    req->max_gpus = count;
    return GPUPLAN_OK;
}

int cmd_recommend(int argc, char **argv)
{
    struct gpuplan_plan_request req;
    gpuplan_plan_request_init(&req);
    enum gpuplan_format format = GPUPLAN_FORMAT_TEXT;
    const char *catalog_dir = NULL, *model_name = NULL, *emit_name = NULL;
    int rc = parse_args(argc, argv, &req, &format, &catalog_dir, &model_name, &emit_name);
    if (rc >= 0)
        return rc;
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    enum gpuplan_engine engine = GPUPLAN_ENGINE_DEEPSPEED;
    if (emit_name && gpuplan_engine_parse(emit_name, &engine, &err) != GPUPLAN_OK)
        return cli_report(&err);

    rc = CLI_OK;
    struct gpuplan_catalog *catalog = NULL;
    struct gpuplan_model model;
    struct gpuplan_buf out;
    struct gpuplan_plan_result *result = calloc(1, sizeof *result);
    gpuplan_model_init(&model);
    gpuplan_buf_init(&out, GPUPLAN_BUF_DEFAULT_MAX_BYTES);
    if (!result) {
        gpuplan_error_set(&err, GPUPLAN_ERR_NOMEM, NULL, "out of memory");
        rc = cli_report(&err);
        goto out;
    }
    if (gpuplan_catalog_load(&catalog, catalog_dir, &err) != GPUPLAN_OK ||
        cli_load_model(&model, model_name, catalog, &err) != GPUPLAN_OK ||
        restrict_to_local(catalog, &req, &err) != GPUPLAN_OK ||
        gpuplan_plan_run(&model, catalog, &req, result, &err) != GPUPLAN_OK) {
        rc = cli_report(&err);
        goto out;
    }
    if (emit_name) {
        if (result->n_top == 0) {
            gpuplan_error_set(&err, GPUPLAN_ERR_UNSUPPORTED, "--emit",
                              "no plan meets the constraints; nothing to emit");
            rc = cli_report(&err);
            goto out;
        }
        if (gpuplan_emit(&result->top[0], engine, &out, &err) != GPUPLAN_OK) {
            rc = cli_report(&err);
            goto out;
        }
    } else if (gpuplan_render_plan(result, format, &out, &err) != GPUPLAN_OK) {
        rc = cli_report(&err);
        goto out;
    }
    rc = cli_write_buf(&out);
out:
    free(result);
    gpuplan_buf_release(&out);
    gpuplan_model_release(&model);
    gpuplan_catalog_free(catalog);
    return rc;
}
