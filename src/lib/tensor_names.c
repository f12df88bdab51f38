/*
 * tensor_names.c - tensor name -> (role, layer, stack) (see tensor_names.h).
 *
 * A name is split at '.' into components. The block index is the number
 * after the first "layers", "h", "block", "blocks" or "blk" component; the
 * module is the component before the final "weight"/"bias" (or the last
 * component when there is no such suffix, as in gpt-oss "experts.down_proj");
 * the role comes from the module name, refined by its parent ("c_proj" under
 * "attn" is the attention output, under "mlp" the MLP down projection) and by
 * whether the name sits under "experts" or "shared_expert(s)".
 */
#include "tensor_names.h"

#include <string.h>

#define MAX_COMPONENTS 32

struct span {
    const char *s;
    size_t n;
};

struct parts {
    struct span c[MAX_COMPONENTS];
    size_t n;
};

static bool span_eq(struct span a, const char *lit)
{
    const size_t n = strlen(lit);
    return a.n == n && memcmp(a.s, lit, n) == 0;
}

static bool span_has(struct span a, const char *lit)
{
    const size_t n = strlen(lit);
    if (n > a.n)
        return false;
    for (size_t i = 0; i + n <= a.n; i++) {
        if (memcmp(a.s + i, lit, n) == 0)
            return true;
    }
    return false;
}

static bool span_ends(struct span a, const char *lit)
{
    const size_t n = strlen(lit);
    return a.n >= n && memcmp(a.s + a.n - n, lit, n) == 0;
}

/* Parse a decimal block or expert index (at most 9 digits); -1 when not a number. */
static int32_t span_index(struct span a)
{
    if (a.n == 0 || a.n > 9)
        return -1;
    int32_t v = 0;
    for (size_t i = 0; i < a.n; i++) {
        if (a.s[i] < '0' || a.s[i] > '9')
            return -1;
        v = v * 10 + (a.s[i] - '0');
    }
    return v;
}

/* Split at '.'; false when the name has more than MAX_COMPONENTS components. */
static bool split(const char *name, size_t len, struct parts *p)
{
    p->n = 0;
    size_t start = 0;
    for (size_t i = 0; i <= len; i++) {
        if (i < len && name[i] != '.')
            continue;
        if (p->n == MAX_COMPONENTS)
            return false;
        p->c[p->n].s = name + start;
        p->c[p->n].n = i - start;
        p->n++;
        start = i + 1;
    }
    return true;
}

static void info_init(struct gpuplan_tensor_name_info *out)
{
    out->role = GPUPLAN_ROLE_OTHER;
    out->stack = GPUPLAN_STACK_DECODER;
    out->layer = -1;
    out->expert = -1;
    out->is_expert_stack = false;
}

static bool is_any(struct span a, const char *const *list)
{
    for (size_t i = 0; list[i]; i++) {
        if (span_eq(a, list[i]))
            return true;
    }
    return false;
}

/* Side tensors of quantised checkpoints: bitsandbytes 4-bit/8-bit, GPTQ/AWQ, FP8. */
static bool is_quant_state(const struct parts *p)
{
    static const char *const names[] = {
        "absmax",      "quant_map", "nested_absmax",    "nested_quant_map",
        "quant_state", "SCB",       "weight_format",    "qzeros",
        "scales",      "g_idx",     "weight_scale_inv", "weight_scale",
        "input_scale", NULL
    };
    for (size_t i = 1; i < p->n; i++) {
        if (is_any(p->c[i], names))
            return true;
    }
    return false;
}

static bool is_norm(struct span m)
{
    return span_has(m, "norm") || span_eq(m, "ln_1") || span_eq(m, "ln_2") || span_eq(m, "ln_f") ||
           span_eq(m, "ln_attn") || span_eq(m, "ln_mlp");
}

static bool is_attention_parent(struct span p)
{
    return span_has(p, "attn") || span_has(p, "attention") || span_has(p, "Attention");
}

/* Role of a module under an MLP, to be turned into expert/shared roles by context. */
static enum gpuplan_role mlp_role(struct span m, struct span parent)
{
    static const char *const gate[] = { "gate_proj", "w1", "wi_0", NULL };
    static const char *const up[] = {
        "up_proj", "w3", "wi_1", "c_fc", "fc1", "dense_h_to_4h", NULL
    };
    static const char *const down[] = { "down_proj", "w2", "fc2", "dense_4h_to_h", NULL };
    if (is_any(m, gate))
        return GPUPLAN_ROLE_MLP_GATE;
    if (is_any(m, up) || (span_eq(m, "wi") && span_eq(parent, "DenseReluDense")))
        return GPUPLAN_ROLE_MLP_UP;
    if (span_eq(m, "gate_up_proj"))
        return GPUPLAN_ROLE_MLP_GATE_UP;
    if (is_any(m, down) || (span_eq(m, "wo") && span_eq(parent, "DenseReluDense")) ||
        (span_eq(m, "c_proj") && span_eq(parent, "mlp")))
        return GPUPLAN_ROLE_MLP_DOWN;
    return GPUPLAN_ROLE_OTHER;
}

static enum gpuplan_role attention_role(struct span m, struct span parent)
{
    static const char *const qkv[] = { "qkv_proj", "c_attn", "query_key_value", "Wqkv", "qkv",
                                       "W_pack",   NULL };
    if (span_eq(m, "q_proj") || span_eq(m, "query") || span_eq(m, "wq"))
        return GPUPLAN_ROLE_ATTN_Q;
    if (span_eq(m, "k_proj") || span_eq(m, "key") || span_eq(m, "wk"))
        return GPUPLAN_ROLE_ATTN_K;
    if (span_eq(m, "v_proj") || span_eq(m, "value") || span_eq(m, "wv"))
        return GPUPLAN_ROLE_ATTN_V;
    if (is_any(m, qkv))
        return GPUPLAN_ROLE_ATTN_QKV;
    if (span_eq(m, "o_proj") || span_eq(m, "out_proj"))
        return GPUPLAN_ROLE_ATTN_O;
    if (span_eq(m, "q_a_proj"))
        return GPUPLAN_ROLE_MLA_Q_A;
    if (span_eq(m, "q_b_proj"))
        return GPUPLAN_ROLE_MLA_Q_B;
    if (span_eq(m, "kv_a_proj_with_mqa"))
        return GPUPLAN_ROLE_MLA_KV_A;
    if (span_eq(m, "kv_b_proj"))
        return GPUPLAN_ROLE_MLA_KV_B;
    /* Modules whose meaning depends on being inside an attention block. */
    if (is_attention_parent(parent)) {
        if (span_eq(m, "q"))
            return GPUPLAN_ROLE_ATTN_Q;
        if (span_eq(m, "k"))
            return GPUPLAN_ROLE_ATTN_K;
        if (span_eq(m, "v"))
            return GPUPLAN_ROLE_ATTN_V;
        if (span_eq(m, "o") || span_eq(m, "wo") || span_eq(m, "dense") || span_eq(m, "c_proj"))
            return GPUPLAN_ROLE_ATTN_O;
    }
    return GPUPLAN_ROLE_OTHER;
}

static enum gpuplan_role top_level_role(struct span m)
{
    static const char *const embed[] = {
        "embed_tokens", "wte", "word_embeddings", "embed_in", "tok_embeddings", "shared", NULL
    };
    static const char *const pos[] = { "wpe", "embed_positions", "position_embeddings", NULL };
    if (is_any(m, embed))
        return GPUPLAN_ROLE_EMBEDDING;
    if (is_any(m, pos))
        return GPUPLAN_ROLE_POS_EMBEDDING;
    if (span_eq(m, "lm_head") || span_eq(m, "embed_out") || span_eq(m, "output"))
        return GPUPLAN_ROLE_LM_HEAD;
    return GPUPLAN_ROLE_OTHER;
}

static enum gpuplan_role module_role(struct span m, struct span parent, bool in_block)
{
    if (is_norm(m))
        return GPUPLAN_ROLE_NORM;
    if (span_eq(m, "relative_attention_bias"))
        return GPUPLAN_ROLE_REL_POS_BIAS;
    if (span_eq(m, "shared_expert_gate"))
        return GPUPLAN_ROLE_SHARED_ROUTER;
    if (span_eq(m, "router") || span_eq(m, "e_score_correction_bias") ||
        (span_eq(m, "gate") && !span_eq(parent, "experts")))
        return GPUPLAN_ROLE_ROUTER;
    enum gpuplan_role role = attention_role(m, parent);
    if (role == GPUPLAN_ROLE_OTHER)
        role = mlp_role(m, parent);
    if (role == GPUPLAN_ROLE_OTHER && !in_block)
        role = top_level_role(m);
    return role;
}

static enum gpuplan_role specialise(enum gpuplan_role role, bool in_experts, bool in_shared)
{
    static const enum gpuplan_role expert[] = {
        [GPUPLAN_ROLE_MLP_GATE] = GPUPLAN_ROLE_EXPERT_GATE,
        [GPUPLAN_ROLE_MLP_UP] = GPUPLAN_ROLE_EXPERT_UP,
        [GPUPLAN_ROLE_MLP_GATE_UP] = GPUPLAN_ROLE_EXPERT_GATE_UP,
        [GPUPLAN_ROLE_MLP_DOWN] = GPUPLAN_ROLE_EXPERT_DOWN,
    };
    static const enum gpuplan_role shared[] = {
        [GPUPLAN_ROLE_MLP_GATE] = GPUPLAN_ROLE_SHARED_GATE,
        [GPUPLAN_ROLE_MLP_UP] = GPUPLAN_ROLE_SHARED_UP,
        [GPUPLAN_ROLE_MLP_DOWN] = GPUPLAN_ROLE_SHARED_DOWN,
    };
    if (role != GPUPLAN_ROLE_MLP_GATE && role != GPUPLAN_ROLE_MLP_UP &&
        role != GPUPLAN_ROLE_MLP_GATE_UP && role != GPUPLAN_ROLE_MLP_DOWN)
        return role;
    if (in_shared && role != GPUPLAN_ROLE_MLP_GATE_UP)
        return shared[role];
    if (in_experts)
        return expert[role];
    return role;
}

void gpuplan_tensor_name_classify_hf(const char *name,
                                     size_t len,
                                     struct gpuplan_tensor_name_info *out)
{
    info_init(out);
    struct parts p;
    if (!name || len == 0 || !split(name, len, &p))
        return;
    if (span_eq(p.c[0], "encoder"))
        out->stack = GPUPLAN_STACK_ENCODER;
    static const char *const block_words[] = { "layers", "h", "block", "blocks", "blk", NULL };
    size_t body = 0; /* first component after the block index */
    bool in_experts = false, in_shared = false;
    for (size_t i = 0; i + 1 < p.n; i++) {
        if (out->layer < 0 && is_any(p.c[i], block_words) && span_index(p.c[i + 1]) >= 0) {
            out->layer = span_index(p.c[i + 1]);
            body = i + 2;
        }
    }
    for (size_t i = 0; i < p.n; i++) {
        if (span_eq(p.c[i], "experts")) {
            in_experts = true;
            out->expert = i + 1 < p.n ? span_index(p.c[i + 1]) : -1;
            out->is_expert_stack = out->expert < 0;
        }
        if (span_eq(p.c[i], "shared_expert") || span_eq(p.c[i], "shared_experts") ||
            span_eq(p.c[i], "shared_mlp"))
            in_shared = true;
    }
    if (in_shared) {
        in_experts = false;
        out->expert = -1;
        out->is_expert_stack = false;
    }
    if (is_quant_state(&p)) {
        out->role = GPUPLAN_ROLE_QUANT_STATE;
        return;
    }
    /* Module = component before "weight"/"bias"; gpt-oss writes "<module>_bias". */
    struct span last = p.c[p.n - 1];
    struct span module = last;
    bool is_bias = false;
    size_t module_at = p.n - 1;
    if ((span_eq(last, "weight") || span_eq(last, "bias") || span_eq(last, "qweight")) &&
        p.n >= 2) {
        module_at = p.n - 2;
        module = p.c[module_at];
        is_bias = span_eq(last, "bias");
    } else if (span_ends(last, "_bias") && !span_eq(last, "e_score_correction_bias") &&
               last.n > 5) {
        module.n -= 5;
        is_bias = true;
    }
    struct span parent = module_at > 0 ? p.c[module_at - 1] : (struct span){ "", 0 };
    const bool in_block = out->layer >= 0 && module_at >= body;
    enum gpuplan_role role = module_role(module, parent, in_block);
    role = specialise(role, in_experts, in_shared);
    if (is_bias && role != GPUPLAN_ROLE_NORM && role != GPUPLAN_ROLE_OTHER &&
        role != GPUPLAN_ROLE_REL_POS_BIAS)
        role = GPUPLAN_ROLE_BIAS;
    out->role = role;
}

/* GGUF block tensor base names (gguf-py constants.py TENSOR_NAMES) and their roles. */
static const struct {
    const char *base;
    enum gpuplan_role role;
    bool is_expert_stack;
} gguf_block_names[] = {
    { "attn_q", GPUPLAN_ROLE_ATTN_Q, false },
    { "attn_k", GPUPLAN_ROLE_ATTN_K, false },
    { "attn_v", GPUPLAN_ROLE_ATTN_V, false },
    { "attn_qkv", GPUPLAN_ROLE_ATTN_QKV, false },
    { "attn_output", GPUPLAN_ROLE_ATTN_O, false },
    { "attn_q_a", GPUPLAN_ROLE_MLA_Q_A, false },
    { "attn_q_b", GPUPLAN_ROLE_MLA_Q_B, false },
    { "attn_kv_a_mqa", GPUPLAN_ROLE_MLA_KV_A, false },
    { "attn_kv_b", GPUPLAN_ROLE_MLA_KV_B, false },
    { "attn_k_b", GPUPLAN_ROLE_MLA_KV_B, false },
    { "attn_v_b", GPUPLAN_ROLE_MLA_KV_B, false },
    { "ffn_gate", GPUPLAN_ROLE_MLP_GATE, false },
    { "ffn_up", GPUPLAN_ROLE_MLP_UP, false },
    { "ffn_down", GPUPLAN_ROLE_MLP_DOWN, false },
    { "ffn_gate_inp", GPUPLAN_ROLE_ROUTER, false },
    { "exp_probs_b", GPUPLAN_ROLE_ROUTER, false },
    { "ffn_gate_exps", GPUPLAN_ROLE_EXPERT_GATE, true },
    { "ffn_up_exps", GPUPLAN_ROLE_EXPERT_UP, true },
    { "ffn_gate_up_exps", GPUPLAN_ROLE_EXPERT_GATE_UP, true },
    { "ffn_down_exps", GPUPLAN_ROLE_EXPERT_DOWN, true },
    { "ffn_gate_shexp", GPUPLAN_ROLE_SHARED_GATE, false },
    { "ffn_up_shexp", GPUPLAN_ROLE_SHARED_UP, false },
    { "ffn_down_shexp", GPUPLAN_ROLE_SHARED_DOWN, false },
    { "ffn_gate_inp_shexp", GPUPLAN_ROLE_SHARED_ROUTER, false },
};

void gpuplan_tensor_name_classify_gguf(const char *name,
                                       size_t len,
                                       struct gpuplan_tensor_name_info *out)
{
    info_init(out);
    struct parts p;
    if (!name || len == 0 || !split(name, len, &p))
        return;
    size_t at = 0;
    if (span_eq(p.c[0], "enc") || span_eq(p.c[0], "dec")) {
        out->stack = span_eq(p.c[0], "enc") ? GPUPLAN_STACK_ENCODER : GPUPLAN_STACK_DECODER;
        at = 1;
    }
    if (at + 1 < p.n && span_eq(p.c[at], "blk") && span_index(p.c[at + 1]) >= 0) {
        out->layer = span_index(p.c[at + 1]);
        at += 2;
    }
    if (at >= p.n)
        return;
    const struct span base = p.c[at];
    const struct span last = p.c[p.n - 1];
    const bool is_bias = p.n > at + 1 && span_eq(last, "bias");
    enum gpuplan_role role = GPUPLAN_ROLE_OTHER;
    if (out->layer >= 0) {
        for (size_t i = 0; i < sizeof gguf_block_names / sizeof gguf_block_names[0]; i++) {
            if (span_eq(base, gguf_block_names[i].base)) {
                role = gguf_block_names[i].role;
                out->is_expert_stack = gguf_block_names[i].is_expert_stack;
                break;
            }
        }
        if (role == GPUPLAN_ROLE_OTHER && span_has(base, "norm"))
            role = GPUPLAN_ROLE_NORM;
        if (role == GPUPLAN_ROLE_OTHER && span_eq(base, "attn_rel_b"))
            role = GPUPLAN_ROLE_REL_POS_BIAS;
    } else {
        if (span_eq(base, "token_embd"))
            role = GPUPLAN_ROLE_EMBEDDING;
        else if (span_eq(base, "position_embd"))
            role = GPUPLAN_ROLE_POS_EMBEDDING;
        else if (span_eq(base, "output"))
            role = GPUPLAN_ROLE_LM_HEAD;
        else if (span_has(base, "norm"))
            role = GPUPLAN_ROLE_NORM;
    }
    /* exp_probs_b holds DeepSeek's e_score_correction_bias: a router parameter. */
    if (is_bias && role != GPUPLAN_ROLE_NORM && role != GPUPLAN_ROLE_OTHER &&
        !span_eq(base, "exp_probs_b"))
        role = GPUPLAN_ROLE_BIAS;
    out->role = role;
}
