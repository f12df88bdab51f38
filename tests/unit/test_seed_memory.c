/*
 * test_seed_memory.c - seed claims S2, S3, S6, S7 (docs/mission.md) computed
 * with gpuplan. Each case asserts the computed figure and prints the claim
 * next to it with "agrees" or the reason it does not (docs/seed-claims.md).
 */
#include "test_common.h"

#include "gpuplan/estimate.h"
#include "gpuplan/gpuplan.h"

#include <math.h>

static void load(struct gpuplan_model *m, const char *name)
{
    char rel[256];
    snprintf(rel, sizeof rel, "hf-configs/%s.json", name);
    size_t len = 0;
    uint8_t *bytes = read_file(fixture_path(rel), &len);
    assert_non_null(bytes);
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    gpuplan_model_init(m);
    assert_int_equal(gpuplan_model_from_hf_config(m, bytes, len, name, &err), GPUPLAN_OK);
    free(bytes);
}

static struct gpuplan_memory_estimate run(const struct gpuplan_model *m, const char *const *opts)
{
    struct gpuplan_job job;
    gpuplan_job_init(&job);
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    for (size_t i = 0; opts[i]; i += 2)
        assert_int_equal(gpuplan_job_set(&job, opts[i], opts[i + 1], &err), GPUPLAN_OK);
    /* gpuplan_estimate_memory: the training model, or the serving engines' for infer jobs */
    struct gpuplan_memory_report *r = calloc(1, sizeof *r);
    assert_non_null(r);
    assert_int_equal(gpuplan_estimate_memory(m, &job, NULL, r, &err), GPUPLAN_OK);
    const struct gpuplan_memory_estimate e = r->est;
    free(r);
    return e;
}

static double gb(uint64_t b)
{
    return gpuplan_gb_from_bytes(b);
}

/* S2: a 7B model in BF16 needs ~14 GB of weights; full fine-tuning "at least 40-48 GB". */
static void test_s2(void **state)
{
    (void)state;
    struct gpuplan_model m;
    load(&m, "mistral-7b-instruct-v0.3");
    const char *const infer[] = { "method", "infer", NULL };
    const struct gpuplan_memory_estimate w = run(&m, infer);
    printf("S2 weights bf16 7.25B: %.1f GB (claim ~14 GB): agrees\n", gb(w.per_gpu.weights_bytes));
    assert_true(gb(w.per_gpu.weights_bytes) > 13.0 && gb(w.per_gpu.weights_bytes) < 15.5);
    const char *const full[] = { "seq-len", "2048", NULL };
    const struct gpuplan_memory_estimate f = run(&m, full);
    printf(
        "S2 full FT bf16-mixed AdamW seq 2048: %.0f GB (claim 'at least 40-48 GB'): agrees as a lower bound; "
        "the real need is ~3x higher (18 B/param of model states alone)\n",
        gb(f.per_gpu.peak_allocated_bytes));
    assert_true(gb(f.per_gpu.peak_allocated_bytes) > 48.0);
    gpuplan_model_release(&m);
}

/* S3: 70B full FT 1-1.2 TB (16-20 B/param); inference ~140 GB in BF16; QLoRA 48-80 GB. */
static void test_s3(void **state)
{
    (void)state;
    struct gpuplan_model m;
    load(&m, "llama-3.1-70b");
    const char *const full[] = { NULL };
    const struct gpuplan_memory_estimate f = run(&m, full);
    const uint64_t states =
        f.per_gpu.weights_bytes + f.per_gpu.gradients_bytes + f.per_gpu.optimizer_bytes;
    printf(
        "S3 70B full FT model states: %.0f GB = %.1f B/param (claim 1-1.2 TB, 16-20 B/param): agrees; "
        "with activations at seq 2048: %.0f GB\n",
        gb(states), (double)states / (double)m.n_params_total, gb(f.per_gpu.peak_allocated_bytes));
    assert_true(gb(states) > 1100.0 && gb(states) < 1411.0);
    const char *const inf[] = { "method", "infer", NULL };
    const struct gpuplan_memory_estimate i = run(&m, inf);
    printf("S3 70B inference bf16 weights: %.0f GB (claim ~140 GB): agrees\n",
           gb(i.per_gpu.weights_bytes));
    assert_true(gb(i.per_gpu.weights_bytes) > 138.0 && gb(i.per_gpu.weights_bytes) < 145.0);
    const char *const q[] = { "method", "qlora", "seq-len", "2048", NULL };
    const struct gpuplan_memory_estimate ql = run(&m, q);
    printf("S3 70B QLoRA seq 2048 mb 1: %.0f GB device total (claim 48-80 GB): agrees\n",
           gb(ql.per_gpu.device_total_bytes));
    assert_true(gb(ql.per_gpu.device_total_bytes) > 40.0 &&
                gb(ql.per_gpu.device_total_bytes) < 80.0);
    gpuplan_model_release(&m);
}

/* S6: 8B LoRA on a 48 GB GPU; QLoRA "75% less memory than LoRA"; 8B QLoRA fits 24 GB. */
static void test_s6(void **state)
{
    (void)state;
    struct gpuplan_model m;
    load(&m, "llama-3.1-8b");
    const char *const lora[] = { "method", "lora", "seq-len", "2048", NULL };
    const char *const qlora[] = { "method", "qlora", "seq-len", "2048", NULL };
    const struct gpuplan_memory_estimate l = run(&m, lora), q = run(&m, qlora);
    printf("S6 8B LoRA seq 2048: %.1f GB device total (claim: fits 48 GB): agrees\n",
           gb(l.per_gpu.device_total_bytes));
    assert_true(gb(l.per_gpu.device_total_bytes) < 48.0);
    const double saving =
        1.0 - (double)q.per_gpu.device_total_bytes / (double)l.per_gpu.device_total_bytes;
    printf(
        "S6 QLoRA vs LoRA: %.0f %% less (claim 75 %%): disagrees; the weights shrink ~70 %% but activations, "
        "logits and the fp32 upcast of embeddings/head do not\n",
        saving * 100.0);
    assert_true(saving > 0.2 && saving < 0.75);
    printf("S6 8B QLoRA seq 2048: %.1f GB (claim: fits 24 GB): agrees\n",
           gb(q.per_gpu.device_total_bytes));
    assert_true(gb(q.per_gpu.device_total_bytes) < 24.0);
    gpuplan_model_release(&m);
}

/* S7: 70B "280 GB for FP16 inference" (fp32 figure); ~1 TB full FT; 80-100 GB QLoRA. */
static void test_s7(void **state)
{
    (void)state;
    struct gpuplan_model m;
    load(&m, "llama-3.1-70b");
    const char *const f16[] = { "method", "infer", "weights", "fp16", NULL };
    const char *const f32[] = { "method", "infer", "weights", "fp32", NULL };
    const struct gpuplan_memory_estimate a = run(&m, f16), b = run(&m, f32);
    printf(
        "S7 70B weights fp16 %.0f GB, fp32 %.0f GB (claim '280 GB for FP16'): disagrees; 280 GB is the fp32 "
        "figure\n",
        gb(a.per_gpu.weights_bytes), gb(b.per_gpu.weights_bytes));
    assert_true(gb(b.per_gpu.weights_bytes) > 275.0 && gb(b.per_gpu.weights_bytes) < 290.0);
    /* the linears double; the 16-bit embedding, head and rotary cache stay as loaded */
    assert_true(fabs(gb(b.per_gpu.weights_bytes) / gb(a.per_gpu.weights_bytes) - 2.0) < 0.05);
    const char *const q[] = { "method", "qlora", "seq-len", "4096", "micro-batch", "2", NULL };
    const struct gpuplan_memory_estimate ql = run(&m, q);
    printf(
        "S7 70B QLoRA seq 4096 mb 2: %.0f GB (claim 80-100 GB; S3 says 48-80): both ranges are reachable, the "
        "figure depends on tokens per step\n",
        gb(ql.per_gpu.device_total_bytes));
    assert_true(gb(ql.per_gpu.device_total_bytes) > 48.0);
    gpuplan_model_release(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_s2),
        cmocka_unit_test(test_s3),
        cmocka_unit_test(test_s6),
        cmocka_unit_test(test_s7),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
