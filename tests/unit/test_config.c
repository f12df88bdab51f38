/*
 * test_config.c - framework config files -> job: every fixture of
 * tests/fixtures/configs/ (README.md there says where each came from) with
 * the job fields it must produce, merges (TRL + adapter_config.json,
 * LLaMA-Factory + its DeepSpeed JSON, accelerate + DeepSpeed), detection,
 * unknown-key reporting with positions, defaults with their sources, and
 * what the job cannot express.
 *
 * Expected values are read off the fixture files and the framework sources
 * docs/configs.md cites, never from this code.
 */
#include "test_common.h"

#include "gpuplan/config.h"
#include "gpuplan/dtype.h"
#include "gpuplan/job.h"

/* Read fixture `rel` (under tests/fixtures/configs/) into cfg; assert success. */
static void read_ok(struct gpuplan_config *cfg, const char *rel, enum gpuplan_config_kind kind)
{
    char path[512];
    snprintf(path, sizeof path, "tests/fixtures/configs/%s", rel);
    size_t len = 0;
    uint8_t *bytes = read_file(path, &len);
    assert_non_null(bytes);
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    const enum gpuplan_status st = gpuplan_config_read(cfg, bytes, len, rel, kind, &err);
    if (st != GPUPLAN_OK)
        print_error("%s: %s at %s\n", rel, err.message, err.where);
    assert_int_equal(st, GPUPLAN_OK);
    free(bytes);
}

static enum gpuplan_status read_text(struct gpuplan_config *cfg,
                                     const char *text,
                                     const char *name,
                                     enum gpuplan_config_kind kind,
                                     struct gpuplan_error *err)
{
    gpuplan_error_init(err);
    return gpuplan_config_read(cfg, (const uint8_t *)text, strlen(text), name, kind, err);
}

static const struct gpuplan_config_note *
find_note(const struct gpuplan_config *cfg, enum gpuplan_config_note_kind kind, const char *key)
{
    for (size_t i = 0; i < cfg->n_notes; i++) {
        if (cfg->notes[i].kind == kind && strcmp(cfg->notes[i].key, key) == 0)
            return &cfg->notes[i];
    }
    return NULL;
}

/* One fixture and what the job must say. NULL / 0 = not checked. */
struct fixture_row {
    const char *file;
    enum gpuplan_config_kind kind; /* expected detection */
    enum gpuplan_config_stack stack;
    const char *model_id;
    enum gpuplan_method method;
    enum gpuplan_precision precision;
    enum gpuplan_sharding sharding;
    enum gpuplan_offload offload;
    enum gpuplan_grad_ckpt grad_ckpt;
    enum gpuplan_attention attention;
    enum gpuplan_optimizer optimizer;
    uint64_t seq_len, micro_batch, grad_accum;
    uint32_t lora_rank;
    double lora_alpha, lora_dropout;
    const char *lora_targets;
    enum gpuplan_dtype quant; /* checked for qlora */
    bool chunked_ce, compile;
    double epochs;
    const char *unknown_key; /* one key that must be reported UNKNOWN, or NULL */
    const char *referenced_path;
};

static const struct fixture_row fixture_rows[] = {
    /* axolotl: bf16 auto, QLoRA on one GPU, adamw_bnb_8bit, flash attention */
    { "axolotl-qlora-1b.yml",
      GPUPLAN_CONFIG_AXOLOTL,
      GPUPLAN_STACK_AXOLOTL,
      "NousResearch/Llama-3.2-1B",
      GPUPLAN_METHOD_QLORA,
      GPUPLAN_PRECISION_BF16_MIXED,
      GPUPLAN_SHARDING_NONE,
      GPUPLAN_OFFLOAD_NONE,
      GPUPLAN_CKPT_FULL,
      GPUPLAN_ATTN_FLASH,
      GPUPLAN_OPTIMIZER_ADAMW_8BIT,
      2048,
      2,
      4,
      32,
      16,
      0.05,
      "gate_proj,down_proj,up_proj,q_proj,v_proj,k_proj,o_proj",
      GPUPLAN_DTYPE_NF4_DQ,
      false,
      false,
      1,
      NULL,
      NULL },
    /* axolotl: full fine-tuning under FSDP with CPU offload and Liger's fused CE */
    { "axolotl-fft-8b-liger-fsdp.yaml",
      GPUPLAN_CONFIG_AXOLOTL,
      GPUPLAN_STACK_AXOLOTL,
      "NousResearch/Meta-Llama-3.1-8B",
      GPUPLAN_METHOD_FULL,
      GPUPLAN_PRECISION_BF16_MIXED,
      GPUPLAN_SHARDING_FSDP,
      GPUPLAN_OFFLOAD_PARAMS,
      GPUPLAN_CKPT_FULL,
      GPUPLAN_ATTN_SDPA,
      GPUPLAN_OPTIMIZER_ADAMW,
      4096,
      2,
      4,
      0,
      0,
      0,
      NULL,
      GPUPLAN_DTYPE_UNKNOWN,
      true,
      false,
      1,
      "attention",
      NULL },
    /* axolotl: QLoRA 70B, lora_target_linear, FSDP + offload */
    { "axolotl-qlora-fsdp-70b.yaml",
      GPUPLAN_CONFIG_AXOLOTL,
      GPUPLAN_STACK_AXOLOTL,
      "casperhansen/llama-3-70b-fp16",
      GPUPLAN_METHOD_QLORA,
      GPUPLAN_PRECISION_BF16_MIXED,
      GPUPLAN_SHARDING_FSDP,
      GPUPLAN_OFFLOAD_PARAMS,
      GPUPLAN_CKPT_FULL,
      GPUPLAN_ATTN_FLASH,
      GPUPLAN_OPTIMIZER_ADAMW,
      512,
      1,
      4,
      8,
      16,
      0.05,
      "all-linear",
      GPUPLAN_DTYPE_NF4_DQ,
      false,
      false,
      4,
      "debug",
      NULL },
    /* LLaMA-Factory: LoRA on all linears, checkpointing on by default, alpha = 2 x rank */
    { "llama-factory-qwen3-lora-sft.yaml",
      GPUPLAN_CONFIG_LLAMA_FACTORY,
      GPUPLAN_STACK_LLAMA_FACTORY,
      "Qwen/Qwen3-4B-Instruct-2507",
      GPUPLAN_METHOD_LORA,
      GPUPLAN_PRECISION_BF16_MIXED,
      GPUPLAN_SHARDING_NONE,
      GPUPLAN_OFFLOAD_NONE,
      GPUPLAN_CKPT_FULL,
      GPUPLAN_ATTN_SDPA,
      GPUPLAN_OPTIMIZER_ADAMW,
      2048,
      1,
      8,
      8,
      16,
      0,
      "all-linear",
      GPUPLAN_DTYPE_UNKNOWN,
      false,
      false,
      3,
      NULL,
      NULL },
    /* LLaMA-Factory: full fine-tuning naming a DeepSpeed JSON, Liger, 128k context */
    { "llama-factory-qwen3-full-sft.yaml",
      GPUPLAN_CONFIG_LLAMA_FACTORY,
      GPUPLAN_STACK_LLAMA_FACTORY,
      "Qwen/Qwen3-8B",
      GPUPLAN_METHOD_FULL,
      GPUPLAN_PRECISION_BF16_MIXED,
      GPUPLAN_SHARDING_NONE,
      GPUPLAN_OFFLOAD_NONE,
      GPUPLAN_CKPT_FULL,
      GPUPLAN_ATTN_SDPA,
      GPUPLAN_OPTIMIZER_ADAMW,
      131072,
      1,
      2,
      0,
      0,
      0,
      NULL,
      GPUPLAN_DTYPE_UNKNOWN,
      true,
      false,
      5,
      "attn",
      "examples/deepspeed/ds_z3_partial_offload_config.json" },
    /* LLaMA-Factory: QLoRA 4-bit bitsandbytes (double quantisation by default) */
    { "llama-factory-qwen3-lora-sft-otfq.yaml",
      GPUPLAN_CONFIG_LLAMA_FACTORY,
      GPUPLAN_STACK_LLAMA_FACTORY,
      "Qwen/Qwen3-4B-Instruct-2507",
      GPUPLAN_METHOD_QLORA,
      GPUPLAN_PRECISION_BF16_MIXED,
      GPUPLAN_SHARDING_NONE,
      GPUPLAN_OFFLOAD_NONE,
      GPUPLAN_CKPT_FULL,
      GPUPLAN_ATTN_SDPA,
      GPUPLAN_OPTIMIZER_ADAMW,
      2048,
      1,
      8,
      8,
      16,
      0,
      "all-linear",
      GPUPLAN_DTYPE_NF4_DQ,
      false,
      false,
      3,
      NULL,
      NULL },
    /* torchtune: QLoRA single device, pure bf16, torchao NF4, chunked CE */
    { "torchtune-llama3_1-8B_qlora_single_device.yaml",
      GPUPLAN_CONFIG_TORCHTUNE,
      GPUPLAN_STACK_TORCHTUNE,
      "/tmp/Meta-Llama-3.1-8B-Instruct/",
      GPUPLAN_METHOD_QLORA,
      GPUPLAN_PRECISION_BF16,
      GPUPLAN_SHARDING_NONE,
      GPUPLAN_OFFLOAD_NONE,
      GPUPLAN_CKPT_FULL,
      GPUPLAN_ATTN_SDPA,
      GPUPLAN_OPTIMIZER_ADAMW,
      2048,
      2,
      16,
      8,
      16,
      0,
      "q_proj,v_proj,k_proj,o_proj,gate_proj,up_proj,down_proj",
      GPUPLAN_DTYPE_NF4_TORCHAO,
      true,
      false,
      1,
      NULL,
      NULL },
    /* torchtune: full fine-tuning (distributed recipe), pure bf16, plain CE */
    { "torchtune-llama3_1-8B_full.yaml",
      GPUPLAN_CONFIG_TORCHTUNE,
      GPUPLAN_STACK_TORCHTUNE,
      "/tmp/Meta-Llama-3.1-8B-Instruct/",
      GPUPLAN_METHOD_FULL,
      GPUPLAN_PRECISION_BF16,
      GPUPLAN_SHARDING_NONE,
      GPUPLAN_OFFLOAD_NONE,
      GPUPLAN_CKPT_FULL,
      GPUPLAN_ATTN_SDPA,
      GPUPLAN_OPTIMIZER_ADAMW,
      2048,
      2,
      1,
      0,
      0,
      0,
      NULL,
      GPUPLAN_DTYPE_UNKNOWN,
      false,
      false,
      3,
      "optimizer.foreach",
      NULL },
    /* DeepSpeed (LLaMA-Factory's): ZeRO-3, every size "auto" */
    { "ds-llama-factory-z3.json",
      GPUPLAN_CONFIG_DEEPSPEED,
      GPUPLAN_STACK_DEEPSPEED,
      "",
      GPUPLAN_METHOD_FULL,
      GPUPLAN_PRECISION_FP32,
      GPUPLAN_SHARDING_ZERO3,
      GPUPLAN_OFFLOAD_NONE,
      GPUPLAN_CKPT_NONE,
      GPUPLAN_ATTN_SDPA,
      GPUPLAN_OPTIMIZER_ADAMW,
      2048,
      1,
      1,
      0,
      0,
      0,
      NULL,
      GPUPLAN_DTYPE_UNKNOWN,
      false,
      false,
      1,
      "monitor_config",
      NULL },
    /* DeepSpeed: ZeRO-2 with the optimizer on the CPU */
    { "ds-llama-factory-z2-offload.json",
      GPUPLAN_CONFIG_DEEPSPEED,
      GPUPLAN_STACK_DEEPSPEED,
      "",
      GPUPLAN_METHOD_FULL,
      GPUPLAN_PRECISION_FP32,
      GPUPLAN_SHARDING_ZERO2,
      GPUPLAN_OFFLOAD_OPTIMIZER,
      GPUPLAN_CKPT_NONE,
      GPUPLAN_ATTN_SDPA,
      GPUPLAN_OPTIMIZER_ADAMW,
      2048,
      1,
      1,
      0,
      0,
      0,
      NULL,
      GPUPLAN_DTYPE_UNKNOWN,
      false,
      false,
      1,
      "comms_config",
      NULL },
    /* DeepSpeed (axolotl's): ZeRO-3, bf16, optimizer and parameters on the CPU */
    { "ds-axolotl-zero3-bf16-cpuoffload-all.json",
      GPUPLAN_CONFIG_DEEPSPEED,
      GPUPLAN_STACK_DEEPSPEED,
      "",
      GPUPLAN_METHOD_FULL,
      GPUPLAN_PRECISION_BF16_MIXED,
      GPUPLAN_SHARDING_ZERO3,
      GPUPLAN_OFFLOAD_OPTIMIZER_PARAMS,
      GPUPLAN_CKPT_NONE,
      GPUPLAN_ATTN_SDPA,
      GPUPLAN_OPTIMIZER_ADAMW,
      2048,
      1,
      1,
      0,
      0,
      0,
      NULL,
      GPUPLAN_DTYPE_UNKNOWN,
      false,
      false,
      1,
      NULL,
      NULL },
    /* accelerate: FSDP1 FULL_SHARD, bf16 (MixedPrecision over fp32 shards) */
    { "accelerate-fsdp.yaml",
      GPUPLAN_CONFIG_ACCELERATE,
      GPUPLAN_STACK_ACCELERATE,
      "",
      GPUPLAN_METHOD_FULL,
      GPUPLAN_PRECISION_BF16_MIXED,
      GPUPLAN_SHARDING_FSDP,
      GPUPLAN_OFFLOAD_NONE,
      GPUPLAN_CKPT_NONE,
      GPUPLAN_ATTN_SDPA,
      GPUPLAN_OPTIMIZER_ADAMW,
      2048,
      1,
      1,
      0,
      0,
      0,
      NULL,
      GPUPLAN_DTYPE_UNKNOWN,
      false,
      false,
      1,
      NULL,
      NULL },
    /* accelerate: DeepSpeed plugin naming its JSON */
    { "accelerate-deepspeed.yaml",
      GPUPLAN_CONFIG_ACCELERATE,
      GPUPLAN_STACK_ACCELERATE,
      "",
      GPUPLAN_METHOD_FULL,
      GPUPLAN_PRECISION_FP32,
      GPUPLAN_SHARDING_NONE,
      GPUPLAN_OFFLOAD_NONE,
      GPUPLAN_CKPT_NONE,
      GPUPLAN_ATTN_SDPA,
      GPUPLAN_OPTIMIZER_ADAMW,
      2048,
      1,
      1,
      0,
      0,
      0,
      NULL,
      GPUPLAN_DTYPE_UNKNOWN,
      false,
      false,
      1,
      NULL,
      "../deepspeed_config_templates/zero_stage1_config.json" },
    /* accelerate (TRL's): FSDP2, reshard after forward, 8 processes */
    { "accelerate-trl-fsdp2.yaml",
      GPUPLAN_CONFIG_ACCELERATE,
      GPUPLAN_STACK_ACCELERATE,
      "",
      GPUPLAN_METHOD_FULL,
      GPUPLAN_PRECISION_BF16_MIXED,
      GPUPLAN_SHARDING_FSDP,
      GPUPLAN_OFFLOAD_NONE,
      GPUPLAN_CKPT_NONE,
      GPUPLAN_ATTN_SDPA,
      GPUPLAN_OPTIMIZER_ADAMW,
      2048,
      1,
      1,
      0,
      0,
      0,
      NULL,
      GPUPLAN_DTYPE_UNKNOWN,
      false,
      false,
      1,
      NULL,
      NULL },
    /* TRL CLI YAML: nearly everything from SFTConfig's defaults */
    { "trl-example-config.yaml",
      GPUPLAN_CONFIG_TRL,
      GPUPLAN_STACK_TRL,
      "Qwen/Qwen2.5-0.5B",
      GPUPLAN_METHOD_FULL,
      GPUPLAN_PRECISION_BF16_MIXED,
      GPUPLAN_SHARDING_NONE,
      GPUPLAN_OFFLOAD_NONE,
      GPUPLAN_CKPT_FULL,
      GPUPLAN_ATTN_SDPA,
      GPUPLAN_OPTIMIZER_ADAMW,
      1024,
      8,
      1,
      0,
      0,
      0,
      NULL,
      GPUPLAN_DTYPE_UNKNOWN,
      true,
      false,
      1,
      NULL,
      NULL },
    /* TRL (alignment-handbook recipe): QLoRA, bf16 weights, flash attention */
    { "trl-alignment-handbook-zephyr-7b-sft-qlora.yaml",
      GPUPLAN_CONFIG_TRL,
      GPUPLAN_STACK_TRL,
      "mistralai/Mistral-7B-v0.1",
      GPUPLAN_METHOD_QLORA,
      GPUPLAN_PRECISION_BF16_MIXED,
      GPUPLAN_SHARDING_NONE,
      GPUPLAN_OFFLOAD_NONE,
      GPUPLAN_CKPT_FULL,
      GPUPLAN_ATTN_FLASH,
      GPUPLAN_OPTIMIZER_ADAMW,
      2048,
      4,
      2,
      16,
      16,
      0.05,
      "q_proj,k_proj,v_proj,o_proj,gate_proj,up_proj,down_proj",
      GPUPLAN_DTYPE_NF4,
      true,
      false,
      1,
      "dataset_mixture",
      NULL },
    /* TRL GRPOConfig dump (older TRL): fp16, paged 8-bit AdamW, many keys of other versions */
    { "trl-grpo-training_args.json",
      GPUPLAN_CONFIG_TRL,
      GPUPLAN_STACK_TRL,
      "",
      GPUPLAN_METHOD_FULL,
      GPUPLAN_PRECISION_FP16_MIXED,
      GPUPLAN_SHARDING_NONE,
      GPUPLAN_OFFLOAD_NONE,
      GPUPLAN_CKPT_NONE,
      GPUPLAN_ATTN_SDPA,
      GPUPLAN_OPTIMIZER_PAGED_ADAMW_8BIT,
      1024,
      6,
      2,
      0,
      0,
      0,
      NULL,
      GPUPLAN_DTYPE_UNKNOWN,
      false,
      false,
      3,
      "per_gpu_train_batch_size",
      NULL },
    /* PEFT adapter_config.json files */
    { "peft-llama-2-7b-adapter_config.json",
      GPUPLAN_CONFIG_PEFT,
      GPUPLAN_STACK_UNKNOWN,
      "genaitraining/llama-2-7b-domain-tuned",
      GPUPLAN_METHOD_LORA,
      GPUPLAN_PRECISION_FP32,
      GPUPLAN_SHARDING_NONE,
      GPUPLAN_OFFLOAD_NONE,
      GPUPLAN_CKPT_NONE,
      GPUPLAN_ATTN_SDPA,
      GPUPLAN_OPTIMIZER_ADAMW,
      2048,
      1,
      1,
      64,
      16,
      0.1,
      "q_proj,v_proj",
      GPUPLAN_DTYPE_UNKNOWN,
      false,
      false,
      1,
      NULL,
      NULL },
    { "peft-qwen2.5-7b-adapter_config.json",
      GPUPLAN_CONFIG_PEFT,
      GPUPLAN_STACK_UNKNOWN,
      "Qwen/Qwen2.5-7B-Instruct",
      GPUPLAN_METHOD_LORA,
      GPUPLAN_PRECISION_FP32,
      GPUPLAN_SHARDING_NONE,
      GPUPLAN_OFFLOAD_NONE,
      GPUPLAN_CKPT_NONE,
      GPUPLAN_ATTN_SDPA,
      GPUPLAN_OPTIMIZER_ADAMW,
      2048,
      1,
      1,
      16,
      32,
      0.05,
      "gate_proj,q_proj,o_proj,down_proj,v_proj,up_proj,k_proj",
      GPUPLAN_DTYPE_UNKNOWN,
      false,
      false,
      1,
      NULL,
      NULL },
};
#define N_FIXTURES (sizeof fixture_rows / sizeof fixture_rows[0])

static void check_row(const struct gpuplan_config *cfg, const struct fixture_row *r)
{
    const struct gpuplan_job *j = &cfg->job;
    assert_int_equal(cfg->kind, r->kind);
    assert_int_equal(cfg->stack, r->stack);
    assert_string_equal(cfg->model_id, r->model_id);
    assert_int_equal(j->method, r->method);
    assert_string_equal(gpuplan_precision_name(j->precision), gpuplan_precision_name(r->precision));
    assert_string_equal(gpuplan_sharding_name(j->sharding), gpuplan_sharding_name(r->sharding));
    assert_string_equal(gpuplan_offload_name(j->offload), gpuplan_offload_name(r->offload));
    assert_string_equal(gpuplan_grad_ckpt_name(j->grad_ckpt), gpuplan_grad_ckpt_name(r->grad_ckpt));
    assert_true(j->grad_ckpt_set || r->grad_ckpt == GPUPLAN_CKPT_NONE);
    assert_int_equal(j->attention, r->attention);
    assert_string_equal(gpuplan_optimizer_name(j->optimizer), gpuplan_optimizer_name(r->optimizer));
    assert_int_equal(j->seq_len, r->seq_len);
    assert_int_equal(j->micro_batch, r->micro_batch);
    assert_int_equal(j->grad_accum, r->grad_accum);
    assert_int_equal(j->chunked_ce, r->chunked_ce);
    assert_int_equal(j->compile, r->compile);
    assert_true(j->epochs == r->epochs);
    if (r->lora_rank) {
        assert_int_equal(j->lora_rank, r->lora_rank);
        assert_true(j->lora_alpha == r->lora_alpha);
        assert_true(j->lora_dropout == r->lora_dropout);
    }
    if (r->lora_targets)
        assert_string_equal(j->lora_targets, r->lora_targets);
    if (r->method == GPUPLAN_METHOD_QLORA)
        assert_int_equal(j->quant, r->quant);
    if (r->unknown_key)
        assert_non_null(find_note(cfg, GPUPLAN_CONFIG_NOTE_UNKNOWN, r->unknown_key));
    assert_string_equal(cfg->referenced_path, r->referenced_path ? r->referenced_path : "");
    /* Every MAPPED note of a file key has a position; every DEFAULT note a source. */
    for (size_t i = 0; i < cfg->n_notes; i++) {
        const struct gpuplan_config_note *n = &cfg->notes[i];
        if (n->kind == GPUPLAN_CONFIG_NOTE_DEFAULT)
            assert_non_null(strchr(n->detail, '@'));
        if (n->kind == GPUPLAN_CONFIG_NOTE_UNKNOWN)
            assert_non_null(strstr(n->where, r->file));
    }
    assert_int_equal(cfg->n_notes_dropped, 0);
}

static void test_fixture(void **state)
{
    const struct fixture_row *r = *state;
    struct gpuplan_config cfg;
    gpuplan_config_init(&cfg);
    read_ok(&cfg, r->file, GPUPLAN_CONFIG_AUTO);
    check_row(&cfg, r);
    gpuplan_config_release(&cfg);
    /* Naming the kind gives the same job. */
    gpuplan_config_init(&cfg);
    read_ok(&cfg, r->file, r->kind);
    check_row(&cfg, r);
    gpuplan_config_release(&cfg);
}

/* TRL YAML + adapter_config.json: the adapter's rank and targets, TRL's fp32 load under
 * autocast (amp-bf16: the frozen base stays fp32), TRL's checkpointing default. */
static void test_merge_trl_peft(void **state)
{
    (void)state;
    struct gpuplan_config cfg;
    gpuplan_config_init(&cfg);
    read_ok(&cfg, "trl-example-config.yaml", GPUPLAN_CONFIG_AUTO);
    read_ok(&cfg, "peft-llama-2-7b-adapter_config.json", GPUPLAN_CONFIG_AUTO);
    assert_int_equal(cfg.n_files, 2);
    assert_int_equal(cfg.kind, GPUPLAN_CONFIG_TRL);
    assert_int_equal(cfg.stack, GPUPLAN_STACK_TRL);
    assert_string_equal(cfg.model_id, "Qwen/Qwen2.5-0.5B"); /* the first file's */
    assert_int_equal(cfg.job.method, GPUPLAN_METHOD_LORA);
    assert_int_equal(cfg.job.lora_rank, 64);
    assert_string_equal(cfg.job.lora_targets, "q_proj,v_proj");
    assert_int_equal(cfg.job.precision, GPUPLAN_PRECISION_AMP_BF16);
    assert_int_equal(cfg.job.grad_ckpt, GPUPLAN_CKPT_FULL);
    /* TRL's own LoRA defaults (lora_r 16) do not apply when the adapter file is read. */
    assert_null(find_note(&cfg, GPUPLAN_CONFIG_NOTE_DEFAULT, "lora_r"));
    gpuplan_config_release(&cfg);
}

/* LLaMA-Factory YAML + the DeepSpeed JSON of its examples: ZeRO-3 with the bf16 engine. */
static void test_merge_llama_factory_deepspeed(void **state)
{
    (void)state;
    struct gpuplan_config cfg;
    gpuplan_config_init(&cfg);
    read_ok(&cfg, "llama-factory-qwen3-lora-sft.yaml", GPUPLAN_CONFIG_AUTO);
    read_ok(&cfg, "ds-llama-factory-z3.json", GPUPLAN_CONFIG_AUTO);
    assert_int_equal(cfg.stack, GPUPLAN_STACK_LLAMA_FACTORY);
    assert_int_equal(cfg.job.sharding, GPUPLAN_SHARDING_ZERO3);
    assert_int_equal(cfg.job.precision, GPUPLAN_PRECISION_BF16_MIXED);
    assert_int_equal(cfg.job.micro_batch, 1); /* "auto" in the JSON: the YAML's value stays */
    assert_int_equal(cfg.job.grad_accum, 8);
    assert_int_equal(cfg.job.method, GPUPLAN_METHOD_LORA);
    assert_non_null(find_note(&cfg, GPUPLAN_CONFIG_NOTE_IGNORED, "train_micro_batch_size_per_gpu"));
    gpuplan_config_release(&cfg);
}

/* accelerate's DeepSpeed plugin + a JSON with bf16 and offload; then an axolotl file on top
 * makes the trainer's defaults win (stack axolotl). */
static void test_merge_accelerate_deepspeed(void **state)
{
    (void)state;
    struct gpuplan_config cfg;
    gpuplan_config_init(&cfg);
    read_ok(&cfg, "accelerate-deepspeed.yaml", GPUPLAN_CONFIG_AUTO);
    read_ok(&cfg, "ds-axolotl-zero3-bf16-cpuoffload-all.json", GPUPLAN_CONFIG_AUTO);
    assert_int_equal(cfg.stack, GPUPLAN_STACK_ACCELERATE);
    assert_int_equal(cfg.job.sharding, GPUPLAN_SHARDING_ZERO3);
    assert_int_equal(cfg.job.offload, GPUPLAN_OFFLOAD_OPTIMIZER_PARAMS);
    assert_int_equal(cfg.job.precision, GPUPLAN_PRECISION_BF16_MIXED);
    assert_int_equal(cfg.layout.world_size, 2);
    gpuplan_config_release(&cfg);
}

/* LoRA under accelerate FSDP with TRL's fp32 load: base-fp32 (fp32 frozen shards). */
static void test_fsdp_lora_base_fp32(void **state)
{
    (void)state;
    struct gpuplan_config cfg;
    gpuplan_config_init(&cfg);
    read_ok(&cfg, "trl-example-config.yaml", GPUPLAN_CONFIG_AUTO);
    read_ok(&cfg, "accelerate-trl-fsdp2.yaml", GPUPLAN_CONFIG_AUTO);
    read_ok(&cfg, "peft-qwen2.5-7b-adapter_config.json", GPUPLAN_CONFIG_AUTO);
    assert_int_equal(cfg.job.sharding, GPUPLAN_SHARDING_FSDP);
    assert_int_equal(cfg.job.precision, GPUPLAN_PRECISION_BF16_MIXED);
    assert_true(cfg.job.base_fp32);
    assert_int_equal(cfg.layout.world_size, 8);
    assert_int_equal(cfg.layout.n_nodes, 1);
    assert_int_equal(cfg.layout.gpus_per_node, 8);
    gpuplan_config_release(&cfg);
}

/* Precision semantics per engine (docs/configs.md "Precision"). */
struct precision_row {
    const char *name;
    const char *text;
    enum gpuplan_config_kind kind;
    enum gpuplan_precision precision;
};

static const struct precision_row precision_rows[] = {
    /* DeepSpeed bf16 without bf16_master_weights_and_grads: fp32 master + fp32 Adam */
    { "ds-bf16-zero2", "{\"bf16\": {\"enabled\": true}, \"zero_optimization\": {\"stage\": 2}}",
      GPUPLAN_CONFIG_DEEPSPEED, GPUPLAN_PRECISION_BF16_MIXED },
    /* ... with both bf16 flags: everything 16-bit */
    { "ds-bf16-all16",
      "{\"bf16\": {\"enabled\": true, \"bf16_master_weights_and_grads\": true, "
      "\"bf16_optimizer_states\": true}, \"zero_optimization\": {\"stage\": 1}}",
      GPUPLAN_CONFIG_DEEPSPEED, GPUPLAN_PRECISION_BF16 },
    { "ds-fp16", "{\"fp16\": {\"enabled\": true}, \"zero_optimization\": {\"stage\": 3}}",
      GPUPLAN_CONFIG_DEEPSPEED, GPUPLAN_PRECISION_FP16_MIXED },
    /* accelerate FSDP mixed_precision bf16: fp32 shards, bf16 compute */
    { "acc-fsdp-bf16", "distributed_type: FSDP\nmixed_precision: bf16\n", GPUPLAN_CONFIG_ACCELERATE,
      GPUPLAN_PRECISION_BF16_MIXED },
    { "acc-fp8", "distributed_type: MULTI_GPU\nmixed_precision: fp8\n", GPUPLAN_CONFIG_ACCELERATE,
      GPUPLAN_PRECISION_FP8_MIXED },
    /* torchtune dtype: what everything is stored in */
    { "tt-bf16", "dtype: bf16\nbatch_size: 1\n", GPUPLAN_CONFIG_TORCHTUNE, GPUPLAN_PRECISION_BF16 },
    { "tt-fp32", "dtype: fp32\nbatch_size: 1\n", GPUPLAN_CONFIG_TORCHTUNE, GPUPLAN_PRECISION_FP32 },
    { "tt-none", "batch_size: 1\n", GPUPLAN_CONFIG_TORCHTUNE, GPUPLAN_PRECISION_FP32 },
    /* HF/TRL bf16: torch autocast over fp32 parameters */
    { "hf-bf16", "{\"bf16\": true, \"per_device_train_batch_size\": 2}", GPUPLAN_CONFIG_TRL,
      GPUPLAN_PRECISION_BF16_MIXED },
    { "hf-bf16-lora", "bf16: true\nuse_peft: true\nmax_length: 512\n", GPUPLAN_CONFIG_TRL,
      GPUPLAN_PRECISION_AMP_BF16 },
    { "trl-bf16-weights", "dtype: bfloat16\nmax_length: 512\n", GPUPLAN_CONFIG_TRL,
      GPUPLAN_PRECISION_BF16 },
    { "hf-none", "{\"per_device_train_batch_size\": 2}", GPUPLAN_CONFIG_TRL,
      GPUPLAN_PRECISION_FP32 },
    /* LLaMA-Factory: full fine-tuning upcasts trainable params; pure_bf16 does not */
    { "lf-full-bf16", "finetuning_type: full\nbf16: true\n", GPUPLAN_CONFIG_LLAMA_FACTORY,
      GPUPLAN_PRECISION_BF16_MIXED },
    { "lf-pure-bf16", "finetuning_type: full\npure_bf16: true\n", GPUPLAN_CONFIG_LLAMA_FACTORY,
      GPUPLAN_PRECISION_BF16 },
    /* axolotl loads the model in bf16: full fine-tuning on one GPU is pure bf16 */
    { "ax-full-bf16", "base_model: x\nbf16: true\nmicro_batch_size: 1\n", GPUPLAN_CONFIG_AXOLOTL,
      GPUPLAN_PRECISION_BF16 },
    { "ax-full-bf16-ds",
      "base_model: x\nbf16: true\ndeepspeed:\n  zero_optimization:\n    stage: 3\n",
      GPUPLAN_CONFIG_AXOLOTL, GPUPLAN_PRECISION_BF16_MIXED },
};
#define N_PRECISION (sizeof precision_rows / sizeof precision_rows[0])

static void test_precision(void **state)
{
    const struct precision_row *r = *state;
    struct gpuplan_config cfg;
    struct gpuplan_error err;
    gpuplan_config_init(&cfg);
    const enum gpuplan_status st = read_text(&cfg, r->text, r->name, r->kind, &err);
    if (st != GPUPLAN_OK)
        print_error("%s: %s at %s\n", r->name, err.message, err.where);
    assert_int_equal(st, GPUPLAN_OK);
    assert_string_equal(gpuplan_precision_name(cfg.job.precision),
                        gpuplan_precision_name(r->precision));
    gpuplan_config_release(&cfg);
}

/* Unknown keys carry line:column (YAML) or a JSON path; documented ones are IGNORED. */
static void test_unknown_positions(void **state)
{
    (void)state;
    struct gpuplan_config cfg;
    struct gpuplan_error err;
    gpuplan_config_init(&cfg);
    const char *yaml =
        "base_model: m\nsequence_len: 1024\nmicro_batchsize: 4\nlearning_rate: 1e-5\n";
    assert_int_equal(read_text(&cfg, yaml, "a.yml", GPUPLAN_CONFIG_AXOLOTL, &err), GPUPLAN_OK);
    const struct gpuplan_config_note *n =
        find_note(&cfg, GPUPLAN_CONFIG_NOTE_UNKNOWN, "micro_batchsize");
    assert_non_null(n);
    assert_string_equal(n->where, "a.yml:3:18");
    assert_non_null(find_note(&cfg, GPUPLAN_CONFIG_NOTE_IGNORED, "learning_rate"));
    assert_int_equal(gpuplan_config_count_notes(&cfg, GPUPLAN_CONFIG_NOTE_UNKNOWN), 1);
    gpuplan_config_release(&cfg);

    gpuplan_config_init(&cfg);
    const char *json = "{\"zero_optimization\": {\"stage\": 1, \"bogus_key\": 2}}";
    assert_int_equal(read_text(&cfg, json, "ds.json", GPUPLAN_CONFIG_AUTO, &err), GPUPLAN_OK);
    n = find_note(&cfg, GPUPLAN_CONFIG_NOTE_UNKNOWN, "zero_optimization.bogus_key");
    assert_non_null(n);
    assert_string_equal(n->where, "ds.json:$.zero_optimization.bogus_key");
    assert_int_equal(cfg.job.sharding, GPUPLAN_SHARDING_ZERO1);
    gpuplan_config_release(&cfg);
}

/* Defaults carry the framework file they come from. */
static void test_default_sources(void **state)
{
    (void)state;
    struct gpuplan_config cfg;
    gpuplan_config_init(&cfg);
    read_ok(&cfg, "trl-example-config.yaml", GPUPLAN_CONFIG_AUTO);
    const struct gpuplan_config_note *n =
        find_note(&cfg, GPUPLAN_CONFIG_NOTE_DEFAULT, "gradient_checkpointing");
    assert_non_null(n);
    assert_string_equal(n->setting, "grad-ckpt");
    assert_string_equal(n->value, "full");
    assert_non_null(strstr(n->detail, "huggingface/trl@"));
    assert_non_null(strstr(n->detail, "trl/trainer/base_config.py"));
    n = find_note(&cfg, GPUPLAN_CONFIG_NOTE_DEFAULT, "per_device_train_batch_size");
    assert_non_null(n);
    assert_non_null(strstr(n->detail, "src/transformers/training_args.py"));
    gpuplan_config_release(&cfg);

    gpuplan_config_init(&cfg);
    struct gpuplan_error err;
    assert_int_equal(
        read_text(&cfg, "distributed_type: DEEPSPEED\n", "acc.yaml", GPUPLAN_CONFIG_AUTO, &err),
        GPUPLAN_OK);
    assert_int_equal(cfg.job.sharding, GPUPLAN_SHARDING_ZERO2); /* accelerate's zero_stage 2 */
    n = find_note(&cfg, GPUPLAN_CONFIG_NOTE_DEFAULT, "deepspeed_config.zero_stage");
    assert_non_null(n);
    assert_non_null(strstr(n->detail, "src/accelerate/utils/dataclasses.py"));
    gpuplan_config_release(&cfg);
}

/* What the job cannot say is reported, with the nearest setting used. */
static void test_not_expressible(void **state)
{
    (void)state;
    struct gpuplan_config cfg;
    struct gpuplan_error err;
    gpuplan_config_init(&cfg);
    const char *json = "{\"bf16\": {\"enabled\": true, \"bf16_master_weights_and_grads\": true}, "
                       "\"zero_optimization\": {\"stage\": 2, \"zero_quantized_weights\": true, "
                       "\"offload_optimizer\": {\"device\": \"cpu\"}}}";
    assert_int_equal(read_text(&cfg, json, "ds.json", GPUPLAN_CONFIG_DEEPSPEED, &err), GPUPLAN_OK);
    assert_non_null(
        find_note(&cfg, GPUPLAN_CONFIG_NOTE_NOT_EXPRESSIBLE, "bf16.bf16_master_weights_and_grads"));
    assert_non_null(find_note(&cfg, GPUPLAN_CONFIG_NOTE_NOT_EXPRESSIBLE,
                              "zero_optimization.zero_quantized_weights"));
    assert_int_equal(cfg.job.precision, GPUPLAN_PRECISION_BF16_MIXED);
    assert_int_equal(cfg.job.offload, GPUPLAN_OFFLOAD_OPTIMIZER);
    gpuplan_config_release(&cfg);

    gpuplan_config_init(&cfg);
    const char *peft = "{\"peft_type\": \"LORA\", \"r\": 8, \"use_dora\": true, "
                       "\"target_modules\": [\"q_proj\", \"embed_tokens\", \"lm_head\"]}";
    assert_int_equal(read_text(&cfg, peft, "adapter_config.json", GPUPLAN_CONFIG_AUTO, &err),
                     GPUPLAN_OK);
    assert_int_equal(cfg.kind, GPUPLAN_CONFIG_PEFT);
    assert_non_null(find_note(&cfg, GPUPLAN_CONFIG_NOTE_NOT_EXPRESSIBLE, "use_dora"));
    const struct gpuplan_config_note *n =
        find_note(&cfg, GPUPLAN_CONFIG_NOTE_NOT_EXPRESSIBLE, "target_modules");
    assert_non_null(n);
    assert_string_equal(n->value, "embed_tokens,lm_head");
    assert_string_equal(cfg.job.lora_targets, "q_proj");
    gpuplan_config_release(&cfg);
}

/* Bad values fail with the file's position and a hint; the record is kept as it was. */
static void test_bad_values(void **state)
{
    (void)state;
    struct gpuplan_config cfg;
    struct gpuplan_error err;
    gpuplan_config_init(&cfg);
    read_ok(&cfg, "axolotl-qlora-1b.yml", GPUPLAN_CONFIG_AUTO);
    const size_t n_notes = cfg.n_notes;
    assert_int_equal(read_text(&cfg, "base_model: m\nmicro_batch_size: 0\n", "b.yml",
                               GPUPLAN_CONFIG_AXOLOTL, &err),
                     GPUPLAN_ERR_INVALID_INPUT);
    assert_string_equal(err.where, "b.yml:2:19");
    assert_non_null(strstr(err.message, "micro_batch_size"));
    assert_int_equal(cfg.n_notes, n_notes);
    assert_int_equal(cfg.n_files, 1);
    assert_int_equal(cfg.job.micro_batch, 2);

    assert_int_equal(read_text(&cfg, "{\"zero_optimization\": {\"stage\": 7}}", "ds.json",
                               GPUPLAN_CONFIG_DEEPSPEED, &err),
                     GPUPLAN_ERR_INVALID_INPUT);
    assert_string_equal(err.where, "ds.json:$.zero_optimization.stage");
    assert_non_null(strstr(err.message, "0..3"));

    assert_int_equal(read_text(&cfg, "base_model: m\nlora_dropout: 1.5\n", "c.yml",
                               GPUPLAN_CONFIG_AXOLOTL, &err),
                     GPUPLAN_ERR_INVALID_INPUT);
    assert_string_equal(err.where, "c.yml:2:15");
    assert_int_equal(cfg.n_notes, n_notes);
    gpuplan_config_release(&cfg);
}

static void test_detect(void **state)
{
    (void)state;
    static const struct {
        const char *text, *name;
        enum gpuplan_config_kind kind;
    } rows[] = {
        { "{\"zero_optimization\": {\"stage\": 2}}", "x.json", GPUPLAN_CONFIG_DEEPSPEED },
        { "distributed_type: FSDP\n", "x.yaml", GPUPLAN_CONFIG_ACCELERATE },
        { "base_model: m\nsequence_len: 4\n", "x.yaml", GPUPLAN_CONFIG_AXOLOTL },
        { "finetuning_type: lora\ncutoff_len: 4\n", "x.yaml", GPUPLAN_CONFIG_LLAMA_FACTORY },
        { "model:\n  _component_: torchtune.models.llama3_1.llama3_1_8b\n", "x.yaml",
          GPUPLAN_CONFIG_TORCHTUNE },
        { "{\"per_device_train_batch_size\": 2}", "x.json", GPUPLAN_CONFIG_TRL },
        { "{\"peft_type\": \"LORA\", \"r\": 8}", "x.json", GPUPLAN_CONFIG_PEFT },
        /* a tie (one clue each) goes to the kind the file name says */
        { "{\"r\": 8, \"train_batch_size\": 8}", "adapter_config.json", GPUPLAN_CONFIG_PEFT },
        { "{\"r\": 8, \"train_batch_size\": 8}", "ds_z3.json", GPUPLAN_CONFIG_DEEPSPEED },
        { "hello: world\n", "x.yaml", GPUPLAN_CONFIG_AUTO },
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        enum gpuplan_config_kind k = GPUPLAN_CONFIG_KIND_COUNT;
        struct gpuplan_error err;
        gpuplan_error_init(&err);
        assert_int_equal(gpuplan_config_detect((const uint8_t *)rows[i].text, strlen(rows[i].text),
                                               rows[i].name, &k, &err),
                         GPUPLAN_OK);
        assert_int_equal(k, rows[i].kind);
    }
    struct gpuplan_config cfg;
    struct gpuplan_error err;
    gpuplan_config_init(&cfg);
    assert_int_equal(read_text(&cfg, "hello: world\n", "x.yaml", GPUPLAN_CONFIG_AUTO, &err),
                     GPUPLAN_ERR_UNSUPPORTED);
    assert_non_null(strstr(err.hint, "llama-factory"));
    gpuplan_config_release(&cfg);
}

static void test_names(void **state)
{
    (void)state;
    enum gpuplan_config_kind k = GPUPLAN_CONFIG_AUTO;
    for (int i = 0; i < GPUPLAN_CONFIG_KIND_COUNT; i++) {
        assert_true(gpuplan_config_kind_from_name(
            gpuplan_config_kind_name((enum gpuplan_config_kind)i), &k));
        assert_int_equal(k, i);
    }
    assert_false(gpuplan_config_kind_from_name("megatron", &k));
    assert_string_equal(gpuplan_config_stack_name(GPUPLAN_STACK_HF_TRAINER), "hf-trainer");
    assert_string_equal(gpuplan_config_stack_name(GPUPLAN_STACK_LLAMA_FACTORY), "llama-factory");
    assert_string_equal(gpuplan_config_note_kind_name(GPUPLAN_CONFIG_NOTE_NOT_EXPRESSIBLE),
                        "not-expressible");
    /* a zeroed record releases cleanly */
    struct gpuplan_config zero;
    memset(&zero, 0, sizeof zero);
    gpuplan_config_release(&zero);
    gpuplan_config_release(NULL);
}

int main(void)
{
    struct CMUnitTest tests[N_FIXTURES + N_PRECISION + 16];
    size_t n = 0;
    for (size_t i = 0; i < N_FIXTURES; i++) {
        const struct CMUnitTest t = { fixture_rows[i].file, test_fixture, NULL, NULL,
                                      (void *)(uintptr_t)&fixture_rows[i] };
        tests[n++] = t;
    }
    for (size_t i = 0; i < N_PRECISION; i++) {
        const struct CMUnitTest t = { precision_rows[i].name, test_precision, NULL, NULL,
                                      (void *)(uintptr_t)&precision_rows[i] };
        tests[n++] = t;
    }
    const struct CMUnitTest fixed[] = {
        cmocka_unit_test(test_merge_trl_peft),
        cmocka_unit_test(test_merge_llama_factory_deepspeed),
        cmocka_unit_test(test_merge_accelerate_deepspeed),
        cmocka_unit_test(test_fsdp_lora_base_fp32),
        cmocka_unit_test(test_unknown_positions),
        cmocka_unit_test(test_default_sources),
        cmocka_unit_test(test_not_expressible),
        cmocka_unit_test(test_bad_values),
        cmocka_unit_test(test_detect),
        cmocka_unit_test(test_names),
    };
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        tests[n++] = fixed[i];
    return _cmocka_run_group_tests("config", tests, n, NULL, NULL);
}
