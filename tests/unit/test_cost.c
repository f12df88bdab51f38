/*
 * test_cost.c - TCO and break-even arithmetic against hand-computed cases,
 * input validation, and the JSON contract of `gpuplan tco`.
 */
#include "test_common.h"

#include <jansson.h>
#include <math.h>

#include "gpuplan/cost.h"
#include "gpuplan/estimate.h"
#include "gpuplan/gpuplan.h"
#include "gpuplan/render.h"

static struct gpuplan_gpu card(void)
{
    struct gpuplan_gpu g;
    memset(&g, 0, sizeof g);
    strcpy(g.id, "test-gpu");
    strcpy(g.form_factor, "pcie");
    g.tdp_w = 500;
    g.price_usd = 10000;
    strcpy(g.price_date, "2026-05");
    g.cloud_usd_per_hour = 2.0;
    strcpy(g.cloud_date, "2026-05");
    return g;
}

static void set(struct gpuplan_cost_inputs *in, enum gpuplan_cost_input i, double v)
{
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    assert_int_equal(gpuplan_cost_inputs_set(in, i, v, &err), GPUPLAN_OK);
}

/* GPU only: every other cost zero, so break-even is capex / cloud per month. */
static void zero_extras(struct gpuplan_cost_inputs *in)
{
    set(in, GPUPLAN_COST_PLATFORM_PRICE, 0);
    set(in, GPUPLAN_COST_PLATFORM_POWER, 0);
    set(in, GPUPLAN_COST_IDLE_POWER, 0);
    set(in, GPUPLAN_COST_GPU_LOAD, 0);
    set(in, GPUPLAN_COST_MAINTENANCE, 0);
    set(in, GPUPLAN_COST_COLOCATION, 0);
    set(in, GPUPLAN_COST_PUE, 1);
    set(in, GPUPLAN_COST_YEARS, 3);
    set(in, GPUPLAN_COST_HOURS_PER_DAY, 10);
}

static void test_break_even_hand_computed(void **state)
{
    (void)state;
    const struct gpuplan_gpu g = card();
    struct gpuplan_cost_inputs in;
    struct gpuplan_tco t;
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    assert_int_equal(gpuplan_cost_inputs_init(&in, &g, 1, NULL, &err), GPUPLAN_OK);
    assert_int_equal(in.v[GPUPLAN_COST_GPU_PRICE].origin, GPUPLAN_COST_FROM_CATALOG);
    zero_extras(&in);
    assert_int_equal(gpuplan_tco_compute(&in, &t, &err), GPUPLAN_OK);
    /* cloud: 2 $/h * 10 h * 30.4375 days = 608.75 $/month; 10000 / 608.75 = 16.427 */
    assert_true(fabs(t.monthly_cloud_usd - 608.75) < 1e-9);
    assert_true(t.has_break_even_months);
    assert_true(fabs(t.break_even_months - 10000.0 / 608.75) < 1e-9);
    /* over 36 months: h = 10000 / (36 * 30.4375 * 2) = 4.5631 */
    assert_true(t.has_break_even_hours_per_day);
    assert_true(fabs(t.break_even_hours_per_day - 10000.0 / (36 * 30.4375 * 2)) < 1e-9);
    assert_int_equal(t.n_points, 37);
    assert_true(fabs(t.cumulative_own_usd[12] - 10000) < 1e-9);
    assert_true(fabs(t.cumulative_cloud_usd[12] - 12 * 608.75) < 1e-9);
    assert_true(fabs(t.monthly_depreciation_usd - 10000.0 / 36) < 1e-9);

    /* energy: 1 kW in use (500 W at load 1 + 500 W platform), $0.20/kWh -> 0.2 $/h */
    set(&in, GPUPLAN_COST_GPU_LOAD, 1);
    set(&in, GPUPLAN_COST_PLATFORM_POWER, 500);
    set(&in, GPUPLAN_COST_POWER_PRICE, 0.2);
    assert_int_equal(gpuplan_tco_compute(&in, &t, &err), GPUPLAN_OK);
    assert_true(fabs(t.monthly_energy_usd - 0.2 * 10 * 30.4375) < 1e-9);
    assert_true(fabs(t.break_even_months - 10000.0 / (608.75 - 60.875)) < 1e-9);
    assert_true(fabs(t.break_even_hours_per_day - 10000.0 / (36 * 30.4375 * 1.8)) < 1e-9);

    /* maintenance 12 %/yr of capex = 100 $/month; idle 100 W at 14 h/day */
    set(&in, GPUPLAN_COST_MAINTENANCE, 0.12);
    set(&in, GPUPLAN_COST_IDLE_POWER, 100);
    assert_int_equal(gpuplan_tco_compute(&in, &t, &err), GPUPLAN_OK);
    const double energy = (1.0 * 10 + 0.1 * 14) * 30.4375 * 0.2;
    assert_true(fabs(t.monthly_energy_usd - energy) < 1e-9);
    assert_true(fabs(t.monthly_opex_usd - energy - 100) < 1e-9);
    assert_true(fabs(t.break_even_months - 10000.0 / (608.75 - energy - 100)) < 1e-9);
}

static void test_never_breaks_even(void **state)
{
    (void)state;
    const struct gpuplan_gpu g = card();
    struct gpuplan_cost_inputs in;
    struct gpuplan_tco t;
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    assert_int_equal(gpuplan_cost_inputs_init(&in, &g, 1, NULL, &err), GPUPLAN_OK);
    zero_extras(&in);
    set(&in, GPUPLAN_COST_CLOUD_PRICE, 0.05);
    assert_int_equal(gpuplan_tco_compute(&in, &t, &err), GPUPLAN_OK);
    assert_false(t.has_break_even_months);
    assert_false(t.has_break_even_hours_per_day);

    struct gpuplan_buf buf;
    gpuplan_buf_init(&buf, 0);
    assert_int_equal(gpuplan_render_tco(&in, &t, GPUPLAN_FORMAT_JSON, &buf, &err), GPUPLAN_OK);
    json_error_t jerr;
    json_t *root = json_loads(gpuplan_buf_str(&buf), 0, &jerr);
    assert_non_null(root);
    assert_true(json_is_null(json_object_get(root, "break_even_months")));
    assert_true(json_is_null(json_object_get(root, "break_even_hours_per_day")));
    assert_int_equal(json_integer_value(json_object_get(root, "schema_version")), 1);
    json_t *monthly = json_object_get(root, "monthly_usd");
    assert_true(json_is_number(json_object_get(monthly, "own")));
    assert_true(json_is_number(json_object_get(monthly, "cloud")));
    assert_string_equal(
        json_string_value(json_object_get(
            json_object_get(json_object_get(root, "inputs"), "cloud_usd_per_gpu_hour"), "origin")),
        "user");
    json_decref(root);
    gpuplan_buf_release(&buf);
}

static void test_renderers(void **state)
{
    (void)state;
    const struct gpuplan_gpu g = card();
    struct gpuplan_cost_inputs in;
    struct gpuplan_tco t;
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    assert_int_equal(gpuplan_cost_inputs_init(&in, &g, 4, NULL, &err), GPUPLAN_OK);
    assert_int_equal(gpuplan_tco_compute(&in, &t, &err), GPUPLAN_OK);
    struct gpuplan_buf buf;
    gpuplan_buf_init(&buf, 0);
    assert_int_equal(gpuplan_render_tco(&in, &t, GPUPLAN_FORMAT_TEXT, &buf, &err), GPUPLAN_OK);
    assert_non_null(strstr(gpuplan_buf_str(&buf), "break-even"));
    assert_non_null(strstr(gpuplan_buf_str(&buf), "assumption"));
    assert_non_null(strstr(gpuplan_buf_str(&buf), "cumulative cost"));
    gpuplan_buf_reset(&buf);
    assert_int_equal(gpuplan_render_tco(&in, &t, GPUPLAN_FORMAT_HTML, &buf, &err), GPUPLAN_OK);
    assert_non_null(strstr(gpuplan_buf_str(&buf), "<svg"));
    assert_non_null(strstr(gpuplan_buf_str(&buf), "<polyline"));
    gpuplan_buf_release(&buf);
}

static void test_bad_inputs(void **state)
{
    (void)state;
    struct gpuplan_gpu g = card();
    struct gpuplan_cost_inputs in;
    struct gpuplan_tco t;
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    assert_int_equal(gpuplan_cost_inputs_init(&in, &g, 0, NULL, &err), GPUPLAN_ERR_USAGE);
    assert_int_equal(gpuplan_cost_inputs_init(&in, &g, 2, NULL, &err), GPUPLAN_OK);
    assert_int_equal(gpuplan_cost_inputs_set(&in, GPUPLAN_COST_HOURS_PER_DAY, 25, &err),
                     GPUPLAN_ERR_USAGE);
    assert_non_null(strstr(err.message, "hours-per-day"));
    assert_int_equal(gpuplan_cost_inputs_set(&in, GPUPLAN_COST_YEARS, NAN, &err),
                     GPUPLAN_ERR_USAGE);
    assert_int_equal(gpuplan_cost_inputs_set(&in, GPUPLAN_COST_POWER_PRICE, -1, &err),
                     GPUPLAN_ERR_USAGE);
    g.price_usd = 0;
    assert_int_equal(gpuplan_cost_inputs_init(&in, &g, 2, NULL, &err), GPUPLAN_OK);
    assert_int_equal(gpuplan_tco_compute(&in, &t, &err), GPUPLAN_ERR_USAGE);
    assert_non_null(strstr(err.hint, "--gpu-price"));
    assert_true(fabs(gpuplan_cost_cloud_run_usd(10, 8, 2.5) - 200) < 1e-12);
}

/* USD per million tokens = USD/h / (tokens/s * 3600 s/h) * 1e6, the one formula. */
static void test_usd_per_mtok(void **state)
{
    (void)state;
    assert_true(fabs(gpuplan_cost_usd_per_mtok(3600.0, 1.0) - 1e6) < 1e-6);
    /* 8 GPUs at $2/h decoding 1000 tokens/s: $16/h over 3.6 M tokens = $4.44 per million */
    assert_true(fabs(gpuplan_cost_usd_per_mtok(16.0, 1000.0) - 16.0 / 3.6) < 1e-9);
}

/* gpuplan_estimate_run: one value with the memory, the time and its cost, consistent. */
static void test_estimate_value(void **state)
{
    (void)state;
    struct gpuplan_catalog *catalog = NULL;
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    assert_int_equal(gpuplan_catalog_load(&catalog, NULL, &err), GPUPLAN_OK);
    struct gpuplan_model model;
    gpuplan_model_init(&model);
    assert_int_equal(gpuplan_model_load(&model, "llama-3.1-8b", catalog, &err), GPUPLAN_OK);
    const struct gpuplan_gpu *gpu = gpuplan_catalog_find_gpu(catalog, "h100-sxm");
    assert_non_null(gpu);
    struct gpuplan_job job;
    gpuplan_job_init(&job);
    assert_int_equal(gpuplan_job_set(&job, "method", "qlora", &err), GPUPLAN_OK);
    assert_int_equal(gpuplan_job_set(&job, "tokens", "1e9", &err), GPUPLAN_OK);
    assert_int_equal(gpuplan_job_set(&job, "gpu", "h100-sxm:2", &err), GPUPLAN_OK);
    struct gpuplan_estimate *e = calloc(1, sizeof *e);
    assert_non_null(e);
    assert_int_equal(gpuplan_estimate_run(&model, &job, gpu, e, &err), GPUPLAN_OK);
    assert_string_equal(e->model_id, "llama-3.1-8b");
    assert_true(e->has_gpu && e->has_throughput);
    assert_int_equal(e->job.grad_ckpt, GPUPLAN_CKPT_FULL);   /* resolved: QLoRA checkpoints */
    assert_int_equal(e->job.sharding, GPUPLAN_SHARDING_DDP); /* resolved: 2 GPUs */
    assert_int_equal(e->cost.n_gpus, 2);
    assert_true(e->throughput.has_train_time && e->cost.has_gpu_hours);
    assert_true(fabs(e->cost.gpu_hours - 2.0 * e->throughput.train_hours) < 1e-9);
    assert_true(e->cost.has_cloud_usd == (gpu->cloud_usd_per_hour > 0.0));
    if (e->cost.has_cloud_usd)
        assert_true(fabs(e->cost.cloud_usd - e->cost.gpu_hours * gpu->cloud_usd_per_hour) < 1e-6);
    /* Without a GPU: memory only. */
    assert_int_equal(gpuplan_estimate_run(&model, &job, NULL, e, &err), GPUPLAN_OK);
    assert_false(e->has_gpu || e->has_throughput);
    free(e);
    gpuplan_model_release(&model);
    gpuplan_catalog_free(catalog);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_break_even_hand_computed),
        cmocka_unit_test(test_never_breaks_even),
        cmocka_unit_test(test_renderers),
        cmocka_unit_test(test_bad_inputs),
        cmocka_unit_test(test_usd_per_mtok),
        cmocka_unit_test(test_estimate_value),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
