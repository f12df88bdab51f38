/*
 * job.c - the job specification: its option table (gpuplan_job_options:
 * names, value kinds, ranges, defaults, help, and the planner axis each
 * option fixes), the setters for the options whose text becomes more than
 * one field, the defaults that depend on other options
 * (gpuplan_job_resolve), and the names of the enums.
 *
 * The table drives CLI parsing, `--help`, the man page, completion, the
 * JSON bodies and gpuplan_job_init, so every front-end accepts the same
 * names, values and ranges (options.h does the parsing).
 *
 * Not here: what an option does to memory or time (memory_model.c,
 * throughput.c).
 */
#include "gpuplan/job.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "estimate/job_internal.h"
#include "gpuplan/model.h"
#include "gpuplan/units.h"

#include "util/i18n_internal.h"
#include "util/suggest_internal.h"

static const char *const method_names[] = { "full", "lora", "qlora", "infer", NULL };
static const char *const precision_names[] = { "bf16",      "bf16-mixed", "fp16-mixed", "fp32",
                                               "fp8-mixed", "amp-bf16",   NULL };
static const char *const optimizer_names[] = {
    "adamw", "adamw-8bit", "paged-adamw", "paged-adamw-8bit", "sgd", "adafactor", "lion", NULL
};
static const char *const ckpt_names[] = { "none", "selective", "full", NULL };
static const char *const attention_names[] = { "eager", "sdpa", "flash", NULL };
static const char *const sharding_names[] = { "none",  "ddp",  "zero1",       "zero2",
                                              "zero3", "fsdp", "fsdp-hybrid", NULL };
static const char *const offload_names[] = { "none", "optimizer", "params", "optimizer+params",
                                             "nvme", NULL };
static const char *const quant_names[] = { "nf4", "nf4-dq", "torchao-nf4", "int8", NULL };
static const char *const fsdp_wrap_names[] = { "layers", "layers+embeddings", NULL };
static const char *const kv_dtype_names[] = { "auto",     "fp8",      "bf16",     "fp16",    "fp32",
                                              "fp8_e4m3", "fp8_e5m2", "bfloat16", "float16", NULL };
static const char *const engine_names[] = { "vllm", "sglang", NULL };
static const char *const yes_no_names[] = { "no", "yes", NULL };
static const char *const compile_names[] = { "no", "yes", "blocks", NULL };
/* --moe-experts, in enum gpuplan_moe_experts order. */
static const char *const moe_experts_names[] = { "loop", "grouped", NULL };
/* --stack, in enum gpuplan_framework order; "nemo" is an alias of megatron. */
static const char *const framework_names[] = { "hf-trainer",    "trl",     "axolotl",
                                               "llama-factory", "unsloth", "torchtune",
                                               "torchtitan",    "litgpt",  "deepspeed",
                                               "megatron",      "nemo",    NULL };
static const int framework_values[] = {
    GPUPLAN_FRAMEWORK_HF_TRAINER,    GPUPLAN_FRAMEWORK_TRL,      GPUPLAN_FRAMEWORK_AXOLOTL,
    GPUPLAN_FRAMEWORK_LLAMA_FACTORY, GPUPLAN_FRAMEWORK_UNSLOTH,  GPUPLAN_FRAMEWORK_TORCHTUNE,
    GPUPLAN_FRAMEWORK_TORCHTITAN,    GPUPLAN_FRAMEWORK_LITGPT,   GPUPLAN_FRAMEWORK_DEEPSPEED,
    GPUPLAN_FRAMEWORK_MEGATRON,      GPUPLAN_FRAMEWORK_MEGATRON,
};
/* The dtypes the choices of --quant and --kv-dtype store, in their order. */
static const int quant_dtypes[] = { GPUPLAN_DTYPE_NF4, GPUPLAN_DTYPE_NF4_DQ,
                                    GPUPLAN_DTYPE_NF4_TORCHAO, GPUPLAN_DTYPE_INT8 };
/* --kv-dtype as --kv-cache-dtype spells it: fp8_e4m3/fp8_e5m2 are fp8 (one byte), the long
 * names aliases of bf16 and fp16. */
static const int kv_dtypes[] = { GPUPLAN_SERVING_KV_AUTO, GPUPLAN_SERVING_KV_FP8,
                                 GPUPLAN_SERVING_KV_BF16, GPUPLAN_SERVING_KV_FP16,
                                 GPUPLAN_SERVING_KV_FP32, GPUPLAN_SERVING_KV_FP8,
                                 GPUPLAN_SERVING_KV_FP8,  GPUPLAN_SERVING_KV_BF16,
                                 GPUPLAN_SERVING_KV_FP16 };

/* --compile no|yes|blocks: yes compiles the blocks and the loss, blocks only the blocks. */
static enum gpuplan_status set_compile(void *dest,
                                       const struct gpuplan_option *opt,
                                       const char *value,
                                       struct gpuplan_error *err)
{
    (void)opt;
    (void)err;
    struct gpuplan_job *job = dest;
    job->compile = strcmp(value, "no") != 0;
    job->compile_loss = strcmp(value, "yes") == 0;
    return GPUPLAN_OK;
}

/* '--tokens' and '--dataset-tokens' say the same thing two ways: accept one. */
static enum gpuplan_status set_token_count(void *dest,
                                           const struct gpuplan_option *opt,
                                           const char *value,
                                           struct gpuplan_error *err)
{
    struct gpuplan_job *job = dest;
    const bool tokens = strcmp(opt->name, "tokens") == 0;
    if ((tokens && job->dataset_tokens > 0) || (!tokens && job->tokens > 0)) {
        gpuplan_error_set(err, GPUPLAN_ERR_USAGE, NULL,
                          "'--tokens' and '--dataset-tokens' both given; they set the same count");
        gpuplan_error_hint(err, "give one: the tokens of one epoch (times --epochs)");
        return GPUPLAN_ERR_USAGE;
    }
    uint64_t v = 0;
    (void)gpuplan_parse_count(value, &v); /* checked against the range before this is called */
    *(tokens ? &job->tokens : &job->dataset_tokens) = v;
    return GPUPLAN_OK;
}

/*
 * Module names other architectures give the same linears (what PEFT users
 * write in target_modules): BLOOM / Falcon / GPT-NeoX fused
 * query_key_value, GPT-2 c_attn, MPT Wqkv, T5 q/k/v/o and wi/wo, BLOOM /
 * GPT-NeoX dense (attention output) and dense_h_to_4h / dense_4h_to_h,
 * OPT / Phi out_proj and fc1 / fc2.
 */
static const struct module_alias {
    const char *module;
    enum gpuplan_role role;
    const char *families; /* model_type values that name the module so, space separated */
} module_aliases[] = {
    { "query_key_value", GPUPLAN_ROLE_ATTN_QKV, "gpt_neox falcon bloom" },
    { "c_attn", GPUPLAN_ROLE_ATTN_QKV, "gpt2" },
    { "Wqkv", GPUPLAN_ROLE_ATTN_QKV, "mpt" },
    { "q", GPUPLAN_ROLE_ATTN_Q, "t5 mt5" },
    { "k", GPUPLAN_ROLE_ATTN_K, "t5 mt5" },
    { "v", GPUPLAN_ROLE_ATTN_V, "t5 mt5" },
    { "o", GPUPLAN_ROLE_ATTN_O, "t5 mt5" },
    { "dense", GPUPLAN_ROLE_ATTN_O, "gpt_neox falcon bloom" },
    { "out_proj", GPUPLAN_ROLE_ATTN_O, "mpt" },
    /* GPT-2's Conv1D: attn.c_proj (attention output) and mlp.c_proj (down), mlp.c_fc (up). */
    { "c_proj", GPUPLAN_ROLE_ATTN_O, "gpt2" },
    { "c_proj", GPUPLAN_ROLE_MLP_DOWN, "gpt2" },
    { "c_fc", GPUPLAN_ROLE_MLP_UP, "gpt2" },
    { "wi", GPUPLAN_ROLE_MLP_UP, "t5 mt5" },
    /* T5 v1.1 / mT5 gated-gelu: wi_0 is the gate, wi_1 the up projection. */
    { "wi_0", GPUPLAN_ROLE_MLP_GATE, "t5 mt5" },
    { "wi_1", GPUPLAN_ROLE_MLP_UP, "t5 mt5" },
    { "wo", GPUPLAN_ROLE_MLP_DOWN, "t5 mt5" },
    { "dense_h_to_4h", GPUPLAN_ROLE_MLP_UP, "gpt_neox falcon bloom" },
    { "dense_4h_to_h", GPUPLAN_ROLE_MLP_DOWN, "gpt_neox falcon bloom" },
    { "fc1", GPUPLAN_ROLE_MLP_UP, "opt phi" },
    { "fc2", GPUPLAN_ROLE_MLP_DOWN, "opt phi" },
};

static bool family_listed(const char *families, const char *family)
{
    const size_t n = strlen(family);
    for (const char *p = families; n && *p;) {
        const size_t len = strcspn(p, " ");
        if (len == n && strncmp(p, family, n) == 0)
            return true;
        p += len;
        while (*p == ' ')
            p++;
    }
    return false;
}

/* The name `family` gives the linears of `role`: its alias, else the PEFT (Llama) name. */
static const char *module_name_in(const char *family, enum gpuplan_role role)
{
    for (size_t i = 0; i < sizeof module_aliases / sizeof module_aliases[0]; i++)
        if (module_aliases[i].role == role && family_listed(module_aliases[i].families, family))
            return module_aliases[i].module;
    return gpuplan_role_module(role);
}

size_t gpuplan_job_lora_module_names(const struct gpuplan_model *model, char *out, size_t size)
{
    size_t n_names = 0, used = 0;
    const char *seen[GPUPLAN_ROLE_COUNT] = { NULL };
    if (size)
        out[0] = '\0';
    for (int r = 0; r < GPUPLAN_ROLE_COUNT; r++) {
        const enum gpuplan_role role = (enum gpuplan_role)r;
        if (!gpuplan_role_is_linear(role) || model->params_by_role[r] == 0)
            continue;
        const char *name = module_name_in(model->arch.family, role);
        bool dup = !name;
        for (size_t i = 0; !dup && i < n_names; i++)
            dup = strcmp(seen[i], name) == 0;
        if (dup)
            continue;
        seen[n_names++] = name;
        const int w = snprintf(out + used, size > used ? size - used : 0, "%s%s",
                               n_names > 1 ? ", " : "", name);
        if (w > 0 && used + (size_t)w < size)
            used += (size_t)w;
    }
    return n_names;
}

/* PEFT module names a target list may use, with the roles each one adapts. */
static gpuplan_role_mask roles_for_module(const char *module, size_t len)
{
    gpuplan_role_mask mask = 0;
    for (size_t i = 0; i < sizeof module_aliases / sizeof module_aliases[0]; i++) {
        if (strlen(module_aliases[i].module) == len &&
            strncmp(module_aliases[i].module, module, len) == 0)
            mask |= 1ULL << module_aliases[i].role;
    }
    for (int r = 0; r < GPUPLAN_ROLE_COUNT; r++) {
        const char *m = gpuplan_role_module((enum gpuplan_role)r);
        if (m && gpuplan_role_is_linear((enum gpuplan_role)r) && strlen(m) == len &&
            strncmp(m, module, len) == 0)
            mask |= 1ULL << r;
    }
    return mask;
}

static gpuplan_role_mask linear_roles(bool attention_only)
{
    static const enum gpuplan_role attn[] = {
        GPUPLAN_ROLE_ATTN_Q,   GPUPLAN_ROLE_ATTN_K,   GPUPLAN_ROLE_ATTN_V,
        GPUPLAN_ROLE_ATTN_QKV, GPUPLAN_ROLE_ATTN_O,   GPUPLAN_ROLE_MLA_Q_A,
        GPUPLAN_ROLE_MLA_Q_B,  GPUPLAN_ROLE_MLA_KV_A, GPUPLAN_ROLE_MLA_KV_B,
    };
    gpuplan_role_mask mask = 0;
    if (attention_only) {
        for (size_t i = 0; i < sizeof attn / sizeof attn[0]; i++)
            mask |= 1ULL << attn[i];
        return mask;
    }
    /* PEFT "all-linear": every nn.Linear except the output layer (lm_head is not linear in the role
     * table). */
    for (int r = 0; r < GPUPLAN_ROLE_COUNT; r++) {
        if (gpuplan_role_is_linear((enum gpuplan_role)r))
            mask |= 1ULL << r;
    }
    return mask;
}

static void suggest_module(const char *word, struct gpuplan_error *err)
{
    struct gpuplan_suggest s;
    gpuplan_suggest_init(&s, word);
    for (int r = 0; r < GPUPLAN_ROLE_COUNT; r++) {
        const char *m = gpuplan_role_module((enum gpuplan_role)r);
        if (m && gpuplan_role_is_linear((enum gpuplan_role)r))
            gpuplan_suggest_add(&s, m);
    }
    if (s.n)
        gpuplan_error_hint(err, "did you mean '%s'? (or all-linear, attn)", s.best[0].text);
    else
        gpuplan_error_hint(err, "use PEFT module names such as q_proj,v_proj, or all-linear, attn");
}

/* --lora-targets: the text kept, and the roles it names resolved (lora_target_roles). */
static enum gpuplan_status parse_lora_targets(void *dest,
                                              const struct gpuplan_option *opt,
                                              const char *value,
                                              struct gpuplan_error *err)
{
    (void)opt;
    struct gpuplan_job *job = dest;
    if (strlen(value) >= sizeof job->lora_targets)
        return gpuplan_error_set(err, GPUPLAN_ERR_USAGE, NULL,
                                 "'--lora-targets' is longer than %zu characters",
                                 sizeof job->lora_targets - 1);
    gpuplan_role_mask mask = 0;
    if (strcasecmp(value, "all-linear") == 0 || strcasecmp(value, "all") == 0) {
        mask = linear_roles(false);
    } else if (strcasecmp(value, "attn") == 0) {
        mask = linear_roles(true);
    } else {
        const char *p = value;
        while (*p) {
            const size_t len = strcspn(p, ",;");
            if (len == 0)
                return gpuplan_error_set(err, GPUPLAN_ERR_USAGE, NULL,
                                         "'--lora-targets' has an empty name in '%s'", value);
            const gpuplan_role_mask m = roles_for_module(p, len);
            if (!m) {
                char word[64];
                snprintf(word, sizeof word, "%.*s", (int)(len < 63 ? len : 63), p);
                gpuplan_error_set(err, GPUPLAN_ERR_USAGE, NULL,
                                  "unknown LoRA target '%s' in '--lora-targets'", word);
                suggest_module(word, err);
                return GPUPLAN_ERR_USAGE;
            }
            mask |= m;
            p += len;
            if (*p)
                p++;
        }
    }
    if (!mask)
        return gpuplan_error_set(err, GPUPLAN_ERR_USAGE, NULL, "'--lora-targets' is empty");
    snprintf(job->lora_targets, sizeof job->lora_targets, "%s", value);
    job->lora_target_roles = mask;
    return GPUPLAN_OK;
}

/* "h100-sxm:8" -> id "h100-sxm", 8 GPUs per node. */
static enum gpuplan_status parse_gpu(void *dest,
                                     const struct gpuplan_option *opt,
                                     const char *value,
                                     struct gpuplan_error *err)
{
    (void)opt;
    struct gpuplan_job *job = dest;
    const char *colon = strchr(value, ':');
    const size_t id_len = colon ? (size_t)(colon - value) : strlen(value);
    if (id_len == 0 || id_len >= sizeof job->gpu_id)
        return gpuplan_error_set(err, GPUPLAN_ERR_USAGE, NULL,
                                 "'--gpu' is '%s'; must be ID[:N] with an id of 1..%zu characters",
                                 value, sizeof job->gpu_id - 1);
    uint64_t count = 1;
    if (colon &&
        (!gpuplan_parse_count(colon + 1, &count) || count < 1 || count > GPUPLAN_JOB_MAX_DEGREE))
        return gpuplan_error_set(err, GPUPLAN_ERR_USAGE, NULL,
                                 "'--gpu' count is '%s'; must be an integer in 1..%llu", colon + 1,
                                 (unsigned long long)GPUPLAN_JOB_MAX_DEGREE);
    memcpy(job->gpu_id, value, id_len);
    job->gpu_id[id_len] = '\0';
    job->gpus_per_node = (uint32_t)count;
    return GPUPLAN_OK;
}

/*
 * Serving weight formats: auto (as the checkpoint stores them), or the
 * format the block linears are loaded in (fp8: --quantization fp8 or an
 * fp8 checkpoint; awq, gptq, mxfp4, nvfp4, int8: a checkpoint in that
 * format). GGUF K-quant mixes (Q4_K_M, Q5_K_S) are modelled as their base
 * type (Q4_K, Q5_K): llama.cpp's _M variants keep some tensors in Q6_K, so
 * this underestimates those by a few percent (documented).
 */
static enum gpuplan_status parse_weights(void *dest,
                                         const struct gpuplan_option *opt,
                                         const char *value,
                                         struct gpuplan_error *err)
{
    (void)opt;
    struct gpuplan_job *job = dest;
    enum gpuplan_dtype d = GPUPLAN_DTYPE_UNKNOWN;
    if (strcasecmp(value, "auto") == 0) {
        job->weights_dtype = GPUPLAN_DTYPE_UNKNOWN;
        return GPUPLAN_OK;
    }
    if (strncasecmp(value, "gguf-", 5) == 0) {
        char name[32];
        snprintf(name, sizeof name, "%s", value + 5);
        size_t n = strlen(name);
        if (n > 2 && name[n - 2] == '_' && strchr("SMLsml", name[n - 1]) &&
            strncasecmp(name, "IQ", 2) != 0)
            name[n - 2] = '\0';
        d = gpuplan_dtype_from_name(name);
        if (d != GPUPLAN_DTYPE_UNKNOWN && !gpuplan_dtype_get(d)->is_quantized &&
            d != GPUPLAN_DTYPE_F16 && d != GPUPLAN_DTYPE_BF16 && d != GPUPLAN_DTYPE_F32)
            d = GPUPLAN_DTYPE_UNKNOWN;
    } else if (strcasecmp(value, "nf4") == 0) {
        d = GPUPLAN_DTYPE_NF4;
    } else {
        static const char *const plain[] = { "bf16", "fp16", "fp8",    "int8",  "awq",
                                             "gptq", "fp32", "nf4-dq", "mxfp4", "nvfp4" };
        for (size_t i = 0; i < sizeof plain / sizeof plain[0]; i++) {
            if (strcasecmp(value, plain[i]) == 0)
                d = gpuplan_dtype_from_name(value);
        }
    }
    if (d == GPUPLAN_DTYPE_UNKNOWN) {
        gpuplan_error_set(err, GPUPLAN_ERR_USAGE, NULL, "'--weights' is '%s'; must be one of %s",
                          value, "auto|bf16|fp16|fp8|int8|awq|gptq|mxfp4|nvfp4|nf4|gguf-TYPE");
        gpuplan_error_hint(err, "GGUF types look like gguf-Q4_K_M, gguf-Q8_0, gguf-IQ4_XS");
        return GPUPLAN_ERR_USAGE;
    }
    job->weights_dtype = d;
    return GPUPLAN_OK;
}

/* --engine-version: "0.11.0", "v0.9.2.dev364+gb432b7a28"; how old is the engine's call. */
static enum gpuplan_status parse_engine_version(void *dest,
                                                const struct gpuplan_option *opt,
                                                const char *value,
                                                struct gpuplan_error *err)
{
    (void)opt;
    struct gpuplan_job *job = dest;
    uint32_t major = 0, minor = 0, patch = 0;
    if (strlen(value) >= sizeof job->engine_version ||
        !gpuplan_serving_version_parse(value, &major, &minor, &patch)) {
        gpuplan_error_set(err, GPUPLAN_ERR_USAGE, NULL,
                          "'--engine-version' is '%.40s'; must be a version such as 0.11.0", value);
        gpuplan_error_hint(err, "the version the engine prints at start-up, e.g. 0.27.0 or 0.5.7");
        return GPUPLAN_ERR_USAGE;
    }
    (void)snprintf(job->engine_version, sizeof job->engine_version, "%s", value);
    return GPUPLAN_OK;
}

/* Limits: generous but finite, so products of them cannot overflow 64 bits. */
#define MAX_SEQ_LEN   (16ULL * 1024ULL * 1024ULL) /* 16 Mi tokens: 128x Llama 3.1's 128 k context */
#define MAX_TOKENS    (1ULL << 56)                /* 7.2e16 tokens: 5000x Llama 3's 15T */
#define MAX_LORA_RANK 65536ULL                    /* past any hidden size in the catalog */
/* LoRA alpha and epochs: any real count a user would type (0..1e6). */
#define MAX_LORA_ALPHA 1e6
#define MAX_EPOCHS     1e6
/* PEFT's lora_dropout is a probability; 1 would drop every input. */
#define MAX_LORA_DROPOUT 0.99
/* vLLM's gpu_memory_utilization: a fraction of the GPU, at least 5 % of it. */
#define MIN_GPU_MEMORY_UTILIZATION 0.05

#define JOB(field) GPUPLAN_OPTION_AT(struct gpuplan_job, field)
#define NO_SET     .set_offset = GPUPLAN_OPTION_NO_SET
#define SET(flag)  .set_offset = offsetof(struct gpuplan_job, flag)

const struct gpuplan_option gpuplan_job_options[] = {
    /* The framework profiles: stack_profiles below, docs/stacks.md. */
    { .name = "stack",
      .kind = GPUPLAN_OPTION_CHOICE,
      .field = GPUPLAN_FIELD_INT,
      JOB(stack),
      NO_SET,
      .help = GPUPLAN_N_("the training framework whose defaults apply (precision, checkpointing, "
                         "loss, fused kernels, sharding) and whose error interval the ranges use; "
                         "options given override it"),
      .default_value = "hf-trainer",
      .choices = framework_names,
      .choice_values = framework_values },
    { .name = "method",
      .kind = GPUPLAN_OPTION_CHOICE,
      .field = GPUPLAN_FIELD_INT,
      JOB(method),
      NO_SET,
      .help = GPUPLAN_N_("what to do with the model"),
      .default_value = "full",
      .choices = method_names,
      .axis = GPUPLAN_AXIS_METHOD },
    /*
     * bf16-mixed follows the stack the sharding implies: none/ddp = torch AMP
     * as HF Trainer/accelerate run it (fp32 parameters, autocast); zero* =
     * DeepSpeed bf16 (16-bit parameters, fp32 master partition); fsdp = FSDP
     * MixedPrecision (fp32 shards, 16-bit gathered units). amp-bf16 forces
     * autocast-only with any sharding (FSDP then gathers fp32 units).
     */
    { .name = "precision",
      .kind = GPUPLAN_OPTION_CHOICE,
      .field = GPUPLAN_FIELD_INT,
      JOB(precision),
      SET(precision_set),
      .help =
          GPUPLAN_N_("how weights, gradients and optimizer states are stored: bf16-mixed = torch "
                     "AMP on none/ddp, DeepSpeed bf16 on zero*, FSDP MixedPrecision on fsdp; "
                     "amp-bf16 = fp32 parameters with autocast only, whatever the sharding"),
      .default_value = "bf16-mixed",
      .choices = precision_names,
      .axis = GPUPLAN_AXIS_PRECISION },
    { .name = "optimizer",
      .kind = GPUPLAN_OPTION_CHOICE,
      .field = GPUPLAN_FIELD_INT,
      JOB(optimizer),
      NO_SET,
      .help = GPUPLAN_N_("optimizer (states for trainable parameters only)"),
      .default_value = "adamw",
      .choices = optimizer_names },
    { .name = "optim-in-bwd",
      .kind = GPUPLAN_OPTION_CHOICE,
      .field = GPUPLAN_FIELD_BOOL,
      JOB(optim_in_bwd),
      NO_SET,
      .help = GPUPLAN_N_("fuse the optimizer step into backward (frees gradients)"),
      .default_value = "no",
      .choices = yes_no_names },
    { .name = "grad-ckpt",
      .kind = GPUPLAN_OPTION_CHOICE,
      .field = GPUPLAN_FIELD_INT,
      JOB(grad_ckpt),
      SET(grad_ckpt_set),
      .help = GPUPLAN_N_("activation (gradient) checkpointing"),
      .default_value = "none",
      .default_doc = GPUPLAN_N_("none (full for qlora)"),
      .choices = ckpt_names,
      .axis = GPUPLAN_AXIS_GRAD_CKPT },
    { .name = "attention",
      .kind = GPUPLAN_OPTION_CHOICE,
      .field = GPUPLAN_FIELD_INT,
      JOB(attention),
      SET(attention_set),
      .help = GPUPLAN_N_("attention implementation"),
      .default_value = "sdpa",
      .choices = attention_names },
    { .name = "seq-len",
      .kind = GPUPLAN_OPTION_COUNT,
      .field = GPUPLAN_FIELD_U64,
      JOB(seq_len),
      NO_SET,
      .arg = "N",
      .help = GPUPLAN_N_("tokens per training sequence"),
      .default_value = "2048",
      .count_min = 1,
      .count_max = MAX_SEQ_LEN },
    { .name = "micro-batch",
      .kind = GPUPLAN_OPTION_COUNT,
      .field = GPUPLAN_FIELD_U64,
      JOB(micro_batch),
      NO_SET,
      .arg = "N",
      .help = GPUPLAN_N_("sequences per GPU per step"),
      .default_value = "1",
      .count_min = 1,
      .count_max = GPUPLAN_JOB_MAX_BATCH,
      .axis = GPUPLAN_AXIS_MICRO_BATCH },
    { .name = "grad-accum",
      .kind = GPUPLAN_OPTION_COUNT,
      .field = GPUPLAN_FIELD_U64,
      JOB(grad_accum),
      NO_SET,
      .arg = "N",
      .help = GPUPLAN_N_("micro-batches per optimizer step"),
      .default_value = "1",
      .count_min = 1,
      .count_max = GPUPLAN_JOB_MAX_BATCH },
    { .name = "act-offload",
      .kind = GPUPLAN_OPTION_CHOICE,
      .field = GPUPLAN_FIELD_BOOL,
      JOB(act_offload),
      SET(act_offload_set),
      .help = GPUPLAN_N_("offload saved activations to host memory"),
      .default_value = "no",
      .choices = yes_no_names },
    { .name = "chunked-ce",
      .kind = GPUPLAN_OPTION_CHOICE,
      .field = GPUPLAN_FIELD_BOOL,
      JOB(chunked_ce),
      SET(chunked_ce_set),
      .help = GPUPLAN_N_("chunked cross-entropy (no full fp32 logits)"),
      .default_value = "no",
      .choices = yes_no_names },
    { .name = "packed",
      .kind = GPUPLAN_OPTION_CHOICE,
      .field = GPUPLAN_FIELD_BOOL,
      JOB(packed),
      NO_SET,
      .help = GPUPLAN_N_("every micro-batch has --seq-len tokens per sequence (packed or padded to "
                         "it); no: variable-length batches (--seq-len the longest), whose reserved "
                         "memory grows towards the free memory"),
      .default_value = "yes",
      .choices = yes_no_names },
    { .name = "compile",
      .kind = GPUPLAN_OPTION_CHOICE,
      .field = GPUPLAN_FIELD_NONE,
      SET(compile_set),
      .help = GPUPLAN_N_("torch.compile: yes = blocks and loss (torchtune, HF Trainer), blocks = "
                         "blocks only (torchtitan); fused kernels, fewer saved activations"),
      .default_value = "no",
      .choices = compile_names,
      .parse = set_compile },
    /* Training-loop facts (job.h keep_outputs, base_fp32). */
    { .name = "keep-outputs",
      .kind = GPUPLAN_OPTION_CHOICE,
      .field = GPUPLAN_FIELD_BOOL,
      JOB(keep_outputs),
      NO_SET,
      .help = GPUPLAN_N_("the loop holds the model output (logits, and each layer's k/v while HF "
                         "use_cache is on) until the next forward returns; HF Trainer does not"),
      .default_value = "no",
      .choices = yes_no_names },
    { .name = "base-fp32",
      .kind = GPUPLAN_OPTION_CHOICE,
      .field = GPUPLAN_FIELD_BOOL,
      JOB(base_fp32),
      NO_SET,
      .help = GPUPLAN_N_("LoRA under FSDP: the frozen base was loaded in fp32 (fp32 shards, 16-bit "
                         "gathered units)"),
      .default_value = "no",
      .choices = yes_no_names },
    { .name = "lora-rank",
      .kind = GPUPLAN_OPTION_COUNT,
      .field = GPUPLAN_FIELD_U32,
      JOB(lora_rank),
      NO_SET,
      .arg = "R",
      .help = GPUPLAN_N_("LoRA rank"),
      .default_value = "8",
      .count_min = 1,
      .count_max = MAX_LORA_RANK },
    { .name = "lora-dropout",
      .kind = GPUPLAN_OPTION_REAL,
      .field = GPUPLAN_FIELD_DOUBLE,
      JOB(lora_dropout),
      NO_SET,
      .arg = "P",
      .help = GPUPLAN_N_("LoRA dropout probability; above 0 every adapted linear keeps its own "
                         "dropped input and mask for backward"),
      .default_value = "0",
      .real_min = 0.0,
      .real_max = MAX_LORA_DROPOUT },
    { .name = "lora-alpha",
      .kind = GPUPLAN_OPTION_REAL,
      .field = GPUPLAN_FIELD_DOUBLE,
      JOB(lora_alpha),
      NO_SET,
      .arg = "A",
      .help = GPUPLAN_N_("LoRA alpha (no effect on memory)"),
      .default_value = "16",
      .real_min = 0.0,
      .real_max = MAX_LORA_ALPHA },
    { .name = "lora-targets",
      .kind = GPUPLAN_OPTION_TEXT,
      .field = GPUPLAN_FIELD_CHARS,
      JOB(lora_targets),
      NO_SET,
      .arg = "all-linear|attn|q_proj,v_proj,...",
      .help = GPUPLAN_N_("modules LoRA adapts (PEFT names, comma separated)"),
      .default_value = "q_proj,v_proj",
      .parse = parse_lora_targets },
    { .name = "quant",
      .kind = GPUPLAN_OPTION_CHOICE,
      .field = GPUPLAN_FIELD_INT,
      JOB(quant),
      NO_SET,
      .help = GPUPLAN_N_("QLoRA base weight storage"),
      .default_value = "nf4-dq",
      .choices = quant_names,
      .choice_values = quant_dtypes },
    { .name = "sharding",
      .kind = GPUPLAN_OPTION_CHOICE,
      .field = GPUPLAN_FIELD_INT,
      JOB(sharding),
      SET(sharding_set),
      .help = GPUPLAN_N_("data-parallel sharding"),
      .default_value = "none",
      .default_doc = GPUPLAN_N_("none on 1 GPU, ddp on more"),
      .choices = sharding_names,
      .axis = GPUPLAN_AXIS_SHARDING },
    /*
     * FSDP units: HF Accelerate/Trainer's transformer-layer auto-wrap, atorch
     * and torchtitan before 2025 wrap the decoder layers and leave the
     * embedding, final norm and head in the root unit, which FSDP keeps
     * gathered from forward to backward; torchtune's custom_sharded_layers
     * ['tok_embeddings', 'output'] and later torchtitan wrap them apart.
     */
    { .name = "fsdp-wrap",
      .kind = GPUPLAN_OPTION_CHOICE,
      .field = GPUPLAN_FIELD_BOOL,
      JOB(fsdp_embed_units),
      NO_SET,
      .help = GPUPLAN_N_("FSDP units: decoder layers (embedding and head stay gathered in the root "
                         "unit), or layers plus the embedding and head as units of their own"),
      .default_value = "layers",
      .choices = fsdp_wrap_names },
    { .name = "offload",
      .kind = GPUPLAN_OPTION_CHOICE,
      .field = GPUPLAN_FIELD_INT,
      JOB(offload),
      NO_SET,
      .help = GPUPLAN_N_("offload model states to host RAM or NVMe"),
      .default_value = "none",
      .choices = offload_names,
      .axis = GPUPLAN_AXIS_OFFLOAD },
    { .name = "tp",
      .kind = GPUPLAN_OPTION_COUNT,
      .field = GPUPLAN_FIELD_U32,
      JOB(tp),
      SET(tp_set),
      .arg = "N",
      .help = GPUPLAN_N_("tensor-parallel degree (serving: the GPUs of one server)"),
      .default_value = "1",
      .count_min = 1,
      .count_max = GPUPLAN_JOB_MAX_DEGREE,
      .flags = GPUPLAN_OPTION_SEARCHED },
    { .name = "pp",
      .kind = GPUPLAN_OPTION_COUNT,
      .field = GPUPLAN_FIELD_U32,
      JOB(pp),
      SET(pp_set),
      .arg = "N",
      .help = GPUPLAN_N_("pipeline-parallel degree (serving: the servers)"),
      .default_value = "1",
      .count_min = 1,
      .count_max = GPUPLAN_JOB_MAX_DEGREE,
      .flags = GPUPLAN_OPTION_SEARCHED },
    /* Context parallelism: the planner does not search it, and refuses it (SEARCHED). */
    { .name = "cp",
      .kind = GPUPLAN_OPTION_COUNT,
      .field = GPUPLAN_FIELD_U32,
      JOB(cp),
      NO_SET,
      .arg = "N",
      .help = GPUPLAN_N_("training: context-parallel degree, each sequence split over N ranks of "
                         "the data-parallel group (ring attention: K/V passed round the ring)"),
      .default_value = "1",
      .count_min = 1,
      .count_max = GPUPLAN_JOB_MAX_DEGREE,
      .flags = GPUPLAN_OPTION_SEARCHED },
    /* Interleaved pipeline schedule: the planner does not search it (SEARCHED: a fixed knob). */
    { .name = "vpp",
      .kind = GPUPLAN_OPTION_COUNT,
      .field = GPUPLAN_FIELD_U32,
      JOB(vpp),
      NO_SET,
      .arg = "N",
      .help = GPUPLAN_N_("training: virtual pipeline stages per pipeline rank (Megatron "
                         "interleaved 1F1B), the bubble shrinks by 1/N; needs --pp > 1"),
      .default_value = "1",
      .count_min = 1,
      .count_max = GPUPLAN_JOB_MAX_DEGREE,
      .flags = GPUPLAN_OPTION_SEARCHED },
    { .name = "moe-experts",
      .kind = GPUPLAN_OPTION_CHOICE,
      .field = GPUPLAN_FIELD_INT,
      JOB(moe_experts),
      SET(moe_experts_set),
      .help = GPUPLAN_N_("training: MoE experts as a loop of small GEMMs per expert (Hugging Face "
                         "eager) or one grouped GEMM (Megatron-Core, torchtitan); default: the "
                         "stack's"),
      .default_value = "loop",
      .choices = moe_experts_names },
    { .name = "gpu",
      .kind = GPUPLAN_OPTION_TEXT,
      .field = GPUPLAN_FIELD_CHARS,
      JOB(gpu_id),
      NO_SET,
      .arg = "ID[:N]",
      .help = GPUPLAN_N_("catalog GPU id and GPUs per node (e.g. h100-sxm:8)"),
      .default_doc = GPUPLAN_N_("(none)"),
      .parse = parse_gpu },
    { .name = "nodes",
      .kind = GPUPLAN_OPTION_COUNT,
      .field = GPUPLAN_FIELD_U32,
      JOB(nodes),
      NO_SET,
      .arg = "N",
      .help = GPUPLAN_N_("number of nodes"),
      .default_value = "1",
      .count_min = 1,
      .count_max = GPUPLAN_JOB_MAX_DEGREE,
      .flags = GPUPLAN_OPTION_SEARCHED },
    /* Serving (--method infer): the engine's flags, as `vllm serve` / SGLang spell them. */
    { .name = "engine",
      .kind = GPUPLAN_OPTION_CHOICE,
      .field = GPUPLAN_FIELD_INT,
      JOB(engine),
      NO_SET,
      .help = GPUPLAN_N_("serving: the engine whose start-up accounting and defaults apply"),
      .default_value = "vllm",
      .choices = engine_names },
    { .name = "engine-version",
      .kind = GPUPLAN_OPTION_TEXT,
      .field = GPUPLAN_FIELD_CHARS,
      JOB(engine_version),
      NO_SET,
      .arg = "X.Y.Z",
      .help = GPUPLAN_N_("serving: the engine's version (its defaults and accounting change with "
                         "it)"),
      .default_doc = GPUPLAN_N_("the newest modelled (docs/serving.md, \"Versions\")"),
      .parse = parse_engine_version },
    { .name = "gpu-memory-utilization",
      .kind = GPUPLAN_OPTION_REAL,
      .field = GPUPLAN_FIELD_DOUBLE,
      JOB(gpu_memory_utilization),
      NO_SET,
      .arg = "F",
      .help = GPUPLAN_N_("serving: vLLM's share of the GPU's total memory (SGLang: "
                         "--mem-fraction-static)"),
      .default_doc = GPUPLAN_N_("the engine's (vLLM 0.9)"),
      .real_min = MIN_GPU_MEMORY_UTILIZATION,
      .real_max = 1.0 },
    { .name = "mem-fraction-static",
      .kind = GPUPLAN_OPTION_REAL,
      .field = GPUPLAN_FIELD_DOUBLE,
      JOB(gpu_memory_utilization),
      NO_SET,
      .arg = "F",
      .help = GPUPLAN_N_("serving: SGLang's share of the memory free at start-up for weights and "
                         "KV cache (the field --gpu-memory-utilization sets)"),
      .default_doc = GPUPLAN_N_("the engine's (by GPU memory and version)"),
      .real_min = MIN_GPU_MEMORY_UTILIZATION,
      .real_max = 1.0 },
    { .name = "max-model-len",
      .kind = GPUPLAN_OPTION_COUNT,
      .field = GPUPLAN_FIELD_U64,
      JOB(max_model_len),
      NO_SET,
      .arg = "N",
      .help = GPUPLAN_N_("serving: the longest request in tokens the engine starts for (SGLang "
                         "--context-length)"),
      .default_doc = GPUPLAN_N_("the model's max_position_embeddings"),
      .count_min = 1,
      .count_max = MAX_SEQ_LEN },
    { .name = "max-num-seqs",
      .kind = GPUPLAN_OPTION_COUNT,
      .field = GPUPLAN_FIELD_U32,
      JOB(max_num_seqs),
      NO_SET,
      .arg = "N",
      .help = GPUPLAN_N_("serving: requests the engine runs at once (SGLang "
                         "--max-running-requests)"),
      .default_doc = GPUPLAN_N_("the engine's (256 or 1024 by version and GPU)"),
      .count_min = 1,
      .count_max = GPUPLAN_JOB_MAX_BATCH },
    { .name = "max-num-batched-tokens",
      .kind = GPUPLAN_OPTION_COUNT,
      .field = GPUPLAN_FIELD_U64,
      JOB(max_num_batched_tokens),
      NO_SET,
      .arg = "N",
      .help = GPUPLAN_N_("serving: tokens one engine step takes, the prefill chunk (SGLang "
                         "--chunked-prefill-size)"),
      .default_doc = GPUPLAN_N_("the engine's (2048-16384 by version and GPU)"),
      .count_min = 1,
      .count_max = MAX_SEQ_LEN },
    { .name = "kv-dtype",
      .kind = GPUPLAN_OPTION_CHOICE,
      .field = GPUPLAN_FIELD_INT,
      JOB(kv_dtype),
      NO_SET,
      .help = GPUPLAN_N_("serving: KV cache element type (--kv-cache-dtype; auto = the model's)"),
      .default_value = "auto",
      .choices = kv_dtype_names,
      .choice_values = kv_dtypes,
      .axis = GPUPLAN_AXIS_KV_DTYPE },
    { .name = "weights",
      .kind = GPUPLAN_OPTION_TEXT,
      .field = GPUPLAN_FIELD_NONE,
      NO_SET,
      .arg = "FORMAT",
      .help = GPUPLAN_N_("serving: weight format as loaded: auto (as the checkpoint stores them), "
                         "bf16, fp16, fp8 (--quantization fp8), int8, awq, gptq, mxfp4, nvfp4, "
                         "nf4, gguf-TYPE (gguf-Q4_K_M, ...)"),
      .default_value = "auto",
      .parse = parse_weights,
      .axis = GPUPLAN_AXIS_WEIGHTS },
    { .name = "enforce-eager",
      .kind = GPUPLAN_OPTION_CHOICE,
      .field = GPUPLAN_FIELD_BOOL,
      JOB(enforce_eager),
      NO_SET,
      .help = GPUPLAN_N_("serving: no CUDA graphs (vLLM --enforce-eager, SGLang "
                         "--disable-cuda-graph)"),
      .default_value = "no",
      .choices = yes_no_names },
    { .name = "ep",
      .kind = GPUPLAN_OPTION_COUNT,
      .field = GPUPLAN_FIELD_U32,
      JOB(ep),
      NO_SET,
      .arg = "N",
      .help = GPUPLAN_N_("expert-parallel degree for routed experts (1 = off); training: whole "
                         "experts sharded over N GPUs of a pipeline stage"),
      .default_value = "1",
      .count_min = 1,
      .count_max = GPUPLAN_JOB_MAX_DEGREE,
      .flags = GPUPLAN_OPTION_SEARCHED },
    /* The load's defaults are `vllm bench serve`'s random dataset: 1024 in, 128 out
     * (vllm/benchmarks/datasets.py RandomDataset DEFAULT_INPUT_LEN, DEFAULT_OUTPUT_LEN). */
    { .name = "input-tokens",
      .kind = GPUPLAN_OPTION_COUNT,
      .field = GPUPLAN_FIELD_U64,
      JOB(input_tokens),
      NO_SET,
      .arg = "N",
      .help = GPUPLAN_N_("serving: prompt tokens per request"),
      .default_value = "1024",
      .count_min = 1,
      .count_max = MAX_SEQ_LEN },
    { .name = "output-tokens",
      .kind = GPUPLAN_OPTION_COUNT,
      .field = GPUPLAN_FIELD_U64,
      JOB(output_tokens),
      NO_SET,
      .arg = "N",
      .help = GPUPLAN_N_("serving: generated tokens per request"),
      .default_value = "128",
      .count_min = 1,
      .count_max = MAX_SEQ_LEN },
    { .name = "concurrency",
      .kind = GPUPLAN_OPTION_COUNT,
      .field = GPUPLAN_FIELD_U64,
      JOB(concurrency),
      NO_SET,
      .arg = "N",
      .help = GPUPLAN_N_("serving: requests in flight, all replicas together"),
      .default_value = "1",
      .count_min = 1,
      .count_max = GPUPLAN_JOB_MAX_BATCH },
    { .name = "batch",
      .kind = GPUPLAN_OPTION_COUNT,
      .field = GPUPLAN_FIELD_U64,
      JOB(concurrency),
      NO_SET,
      .arg = "N",
      .help = GPUPLAN_N_("serving: the same as --concurrency"),
      .default_value = "1",
      .count_min = 1,
      .count_max = GPUPLAN_JOB_MAX_BATCH },
    { .name = "tokens",
      .kind = GPUPLAN_OPTION_COUNT,
      .field = GPUPLAN_FIELD_U64,
      JOB(tokens),
      NO_SET,
      .arg = "N",
      .help = GPUPLAN_N_("training tokens per epoch"),
      .default_doc = GPUPLAN_N_("(not given)"),
      .count_min = 1,
      .count_max = MAX_TOKENS,
      .parse = set_token_count },
    { .name = "dataset-tokens",
      .kind = GPUPLAN_OPTION_COUNT,
      .field = GPUPLAN_FIELD_U64,
      JOB(dataset_tokens),
      NO_SET,
      .arg = "N",
      .help = GPUPLAN_N_("tokens in the training dataset (one epoch; instead of --tokens)"),
      .default_doc = GPUPLAN_N_("(not given)"),
      .count_min = 1,
      .count_max = MAX_TOKENS,
      .parse = set_token_count },
    { .name = "epochs",
      .kind = GPUPLAN_OPTION_REAL,
      .field = GPUPLAN_FIELD_DOUBLE,
      JOB(epochs),
      NO_SET,
      .arg = "E",
      .help = GPUPLAN_N_("number of epochs"),
      .default_value = "1",
      .real_min = 0.0,
      .real_max = MAX_EPOCHS },
    { .name = "cloud-tier",
      .kind = GPUPLAN_OPTION_CHOICE,
      .field = GPUPLAN_FIELD_INT,
      JOB(cloud_tier),
      NO_SET,
      .help = GPUPLAN_N_("which cloud rates a cost uses: hyperscaler on demand, specialty "
                         "(neocloud) on demand, marketplace/spot, or a 1-year commitment"),
      .default_value = "specialty",
      .choices = gpuplan_cloud_tier_names },
    { .name = NULL },
};

void gpuplan_job_init(struct gpuplan_job *job)
{
    memset(job, 0, sizeof *job);
    /* Every default is the table's (a failure is a table bug the unit tests catch). */
    (void)gpuplan_options_init(gpuplan_job_options, job, NULL);
    job->gpus_per_node = 1; /* not an option of its own: --gpu ID:N sets it; no --gpu is one GPU */
}

enum gpuplan_status gpuplan_job_set(struct gpuplan_job *job,
                                    const char *name,
                                    const char *value,
                                    struct gpuplan_error *err)
{
    return gpuplan_options_set(gpuplan_job_options, job, name, value, err);
}

/*
 * Framework profiles (--stack): what each framework's code does with a knob
 * its user leaves out, with the file and version it is read from
 * (docs/stacks.md has the same table). -1 keeps gpuplan's default, which
 * is the HF Trainer + PEFT + Accelerate one. "multi_gpu" is the sharding on
 * more than one GPU when none is given (DDP otherwise).
 */
#define KEEP (-1)
struct stack_profile {
    int precision;   /* enum gpuplan_precision */
    int grad_ckpt;   /* enum gpuplan_grad_ckpt */
    int attention;   /* enum gpuplan_attention */
    int chunked_ce;  /* 0/1 */
    int compile;     /* 0 no, 1 yes (blocks + loss), 2 blocks only; fused kernels for megatron */
    int act_offload; /* 0/1 */
    int multi_gpu;   /* enum gpuplan_sharding */
    int moe_experts; /* enum gpuplan_moe_experts */
};

static const struct stack_profile stack_profiles[GPUPLAN_FRAMEWORK_COUNT] = {
    /* huggingface/transformers@00349ae87edd (5.x) src/transformers/training_args.py: bf16 = torch
     * AMP over fp32 parameters, gradient_checkpointing False, torch_compile False,
     * use_liger_kernel False; modeling_utils.py: attn_implementation "sdpa"; MoE experts: the
     * "eager" experts implementation (a loop over the experts hit) unless experts_implementation
     * is passed (docs/source/en/experts_interface.md). The job's defaults. */
    [GPUPLAN_FRAMEWORK_HF_TRAINER] = { KEEP, KEEP, KEEP, KEEP, KEEP, KEEP, KEEP, KEEP },
    /* huggingface/trl@f2cd57710 (1.10.0.dev0) trl/trainer/base_config.py: gradient_checkpointing
     * True; trl/trainer/sft_config.py: loss_type "chunked_nll" (the logits are never upcast
     * whole). */
    [GPUPLAN_FRAMEWORK_TRL] = { KEEP, GPUPLAN_CKPT_FULL, KEEP, 1, KEEP, KEEP, KEEP, KEEP },
    /* axolotl-ai-cloud/axolotl@067b021c8 (0.18.0) src/axolotl/utils/schemas/config.py:
     * gradient_checkpointing, torch_compile, activation_offloading unset (off): HF Trainer's. */
    [GPUPLAN_FRAMEWORK_AXOLOTL] = { KEEP, KEEP, KEEP, KEEP, KEEP, KEEP, KEEP, KEEP },
    /* hiyouga/LLaMA-Factory@ff6d4d12e (0.9.6.dev0) src/llamafactory/hparams/model_args.py:
     * disable_gradient_checkpointing False (checkpointing on, model/model_utils/checkpointing.py).
     */
    [GPUPLAN_FRAMEWORK_LLAMA_FACTORY] = { KEEP, GPUPLAN_CKPT_FULL, KEEP, KEEP, KEEP, KEEP, KEEP,
                                          KEEP },
    /* unslothai/unsloth (2025.x) unsloth/models/llama.py FastLlamaModel.get_peft_model:
     * use_gradient_checkpointing="unsloth" (checkpointed block inputs offloaded to host,
     * unsloth_zoo gradient_checkpointing.py); the loss is its fused, chunked cross-entropy
     * (unsloth_zoo loss_utils.py) that never holds the full fp32 logits. */
    [GPUPLAN_FRAMEWORK_UNSLOTH] = { KEEP, GPUPLAN_CKPT_FULL, KEEP, 1, KEEP, 1, KEEP, KEEP },
    /* pytorch/torchtune@bd2a0fc7c (0.7.0) torchtune/training/precision.py get_dtype and the
     * recipes' configs (dtype: bf16: pure bf16 weights, grads and AdamW states); configs' loss
     * torchtune.modules.loss.LinearCrossEntropyLoss / CEWithChunkedOutputLoss (chunked);
     * recipes/full_finetune_*.py: enable_activation_checkpointing False, compile False. */
    [GPUPLAN_FRAMEWORK_TORCHTUNE] = { GPUPLAN_PRECISION_BF16, KEEP, KEEP, 1, KEEP, KEEP, KEEP,
                                      KEEP },
    /* pytorch/torchtitan (0.2) torchtitan/config/job_config.py: ActivationCheckpoint.mode
     * "selective", parallelism.data_parallel_shard_degree -1 (FSDP2 over every rank),
     * mixed_precision_param bfloat16 with fp32 shards (bf16-mixed under FSDP), compile off;
     * torchtitan/models/moe.py GroupedExperts: use_grouped_mm True (torch._grouped_mm). */
    [GPUPLAN_FRAMEWORK_TORCHTITAN] = { KEEP, GPUPLAN_CKPT_SELECTIVE, KEEP, KEEP, KEEP, KEEP,
                                       GPUPLAN_SHARDING_FSDP, GPUPLAN_MOE_EXPERTS_GROUPED },
    /* Lightning-AI/litgpt litgpt/utils.py get_default_supported_precision(training=True):
     * "bf16-mixed" on bf16 GPUs; finetune/lora.py: no activation checkpointing on one GPU. */
    [GPUPLAN_FRAMEWORK_LITGPT] = { KEEP, KEEP, KEEP, KEEP, KEEP, KEEP, KEEP, KEEP },
    /* deepspeedai/DeepSpeed@edaa72212 (0.19.6) deepspeed/runtime/zero/config.py: stage 0 unless
     * the script's config says; bf16 there is DeepSpeed's 16-bit engine (--precision). */
    [GPUPLAN_FRAMEWORK_DEEPSPEED] = { KEEP, KEEP, KEEP, KEEP, KEEP, KEEP, KEEP, KEEP },
    /* NVIDIA/Megatron-LM megatron/training/arguments.py: Transformer Engine layers with fused
     * norms, rotary and bias-activation and TE fused attention (flash): the time model's
     * fused-kernel class; recompute off and the cross-entropy fusion off by default. MoE:
     * --moe-grouped-gemm (GroupedMLP / TEGroupedMLP), which the MoE launch scripts pass
     * (alibaba/Pai-Megatron-Patch@a098ca5 examples/qwen3/run_mcore_qwen3.sh, yanring/
     * Megatron-MoE-ModelZoo);
     * Megatron-LM's bare default is SequentialMLP, a loop (--moe-experts loop). */
    [GPUPLAN_FRAMEWORK_MEGATRON] = { KEEP, KEEP, GPUPLAN_ATTN_FLASH, KEEP, 1, KEEP, KEEP,
                                     GPUPLAN_MOE_EXPERTS_GROUPED },
};

/* The profile of out->stack over the knobs that were not given. */
static void apply_stack_profile(struct gpuplan_job *out)
{
    if ((unsigned)out->stack >= GPUPLAN_FRAMEWORK_COUNT)
        return;
    const struct stack_profile *p = &stack_profiles[out->stack];
    if (p->precision != KEEP && !out->precision_set)
        out->precision = (enum gpuplan_precision)p->precision;
    if (p->grad_ckpt != KEEP && !out->grad_ckpt_set)
        out->grad_ckpt = (enum gpuplan_grad_ckpt)p->grad_ckpt;
    if (p->attention != KEEP && !out->attention_set)
        out->attention = (enum gpuplan_attention)p->attention;
    if (p->chunked_ce != KEEP && !out->chunked_ce_set)
        out->chunked_ce = p->chunked_ce != 0;
    if (p->compile != KEEP && !out->compile_set) {
        out->compile = p->compile != 0;
        out->compile_loss = p->compile == 1;
    }
    if (p->act_offload != KEEP && !out->act_offload_set)
        out->act_offload = p->act_offload != 0;
    if (p->moe_experts != KEEP && !out->moe_experts_set)
        out->moe_experts = (enum gpuplan_moe_experts)p->moe_experts;
}

void gpuplan_job_set_stack_only(struct gpuplan_job *job, enum gpuplan_framework stack)
{
    job->stack = stack;
    /* the knobs apply_stack_profile fills, as given */
    job->precision_set = job->grad_ckpt_set = job->attention_set = true;
    job->chunked_ce_set = job->compile_set = job->act_offload_set = true;
    job->moe_experts_set = true;
}

void gpuplan_job_resolve(const struct gpuplan_job *job, struct gpuplan_job *out)
{
    *out = *job;
    if (out->method != GPUPLAN_METHOD_INFER)
        apply_stack_profile(out);
    /* PEFT's prepare_model_for_kbit_training turns gradient checkpointing on. */
    if (out->method == GPUPLAN_METHOD_QLORA && !out->grad_ckpt_set)
        out->grad_ckpt = GPUPLAN_CKPT_FULL;
    const uint64_t n_gpus = (uint64_t)out->gpus_per_node * out->nodes;
    if (!out->sharding_set) {
        const int multi = (unsigned)out->stack < GPUPLAN_FRAMEWORK_COUNT
                              ? stack_profiles[out->stack].multi_gpu
                              : KEEP;
        out->sharding = n_gpus <= 1     ? GPUPLAN_SHARDING_NONE
                        : multi != KEEP ? (enum gpuplan_sharding)multi
                                        : GPUPLAN_SHARDING_DDP;
    }
    if (out->method == GPUPLAN_METHOD_INFER) {
        /* vLLM and SGLang split a model with tensor parallelism over the GPUs of a server
         * (NVLink/xGMI) and pipeline stages across servers; what is left over runs as
         * data-parallel replicas. */
        out->sharding = GPUPLAN_SHARDING_NONE;
        if (!out->tp_set && !out->pp_set) {
            out->tp = out->gpus_per_node;
            out->pp = out->nodes;
        } else if (!out->pp_set) {
            out->pp = out->tp >= out->gpus_per_node ? out->nodes : 1;
        }
    }
    if (out->tp == 0)
        out->tp = 1;
    if (out->pp == 0)
        out->pp = 1;
    if (out->ep == 0)
        out->ep = 1;
    if (out->cp == 0 || out->method == GPUPLAN_METHOD_INFER)
        out->cp = 1;
    if (out->vpp == 0 || out->method == GPUPLAN_METHOD_INFER)
        out->vpp = 1;
}

static const char *choice_name(const char *const *names, size_t count, unsigned v)
{
    return v < count ? names[v] : "?";
}

#define N_OF(a) (sizeof(a) / sizeof((a)[0]) - 1)

const char *gpuplan_method_name(enum gpuplan_method v)
{
    return choice_name(method_names, N_OF(method_names), (unsigned)v);
}

const char *gpuplan_precision_name(enum gpuplan_precision v)
{
    return choice_name(precision_names, N_OF(precision_names), (unsigned)v);
}

const char *gpuplan_optimizer_name(enum gpuplan_optimizer v)
{
    return choice_name(optimizer_names, N_OF(optimizer_names), (unsigned)v);
}

const char *gpuplan_grad_ckpt_name(enum gpuplan_grad_ckpt v)
{
    return choice_name(ckpt_names, N_OF(ckpt_names), (unsigned)v);
}

const char *gpuplan_attention_name(enum gpuplan_attention v)
{
    return choice_name(attention_names, N_OF(attention_names), (unsigned)v);
}

const char *gpuplan_sharding_name(enum gpuplan_sharding v)
{
    return choice_name(sharding_names, N_OF(sharding_names), (unsigned)v);
}

const char *gpuplan_offload_name(enum gpuplan_offload v)
{
    return choice_name(offload_names, N_OF(offload_names), (unsigned)v);
}

const char *gpuplan_framework_name(enum gpuplan_framework v)
{
    return choice_name(framework_names, GPUPLAN_FRAMEWORK_COUNT, (unsigned)v);
}

const char *gpuplan_weights_name(enum gpuplan_dtype weights, char *out, size_t cap)
{
    static const struct {
        enum gpuplan_dtype dtype;
        const char *name;
    } names[] = {
        { GPUPLAN_DTYPE_UNKNOWN, "auto" }, { GPUPLAN_DTYPE_BF16, "bf16" },
        { GPUPLAN_DTYPE_F16, "fp16" },     { GPUPLAN_DTYPE_F32, "fp32" },
        { GPUPLAN_DTYPE_F8_E4M3, "fp8" },  { GPUPLAN_DTYPE_INT8, "int8" },
        { GPUPLAN_DTYPE_AWQ4, "awq" },     { GPUPLAN_DTYPE_GPTQ4, "gptq" },
        { GPUPLAN_DTYPE_MXFP4, "mxfp4" },  { GPUPLAN_DTYPE_NVFP4, "nvfp4" },
        { GPUPLAN_DTYPE_NF4, "nf4" },      { GPUPLAN_DTYPE_NF4_DQ, "nf4-dq" },
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (names[i].dtype == weights) {
            (void)snprintf(out, cap, "%s", names[i].name);
            return out;
        }
    }
    (void)snprintf(out, cap, "gguf-%s", gpuplan_dtype_name(weights)); /* the GGUF types */
    return out;
}

void gpuplan_job_format(const struct gpuplan_job *job,
                        const struct gpuplan_option *opt,
                        char *out,
                        size_t out_size)
{
    out[0] = '\0';
    if (strcmp(opt->name, "compile") == 0)
        (void)snprintf(out, out_size, "%s",
                       !job->compile       ? "no"
                       : job->compile_loss ? "yes"
                                           : "blocks");
    else if (strcmp(opt->name, "weights") == 0)
        (void)gpuplan_weights_name(job->weights_dtype, out, out_size);
    else if ((strcmp(opt->name, "tokens") == 0 && job->tokens == 0) ||
             (strcmp(opt->name, "dataset-tokens") == 0 && job->dataset_tokens == 0))
        return;
    else
        gpuplan_option_format(opt, job, out, out_size);
    /* 0 for "the engine's default" on an option whose range starts above 0: left out */
    if ((opt->kind == GPUPLAN_OPTION_COUNT && opt->count_min > 0 && strcmp(out, "0") == 0) ||
        (opt->kind == GPUPLAN_OPTION_REAL && opt->real_min > 0.0 && strcmp(out, "0") == 0))
        out[0] = '\0';
}
