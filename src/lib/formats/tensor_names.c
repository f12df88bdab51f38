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
#include "formats/tensor_names_internal.h"

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

/* A literal with its length, so no comparison needs strlen. */
struct word {
    const char *s;
    size_t n;
};
#define W(lit)              \
    {                       \
        lit, sizeof lit - 1 \
    }
#define N_WORDS(list) (sizeof list / sizeof list[0])

static bool span_eq_n(struct span a, const char *lit, size_t n)
{
    return a.n == n && memcmp(a.s, lit, n) == 0;
}

static bool span_has_n(struct span a, const char *lit, size_t n)
{
    if (n > a.n)
        return false;
    for (size_t i = 0; i + n <= a.n; i++) {
        if (a.s[i] == lit[0] && memcmp(a.s + i, lit, n) == 0)
            return true;
    }
    return false;
}

static bool span_ends_n(struct span a, const char *lit, size_t n)
{
    return a.n >= n && memcmp(a.s + a.n - n, lit, n) == 0;
}

/* Literal-only forms: the length is a compile-time constant. */
#define span_eq(a, lit)   span_eq_n((a), "" lit, sizeof(lit) - 1)
#define span_has(a, lit)  span_has_n((a), "" lit, sizeof(lit) - 1)
#define span_ends(a, lit) span_ends_n((a), "" lit, sizeof(lit) - 1)

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

static bool is_any(struct span a, const struct word *list, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (a.n == list[i].n && memcmp(a.s, list[i].s, a.n) == 0)
            return true;
    }
    return false;
}

/* Side tensors of quantised checkpoints: bitsandbytes 4-bit/8-bit, GPTQ/AWQ, FP8. */
static bool is_quant_state(const struct parts *p)
{
    static const struct word names[] = {
        W("absmax"),      W("quant_map"), W("nested_absmax"),    W("nested_quant_map"),
        W("quant_state"), W("SCB"),       W("weight_format"),    W("qzeros"),
        W("scales"),      W("g_idx"),     W("weight_scale_inv"), W("weight_scale"),
        W("input_scale")
    };
    for (size_t i = 1; i < p->n; i++) {
        if (is_any(p->c[i], names, N_WORDS(names)))
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
    static const struct word gate[] = { W("gate_proj"), W("w1"), W("wi_0") };
    static const struct word up[] = { W("up_proj"), W("w3"),  W("wi_1"),
                                      W("c_fc"),    W("fc1"), W("dense_h_to_4h") };
    static const struct word down[] = { W("down_proj"), W("w2"), W("fc2"), W("dense_4h_to_h") };
    if (is_any(m, gate, N_WORDS(gate)))
        return GPUPLAN_ROLE_MLP_GATE;
    if (is_any(m, up, N_WORDS(up)) || (span_eq(m, "wi") && span_eq(parent, "DenseReluDense")))
        return GPUPLAN_ROLE_MLP_UP;
    if (span_eq(m, "gate_up_proj"))
        return GPUPLAN_ROLE_MLP_GATE_UP;
    if (is_any(m, down, N_WORDS(down)) || (span_eq(m, "wo") && span_eq(parent, "DenseReluDense")) ||
        (span_eq(m, "c_proj") && span_eq(parent, "mlp")))
        return GPUPLAN_ROLE_MLP_DOWN;
    return GPUPLAN_ROLE_OTHER;
}

static enum gpuplan_role attention_role(struct span m, struct span parent)
{
    static const struct word qkv[] = { W("qkv_proj"), W("c_attn"), W("query_key_value"),
                                       W("Wqkv"),     W("qkv"),    W("W_pack") };
    if (span_eq(m, "q_proj") || span_eq(m, "query") || span_eq(m, "wq"))
        return GPUPLAN_ROLE_ATTN_Q;
    if (span_eq(m, "k_proj") || span_eq(m, "key") || span_eq(m, "wk"))
        return GPUPLAN_ROLE_ATTN_K;
    if (span_eq(m, "v_proj") || span_eq(m, "value") || span_eq(m, "wv"))
        return GPUPLAN_ROLE_ATTN_V;
    if (is_any(m, qkv, N_WORDS(qkv)))
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
    static const struct word embed[] = { W("embed_tokens"),    W("wte"),
                                         W("word_embeddings"), W("embed_in"),
                                         W("tok_embeddings"),  W("shared") };
    static const struct word pos[] = { W("wpe"), W("embed_positions"), W("position_embeddings") };
    if (is_any(m, embed, N_WORDS(embed)))
        return GPUPLAN_ROLE_EMBEDDING;
    if (is_any(m, pos, N_WORDS(pos)))
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

/* Reset `out` (nothing known) and split `name` into its dot-separated parts; false: no name. */
static bool
start(const char *name, size_t len, struct gpuplan_tensor_name_info *out, struct parts *p)
{
    info_init(out);
    return name && len > 0 && split(name, len, p);
}

void gpuplan_tensor_name_classify_hf(const char *name,
                                     size_t len,
                                     struct gpuplan_tensor_name_info *out)
{
    struct parts p;
    if (!start(name, len, out, &p))
        return;
    if (span_eq(p.c[0], "encoder"))
        out->stack = GPUPLAN_STACK_ENCODER;
    static const struct word block_words[] = { W("layers"), W("h"), W("block"), W("blocks"),
                                               W("blk") };
    size_t body = 0; /* first component after the block index */
    bool in_experts = false, in_shared = false;
    for (size_t i = 0; i + 1 < p.n && out->layer < 0; i++) {
        if (!is_any(p.c[i], block_words, N_WORDS(block_words)))
            continue;
        const int32_t index = span_index(p.c[i + 1]); /* parsed once */
        if (index >= 0) {
            out->layer = index;
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
    struct word base;
    enum gpuplan_role role;
    bool is_expert_stack;
} gguf_block_names[] = {
    { W("attn_q"), GPUPLAN_ROLE_ATTN_Q, false },
    { W("attn_k"), GPUPLAN_ROLE_ATTN_K, false },
    { W("attn_v"), GPUPLAN_ROLE_ATTN_V, false },
    { W("attn_qkv"), GPUPLAN_ROLE_ATTN_QKV, false },
    { W("attn_output"), GPUPLAN_ROLE_ATTN_O, false },
    { W("attn_q_a"), GPUPLAN_ROLE_MLA_Q_A, false },
    { W("attn_q_b"), GPUPLAN_ROLE_MLA_Q_B, false },
    { W("attn_kv_a_mqa"), GPUPLAN_ROLE_MLA_KV_A, false },
    { W("attn_kv_b"), GPUPLAN_ROLE_MLA_KV_B, false },
    { W("attn_k_b"), GPUPLAN_ROLE_MLA_KV_B, false },
    { W("attn_v_b"), GPUPLAN_ROLE_MLA_KV_B, false },
    { W("ffn_gate"), GPUPLAN_ROLE_MLP_GATE, false },
    { W("ffn_up"), GPUPLAN_ROLE_MLP_UP, false },
    { W("ffn_down"), GPUPLAN_ROLE_MLP_DOWN, false },
    { W("ffn_gate_inp"), GPUPLAN_ROLE_ROUTER, false },
    { W("exp_probs_b"), GPUPLAN_ROLE_ROUTER, false },
    { W("ffn_gate_exps"), GPUPLAN_ROLE_EXPERT_GATE, true },
    { W("ffn_up_exps"), GPUPLAN_ROLE_EXPERT_UP, true },
    { W("ffn_gate_up_exps"), GPUPLAN_ROLE_EXPERT_GATE_UP, true },
    { W("ffn_down_exps"), GPUPLAN_ROLE_EXPERT_DOWN, true },
    { W("ffn_gate_shexp"), GPUPLAN_ROLE_SHARED_GATE, false },
    { W("ffn_up_shexp"), GPUPLAN_ROLE_SHARED_UP, false },
    { W("ffn_down_shexp"), GPUPLAN_ROLE_SHARED_DOWN, false },
    { W("ffn_gate_inp_shexp"), GPUPLAN_ROLE_SHARED_ROUTER, false },
};

void gpuplan_tensor_name_classify_gguf(const char *name,
                                       size_t len,
                                       struct gpuplan_tensor_name_info *out)
{
    struct parts p;
    if (!start(name, len, out, &p))
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
            if (span_eq_n(base, gguf_block_names[i].base.s, gguf_block_names[i].base.n)) {
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
