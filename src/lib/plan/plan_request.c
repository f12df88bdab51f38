/*
 * plan_request.c - the planner's request: its option table
 * (gpuplan_plan_options: the options of `gpuplan recommend` beyond the job,
 * and the same fields of POST /v1/recommend), its defaults, and which job
 * knobs a given option fixes.
 *
 * Not here: the search (plan_search.c), the server spec (plan_server.c),
 * the reasons and warnings (plan_explain.c), the run (plan.c).
 */
#include "gpuplan/plan.h"

#include <stddef.h>
#include <string.h>

#include "util/i18n_internal.h"

static const char *const objective_names[] = { "cost", "time", "gpus", "capex", NULL };
static const char *const vendor_names[] = { "nvidia", "amd", "intel", "any", NULL };
static const int vendor_values[] = { GPUPLAN_VENDOR_NVIDIA, GPUPLAN_VENDOR_AMD,
                                     GPUPLAN_VENDOR_INTEL, GPUPLAN_PLAN_ANY_VENDOR };

/* GPUs in all: what the search supports (plan.h); more is a usage error, never a cap. */
#define MAX_GPUS GPUPLAN_PLAN_MAX_GPUS
/* A run past 10 years is no run; hours of use per day at most 24. */
#define MAX_RUN_DAYS  3650.0
#define HOURS_PER_DAY 24.0
/* A deadline past 10^6 hours (114 years) or a budget past 10^12 USD means "none". */
#define MAX_DEADLINE_HOURS 1e6
#define MAX_BUDGET_USD     1e12
/* Serving: 10^6 requests/s is past any deployment; a latency target past an hour means none. */
#define MAX_REQUEST_RATE 1e6
#define MAX_TARGET_MS    3.6e6
/* The share of GPU memory kept free; at 0.99 nothing would fit. */
#define MAX_HEADROOM_FRACTION 0.99

/* --gpu a,b: only these catalog GPUs (a ":N" count is dropped: the planner searches it). */
static enum gpuplan_status set_gpu_ids(void *dest,
                                       const struct gpuplan_option *opt,
                                       const char *value,
                                       struct gpuplan_error *err)
{
    (void)opt;
    struct gpuplan_plan_request *req = dest;
    char ids[GPUPLAN_PLAN_MAX_GPU_IDS][sizeof req->gpu_ids[0]];
    size_t n_ids = 0;
    for (const char *p = value; *p;) {
        const size_t n = strcspn(p, ",");
        if (n == 0 || n >= sizeof ids[0] || n_ids >= GPUPLAN_PLAN_MAX_GPU_IDS)
            return gpuplan_error_set(err, GPUPLAN_ERR_USAGE, NULL,
                                     "'--gpu' is '%.64s'; want up to %d catalog ids separated by "
                                     "','",
                                     value, GPUPLAN_PLAN_MAX_GPU_IDS);
        char *id = ids[n_ids++];
        memcpy(id, p, n);
        id[n] = '\0';
        char *colon = strchr(id, ':');
        if (colon)
            *colon = '\0'; /* "h100-sxm:8" as estimate takes it: the count is searched here */
        p += n;
        if (*p == ',')
            p++;
    }
    memcpy(req->gpu_ids, ids, n_ids * sizeof ids[0]);
    req->n_gpu_ids = n_ids;
    return GPUPLAN_OK;
}

/* --allow fp8,rocm,gaudi,geforce (or all): what a plan may assume beyond the standard stack. */
static const struct {
    const char *name;
    uint32_t bit;
} allow_names[] = {
    { "fp8", GPUPLAN_ALLOW_FP8 },       { "rocm", GPUPLAN_ALLOW_ROCM },
    { "gaudi", GPUPLAN_ALLOW_GAUDI },   { "geforce", GPUPLAN_ALLOW_GEFORCE },
    { "legacy", GPUPLAN_ALLOW_LEGACY }, { "all", GPUPLAN_ALLOW_ALL },
};
static enum gpuplan_status set_allow(void *dest,
                                     const struct gpuplan_option *opt,
                                     const char *value,
                                     struct gpuplan_error *err)
{
    (void)opt;
    struct gpuplan_plan_request *req = dest;
    uint32_t bits = 0;
    for (const char *p = value; *p;) {
        const size_t n = strcspn(p, ",");
        bool known = false;
        for (size_t i = 0; i < sizeof allow_names / sizeof allow_names[0]; i++) {
            if (n == strlen(allow_names[i].name) && strncmp(p, allow_names[i].name, n) == 0) {
                bits |= allow_names[i].bit;
                known = true;
            }
        }
        if (!known) {
            gpuplan_error_set(err, GPUPLAN_ERR_USAGE, NULL, "'--allow' is '%.64s'; unknown '%.*s'",
                              value, (int)(n < 32 ? n : 32), p);
            gpuplan_error_hint(err, "want a list of fp8, rocm, gaudi, geforce, legacy, or all");
            return GPUPLAN_ERR_USAGE;
        }
        p += n;
        if (*p == ',')
            p++;
    }
    req->allow = bits;
    return GPUPLAN_OK;
}

#define REQ(field) GPUPLAN_OPTION_AT(struct gpuplan_plan_request, field)
#define NO_SET     .set_offset = GPUPLAN_OPTION_NO_SET

const struct gpuplan_option gpuplan_plan_options[] = {
    { .name = "deadline-hours",
      .kind = GPUPLAN_OPTION_REAL,
      .field = GPUPLAN_FIELD_DOUBLE,
      REQ(deadline_hours),
      NO_SET,
      .arg = "H",
      .help = GPUPLAN_N_("finish the training within H hours (needs --tokens)"),
      .default_doc = GPUPLAN_N_("none"),
      .real_min = 0.0,
      .real_max = MAX_DEADLINE_HOURS },
    { .name = "budget",
      .kind = GPUPLAN_OPTION_REAL,
      .field = GPUPLAN_FIELD_DOUBLE,
      REQ(budget_usd),
      .set_offset = offsetof(struct gpuplan_plan_request, budget_given),
      .arg = "USD",
      .help = GPUPLAN_N_("cloud cost of the run (on-prem: capex) at most USD"),
      .default_doc = GPUPLAN_N_("none"),
      .real_min = 0.0,
      .real_max = MAX_BUDGET_USD },
    { .name = "max-run-days",
      .kind = GPUPLAN_OPTION_REAL,
      .field = GPUPLAN_FIELD_DOUBLE,
      REQ(max_run_days),
      NO_SET,
      .arg = "D",
      .help = GPUPLAN_N_("without --deadline-hours, do not recommend runs longer than D days"),
      .default_value = "30",
      .real_min = 0.0,
      .real_max = MAX_RUN_DAYS },
    { .name = "hours-per-day",
      .kind = GPUPLAN_OPTION_REAL,
      .field = GPUPLAN_FIELD_DOUBLE,
      REQ(hours_per_day),
      NO_SET,
      .arg = "H",
      .help = GPUPLAN_N_("on-prem: the servers are used H hours a day (ranks by own cost, the TCO "
                         "share of a run)"),
      .default_doc = GPUPLAN_N_("none: rank by capex"),
      .real_min = 0.0,
      .real_max = HOURS_PER_DAY },
    { .name = "allow",
      .kind = GPUPLAN_OPTION_TEXT,
      .field = GPUPLAN_FIELD_NONE,
      NO_SET,
      .arg = "WHAT,...",
      .help = GPUPLAN_N_("beyond the standard CUDA stack: fp8 (training), rocm, gaudi, geforce "
                         "(in a server or cloud), legacy (below compute capability 8.0), all"),
      .default_doc = GPUPLAN_N_("none: standard stack only"),
      .parse = set_allow },
    { .name = "on-prem",
      .kind = GPUPLAN_OPTION_FLAG,
      .field = GPUPLAN_FIELD_INT,
      REQ(where),
      NO_SET,
      .help = GPUPLAN_N_("buy: GPU counts as the platforms sell them"),
      .flag_value = GPUPLAN_WHERE_ON_PREM },
    { .name = "cloud",
      .kind = GPUPLAN_OPTION_FLAG,
      .field = GPUPLAN_FIELD_INT,
      REQ(where),
      NO_SET,
      .help = GPUPLAN_N_("rent: any 1/2/4/8-GPU slice (a superchip tray whole) with a catalog "
                         "cloud rate"),
      .flag_value = GPUPLAN_WHERE_CLOUD },
    { .name = "max-gpus",
      .kind = GPUPLAN_OPTION_COUNT,
      .field = GPUPLAN_FIELD_U32,
      REQ(max_gpus),
      NO_SET,
      .arg = "N",
      .help = GPUPLAN_N_("at most N GPUs in all"),
      .default_value = "64",
      .count_min = 1,
      .count_max = MAX_GPUS },
    { .name = "vendor",
      .kind = GPUPLAN_OPTION_CHOICE,
      .field = GPUPLAN_FIELD_INT,
      REQ(vendor),
      NO_SET,
      .help = GPUPLAN_N_("only this vendor's GPUs"),
      .default_value = "any",
      .choices = vendor_names,
      .choice_values = vendor_values },
    { .name = "gpu",
      .kind = GPUPLAN_OPTION_TEXT,
      .field = GPUPLAN_FIELD_NONE,
      NO_SET,
      .arg = "ID,...",
      .help = GPUPLAN_N_("only these catalog GPUs"),
      .default_doc = GPUPLAN_N_("every catalog GPU"),
      .parse = set_gpu_ids },
    { .name = "objective",
      .kind = GPUPLAN_OPTION_CHOICE,
      .field = GPUPLAN_FIELD_INT,
      REQ(objective),
      NO_SET,
      .help = GPUPLAN_N_("what to minimise (cost: the cloud run; on-prem: the capex, or with "
                         "--hours-per-day the own cost of the run)"),
      .default_value = "cost",
      .choices = objective_names },
    { .name = "top",
      .kind = GPUPLAN_OPTION_COUNT,
      .field = GPUPLAN_FIELD_U32,
      REQ(top_k),
      NO_SET,
      .arg = "K",
      .help = GPUPLAN_N_("recommendations to show"),
      .default_value = "5",
      .count_min = 1,
      .count_max = GPUPLAN_PLAN_MAX_TOP },
    { .name = "request-rate",
      .kind = GPUPLAN_OPTION_REAL,
      .field = GPUPLAN_FIELD_DOUBLE,
      REQ(request_rate_per_s),
      NO_SET,
      .arg = "R",
      .help = GPUPLAN_N_("serving: requests per second all replicas sustain (instead of "
                         "--concurrency)"),
      .default_doc = GPUPLAN_N_("none: --concurrency requests in flight"),
      .real_min = 0.0,
      .real_max = MAX_REQUEST_RATE },
    { .name = "ttft-ms",
      .kind = GPUPLAN_OPTION_REAL,
      .field = GPUPLAN_FIELD_DOUBLE,
      REQ(target_ttft_ms),
      NO_SET,
      .arg = "MS",
      .help = GPUPLAN_N_("serving: time to first token at most MS milliseconds"),
      .default_doc = GPUPLAN_N_("none"),
      .real_min = 0.0,
      .real_max = MAX_TARGET_MS },
    { .name = "tpot-ms",
      .kind = GPUPLAN_OPTION_REAL,
      .field = GPUPLAN_FIELD_DOUBLE,
      REQ(target_tpot_ms),
      NO_SET,
      .arg = "MS",
      .help = GPUPLAN_N_("serving: time per output token (after the first) at most MS "
                         "milliseconds"),
      .default_doc = GPUPLAN_N_("none"),
      .real_min = 0.0,
      .real_max = MAX_TARGET_MS },
    { .name = "headroom",
      .kind = GPUPLAN_OPTION_REAL,
      .field = GPUPLAN_FIELD_DOUBLE,
      REQ(min_headroom_fraction),
      NO_SET,
      .arg = "F",
      .help = GPUPLAN_N_("fraction of GPU memory kept free"),
      .default_value = "0.05",
      .real_min = 0.0,
      .real_max = MAX_HEADROOM_FRACTION },
    { .name = NULL },
};

void gpuplan_plan_request_init(struct gpuplan_plan_request *req)
{
    memset(req, 0, sizeof *req);
    gpuplan_job_init(&req->job);
    /* The table's defaults (a failure is a table bug the unit tests catch). */
    (void)gpuplan_options_init(gpuplan_plan_options, req, NULL);
}

void gpuplan_plan_request_mark_fixed(struct gpuplan_plan_request *req,
                                     const struct gpuplan_option *job_option)
{
    switch ((enum gpuplan_job_axis)job_option->axis) {
    case GPUPLAN_AXIS_METHOD:
        req->method_fixed = true;
        break;
    case GPUPLAN_AXIS_PRECISION:
        req->precision_fixed = true;
        break;
    case GPUPLAN_AXIS_MICRO_BATCH:
        req->micro_batch_fixed = true;
        break;
    case GPUPLAN_AXIS_GRAD_CKPT:
        req->grad_ckpt_fixed = true;
        break;
    case GPUPLAN_AXIS_SHARDING:
        req->sharding_fixed = true;
        break;
    case GPUPLAN_AXIS_OFFLOAD:
        req->offload_fixed = true;
        break;
    case GPUPLAN_AXIS_WEIGHTS:
        req->weights_fixed = true;
        break;
    case GPUPLAN_AXIS_KV_DTYPE:
        req->kv_fixed = true;
        break;
    case GPUPLAN_AXIS_NONE:
    case GPUPLAN_AXIS_COUNT:
        break;
    }
}

const char *gpuplan_plan_objective_name(enum gpuplan_plan_objective objective)
{
    return (unsigned)objective < GPUPLAN_OBJECTIVE_COUNT ? objective_names[objective] : "unknown";
}

const char *gpuplan_plan_where_name(enum gpuplan_plan_where where)
{
    static const char *const names[GPUPLAN_WHERE_COUNT] = { "any", "on-prem", "cloud" };
    return (unsigned)where < GPUPLAN_WHERE_COUNT ? names[where] : "unknown";
}
