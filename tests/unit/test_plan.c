/*
 * test_plan.c - the planner on the embedded catalog: constraints hold for
 * every recommendation, ranking follows the objective, the Pareto set is
 * non-dominated, fixed knobs stay fixed, server specs respect the seed's
 * floors, bad requests fail with helpful errors, and the JSON carries the
 * documented contract.
 */
#include "test_common.h"

#include <jansson.h>
#include <math.h>

#include "gpuplan/catalog.h"
#include "gpuplan/cost.h"
#include "gpuplan/options.h"
#include "gpuplan/plan.h"
#include "gpuplan/render.h"
#include "gpuplan/units.h"

static struct gpuplan_catalog *catalog;

static int setup(void **state)
{
    (void)state;
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    return gpuplan_catalog_load(&catalog, NULL, &err) == GPUPLAN_OK ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    gpuplan_catalog_free(catalog);
    return 0;
}

/* Run the planner for `model_id`; the result is heap-allocated (free it). */
static struct gpuplan_plan_result *
run(const char *model_id, const struct gpuplan_plan_request *req, enum gpuplan_status want)
{
    struct gpuplan_model model;
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    gpuplan_model_init(&model);
    assert_int_equal(gpuplan_model_load(&model, model_id, catalog, &err), GPUPLAN_OK);
    struct gpuplan_plan_result *r = calloc(1, sizeof *r);
    assert_non_null(r);
    const enum gpuplan_status st = gpuplan_plan_run(&model, catalog, req, r, &err);
    if (st != want)
        fprintf(stderr, "plan_run: %s (%s)\n", err.message, err.hint);
    assert_int_equal(st, want);
    gpuplan_model_release(&model);
    return r;
}

static void check_host_limits(const struct gpuplan_plan *p)
{
    if (!p->platform)
        return;
    if (p->platform->ram_max_bytes) {
        assert_true(p->host_ram_needed_bytes <= p->platform->ram_max_bytes);
        assert_true(p->server.ram_bytes <= p->platform->ram_max_bytes);
    }
    if (p->platform->cpu_cores_max)
        assert_true(p->server.cpu_cores <= p->platform->cpu_cores_max);
    for (size_t i = 0; i < p->n_warnings; i++) {
        assert_null(strstr(p->warnings[i], "wanted per server"));
        assert_null(strstr(p->warnings[i], "bays"));
    }
}

static void check_plan_basics(const struct gpuplan_plan *p)
{
    assert_non_null(p->gpu);
    assert_true(p->fits);
    assert_true(p->memory_per_gpu_bytes <= p->usable_bytes);
    assert_true(p->headroom_bytes >= 0);
    assert_true(p->tokens_per_s > 0.0);
    assert_true(p->gpus_per_node >= 1 && p->nodes >= 1);
    assert_true(p->n_reasons >= 1);
    assert_true(p->server.cpu_cores >= 16);
    assert_true(p->server.nvme_bytes > 0);
    /* power per server = GPUs at TDP + the platform's base power (a superchip rack's trays:
     * their share of it) */
    if (p->platform) {
        double base_w = p->platform->base_power_w;
        if (strcmp(p->platform->form_factor, "superchip") == 0 &&
            p->platform->max_gpus > p->gpus_per_node)
            base_w *= (double)p->gpus_per_node / (double)p->platform->max_gpus;
        assert_true(fabs(p->server.power_w - (p->gpus_per_node * p->gpu->tdp_w + base_w)) < 1e-6);
    }
    /* products as sold (issue 14): workstations are not clustered; a superchip rack is
     * rented by whole 4-GPU trays (below) and bought as sold (the constraint rows check the
     * sold counts on-prem) */
    if (p->platform && strcmp(p->platform->form_factor, "workstation") == 0 &&
        p->job.method != GPUPLAN_METHOD_INFER)
        assert_int_equal(p->nodes, 1);
    if (p->platform && strcmp(p->platform->form_factor, "superchip") == 0 &&
        p->job.method != GPUPLAN_METHOD_INFER) {
        assert_int_equal(p->gpus_per_node % 4, 0);
    }
    if (p->job.method != GPUPLAN_METHOD_INFER) {
        /* seed S11: 256 GB minimum, 512 GB+ for 30B+ */
        assert_true(p->server.ram_bytes >= 256ULL * GPUPLAN_BYTES_PER_GIB);
    }
}

struct constraint_row {
    const char *name;
    const char *model;
    enum gpuplan_method method; /* GPUPLAN_METHOD_COUNT: open */
    uint64_t tokens;
    uint32_t max_gpus;
    int vendor;
    enum gpuplan_plan_where where;
    double deadline_hours;
    double budget_usd;
    enum gpuplan_plan_objective objective;
};

static const struct constraint_row rows[] = {
    { "open 8b", "llama-3.1-8b", GPUPLAN_METHOD_COUNT, 1000000000ULL, 64, GPUPLAN_PLAN_ANY_VENDOR,
      GPUPLAN_WHERE_ANY, 0, 0, GPUPLAN_OBJECTIVE_COST },
    { "1 gpu", "llama-3.1-8b", GPUPLAN_METHOD_LORA, 100000000ULL, 1, GPUPLAN_PLAN_ANY_VENDOR,
      GPUPLAN_WHERE_ANY, 0, 0, GPUPLAN_OBJECTIVE_TIME },
    { "amd", "llama-3.1-8b", GPUPLAN_METHOD_FULL, 0, 16, GPUPLAN_VENDOR_AMD, GPUPLAN_WHERE_ANY, 0,
      0, GPUPLAN_OBJECTIVE_GPUS },
    { "on-prem", "llama-3.1-70b", GPUPLAN_METHOD_QLORA, 100000000ULL, 16, GPUPLAN_PLAN_ANY_VENDOR,
      GPUPLAN_WHERE_ON_PREM, 0, 0, GPUPLAN_OBJECTIVE_CAPEX },
    { "cloud", "llama-3.1-70b", GPUPLAN_METHOD_LORA, 100000000ULL, 64, GPUPLAN_PLAN_ANY_VENDOR,
      GPUPLAN_WHERE_CLOUD, 0, 0, GPUPLAN_OBJECTIVE_COST },
    { "deadline", "llama-3.1-8b", GPUPLAN_METHOD_FULL, 2000000000ULL, 64, GPUPLAN_PLAN_ANY_VENDOR,
      GPUPLAN_WHERE_CLOUD, 2.0, 0, GPUPLAN_OBJECTIVE_COST },
    /* a budget between the cheapest run (1 x b200, $66 at the median rates) and the fastest */
    { "budget", "llama-3.1-8b", GPUPLAN_METHOD_LORA, 1000000000ULL, 64, GPUPLAN_PLAN_ANY_VENDOR,
      GPUPLAN_WHERE_CLOUD, 0, 150.0, GPUPLAN_OBJECTIVE_TIME },
    { "on-prem cost", "llama-3.1-70b", GPUPLAN_METHOD_FULL, 1000000000ULL, 64,
      GPUPLAN_VENDOR_NVIDIA, GPUPLAN_WHERE_ON_PREM, 0, 0, GPUPLAN_OBJECTIVE_COST },
    { "no tokens", "llama-3.1-8b", GPUPLAN_METHOD_LORA, 0, 64, GPUPLAN_PLAN_ANY_VENDOR,
      GPUPLAN_WHERE_ON_PREM, 0, 0, GPUPLAN_OBJECTIVE_COST },
};

static double objective_key(const struct gpuplan_plan *p,
                            enum gpuplan_plan_objective o,
                            enum gpuplan_plan_where where)
{
    /* buying: the own cost at a stated use, else the capex (issue 14 item 3) */
    if (o == GPUPLAN_OBJECTIVE_COST && where == GPUPLAN_WHERE_ON_PREM)
        return p->has_own_cost ? p->own_cost_per_mtok_usd : p->capex_usd;
    switch (o) {
    case GPUPLAN_OBJECTIVE_TIME:
        return p->has_time ? p->time_hours : 1.0 / p->tokens_per_s;
    case GPUPLAN_OBJECTIVE_GPUS:
        return p->gpus_per_node * p->nodes;
    case GPUPLAN_OBJECTIVE_CAPEX:
        return p->has_capex ? p->capex_usd : INFINITY;
    default: /* a rate taken from another tier is never ranked by cost (issue 14 item 1) */
        return p->has_cloud_rate && !p->rate_fallback ? p->cost_per_mtok_usd : INFINITY;
    }
}

static void test_constraints_and_ranking(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const struct constraint_row *row = &rows[i];
        struct gpuplan_plan_request req;
        gpuplan_plan_request_init(&req);
        if (row->method != GPUPLAN_METHOD_COUNT) {
            req.job.method = row->method;
            req.method_fixed = true;
        }
        req.job.tokens = row->tokens;
        req.max_gpus = row->max_gpus;
        req.vendor = row->vendor;
        req.where = row->where;
        req.deadline_hours = row->deadline_hours;
        req.budget_usd = row->budget_usd;
        req.objective = row->objective;
        req.top_k = 5;
        struct gpuplan_plan_result *r = run(row->model, &req, GPUPLAN_OK);
        if (r->n_top == 0)
            fail_msg("%s: no plan (%s)", row->name, r->n_notes ? r->notes[0] : "");
        assert_true(r->evaluated >= r->fitting && r->fitting >= r->feasible &&
                    r->feasible >= r->n_top);
        for (size_t k = 0; k < r->n_top; k++) {
            const struct gpuplan_plan *p = &r->top[k];
            check_plan_basics(p);
            assert_true(p->gpus_per_node * p->nodes <= row->max_gpus);
            if (row->method != GPUPLAN_METHOD_COUNT)
                assert_int_equal(p->job.method, row->method);
            if (row->vendor != GPUPLAN_PLAN_ANY_VENDOR)
                assert_int_equal((int)p->gpu->vendor, row->vendor);
            if (row->where == GPUPLAN_WHERE_CLOUD)
                assert_true(p->has_cloud_rate);
            if (row->where == GPUPLAN_WHERE_ON_PREM) {
                bool sold = false;
                for (size_t c = 0; p->platform && c < p->platform->n_gpu_counts; c++)
                    sold |= p->platform->gpu_counts[c] == p->gpus_per_node;
                assert_true(sold);
            }
            if (row->deadline_hours > 0)
                assert_true(p->has_time && p->time_hours <= row->deadline_hours);
            if (row->budget_usd > 0)
                assert_true(p->cost_usd <= row->budget_usd);
            /* what the server must hold fits the platform (else rejected, never warned) */
            check_host_limits(p);
            /* ranking: compromises (offload) last; within a tier never better than the one
             * before it by more than the 5 % near-tie band (fewer GPUs decide inside it) */
            if (k > 0) {
                /* a compromise before a plan without only when it is faster */
                assert_true(!r->top[k - 1].compromise || p->compromise ||
                            r->top[k - 1].time_hours < p->time_hours);
                const double prev = objective_key(&r->top[k - 1], row->objective, row->where);
                const double cur = objective_key(p, row->objective, row->where);
                if (isfinite(cur) && r->top[k - 1].compromise == p->compromise)
                    /* a near tie is 5 % of the larger key (plan_search.c keys_better) */
                    if (!(prev * (1.0 - 0.05) <= cur + 1e-12))
                        fail_msg("%s: #%zu %s (%g) before #%zu %s (%g)", row->name, k,
                                 r->top[k - 1].gpu->id, prev, k + 1, p->gpu->id, cur);
                /* the list gives one plan per GPU type (issue 14 item 5) */
                for (size_t q = 0; q < k; q++)
                    assert_ptr_not_equal(r->top[q].gpu, p->gpu);
            }
            /* on-prem: the own cost is the TCO share of the run */
            if (p->has_own_cost && p->has_time)
                assert_true(fabs(p->own_cost_usd - p->own_usd_per_hour * p->time_hours) <=
                            1e-9 * p->own_cost_usd + 1e-9);
            /* global batch: micro-batch > 1 only within the cap */
            if (p->job.micro_batch > 1) {
                const double step_tokens = (double)p->job.micro_batch * p->job.grad_accum *
                                           p->gpus_per_node * p->nodes * p->job.seq_len;
                assert_true(step_tokens <= 4194304.0);
                if (row->tokens)
                    assert_true(step_tokens <= row->tokens / 100.0);
            }
        }
        /* Pareto: ascending time, and each later point strictly cheaper */
        for (size_t k = 1; k < r->n_pareto; k++) {
            const struct gpuplan_plan *a = &r->pareto[k - 1], *b = &r->pareto[k];
            const double ta = a->has_time ? a->time_hours : 1.0 / a->tokens_per_s;
            const double tb = b->has_time ? b->time_hours : 1.0 / b->tokens_per_s;
            assert_true(ta <= tb * (1.0 + 1e-9));
        }
        free(r);
    }
}

static void test_fixed_knobs(void **state)
{
    (void)state;
    struct gpuplan_plan_request req;
    gpuplan_plan_request_init(&req);
    req.job.method = GPUPLAN_METHOD_FULL;
    req.method_fixed = true;
    req.job.sharding = GPUPLAN_SHARDING_FSDP;
    req.job.sharding_set = true;
    req.sharding_fixed = true;
    req.job.micro_batch = 2;
    req.micro_batch_fixed = true;
    req.job.grad_ckpt = GPUPLAN_CKPT_FULL;
    req.job.grad_ckpt_set = true;
    req.grad_ckpt_fixed = true;
    req.job.precision = GPUPLAN_PRECISION_BF16_MIXED;
    req.precision_fixed = true;
    snprintf(req.gpu_ids[0], sizeof req.gpu_ids[0], "h100-sxm");
    req.n_gpu_ids = 1;
    struct gpuplan_plan_result *r = run("llama-3.1-70b", &req, GPUPLAN_OK);
    assert_true(r->n_top >= 1);
    for (size_t k = 0; k < r->n_top; k++) {
        const struct gpuplan_plan *p = &r->top[k];
        assert_string_equal(p->gpu->id, "h100-sxm");
        assert_int_equal(p->job.sharding, GPUPLAN_SHARDING_FSDP);
        assert_int_equal(p->job.micro_batch, 2);
        assert_int_equal(p->job.grad_ckpt, GPUPLAN_CKPT_FULL);
        assert_int_equal(p->job.precision, GPUPLAN_PRECISION_BF16_MIXED);
        /* 70B full fine-tune: 16 B/param of states alone is 1.1 TB: never one 80 GB GPU */
        assert_true(p->gpus_per_node * p->nodes >= 8);
        assert_true(p->server.ram_bytes >= 512ULL * GPUPLAN_BYTES_PER_GIB); /* S11: 30B+ */
    }
    free(r);
}

static void test_nothing_fits_is_a_result(void **state)
{
    (void)state;
    struct gpuplan_plan_request req;
    gpuplan_plan_request_init(&req);
    req.job.method = GPUPLAN_METHOD_FULL;
    req.method_fixed = true;
    req.max_gpus = 1;
    req.job.offload = GPUPLAN_OFFLOAD_NONE; /* with offload even one GPU can (slowly) do it */
    req.offload_fixed = true;
    struct gpuplan_plan_result *r = run("llama-3.1-70b", &req, GPUPLAN_OK);
    assert_int_equal(r->n_top, 0);
    assert_true(r->evaluated > 0);
    assert_true(r->n_notes >= 1);
    assert_non_null(strstr(r->notes[0], "nothing fits"));
    free(r);
}

static void test_bad_requests(void **state)
{
    (void)state;
    struct gpuplan_model model;
    struct gpuplan_error err;
    gpuplan_model_init(&model);
    gpuplan_error_init(&err);
    assert_int_equal(gpuplan_model_load(&model, "llama-3.1-8b", catalog, &err), GPUPLAN_OK);
    struct gpuplan_plan_result *r = calloc(1, sizeof *r);
    struct gpuplan_plan_request req;

    gpuplan_plan_request_init(&req);
    req.top_k = 0;
    assert_int_equal(gpuplan_plan_run(&model, catalog, &req, r, &err), GPUPLAN_ERR_USAGE);
    assert_non_null(strstr(err.message, "'--top'"));

    /* One range per option, the option table's: the planner says what the parser says. */
    const struct gpuplan_option *top = gpuplan_options_find(gpuplan_plan_options, "top");
    assert_non_null(top);
    assert_int_equal(top->count_max, GPUPLAN_PLAN_MAX_TOP);
    struct gpuplan_plan_request parsed;
    gpuplan_plan_request_init(&parsed);
    struct gpuplan_error parse_err;
    gpuplan_error_init(&parse_err);
    assert_int_equal(gpuplan_options_set(gpuplan_plan_options, &parsed, "top", "17", &parse_err),
                     GPUPLAN_ERR_USAGE);
    gpuplan_plan_request_init(&req);
    req.top_k = GPUPLAN_PLAN_MAX_TOP + 1;
    gpuplan_error_init(&err);
    assert_int_equal(gpuplan_plan_run(&model, catalog, &req, r, &err), GPUPLAN_ERR_USAGE);
    assert_string_equal(err.message, parse_err.message);
    static const struct {
        const char *name, *value;
    } out_of_range[] = { { "max-gpus", "0" },     { "max-gpus", "4097" },
                         { "headroom", "0.995" }, { "deadline-hours", "-1" },
                         { "budget", "-5" },      { "ttft-ms", "-1" } };
    for (size_t i = 0; i < sizeof out_of_range / sizeof out_of_range[0]; i++) {
        gpuplan_plan_request_init(&req);
        const struct gpuplan_option *o =
            gpuplan_options_find(gpuplan_plan_options, out_of_range[i].name);
        assert_non_null(o);
        /* write the value as the parser would have, without its check */
        char *field = (char *)&req + o->offset;
        if (o->field == GPUPLAN_FIELD_U32) {
            const uint32_t v = (uint32_t)strtoul(out_of_range[i].value, NULL, 10);
            memcpy(field, &v, sizeof v);
        } else {
            const double v = strtod(out_of_range[i].value, NULL);
            memcpy(field, &v, sizeof v);
        }
        gpuplan_error_init(&err);
        assert_int_equal(gpuplan_plan_run(&model, catalog, &req, r, &err), GPUPLAN_ERR_USAGE);
        assert_non_null(strstr(err.message, out_of_range[i].name));
        gpuplan_plan_request_init(&parsed);
        gpuplan_error_init(&parse_err);
        assert_int_equal(gpuplan_options_set(gpuplan_plan_options, &parsed, out_of_range[i].name,
                                             out_of_range[i].value, &parse_err),
                         GPUPLAN_ERR_USAGE);
    }

    gpuplan_plan_request_init(&req);
    req.deadline_hours = 5;
    gpuplan_error_init(&err);
    assert_int_equal(gpuplan_plan_run(&model, catalog, &req, r, &err), GPUPLAN_ERR_USAGE);
    assert_non_null(strstr(err.hint, "--tokens"));

    gpuplan_plan_request_init(&req);
    req.budget_usd = 100;
    gpuplan_error_init(&err);
    assert_int_equal(gpuplan_plan_run(&model, catalog, &req, r, &err), GPUPLAN_ERR_USAGE);
    assert_non_null(strstr(err.message, "'--budget'"));

    gpuplan_plan_request_init(&req);
    snprintf(req.gpu_ids[0], sizeof req.gpu_ids[0], "h100sxm");
    req.n_gpu_ids = 1;
    gpuplan_error_init(&err);
    assert_int_equal(gpuplan_plan_run(&model, catalog, &req, r, &err), GPUPLAN_ERR_NOT_FOUND);
    assert_non_null(strstr(err.hint, "did you mean"));

    free(r);
    gpuplan_model_release(&model);
}

static void test_json_contract(void **state)
{
    (void)state;
    static const char *const plan_keys[] = { "gpu",
                                             "gpus_per_node",
                                             "nodes",
                                             "method",
                                             "precision",
                                             "sharding",
                                             "micro_batch",
                                             "grad_ckpt",
                                             "offload",
                                             "memory_per_gpu_bytes",
                                             "fits",
                                             "tokens_per_s",
                                             "time_hours",
                                             "cost_usd",
                                             "capex_usd",
                                             "server",
                                             "reasons",
                                             "warnings",
                                             "own_cost_usd",
                                             "own_usd_per_hour",
                                             "compromise",
                                             "verdict",
                                             "memory_per_gpu_low_bytes",
                                             "memory_per_gpu_high_bytes",
                                             "over_bytes",
                                             NULL };
    static const char *const server_keys[] = { "platform",     "cpu_cores",
                                               "ram_bytes",    "nvme_bytes",
                                               "interconnect", "network",
                                               "power_w",      NULL };
    struct gpuplan_plan_request req;
    gpuplan_plan_request_init(&req);
    req.job.tokens = 1000000000ULL;
    req.top_k = 3;
    struct gpuplan_plan_result *r = run("llama-3.1-8b", &req, GPUPLAN_OK);
    struct gpuplan_buf buf;
    struct gpuplan_error err;
    gpuplan_buf_init(&buf, GPUPLAN_BUF_DEFAULT_MAX_BYTES);
    gpuplan_error_init(&err);
    assert_int_equal(gpuplan_render_plan(r, GPUPLAN_FORMAT_JSON, &buf, &err), GPUPLAN_OK);
    json_error_t jerr;
    json_t *root = json_loads(gpuplan_buf_str(&buf), 0, &jerr);
    assert_non_null(root);
    assert_int_equal(json_integer_value(json_object_get(root, "schema_version")), 1);
    assert_int_equal(json_integer_value(json_object_get(root, "evaluated")),
                     (json_int_t)r->evaluated);
    json_t *recs = json_object_get(root, "recommendations");
    assert_int_equal(json_array_size(recs), r->n_top);
    assert_true(json_is_array(json_object_get(root, "pareto")));
    json_t *rejected = json_object_get(root, "rejected");
    assert_int_equal(json_integer_value(json_object_get(rejected, "host_ram")),
                     (json_int_t)r->over_ram);
    assert_int_equal(json_integer_value(json_object_get(rejected, "network_bound")),
                     (json_int_t)r->network_bound);
    for (size_t i = 0; i < json_array_size(recs); i++) {
        json_t *rec = json_array_get(recs, i);
        for (const char *const *k = plan_keys; *k; k++) {
            if (!json_object_get(rec, *k))
                fail_msg("recommendation lacks '%s'", *k);
        }
        json_t *server = json_object_get(rec, "server");
        for (const char *const *k = server_keys; *k; k++) {
            if (!json_object_get(server, *k))
                fail_msg("server lacks '%s'", *k);
        }
    }
    json_decref(root);
    /* text renders too */
    gpuplan_buf_reset(&buf);
    assert_int_equal(gpuplan_render_plan(r, GPUPLAN_FORMAT_TEXT, &buf, &err), GPUPLAN_OK);
    assert_non_null(strstr(gpuplan_buf_str(&buf), "candidates evaluated"));
    gpuplan_buf_release(&buf);
    free(r);
}

static bool has_note(const struct gpuplan_plan_result *r, const char *text)
{
    for (size_t i = 0; i < r->n_notes; i++) {
        if (strstr(r->notes[i], text))
            return true;
    }
    return false;
}

static bool has_plan_warning(const struct gpuplan_plan *p, const char *text)
{
    for (size_t i = 0; i < p->n_warnings; i++) {
        if (strstr(p->warnings[i], text))
            return true;
    }
    return false;
}

/* Hours of use per day the next training() states (0: none). */
static double training_hours_per_day;

static struct gpuplan_plan_result *training(const char *model,
                                            enum gpuplan_method method,
                                            uint64_t tokens,
                                            const char *gpu,
                                            enum gpuplan_plan_where where,
                                            enum gpuplan_plan_objective objective,
                                            double budget_usd)
{
    struct gpuplan_plan_request req;
    gpuplan_plan_request_init(&req);
    req.job.method = method;
    req.method_fixed = true;
    req.job.tokens = tokens;
    req.where = where;
    req.objective = objective;
    req.budget_usd = budget_usd;
    req.vendor = GPUPLAN_VENDOR_NVIDIA;
    req.hours_per_day = training_hours_per_day;
    if (gpu) {
        snprintf(req.gpu_ids[0], sizeof req.gpu_ids[0], "%s", gpu);
        req.n_gpu_ids = 1;
    }
    return run(model, &req, GPUPLAN_OK);
}

/* A server that cannot hold the plan's host RAM is a rejection, counted and noted. */
static void test_host_limits_reject(void **state)
{
    (void)state;
    /* the lead's case: 70B full, 1B tokens, NVIDIA, on-prem */
    struct gpuplan_plan_result *r =
        training("llama-3.1-70b", GPUPLAN_METHOD_FULL, 1000000000ULL, NULL, GPUPLAN_WHERE_ON_PREM,
                 GPUPLAN_OBJECTIVE_COST, 0);
    assert_true(r->n_top >= 1);
    assert_true(r->over_ram > 0);
    assert_true(has_note(r, "cannot hold them"));
    for (size_t k = 0; k < r->n_top; k++)
        check_host_limits(&r->top[k]);
    for (size_t k = 0; k < r->n_pareto; k++)
        check_host_limits(&r->pareto[k]);
    /* offload is slow: the top plan does without when something without it meets the
     * constraints and is faster (8 GPUs with offload take about 200 h) */
    assert_int_equal(r->top[0].job.offload, GPUPLAN_OFFLOAD_NONE);
    assert_true(r->top[0].time_hours < 190.0);
    free(r);
    /* one workstation (512 GB) cannot hold a 70B full fine-tune's offloaded states */
    r = training("llama-3.1-70b", GPUPLAN_METHOD_FULL, 1000000000ULL, "rtx-3090",
                 GPUPLAN_WHERE_ON_PREM, GPUPLAN_OBJECTIVE_COST, 0);
    for (size_t k = 0; k < r->n_top; k++) {
        check_host_limits(&r->top[k]);
        if (strcmp(r->top[k].server.platform_id, "workstation-1") == 0 && r->top[k].nodes == 1)
            assert_int_equal(r->top[k].job.offload, GPUPLAN_OFFLOAD_NONE);
    }
    free(r);
}

/*
 * On-prem "cost" with a stated use (--hours-per-day 8) is the run's share of ownership
 * from the TCO model, not the capex; without one it is the capex and no own cost is shown.
 */
static void test_own_cost(void **state)
{
    (void)state;
    struct gpuplan_plan_result *plain =
        training("llama-3.1-8b", GPUPLAN_METHOD_LORA, 1000000000ULL, NULL, GPUPLAN_WHERE_ON_PREM,
                 GPUPLAN_OBJECTIVE_COST, 0);
    assert_true(plain->n_top >= 2);
    for (size_t k = 0; k < plain->n_top; k++) {
        assert_false(plain->top[k].has_own_cost);
        if (k > 0)
            assert_true(plain->top[k - 1].capex_usd <= plain->top[k].capex_usd * 1.05);
    }
    assert_true(has_note(plain, "ranked by capex"));
    free(plain);
    training_hours_per_day = 8.0;
    struct gpuplan_plan_result *cost =
        training("llama-3.1-8b", GPUPLAN_METHOD_LORA, 1000000000ULL, NULL, GPUPLAN_WHERE_ON_PREM,
                 GPUPLAN_OBJECTIVE_COST, 0);
    struct gpuplan_plan_result *capex =
        training("llama-3.1-8b", GPUPLAN_METHOD_LORA, 1000000000ULL, NULL, GPUPLAN_WHERE_ON_PREM,
                 GPUPLAN_OBJECTIVE_CAPEX, 0);
    training_hours_per_day = 0.0;
    assert_true(cost->n_top >= 1 && capex->n_top >= 1);
    const struct gpuplan_plan *a = &cost->top[0], *b = &capex->top[0];
    assert_true(a->has_own_cost && a->has_time && b->has_own_cost && b->has_time);
    /* each objective wins on its own measure */
    assert_true(a->own_cost_usd <= b->own_cost_usd * 1.05);
    assert_true(b->capex_usd <= a->capex_usd);
    /* the own cost per hour is `gpuplan tco`'s monthly own cost over the hours used */
    struct gpuplan_cost_inputs in;
    struct gpuplan_tco *tco = malloc(sizeof *tco);
    assert_non_null(tco);
    assert_int_equal(
        gpuplan_cost_inputs_init(&in, a->gpu, a->gpus_per_node * a->nodes, a->platform, NULL),
        GPUPLAN_OK);
    assert_int_equal(gpuplan_tco_compute(&in, tco, NULL), GPUPLAN_OK);
    const double per_hour =
        tco->monthly_own_usd / (in.v[GPUPLAN_COST_HOURS_PER_DAY].value * GPUPLAN_DAYS_PER_MONTH);
    assert_true(fabs(a->own_usd_per_hour - per_hour) <= 1e-9 * per_hour);
    assert_true(fabs(a->capex_usd - tco->capex_usd) <= 1e-6 * tco->capex_usd);
    free(tco);
    assert_true(has_note(cost, "share of owning"));
    free(cost);
    free(capex);
}

/* Only offload fits the budget: it is recommended, and the run says why. */
static void test_compromise_when_nothing_else(void **state)
{
    (void)state;
    struct gpuplan_plan_result *r =
        training("llama-3.1-70b", GPUPLAN_METHOD_FULL, 1000000000ULL, NULL, GPUPLAN_WHERE_ON_PREM,
                 GPUPLAN_OBJECTIVE_COST, 60000.0);
    assert_true(r->n_top >= 1);
    for (size_t k = 0; k < r->n_top; k++) {
        assert_true(r->top[k].compromise);
        assert_int_not_equal(r->top[k].job.offload, GPUPLAN_OFFLOAD_NONE);
        assert_true(r->top[k].capex_usd <= 60000.0);
        check_host_limits(&r->top[k]);
    }
    assert_true(has_note(r, "only offload meets the constraints"));
    free(r);
}

/* The trade-off note names a plan that really is faster at similar cost. */
static void test_tradeoff_note(void **state)
{
    (void)state;
    struct gpuplan_plan_request req;
    gpuplan_plan_request_init(&req);
    req.job.method = GPUPLAN_METHOD_LORA;
    req.method_fixed = true;
    req.job.tokens = 1000000000ULL;
    req.where = GPUPLAN_WHERE_CLOUD;
    struct gpuplan_plan_result *r = run("llama-3.1-8b", &req, GPUPLAN_OK);
    assert_true(r->n_top >= 1);
    assert_true(has_note(r, "fastest within 10 % of the cheapest cost"));
    double cheapest = INFINITY;
    for (size_t k = 0; k < r->n_pareto; k++)
        cheapest = fmin(cheapest, r->pareto[k].cost_per_mtok_usd);
    bool found = false;
    for (size_t k = 0; k < r->n_pareto; k++)
        found |= r->pareto[k].time_hours < r->top[0].time_hours &&
                 r->pareto[k].cost_per_mtok_usd <= cheapest * 1.10;
    assert_true(found);
    free(r);
    /* without --tokens there is no run time: the run says what it ranks by */
    req.job.tokens = 0;
    r = run("llama-3.1-8b", &req, GPUPLAN_OK);
    assert_true(has_note(r, "no --tokens"));
    free(r);
}

/* DeepSeek-V3: QLoRA warns about MoE in bitsandbytes (serving: test_plan_serve.c). */
static void test_deepseek(void **state)
{
    (void)state;
    struct gpuplan_plan_result *r = training("deepseek-v3", GPUPLAN_METHOD_QLORA, 100000000ULL,
                                             NULL, GPUPLAN_WHERE_ANY, GPUPLAN_OBJECTIVE_COST, 0);
    assert_true(r->n_top >= 1);
    assert_true(has_plan_warning(&r->top[0], "QLoRA on a MoE model"));
    free(r);
}

/* A request with the default options and `method` fixed. */
static void
base_request(struct gpuplan_plan_request *req, enum gpuplan_method method, uint64_t tokens)
{
    gpuplan_plan_request_init(req);
    req->job.method = method;
    req->method_fixed = true;
    req->job.tokens = tokens;
}

static bool top_has_vendor(const struct gpuplan_plan_result *r, enum gpuplan_vendor v)
{
    for (size_t k = 0; k < r->n_top; k++)
        if (r->top[k].gpu->vendor == v)
            return true;
    return false;
}

/* Item 2: left open, the standard stack only; --allow widens it and the plan says so. */
static void test_maturity(void **state)
{
    (void)state;
    struct gpuplan_plan_request req;
    base_request(&req, GPUPLAN_METHOD_FULL, 1000000000ULL);
    req.max_gpus = 16;
    struct gpuplan_plan_result *r = run("llama-3.1-8b", &req, GPUPLAN_OK);
    assert_true(r->n_top >= 3);
    for (size_t k = 0; k < r->n_top; k++) {
        const struct gpuplan_plan *p = &r->top[k];
        assert_false(p->needs_care);
        assert_int_equal(p->gpu->vendor, GPUPLAN_VENDOR_NVIDIA);
        assert_int_not_equal(p->job.precision, GPUPLAN_PRECISION_FP8_MIXED);
        assert_non_null(strstr(p->maturity, "standard"));
        assert_null(strstr(p->gpu->name, "GeForce")); /* rented GeForce: a datacenter */
    }
    assert_true(r->needs_care > 0);
    free(r);
    /* widened: AMD and FP8 may rank; such a plan names what it assumes */
    req.allow = GPUPLAN_ALLOW_ROCM | GPUPLAN_ALLOW_FP8;
    r = run("llama-3.1-8b", &req, GPUPLAN_OK);
    bool widened = false;
    for (size_t k = 0; k < r->n_top; k++) {
        const struct gpuplan_plan *p = &r->top[k];
        const bool care =
            p->gpu->vendor == GPUPLAN_VENDOR_AMD || p->job.precision == GPUPLAN_PRECISION_FP8_MIXED;
        assert_true(p->needs_care == care);
        if (p->gpu->vendor == GPUPLAN_VENDOR_AMD)
            assert_non_null(strstr(p->maturity, "ROCm"));
        if (p->job.precision == GPUPLAN_PRECISION_FP8_MIXED)
            assert_non_null(strstr(p->maturity, "FP8 training"));
        widened |= care;
    }
    assert_true(widened);
    free(r);
    /* --vendor amd asks for ROCm: plans, each saying so */
    base_request(&req, GPUPLAN_METHOD_QLORA, 100000000ULL);
    req.vendor = GPUPLAN_VENDOR_AMD;
    r = run("llama-3.1-70b", &req, GPUPLAN_OK);
    assert_true(r->n_top >= 1 && top_has_vendor(r, GPUPLAN_VENDOR_AMD));
    assert_true(r->top[0].needs_care && strstr(r->top[0].maturity, "bitsandbytes"));
    free(r);
    /* a GeForce bought for a workstation is standard; in a rack server it is not */
    base_request(&req, GPUPLAN_METHOD_QLORA, 100000000ULL);
    req.where = GPUPLAN_WHERE_ON_PREM;
    snprintf(req.gpu_ids[0], sizeof req.gpu_ids[0], "rtx-4090");
    req.n_gpu_ids = 1;
    r = run("llama-3.1-8b", &req, GPUPLAN_OK);
    assert_true(r->n_top >= 1);
    for (size_t k = 0; k < r->n_top; k++) {
        const bool ws = strcmp(r->top[k].server.form_factor, "workstation") == 0;
        assert_true(r->top[k].needs_care == !ws);
        if (!ws)
            assert_non_null(strstr(r->top[k].maturity, "licence"));
    }
    free(r);
}

/* Item 3: neither --on-prem nor --cloud shows the best buy and the best rent. */
static void test_rent_or_buy(void **state)
{
    (void)state;
    struct gpuplan_plan_request req;
    base_request(&req, GPUPLAN_METHOD_QLORA, 100000000ULL);
    struct gpuplan_plan_result *r = run("llama-3.1-70b", &req, GPUPLAN_OK);
    assert_true(r->has_best_rent && r->has_best_buy);
    assert_true(r->best_rent.has_cloud_rate && r->best_buy.has_capex);
    /* the buy is the cheapest server that meets the constraints: no top plan that can be
     * bought is cheaper beyond the near-tie band */
    for (size_t k = 0; k < r->n_top; k++)
        if (r->top[k].has_capex)
            assert_true(r->best_buy.capex_usd <= r->top[k].capex_usd * 1.05);
    /* near ties prefer fewer GPUs: no plan of the Pareto set within 5 % of the first's cost
     * has fewer GPUs */
    const struct gpuplan_plan *t = &r->top[0];
    for (size_t k = 0; k < r->n_pareto; k++) {
        const struct gpuplan_plan *q = &r->pareto[k];
        if (fabs(q->cost_usd - t->cost_usd) <= 0.049 * fmax(q->cost_usd, t->cost_usd))
            assert_true(q->gpus_per_node * q->nodes >= t->gpus_per_node * t->nodes);
    }
    free(r);
}

/* Item 4: too long without a deadline; nothing feasible says so with the nearest misses. */
static void test_feasibility(void **state)
{
    (void)state;
    struct gpuplan_plan_request req;
    base_request(&req, GPUPLAN_METHOD_FULL, 1000000000ULL);
    req.where = GPUPLAN_WHERE_ON_PREM;
    req.budget_usd = 50000.0;
    req.budget_given = true;
    struct gpuplan_plan_result *r = run("llama-3.1-405b", &req, GPUPLAN_OK);
    assert_int_equal(r->n_top, 0);
    assert_true(r->n_misses >= 1);
    bool budget = false, days = false;
    for (size_t i = 0; i < r->n_notes; i++) {
        budget |= strstr(r->notes[i], "change: --budget") != NULL;
        days |= strstr(r->notes[i], "change: --max-run-days") != NULL;
    }
    assert_true(budget);
    (void)days;
    for (size_t i = 0; i < r->n_misses; i++)
        assert_true(r->misses[i].variants[0]);
    free(r);
    /* a deadline 16 GPUs cannot meet: the fastest miss, and the --max-gpus that would do */
    base_request(&req, GPUPLAN_METHOD_FULL, 1000000000ULL);
    req.where = GPUPLAN_WHERE_CLOUD;
    req.deadline_hours = 1.0;
    req.max_gpus = 16;
    r = run("llama-3.1-70b", &req, GPUPLAN_OK);
    assert_int_equal(r->n_top, 0);
    assert_true(r->n_misses >= 1 && r->misses[0].time_hours > 1.0);
    bool deadline = false, gpus = false;
    for (size_t i = 0; i < r->n_notes; i++) {
        unsigned m = 0;
        deadline |= strstr(r->notes[i], "change: --deadline-hours") != NULL;
        if (sscanf(r->notes[i], "change: --max-gpus %u", &m) == 1) {
            gpus = true;
            assert_true(m > 16 && m <= GPUPLAN_PLAN_MAX_GPUS);
            /* and it is true: with that many GPUs there is a plan within the hour */
            struct gpuplan_plan_request wider = req;
            wider.max_gpus = m;
            struct gpuplan_plan_result *w = run("llama-3.1-70b", &wider, GPUPLAN_OK);
            assert_true(w->n_top >= 1 && w->top[0].time_hours <= 1.0);
            free(w);
        }
    }
    assert_true(deadline && gpus);
    free(r);
    /* every recommended run is within --max-run-days when no deadline is given */
    base_request(&req, GPUPLAN_METHOD_FULL, 10000000000ULL);
    req.max_run_days = 2.0;
    r = run("llama-3.1-8b", &req, GPUPLAN_OK);
    for (size_t k = 0; k < r->n_top; k++)
        assert_true(r->top[k].time_hours <= 48.0);
    assert_true(r->too_long > 0);
    free(r);
    /* --budget 0 is a usage error; --max-gpus above what the search covers too */
    base_request(&req, GPUPLAN_METHOD_LORA, 1000000000ULL);
    req.budget_given = true;
    free(run("llama-3.1-8b", &req, GPUPLAN_ERR_USAGE));
    base_request(&req, GPUPLAN_METHOD_LORA, 1000000000ULL);
    req.max_gpus = GPUPLAN_PLAN_MAX_GPUS + 1;
    free(run("llama-3.1-8b", &req, GPUPLAN_ERR_USAGE));
}

/* Item 5: one plan per GPU type, at least three types when three fit, variants folded. */
static void test_per_gpu_type(void **state)
{
    (void)state;
    struct gpuplan_plan_request req;
    base_request(&req, GPUPLAN_METHOD_LORA, 1000000000ULL);
    struct gpuplan_plan_result *r = run("llama-3.1-8b", &req, GPUPLAN_OK);
    assert_true(r->n_top >= 3);
    for (size_t k = 0; k < r->n_top; k++)
        for (size_t q = 0; q < k; q++)
            assert_ptr_not_equal(r->top[k].gpu, r->top[q].gpu);
    assert_true(r->top[0].variants[0] != '\0');
    free(r);
}

/*
 * Item 6: a reason "N GPUs because M do not fit" holds for the plan's numbers: the
 * same GPU type is not listed with M GPUs, and "leaves less than the headroom" is said
 * when only the headroom failed.
 */
static void test_reasons_hold(void **state)
{
    (void)state;
    const char *models[] = { "llama-3.1-8b", "llama-3.1-70b" };
    const enum gpuplan_method methods[] = { GPUPLAN_METHOD_FULL, GPUPLAN_METHOD_QLORA };
    for (size_t i = 0; i < 2; i++) {
        for (size_t mi = 0; mi < 2; mi++) {
            struct gpuplan_plan_request req;
            base_request(&req, methods[mi], 1000000000ULL);
            req.top_k = 8;
            struct gpuplan_plan_result *r = run(models[i], &req, GPUPLAN_OK);
            for (size_t k = 0; k < r->n_top; k++) {
                const struct gpuplan_plan *p = &r->top[k];
                for (size_t j = 0; j < p->n_reasons; j++) {
                    unsigned n = 0, half = 0;
                    if (sscanf(p->reasons[j], "%u GPUs because on %u", &n, &half) != 2)
                        continue;
                    char folded[32];
                    snprintf(folded, sizeof folded, "; %u x (", half);
                    assert_null(strstr(p->variants, folded));
                    assert_false(strncmp(p->variants, folded + 2, strlen(folded + 2)) == 0);
                    assert_true(strstr(p->reasons[j], "does not fit") ||
                                strstr(p->reasons[j], "headroom"));
                }
            }
            free(r);
        }
    }
}

/* Item 7: TP/PP layouts for a model FSDP alone handles badly; up to 1,024 GPUs. */
static void test_model_parallel(void **state)
{
    (void)state;
    struct gpuplan_plan_request req;
    base_request(&req, GPUPLAN_METHOD_FULL, 1000000000ULL);
    req.max_gpus = 256;
    req.top_k = 8;
    struct gpuplan_plan_result *r = run("llama-3.1-405b", &req, GPUPLAN_OK);
    assert_true(r->n_top >= 1);
    bool mp = false;
    for (size_t k = 0; k < r->n_top; k++) {
        const struct gpuplan_plan *p = &r->top[k];
        mp |= p->job.tp > 1 || p->job.pp > 1;
        /* TP stays inside one server's GPU fabric */
        assert_true(p->job.tp <= p->gpus_per_node);
        assert_int_equal((p->gpus_per_node * p->nodes) % (p->job.tp * p->job.pp), 0);
    }
    for (size_t k = 0; k < r->n_pareto; k++)
        mp |= r->pareto[k].job.tp > 1 || r->pareto[k].job.pp > 1;
    assert_true(mp);
    /* with pipeline stages ZeRO-1 at most: DeepSpeed's pipeline engine asserts stage < 2 */
    const struct gpuplan_plan *lists[2] = { r->top, r->pareto };
    const size_t counts[2] = { r->n_top, r->n_pareto };
    for (size_t l = 0; l < 2; l++)
        for (size_t k = 0; k < counts[l]; k++)
            if (lists[l][k].job.pp > 1)
                assert_true(lists[l][k].job.sharding != GPUPLAN_SHARDING_ZERO2 &&
                            lists[l][k].job.sharding != GPUPLAN_SHARDING_ZERO3);
    free(r);
}

/* The list's order: every plan whose memory range fits before any that may not fit. */
static void check_range_order(const struct gpuplan_plan_result *r)
{
    bool seen_may_not_fit = false;
    for (size_t k = 0; k < r->n_top; k++) {
        const struct gpuplan_plan *p = &r->top[k];
        assert_true(p->has_range);
        assert_true(p->memory_low_bytes <= p->memory_per_gpu_bytes);
        assert_true(p->memory_high_bytes >= p->memory_per_gpu_bytes);
        const bool fits = p->range_verdict == GPUPLAN_VERDICT_FITS;
        assert_true(fits == (p->memory_high_bytes <= p->usable_bytes));
        if (fits)
            assert_false(seen_may_not_fit);
        seen_may_not_fit |= !fits;
        /* a plan that may not fit says so, with the margin */
        assert_true(fits == !has_plan_warning(p, "MAY NOT FIT"));
        if (!fits)
            assert_true(p->range_over_bytes == (int64_t)(p->memory_high_bytes - p->usable_bytes));
    }
}

/*
 * The memory range decides the fit: a plan whose 80 % range is over the usable memory
 * ranks after the plans whose whole range fits, says so, and the run notes when that
 * changed the top plan or when no plan's range fits.
 */
static void test_memory_range_ranking(void **state)
{
    (void)state;
    /* 8B QLoRA on one RTX 4090: micro-batch 2 ranks first by cost per token but its range's
     * top is over the 4090's usable memory; micro-batch 1 fits across the range */
    struct gpuplan_plan_request req;
    gpuplan_plan_request_init(&req);
    req.job.method = GPUPLAN_METHOD_QLORA;
    req.method_fixed = true;
    snprintf(req.gpu_ids[0], sizeof req.gpu_ids[0], "%s", "rtx-4090");
    req.n_gpu_ids = 1;
    req.top_k = 5;
    struct gpuplan_plan_result *r = run("llama-3.1-8b", &req, GPUPLAN_OK);
    assert_true(r->n_top >= 1);
    check_range_order(r);
    assert_int_equal(r->top[0].range_verdict, GPUPLAN_VERDICT_FITS);
    assert_true(has_note(r, "ranked by the memory range"));
    free(r);
    /* micro-batch 2 fixed on one GPU: an offload plan whose range fits ranks before the
     * faster plans without offload that may not fit, and the notes say why */
    req.job.micro_batch = 2;
    req.micro_batch_fixed = true;
    req.max_gpus = 1;
    r = run("llama-3.1-8b", &req, GPUPLAN_OK);
    check_range_order(r);
    assert_true(r->top[0].compromise);
    assert_int_equal(r->top[0].range_verdict, GPUPLAN_VERDICT_FITS);
    assert_true(has_note(r, "MAY NOT FIT"));
    assert_false(has_note(r, "is slower"));
    free(r);
    /* and without offload: only plans that may not fit, listed with the warning and the
     * run's note */
    req.job.offload = GPUPLAN_OFFLOAD_NONE;
    req.offload_fixed = true;
    r = run("llama-3.1-8b", &req, GPUPLAN_OK);
    assert_true(r->n_top >= 1);
    check_range_order(r);
    assert_int_equal(r->top[0].range_verdict, GPUPLAN_VERDICT_MAY_NOT_FIT);
    assert_true(r->top[0].fits); /* the point estimate fits: the range does not */
    assert_true(has_note(r, "no plan's whole 80 % memory range fits"));
    free(r);
    /* larger searches keep the order */
    r = training("llama-3.1-70b", GPUPLAN_METHOD_FULL, 1000000000ULL, NULL, GPUPLAN_WHERE_ON_PREM,
                 GPUPLAN_OBJECTIVE_COST, 0);
    check_range_order(r);
    free(r);
    r = training("llama-3.1-8b", GPUPLAN_METHOD_LORA, 1000000000ULL, NULL, GPUPLAN_WHERE_CLOUD,
                 GPUPLAN_OBJECTIVE_TIME, 0);
    check_range_order(r);
    free(r);
}

/*
 * A layout whose fastest plan offloads still offers its best plan without offload: 70B QLoRA
 * with full checkpointing on one RTX PRO 6000 fits across its range at micro-batch 1 without
 * offload, while the ZeRO-3 offload plan at micro-batch 4 is faster on the same card. The
 * card, one workstation, is the cheapest to buy, so it tops the list without offload (it
 * used to rank after two A100s: the layout's only entry was its offload plan, a compromise).
 */
static void test_plain_alternative(void **state)
{
    (void)state;
    struct gpuplan_plan_request req;
    gpuplan_plan_request_init(&req);
    req.job.method = GPUPLAN_METHOD_QLORA;
    req.method_fixed = true;
    req.job.grad_ckpt = GPUPLAN_CKPT_FULL;
    req.job.grad_ckpt_set = true;
    req.grad_ckpt_fixed = true;
    req.where = GPUPLAN_WHERE_ON_PREM;
    req.vendor = GPUPLAN_VENDOR_NVIDIA;
    req.top_k = 3;
    struct gpuplan_plan_result *r = run("llama-3.1-70b", &req, GPUPLAN_OK);
    assert_true(r->n_top >= 2);
    check_range_order(r);
    const struct gpuplan_plan *top = &r->top[0];
    assert_string_equal(top->gpu->id, "rtx-pro-6000");
    assert_int_equal(top->gpus_per_node * top->nodes, 1);
    assert_false(top->compromise);
    assert_int_equal(top->job.offload, GPUPLAN_OFFLOAD_NONE);
    for (size_t k = 1; k < r->n_top; k++) {
        assert_true(r->top[k].capex_usd >= top->capex_usd);
        assert_true(r->top[k].gpu != top->gpu); /* one row per GPU type */
    }
    free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_constraints_and_ranking),
        cmocka_unit_test(test_fixed_knobs),
        cmocka_unit_test(test_nothing_fits_is_a_result),
        cmocka_unit_test(test_bad_requests),
        cmocka_unit_test(test_json_contract),
        cmocka_unit_test(test_host_limits_reject),
        cmocka_unit_test(test_own_cost),
        cmocka_unit_test(test_compromise_when_nothing_else),
        cmocka_unit_test(test_tradeoff_note),
        cmocka_unit_test(test_deepseek),
        cmocka_unit_test(test_maturity),
        cmocka_unit_test(test_rent_or_buy),
        cmocka_unit_test(test_feasibility),
        cmocka_unit_test(test_per_gpu_type),
        cmocka_unit_test(test_reasons_hold),
        cmocka_unit_test(test_model_parallel),
        cmocka_unit_test(test_memory_range_ranking),
        cmocka_unit_test(test_plain_alternative),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
