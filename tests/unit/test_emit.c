/*
 * test_emit.c - launch configurations checked against each engine's
 * documented keys (tables below, from docs/research/formats-and-engines.md
 * section 3): every key emitted must be a documented one, values must be
 * concrete (never "auto") and consistent with the plan (batch identity,
 * process counts, ZeRO stage, offload only where the engine allows it).
 */
#include "test_common.h"

#include <jansson.h>

#include "gpuplan/plan.h"
#include "gpuplan/render.h"

/* 3.1 DeepSpeed config-json.md: top-level, zero_optimization, offload_* and precision keys. */
static const char *const ds_top_keys[] = { "train_batch_size",
                                           "train_micro_batch_size_per_gpu",
                                           "gradient_accumulation_steps",
                                           "gradient_clipping",
                                           "bf16",
                                           "fp16",
                                           "optimizer",
                                           "zero_optimization",
                                           NULL };
static const char *const ds_zero_keys[] = { "stage",
                                            "allgather_partitions",
                                            "allgather_bucket_size",
                                            "overlap_comm",
                                            "reduce_scatter",
                                            "reduce_bucket_size",
                                            "contiguous_gradients",
                                            "round_robin_gradients",
                                            "stage3_max_live_parameters",
                                            "stage3_max_reuse_distance",
                                            "stage3_prefetch_bucket_size",
                                            "stage3_param_persistence_threshold",
                                            "stage3_gather_16bit_weights_on_model_save",
                                            "sub_group_size",
                                            "zero_hpz_partition_size",
                                            "zero_quantized_weights",
                                            "zero_quantized_gradients",
                                            "offload_optimizer",
                                            "offload_param",
                                            NULL };
static const char *const ds_offload_keys[] = { "device",      "nvme_path",    "pin_memory",
                                               "ratio",       "buffer_count", "fast_init",
                                               "buffer_size", "max_in_cpu",   NULL };
static const char *const ds_precision_keys[] = { "enabled",
                                                 "loss_scale",
                                                 "initial_scale_power",
                                                 "bf16_master_weights_and_grads",
                                                 "bf16_optimizer_states",
                                                 NULL };
static const char *const ds_optimizer_keys[] = { "type", "params", NULL };

/* 3.2 accelerate templates (fsdp.yaml, FSDP2 mapping, deepspeed.yaml, multi_node.yaml). */
static const char *const acc_top_keys[] = { "compute_environment", "distributed_type",
                                            "mixed_precision",     "num_machines",
                                            "num_processes",       "machine_rank",
                                            "main_process_ip",     "main_process_port",
                                            "rdzv_backend",        "same_network",
                                            "fsdp_config",         "deepspeed_config",
                                            "dynamo_config",       NULL };
static const char *const acc_fsdp_keys[] = {
    "fsdp_version",           "fsdp_reshard_after_forward",    "fsdp_sharding_strategy",
    "fsdp_backward_prefetch", "fsdp_sync_module_states",       "fsdp_use_orig_params",
    "fsdp_forward_prefetch",  "fsdp_auto_wrap_policy",         "fsdp_transformer_layer_cls_to_wrap",
    "fsdp_min_num_params",    "fsdp_state_dict_type",          "fsdp_cpu_ram_efficient_loading",
    "fsdp_offload_params",    "fsdp_activation_checkpointing", NULL
};
/* Removed in FSDP2 (section 3.2 mapping). */
static const char *const acc_fsdp1_only_keys[] = {
    "fsdp_sharding_strategy", "fsdp_backward_prefetch", "fsdp_sync_module_states",
    "fsdp_use_orig_params",   "fsdp_forward_prefetch",  NULL
};
static const char *const acc_ds_keys[] = { "zero_stage",
                                           "offload_optimizer_device",
                                           "offload_param_device",
                                           "gradient_accumulation_steps",
                                           "gradient_clipping",
                                           "zero3_init_flag",
                                           "zero3_save_16bit_model",
                                           "deepspeed_config_file",
                                           NULL };
static const char *const acc_distributed_types[] = { "FSDP", "DEEPSPEED", "MULTI_GPU", "'NO'",
                                                     NULL };
static const char *const acc_mixed_precisions[] = { "bf16", "fp16", "fp8", "'no'", NULL };
static const char *const acc_devices[] = { "none", "cpu", "nvme", NULL };
static const char *const acc_strategies[] = { "FULL_SHARD",   "SHARD_GRAD_OP",      "NO_SHARD",
                                              "HYBRID_SHARD", "HYBRID_SHARD_ZERO2", NULL };

/* 3.3 torchrun flags; 3.5 the sbatch directives of the sketch. */
static const char *const torchrun_flags[] = { "--standalone",    "--nnodes",  "--nproc-per-node",
                                              "--max-restarts",  "--rdzv-id", "--rdzv-backend",
                                              "--rdzv-endpoint", NULL };
static const char *const sbatch_flags[] = {
    "--job-name", "--nodes", "--ntasks-per-node", "--gpus-per-node", "--cpus-per-task", "--time",
    "--mem",      NULL
};

static bool in_list(const char *const *list, const char *s, size_t n)
{
    for (; *list; list++) {
        if (strlen(*list) == n && strncmp(*list, s, n) == 0)
            return true;
    }
    return false;
}

static struct gpuplan_gpu test_gpu;

static struct gpuplan_plan make_plan(uint32_t gpn,
                                     uint32_t nodes,
                                     enum gpuplan_sharding sharding,
                                     enum gpuplan_offload offload,
                                     uint64_t micro_batch,
                                     uint64_t grad_accum,
                                     enum gpuplan_precision precision)
{
    struct gpuplan_plan p;
    memset(&p, 0, sizeof p);
    snprintf(test_gpu.id, sizeof test_gpu.id, "h100-sxm");
    p.gpu = &test_gpu;
    snprintf(p.model_id, sizeof p.model_id, "llama-3.1-8b");
    snprintf(p.model_family, sizeof p.model_family, "llama");
    gpuplan_job_init(&p.job);
    p.job.sharding = sharding;
    p.job.sharding_set = true;
    p.job.offload = offload;
    p.job.micro_batch = micro_batch;
    p.job.grad_accum = grad_accum;
    p.job.precision = precision;
    p.job.grad_ckpt = GPUPLAN_CKPT_FULL;
    p.job.gpus_per_node = gpn;
    p.job.nodes = nodes;
    p.job.tp = 1;
    p.job.pp = 1;
    p.gpus_per_node = gpn;
    p.nodes = nodes;
    p.server.cpu_cores = 128;
    p.has_time = true;
    p.time_hours = 10.0;
    return p;
}

struct layout_row {
    uint32_t gpn, nodes;
    enum gpuplan_sharding sharding;
    enum gpuplan_offload offload;
    uint64_t micro_batch, grad_accum;
    enum gpuplan_precision precision;
    int stage; /* expected ZeRO stage */
};

static const struct layout_row rows[] = {
    { 1, 1, GPUPLAN_SHARDING_NONE, GPUPLAN_OFFLOAD_NONE, 4, 8, GPUPLAN_PRECISION_BF16_MIXED, 0 },
    { 8, 1, GPUPLAN_SHARDING_DDP, GPUPLAN_OFFLOAD_NONE, 2, 4, GPUPLAN_PRECISION_BF16_MIXED, 0 },
    { 8, 1, GPUPLAN_SHARDING_ZERO2, GPUPLAN_OFFLOAD_OPTIMIZER, 4, 2, GPUPLAN_PRECISION_BF16_MIXED,
      2 },
    { 8, 2, GPUPLAN_SHARDING_ZERO3, GPUPLAN_OFFLOAD_OPTIMIZER_PARAMS, 1, 16,
      GPUPLAN_PRECISION_FP16_MIXED, 3 },
    { 8, 4, GPUPLAN_SHARDING_FSDP, GPUPLAN_OFFLOAD_NONE, 2, 1, GPUPLAN_PRECISION_FP8_MIXED, 3 },
    { 8, 2, GPUPLAN_SHARDING_FSDP_HYBRID, GPUPLAN_OFFLOAD_NONE, 1, 8, GPUPLAN_PRECISION_BF16_MIXED,
      3 },
    { 4, 1, GPUPLAN_SHARDING_ZERO3, GPUPLAN_OFFLOAD_NVME, 1, 32, GPUPLAN_PRECISION_BF16_MIXED, 3 },
    { 1, 1, GPUPLAN_SHARDING_ZERO2, GPUPLAN_OFFLOAD_OPTIMIZER, 8, 1, GPUPLAN_PRECISION_FP32, 2 },
};
#define N_ROWS (sizeof rows / sizeof rows[0])

static struct gpuplan_plan row_plan(const struct layout_row *r)
{
    return make_plan(r->gpn, r->nodes, r->sharding, r->offload, r->micro_batch, r->grad_accum,
                     r->precision);
}

static void
emit_ok(const struct gpuplan_plan *p, enum gpuplan_engine engine, struct gpuplan_buf *buf)
{
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    gpuplan_buf_init(buf, GPUPLAN_BUF_DEFAULT_MAX_BYTES);
    const enum gpuplan_status st = gpuplan_emit(p, engine, buf, &err);
    if (st != GPUPLAN_OK)
        fprintf(stderr, "emit %s: %s\n", gpuplan_engine_name(engine), err.message);
    assert_int_equal(st, GPUPLAN_OK);
    /* "auto" as a value (keys such as fsdp_auto_wrap_policy are fine) */
    assert_null(strstr(gpuplan_buf_str(buf), "\"auto\""));
    assert_null(strstr(gpuplan_buf_str(buf), ": auto"));
}

static void check_keys(json_t *obj, const char *const *allowed)
{
    const char *key;
    json_t *value;
    json_object_foreach(obj, key, value)
    {
        if (!in_list(allowed, key, strlen(key)))
            fail_msg("undocumented DeepSpeed key '%s'", key);
        (void)value;
    }
}

static void test_deepspeed_keys_and_values(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_ROWS; i++) {
        const struct layout_row *r = &rows[i];
        struct gpuplan_plan p = row_plan(r);
        struct gpuplan_buf buf;
        emit_ok(&p, GPUPLAN_ENGINE_DEEPSPEED, &buf);
        json_error_t jerr;
        json_t *root = json_loads(gpuplan_buf_str(&buf), 0, &jerr);
        assert_non_null(root);
        check_keys(root, ds_top_keys);
        json_t *zero = json_object_get(root, "zero_optimization");
        assert_non_null(zero);
        check_keys(zero, ds_zero_keys);
        assert_int_equal(json_integer_value(json_object_get(zero, "stage")), r->stage);
        /* train_batch_size = micro-batch x accumulation x GPUs (tp = pp = 1) */
        assert_int_equal(json_integer_value(json_object_get(root, "train_batch_size")),
                         r->micro_batch * r->grad_accum * r->gpn * r->nodes);
        assert_int_equal(
            json_integer_value(json_object_get(root, "train_micro_batch_size_per_gpu")),
            r->micro_batch);
        assert_int_equal(json_integer_value(json_object_get(root, "gradient_accumulation_steps")),
                         r->grad_accum);
        json_t *opt_off = json_object_get(zero, "offload_optimizer");
        json_t *param_off = json_object_get(zero, "offload_param");
        assert_int_equal(opt_off != NULL, r->offload != GPUPLAN_OFFLOAD_NONE);
        if (opt_off) {
            check_keys(opt_off, ds_offload_keys);
            /* with offload DeepSpeed owns the optimizer (CPU Adam) */
            assert_non_null(json_object_get(root, "optimizer"));
            check_keys(json_object_get(root, "optimizer"), ds_optimizer_keys);
        }
        if (param_off) {
            check_keys(param_off, ds_offload_keys);
            assert_int_equal(r->stage, 3); /* offload_param is valid only with stage 3 */
        }
        if (r->offload == GPUPLAN_OFFLOAD_NVME)
            assert_string_equal(json_string_value(json_object_get(opt_off, "device")), "nvme");
        json_t *bf16 = json_object_get(root, "bf16"), *fp16 = json_object_get(root, "fp16");
        if (bf16)
            check_keys(bf16, ds_precision_keys);
        if (fp16)
            check_keys(fp16, ds_precision_keys);
        assert_false(bf16 && fp16); /* bf16 is incompatible with fp16 */
        assert_int_equal(fp16 != NULL, r->precision == GPUPLAN_PRECISION_FP16_MIXED);
        assert_int_equal(bf16 == NULL && fp16 == NULL, r->precision == GPUPLAN_PRECISION_FP32);
        json_decref(root);
        gpuplan_buf_release(&buf);
    }
}

/* Split "  key: value" into indent, key, value. */
static bool yaml_line(const char *line, size_t len, int *indent, char *key, char *value)
{
    size_t i = 0;
    while (i < len && line[i] == ' ')
        i++;
    *indent = (int)i;
    const char *colon = memchr(line + i, ':', len - i);
    if (!colon)
        return false;
    const size_t klen = (size_t)(colon - line) - i;
    memcpy(key, line + i, klen);
    key[klen] = '\0';
    size_t v = (size_t)(colon - line) + 1;
    while (v < len && line[v] == ' ')
        v++;
    memcpy(value, line + v, len - v);
    value[len - v] = '\0';
    return true;
}

static void test_accelerate_keys_and_values(void **state)
{
    (void)state;
    for (size_t i = 0; i < 2 * N_ROWS; i++) {
        const struct layout_row *r = &rows[i % N_ROWS];
        struct gpuplan_plan p = row_plan(r);
        p.job.compile = i >= N_ROWS; /* every layout once more with --compile yes */
        p.job.compile_loss = p.job.compile;
        struct gpuplan_buf buf;
        emit_ok(&p, GPUPLAN_ENGINE_ACCELERATE, &buf);
        const char *text = gpuplan_buf_str(&buf);
        const char *section = "";
        bool fsdp2 = false, seen_fsdp1_key = false;
        long num_processes = -1, num_machines = -1;
        char type[64] = "";
        for (const char *line = text; *line;) {
            const char *nl = strchr(line, '\n');
            const size_t len = nl ? (size_t)(nl - line) : strlen(line);
            int indent;
            char key[128], value[256];
            assert_true(len < sizeof value);
            const char *first = line;
            while (first < line + len && *first == ' ')
                first++;
            if (first < line + len && *first == '#') { /* a YAML comment line */
                line = nl ? nl + 1 : line + len;
                continue;
            }
            assert_true(yaml_line(line, len, &indent, key, value));
            if (indent == 0) {
                if (!in_list(acc_top_keys, key, strlen(key)))
                    fail_msg("undocumented accelerate key '%s'", key);
                section = strcmp(key, "fsdp_config") == 0        ? "fsdp"
                          : strcmp(key, "deepspeed_config") == 0 ? "ds"
                          : strcmp(key, "dynamo_config") == 0    ? "dynamo"
                                                                 : "";
                if (strcmp(key, "distributed_type") == 0) {
                    assert_true(in_list(acc_distributed_types, value, strlen(value)));
                    snprintf(type, sizeof type, "%s", value);
                }
                if (strcmp(key, "mixed_precision") == 0)
                    assert_true(in_list(acc_mixed_precisions, value, strlen(value)));
                if (strcmp(key, "num_processes") == 0)
                    num_processes = strtol(value, NULL, 10);
                if (strcmp(key, "num_machines") == 0)
                    num_machines = strtol(value, NULL, 10);
            } else if (strcmp(section, "fsdp") == 0) {
                if (!in_list(acc_fsdp_keys, key, strlen(key)))
                    fail_msg("undocumented fsdp_config key '%s'", key);
                if (strcmp(key, "fsdp_version") == 0 && strcmp(value, "2") == 0)
                    fsdp2 = true;
                if (in_list(acc_fsdp1_only_keys, key, strlen(key)))
                    seen_fsdp1_key = true;
                if (strcmp(key, "fsdp_sharding_strategy") == 0)
                    assert_true(in_list(acc_strategies, value, strlen(value)));
            } else if (strcmp(section, "dynamo") == 0) {
                /* accelerate's config: dynamo_config.dynamo_backend (DynamoBackend names) */
                assert_string_equal(key, "dynamo_backend");
                assert_string_equal(value, "INDUCTOR");
            } else if (strcmp(section, "ds") == 0) {
                if (!in_list(acc_ds_keys, key, strlen(key)))
                    fail_msg("undocumented deepspeed_config key '%s'", key);
                if (strstr(key, "_device"))
                    assert_true(in_list(acc_devices, value, strlen(value)));
                if (strcmp(key, "zero_stage") == 0)
                    assert_int_equal(strtol(value, NULL, 10), r->stage);
            } else {
                fail_msg("indented key '%s' outside a section", key);
            }
            line = nl ? nl + 1 : line + len;
        }
        assert_false(fsdp2 && seen_fsdp1_key);                      /* FSDP2 removed those keys */
        assert_int_equal(num_processes, (long)(r->gpn * r->nodes)); /* total over machines */
        assert_int_equal(num_machines, (long)r->nodes);
        if (r->nodes > 1)
            assert_non_null(strstr(text, "main_process_port: 29500"));
        if (r->sharding == GPUPLAN_SHARDING_FSDP || r->sharding == GPUPLAN_SHARDING_FSDP_HYBRID)
            assert_string_equal(type, "FSDP");
        assert_int_equal(strstr(text, "dynamo_backend: INDUCTOR") != NULL, p.job.compile);
        gpuplan_buf_release(&buf);
    }
}

/* Every "--flag" in `text` before the script name must be in `allowed`. */
static void
check_flags(const char *text, const char *start, const char *stop, const char *const *allowed)
{
    const char *p = strstr(text, start);
    assert_non_null(p);
    const char *end = strstr(p, stop);
    assert_non_null(end);
    for (p = strstr(p, "--"); p && p < end; p = strstr(p + 2, "--")) {
        size_t n = strcspn(p, "= \\\n");
        if (!in_list(allowed, p, n))
            fail_msg("undocumented flag '%.*s'", (int)n, p);
    }
}

/*
 * A plan made with --fsdp-wrap layers+embeddings: accelerate's
 * TRANSFORMER_BASED_WRAP cannot wrap the embedding and head apart, so the
 * config says so in YAML comments (whole lines starting with '#').
 */
static void test_accelerate_fsdp_wrap_note(void **state)
{
    (void)state;
    struct gpuplan_plan p = row_plan(&rows[4]);
    assert_int_equal(p.job.sharding, GPUPLAN_SHARDING_FSDP);
    struct gpuplan_buf buf;
    emit_ok(&p, GPUPLAN_ENGINE_ACCELERATE, &buf);
    assert_null(strstr(gpuplan_buf_str(&buf), "--fsdp-wrap"));
    gpuplan_buf_release(&buf);
    p.job.fsdp_embed_units = true;
    emit_ok(&p, GPUPLAN_ENGINE_ACCELERATE, &buf);
    const char *text = gpuplan_buf_str(&buf);
    assert_non_null(strstr(text, "  # planned with --fsdp-wrap layers+embeddings"));
    int comments = 0;
    for (const char *line = text; *line;) {
        const char *nl = strchr(line, '\n');
        const size_t len = nl ? (size_t)(nl - line) : strlen(line);
        const char *hash = memchr(line, '#', len);
        if (hash) {
            for (const char *c = line; c < hash; c++)
                assert_int_equal(*c, ' ');
            comments++;
        }
        line = nl ? nl + 1 : line + len;
    }
    assert_int_equal(comments, 4);
    gpuplan_buf_release(&buf);
}

static void test_torchrun(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_ROWS; i++) {
        const struct layout_row *r = &rows[i];
        struct gpuplan_plan p = row_plan(r);
        struct gpuplan_buf buf;
        emit_ok(&p, GPUPLAN_ENGINE_TORCHRUN, &buf);
        const char *text = gpuplan_buf_str(&buf);
        check_flags(text, "torchrun", "train.py", torchrun_flags);
        char want[64];
        snprintf(want, sizeof want, "--nproc-per-node=%u", r->gpn);
        assert_non_null(strstr(text, want));
        if (r->nodes == 1) {
            assert_non_null(strstr(text, "--standalone"));
        } else {
            snprintf(want, sizeof want, "--nnodes=%u", r->nodes);
            assert_non_null(strstr(text, want));
            assert_non_null(strstr(text, "--rdzv-backend=c10d"));
        }
        /* ZeRO layouts hand the DeepSpeed config to the script */
        const bool ds =
            r->sharding >= GPUPLAN_SHARDING_ZERO1 && r->sharding <= GPUPLAN_SHARDING_ZERO3;
        assert_int_equal(strstr(text, "--deepspeed ds_config.json") != NULL, ds);
        gpuplan_buf_release(&buf);
    }
}

static void test_slurm(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_ROWS; i++) {
        const struct layout_row *r = &rows[i];
        struct gpuplan_plan p = row_plan(r);
        struct gpuplan_buf buf;
        emit_ok(&p, GPUPLAN_ENGINE_SLURM, &buf);
        const char *text = gpuplan_buf_str(&buf);
        assert_int_equal(strncmp(text, "#!/bin/bash\n", 12), 0);
        for (const char *d = strstr(text, "#SBATCH "); d; d = strstr(d + 1, "#SBATCH ")) {
            const char *flag = d + 8;
            const size_t n = strcspn(flag, "= \n");
            if (!in_list(sbatch_flags, flag, n))
                fail_msg("undocumented sbatch directive '%.*s'", (int)n, flag);
        }
        char want[64];
        snprintf(want, sizeof want, "#SBATCH --nodes=%u\n", r->nodes);
        assert_non_null(strstr(text, want));
        snprintf(want, sizeof want, "#SBATCH --gpus-per-node=%u\n", r->gpn);
        assert_non_null(strstr(text, want));
        /* 10 h estimate -> 10 * 1.2 + 0.5 = 12.5 h */
        assert_non_null(strstr(text, "#SBATCH --time=12:30:00"));
        check_flags(text, "srun torchrun", "train.py", torchrun_flags);
        gpuplan_buf_release(&buf);
    }
}

static void test_refusals(void **state)
{
    (void)state;
    struct gpuplan_error err;
    struct gpuplan_buf buf;
    gpuplan_buf_init(&buf, GPUPLAN_BUF_DEFAULT_MAX_BYTES);
    struct gpuplan_plan serving =
        make_plan(2, 1, GPUPLAN_SHARDING_NONE, GPUPLAN_OFFLOAD_NONE, 1, 1, GPUPLAN_PRECISION_BF16);
    serving.job.method = GPUPLAN_METHOD_INFER;
    for (int e = 0; e < GPUPLAN_ENGINE_COUNT; e++) {
        gpuplan_error_init(&err);
        assert_int_equal(gpuplan_emit(&serving, (enum gpuplan_engine)e, &buf, &err),
                         GPUPLAN_ERR_UNSUPPORTED);
        assert_non_null(strstr(err.hint, "--tensor-parallel-size 2"));
    }
    /* parameter offload below ZeRO-3 cannot be expressed (offload_param: stage 3 only) */
    struct gpuplan_plan bad = make_plan(8, 1, GPUPLAN_SHARDING_ZERO2, GPUPLAN_OFFLOAD_PARAMS, 1, 1,
                                        GPUPLAN_PRECISION_BF16_MIXED);
    gpuplan_error_init(&err);
    assert_int_equal(gpuplan_emit(&bad, GPUPLAN_ENGINE_DEEPSPEED, &buf, &err),
                     GPUPLAN_ERR_UNSUPPORTED);
    assert_non_null(strstr(err.message, "zero2"));
    assert_int_equal(buf.len, 0);
    enum gpuplan_engine engine;
    gpuplan_error_init(&err);
    assert_int_equal(gpuplan_engine_parse("megatron", &engine, &err), GPUPLAN_ERR_USAGE);
    assert_non_null(strstr(err.message, "'megatron'"));
    assert_int_equal(gpuplan_engine_parse("slurm", &engine, &err), GPUPLAN_OK);
    assert_int_equal(engine, GPUPLAN_ENGINE_SLURM);
    gpuplan_buf_release(&buf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_deepspeed_keys_and_values),
        cmocka_unit_test(test_accelerate_keys_and_values),
        cmocka_unit_test(test_accelerate_fsdp_wrap_note),
        cmocka_unit_test(test_torchrun),
        cmocka_unit_test(test_slurm),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
