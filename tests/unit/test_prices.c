/*
 * test_prices.c - the price list as the planner uses it (issue 14 item 1):
 * every plan's rate names its tier and provider, a rate from another tier
 * than the one asked is flagged and never ranked first by cost, and a
 * plan's capex lines add up to its capex.
 */
#include "test_common.h"

#include <math.h>

#include "gpuplan/catalog.h"
#include "gpuplan/cost.h"
#include "gpuplan/plan.h"

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

static struct gpuplan_plan_result *run(const char *model_id, const struct gpuplan_plan_request *req)
{
    struct gpuplan_model model;
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    gpuplan_model_init(&model);
    assert_int_equal(gpuplan_model_load(&model, model_id, catalog, &err), GPUPLAN_OK);
    struct gpuplan_plan_result *r = calloc(1, sizeof *r);
    assert_non_null(r);
    const enum gpuplan_status st = gpuplan_plan_run(&model, catalog, req, r, &err);
    if (st != GPUPLAN_OK)
        fail_msg("plan_run: %s (%s)", err.message, err.hint);
    gpuplan_model_release(&model);
    return r;
}

/* A request in the cloud for 8B LoRA over 100M tokens at `tier`, ranked by cost. */
static void lora_request(struct gpuplan_plan_request *req, enum gpuplan_cloud_tier tier)
{
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    gpuplan_plan_request_init(req);
    assert_int_equal(gpuplan_job_set(&req->job, "method", "lora", &err), GPUPLAN_OK);
    assert_int_equal(gpuplan_job_set(&req->job, "tokens", "100M", &err), GPUPLAN_OK);
    req->method_fixed = true;
    req->where = GPUPLAN_WHERE_CLOUD;
    req->objective = GPUPLAN_OBJECTIVE_COST;
    req->job.cloud_tier = (int)tier;
}

/* Only H100 SXM and L40S list a 1-year rate: the cheapest plan at commit-1y is one of them. */
static void test_fallback_never_first_by_cost(void **state)
{
    (void)state;
    struct gpuplan_plan_request req;
    lora_request(&req, GPUPLAN_TIER_COMMIT_1Y);
    struct gpuplan_plan_result *r = run("llama-3.1-8b", &req);
    assert_true(r->n_top >= 1);
    const struct gpuplan_plan *top = &r->top[0];
    assert_true(top->has_cloud_rate);
    assert_false(top->rate_fallback);
    assert_string_equal(top->cloud_tier, "commit-1y");
    struct gpuplan_rate_choice choice;
    gpuplan_gpu_cloud_rate(top->gpu, GPUPLAN_TIER_COMMIT_1Y, &choice);
    assert_true(choice.rate && !choice.fallback);
    /* every listed plan names its rate; those at another tier say so */
    for (size_t i = 0; i < r->n_top; i++) {
        const struct gpuplan_plan *p = &r->top[i];
        if (!p->has_cloud_rate)
            continue;
        assert_true(p->cloud_tier[0] && p->cloud_provider[0]);
        assert_true(p->rate_fallback == (strcmp(p->cloud_tier, "commit-1y") != 0));
    }
    free(r);
}

/* At the default tier the top plan's rate is the lowest specialty rate of its GPU. */
static void test_rate_is_the_tiers(void **state)
{
    (void)state;
    struct gpuplan_plan_request req;
    lora_request(&req, GPUPLAN_TIER_DEFAULT);
    req.n_gpu_ids = 1;
    snprintf(req.gpu_ids[0], sizeof req.gpu_ids[0], "%s", "h100-sxm");
    struct gpuplan_plan_result *r = run("llama-3.1-8b", &req);
    assert_true(r->n_top >= 1);
    const struct gpuplan_plan *p = &r->top[0];
    struct gpuplan_rate_choice choice;
    gpuplan_gpu_cloud_rate(p->gpu, GPUPLAN_TIER_SPECIALTY, &choice);
    assert_non_null(choice.rate);
    const uint32_t n = p->gpus_per_node * p->nodes;
    assert_true(fabs(p->cost_usd_per_hour - n * choice.rate->usd_per_gpu_hour) < 1e-9);
    assert_string_equal(p->cloud_provider, choice.rate->provider);
    /* capex lines add up, when the plan has one */
    if (p->has_capex) {
        double sum = 0;
        for (int i = 0; i < GPUPLAN_CAPEX_ITEM_COUNT; i++)
            sum += p->capex.line[i].usd;
        assert_true(fabs(sum - p->capex_usd) < 1e-6);
    }
    free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fallback_never_first_by_cost),
        cmocka_unit_test(test_rate_is_the_tiers),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
