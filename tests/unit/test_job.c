/*
 * test_job.c - the option table: defaults, parsing, ranges, did-you-mean.
 */
#include "test_common.h"

#include "gpuplan/estimate.h"
#include "gpuplan/gpuplan.h"

static void test_defaults(void **state)
{
    (void)state;
    struct gpuplan_job job;
    gpuplan_job_init(&job);
    assert_int_equal(job.method, GPUPLAN_METHOD_FULL);
    assert_int_equal(job.precision, GPUPLAN_PRECISION_BF16_MIXED);
    assert_int_equal(job.optimizer, GPUPLAN_OPTIMIZER_ADAMW);
    assert_int_equal(job.attention, GPUPLAN_ATTN_SDPA);
    assert_int_equal(job.seq_len, 2048);
    assert_int_equal(job.lora_rank, 8);
    assert_int_equal(job.quant, GPUPLAN_DTYPE_NF4_DQ);
    assert_string_equal(job.lora_targets, "q_proj,v_proj");
    struct gpuplan_job r;
    job.method = GPUPLAN_METHOD_QLORA;
    job.gpus_per_node = 4;
    gpuplan_job_resolve(&job, &r);
    assert_int_equal(r.grad_ckpt, GPUPLAN_CKPT_FULL);
    assert_int_equal(r.sharding, GPUPLAN_SHARDING_DDP);
    /* every table entry has help and a default, and every choice round-trips */
    for (const struct gpuplan_option *o = gpuplan_job_options; o->name; o++) {
        assert_non_null(o->help);
        assert_true(o->default_value || o->default_doc);
        if (o->kind != GPUPLAN_OPTION_CHOICE)
            continue;
        for (size_t i = 0; o->choices[i]; i++) {
            struct gpuplan_error err;
            gpuplan_error_init(&err);
            assert_int_equal(gpuplan_job_set(&job, o->name, o->choices[i], &err), GPUPLAN_OK);
        }
    }
}

static void test_values(void **state)
{
    (void)state;
    static const struct {
        const char *name, *value;
        enum gpuplan_status want;
    } rows[] = {
        { "seq-len", "8k", GPUPLAN_OK },
        { "seq_len", "4096", GPUPLAN_OK },
        { "--micro-batch", "4", GPUPLAN_OK },
        { "seq-len", "0", GPUPLAN_ERR_USAGE },
        { "seq-len", "-1", GPUPLAN_ERR_USAGE },
        { "seq-len", "1e30", GPUPLAN_ERR_USAGE },
        { "method", "QLoRA", GPUPLAN_OK },
        { "method", "qlroa", GPUPLAN_ERR_USAGE },
        { "gpu", "h100-sxm:8", GPUPLAN_OK },
        { "gpu", "h100-sxm:0", GPUPLAN_ERR_USAGE },
        { "gpu", ":8", GPUPLAN_ERR_USAGE },
        { "weights", "gguf-Q4_K_M", GPUPLAN_OK },
        { "weights", "gguf-Q8_0", GPUPLAN_OK },
        { "weights", "gguf-XYZ", GPUPLAN_ERR_USAGE },
        { "weights", "awq", GPUPLAN_OK },
        { "lora-targets", "q_proj;v_proj", GPUPLAN_OK },
        { "lora-targets", "qproj", GPUPLAN_ERR_USAGE },
        { "lora-targets", "q_proj,,v_proj", GPUPLAN_ERR_USAGE },
        { "gpu-memory-utilization", "0.95", GPUPLAN_OK },
        { "gpu-memory-utilization", "1.5", GPUPLAN_ERR_USAGE },
        { "optim_in_bwd", "yes", GPUPLAN_OK },
        { "lora-alpha", "nan", GPUPLAN_ERR_USAGE },
        { "seq-lenn", "4096", GPUPLAN_ERR_USAGE },
        { "offload", "optimizer+params", GPUPLAN_OK },
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct gpuplan_job job;
        gpuplan_job_init(&job);
        struct gpuplan_error err;
        gpuplan_error_init(&err);
        assert_int_equal(gpuplan_job_set(&job, rows[i].name, rows[i].value, &err), rows[i].want);
        if (rows[i].want != GPUPLAN_OK)
            assert_true(err.message[0] != '\0');
    }
    struct gpuplan_job job;
    gpuplan_job_init(&job);
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    assert_int_equal(gpuplan_job_set(&job, "gpu", "h100-sxm:8", &err), GPUPLAN_OK);
    assert_string_equal(job.gpu_id, "h100-sxm");
    assert_int_equal(job.gpus_per_node, 8);
    assert_int_equal(gpuplan_job_set(&job, "seq-len", "8k", &err), GPUPLAN_OK);
    assert_int_equal(job.seq_len, 8000);
    assert_int_equal(gpuplan_job_set(&job, "weights", "gguf-Q4_K_M", &err), GPUPLAN_OK);
    assert_int_equal(job.weights_dtype, GPUPLAN_DTYPE_Q4_K);
    assert_int_equal(gpuplan_job_set(&job, "lora-targets", "all-linear", &err), GPUPLAN_OK);
    assert_true(job.lora_target_roles & (1ULL << GPUPLAN_ROLE_MLP_DOWN));
    assert_false(job.lora_target_roles & (1ULL << GPUPLAN_ROLE_LM_HEAD));
}

static void test_did_you_mean(void **state)
{
    (void)state;
    struct gpuplan_job job;
    gpuplan_job_init(&job);
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    assert_int_equal(gpuplan_job_set(&job, "seq-lenn", "1", &err), GPUPLAN_ERR_USAGE);
    assert_string_equal(err.message, "unknown option '--seq-lenn'");
    assert_string_equal(err.hint, "did you mean '--seq-len'?");
    gpuplan_error_init(&err);
    assert_int_equal(gpuplan_job_set(&job, "optimizer", "adamw8bit", &err), GPUPLAN_ERR_USAGE);
    assert_string_equal(err.hint, "did you mean 'adamw-8bit'?");
    gpuplan_error_init(&err);
    assert_int_equal(gpuplan_job_set(&job, "lora-targets", "q_prj", &err), GPUPLAN_ERR_USAGE);
    assert_non_null(strstr(err.hint, "'q_proj'"));
    gpuplan_error_init(&err);
    assert_int_equal(gpuplan_job_set(&job, "seq-len", "abc", &err), GPUPLAN_ERR_USAGE);
    assert_non_null(strstr(err.message, "'--seq-len' is 'abc'"));
}

/* A stack named as an implementation only: resolving changes none of the profile's knobs,
 * for every stack (so the profile table and gpuplan_job_set_stack_only cannot drift apart). */
static void test_stack_only(void **state)
{
    (void)state;
    for (int fw = 0; fw < GPUPLAN_FRAMEWORK_COUNT; fw++) {
        struct gpuplan_job job, r;
        gpuplan_job_init(&job);
        gpuplan_job_set_stack_only(&job, (enum gpuplan_framework)fw);
        gpuplan_job_resolve(&job, &r);
        assert_int_equal(r.stack, fw);
        assert_int_equal(r.precision, job.precision);
        assert_int_equal(r.grad_ckpt, job.grad_ckpt);
        assert_int_equal(r.attention, job.attention);
        assert_int_equal(r.chunked_ce, job.chunked_ce);
        assert_int_equal(r.compile, job.compile);
        assert_int_equal(r.act_offload, job.act_offload);
        assert_int_equal(r.moe_experts, job.moe_experts);
    }
    /* while naming the stack as a whole applies its defaults (TRL: the chunked loss) */
    struct gpuplan_job job, r;
    gpuplan_job_init(&job);
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    assert_int_equal(gpuplan_job_set(&job, "stack", "trl", &err), GPUPLAN_OK);
    gpuplan_job_resolve(&job, &r);
    assert_true(r.chunked_ce);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_values),
        cmocka_unit_test(test_did_you_mean),
        cmocka_unit_test(test_stack_only),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
