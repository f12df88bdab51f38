/*
 * hf_config.c - Hugging Face config.json -> exact tensor inventory.
 *
 * Reads a transformers config.json (through the one JSON reader), fills
 * `struct gpuplan_arch` and adds one tensor group per tensor kind per layer,
 * with the PyTorch shape each modeling_<family>.py creates ([out, in] for
 * nn.Linear; GPT-2's Conv1D stores [in, out] and is recorded as stored).
 * Routed experts are one group per layer and role with n_tensors = experts.
 * Parameters are counted as the checkpoint stores them: tied embeddings
 * once, buffers (rotary inv_freq, causal masks) never.
 *
 * Not here: file reading (model_load.c), safetensors/GGUF headers, memory.
 *
 * Per-family tensor lists and their sources (transformers modeling code) are
 * in docs/internals/hf_config.md; the fixture counts they reproduce are in
 * tests/fixtures/README.md.
 */
#include <stdio.h>
#include <string.h>

#include "gpuplan/model.h"
#include "gpuplan/units.h"
#include "util/json_internal.h"

/* Hard limits: far above any published model, low enough that no product overflows. */
#define HF_MAX_WIDTH         (1ULL << 24) /* hidden, intermediate, vocab, heads, ranks */
#define HF_MAX_LAYERS        4096ULL      /* blocks per stack (405B has 126) */
#define HF_MAX_EXPERTS       65536ULL     /* routed experts per MoE layer */
#define HF_MAX_TENSOR_PARAMS (1ULL << 40) /* elements of one tensor */
#define HF_MAX_MODEL_PARAMS  (1ULL << 50) /* whole model */

enum family {
    FAM_LLAMA,
    FAM_MISTRAL,
    FAM_MIXTRAL,
    FAM_QWEN2,
    FAM_QWEN2_MOE,
    FAM_QWEN3,
    FAM_QWEN3_MOE,
    FAM_GEMMA,
    FAM_GEMMA2,
    FAM_GEMMA3,
    FAM_PHI3,
    FAM_DEEPSEEK_V2,
    FAM_DEEPSEEK_V3,
    FAM_GPT2,
    FAM_GPT_NEOX,
    FAM_FALCON,
    FAM_BLOOM,
    FAM_MPT,
    FAM_T5,
};

/*
 * model_type -> family, with the transformers default of tie_word_embeddings
 * for that family's config class (used when the key is absent).
 */
static const struct {
    const char *model_type;
    enum family family;
    bool tied_default;
} family_table[] = {
    { "llama", FAM_LLAMA, false },
    { "mistral", FAM_MISTRAL, false },
    { "mixtral", FAM_MIXTRAL, false },
    { "qwen2", FAM_QWEN2, false },
    { "qwen2_moe", FAM_QWEN2_MOE, false },
    { "qwen3", FAM_QWEN3, false },
    { "qwen3_moe", FAM_QWEN3_MOE, false },
    { "gemma", FAM_GEMMA, true },
    { "gemma2", FAM_GEMMA2, true },
    { "gemma3", FAM_GEMMA3, true },
    { "gemma3_text", FAM_GEMMA3, true },
    { "phi3", FAM_PHI3, false },
    { "deepseek_v2", FAM_DEEPSEEK_V2, false },
    { "deepseek_v3", FAM_DEEPSEEK_V3, false },
    { "gpt2", FAM_GPT2, true },
    { "gpt_neox", FAM_GPT_NEOX, false },
    { "falcon", FAM_FALCON, true },
    { "bloom", FAM_BLOOM, true },
    { "mpt", FAM_MPT, true },
    { "t5", FAM_T5, true },
    { "mt5", FAM_T5, false }, /* mT5: the T5 v1.1 block with a 250k vocabulary, untied head */
};
#define N_FAMILIES (sizeof family_table / sizeof family_table[0])

enum attn_kind {
    ATTN_SPLIT, /* q_proj, k_proj, v_proj, o_proj */
    ATTN_FUSED, /* one qkv matrix of (heads + 2 kv_heads) * head_dim rows, then o */
    ATTN_MLA,   /* DeepSeek multi-head latent attention */
};

enum mlp_kind {
    MLP_GATED,         /* gate_proj, up_proj, down_proj (SwiGLU / GeGLU) */
    MLP_FUSED_GATE_UP, /* phi3 gate_up_proj [2I, H], down_proj */
    MLP_PLAIN,         /* up [I, H], down [H, I] (GELU MLP) */
};

/* Everything the emitter needs, normalised across families. */
struct hf_spec {
    enum family family;
    uint64_t vocab, hidden, n_layers, n_heads, n_kv_heads, head_dim, inter;
    uint64_t n_positions; /* learned absolute positions (GPT-2), 0 = none */
    uint64_t max_positions, sliding_window;
    bool tied, emb_norm; /* emb_norm: bloom word_embeddings_layernorm */
    enum attn_kind attn;
    bool qkv_bias, o_bias, qk_norm, conv1d;
    enum mlp_kind mlp;
    bool mlp_bias;
    uint32_t n_block_norms; /* norms of width hidden in each block */
    bool norm_bias;         /* LayerNorm (weight + bias) rather than RMSNorm */
    /* MLA */
    uint64_t q_lora, kv_lora, qk_nope, qk_rope, v_head;
    /* MoE */
    uint64_t n_experts, top_k, moe_inter, shared_inter, n_shared;
    bool shared_gate, router_bias;
    uint64_t first_dense, moe_freq, sparse_step;
    const json_t *mlp_only_layers; /* validated array of layer indices, or NULL */
    /* T5 */
    uint64_t n_enc_layers, n_buckets;
};

/* One config object being read: errors name the file and the JSON path. */
struct cfg {
    const json_t *obj;
    const char *path; /* "$" or "$.text_config" */
    const char *where;
    struct gpuplan_error *err;
};

struct hf_ctx {
    struct gpuplan_model *model;
    const char *where;
    struct gpuplan_error *err;
    enum gpuplan_dtype dtype;        /* torch_dtype */
    enum gpuplan_dtype linear_dtype; /* block linears: dtype, or fp8 when quantised */
    uint64_t total_params;
};

static bool has_key(const json_t *obj, const char *key)
{
    const json_t *v = json_object_get(obj, key);
    return v && !json_is_null(v);
}

static enum gpuplan_status
field_fail(const struct cfg *r, enum gpuplan_status code, const char *key)
{
    if (!r->err)
        return code;
    r->err->code = code;
    (void)snprintf(r->err->where, sizeof r->err->where, "%s:%s.%s", r->where, r->path, key);
    return code;
}

/*
 * Read a size field (key, or its alias `alt`). Missing: `def` unless
 * `required`. Present: must be an integer in [min, max]; numbers above max
 * (1e30) are too_large, zero or below min is invalid_config.
 */
static enum gpuplan_status get_dim(const struct cfg *r,
                                   const char *key,
                                   const char *alt,
                                   bool required,
                                   uint64_t def,
                                   uint64_t min,
                                   uint64_t max,
                                   uint64_t *out)
{
    const char *used = key;
    if (alt && !has_key(r->obj, key) && has_key(r->obj, alt))
        used = alt;
    const json_t *v = json_object_get(r->obj, used);
    if (!v || json_is_null(v)) {
        if (required) {
            enum gpuplan_status st =
                gpuplan_json_get_u64(r->obj, used, r->where, r->path, true, out, r->err);
            gpuplan_error_hint(r->err, "add '%s' (a positive integer) to the config", key);
            return st;
        }
        *out = def;
        return GPUPLAN_OK;
    }
    if (json_is_number(v) && json_number_value(v) > (double)max) {
        gpuplan_error_set(r->err, GPUPLAN_ERR_TOO_LARGE, NULL,
                          "'%s' is %g in '%s'; must be <= %llu", used, json_number_value(v),
                          r->where, (unsigned long long)max);
        return field_fail(r, GPUPLAN_ERR_TOO_LARGE, used);
    }
    uint64_t value = 0;
    enum gpuplan_status st =
        gpuplan_json_get_u64(r->obj, used, r->where, r->path, true, &value, r->err);
    if (st != GPUPLAN_OK)
        return st;
    if (value < min) {
        gpuplan_error_set(r->err, GPUPLAN_ERR_INVALID_CONFIG, NULL,
                          "'%s' is %llu in '%s'; must be >= %llu", used, (unsigned long long)value,
                          r->where, (unsigned long long)min);
        return field_fail(r, GPUPLAN_ERR_INVALID_CONFIG, used);
    }
    if (value > max) {
        gpuplan_error_set(r->err, GPUPLAN_ERR_TOO_LARGE, NULL,
                          "'%s' is %llu in '%s'; must be <= %llu", used, (unsigned long long)value,
                          r->where, (unsigned long long)max);
        return field_fail(r, GPUPLAN_ERR_TOO_LARGE, used);
    }
    *out = value;
    return GPUPLAN_OK;
}

static enum gpuplan_status get_flag(const struct cfg *r, const char *key, bool def, bool *out)
{
    *out = def;
    return gpuplan_json_get_bool(r->obj, key, r->where, r->path, false, out, r->err);
}

/* String field into out[size]; missing leaves "" (or the default). */
static enum gpuplan_status get_text(const struct cfg *r, const char *key, char *out, size_t size)
{
    return gpuplan_json_get_string(r->obj, key, r->where, r->path, false, out, size, r->err);
}

/*
 * head_dim: the config's value, else the family default (`def`, 0 = none),
 * else hidden / heads, which must divide exactly.
 */
static enum gpuplan_status read_head_dim(const struct cfg *r, struct hf_spec *s, uint64_t def)
{
    if (has_key(r->obj, "head_dim") || def > 0)
        return get_dim(r, "head_dim", NULL, false, def, 1, HF_MAX_WIDTH, &s->head_dim);
    if (s->hidden % s->n_heads != 0) {
        gpuplan_error_set(
            r->err, GPUPLAN_ERR_INVALID_CONFIG, NULL,
            "'hidden_size' %llu is not divisible by 'num_attention_heads' %llu in '%s'",
            (unsigned long long)s->hidden, (unsigned long long)s->n_heads, r->where);
        field_fail(r, GPUPLAN_ERR_INVALID_CONFIG, "hidden_size");
        gpuplan_error_hint(r->err, "set 'head_dim', or make 'hidden_size' a multiple of the heads");
        return GPUPLAN_ERR_INVALID_CONFIG;
    }
    s->head_dim = s->hidden / s->n_heads;
    return GPUPLAN_OK;
}

static enum gpuplan_status
check_kv_heads(const struct cfg *r, const struct hf_spec *s, const char *key)
{
    if (s->n_kv_heads <= s->n_heads && s->n_heads % s->n_kv_heads == 0)
        return GPUPLAN_OK;
    gpuplan_error_set(r->err, GPUPLAN_ERR_INVALID_CONFIG, NULL,
                      "'%s' %llu does not divide 'num_attention_heads' %llu in '%s'", key,
                      (unsigned long long)s->n_kv_heads, (unsigned long long)s->n_heads, r->where);
    field_fail(r, GPUPLAN_ERR_INVALID_CONFIG, key);
    gpuplan_error_hint(r->err, "grouped-query attention needs heads = k * kv_heads");
    return GPUPLAN_ERR_INVALID_CONFIG;
}

/* Optional window: lenient, because it never changes a tensor shape. */
static void read_sliding_window(const struct cfg *r, struct hf_spec *s)
{
    uint64_t window = 0;
    const json_t *use = json_object_get(r->obj, "use_sliding_window");
    if (json_is_false(use))
        return;
    if (gpuplan_json_as_u64(json_object_get(r->obj, "sliding_window"), &window))
        s->sliding_window = window;
}

/*
 * The llama-shaped core shared by llama, mistral, mixtral, qwen*, gemma*,
 * phi3: sizes, GQA heads and head_dim (transformers *Config field names).
 */
static enum gpuplan_status read_llama_core(const struct cfg *r,
                                           struct hf_spec *s,
                                           uint64_t head_dim_default,
                                           bool inter_required)
{
    enum gpuplan_status st;
    if ((st = get_dim(r, "vocab_size", NULL, true, 0, 1, HF_MAX_WIDTH, &s->vocab)) ||
        (st = get_dim(r, "hidden_size", NULL, true, 0, 1, HF_MAX_WIDTH, &s->hidden)) ||
        (st = get_dim(r, "num_hidden_layers", NULL, true, 0, 1, HF_MAX_LAYERS, &s->n_layers)) ||
        (st = get_dim(r, "num_attention_heads", NULL, true, 0, 1, HF_MAX_WIDTH, &s->n_heads)))
        return st;
    /* transformers: num_key_value_heads None -> num_attention_heads (plain MHA). */
    if ((st = get_dim(r, "num_key_value_heads", NULL, false, s->n_heads, 1, HF_MAX_WIDTH,
                      &s->n_kv_heads)) ||
        (st = check_kv_heads(r, s, "num_key_value_heads")) ||
        (st = read_head_dim(r, s, head_dim_default)) ||
        (st = get_dim(r, "intermediate_size", NULL, inter_required, 0, 1, HF_MAX_WIDTH,
                      &s->inter)) ||
        (st = get_dim(r, "max_position_embeddings", NULL, false, 0, 0, UINT64_MAX >> 1,
                      &s->max_positions)))
        return st;
    read_sliding_window(r, s);
    s->attn = ATTN_SPLIT;
    s->mlp = MLP_GATED;
    s->n_block_norms = 2; /* input_layernorm, post_attention_layernorm */
    return GPUPLAN_OK;
}

/* Check `top_k` against `n_experts` with the config's own key names. */
static enum gpuplan_status
check_top_k(const struct cfg *r, const struct hf_spec *s, const char *key)
{
    if (s->n_experts == 0 || s->top_k <= s->n_experts)
        return GPUPLAN_OK;
    gpuplan_error_set(r->err, GPUPLAN_ERR_INVALID_CONFIG, NULL,
                      "'%s' is %llu in '%s'; must be 1..%llu", key, (unsigned long long)s->top_k,
                      r->where, (unsigned long long)s->n_experts);
    return field_fail(r, GPUPLAN_ERR_INVALID_CONFIG, key);
}

/* qwen2_moe / qwen3_moe: mlp_only_layers must be an array of layer indices. */
static enum gpuplan_status read_mlp_only_layers(const struct cfg *r, struct hf_spec *s)
{
    const json_t *list = json_object_get(r->obj, "mlp_only_layers");
    if (!list || json_is_null(list))
        return GPUPLAN_OK;
    size_t i;
    const json_t *item;
    bool ok = json_is_array(list);
    if (ok) {
        json_array_foreach(list, i, item)
        {
            uint64_t layer = 0;
            if (!gpuplan_json_as_u64(item, &layer))
                ok = false;
        }
    }
    if (!ok) {
        gpuplan_error_set(r->err, GPUPLAN_ERR_INVALID_CONFIG, NULL,
                          "'mlp_only_layers' must be an array of layer indices in '%s'", r->where);
        return field_fail(r, GPUPLAN_ERR_INVALID_CONFIG, "mlp_only_layers");
    }
    s->mlp_only_layers = list;
    return GPUPLAN_OK;
}

/* The head_dim a family's config class defaults to when the config omits it (0: hidden/heads). */
static uint64_t llama_head_dim_default(enum family family)
{
    switch (family) {
    case FAM_QWEN3:
    case FAM_QWEN3_MOE:
        return 128; /* Qwen3Config / Qwen3MoeConfig head_dim=128 */
    case FAM_GEMMA:
    case FAM_GEMMA2:
    case FAM_GEMMA3:
        return 256; /* GemmaConfig, Gemma2Config, Gemma3TextConfig head_dim=256 */
    default:
        return 0;
    }
}

/*
 * Gemma3TextConfig defaults (vocab 262208, hidden 2304, intermediate 9216,
 * 26 layers, 8 heads, 4 kv heads): the multimodal checkpoints' text_config
 * omits the fields that equal them.
 */
static enum gpuplan_status read_gemma3_core(const struct cfg *r, struct hf_spec *s)
{
    enum gpuplan_status st;
    if ((st = get_dim(r, "vocab_size", NULL, false, 262208, 1, HF_MAX_WIDTH, &s->vocab)) ||
        (st = get_dim(r, "hidden_size", NULL, false, 2304, 1, HF_MAX_WIDTH, &s->hidden)) ||
        (st = get_dim(r, "num_hidden_layers", NULL, false, 26, 1, HF_MAX_LAYERS, &s->n_layers)) ||
        (st = get_dim(r, "num_attention_heads", NULL, false, 8, 1, HF_MAX_WIDTH, &s->n_heads)) ||
        (st = get_dim(r, "num_key_value_heads", NULL, false, 4, 1, HF_MAX_WIDTH, &s->n_kv_heads)) ||
        (st = check_kv_heads(r, s, "num_key_value_heads")) ||
        (st = read_head_dim(r, s, llama_head_dim_default(s->family))) ||
        (st = get_dim(r, "intermediate_size", NULL, false, 9216, 1, HF_MAX_WIDTH, &s->inter)) ||
        (st = get_dim(r, "max_position_embeddings", NULL, false, 131072, 0, UINT64_MAX >> 1,
                      &s->max_positions)))
        return st;
    read_sliding_window(r, s);
    s->attn = ATTN_SPLIT;
    s->mlp = MLP_GATED;
    return GPUPLAN_OK;
}

/* The family's biases, norms and fused projections (its Attention and MLP modules). */
static enum gpuplan_status read_llama_layout(const struct cfg *r, struct hf_spec *s)
{
    enum gpuplan_status st;
    bool attention_bias = false, mlp_bias = false;
    if ((st = get_flag(r, "attention_bias", false, &attention_bias)) ||
        (st = get_flag(r, "mlp_bias", false, &mlp_bias)))
        return st;
    switch (s->family) {
    case FAM_LLAMA: /* LlamaAttention: bias=attention_bias on q,k,v,o; LlamaMLP: bias=mlp_bias */
        s->qkv_bias = s->o_bias = attention_bias;
        s->mlp_bias = mlp_bias;
        break;
    case FAM_QWEN2:
    case FAM_QWEN2_MOE: /* Qwen2Attention: q/k/v bias=True, o_proj bias=False */
        s->qkv_bias = true;
        break;
    case FAM_QWEN3:
    case FAM_QWEN3_MOE: /* Qwen3Attention: bias=attention_bias; q_norm, k_norm over head_dim */
        s->qkv_bias = s->o_bias = attention_bias;
        s->qk_norm = true;
        break;
    case FAM_GEMMA:
        s->qkv_bias = s->o_bias = attention_bias;
        break;
    case FAM_GEMMA2: /* + pre_feedforward_layernorm, post_feedforward_layernorm */
        s->qkv_bias = s->o_bias = attention_bias;
        s->n_block_norms = 4;
        break;
    case FAM_GEMMA3: /* gemma2's four norms + q_norm, k_norm */
        s->qkv_bias = s->o_bias = attention_bias;
        s->n_block_norms = 4;
        s->qk_norm = true;
        break;
    case FAM_PHI3: /* Phi3Attention qkv_proj and Phi3MLP gate_up_proj, no biases */
        s->attn = ATTN_FUSED;
        s->mlp = MLP_FUSED_GATE_UP;
        break;
    default: /* mistral, mixtral: no biases */
        break;
    }
    return GPUPLAN_OK;
}

/* Mixtral's and Qwen-MoE's experts (their config classes' defaults). */
static enum gpuplan_status read_llama_experts(const struct cfg *r, struct hf_spec *s)
{
    enum gpuplan_status st;
    if (s->family == FAM_MIXTRAL) {
        /* MixtralConfig: num_local_experts=8, num_experts_per_tok=2; experts are w1/w3/w2 of width
         * intermediate_size */
        if ((st = get_dim(r, "num_local_experts", NULL, false, 8, 1, HF_MAX_EXPERTS,
                          &s->n_experts)) ||
            (st =
                 get_dim(r, "num_experts_per_tok", NULL, false, 2, 1, HF_MAX_EXPERTS, &s->top_k)) ||
            (st = check_top_k(r, s, "num_experts_per_tok")))
            return st;
        s->moe_inter = s->inter;
    } else if (s->family == FAM_QWEN2_MOE || s->family == FAM_QWEN3_MOE) {
        /* Qwen2MoeConfig: 60 experts, top 4, width 1408, shared 5632; Qwen3MoeConfig: 128, 8, 768
         */
        const bool is_q2 = s->family == FAM_QWEN2_MOE;
        if ((st = get_dim(r, "num_experts", NULL, false, is_q2 ? 60 : 128, 0, HF_MAX_EXPERTS,
                          &s->n_experts)) ||
            (st = get_dim(r, "num_experts_per_tok", NULL, false, is_q2 ? 4 : 8, 1, HF_MAX_EXPERTS,
                          &s->top_k)) ||
            (st = check_top_k(r, s, "num_experts_per_tok")) ||
            (st = get_dim(r, "moe_intermediate_size", NULL, false, is_q2 ? 1408 : 768, 1,
                          HF_MAX_WIDTH, &s->moe_inter)) ||
            (st = get_dim(r, "decoder_sparse_step", NULL, false, 1, 1, HF_MAX_LAYERS,
                          &s->sparse_step)) ||
            (st = read_mlp_only_layers(r, s)))
            return st;
        if (is_q2) {
            if ((st = get_dim(r, "shared_expert_intermediate_size", NULL, false, 5632, 0,
                              HF_MAX_WIDTH, &s->shared_inter)))
                return st;
            s->n_shared = s->shared_inter > 0 ? 1 : 0;
            s->shared_gate = s->shared_inter > 0;
        }
        if (s->inter == 0) /* dense (mlp_only) layers: Qwen2MoeConfig 5632, Qwen3MoeConfig 6144 */
            s->inter = is_q2 ? 5632 : 6144;
    }
    return GPUPLAN_OK;
}

/*
 * llama, mistral, mixtral, qwen2, qwen2_moe, qwen3, qwen3_moe, gemma, gemma2,
 * gemma3, phi3. Defaults are the transformers config classes' __init__ ones.
 */
static enum gpuplan_status read_llama_family(const struct cfg *r, struct hf_spec *s)
{
    enum gpuplan_status st;
    if (s->family == FAM_GEMMA3) {
        st = read_gemma3_core(r, s);
    } else {
        const bool inter_required = s->family != FAM_QWEN2_MOE && s->family != FAM_QWEN3_MOE;
        st = read_llama_core(r, s, llama_head_dim_default(s->family), inter_required);
    }
    if (st == GPUPLAN_OK)
        st = read_llama_layout(r, s);
    if (st == GPUPLAN_OK)
        st = read_llama_experts(r, s);
    return st;
}

/* DeepSeek-V2/V3 (remote-code and transformers DeepseekV3): MLA and MoE. */
static enum gpuplan_status read_deepseek(const struct cfg *r, struct hf_spec *s)
{
    enum gpuplan_status st;
    bool attention_bias = false;
    char topk_method[32] = "";
    if ((st = read_llama_core(r, s, 0, true)) ||
        (st = get_dim(r, "q_lora_rank", NULL, false, 0, 1, HF_MAX_WIDTH, &s->q_lora)) ||
        (st = get_dim(r, "kv_lora_rank", NULL, true, 0, 1, HF_MAX_WIDTH, &s->kv_lora)) ||
        (st = get_dim(r, "qk_nope_head_dim", NULL, true, 0, 1, HF_MAX_WIDTH, &s->qk_nope)) ||
        (st = get_dim(r, "qk_rope_head_dim", NULL, true, 0, 1, HF_MAX_WIDTH, &s->qk_rope)) ||
        (st = get_dim(r, "v_head_dim", NULL, true, 0, 1, HF_MAX_WIDTH, &s->v_head)) ||
        (st = get_flag(r, "attention_bias", false, &attention_bias)) ||
        (st = get_text(r, "topk_method", topk_method, sizeof topk_method)))
        return st;
    s->attn = ATTN_MLA;
    s->qkv_bias = s->o_bias = attention_bias;
    s->head_dim = s->qk_nope + s->qk_rope; /* per-head q/k width */
    /* n_routed_experts null -> a dense model (DeepseekV2MLP in every layer). */
    if (!has_key(r->obj, "n_routed_experts"))
        return GPUPLAN_OK;
    if ((st = get_dim(r, "n_routed_experts", NULL, true, 0, 1, HF_MAX_EXPERTS, &s->n_experts)) ||
        (st = get_dim(r, "num_experts_per_tok", NULL, true, 0, 1, HF_MAX_EXPERTS, &s->top_k)) ||
        (st = check_top_k(r, s, "num_experts_per_tok")) ||
        (st = get_dim(r, "moe_intermediate_size", NULL, true, 0, 1, HF_MAX_WIDTH, &s->moe_inter)) ||
        (st = get_dim(r, "n_shared_experts", NULL, false, 0, 0, HF_MAX_EXPERTS, &s->n_shared)) ||
        (st = get_dim(r, "first_k_dense_replace", NULL, false, 0, 0, HF_MAX_LAYERS,
                      &s->first_dense)) ||
        (st = get_dim(r, "moe_layer_freq", NULL, false, 1, 1, HF_MAX_LAYERS, &s->moe_freq)))
        return st;
    /* DeepseekV3MoE: shared_experts is one MLP of width moe_intermediate_size * n_shared_experts.
     */
    s->shared_inter = s->moe_inter * s->n_shared;
    /*
     * MoEGate.e_score_correction_bias [n_routed_experts] exists with
     * topk_method "noaux_tc" (V3's default); the fixture README's
     * 671,026,419,200 includes it (58 MoE layers x 256).
     */
    s->router_bias = s->family == FAM_DEEPSEEK_V3 || strcmp(topk_method, "noaux_tc") == 0;
    return GPUPLAN_OK;
}

/* GPT-2: Conv1D weights [in, out], biases everywhere, learned positions. */
static enum gpuplan_status read_gpt2(const struct cfg *r, struct hf_spec *s)
{
    enum gpuplan_status st;
    /* GPT2Config defaults: vocab 50257, n_positions 1024; n_inner None -> 4 * n_embd. */
    if ((st = get_dim(r, "vocab_size", NULL, false, 50257, 1, HF_MAX_WIDTH, &s->vocab)) ||
        (st = get_dim(r, "n_embd", "hidden_size", true, 0, 1, HF_MAX_WIDTH, &s->hidden)) ||
        (st =
             get_dim(r, "n_layer", "num_hidden_layers", true, 0, 1, HF_MAX_LAYERS, &s->n_layers)) ||
        (st = get_dim(r, "n_head", "num_attention_heads", true, 0, 1, HF_MAX_WIDTH, &s->n_heads)) ||
        (st = get_dim(r, "n_positions", NULL, false, 1024, 1, HF_MAX_WIDTH, &s->n_positions)) ||
        (st = get_dim(r, "n_inner", NULL, false, 4 * s->hidden, 1, HF_MAX_WIDTH, &s->inter)))
        return st;
    if (s->hidden % s->n_heads != 0) {
        gpuplan_error_set(r->err, GPUPLAN_ERR_INVALID_CONFIG, NULL,
                          "'n_embd' %llu is not divisible by 'n_head' %llu in '%s'",
                          (unsigned long long)s->hidden, (unsigned long long)s->n_heads, r->where);
        return field_fail(r, GPUPLAN_ERR_INVALID_CONFIG, "n_embd");
    }
    s->head_dim = s->hidden / s->n_heads;
    s->n_kv_heads = s->n_heads;
    s->max_positions = s->n_positions;
    s->attn = ATTN_FUSED;
    s->conv1d = true;
    s->qkv_bias = s->o_bias = s->mlp_bias = true;
    s->mlp = MLP_PLAIN;
    s->n_block_norms = 2; /* ln_1, ln_2 */
    s->norm_bias = true;
    return GPUPLAN_OK;
}

/* GPT-NeoX: fused query_key_value with bias, LayerNorms, untied embed_out. */
static enum gpuplan_status read_gpt_neox(const struct cfg *r, struct hf_spec *s)
{
    enum gpuplan_status st;
    bool attention_bias = true; /* GPTNeoXConfig attention_bias=True */
    if ((st = get_dim(r, "vocab_size", NULL, true, 0, 1, HF_MAX_WIDTH, &s->vocab)) ||
        (st = get_dim(r, "hidden_size", NULL, true, 0, 1, HF_MAX_WIDTH, &s->hidden)) ||
        (st = get_dim(r, "num_hidden_layers", NULL, true, 0, 1, HF_MAX_LAYERS, &s->n_layers)) ||
        (st = get_dim(r, "num_attention_heads", NULL, true, 0, 1, HF_MAX_WIDTH, &s->n_heads)) ||
        (st = read_head_dim(r, s, 0)) ||
        (st = get_dim(r, "intermediate_size", NULL, true, 0, 1, HF_MAX_WIDTH, &s->inter)) ||
        (st = get_dim(r, "max_position_embeddings", NULL, false, 0, 0, UINT64_MAX >> 1,
                      &s->max_positions)) ||
        (st = get_flag(r, "attention_bias", true, &attention_bias)))
        return st;
    s->n_kv_heads = s->n_heads;
    s->attn = ATTN_FUSED;
    s->qkv_bias = s->o_bias = attention_bias;
    s->mlp = MLP_PLAIN;
    s->mlp_bias = true;   /* dense_h_to_4h, dense_4h_to_h */
    s->n_block_norms = 2; /* input_layernorm, post_attention_layernorm */
    s->norm_bias = true;
    return GPUPLAN_OK;
}

/* Falcon: multi-query or grouped fused qkv; parallel attention; tied head. */
static enum gpuplan_status read_falcon(const struct cfg *r, struct hf_spec *s)
{
    enum gpuplan_status st;
    bool new_arch = false, multi_query = true, parallel_attn = true, bias = false;
    uint64_t n_ln = 2;
    if ((st = get_dim(r, "vocab_size", NULL, true, 0, 1, HF_MAX_WIDTH, &s->vocab)) ||
        (st = get_dim(r, "hidden_size", NULL, true, 0, 1, HF_MAX_WIDTH, &s->hidden)) ||
        (st =
             get_dim(r, "num_hidden_layers", "n_layer", true, 0, 1, HF_MAX_LAYERS, &s->n_layers)) ||
        (st = get_dim(r, "num_attention_heads", "n_head", true, 0, 1, HF_MAX_WIDTH, &s->n_heads)) ||
        (st = read_head_dim(r, s, 0)) ||
        (st = get_flag(r, "new_decoder_architecture", false, &new_arch)) ||
        (st = get_flag(r, "multi_query", true, &multi_query)) ||
        (st = get_flag(r, "parallel_attn", true, &parallel_attn)) ||
        (st = get_flag(r, "bias", false, &bias)) ||
        (st = get_dim(r, "ffn_hidden_size", NULL, false, 4 * s->hidden, 1, HF_MAX_WIDTH,
                      &s->inter)) ||
        (st = get_dim(r, "num_ln_in_parallel_attn", NULL, false, 2, 1, 2, &n_ln)) ||
        (st = get_dim(r, "max_position_embeddings", NULL, false, 0, 0, UINT64_MAX >> 1,
                      &s->max_positions)))
        return st;
    /*
     * FalconAttention: new_decoder_architecture -> (heads + 2 kv) * head_dim
     * rows; multi_query -> hidden + 2 * head_dim; else 3 * hidden.
     */
    if (new_arch) {
        if ((st = get_dim(r, "num_kv_heads", "n_head_kv", false, s->n_heads, 1, HF_MAX_WIDTH,
                          &s->n_kv_heads)) ||
            (st = check_kv_heads(r, s, "num_kv_heads")))
            return st;
        s->n_block_norms = (uint32_t)n_ln; /* ln_attn, ln_mlp (or one input_layernorm) */
    } else {
        s->n_kv_heads = multi_query ? 1 : s->n_heads;
        s->n_block_norms = parallel_attn ? 1 : 2; /* input_layernorm (+ post_attention_layernorm) */
    }
    s->attn = ATTN_FUSED;
    s->qkv_bias = s->o_bias = s->mlp_bias = bias;
    s->mlp = MLP_PLAIN;
    s->norm_bias = true;
    return GPUPLAN_OK;
}

/* BLOOM: ALiBi (no position tensor), fused qkv with bias, embedding LayerNorm. */
static enum gpuplan_status read_bloom(const struct cfg *r, struct hf_spec *s)
{
    enum gpuplan_status st;
    /* BloomConfig: hidden_size (or legacy n_embed), n_layer, n_head; MLP width 4 * hidden. */
    if ((st = get_dim(r, "vocab_size", NULL, true, 0, 1, HF_MAX_WIDTH, &s->vocab)) ||
        (st = get_dim(r, "hidden_size", "n_embed", true, 0, 1, HF_MAX_WIDTH, &s->hidden)) ||
        (st =
             get_dim(r, "n_layer", "num_hidden_layers", true, 0, 1, HF_MAX_LAYERS, &s->n_layers)) ||
        (st = get_dim(r, "n_head", "num_attention_heads", true, 0, 1, HF_MAX_WIDTH, &s->n_heads)) ||
        (st = read_head_dim(r, s, 0)))
        return st;
    s->n_kv_heads = s->n_heads;
    s->inter = 4 * s->hidden;
    s->emb_norm = true;
    s->attn = ATTN_FUSED;
    s->qkv_bias = s->o_bias = s->mlp_bias = true;
    s->mlp = MLP_PLAIN;
    s->n_block_norms = 2; /* input_layernorm, post_attention_layernorm */
    s->norm_bias = true;
    return GPUPLAN_OK;
}

/* MPT (transformers MptModel): ALiBi, fused Wqkv, biases only without no_bias. */
static enum gpuplan_status read_mpt(const struct cfg *r, struct hf_spec *s)
{
    enum gpuplan_status st;
    bool no_bias = true;
    uint64_t expansion = 4;
    if ((st = get_dim(r, "vocab_size", NULL, true, 0, 1, HF_MAX_WIDTH, &s->vocab)) ||
        (st = get_dim(r, "d_model", NULL, true, 0, 1, HF_MAX_WIDTH, &s->hidden)) ||
        (st = get_dim(r, "n_layers", NULL, true, 0, 1, HF_MAX_LAYERS, &s->n_layers)) ||
        (st = get_dim(r, "n_heads", NULL, true, 0, 1, HF_MAX_WIDTH, &s->n_heads)) ||
        (st = get_dim(r, "expansion_ratio", NULL, false, 4, 1, HF_MAX_LAYERS, &expansion)) ||
        (st = get_dim(r, "max_seq_len", NULL, false, 0, 0, UINT64_MAX >> 1, &s->max_positions)) ||
        (st = get_flag(r, "no_bias", true, &no_bias)))
        return st;
    if (s->hidden % s->n_heads != 0) {
        gpuplan_error_set(r->err, GPUPLAN_ERR_INVALID_CONFIG, NULL,
                          "'d_model' %llu is not divisible by 'n_heads' %llu in '%s'",
                          (unsigned long long)s->hidden, (unsigned long long)s->n_heads, r->where);
        return field_fail(r, GPUPLAN_ERR_INVALID_CONFIG, "d_model");
    }
    s->head_dim = s->hidden / s->n_heads;
    s->n_kv_heads = s->n_heads;
    const json_t *attn_config = json_object_get(r->obj, "attn_config");
    if (json_is_object(attn_config)) {
        /* llm-foundry GQA: attn_config.kv_n_heads (absent in transformers' MptAttention). */
        const struct cfg sub = { attn_config, "$.attn_config", r->where, r->err };
        if ((st = get_dim(&sub, "kv_n_heads", NULL, false, s->n_heads, 1, HF_MAX_WIDTH,
                          &s->n_kv_heads)) ||
            (st = check_kv_heads(&sub, s, "kv_n_heads")))
            return st;
    }
    s->inter = expansion * s->hidden;
    s->attn = ATTN_FUSED;
    s->qkv_bias = s->o_bias = s->mlp_bias = !no_bias;
    s->mlp = MLP_PLAIN;
    s->n_block_norms = 2; /* norm_1, norm_2 */
    s->norm_bias = !no_bias;
    return GPUPLAN_OK;
}

/* T5 (v1.0 and v1.1): encoder-decoder; read here, emitted by emit_t5(). */
static enum gpuplan_status read_t5(const struct cfg *r, struct hf_spec *s)
{
    enum gpuplan_status st;
    char ff_proj[32] = "relu"; /* T5Config feed_forward_proj="relu" */
    /* T5Config defaults: vocab 32128, d_model 512, d_kv 64, d_ff 2048, 6 layers, 8 heads, 32
     * buckets. */
    if ((st = get_dim(r, "vocab_size", NULL, false, 32128, 1, HF_MAX_WIDTH, &s->vocab)) ||
        (st = get_dim(r, "d_model", NULL, false, 512, 1, HF_MAX_WIDTH, &s->hidden)) ||
        (st = get_dim(r, "d_kv", NULL, false, 64, 1, HF_MAX_WIDTH, &s->head_dim)) ||
        (st = get_dim(r, "d_ff", NULL, false, 2048, 1, HF_MAX_WIDTH, &s->inter)) ||
        (st = get_dim(r, "num_layers", NULL, false, 6, 1, HF_MAX_LAYERS, &s->n_enc_layers)) ||
        (st = get_dim(r, "num_decoder_layers", NULL, false, s->n_enc_layers, 1, HF_MAX_LAYERS,
                      &s->n_layers)) ||
        (st = get_dim(r, "num_heads", NULL, false, 8, 1, HF_MAX_WIDTH, &s->n_heads)) ||
        (st = get_dim(r, "relative_attention_num_buckets", NULL, false, 32, 1, HF_MAX_WIDTH,
                      &s->n_buckets)) ||
        (st = get_text(r, "feed_forward_proj", ff_proj, sizeof ff_proj)))
        return st;
    s->n_kv_heads = s->n_heads;
    /* T5Config: "gated-gelu" -> wi_0, wi_1, wo (T5DenseGatedActDense); else wi, wo. */
    s->mlp = strncmp(ff_proj, "gated-", 6) == 0 ? MLP_GATED : MLP_PLAIN;
    return GPUPLAN_OK;
}

/* Per-family reader. */
static enum gpuplan_status read_family(const struct cfg *r, struct hf_spec *s)
{
    switch (s->family) {
    case FAM_DEEPSEEK_V2:
    case FAM_DEEPSEEK_V3:
        return read_deepseek(r, s);
    case FAM_GPT2:
        return read_gpt2(r, s);
    case FAM_GPT_NEOX:
        return read_gpt_neox(r, s);
    case FAM_FALCON:
        return read_falcon(r, s);
    case FAM_BLOOM:
        return read_bloom(r, s);
    case FAM_MPT:
        return read_mpt(r, s);
    case FAM_T5:
        return read_t5(r, s);
    default:
        return read_llama_family(r, s);
    }
}

/* ------------------------------------------------------------------------ */
/* Emitting tensor groups                                                    */

static enum gpuplan_status
too_large(struct hf_ctx *c, const char *what, enum gpuplan_role role, int32_t layer)
{
    gpuplan_error_set(c->err, GPUPLAN_ERR_TOO_LARGE, c->where,
                      "%s of '%s' in layer %d exceeds the limit in '%s'", what,
                      gpuplan_role_name(role), (int)layer, c->where);
    gpuplan_error_hint(c->err,
                       "a tensor may hold at most 2^40 elements and a model 2^50 parameters");
    return GPUPLAN_ERR_TOO_LARGE;
}

/* Add one group of n_tensors identical tensors of shape [d0] or [d0, d1]. */
static enum gpuplan_status add_group(struct hf_ctx *c,
                                     enum gpuplan_role role,
                                     enum gpuplan_stack stack,
                                     int32_t layer,
                                     enum gpuplan_dtype dtype,
                                     uint64_t n_tensors,
                                     uint64_t d0,
                                     uint64_t d1)
{
    struct gpuplan_tensor_group g;
    memset(&g, 0, sizeof g);
    g.role = role;
    g.stack = stack;
    g.layer = layer;
    g.dtype = dtype;
    g.n_tensors = n_tensors;
    g.n_dims = d1 ? 2 : 1;
    g.shape[0] = d0;
    g.shape[1] = d1;
    uint64_t numel = 0, params = 0;
    if (!gpuplan_mul_u64(d0, d1 ? d1 : 1, &numel) || numel > HF_MAX_TENSOR_PARAMS)
        return too_large(c, "element count", role, layer);
    if (!gpuplan_mul_u64(numel, n_tensors, &params) ||
        !gpuplan_add_u64(c->total_params, params, &c->total_params) ||
        c->total_params > HF_MAX_MODEL_PARAMS)
        return too_large(c, "parameter count", role, layer);
    enum gpuplan_status st = gpuplan_model_add(c->model, &g, c->err);
    if (st != GPUPLAN_OK)
        gpuplan_error_where_prefix(c->err, c->where);
    return st;
}

/*
 * nn.Linear(in, out): weight [out, in] (Conv1D: [in, out]) in the block
 * linear dtype, optional bias [out] in torch_dtype.
 */
static enum gpuplan_status add_linear(struct hf_ctx *c,
                                      const struct hf_spec *s,
                                      enum gpuplan_role role,
                                      enum gpuplan_stack stack,
                                      int32_t layer,
                                      uint64_t n_tensors,
                                      uint64_t out,
                                      uint64_t in,
                                      bool bias)
{
    enum gpuplan_status st;
    if (s->conv1d)
        st = add_group(c, role, stack, layer, c->linear_dtype, n_tensors, in, out);
    else
        st = add_group(c, role, stack, layer, c->linear_dtype, n_tensors, out, in);
    if (st == GPUPLAN_OK && bias)
        st = add_group(c, GPUPLAN_ROLE_BIAS, stack, layer, c->dtype, n_tensors, out, 0);
    return st;
}

/* A norm of width `dim`: weight, plus bias for LayerNorm. */
static enum gpuplan_status add_norm(struct hf_ctx *c,
                                    enum gpuplan_stack stack,
                                    int32_t layer,
                                    uint64_t n,
                                    uint64_t dim,
                                    bool bias)
{
    return add_group(c, GPUPLAN_ROLE_NORM, stack, layer, c->dtype, bias ? 2 * n : n, dim, 0);
}

/* Multiply sizes that were each capped at HF_MAX_WIDTH; overflow is too_large. */
static bool mul3(uint64_t a, uint64_t b, uint64_t m, uint64_t *out)
{
    uint64_t ab = 0;
    return gpuplan_mul_u64(a, b, &ab) && gpuplan_mul_u64(ab, m, out);
}

/*
 * DeepseekV3Attention: q_a_proj [q_lora, H] (+bias), q_a_layernorm [q_lora],
 * q_b_proj [heads * (nope + rope), q_lora] (or q_proj [heads * (nope + rope), H]
 * without q_lora_rank), kv_a_proj_with_mqa [kv_lora + rope, H] (+bias),
 * kv_a_layernorm [kv_lora], kv_b_proj [heads * (nope + v), kv_lora],
 * o_proj [H, heads * v] (+bias).
 */
static enum gpuplan_status emit_mla(struct hf_ctx *c, const struct hf_spec *s, int32_t layer)
{
    const enum gpuplan_stack dec = GPUPLAN_STACK_DECODER;
    enum gpuplan_status st;
    uint64_t q_rows = 0, kv_b_rows = 0, o_in = 0;
    if (!mul3(s->n_heads, s->qk_nope + s->qk_rope, 1, &q_rows) ||
        !mul3(s->n_heads, s->qk_nope + s->v_head, 1, &kv_b_rows) ||
        !mul3(s->n_heads, s->v_head, 1, &o_in))
        return too_large(c, "attention width", GPUPLAN_ROLE_MLA_Q_B, layer);
    if (s->q_lora > 0) {
        if ((st = add_linear(c, s, GPUPLAN_ROLE_MLA_Q_A, dec, layer, 1, s->q_lora, s->hidden,
                             s->qkv_bias)) ||
            (st = add_norm(c, dec, layer, 1, s->q_lora, false)) ||
            (st = add_linear(c, s, GPUPLAN_ROLE_MLA_Q_B, dec, layer, 1, q_rows, s->q_lora, false)))
            return st;
    } else if ((st = add_linear(c, s, GPUPLAN_ROLE_ATTN_Q, dec, layer, 1, q_rows, s->hidden,
                                false))) {
        return st;
    }
    if ((st = add_linear(c, s, GPUPLAN_ROLE_MLA_KV_A, dec, layer, 1, s->kv_lora + s->qk_rope,
                         s->hidden, s->qkv_bias)) ||
        (st = add_norm(c, dec, layer, 1, s->kv_lora, false)) ||
        (st = add_linear(c, s, GPUPLAN_ROLE_MLA_KV_B, dec, layer, 1, kv_b_rows, s->kv_lora, false)))
        return st;
    return add_linear(c, s, GPUPLAN_ROLE_ATTN_O, dec, layer, 1, s->hidden, o_in, s->o_bias);
}

static enum gpuplan_status emit_attention(struct hf_ctx *c, const struct hf_spec *s, int32_t layer)
{
    const enum gpuplan_stack dec = GPUPLAN_STACK_DECODER;
    enum gpuplan_status st;
    if (s->attn == ATTN_MLA)
        return emit_mla(c, s, layer);
    uint64_t q_rows = 0, kv_rows = 0;
    if (!mul3(s->n_heads, s->head_dim, 1, &q_rows) ||
        !mul3(s->n_kv_heads, s->head_dim, 1, &kv_rows))
        return too_large(c, "attention width", GPUPLAN_ROLE_ATTN_Q, layer);
    if (s->attn == ATTN_FUSED) {
        /* rows = (heads + 2 * kv_heads) * head_dim: phi3 qkv_proj, neox/bloom/falcon
         * query_key_value, gpt2 c_attn */
        if ((st = add_linear(c, s, GPUPLAN_ROLE_ATTN_QKV, dec, layer, 1, q_rows + 2 * kv_rows,
                             s->hidden, s->qkv_bias)))
            return st;
    } else if ((st = add_linear(c, s, GPUPLAN_ROLE_ATTN_Q, dec, layer, 1, q_rows, s->hidden,
                                s->qkv_bias)) ||
               (st = add_linear(c, s, GPUPLAN_ROLE_ATTN_K, dec, layer, 1, kv_rows, s->hidden,
                                s->qkv_bias)) ||
               (st = add_linear(c, s, GPUPLAN_ROLE_ATTN_V, dec, layer, 1, kv_rows, s->hidden,
                                s->qkv_bias))) {
        return st;
    }
    if (s->qk_norm && (st = add_norm(c, dec, layer, 2, s->head_dim, false))) /* q_norm, k_norm */
        return st;
    return add_linear(c, s, GPUPLAN_ROLE_ATTN_O, dec, layer, 1, s->hidden, q_rows, s->o_bias);
}

static bool in_mlp_only_layers(const struct hf_spec *s, uint64_t layer)
{
    size_t i;
    const json_t *item;
    json_array_foreach(s->mlp_only_layers, i, item)
    {
        uint64_t v = 0;
        if (gpuplan_json_as_u64(item, &v) && v == layer)
            return true;
    }
    return false;
}

/*
 * Sparse (MoE) block or dense MLP at `layer`:
 * DeepSeek: layer >= first_k_dense_replace and layer % moe_layer_freq == 0;
 * Qwen MoE: layer not in mlp_only_layers and (layer + 1) % decoder_sparse_step == 0;
 * Mixtral: every layer.
 */
static bool is_moe_layer(const struct hf_spec *s, uint64_t layer)
{
    if (s->n_experts == 0 || layer < s->first_dense)
        return false;
    if (s->moe_freq > 1 && layer % s->moe_freq != 0)
        return false;
    if (s->sparse_step > 1 && (layer + 1) % s->sparse_step != 0)
        return false;
    return !(s->mlp_only_layers && in_mlp_only_layers(s, layer));
}

static enum gpuplan_status emit_moe(struct hf_ctx *c, const struct hf_spec *s, int32_t layer)
{
    const enum gpuplan_stack dec = GPUPLAN_STACK_DECODER;
    const uint64_t e = s->n_experts;
    enum gpuplan_status st;
    /* The router is a bare Parameter / unquantised Linear [experts, H] (bf16 even in fp8
     * checkpoints). */
    if ((st = add_group(c, GPUPLAN_ROLE_ROUTER, dec, layer, c->dtype, 1, e, s->hidden)))
        return st;
    if (s->router_bias && (st = add_group(c, GPUPLAN_ROLE_BIAS, dec, layer, c->dtype, 1, e, 0)))
        return st;
    if ((st = add_linear(c, s, GPUPLAN_ROLE_EXPERT_GATE, dec, layer, e, s->moe_inter, s->hidden,
                         false)) ||
        (st = add_linear(c, s, GPUPLAN_ROLE_EXPERT_UP, dec, layer, e, s->moe_inter, s->hidden,
                         false)) ||
        (st = add_linear(c, s, GPUPLAN_ROLE_EXPERT_DOWN, dec, layer, e, s->hidden, s->moe_inter,
                         false)))
        return st;
    if (s->shared_inter > 0 && ((st = add_linear(c, s, GPUPLAN_ROLE_SHARED_GATE, dec, layer, 1,
                                                 s->shared_inter, s->hidden, false)) ||
                                (st = add_linear(c, s, GPUPLAN_ROLE_SHARED_UP, dec, layer, 1,
                                                 s->shared_inter, s->hidden, false)) ||
                                (st = add_linear(c, s, GPUPLAN_ROLE_SHARED_DOWN, dec, layer, 1,
                                                 s->hidden, s->shared_inter, false))))
        return st;
    /* qwen2_moe shared_expert_gate: Linear(H, 1, bias=False). */
    if (s->shared_gate)
        return add_linear(c, s, GPUPLAN_ROLE_SHARED_ROUTER, dec, layer, 1, 1, s->hidden, false);
    return GPUPLAN_OK;
}

static enum gpuplan_status
emit_mlp(struct hf_ctx *c, const struct hf_spec *s, enum gpuplan_stack stack, int32_t layer)
{
    enum gpuplan_status st;
    const uint64_t h = s->hidden, i = s->inter;
    switch (s->mlp) {
    case MLP_GATED:
        if ((st = add_linear(c, s, GPUPLAN_ROLE_MLP_GATE, stack, layer, 1, i, h, s->mlp_bias)) ||
            (st = add_linear(c, s, GPUPLAN_ROLE_MLP_UP, stack, layer, 1, i, h, s->mlp_bias)))
            return st;
        break;
    case MLP_FUSED_GATE_UP:
        if ((st = add_linear(c, s, GPUPLAN_ROLE_MLP_GATE_UP, stack, layer, 1, 2 * i, h,
                             s->mlp_bias)))
            return st;
        break;
    case MLP_PLAIN:
        if ((st = add_linear(c, s, GPUPLAN_ROLE_MLP_UP, stack, layer, 1, i, h, s->mlp_bias)))
            return st;
        break;
    }
    return add_linear(c, s, GPUPLAN_ROLE_MLP_DOWN, stack, layer, 1, h, i, s->mlp_bias);
}

/* Decoder-only families: embeddings, blocks, final norm, head. */
static enum gpuplan_status emit_decoder(struct hf_ctx *c, const struct hf_spec *s)
{
    const enum gpuplan_stack dec = GPUPLAN_STACK_DECODER;
    enum gpuplan_status st;
    if ((st = add_group(c, GPUPLAN_ROLE_EMBEDDING, dec, -1, c->dtype, 1, s->vocab, s->hidden)))
        return st;
    if (s->n_positions > 0 && (st = add_group(c, GPUPLAN_ROLE_POS_EMBEDDING, dec, -1, c->dtype, 1,
                                              s->n_positions, s->hidden)))
        return st;
    if (s->emb_norm && (st = add_norm(c, dec, -1, 1, s->hidden, true)))
        return st;
    for (uint64_t layer = 0; layer < s->n_layers; layer++) {
        const int32_t l = (int32_t)layer;
        if ((st = add_norm(c, dec, l, s->n_block_norms, s->hidden, s->norm_bias)) ||
            (st = emit_attention(c, s, l)))
            return st;
        st = is_moe_layer(s, layer) ? emit_moe(c, s, l) : emit_mlp(c, s, dec, l);
        if (st != GPUPLAN_OK)
            return st;
    }
    if ((st = add_norm(c, dec, -1, 1, s->hidden, s->norm_bias)))
        return st;
    if (!s->tied)
        return add_group(c, GPUPLAN_ROLE_LM_HEAD, dec, -1, c->dtype, 1, s->vocab, s->hidden);
    return GPUPLAN_OK;
}

/* T5 attention: q, k, v [heads * d_kv, d_model], o [d_model, heads * d_kv], no biases. */
static enum gpuplan_status emit_t5_attention(struct hf_ctx *c,
                                             const struct hf_spec *s,
                                             enum gpuplan_stack stack,
                                             int32_t layer,
                                             bool rel_bias)
{
    enum gpuplan_status st;
    uint64_t inner = 0;
    if (!mul3(s->n_heads, s->head_dim, 1, &inner))
        return too_large(c, "attention width", GPUPLAN_ROLE_ATTN_Q, layer);
    if ((st = add_linear(c, s, GPUPLAN_ROLE_ATTN_Q, stack, layer, 1, inner, s->hidden, false)) ||
        (st = add_linear(c, s, GPUPLAN_ROLE_ATTN_K, stack, layer, 1, inner, s->hidden, false)) ||
        (st = add_linear(c, s, GPUPLAN_ROLE_ATTN_V, stack, layer, 1, inner, s->hidden, false)) ||
        (st = add_linear(c, s, GPUPLAN_ROLE_ATTN_O, stack, layer, 1, s->hidden, inner, false)))
        return st;
    /* has_relative_attention_bias only in block 0 of each stack: Embedding(buckets, heads). */
    if (rel_bias)
        return add_group(c, GPUPLAN_ROLE_REL_POS_BIAS, stack, layer, c->dtype, 1, s->n_buckets,
                         s->n_heads);
    return GPUPLAN_OK;
}

/*
 * T5ForConditionalGeneration: shared [V, d] (encoder and decoder
 * embed_tokens are the same tensor), encoder blocks (self-attention, FF,
 * 2 RMS norms), decoder blocks (self-attention, cross-attention, FF,
 * 3 norms), a final norm per stack, lm_head unless tied (v1.1 unties).
 */
static enum gpuplan_status emit_t5(struct hf_ctx *c, const struct hf_spec *s)
{
    const enum gpuplan_stack enc = GPUPLAN_STACK_ENCODER, dec = GPUPLAN_STACK_DECODER;
    enum gpuplan_status st;
    if ((st = add_group(c, GPUPLAN_ROLE_EMBEDDING, dec, -1, c->dtype, 1, s->vocab, s->hidden)))
        return st;
    for (uint64_t layer = 0; layer < s->n_enc_layers; layer++) {
        const int32_t l = (int32_t)layer;
        if ((st = emit_t5_attention(c, s, enc, l, layer == 0)) || (st = emit_mlp(c, s, enc, l)) ||
            (st = add_norm(c, enc, l, 2, s->hidden, false)))
            return st;
    }
    if ((st = add_norm(c, enc, -1, 1, s->hidden, false)))
        return st;
    for (uint64_t layer = 0; layer < s->n_layers; layer++) {
        const int32_t l = (int32_t)layer;
        if ((st = emit_t5_attention(c, s, dec, l, layer == 0)) ||
            (st = emit_t5_attention(c, s, dec, l, false)) || (st = emit_mlp(c, s, dec, l)) ||
            (st = add_norm(c, dec, l, 3, s->hidden, false)))
            return st;
    }
    if ((st = add_norm(c, dec, -1, 1, s->hidden, false)))
        return st;
    if (!s->tied)
        return add_group(c, GPUPLAN_ROLE_LM_HEAD, dec, -1, c->dtype, 1, s->vocab, s->hidden);
    return GPUPLAN_OK;
}

/* ------------------------------------------------------------------------ */
/* Top level                                                                 */

static enum gpuplan_status unknown_family(const struct cfg *r, const char *model_type)
{
    gpuplan_error_set(r->err, GPUPLAN_ERR_UNSUPPORTED, NULL, "unknown 'model_type' '%s' in '%s'",
                      model_type, r->where);
    field_fail(r, GPUPLAN_ERR_UNSUPPORTED, "model_type");
    char list[GPUPLAN_ERROR_HINT_MAX] = "";
    size_t used = 0;
    for (size_t i = 0; i < N_FAMILIES && used < sizeof list; i++) {
        int n = snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "",
                         family_table[i].model_type);
        if (n < 0)
            break;
        used += (size_t)n;
    }
    gpuplan_error_hint(r->err, "supported families: %s", list);
    return GPUPLAN_ERR_UNSUPPORTED;
}

/* torch_dtype (or the newer "dtype"); absent -> float32, transformers' load default. */
static enum gpuplan_status
read_dtype(const struct cfg *r, const struct cfg *root, enum gpuplan_dtype *out)
{
    char name[32] = "";
    const char *key = "torch_dtype";
    const struct cfg *src = r;
    if (!has_key(r->obj, key) && has_key(r->obj, "dtype"))
        key = "dtype";
    else if (!has_key(r->obj, key) && r != root) {
        src = root;
        if (!has_key(root->obj, key) && has_key(root->obj, "dtype"))
            key = "dtype";
    }
    enum gpuplan_status st = get_text(src, key, name, sizeof name);
    if (st != GPUPLAN_OK)
        return st;
    *out = GPUPLAN_DTYPE_F32;
    if (name[0] == '\0')
        return GPUPLAN_OK;
    const enum gpuplan_dtype d = gpuplan_dtype_from_name(name);
    if (d == GPUPLAN_DTYPE_BF16 || d == GPUPLAN_DTYPE_F16 || d == GPUPLAN_DTYPE_F32) {
        *out = d;
        return GPUPLAN_OK;
    }
    gpuplan_error_set(src->err, GPUPLAN_ERR_INVALID_CONFIG, NULL,
                      "'%s' is '%s' in '%s'; must be bfloat16, float16 or float32", key, name,
                      src->where);
    return field_fail(src, GPUPLAN_ERR_INVALID_CONFIG, key);
}

/*
 * quantization_config.quant_method "fp8" (DeepSeek-V3, Qwen3-FP8): block
 * linears are stored as float8 (fmt e4m3 by default). Their
 * weight_scale_inv tensors are not counted, as the fixture README does not.
 */
static enum gpuplan_status read_quantization(const struct cfg *root,
                                             enum gpuplan_dtype *linear_dtype)
{
    const json_t *q = json_object_get(root->obj, "quantization_config");
    if (!json_is_object(q))
        return GPUPLAN_OK;
    const struct cfg sub = { q, "$.quantization_config", root->where, root->err };
    char method[32] = "", fmt[16] = "";
    enum gpuplan_status st;
    if ((st = get_text(&sub, "quant_method", method, sizeof method)) ||
        (st = get_text(&sub, "fmt", fmt, sizeof fmt)))
        return st;
    if (strcmp(method, "fp8") == 0)
        *linear_dtype = strcmp(fmt, "e5m2") == 0 ? GPUPLAN_DTYPE_F8_E5M2 : GPUPLAN_DTYPE_F8_E4M3;
    return GPUPLAN_OK;
}

static void fill_arch(struct gpuplan_arch *a, const struct hf_spec *s, const char *model_type)
{
    (void)snprintf(a->family, sizeof a->family, "%s", model_type);
    a->n_layers = (uint32_t)s->n_layers;
    a->n_encoder_layers = (uint32_t)s->n_enc_layers;
    a->hidden_size = s->hidden;
    a->n_heads = s->n_heads;
    a->n_kv_heads = s->n_kv_heads;
    a->head_dim = s->head_dim;
    a->intermediate_size = s->inter;
    a->vocab_size = s->vocab;
    a->max_position_embeddings = s->max_positions;
    a->n_experts = (uint32_t)s->n_experts;
    a->n_experts_per_token = s->n_experts ? (uint32_t)s->top_k : 0;
    a->n_shared_experts = (uint32_t)s->n_shared;
    a->moe_intermediate_size = s->moe_inter;
    a->q_lora_rank = s->q_lora;
    a->kv_lora_rank = s->kv_lora;
    a->qk_nope_head_dim = s->qk_nope;
    a->qk_rope_head_dim = s->qk_rope;
    a->v_head_dim = s->v_head;
    a->sliding_window = s->sliding_window;
    a->is_moe = s->n_experts > 0;
    a->is_mla = s->attn == ATTN_MLA;
    a->is_encoder_decoder = s->family == FAM_T5;
    a->tied_embeddings = s->tied;
    a->gated_mlp = s->mlp != MLP_PLAIN;
    a->has_qk_norm = s->qk_norm;
    uint32_t dense = 0;
    while (a->is_moe && dense < a->n_layers && !is_moe_layer(s, dense))
        dense++;
    a->n_dense_layers = dense;
}

static enum gpuplan_status build(struct gpuplan_model *model,
                                 const json_t *root_obj,
                                 const char *where,
                                 struct gpuplan_error *err)
{
    const struct cfg root = { root_obj, "$", where, err };
    char model_type[32] = "";
    enum gpuplan_status st = get_text(&root, "model_type", model_type, sizeof model_type);
    if (st != GPUPLAN_OK)
        return st;
    if (model_type[0] == '\0') {
        gpuplan_error_set(err, GPUPLAN_ERR_INVALID_CONFIG, NULL, "'model_type' is missing in '%s'",
                          where);
        field_fail(&root, GPUPLAN_ERR_INVALID_CONFIG, "model_type");
        gpuplan_error_hint(
            err, "add 'model_type' (for example \"llama\"); it names the architecture family");
        return GPUPLAN_ERR_INVALID_CONFIG;
    }
    size_t f = 0;
    while (f < N_FAMILIES && strcmp(family_table[f].model_type, model_type) != 0)
        f++;
    if (f == N_FAMILIES)
        return unknown_family(&root, model_type);

    struct hf_spec spec;
    memset(&spec, 0, sizeof spec);
    spec.family = family_table[f].family;
    /*
     * Gemma3ForConditionalGeneration nests the language model under
     * text_config; only the text model (embeddings, decoder, tied head) is
     * counted here, not the SigLIP vision tower or the projector.
     */
    struct cfg text = root;
    const json_t *text_config = json_object_get(root_obj, "text_config");
    if (spec.family == FAM_GEMMA3 && json_is_object(text_config)) {
        text.obj = text_config;
        text.path = "$.text_config";
    }
    bool tied = family_table[f].tied_default;
    if (!has_key(text.obj, "tie_word_embeddings") && text.obj != root.obj)
        st = get_flag(&root, "tie_word_embeddings", tied, &tied);
    else
        st = get_flag(&text, "tie_word_embeddings", tied, &tied);
    if (st != GPUPLAN_OK || (st = read_family(&text, &spec)) != GPUPLAN_OK)
        return st;
    spec.tied = tied;

    struct hf_ctx ctx = { model, where, err, GPUPLAN_DTYPE_F32, GPUPLAN_DTYPE_F32, 0 };
    if ((st = read_dtype(&text, &root, &ctx.dtype)))
        return st;
    ctx.linear_dtype = ctx.dtype;
    if ((st = read_quantization(&root, &ctx.linear_dtype)))
        return st;

    fill_arch(&model->arch, &spec, model_type);
    model->has_arch = true;
    (void)snprintf(model->format, sizeof model->format, "config");
    if ((st = spec.family == FAM_T5 ? emit_t5(&ctx, &spec) : emit_decoder(&ctx, &spec)))
        return st;
    return gpuplan_model_finalize(model, err);
}

enum gpuplan_status gpuplan_model_from_hf_config(struct gpuplan_model *model,
                                                 const uint8_t *json,
                                                 size_t json_len,
                                                 const char *where,
                                                 struct gpuplan_error *err)
{
    json_t *root = NULL;
    if (!where || !*where)
        where = "config.json";
    enum gpuplan_status st = gpuplan_json_parse(json, json_len, where, true, &root, err);
    if (st == GPUPLAN_OK)
        st = build(model, root, where, err);
    json_decref(root);
    if (st != GPUPLAN_OK) {
        /* Leave no half-built inventory behind; the struct stays releasable. */
        gpuplan_model_release(model);
        model->has_arch = false;
        memset(&model->arch, 0, sizeof model->arch);
    }
    return st;
}
