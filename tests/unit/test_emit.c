/*
 * test_emit.c - launch files: which engine runs which plan (the refusals
 * and the nearest plan an engine would run), what each engine is told for
 * each precision recipe (DeepSpeed's 16-bit master flags, accelerate's
 * FSDP mixed_precision, FP8 recipes), the sharding reaching the script
 * (torchrun), the serving flags (vLLM, SGLang), and a plan back from its
 * JSON (gpuplan_plan_read_json). The files against the engines' key lists
 * and their round trip through the readers are tests/suites/emit_engines.sh
 * and roundtrip.sh.
 */
#include "test_common.h"

#include <jansson.h>

#include "gpuplan/catalog.h"
#include "gpuplan/plan.h"
#include "gpuplan/render.h"
#include "gpuplan/request.h"

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

static struct gpuplan_plan plan_of(const char *gpu,
                                   uint32_t gpn,
                                   uint32_t nodes,
                                   enum gpuplan_method method,
                                   enum gpuplan_precision precision,
                                   enum gpuplan_sharding sharding,
                                   enum gpuplan_offload offload,
                                   enum gpuplan_grad_ckpt ckpt)
{
    struct gpuplan_plan p;
    memset(&p, 0, sizeof p);
    p.gpu = gpuplan_catalog_find_gpu(catalog, gpu);
    snprintf(p.model_id, sizeof p.model_id, "llama-3.1-8b");
    snprintf(p.model_family, sizeof p.model_family, "llama");
    snprintf(p.hub_id, sizeof p.hub_id, "meta-llama/Llama-3.1-8B");
    gpuplan_job_init(&p.job);
    p.job.method = method;
    p.job.precision = precision;
    p.job.sharding = sharding;
    p.job.sharding_set = true;
    p.job.offload = offload;
    p.job.grad_ckpt = ckpt;
    p.job.grad_ckpt_set = true;
    p.job.micro_batch = 2;
    p.job.grad_accum = 4;
    p.job.gpus_per_node = gpn;
    p.job.nodes = nodes;
    p.job.tp = 1;
    p.job.pp = 1;
    p.gpus_per_node = gpn;
    p.nodes = nodes;
    p.server.cpu_cores = 64;
    p.server.ram_bytes = 512ULL << 30;
    return p;
}

static struct gpuplan_plan train(enum gpuplan_precision pr, enum gpuplan_sharding s)
{
    return plan_of("h100-sxm", 8, 1, GPUPLAN_METHOD_FULL, pr, s, GPUPLAN_OFFLOAD_NONE,
                   GPUPLAN_CKPT_FULL);
}

/* Emit, expecting success, into `buf` (caller releases). */
static const char *
emit_ok(const struct gpuplan_plan *p, enum gpuplan_engine e, struct gpuplan_buf *buf)
{
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    gpuplan_buf_init(buf, GPUPLAN_BUF_DEFAULT_MAX_BYTES);
    const enum gpuplan_status st = gpuplan_emit(p, e, buf, &err);
    if (st != GPUPLAN_OK)
        fail_msg("emit %s: %s", gpuplan_engine_name(e), err.message);
    const char *text = gpuplan_buf_str(buf);
    assert_null(strstr(text, "\"auto\""));
    assert_null(strstr(text, ": auto\n"));
    return text;
}

static void test_engine_names(void **state)
{
    (void)state;
    struct gpuplan_error err;
    for (int e = 0; e < GPUPLAN_ENGINE_COUNT; e++) {
        enum gpuplan_engine got;
        gpuplan_error_init(&err);
        assert_int_equal(gpuplan_engine_parse(gpuplan_engine_names[e], &got, &err), GPUPLAN_OK);
        assert_int_equal(got, e);
    }
    enum gpuplan_engine got;
    gpuplan_error_init(&err);
    assert_int_equal(gpuplan_engine_parse("deepspeedd", &got, &err), GPUPLAN_ERR_USAGE);
    assert_non_null(strstr(err.hint, "'deepspeed'"));
}

/* Which engine runs which plan as planned (docs/emit.md). */
struct accept_row {
    enum gpuplan_engine engine;
    enum gpuplan_method method;
    enum gpuplan_precision precision;
    enum gpuplan_sharding sharding;
    enum gpuplan_grad_ckpt ckpt;
    bool ok;
};

static const struct accept_row accept_rows[] = {
    /* DeepSpeed: ZeRO only, no FP8 recipe */
    { GPUPLAN_ENGINE_DEEPSPEED, GPUPLAN_METHOD_FULL, GPUPLAN_PRECISION_BF16, GPUPLAN_SHARDING_ZERO3,
      GPUPLAN_CKPT_SELECTIVE, true },
    { GPUPLAN_ENGINE_DEEPSPEED, GPUPLAN_METHOD_FULL, GPUPLAN_PRECISION_BF16, GPUPLAN_SHARDING_FSDP,
      GPUPLAN_CKPT_FULL, false },
    { GPUPLAN_ENGINE_DEEPSPEED, GPUPLAN_METHOD_FULL, GPUPLAN_PRECISION_FP8_MIXED,
      GPUPLAN_SHARDING_ZERO2, GPUPLAN_CKPT_FULL, false },
    { GPUPLAN_ENGINE_DEEPSPEED, GPUPLAN_METHOD_FULL, GPUPLAN_PRECISION_BF16_MIXED,
      GPUPLAN_SHARDING_DDP, GPUPLAN_CKPT_FULL, false },
    /* HF Trainer kinds: whole-layer recompute only */
    { GPUPLAN_ENGINE_TRL, GPUPLAN_METHOD_LORA, GPUPLAN_PRECISION_BF16_MIXED, GPUPLAN_SHARDING_DDP,
      GPUPLAN_CKPT_SELECTIVE, false },
    { GPUPLAN_ENGINE_TRL, GPUPLAN_METHOD_LORA, GPUPLAN_PRECISION_BF16_MIXED, GPUPLAN_SHARDING_DDP,
      GPUPLAN_CKPT_FULL, true },
    { GPUPLAN_ENGINE_TRL, GPUPLAN_METHOD_FULL, GPUPLAN_PRECISION_FP8_MIXED, GPUPLAN_SHARDING_FSDP,
      GPUPLAN_CKPT_FULL, false },
    { GPUPLAN_ENGINE_ACCELERATE, GPUPLAN_METHOD_FULL, GPUPLAN_PRECISION_FP8_MIXED,
      GPUPLAN_SHARDING_FSDP, GPUPLAN_CKPT_FULL, true },
    { GPUPLAN_ENGINE_ACCELERATE, GPUPLAN_METHOD_FULL, GPUPLAN_PRECISION_AMP_BF16,
      GPUPLAN_SHARDING_FSDP, GPUPLAN_CKPT_FULL, false },
    { GPUPLAN_ENGINE_TORCHRUN, GPUPLAN_METHOD_FULL, GPUPLAN_PRECISION_BF16, GPUPLAN_SHARDING_FSDP,
      GPUPLAN_CKPT_NONE, true },
    /* axolotl loads in the compute dtype: no fp32 masters without ZeRO/FSDP */
    { GPUPLAN_ENGINE_AXOLOTL, GPUPLAN_METHOD_FULL, GPUPLAN_PRECISION_BF16_MIXED,
      GPUPLAN_SHARDING_DDP, GPUPLAN_CKPT_FULL, false },
    { GPUPLAN_ENGINE_AXOLOTL, GPUPLAN_METHOD_FULL, GPUPLAN_PRECISION_BF16, GPUPLAN_SHARDING_DDP,
      GPUPLAN_CKPT_FULL, true },
    /* torchtune: pure bf16 or fp32, FSDP2 */
    { GPUPLAN_ENGINE_TORCHTUNE, GPUPLAN_METHOD_FULL, GPUPLAN_PRECISION_BF16_MIXED,
      GPUPLAN_SHARDING_FSDP, GPUPLAN_CKPT_FULL, false },
    { GPUPLAN_ENGINE_TORCHTUNE, GPUPLAN_METHOD_FULL, GPUPLAN_PRECISION_BF16, GPUPLAN_SHARDING_FSDP,
      GPUPLAN_CKPT_SELECTIVE, true },
    { GPUPLAN_ENGINE_TORCHTUNE, GPUPLAN_METHOD_FULL, GPUPLAN_PRECISION_BF16, GPUPLAN_SHARDING_DDP,
      GPUPLAN_CKPT_FULL, false },
    /* serving kinds refuse training plans */
    { GPUPLAN_ENGINE_VLLM, GPUPLAN_METHOD_FULL, GPUPLAN_PRECISION_BF16, GPUPLAN_SHARDING_FSDP,
      GPUPLAN_CKPT_FULL, false },
    { GPUPLAN_ENGINE_K8S, GPUPLAN_METHOD_FULL, GPUPLAN_PRECISION_BF16, GPUPLAN_SHARDING_FSDP,
      GPUPLAN_CKPT_FULL, true },
};

static void test_acceptance(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof accept_rows / sizeof accept_rows[0]; i++) {
        const struct accept_row *r = &accept_rows[i];
        struct gpuplan_plan p = plan_of("h100-sxm", 8, 1, r->method, r->precision, r->sharding,
                                        GPUPLAN_OFFLOAD_NONE, r->ckpt);
        struct gpuplan_error err;
        gpuplan_error_init(&err);
        const enum gpuplan_status st = gpuplan_emit_check(&p, r->engine, &err);
        if ((st == GPUPLAN_OK) != r->ok)
            fail_msg("row %zu (%s): %s", i, gpuplan_engine_name(r->engine),
                     st == GPUPLAN_OK ? "accepted" : err.message);
        if (st != GPUPLAN_OK) {
            assert_int_equal(st, GPUPLAN_ERR_UNSUPPORTED);
            assert_non_null(strstr(err.message, "cannot run this plan as planned"));
        }
    }
}

static void test_nearest(void **state)
{
    (void)state;
    struct gpuplan_job j;
    struct gpuplan_plan p = train(GPUPLAN_PRECISION_FP8_MIXED, GPUPLAN_SHARDING_FSDP);
    assert_true(gpuplan_emit_nearest(&p, GPUPLAN_ENGINE_DEEPSPEED, &j));
    assert_int_equal(j.sharding, GPUPLAN_SHARDING_ZERO3);
    assert_int_equal(j.precision, GPUPLAN_PRECISION_BF16_MIXED);
    p = train(GPUPLAN_PRECISION_BF16_MIXED, GPUPLAN_SHARDING_FSDP);
    assert_true(gpuplan_emit_nearest(&p, GPUPLAN_ENGINE_TORCHTUNE, &j));
    assert_int_equal(j.precision, GPUPLAN_PRECISION_BF16);
    p.job.grad_ckpt = GPUPLAN_CKPT_SELECTIVE;
    assert_true(gpuplan_emit_nearest(&p, GPUPLAN_ENGINE_TRL, &j));
    assert_int_equal(j.grad_ckpt, GPUPLAN_CKPT_FULL);
    /* already runnable: no move */
    p.job.grad_ckpt = GPUPLAN_CKPT_FULL;
    assert_false(gpuplan_emit_nearest(&p, GPUPLAN_ENGINE_TRL, &j));
}

static json_t *parse(const char *text)
{
    json_error_t e;
    json_t *root = json_loads(text, 0, &e);
    if (!root)
        fail_msg("not JSON: %s", e.text);
    return root;
}

/* DeepSpeed keeps an fp32 master and fp32 moments under bf16 unless both 16-bit flags are on. */
static void test_deepspeed_precision(void **state)
{
    (void)state;
    struct gpuplan_buf buf;
    struct gpuplan_plan p = train(GPUPLAN_PRECISION_BF16, GPUPLAN_SHARDING_ZERO3);
    json_t *root = parse(emit_ok(&p, GPUPLAN_ENGINE_DEEPSPEED, &buf));
    json_t *bf16 = json_object_get(root, "bf16");
    assert_true(json_is_true(json_object_get(bf16, "enabled")));
    assert_true(json_is_true(json_object_get(bf16, "bf16_master_weights_and_grads")));
    assert_true(json_is_true(json_object_get(bf16, "bf16_optimizer_states")));
    assert_int_equal(json_integer_value(json_object_get(root, "train_batch_size")), 2 * 4 * 8);
    assert_int_equal(
        json_integer_value(json_object_get(json_object_get(root, "zero_optimization"), "stage")),
        3);
    json_decref(root);
    gpuplan_buf_release(&buf);

    p = train(GPUPLAN_PRECISION_BF16_MIXED, GPUPLAN_SHARDING_ZERO2);
    p.job.offload = GPUPLAN_OFFLOAD_OPTIMIZER;
    root = parse(emit_ok(&p, GPUPLAN_ENGINE_DEEPSPEED, &buf));
    bf16 = json_object_get(root, "bf16");
    assert_null(json_object_get(bf16, "bf16_master_weights_and_grads"));
    json_t *zero = json_object_get(root, "zero_optimization");
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(zero, "offload_optimizer"), "device")),
        "cpu");
    assert_null(json_object_get(zero, "offload_param"));
    assert_null(json_object_get(zero, "zero_hpz_partition_size"));
    assert_non_null(json_object_get(root, "optimizer")); /* DeepSpeedCPUAdam is DeepSpeed's */
    json_decref(root);
    gpuplan_buf_release(&buf);

    p = train(GPUPLAN_PRECISION_FP16_MIXED, GPUPLAN_SHARDING_ZERO1);
    root = parse(emit_ok(&p, GPUPLAN_ENGINE_DEEPSPEED, &buf));
    assert_true(json_is_true(json_object_get(json_object_get(root, "fp16"), "enabled")));
    assert_null(json_object_get(root, "bf16"));
    json_decref(root);
    gpuplan_buf_release(&buf);
}

/* accelerate: FSDP upcasts trainable shards whenever mixed_precision is not 'no'. */
static void test_accelerate_precision(void **state)
{
    (void)state;
    struct gpuplan_buf buf;
    struct gpuplan_plan p = train(GPUPLAN_PRECISION_BF16_MIXED, GPUPLAN_SHARDING_FSDP);
    const char *t = emit_ok(&p, GPUPLAN_ENGINE_ACCELERATE, &buf);
    assert_non_null(strstr(t, "mixed_precision: bf16\n"));
    assert_non_null(strstr(t, "fsdp_version: 2\n"));
    assert_non_null(strstr(t, "fsdp_transformer_layer_cls_to_wrap: LlamaDecoderLayer\n"));
    gpuplan_buf_release(&buf);
    p = train(GPUPLAN_PRECISION_BF16, GPUPLAN_SHARDING_FSDP);
    t = emit_ok(&p, GPUPLAN_ENGINE_ACCELERATE, &buf);
    assert_non_null(strstr(t, "mixed_precision: 'no'\n"));
    assert_non_null(strstr(t, "loads the model in bfloat16"));
    gpuplan_buf_release(&buf);
    p = train(GPUPLAN_PRECISION_FP8_MIXED, GPUPLAN_SHARDING_FSDP);
    t = emit_ok(&p, GPUPLAN_ENGINE_ACCELERATE, &buf);
    assert_non_null(strstr(t, "mixed_precision: fp8\nnum_machines"));
    assert_non_null(strstr(t, "fp8_config:\n  backend: TE\n"));
    gpuplan_buf_release(&buf);
    p = plan_of("h100-sxm", 8, 2, GPUPLAN_METHOD_FULL, GPUPLAN_PRECISION_BF16_MIXED,
                GPUPLAN_SHARDING_FSDP_HYBRID, GPUPLAN_OFFLOAD_NONE, GPUPLAN_CKPT_FULL);
    t = emit_ok(&p, GPUPLAN_ENGINE_ACCELERATE, &buf);
    assert_non_null(strstr(t, "fsdp_sharding_strategy: HYBRID_SHARD\n"));
    assert_non_null(strstr(t, "num_processes: 16\n"));
    gpuplan_buf_release(&buf);
    p = train(GPUPLAN_PRECISION_BF16, GPUPLAN_SHARDING_ZERO3);
    t = emit_ok(&p, GPUPLAN_ENGINE_ACCELERATE, &buf);
    assert_non_null(strstr(t, "deepspeed_config_file: ds_config.json"));
    gpuplan_buf_release(&buf);
}

/* The launchers pass the plan's sharding to the script. */
static void test_torchrun_sharding(void **state)
{
    (void)state;
    struct gpuplan_buf buf;
    struct gpuplan_plan p = train(GPUPLAN_PRECISION_BF16_MIXED, GPUPLAN_SHARDING_FSDP);
    const char *t = emit_ok(&p, GPUPLAN_ENGINE_TORCHRUN, &buf);
    assert_non_null(strstr(t, "--fsdp 'full_shard auto_wrap'"));
    assert_non_null(strstr(t, "\"transformer_layer_cls_to_wrap\": [\"LlamaDecoderLayer\"]"));
    assert_non_null(strstr(t, "--standalone --nproc-per-node=8"));
    gpuplan_buf_release(&buf);
    p = plan_of("h100-sxm", 8, 2, GPUPLAN_METHOD_FULL, GPUPLAN_PRECISION_BF16_MIXED,
                GPUPLAN_SHARDING_ZERO3, GPUPLAN_OFFLOAD_NONE, GPUPLAN_CKPT_FULL);
    t = emit_ok(&p, GPUPLAN_ENGINE_SLURM, &buf);
    assert_non_null(strstr(t, "--deepspeed ds_config.json"));
    assert_non_null(strstr(t, "#SBATCH --nodes=2\n"));
    assert_non_null(strstr(t, "--gradient_checkpointing"));
    gpuplan_buf_release(&buf);
}

/* A serving plan as the serving search fills it (plan.h struct gpuplan_plan_serving). */
static struct gpuplan_plan serving(enum gpuplan_serving_engine engine, bool quantized_checkpoint)
{
    struct gpuplan_plan p = plan_of("h100-sxm", 4, 1, GPUPLAN_METHOD_INFER, GPUPLAN_PRECISION_BF16,
                                    GPUPLAN_SHARDING_NONE, GPUPLAN_OFFLOAD_NONE, GPUPLAN_CKPT_NONE);
    p.job.engine = engine;
    p.is_serving = true;
    struct gpuplan_plan_serving *sv = &p.serving;
    sv->engine = engine;
    snprintf(sv->engine_version, sizeof sv->engine_version, "0.27.0");
    snprintf(sv->model_ref, sizeof sv->model_ref, "meta-llama/Llama-3.1-8B");
    sv->tp = 4;
    sv->pp = 1;
    sv->ep = 1;
    sv->gpus_per_replica = 4;
    sv->replicas = 2;
    sv->commands.needs_quantized_checkpoint = quantized_checkpoint;
    snprintf(sv->commands.launch, sizeof sv->commands.launch, "%s",
             engine == GPUPLAN_SERVING_VLLM
                 ? "vllm serve meta-llama/Llama-3.1-8B --tensor-parallel-size 4 --max-model-len "
                   "8192 --max-num-seqs 32 --gpu-memory-utilization 0.90 --kv-cache-dtype fp8"
                 : "python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B --tp 4");
    return p;
}

static void test_serving(void **state)
{
    (void)state;
    struct gpuplan_buf buf;
    struct gpuplan_plan p = serving(GPUPLAN_SERVING_VLLM, false);
    const char *t = emit_ok(&p, GPUPLAN_ENGINE_VLLM, &buf);
    assert_non_null(strstr(t, "vllm serve meta-llama/Llama-3.1-8B \\\n  --tensor-parallel-size 4"));
    assert_non_null(strstr(t, "--max-model-len 8192"));
    assert_non_null(strstr(t, "--kv-cache-dtype fp8\n"));
    assert_non_null(strstr(t, "2 replicas"));
    gpuplan_buf_release(&buf);
    t = emit_ok(&p, GPUPLAN_ENGINE_K8S, &buf);
    assert_non_null(strstr(t, "kind: Deployment\n"));
    assert_non_null(strstr(t, "  replicas: 2\n"));
    assert_non_null(strstr(t, "nvidia.com/gpu: 4\n"));
    assert_non_null(strstr(t, "            - \"--tensor-parallel-size\"\n"));
    assert_non_null(strstr(t, "kind: Service\n"));
    gpuplan_buf_release(&buf);
    struct gpuplan_error err;
    /* the other engine's accounting: refused, and the nearest plan is that engine's */
    gpuplan_error_init(&err);
    assert_int_equal(gpuplan_emit_check(&p, GPUPLAN_ENGINE_SGLANG, &err), GPUPLAN_ERR_UNSUPPORTED);
    struct gpuplan_job j;
    assert_true(gpuplan_emit_nearest(&p, GPUPLAN_ENGINE_SGLANG, &j));
    assert_int_equal(j.engine, GPUPLAN_SERVING_SGLANG);
    p = serving(GPUPLAN_SERVING_SGLANG, false);
    t = emit_ok(&p, GPUPLAN_ENGINE_SGLANG, &buf);
    assert_non_null(strstr(t, "--model-path meta-llama/Llama-3.1-8B"));
    gpuplan_buf_release(&buf);
    /* refused: a quantised checkpoint the plan does not name; no model; a training kind */
    p = serving(GPUPLAN_SERVING_VLLM, true);
    gpuplan_error_init(&err);
    assert_int_equal(gpuplan_emit_check(&p, GPUPLAN_ENGINE_VLLM, &err), GPUPLAN_ERR_UNSUPPORTED);
    p = serving(GPUPLAN_SERVING_VLLM, false);
    p.serving.model_ref[0] = '\0';
    gpuplan_error_init(&err);
    assert_int_equal(gpuplan_emit_check(&p, GPUPLAN_ENGINE_VLLM, &err), GPUPLAN_ERR_UNSUPPORTED);
    p = serving(GPUPLAN_SERVING_VLLM, false);
    gpuplan_error_init(&err);
    assert_int_equal(gpuplan_emit_check(&p, GPUPLAN_ENGINE_DEEPSPEED, &err),
                     GPUPLAN_ERR_UNSUPPORTED);
    assert_non_null(strstr(err.hint, "vllm"));
}

/* A plan through its JSON and back. */
static void test_plan_json(void **state)
{
    (void)state;
    struct gpuplan_plan_result *r = calloc(1, sizeof *r);
    assert_non_null(r);
    r->top[0] = plan_of("h100-sxm", 8, 2, GPUPLAN_METHOD_QLORA, GPUPLAN_PRECISION_BF16_MIXED,
                        GPUPLAN_SHARDING_FSDP_HYBRID, GPUPLAN_OFFLOAD_NONE, GPUPLAN_CKPT_FULL);
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    assert_int_equal(gpuplan_job_set(&r->top[0].job, "lora-targets", "all-linear", &err),
                     GPUPLAN_OK);
    r->top[0].memory_per_gpu_bytes = 40ULL << 30;
    r->n_top = 1;
    struct gpuplan_buf buf;
    gpuplan_buf_init(&buf, GPUPLAN_BUF_DEFAULT_MAX_BYTES);
    assert_int_equal(gpuplan_render_plan(r, GPUPLAN_FORMAT_JSON, &buf, &err), GPUPLAN_OK);
    struct gpuplan_plan back;
    assert_int_equal(gpuplan_plan_read_json((const uint8_t *)gpuplan_buf_str(&buf), buf.len,
                                            "plan.json", 1, catalog, &back, &err),
                     GPUPLAN_OK);
    assert_string_equal(back.gpu->id, "h100-sxm");
    assert_int_equal(back.nodes, 2);
    assert_int_equal(back.job.method, GPUPLAN_METHOD_QLORA);
    assert_int_equal(back.job.sharding, GPUPLAN_SHARDING_FSDP_HYBRID);
    assert_string_equal(back.job.lora_targets, "all-linear");
    assert_int_equal(back.job.lora_target_roles, r->top[0].job.lora_target_roles);
    assert_string_equal(back.hub_id, "meta-llama/Llama-3.1-8B");
    assert_int_equal(back.memory_per_gpu_bytes, 40ULL << 30);
    /* errors: past the list, a bad option value (with its path), not JSON */
    gpuplan_error_init(&err);
    assert_int_equal(gpuplan_plan_read_json((const uint8_t *)gpuplan_buf_str(&buf), buf.len,
                                            "plan.json", 2, catalog, &back, &err),
                     GPUPLAN_ERR_INVALID_INPUT);
    static const char bad_value[] =
        "{\"recommendations\":[{\"gpu\":\"h100-sxm\",\"gpus_per_node\":8,\"nodes\":1,"
        "\"job\":{\"sharding\":\"zero9\"}}]}";
    gpuplan_error_init(&err);
    assert_int_equal(gpuplan_plan_read_json((const uint8_t *)bad_value, sizeof bad_value - 1, "p",
                                            1, catalog, &back, &err),
                     GPUPLAN_ERR_USAGE);
    assert_string_equal(err.where, "p:$.recommendations[0].job.sharding");
    gpuplan_error_init(&err);
    assert_int_equal(gpuplan_plan_read_json((const uint8_t *)"{", 1, "p", 1, catalog, &back, &err),
                     GPUPLAN_ERR_INVALID_INPUT);
    gpuplan_buf_release(&buf);
    free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_engine_names),
        cmocka_unit_test(test_acceptance),
        cmocka_unit_test(test_nearest),
        cmocka_unit_test(test_deepspeed_precision),
        cmocka_unit_test(test_accelerate_precision),
        cmocka_unit_test(test_torchrun_sharding),
        cmocka_unit_test(test_serving),
        cmocka_unit_test(test_plan_json),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
