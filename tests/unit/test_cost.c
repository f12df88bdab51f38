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
#include "gpuplan/throughput.h"

static struct gpuplan_gpu card(void)
{
    struct gpuplan_gpu g;
    memset(&g, 0, sizeof g);
    strcpy(g.id, "test-gpu");
    strcpy(g.form_factor, "pcie");
    g.tdp_w = 500;
    g.price_usd = 10000;
    strcpy(g.price_date, "2026-05");
    g.rates[0].tier = GPUPLAN_TIER_SPECIALTY;
    g.rates[0].usd_per_gpu_hour = 2.0;
    strcpy(g.rates[0].provider, "test cloud");
    strcpy(g.rates[0].date, "2026-05");
    g.n_rates = 1;
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
    /* zero hours a day: no hour of use to charge the month to (was $0.00 per used hour) */
    assert_int_equal(gpuplan_cost_inputs_set(&in, GPUPLAN_COST_HOURS_PER_DAY, 0, &err),
                     GPUPLAN_ERR_USAGE);
    assert_non_null(strstr(err.message, "more than 0"));
    assert_int_equal(gpuplan_cost_inputs_set(&in, GPUPLAN_COST_HOURS_PER_DAY, 0.5, &err),
                     GPUPLAN_OK);
    assert_int_equal(gpuplan_tco_compute(&in, &t, &err), GPUPLAN_OK);
    assert_true(t.own_per_used_gpu_hour_usd > 0.0);
    in.v[GPUPLAN_COST_HOURS_PER_DAY].value = 0.0; /* past the setter: the compute refuses it */
    assert_int_equal(gpuplan_tco_compute(&in, &t, &err), GPUPLAN_ERR_USAGE);
    assert_non_null(strstr(err.message, "hours-per-day"));
    assert_int_equal(gpuplan_cost_inputs_init(&in, &g, 2, NULL, &err), GPUPLAN_OK);
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
    struct gpuplan_rate_choice choice;
    gpuplan_gpu_cloud_rate(gpu, GPUPLAN_TIER_DEFAULT, &choice);
    assert_true(e->cost.has_cloud_usd == (choice.rate != NULL));
    if (e->cost.has_cloud_usd) {
        assert_true(fabs(e->cost.cloud_usd - e->cost.gpu_hours * choice.rate->usd_per_gpu_hour) <
                    1e-6);
        assert_string_equal(e->cost.provider, choice.rate->provider);
        assert_int_equal(e->cost.tier, GPUPLAN_TIER_SPECIALTY);
    }
    /* At the hyperscaler tier the estimate takes that tier's rate (h100-sxm has one). */
    job.cloud_tier = GPUPLAN_TIER_HYPERSCALER;
    assert_int_equal(gpuplan_estimate_run(&model, &job, gpu, e, &err), GPUPLAN_OK);
    gpuplan_gpu_cloud_rate(gpu, GPUPLAN_TIER_HYPERSCALER, &choice);
    assert_non_null(choice.rate);
    assert_false(choice.fallback);
    assert_true(fabs(e->cost.usd_per_gpu_hour - choice.rate->usd_per_gpu_hour) < 1e-9);
    assert_false(e->cost.rate_fallback);
    job.cloud_tier = GPUPLAN_TIER_DEFAULT;
    /* Without a GPU: memory only. */
    assert_int_equal(gpuplan_estimate_run(&model, &job, NULL, e, &err), GPUPLAN_OK);
    assert_false(e->has_gpu || e->has_throughput);
    /* Across servers the time model reads the network of the server the GPU is sold in, as the
     * planner does: 18 x 8 B300 in HGX B300 (800 Gb/s per GPU) against the stated 400 Gb/s. */
    const struct gpuplan_gpu *b300 = gpuplan_catalog_find_gpu(catalog, "b300");
    assert_non_null(b300);
    assert_int_equal(gpuplan_job_set(&job, "method", "full", &err), GPUPLAN_OK);
    assert_int_equal(gpuplan_job_set(&job, "sharding", "fsdp", &err), GPUPLAN_OK);
    assert_int_equal(gpuplan_job_set(&job, "gpu", "b300:8", &err), GPUPLAN_OK);
    assert_int_equal(gpuplan_job_set(&job, "nodes", "18", &err), GPUPLAN_OK);
    const struct gpuplan_platform *hgx = gpuplan_catalog_sole_platform(catalog, b300, 8);
    assert_non_null(hgx);
    assert_true(hgx->network_gb_per_s > 0.0);
    assert_null(gpuplan_catalog_sole_platform(catalog, b300, hgx->max_gpus + 1));
    assert_int_equal(gpuplan_estimate_run_in(&model, &job, b300, hgx, e, &err), GPUPLAN_OK);
    assert_string_equal(e->platform_id, hgx->id);
    struct gpuplan_throughput direct;
    assert_int_equal(gpuplan_throughput_estimate(&model, &job, b300, hgx, &direct, &err),
                     GPUPLAN_OK);
    assert_true(fabs(e->throughput.step_time_s - direct.step_time_s) < 1e-12);
    const double with_platform_s = e->throughput.comm_total_s;
    assert_int_equal(gpuplan_estimate_run(&model, &job, b300, e, &err), GPUPLAN_OK);
    assert_string_equal(e->platform_id, "");
    assert_true(e->throughput.comm_total_s > with_platform_s); /* 400 < 800 Gb/s per GPU */
    free(e);
    gpuplan_model_release(&model);
    gpuplan_catalog_free(catalog);
}

/* A card with one rate per listed tier, lowest first where two share a tier. */
static struct gpuplan_gpu tiered_card(void)
{
    struct gpuplan_gpu g = card();
    const struct {
        enum gpuplan_cloud_tier tier;
        double usd;
        const char *provider;
    } rates[] = {
        { GPUPLAN_TIER_HYPERSCALER, 6.0, "big cloud" },
        { GPUPLAN_TIER_SPECIALTY, 3.0, "neo a" },
        { GPUPLAN_TIER_SPECIALTY, 2.5, "neo b" },
        { GPUPLAN_TIER_MARKETPLACE, 1.5, "market" },
    };
    g.n_rates = sizeof rates / sizeof rates[0];
    for (size_t i = 0; i < g.n_rates; i++) {
        g.rates[i].tier = rates[i].tier;
        g.rates[i].usd_per_gpu_hour = rates[i].usd;
        strcpy(g.rates[i].provider, rates[i].provider);
        strcpy(g.rates[i].date, "2026-05");
    }
    return g;
}

static void test_tier_choice(void **state)
{
    (void)state;
    const struct gpuplan_gpu g = tiered_card();
    struct gpuplan_rate_choice c;
    gpuplan_gpu_cloud_rate(&g, GPUPLAN_TIER_SPECIALTY, &c);
    assert_non_null(c.rate);
    assert_false(c.fallback);
    /* two at the tier: the upper middle one, a named provider's price, not the lowest */
    assert_string_equal(c.rate->provider, "neo a");
    /* three at the tier: the median, whatever their order in the catalog */
    struct gpuplan_gpu three = g;
    three.rates[three.n_rates] = three.rates[1];
    three.rates[three.n_rates].usd_per_gpu_hour = 0.5; /* an outlier: one source's promotion */
    strcpy(three.rates[three.n_rates].provider, "promo");
    three.n_rates++;
    gpuplan_gpu_cloud_rate(&three, GPUPLAN_TIER_SPECIALTY, &c);
    assert_string_equal(c.rate->provider, "neo b");
    gpuplan_gpu_cloud_rate(&g, GPUPLAN_TIER_HYPERSCALER, &c);
    assert_true(c.rate && !c.fallback && c.rate->usd_per_gpu_hour == 6.0);
    /* No 1-year rate: specialty first in the fallback order, flagged. */
    gpuplan_gpu_cloud_rate(&g, GPUPLAN_TIER_COMMIT_1Y, &c);
    assert_non_null(c.rate);
    assert_true(c.fallback);
    assert_int_equal(c.rate->tier, GPUPLAN_TIER_SPECIALTY);
    assert_int_equal(c.asked, GPUPLAN_TIER_COMMIT_1Y);
    /* Only a marketplace rate: every other tier falls back to it. */
    struct gpuplan_gpu m = g;
    m.rates[0] = g.rates[3];
    m.n_rates = 1;
    gpuplan_gpu_cloud_rate(&m, GPUPLAN_TIER_HYPERSCALER, &c);
    assert_true(c.rate && c.fallback && c.rate->tier == GPUPLAN_TIER_MARKETPLACE);
    m.n_rates = 0;
    gpuplan_gpu_cloud_rate(&m, GPUPLAN_TIER_SPECIALTY, &c);
    assert_null(c.rate);
    assert_false(c.fallback);
    /* The cost inputs carry the tier, provider and fallback. */
    struct gpuplan_cost_inputs in;
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    assert_int_equal(
        gpuplan_cost_inputs_init_ex(&in, NULL, &g, 2, NULL, GPUPLAN_TIER_COMMIT_1Y, &err),
        GPUPLAN_OK);
    assert_true(in.rate_fallback);
    assert_int_equal(in.tier_asked, GPUPLAN_TIER_COMMIT_1Y);
    assert_int_equal(in.tier, GPUPLAN_TIER_SPECIALTY);
    assert_string_equal(in.rate_provider, "neo a");
    assert_true(in.v[GPUPLAN_COST_CLOUD_PRICE].value == 3.0);
    /* Names round-trip. */
    for (int t = 0; t < GPUPLAN_TIER_COUNT; t++) {
        enum gpuplan_cloud_tier back;
        assert_true(
            gpuplan_cloud_tier_parse(gpuplan_cloud_tier_name((enum gpuplan_cloud_tier)t), &back));
        assert_int_equal(back, t);
    }
    enum gpuplan_cloud_tier none;
    assert_false(gpuplan_cloud_tier_parse("on-demand", &none));
}

/* Capex lines: RAM and NVMe beyond the base at the parts' prices, the network for 2+ servers. */
static void test_capex_lines(void **state)
{
    (void)state;
    struct gpuplan_catalog *catalog = NULL;
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    assert_int_equal(gpuplan_catalog_load(&catalog, NULL, &err), GPUPLAN_OK);
    const struct gpuplan_gpu *gpu = gpuplan_catalog_find_gpu(catalog, "h100-sxm");
    const struct gpuplan_platform *pl = gpuplan_catalog_find_platform(catalog, "hgx-h100-8");
    const struct gpuplan_part *ram = gpuplan_catalog_part(catalog, GPUPLAN_PART_RAM);
    const struct gpuplan_part *nvme = gpuplan_catalog_part(catalog, GPUPLAN_PART_NVME);
    const struct gpuplan_part *port = gpuplan_catalog_part(catalog, GPUPLAN_PART_SWITCH_PORT);
    assert_true(gpu && pl && ram && nvme && port);
    assert_true(pl->nics_included && pl->scaleout_nics == 8);
    struct gpuplan_cost_inputs in;
    assert_int_equal(
        gpuplan_cost_inputs_init_ex(&in, catalog, gpu, 16, pl, GPUPLAN_TIER_DEFAULT, &err),
        GPUPLAN_OK);
    assert_int_equal(in.n_servers, 2);
    /* Defaults: the base RAM and NVMe, nothing beyond; priced from the parts. */
    assert_true(in.v[GPUPLAN_COST_RAM_PRICE].value == ram->usd_per_unit);
    assert_true(in.v[GPUPLAN_COST_NVME_PRICE].value == nvme->usd_per_unit);
    const double base_gib = (double)pl->ram_base_bytes / (double)GPUPLAN_BYTES_PER_GIB;
    assert_true(fabs(in.v[GPUPLAN_COST_RAM_GIB].value - base_gib) < 1e-9);
    set(&in, GPUPLAN_COST_RAM_GIB, base_gib + 1000.0); /* 1,000 GiB more per server */
    set(&in, GPUPLAN_COST_NVME_TB, in.nvme_base_tb + 10.0);
    struct gpuplan_capex c;
    gpuplan_capex_compute(&in, &c);
    assert_int_equal(c.n_unpriced, 0);
    assert_true(fabs(c.line[GPUPLAN_CAPEX_GPUS].usd - 16 * gpu->price_usd) < 1e-6);
    assert_true(fabs(c.line[GPUPLAN_CAPEX_PLATFORM].usd - 2 * pl->base_price_usd) < 1e-6);
    assert_true(fabs(c.line[GPUPLAN_CAPEX_RAM].quantity - 2000.0) < 1e-6);
    assert_true(fabs(c.line[GPUPLAN_CAPEX_RAM].usd - 2000.0 * ram->usd_per_unit) < 1e-6);
    assert_true(fabs(c.line[GPUPLAN_CAPEX_NVME].usd - 20.0 * nvme->usd_per_unit) < 1e-6);
    /* 8 fabric ports per server, NICs in the platform price. */
    assert_true(fabs(c.line[GPUPLAN_CAPEX_NETWORK].usd - 2 * 8 * port->usd_per_unit) < 1e-6);
    double sum = 0;
    for (int i = 0; i < GPUPLAN_CAPEX_ITEM_COUNT; i++)
        sum += c.line[i].usd;
    assert_true(fabs(c.total_usd - sum) < 1e-6);
    struct gpuplan_tco t;
    assert_int_equal(gpuplan_tco_compute(&in, &t, &err), GPUPLAN_OK);
    assert_true(fabs(t.capex_usd - c.total_usd) < 1e-6);
    /* A platform without its NICs in the price pays for them too (oam-amd-8). */
    const struct gpuplan_gpu *mi = gpuplan_catalog_find_gpu(catalog, "mi300x");
    const struct gpuplan_platform *oam = gpuplan_catalog_find_platform(catalog, "oam-amd-8");
    const struct gpuplan_part *nic = gpuplan_catalog_part(catalog, GPUPLAN_PART_NIC);
    assert_true(mi && oam && nic && !oam->nics_included);
    assert_int_equal(
        gpuplan_cost_inputs_init_ex(&in, catalog, mi, 16, oam, GPUPLAN_TIER_DEFAULT, &err),
        GPUPLAN_OK);
    assert_true(fabs(in.v[GPUPLAN_COST_NETWORK_PRICE].value -
                     oam->scaleout_nics * (port->usd_per_unit + nic->usd_per_unit)) < 1e-6);
    /* One server: no network line. */
    assert_int_equal(
        gpuplan_cost_inputs_init_ex(&in, catalog, gpu, 8, pl, GPUPLAN_TIER_DEFAULT, &err),
        GPUPLAN_OK);
    gpuplan_capex_compute(&in, &c);
    assert_true(c.line[GPUPLAN_CAPEX_NETWORK].usd == 0 && c.line[GPUPLAN_CAPEX_NETWORK].priced);
    /* Without a catalog, RAM beyond the base has no price: named, not counted as $0. */
    assert_int_equal(gpuplan_cost_inputs_init(&in, gpu, 8, pl, &err), GPUPLAN_OK);
    set(&in, GPUPLAN_COST_RAM_GIB, base_gib + 512.0);
    gpuplan_capex_compute(&in, &c);
    assert_false(c.line[GPUPLAN_CAPEX_RAM].priced);
    assert_int_equal(c.n_unpriced, 1);
    assert_true(c.line[GPUPLAN_CAPEX_RAM].usd == 0);
    gpuplan_catalog_free(catalog);
}

/* Price age: months between dates, stale past 12 months before the catalog's own date. */
static void test_price_age(void **state)
{
    (void)state;
    assert_int_equal(gpuplan_date_months_between("2025-05", "2026-05"), 12);
    assert_int_equal(gpuplan_date_months_between("2025-05-31", "2026-06-01"), 13);
    assert_int_equal(gpuplan_date_months_between("2026-12", "2026-01"), -11);
    assert_int_equal(gpuplan_date_months_between("May 2026", "2026-05"), -1);
    assert_int_equal(gpuplan_date_months_between("", "2026-05"), -1);
    struct gpuplan_catalog *catalog = NULL;
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    assert_int_equal(gpuplan_catalog_load(&catalog, NULL, &err), GPUPLAN_OK);
    const char *date = gpuplan_catalog_date(catalog);
    assert_int_equal(strlen(date), 10);
    char twelve[16], two_years[16];
    const int year = atoi(date);
    snprintf(twelve, sizeof twelve, "%04d-%.2s", year - 1, date + 5);       /* exactly 12 months */
    snprintf(two_years, sizeof two_years, "%04d-%.2s", year - 2, date + 5); /* 24 months */
    assert_false(gpuplan_catalog_price_is_stale(catalog, twelve));
    assert_true(gpuplan_catalog_price_is_stale(catalog, two_years));
    assert_false(gpuplan_catalog_price_is_stale(catalog, ""));
    /* Gaudi 3's $125,000 kit price is from 2024-06: flagged in the cost inputs. */
    const struct gpuplan_gpu *gaudi = gpuplan_catalog_find_gpu(catalog, "gaudi3");
    assert_non_null(gaudi);
    struct gpuplan_cost_inputs in;
    assert_int_equal(
        gpuplan_cost_inputs_init_ex(&in, catalog, gaudi, 8, NULL, GPUPLAN_TIER_DEFAULT, &err),
        GPUPLAN_OK);
    assert_true(in.stale[GPUPLAN_COST_GPU_PRICE]);
    assert_string_equal(in.catalog_date, date);
    const struct gpuplan_gpu *h100 = gpuplan_catalog_find_gpu(catalog, "h100-sxm");
    assert_int_equal(
        gpuplan_cost_inputs_init_ex(&in, catalog, h100, 8, NULL, GPUPLAN_TIER_DEFAULT, &err),
        GPUPLAN_OK);
    assert_false(in.stale[GPUPLAN_COST_GPU_PRICE]);
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
        cmocka_unit_test(test_tier_choice),
        cmocka_unit_test(test_capex_lines),
        cmocka_unit_test(test_price_age),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
