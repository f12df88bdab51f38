/*
 * test_intervals.c - the compiled-in interval classes and their back-off,
 * the ranges on an estimate's figures, the three-way verdict, and the
 * framework profiles (--stack) the job resolves with.
 */
#include "test_common.h"

#include "gpuplan/estimate.h"
#include "gpuplan/gpuplan.h"
#include "gpuplan/render.h"
#include "gpuplan/units.h"

static void test_find_exact_and_back_off(void **state)
{
    (void)state;
    struct gpuplan_interval iv;
    /* a class with rows of its own (validation/intervals-memory.csv) */
    assert_true(gpuplan_interval_find("memory", "torchtitan", "full", "reserved", &iv));
    assert_true(iv.has);
    assert_string_equal(iv.class_name, "torchtitan|full|reserved");
    assert_true(iv.n_rows > 0);
    assert_true(iv.n_used >= iv.n_rows);
    assert_true(iv.factor_low > 0.0 && iv.factor_low <= 1.0);
    assert_true(iv.factor_high >= 1.0 && iv.factor_high < 5.0);
    /* a class the validation rows do not have: the coarser class's bounds, 0 rows */
    assert_true(gpuplan_interval_find("memory", "unsloth", "lora", "allocated", &iv));
    assert_string_equal(iv.class_name, "unsloth|lora|allocated");
    assert_int_equal(iv.n_rows, 0);
    assert_true(strncmp(iv.bounds_from, "*|", 2) == 0);
    struct gpuplan_interval coarse;
    assert_true(gpuplan_interval_find("memory", "*", "lora", "allocated", &coarse));
    assert_string_equal(iv.bounds_from, coarse.bounds_from);
    assert_true(iv.factor_low == coarse.factor_low && iv.factor_high == coarse.factor_high);
    /* throughput: kind "-" */
    assert_true(gpuplan_interval_find("throughput", "megatron", "full", "-", &iv));
    assert_true(iv.n_rows > 0);
    assert_true(gpuplan_interval_find("throughput", "nobody", "qlora", "-", &iv));
    assert_int_equal(iv.n_rows, 0);
    assert_string_equal(gpuplan_fit_verdict_name(GPUPLAN_VERDICT_MAY_NOT_FIT), "may-not-fit");
    assert_string_equal(gpuplan_fit_verdict_label(GPUPLAN_VERDICT_DOES_NOT_FIT), "DOES NOT FIT");
}

/* A training estimate with the given device total on a GPU of `usable` bytes. */
static void fake_estimate(struct gpuplan_estimate *e, uint64_t reserved, uint64_t usable)
{
    memset(e, 0, sizeof *e);
    struct gpuplan_job job;
    gpuplan_job_init(&job);
    gpuplan_job_resolve(&job, &e->job);
    struct gpuplan_memory_per_gpu *g = &e->memory.est.per_gpu;
    g->peak_allocated_bytes = reserved * 9 / 10;
    g->peak_reserved_bytes = reserved;
    g->cuda_context_bytes = 500000000ULL;
    g->device_total_bytes = reserved + g->cuda_context_bytes;
    e->has_gpu = true;
    e->memory.est.has_gpu = true;
    e->memory.est.gpu_usable_bytes = usable;
    e->memory.est.fits = g->device_total_bytes <= usable;
}

static void test_ranges_and_verdict(void **state)
{
    (void)state;
    struct gpuplan_interval res;
    assert_true(gpuplan_interval_find("memory", "hf-trainer", "full", "reserved", &res));
    const uint64_t reserved = 40ULL * GPUPLAN_BYTES_PER_GIB;
    const uint64_t context = 500000000ULL;
    const double lo = (double)reserved * res.factor_low + (double)context;
    const double hi = (double)reserved * res.factor_high + (double)context;
    struct gpuplan_estimate *e = calloc(1, sizeof *e);
    assert_non_null(e);
    struct gpuplan_estimate_ranges rg;

    /* the top of the range fits */
    fake_estimate(e, reserved, (uint64_t)(hi * 1.01));
    gpuplan_estimate_ranges_fill(e, &rg);
    assert_true(rg.has_memory && rg.has_verdict);
    assert_int_equal(rg.verdict, GPUPLAN_VERDICT_FITS);
    /* the context lies outside the allocator: added, not scaled */
    assert_true(rg.device_total_high_bytes == rg.peak_reserved_high_bytes + context);
    assert_true(rg.peak_reserved_low_bytes >= rg.peak_allocated_low_bytes);
    assert_true(rg.peak_allocated_low_bytes <= e->memory.est.per_gpu.peak_allocated_bytes);
    assert_true(rg.peak_allocated_high_bytes >= e->memory.est.per_gpu.peak_allocated_bytes);

    /* the estimate fits, the top of its range does not: MAY NOT FIT, over by top - usable */
    const uint64_t usable = (uint64_t)(((double)(reserved + context) + hi) / 2.0);
    fake_estimate(e, reserved, usable);
    assert_true(e->memory.est.fits);
    gpuplan_estimate_ranges_fill(e, &rg);
    assert_int_equal(rg.verdict, GPUPLAN_VERDICT_MAY_NOT_FIT);
    assert_true(rg.over_bytes > 0);
    assert_true((uint64_t)rg.over_bytes == rg.device_total_high_bytes - usable);

    /* even the bottom of the range does not fit */
    fake_estimate(e, reserved, (uint64_t)(lo * 0.9));
    gpuplan_estimate_ranges_fill(e, &rg);
    assert_int_equal(rg.verdict, GPUPLAN_VERDICT_DOES_NOT_FIT);
    assert_int_equal(rg.over_bytes, 0);

    /* saturated figures stay saturated, no wrap-around */
    fake_estimate(e, UINT64_MAX - 1000, UINT64_MAX / 2);
    e->memory.est.per_gpu.device_total_bytes = UINT64_MAX;
    gpuplan_estimate_ranges_fill(e, &rg);
    assert_true(rg.device_total_high_bytes == UINT64_MAX);
    assert_int_equal(rg.verdict, GPUPLAN_VERDICT_DOES_NOT_FIT);

    /* serving has no intervals (yet) */
    fake_estimate(e, reserved, usable);
    e->is_serving = true;
    gpuplan_estimate_ranges_fill(e, &rg);
    assert_false(rg.has_memory);
    assert_false(rg.has_verdict);
    free(e);
}

/* The text verdict says which end of the range decides, and never "short by" a headroom. */
static void test_verdict_text(void **state)
{
    (void)state;
    struct gpuplan_estimate *e = calloc(1, sizeof *e);
    assert_non_null(e);
    const uint64_t gib = GPUPLAN_BYTES_PER_GIB;
    fake_estimate(e, 40 * gib, 70 * gib);
    snprintf(e->gpu_id, sizeof e->gpu_id, "%s", "test-70g");
    e->memory.est.headroom_bytes = (int64_t)(70 * gib - e->memory.est.per_gpu.device_total_bytes);
    gpuplan_estimate_ranges_fill(e, &e->ranges);
    struct gpuplan_buf out;
    gpuplan_buf_init(&out, 1 << 20);
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    assert_int_equal(gpuplan_render_estimate(e, GPUPLAN_FORMAT_TEXT, &out, &err), GPUPLAN_OK);
    assert_non_null(strstr(gpuplan_buf_str(&out), "verdict: FITS on test-70g"));
    assert_non_null(strstr(gpuplan_buf_str(&out), "at the top of the range"));
    assert_non_null(strstr(gpuplan_buf_str(&out), "class hf-trainer|full|reserved"));
    gpuplan_buf_release(&out);
    /* a class whose bottom is above the estimate: it fits, its range's bottom does not */
    e->ranges.verdict = GPUPLAN_VERDICT_DOES_NOT_FIT;
    e->ranges.device_total_low_bytes = 71 * gib;
    gpuplan_buf_init(&out, 1 << 20);
    assert_int_equal(gpuplan_render_estimate(e, GPUPLAN_FORMAT_TEXT, &out, &err), GPUPLAN_OK);
    assert_non_null(strstr(gpuplan_buf_str(&out), "the estimate fits (headroom"));
    assert_null(strstr(gpuplan_buf_str(&out), "short by"));
    gpuplan_buf_release(&out);
    free(e);
}

static void test_stack_profiles(void **state)
{
    (void)state;
    struct gpuplan_job job, r;
    gpuplan_job_init(&job);
    assert_int_equal(job.stack, GPUPLAN_FRAMEWORK_HF_TRAINER);
    /* the default profile is the job's defaults */
    gpuplan_job_resolve(&job, &r);
    assert_int_equal(r.precision, GPUPLAN_PRECISION_BF16_MIXED);
    assert_int_equal(r.grad_ckpt, GPUPLAN_CKPT_NONE);
    assert_false(r.chunked_ce);

    assert_int_equal(gpuplan_job_set(&job, "stack", "torchtune", NULL), GPUPLAN_OK);
    gpuplan_job_resolve(&job, &r);
    assert_int_equal(r.precision, GPUPLAN_PRECISION_BF16);
    assert_true(r.chunked_ce);
    /* an option given overrides the profile, whatever the order */
    assert_int_equal(gpuplan_job_set(&job, "precision", "bf16-mixed", NULL), GPUPLAN_OK);
    assert_int_equal(gpuplan_job_set(&job, "chunked-ce", "no", NULL), GPUPLAN_OK);
    gpuplan_job_resolve(&job, &r);
    assert_int_equal(r.precision, GPUPLAN_PRECISION_BF16_MIXED);
    assert_false(r.chunked_ce);

    gpuplan_job_init(&job);
    assert_int_equal(gpuplan_job_set(&job, "stack", "trl", NULL), GPUPLAN_OK);
    gpuplan_job_resolve(&job, &r);
    assert_int_equal(r.grad_ckpt, GPUPLAN_CKPT_FULL);
    assert_true(r.chunked_ce);

    gpuplan_job_init(&job);
    assert_int_equal(gpuplan_job_set(&job, "stack", "torchtitan", NULL), GPUPLAN_OK);
    assert_int_equal(gpuplan_job_set(&job, "gpu", "h100-sxm:8", NULL), GPUPLAN_OK);
    gpuplan_job_resolve(&job, &r);
    assert_int_equal(r.sharding, GPUPLAN_SHARDING_FSDP);
    assert_int_equal(r.grad_ckpt, GPUPLAN_CKPT_SELECTIVE);
    assert_int_equal(gpuplan_job_set(&job, "sharding", "ddp", NULL), GPUPLAN_OK);
    gpuplan_job_resolve(&job, &r);
    assert_int_equal(r.sharding, GPUPLAN_SHARDING_DDP);

    gpuplan_job_init(&job);
    assert_int_equal(gpuplan_job_set(&job, "stack", "unsloth", NULL), GPUPLAN_OK);
    gpuplan_job_resolve(&job, &r);
    assert_int_equal(r.grad_ckpt, GPUPLAN_CKPT_FULL);
    assert_true(r.act_offload);

    gpuplan_job_init(&job);
    assert_int_equal(gpuplan_job_set(&job, "stack", "nemo", NULL), GPUPLAN_OK);
    assert_int_equal(job.stack, GPUPLAN_FRAMEWORK_MEGATRON);
    assert_string_equal(gpuplan_framework_name(job.stack), "megatron");
    gpuplan_job_resolve(&job, &r);
    assert_true(r.compile);
    assert_int_equal(r.attention, GPUPLAN_ATTN_FLASH);
    /* serving jobs are the engines': no training profile */
    assert_int_equal(gpuplan_job_set(&job, "method", "infer", NULL), GPUPLAN_OK);
    gpuplan_job_resolve(&job, &r);
    assert_false(r.compile);
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    assert_int_equal(gpuplan_job_set(&job, "stack", "torchtun", &err), GPUPLAN_ERR_USAGE);
    assert_non_null(strstr(err.hint, "torchtune"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_find_exact_and_back_off),
        cmocka_unit_test(test_ranges_and_verdict),
        cmocka_unit_test(test_verdict_text),
        cmocka_unit_test(test_stack_profiles),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
