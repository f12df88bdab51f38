/*
 * job.c - the job specification: defaults, the option table, and the one
 * function that turns an option's text into a value (gpuplan_job_set).
 *
 * The table drives CLI parsing, `--help` and JSON bodies, so every front-end
 * accepts the same names, values and ranges. Unknown option names and choice
 * values get "did you mean" suggestions by edit distance (git's help.c).
 *
 * Not here: what an option does to memory or time (estimate layer).
 */
#include "gpuplan/job.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

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
static const char *const kv_dtype_names[] = { "bf16", "fp16", "fp8", NULL };
static const char *const yes_no_names[] = { "no", "yes", NULL };
static const char *const compile_names[] = { "no", "yes", "blocks", NULL };

/* Limits: generous but finite, so products of them cannot overflow 64 bits. */
#define MAX_SEQ_LEN   (16ULL * 1024ULL * 1024ULL)
#define MAX_BATCH     (1ULL << 20)
#define MAX_DEGREE    (1ULL << 16)
#define MAX_TOKENS    (1ULL << 56)
#define MAX_LORA_RANK 65536ULL

const struct gpuplan_job_option gpuplan_job_options[] = {
    { "method", GPUPLAN_OPT_CHOICE, "full|lora|qlora|infer",
      GPUPLAN_N_("what to do with the model"), "full", method_names, 0, 0 },
    /*
     * bf16-mixed follows the stack the sharding implies: none/ddp = torch AMP
     * as HF Trainer/accelerate run it (fp32 parameters, autocast); zero* =
     * DeepSpeed bf16 (16-bit parameters, fp32 master partition); fsdp = FSDP
     * MixedPrecision (fp32 shards, 16-bit gathered units). amp-bf16 forces
     * autocast-only with any sharding (FSDP then gathers fp32 units).
     */
    { "precision", GPUPLAN_OPT_CHOICE, "bf16|bf16-mixed|fp16-mixed|fp32|fp8-mixed|amp-bf16",
      GPUPLAN_N_("how weights, gradients and optimizer states are stored: bf16-mixed = torch "
                 "AMP on none/ddp, DeepSpeed bf16 on zero*, FSDP MixedPrecision on fsdp; amp-bf16 "
                 "= fp32 parameters with autocast only, whatever the sharding"),
      "bf16-mixed", precision_names, 0, 0 },
    { "optimizer", GPUPLAN_OPT_CHOICE,
      "adamw|adamw-8bit|paged-adamw|paged-adamw-8bit|sgd|adafactor|lion",
      GPUPLAN_N_("optimizer (states for trainable parameters only)"), "adamw", optimizer_names, 0,
      0 },
    { "optim-in-bwd", GPUPLAN_OPT_CHOICE, "no|yes",
      GPUPLAN_N_("fuse the optimizer step into backward (frees gradients)"), "no", yes_no_names, 0,
      0 },
    { "grad-ckpt", GPUPLAN_OPT_CHOICE, "none|selective|full",
      GPUPLAN_N_("activation (gradient) checkpointing"), GPUPLAN_N_("none (full for qlora)"),
      ckpt_names, 0, 0 },
    { "attention", GPUPLAN_OPT_CHOICE, "eager|sdpa|flash", GPUPLAN_N_("attention implementation"),
      "sdpa", attention_names, 0, 0 },
    { "seq-len", GPUPLAN_OPT_COUNT_ARG, "N", GPUPLAN_N_("tokens per training sequence"), "2048",
      NULL, 1, MAX_SEQ_LEN },
    { "micro-batch", GPUPLAN_OPT_COUNT_ARG, "N", GPUPLAN_N_("sequences per GPU per step"), "1",
      NULL, 1, MAX_BATCH },
    { "grad-accum", GPUPLAN_OPT_COUNT_ARG, "N", GPUPLAN_N_("micro-batches per optimizer step"), "1",
      NULL, 1, MAX_BATCH },
    { "act-offload", GPUPLAN_OPT_CHOICE, "no|yes",
      GPUPLAN_N_("offload saved activations to host memory"), "no", yes_no_names, 0, 0 },
    { "chunked-ce", GPUPLAN_OPT_CHOICE, "no|yes",
      GPUPLAN_N_("chunked cross-entropy (no full fp32 logits)"), "no", yes_no_names, 0, 0 },
    { "compile", GPUPLAN_OPT_CHOICE, "no|yes|blocks",
      GPUPLAN_N_("torch.compile: yes = blocks and loss (torchtune, HF Trainer), blocks = "
                 "blocks only (torchtitan); fused kernels, fewer saved activations"),
      "no", compile_names, 0, 0 },
    /* Training-loop facts (job.h keep_outputs, base_fp32). */
    { "keep-outputs", GPUPLAN_OPT_CHOICE, "no|yes",
      GPUPLAN_N_("the loop holds the model output (logits, and each layer's k/v while HF "
                 "use_cache is on) until the next forward returns; HF Trainer does not"),
      "no", yes_no_names, 0, 0 },
    { "base-fp32", GPUPLAN_OPT_CHOICE, "no|yes",
      GPUPLAN_N_("LoRA under FSDP: the frozen base was loaded in fp32 (fp32 shards, 16-bit "
                 "gathered units)"),
      "no", yes_no_names, 0, 0 },
    { "lora-rank", GPUPLAN_OPT_COUNT_ARG, "R", GPUPLAN_N_("LoRA rank"), "8", NULL, 1,
      MAX_LORA_RANK },
    { "lora-dropout", GPUPLAN_OPT_REAL, "P",
      GPUPLAN_N_("LoRA dropout probability; above 0 every adapted linear keeps its own dropped "
                 "input and mask for backward"),
      "0", NULL, 0, 0 },
    { "lora-alpha", GPUPLAN_OPT_REAL, "A", GPUPLAN_N_("LoRA alpha (no effect on memory)"), "16",
      NULL, 0, 0 },
    { "lora-targets", GPUPLAN_OPT_TEXT, "all-linear|attn|q_proj,v_proj,...",
      GPUPLAN_N_("modules LoRA adapts (PEFT names, comma separated)"), "q_proj,v_proj", NULL, 0,
      0 },
    { "quant", GPUPLAN_OPT_CHOICE, "nf4|nf4-dq|torchao-nf4|int8",
      GPUPLAN_N_("QLoRA base weight storage"), "nf4-dq", quant_names, 0, 0 },
    { "sharding", GPUPLAN_OPT_CHOICE, "none|ddp|zero1|zero2|zero3|fsdp|fsdp-hybrid",
      GPUPLAN_N_("data-parallel sharding"), GPUPLAN_N_("none on 1 GPU, ddp on more"),
      sharding_names, 0, 0 },
    /*
     * FSDP units: HF Accelerate/Trainer's transformer-layer auto-wrap, atorch
     * and torchtitan before 2025 wrap the decoder layers and leave the
     * embedding, final norm and head in the root unit, which FSDP keeps
     * gathered from forward to backward; torchtune's custom_sharded_layers
     * ['tok_embeddings', 'output'] and later torchtitan wrap them apart.
     */
    { "fsdp-wrap", GPUPLAN_OPT_CHOICE, "layers|layers+embeddings",
      GPUPLAN_N_("FSDP units: decoder layers (embedding and head stay gathered in the root "
                 "unit), or layers plus the embedding and head as units of their own"),
      "layers", fsdp_wrap_names, 0, 0 },
    { "offload", GPUPLAN_OPT_CHOICE, "none|optimizer|params|optimizer+params|nvme",
      GPUPLAN_N_("offload model states to host RAM or NVMe"), "none", offload_names, 0, 0 },
    { "tp", GPUPLAN_OPT_COUNT_ARG, "N", GPUPLAN_N_("tensor-parallel degree"), "1", NULL, 1,
      MAX_DEGREE },
    { "pp", GPUPLAN_OPT_COUNT_ARG, "N", GPUPLAN_N_("pipeline-parallel degree"), "1", NULL, 1,
      MAX_DEGREE },
    { "gpu", GPUPLAN_OPT_TEXT, "ID[:N]",
      GPUPLAN_N_("catalog GPU id and GPUs per node (e.g. h100-sxm:8)"), GPUPLAN_N_("(none)"), NULL,
      0, 0 },
    { "nodes", GPUPLAN_OPT_COUNT_ARG, "N", GPUPLAN_N_("number of nodes"), "1", NULL, 1,
      MAX_DEGREE },
    { "context", GPUPLAN_OPT_COUNT_ARG, "N",
      GPUPLAN_N_("inference: tokens of context per sequence"), "4096", NULL, 1, MAX_SEQ_LEN },
    { "batch", GPUPLAN_OPT_COUNT_ARG, "N", GPUPLAN_N_("inference: concurrent sequences"), "1", NULL,
      1, MAX_BATCH },
    { "kv-dtype", GPUPLAN_OPT_CHOICE, "bf16|fp16|fp8",
      GPUPLAN_N_("inference: KV cache element type"), "bf16", kv_dtype_names, 0, 0 },
    { "weights", GPUPLAN_OPT_TEXT, "bf16|fp16|fp8|int8|awq|gptq|nf4|gguf-TYPE",
      GPUPLAN_N_("inference: weight format (gguf-Q4_K_M, gguf-Q8_0, ...)"), "bf16", NULL, 0, 0 },
    { "gpu-memory-utilization", GPUPLAN_OPT_REAL, "F",
      GPUPLAN_N_("inference: fraction of GPU memory the engine may use"), "0.90", NULL, 0, 0 },
    { "tokens", GPUPLAN_OPT_COUNT_ARG, "N", GPUPLAN_N_("training tokens per epoch"),
      GPUPLAN_N_("(not given)"), NULL, 1, MAX_TOKENS },
    { "dataset-tokens", GPUPLAN_OPT_COUNT_ARG, "N",
      GPUPLAN_N_("tokens in the training dataset (one epoch; instead of --tokens)"),
      GPUPLAN_N_("(not given)"), NULL, 1, MAX_TOKENS },
    { "epochs", GPUPLAN_OPT_REAL, "E", GPUPLAN_N_("number of epochs"), "1", NULL, 0, 0 },
    { NULL, GPUPLAN_OPT_FLAG, NULL, NULL, NULL, NULL, 0, 0 },
};

void gpuplan_job_init(struct gpuplan_job *job)
{
    memset(job, 0, sizeof *job);
    job->method = GPUPLAN_METHOD_FULL;
    job->precision = GPUPLAN_PRECISION_BF16_MIXED;
    job->optimizer = GPUPLAN_OPTIMIZER_ADAMW;
    job->grad_ckpt = GPUPLAN_CKPT_NONE;
    job->attention = GPUPLAN_ATTN_SDPA;
    job->seq_len = 2048;
    job->micro_batch = 1;
    job->grad_accum = 1;
    job->lora_rank = 8;
    job->lora_alpha = 16.0;
    snprintf(job->lora_targets, sizeof job->lora_targets, "%s", "q_proj,v_proj");
    job->lora_target_roles = (1ULL << GPUPLAN_ROLE_ATTN_Q) | (1ULL << GPUPLAN_ROLE_ATTN_V);
    job->quant = GPUPLAN_DTYPE_NF4_DQ;
    job->sharding = GPUPLAN_SHARDING_NONE;
    job->offload = GPUPLAN_OFFLOAD_NONE;
    job->tp = 1;
    job->pp = 1;
    job->gpus_per_node = 1;
    job->nodes = 1;
    job->context_len = 4096;
    job->batch = 1;
    job->kv_dtype = GPUPLAN_DTYPE_BF16;
    job->weights_dtype = GPUPLAN_DTYPE_BF16;
    job->gpu_memory_utilization = 0.90;
    job->epochs = 1.0;
}

void gpuplan_job_resolve(const struct gpuplan_job *job, struct gpuplan_job *out)
{
    *out = *job;
    /* PEFT's prepare_model_for_kbit_training turns gradient checkpointing on. */
    if (out->method == GPUPLAN_METHOD_QLORA && !out->grad_ckpt_set)
        out->grad_ckpt = GPUPLAN_CKPT_FULL;
    const uint64_t n_gpus = (uint64_t)out->gpus_per_node * out->nodes;
    if (!out->sharding_set)
        out->sharding = n_gpus > 1 ? GPUPLAN_SHARDING_DDP : GPUPLAN_SHARDING_NONE;
    if (out->tp == 0)
        out->tp = 1;
    if (out->pp == 0)
        out->pp = 1;
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

/* The nearest of `count` names `stride_bytes` apart (suggest_internal.h), or NULL. */
static const char *closest(const char *word,
                           const char *const *names,
                           size_t stride_bytes,
                           size_t count,
                           struct gpuplan_suggest *s)
{
    gpuplan_suggest_init(s, word);
    for (size_t i = 0; i < count; i++) {
        const char *name =
            *(const char *const *)(const void *)((const char *)names + i * stride_bytes);
        if (!name)
            break;
        gpuplan_suggest_add(s, name);
    }
    return s->n ? s->best[0].text : NULL;
}

/* Normalise an option name: '_' becomes '-', leading dashes dropped. */
static void normalise_name(const char *name, char *out, size_t out_size)
{
    while (*name == '-')
        name++;
    size_t i = 0;
    for (; name[i] && i + 1 < out_size; i++)
        out[i] = name[i] == '_' ? '-' : name[i];
    out[i] = '\0';
}

static const struct gpuplan_job_option *find_option(const char *name)
{
    for (const struct gpuplan_job_option *o = gpuplan_job_options; o->name; o++) {
        if (strcmp(o->name, name) == 0)
            return o;
    }
    return NULL;
}

static enum gpuplan_status parse_choice(const struct gpuplan_job_option *o,
                                        const char *value,
                                        unsigned *out,
                                        struct gpuplan_error *err)
{
    for (unsigned i = 0; o->choices[i]; i++) {
        if (strcasecmp(o->choices[i], value) == 0) {
            *out = i;
            return GPUPLAN_OK;
        }
    }
    gpuplan_error_set(err, GPUPLAN_ERR_USAGE, NULL, "'--%s' is '%s'; must be one of %s", o->name,
                      value, o->arg_name);
    size_t n = 0;
    while (o->choices[n])
        n++;
    struct gpuplan_suggest s;
    const char *guess = closest(value, o->choices, sizeof o->choices[0], n, &s);
    if (guess)
        gpuplan_error_hint(err, "did you mean '%s'?", guess);
    return GPUPLAN_ERR_USAGE;
}

static enum gpuplan_status parse_count(const struct gpuplan_job_option *o,
                                       const char *value,
                                       uint64_t *out,
                                       struct gpuplan_error *err)
{
    uint64_t v = 0;
    if (!gpuplan_parse_count(value, &v) || v < o->min || v > o->max) {
        gpuplan_error_set(err, GPUPLAN_ERR_USAGE, NULL,
                          "'--%s' is '%s'; must be an integer in %llu..%llu", o->name, value,
                          (unsigned long long)o->min, (unsigned long long)o->max);
        gpuplan_error_hint(err, "counts accept suffixes: 8k, 70e9, 1M");
        return GPUPLAN_ERR_USAGE;
    }
    *out = v;
    return GPUPLAN_OK;
}

static enum gpuplan_status parse_real(const struct gpuplan_job_option *o,
                                      const char *value,
                                      double lo,
                                      double hi,
                                      double *out,
                                      struct gpuplan_error *err)
{
    double v = 0.0;
    if (!gpuplan_parse_double(value, &v) || v < lo || v > hi)
        return gpuplan_error_set(err, GPUPLAN_ERR_USAGE, NULL,
                                 "'--%s' is '%s'; must be a number in %g..%g", o->name, value, lo,
                                 hi);
    *out = v;
    return GPUPLAN_OK;
}

/*
 * Module names other architectures give the same linears (what PEFT users
 * write in target_modules): BLOOM / Falcon / GPT-NeoX fused
 * query_key_value, GPT-2 c_attn, MPT Wqkv, T5 q/k/v/o and wi/wo, BLOOM /
 * GPT-NeoX dense (attention output) and dense_h_to_4h / dense_4h_to_h,
 * OPT / Phi out_proj and fc1 / fc2.
 */
static const struct {
    const char *module;
    enum gpuplan_role role;
} module_aliases[] = {
    { "query_key_value", GPUPLAN_ROLE_ATTN_QKV },
    { "c_attn", GPUPLAN_ROLE_ATTN_QKV },
    { "Wqkv", GPUPLAN_ROLE_ATTN_QKV },
    { "q", GPUPLAN_ROLE_ATTN_Q },
    { "k", GPUPLAN_ROLE_ATTN_K },
    { "v", GPUPLAN_ROLE_ATTN_V },
    { "o", GPUPLAN_ROLE_ATTN_O },
    { "dense", GPUPLAN_ROLE_ATTN_O },
    { "out_proj", GPUPLAN_ROLE_ATTN_O },
    { "wi", GPUPLAN_ROLE_MLP_UP },
    { "wo", GPUPLAN_ROLE_MLP_DOWN },
    { "dense_h_to_4h", GPUPLAN_ROLE_MLP_UP },
    { "dense_4h_to_h", GPUPLAN_ROLE_MLP_DOWN },
    { "fc1", GPUPLAN_ROLE_MLP_UP },
    { "fc2", GPUPLAN_ROLE_MLP_DOWN },
};

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

static enum gpuplan_status
parse_lora_targets(struct gpuplan_job *job, const char *value, struct gpuplan_error *err)
{
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
static enum gpuplan_status
parse_gpu(struct gpuplan_job *job, const char *value, struct gpuplan_error *err)
{
    const char *colon = strchr(value, ':');
    const size_t id_len = colon ? (size_t)(colon - value) : strlen(value);
    if (id_len == 0 || id_len >= sizeof job->gpu_id)
        return gpuplan_error_set(err, GPUPLAN_ERR_USAGE, NULL,
                                 "'--gpu' is '%s'; must be ID[:N] with an id of 1..%zu characters",
                                 value, sizeof job->gpu_id - 1);
    uint64_t count = 1;
    if (colon && (!gpuplan_parse_count(colon + 1, &count) || count < 1 || count > MAX_DEGREE))
        return gpuplan_error_set(err, GPUPLAN_ERR_USAGE, NULL,
                                 "'--gpu' count is '%s'; must be an integer in 1..%llu", colon + 1,
                                 (unsigned long long)MAX_DEGREE);
    memcpy(job->gpu_id, value, id_len);
    job->gpu_id[id_len] = '\0';
    job->gpus_per_node = (uint32_t)count;
    return GPUPLAN_OK;
}

/*
 * Serving weight formats. GGUF K-quant mixes (Q4_K_M, Q5_K_S) are modelled
 * as their base type (Q4_K, Q5_K): llama.cpp's _M variants keep some tensors
 * in Q6_K, so this underestimates those by a few percent (documented).
 */
static enum gpuplan_status
parse_weights(struct gpuplan_job *job, const char *value, struct gpuplan_error *err)
{
    enum gpuplan_dtype d = GPUPLAN_DTYPE_UNKNOWN;
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
        static const char *const plain[] = { "bf16", "fp16", "fp8",  "int8",
                                             "awq",  "gptq", "fp32", "nf4-dq" };
        for (size_t i = 0; i < sizeof plain / sizeof plain[0]; i++) {
            if (strcasecmp(value, plain[i]) == 0)
                d = gpuplan_dtype_from_name(value);
        }
    }
    if (d == GPUPLAN_DTYPE_UNKNOWN) {
        gpuplan_error_set(err, GPUPLAN_ERR_USAGE, NULL, "'--weights' is '%s'; must be one of %s",
                          value, "bf16|fp16|fp8|int8|awq|gptq|nf4|gguf-TYPE");
        gpuplan_error_hint(err, "GGUF types look like gguf-Q4_K_M, gguf-Q8_0, gguf-IQ4_XS");
        return GPUPLAN_ERR_USAGE;
    }
    job->weights_dtype = d;
    return GPUPLAN_OK;
}

static enum gpuplan_status
set_choice(struct gpuplan_job *job, const struct gpuplan_job_option *o, unsigned v)
{
    const char *n = o->name;
    if (strcmp(n, "method") == 0) {
        job->method = (enum gpuplan_method)v;
    } else if (strcmp(n, "precision") == 0) {
        job->precision = (enum gpuplan_precision)v;
    } else if (strcmp(n, "optimizer") == 0) {
        job->optimizer = (enum gpuplan_optimizer)v;
    } else if (strcmp(n, "optim-in-bwd") == 0) {
        job->optim_in_bwd = v == 1;
    } else if (strcmp(n, "grad-ckpt") == 0) {
        job->grad_ckpt = (enum gpuplan_grad_ckpt)v;
        job->grad_ckpt_set = true;
    } else if (strcmp(n, "attention") == 0) {
        job->attention = (enum gpuplan_attention)v;
    } else if (strcmp(n, "act-offload") == 0) {
        job->act_offload = v == 1;
    } else if (strcmp(n, "chunked-ce") == 0) {
        job->chunked_ce = v == 1;
    } else if (strcmp(n, "compile") == 0) {
        job->compile = v >= 1;
        job->compile_loss = v == 1;
    } else if (strcmp(n, "quant") == 0) {
        static const enum gpuplan_dtype q[] = { GPUPLAN_DTYPE_NF4, GPUPLAN_DTYPE_NF4_DQ,
                                                GPUPLAN_DTYPE_NF4_TORCHAO, GPUPLAN_DTYPE_INT8 };
        job->quant = q[v];
    } else if (strcmp(n, "sharding") == 0) {
        job->sharding = (enum gpuplan_sharding)v;
        job->sharding_set = true;
    } else if (strcmp(n, "keep-outputs") == 0) {
        job->keep_outputs = v == 1;
    } else if (strcmp(n, "base-fp32") == 0) {
        job->base_fp32 = v == 1;
    } else if (strcmp(n, "fsdp-wrap") == 0) {
        job->fsdp_embed_units = v == 1;
    } else if (strcmp(n, "offload") == 0) {
        job->offload = (enum gpuplan_offload)v;
    } else if (strcmp(n, "kv-dtype") == 0) {
        static const enum gpuplan_dtype k[] = { GPUPLAN_DTYPE_BF16, GPUPLAN_DTYPE_F16,
                                                GPUPLAN_DTYPE_F8_E4M3 };
        job->kv_dtype = k[v];
    } else {
        return GPUPLAN_ERR_INTERNAL;
    }
    return GPUPLAN_OK;
}

static enum gpuplan_status set_count(struct gpuplan_job *job, const char *n, uint64_t v)
{
    if (strcmp(n, "seq-len") == 0)
        job->seq_len = v;
    else if (strcmp(n, "micro-batch") == 0)
        job->micro_batch = v;
    else if (strcmp(n, "grad-accum") == 0)
        job->grad_accum = v;
    else if (strcmp(n, "lora-rank") == 0)
        job->lora_rank = (uint32_t)v;
    else if (strcmp(n, "tp") == 0)
        job->tp = (uint32_t)v;
    else if (strcmp(n, "pp") == 0)
        job->pp = (uint32_t)v;
    else if (strcmp(n, "nodes") == 0)
        job->nodes = (uint32_t)v;
    else if (strcmp(n, "context") == 0)
        job->context_len = v;
    else if (strcmp(n, "batch") == 0)
        job->batch = v;
    else if (strcmp(n, "tokens") == 0)
        job->tokens = v;
    else if (strcmp(n, "dataset-tokens") == 0)
        job->dataset_tokens = v;
    else
        return GPUPLAN_ERR_INTERNAL;
    return GPUPLAN_OK;
}

/* '--tokens' and '--dataset-tokens' say the same thing two ways: accept one. */
static enum gpuplan_status
check_token_count(const struct gpuplan_job *job, const char *name, struct gpuplan_error *err)
{
    const bool clash = (strcmp(name, "tokens") == 0 && job->dataset_tokens > 0) ||
                       (strcmp(name, "dataset-tokens") == 0 && job->tokens > 0);
    if (!clash)
        return GPUPLAN_OK;
    gpuplan_error_set(err, GPUPLAN_ERR_USAGE, NULL,
                      "'--tokens' and '--dataset-tokens' both given; they set the same count");
    gpuplan_error_hint(err, "give one: the tokens of one epoch (times --epochs)");
    return GPUPLAN_ERR_USAGE;
}

static enum gpuplan_status unknown_option(const char *name, struct gpuplan_error *err)
{
    gpuplan_error_set(err, GPUPLAN_ERR_USAGE, NULL, "unknown option '--%s'", name);
    struct gpuplan_suggest s;
    const char *guess = closest(name, &gpuplan_job_options[0].name, sizeof gpuplan_job_options[0],
                                sizeof gpuplan_job_options / sizeof gpuplan_job_options[0], &s);
    if (guess)
        gpuplan_error_hint(err, "did you mean '--%s'?", guess);
    return GPUPLAN_ERR_USAGE;
}

enum gpuplan_status gpuplan_job_set(struct gpuplan_job *job,
                                    const char *name,
                                    const char *value,
                                    struct gpuplan_error *err)
{
    char key[64];
    if (!name || !value)
        return gpuplan_error_set(err, GPUPLAN_ERR_USAGE, NULL,
                                 "option name and value are required");
    normalise_name(name, key, sizeof key);
    const struct gpuplan_job_option *o = find_option(key);
    if (!o)
        return unknown_option(key, err);
    enum gpuplan_status st = GPUPLAN_OK;
    switch (o->type) {
    case GPUPLAN_OPT_CHOICE: {
        unsigned v = 0;
        st = parse_choice(o, value, &v, err);
        if (st == GPUPLAN_OK)
            st = set_choice(job, o, v);
        break;
    }
    case GPUPLAN_OPT_COUNT_ARG: {
        uint64_t v = 0;
        st = parse_count(o, value, &v, err);
        if (st == GPUPLAN_OK)
            st = check_token_count(job, o->name, err);
        if (st == GPUPLAN_OK)
            st = set_count(job, o->name, v);
        break;
    }
    case GPUPLAN_OPT_REAL:
        if (strcmp(o->name, "lora-alpha") == 0)
            st = parse_real(o, value, 0.0, 1e6, &job->lora_alpha, err);
        else if (strcmp(o->name, "lora-dropout") == 0)
            st = parse_real(o, value, 0.0, 0.99, &job->lora_dropout, err);
        else if (strcmp(o->name, "gpu-memory-utilization") == 0)
            st = parse_real(o, value, 0.05, 1.0, &job->gpu_memory_utilization, err);
        else if (strcmp(o->name, "epochs") == 0)
            st = parse_real(o, value, 0.0, 1e6, &job->epochs, err);
        else
            st = GPUPLAN_ERR_INTERNAL;
        break;
    case GPUPLAN_OPT_TEXT:
        if (strcmp(o->name, "lora-targets") == 0)
            st = parse_lora_targets(job, value, err);
        else if (strcmp(o->name, "gpu") == 0)
            st = parse_gpu(job, value, err);
        else if (strcmp(o->name, "weights") == 0)
            st = parse_weights(job, value, err);
        else
            st = GPUPLAN_ERR_INTERNAL;
        break;
    case GPUPLAN_OPT_FLAG:
        st = GPUPLAN_ERR_INTERNAL;
        break;
    }
    if (st == GPUPLAN_ERR_INTERNAL)
        return gpuplan_error_set(err, GPUPLAN_ERR_INTERNAL, NULL, "option '--%s' has no setter",
                                 o->name);
    return st;
}
