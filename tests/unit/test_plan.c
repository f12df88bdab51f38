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
#include "gpuplan/plan.h"
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
    /* power per server = GPUs at TDP + the platform's base power */
    if (p->platform)
        assert_true(fabs(p->server.power_w -
                         (p->gpus_per_node * p->gpu->tdp_w + p->platform->base_power_w)) < 1e-6);
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
    { "budget", "llama-3.1-8b", GPUPLAN_METHOD_LORA, 1000000000ULL, 64, GPUPLAN_PLAN_ANY_VENDOR,
      GPUPLAN_WHERE_CLOUD, 0, 30.0, GPUPLAN_OBJECTIVE_TIME },
};

static double objective_key(const struct gpuplan_plan *p, enum gpuplan_plan_objective o)
{
    switch (o) {
    case GPUPLAN_OBJECTIVE_TIME:
        return p->has_time ? p->time_hours : 1.0 / p->tokens_per_s;
    case GPUPLAN_OBJECTIVE_GPUS:
        return p->gpus_per_node * p->nodes;
    case GPUPLAN_OBJECTIVE_CAPEX:
        return p->has_capex ? p->capex_usd : INFINITY;
    default:
        return p->has_cloud_rate ? p->cost_per_mtok_usd : INFINITY;
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
            /* ranking: never better than the one before it by more than the 0.5 % tie band */
            if (k > 0) {
                const double prev = objective_key(&r->top[k - 1], row->objective);
                const double cur = objective_key(p, row->objective);
                if (isfinite(cur))
                    assert_true(prev <= cur * 1.005 + 1e-12);
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

static void test_serving(void **state)
{
    (void)state;
    struct gpuplan_plan_request req;
    gpuplan_plan_request_init(&req);
    req.job.method = GPUPLAN_METHOD_INFER;
    req.method_fixed = true;
    req.job.context_len = 8192;
    req.job.batch = 32;
    req.target_tokens_per_s_per_user = 20.0;
    req.vendor = GPUPLAN_VENDOR_NVIDIA;
    struct gpuplan_plan_result *r = run("llama-3.1-70b", &req, GPUPLAN_OK);
    assert_true(r->n_top >= 1);
    for (size_t k = 0; k < r->n_top; k++) {
        const struct gpuplan_plan *p = &r->top[k];
        check_plan_basics(p);
        assert_int_equal(p->job.method, GPUPLAN_METHOD_INFER);
        assert_true(p->tokens_per_s_per_user >= 20.0);
        assert_true(p->ttft_s > 0.0);
        assert_int_equal(p->job.batch, 32);
        assert_int_equal(p->job.tp, p->gpus_per_node);
        /* FP8 weights only where the GPU has FP8 (Hopper, Ada and newer) */
        if (p->job.weights_dtype == GPUPLAN_DTYPE_F8_E4M3)
            assert_true(p->gpu->has_fp8);
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
    static const char *const plan_keys[] = {
        "gpu",      "gpus_per_node", "nodes",      "method",   "precision",
        "sharding", "micro_batch",   "grad_ckpt",  "offload",  "memory_per_gpu_bytes",
        "fits",     "tokens_per_s",  "time_hours", "cost_usd", "capex_usd",
        "server",   "reasons",       "warnings",   NULL
    };
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_constraints_and_ranking),
        cmocka_unit_test(test_fixed_knobs),
        cmocka_unit_test(test_serving),
        cmocka_unit_test(test_nothing_fits_is_a_result),
        cmocka_unit_test(test_bad_requests),
        cmocka_unit_test(test_json_contract),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
