/*
 * serving.c - the serving profile of a model, the request's defaults,
 * engine names and versions, the parallel layout, and weights and KV bytes
 * per rank as vLLM and SGLang load them.
 *
 * What an engine holds per rank follows its parallel linear layers (vLLM
 * vllm/model_executor/layers/linear.py and vocab_parallel_embedding.py;
 * SGLang shares the design): column/row-parallel projections are split by
 * TP, K/V projections are replicated once TP exceeds the KV heads
 * (QKVParallelLinear num_kv_head_replicas), MLA's q_a/kv_a projections and
 * the MoE router are ReplicatedLinear, routed experts are split by TP (each
 * expert's width) or by EP (whole experts), the vocabulary is padded to a
 * multiple of 64 and split by TP, and the first pipeline stage holds the
 * embedding, the last the head (and the embedding again when tied).
 * Not here: the start-up accounting (serving_memory.c), step time
 * (serving_time.c).
 */
#include "gpuplan/serving.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "estimate/device_internal.h"
#include "estimate/serving_internal.h"
#include "gpuplan/units.h"

/*
 * vLLM DEFAULT_VOCAB_PADDING_SIZE = 64
 * (vllm/model_executor/layers/vocab_parallel_embedding.py, pad_vocab_size).
 */
#define VOCAB_PADDING 64u

/* Gemma3TextConfig.sliding_window_pattern default (transformers
 * configuration_gemma3.py): layer i is full attention iff (i + 1) % 6 == 0. */
#define GEMMA3_SLIDING_PATTERN 6u

static double max2(double a, double b)
{
    return a > b ? a : b;
}

/* ---- names and versions ------------------------------------------------ */

static const char *const engine_names[GPUPLAN_SERVING_ENGINE_COUNT] = { "vllm", "sglang" };
static const char *const kv_names[GPUPLAN_SERVING_KV_COUNT] = { "auto", "fp8", "bf16", "fp16",
                                                                "fp32" };

const char *gpuplan_serving_engine_name(enum gpuplan_serving_engine engine)
{
    return (unsigned)engine < GPUPLAN_SERVING_ENGINE_COUNT ? engine_names[engine] : "unknown";
}

const char *gpuplan_serving_kv_dtype_name(enum gpuplan_serving_kv_dtype kv)
{
    return (unsigned)kv < GPUPLAN_SERVING_KV_COUNT ? kv_names[kv] : "unknown";
}

enum gpuplan_status gpuplan_serving_engine_from_name(const char *name,
                                                     enum gpuplan_serving_engine *out,
                                                     struct gpuplan_error *err)
{
    for (unsigned i = 0; name && i < GPUPLAN_SERVING_ENGINE_COUNT; i++) {
        if (strcasecmp(name, engine_names[i]) == 0) {
            *out = (enum gpuplan_serving_engine)i;
            return GPUPLAN_OK;
        }
    }
    gpuplan_error_set(err, GPUPLAN_ERR_USAGE, NULL, "unknown engine '%s'; must be vllm or sglang",
                      name ? name : "");
    gpuplan_error_hint(err, "pass --engine vllm or --engine sglang");
    return GPUPLAN_ERR_USAGE;
}

enum gpuplan_status gpuplan_serving_kv_dtype_from_name(const char *name,
                                                       enum gpuplan_serving_kv_dtype *out,
                                                       struct gpuplan_error *err)
{
    static const struct {
        const char *name;
        enum gpuplan_serving_kv_dtype kv;
    } aliases[] = {
        { "auto", GPUPLAN_SERVING_KV_AUTO },    { "fp8", GPUPLAN_SERVING_KV_FP8 },
        { "fp8_e4m3", GPUPLAN_SERVING_KV_FP8 }, { "fp8_e5m2", GPUPLAN_SERVING_KV_FP8 },
        { "bf16", GPUPLAN_SERVING_KV_BF16 },    { "bfloat16", GPUPLAN_SERVING_KV_BF16 },
        { "fp16", GPUPLAN_SERVING_KV_FP16 },    { "float16", GPUPLAN_SERVING_KV_FP16 },
        { "half", GPUPLAN_SERVING_KV_FP16 },    { "fp32", GPUPLAN_SERVING_KV_FP32 },
        { "float32", GPUPLAN_SERVING_KV_FP32 }, { "float", GPUPLAN_SERVING_KV_FP32 },
    };
    for (size_t i = 0; name && i < sizeof aliases / sizeof aliases[0]; i++) {
        if (strcasecmp(name, aliases[i].name) == 0) {
            *out = aliases[i].kv;
            return GPUPLAN_OK;
        }
    }
    gpuplan_error_set(err, GPUPLAN_ERR_USAGE, NULL,
                      "unknown KV cache dtype '%s'; must be auto, fp8, bf16, fp16 or fp32",
                      name ? name : "");
    gpuplan_error_hint(err, "auto follows the model's dtype, as --kv-cache-dtype auto does");
    return GPUPLAN_ERR_USAGE;
}

static bool parse_component(const char **p, uint32_t *out)
{
    const char *s = *p;
    uint64_t v = 0;
    if (*s < '0' || *s > '9')
        return false;
    while (*s >= '0' && *s <= '9') {
        v = v * 10u + (uint64_t)(*s - '0');
        if (v > 999u)
            return false;
        s++;
    }
    *out = (uint32_t)v;
    *p = s;
    return true;
}

bool gpuplan_serving_version_parse(const char *text,
                                   uint32_t *major,
                                   uint32_t *minor,
                                   uint32_t *patch)
{
    if (!text)
        return false;
    const char *p = text;
    if (*p == 'v' || *p == 'V')
        p++;
    uint32_t ma = 0, mi = 0, pa = 0;
    if (!parse_component(&p, &ma) || *p != '.')
        return false;
    p++;
    if (!parse_component(&p, &mi))
        return false;
    if (*p == '.') {
        const char *q = p + 1;
        if (parse_component(&q, &pa))
            p = q;
    }
    *major = ma;
    *minor = mi;
    *patch = pa;
    return true;
}

bool serving_version_from_text(const char *text, struct serving_version *out)
{
    if (!gpuplan_serving_version_parse(text, &out->major, &out->minor, &out->patch))
        return false;
    out->key = SERVING_VERSION_KEY(out->major, out->minor, out->patch);
    return true;
}

void gpuplan_serving_request_init(struct gpuplan_serving_request *req)
{
    memset(req, 0, sizeof *req);
    req->engine = GPUPLAN_SERVING_VLLM;
    req->kv_dtype = GPUPLAN_SERVING_KV_AUTO;
    req->tp = 1;
    req->pp = 1;
    req->ep = 1;
    req->weights_dtype = GPUPLAN_DTYPE_UNKNOWN;
}

/* ---- the profile -------------------------------------------------------- */

static enum gpuplan_serving_wclass class_of(enum gpuplan_role role)
{
    switch (role) {
    case GPUPLAN_ROLE_ATTN_Q:
    case GPUPLAN_ROLE_ATTN_O:
    case GPUPLAN_ROLE_MLA_Q_B:
    case GPUPLAN_ROLE_MLA_KV_B:
    case GPUPLAN_ROLE_BIAS:
        return GPUPLAN_SERVING_W_ATTN_TP;
    case GPUPLAN_ROLE_ATTN_K:
    case GPUPLAN_ROLE_ATTN_V:
        return GPUPLAN_SERVING_W_ATTN_KV;
    case GPUPLAN_ROLE_MLP_GATE:
    case GPUPLAN_ROLE_MLP_UP:
    case GPUPLAN_ROLE_MLP_GATE_UP:
    case GPUPLAN_ROLE_MLP_DOWN:
    case GPUPLAN_ROLE_SHARED_GATE:
    case GPUPLAN_ROLE_SHARED_UP:
    case GPUPLAN_ROLE_SHARED_DOWN:
        return GPUPLAN_SERVING_W_MLP_TP;
    case GPUPLAN_ROLE_EXPERT_GATE:
    case GPUPLAN_ROLE_EXPERT_UP:
    case GPUPLAN_ROLE_EXPERT_GATE_UP:
    case GPUPLAN_ROLE_EXPERT_DOWN:
        return GPUPLAN_SERVING_W_EXPERTS;
    default: /* MLA q_a/kv_a, router, norms, anything else inside a block */
        return GPUPLAN_SERVING_W_REPLICATED;
    }
}

/* Routers stay in the activation dtype under every weight format vLLM loads. */
static bool is_quantisable(enum gpuplan_role role)
{
    return gpuplan_role_is_linear(role) && role != GPUPLAN_ROLE_ROUTER &&
           role != GPUPLAN_ROLE_SHARED_ROUTER;
}

static void block_add(struct gpuplan_serving_block *b,
                      enum gpuplan_serving_wclass c,
                      double params,
                      double bytes,
                      bool linear)
{
    b->params[c] += (uint64_t)params;
    b->bytes[c] += (uint64_t)bytes;
    if (linear) {
        b->linear_params[c] += (uint64_t)params;
        b->linear_bytes[c] += (uint64_t)bytes;
    }
}

/* A fused qkv matrix: the q rows are split like q, the k/v rows like k and v. */
static void add_fused_qkv(struct gpuplan_serving_block *b,
                          const struct gpuplan_arch *a,
                          const struct gpuplan_tensor_group *g)
{
    const double q = (double)a->n_heads;
    const double kv = (double)(a->n_kv_heads ? a->n_kv_heads : a->n_heads);
    const double q_share = q / (q + 2.0 * kv);
    const double params = (double)g->n_params, bytes = (double)g->n_bytes;
    block_add(b, GPUPLAN_SERVING_W_ATTN_TP, params * q_share, bytes * q_share, true);
    block_add(b, GPUPLAN_SERVING_W_ATTN_KV, params * (1.0 - q_share), bytes * (1.0 - q_share),
              true);
}

static void scale_block(struct gpuplan_serving_block *b, uint32_t n_layers)
{
    if (n_layers <= 1)
        return;
    for (int c = 0; c < GPUPLAN_SERVING_W_COUNT; c++) {
        b->params[c] /= n_layers;
        b->bytes[c] /= n_layers;
        b->linear_params[c] /= n_layers;
        b->linear_bytes[c] /= n_layers;
    }
}

static bool is_wide_float(enum gpuplan_dtype d)
{
    return d == GPUPLAN_DTYPE_BF16 || d == GPUPLAN_DTYPE_F16 || d == GPUPLAN_DTYPE_F32;
}

/*
 * Per-layer attention kinds from what struct gpuplan_arch holds. The HF
 * config's layer_types / sliding_window_pattern / attention_chunk_size are
 * not in the inventory, so the family's modeling code decides:
 *  - gemma2 (modeling_gemma2.py): is_sliding = not bool(layer_idx % 2);
 *  - gemma3 (modeling_gemma3.py): full iff (layer_idx + 1) % pattern == 0,
 *    pattern 6 (Gemma3TextConfig default);
 *  - any other family with a window (Mistral v0.1, Qwen2 with
 *    use_sliding_window): every layer slides.
 */
static void derive_layout(struct gpuplan_serving_profile *p, const struct gpuplan_arch *a)
{
    const uint32_t n = a->n_layers;
    const uint64_t w = a->sliding_window;
    p->n_attn_layers[GPUPLAN_SERVING_ATTN_FULL] = n;
    if (w == 0 || w >= p->max_position_embeddings) {
        (void)snprintf(p->layout_note, sizeof p->layout_note, "%u full-attention layers", n);
        return;
    }
    uint32_t sliding = n;
    if (strcmp(a->family, "gemma2") == 0) {
        sliding = (n + 1) / 2;
        (void)snprintf(p->layout_note, sizeof p->layout_note,
                       "gemma2: even layers slide (window %llu), odd layers full",
                       (unsigned long long)w);
    } else if (strncmp(a->family, "gemma3", 6) == 0) {
        sliding = n - n / GEMMA3_SLIDING_PATTERN;
        (void)snprintf(p->layout_note, sizeof p->layout_note,
                       "gemma3: 1 full layer in %u (sliding_window_pattern default), window %llu",
                       GEMMA3_SLIDING_PATTERN, (unsigned long long)w);
    } else {
        (void)snprintf(p->layout_note, sizeof p->layout_note,
                       "%s: every layer slides (window %llu)", a->family, (unsigned long long)w);
    }
    p->n_attn_layers[GPUPLAN_SERVING_ATTN_SLIDING] = sliding;
    p->n_attn_layers[GPUPLAN_SERVING_ATTN_FULL] = n - sliding;
    p->window_tokens[GPUPLAN_SERVING_ATTN_SLIDING] = w;
}

static void fill_shape(struct gpuplan_serving_profile *p, const struct gpuplan_arch *a)
{
    p->n_layers = a->n_layers;
    p->hidden = a->hidden_size;
    p->n_heads = a->n_heads;
    p->vocab = a->vocab_size;
    p->max_position_embeddings = a->max_position_embeddings;
    p->intermediate = a->intermediate_size;
    p->moe_intermediate = a->moe_intermediate_size;
    p->n_experts = a->n_experts;
    p->n_experts_per_token = a->n_experts_per_token;
    p->tied_embeddings = a->tied_embeddings;
    p->is_mla = a->is_mla;
    const uint64_t head_dim = a->head_dim ? a->head_dim : a->hidden_size / a->n_heads;
    if (a->is_mla) {
        /* MLAAttentionSpec: one latent "head" of kv_lora_rank + qk_rope_head_dim. */
        p->n_kv_heads = 1;
        p->head_dim = a->kv_lora_rank + a->qk_rope_head_dim;
        p->head_dim_v = 0;
        p->q_head_dim = a->qk_nope_head_dim + a->qk_rope_head_dim;
        p->v_head_dim = a->v_head_dim;
        p->rotary_dim = a->qk_rope_head_dim;
    } else {
        p->n_kv_heads = a->n_kv_heads ? a->n_kv_heads : a->n_heads;
        p->head_dim = head_dim;
        p->head_dim_v = head_dim;
        p->q_head_dim = head_dim;
        p->v_head_dim = head_dim;
        /* Learned (gpt2) or ALiBi (bloom, mpt) positions: no rotary cache. */
        const bool rope = strcmp(a->family, "gpt2") != 0 && strcmp(a->family, "bloom") != 0 &&
                          strcmp(a->family, "mpt") != 0;
        p->rotary_dim = rope ? head_dim : 0;
    }
    if (a->is_moe) {
        p->n_dense_layers = a->n_dense_layers < a->n_layers ? a->n_dense_layers : 0;
        p->n_moe_layers = a->n_layers - p->n_dense_layers;
    } else {
        p->n_dense_layers = a->n_layers;
    }
}

static void add_group(struct gpuplan_serving_profile *p,
                      const struct gpuplan_arch *a,
                      const struct gpuplan_tensor_group *g,
                      enum gpuplan_dtype *embed_dtype)
{
    if (g->layer < 0) {
        if (g->role == GPUPLAN_ROLE_EMBEDDING || g->role == GPUPLAN_ROLE_POS_EMBEDDING) {
            p->embed_params += g->n_params;
            p->embed_bytes += g->n_bytes;
            if (g->role == GPUPLAN_ROLE_EMBEDDING)
                *embed_dtype = g->dtype;
        } else if (g->role == GPUPLAN_ROLE_LM_HEAD) {
            p->head_params += g->n_params;
            p->head_bytes += g->n_bytes;
        } else {
            p->other_bytes += g->n_bytes;
        }
        return;
    }
    const bool moe = a->is_moe && (uint32_t)g->layer >= p->n_dense_layers;
    struct gpuplan_serving_block *b = moe ? &p->moe_block : &p->dense_block;
    if (g->role == GPUPLAN_ROLE_ATTN_QKV) {
        add_fused_qkv(b, a, g);
        return;
    }
    block_add(b, class_of(g->role), (double)g->n_params, (double)g->n_bytes,
              is_quantisable(g->role));
}

enum gpuplan_status gpuplan_serving_profile_build(struct gpuplan_serving_profile *p,
                                                  const struct gpuplan_model *model,
                                                  struct gpuplan_error *err)
{
    memset(p, 0, sizeof *p);
    if (!model->has_arch || model->arch.n_layers == 0 || model->arch.n_heads == 0)
        return gpuplan_error_set(err, GPUPLAN_ERR_INVALID_CONFIG, model->id,
                                 "model '%s' has no layer or head counts; a serving estimate "
                                 "needs the architecture",
                                 model->id);
    const struct gpuplan_arch *a = &model->arch;
    if (a->is_encoder_decoder || a->n_encoder_layers > 0) {
        gpuplan_error_set(err, GPUPLAN_ERR_UNSUPPORTED, model->id,
                          "'%s' is an encoder-decoder model; the serving model covers "
                          "decoder-only models",
                          a->family);
        gpuplan_error_hint(err, "estimate it with --method infer instead");
        return GPUPLAN_ERR_UNSUPPORTED;
    }
    (void)snprintf(p->model_id, sizeof p->model_id, "%s", model->id);
    fill_shape(p, a);
    enum gpuplan_dtype embed_dtype = GPUPLAN_DTYPE_UNKNOWN;
    for (size_t i = 0; i < model->n_groups; i++)
        add_group(p, a, &model->groups[i], &embed_dtype);
    scale_block(&p->dense_block, p->n_dense_layers);
    scale_block(&p->moe_block, p->n_moe_layers);
    p->model_dtype = is_wide_float(embed_dtype) ? embed_dtype : GPUPLAN_DTYPE_BF16;
    p->active_params = model->n_params_active ? model->n_params_active : model->n_params_total;
    derive_layout(p, a);
    return GPUPLAN_OK;
}

/* ---- layout ------------------------------------------------------------ */

/*
 * vLLM get_pp_indices (vllm/distributed/utils.py): L // pp layers per stage,
 * the remainder added one each to the stages before the last.
 */
static uint32_t stage_layer_count(uint32_t n_layers, uint32_t pp, uint32_t stage)
{
    uint32_t n = n_layers / pp;
    const uint32_t rem = n_layers % pp;
    if (rem && stage + 1 < pp && stage + 1 + rem >= pp)
        n++;
    return n;
}

static double stage_bytes(const struct gpuplan_serving_profile *p,
                          const struct serving_layout *l,
                          uint32_t dense,
                          uint32_t moe,
                          bool embed,
                          bool head)
{
    struct serving_layout s = *l;
    s.stage_dense_layers = dense;
    s.stage_moe_layers = moe;
    s.stage_has_embed = embed;
    s.stage_has_head = head;
    return serving_weights_rank_bytes(p, &s, GPUPLAN_DTYPE_UNKNOWN);
}

static void pick_worst_stage(const struct gpuplan_serving_profile *p, struct serving_layout *l)
{
    double worst = -1.0;
    uint32_t start = 0;
    for (uint32_t s = 0; s < l->pp; s++) {
        const uint32_t n = stage_layer_count(p->n_layers, l->pp, s);
        const uint32_t dense_end = p->n_dense_layers;
        const uint32_t dense =
            start >= dense_end ? 0 : (start + n <= dense_end ? n : dense_end - start);
        const bool embed = s == 0 || (p->tied_embeddings && s + 1 == l->pp);
        const bool head = s + 1 == l->pp;
        const double b = stage_bytes(p, l, dense, n - dense, embed, head);
        if (b > worst) {
            worst = b;
            l->stage_layers = n;
            l->stage_dense_layers = dense;
            l->stage_moe_layers = n - dense;
            l->stage_has_embed = embed;
            l->stage_has_head = head;
        }
        start += n;
    }
}

enum gpuplan_status serving_layout_resolve(const struct gpuplan_serving_profile *p,
                                           const struct gpuplan_serving_request *req,
                                           struct serving_layout *out,
                                           struct gpuplan_error *err)
{
    memset(out, 0, sizeof *out);
    out->tp = req->tp ? req->tp : 1;
    out->pp = req->pp ? req->pp : 1;
    out->ep = req->ep ? req->ep : 1;
    if (p->n_layers == 0 || p->n_heads == 0)
        return gpuplan_error_set(err, GPUPLAN_ERR_INVALID_CONFIG, p->model_id,
                                 "the serving profile of '%s' has no layers or heads", p->model_id);
    if (p->n_heads % out->tp != 0) {
        gpuplan_error_set(err, GPUPLAN_ERR_USAGE, "tp",
                          "--tensor-parallel-size %u does not divide the %llu attention heads",
                          out->tp, (unsigned long long)p->n_heads);
        gpuplan_error_hint(err, "pick a TP size that divides the heads (vLLM asserts it)");
        return GPUPLAN_ERR_USAGE;
    }
    if (out->pp > p->n_layers) {
        gpuplan_error_set(err, GPUPLAN_ERR_USAGE, "pp",
                          "--pipeline-parallel-size %u is more than the %u layers", out->pp,
                          p->n_layers);
        gpuplan_error_hint(err, "use at most one stage per layer");
        return GPUPLAN_ERR_USAGE;
    }
    /* A layer's experts are split over the GPUs of its stage (vLLM --enable-expert-parallel:
     * EP = TP within one replica): the expert-parallel size must divide the TP size. */
    if (out->ep > 1 && out->tp % out->ep != 0) {
        gpuplan_error_set(err, GPUPLAN_ERR_USAGE, "ep",
                          "expert parallel size %u does not divide the tensor parallel size %u",
                          out->ep, out->tp);
        gpuplan_error_hint(err, "use --ep equal to --tp (vLLM --enable-expert-parallel), or "
                                "leave --ep out");
        return GPUPLAN_ERR_USAGE;
    }
    if (out->ep > 1 && (p->n_experts == 0 || p->n_experts % out->ep != 0)) {
        gpuplan_error_set(err, GPUPLAN_ERR_USAGE, "ep",
                          "expert parallel size %u does not divide the %u routed experts", out->ep,
                          p->n_experts);
        gpuplan_error_hint(err, "expert parallelism needs an MoE model whose experts split evenly");
        return GPUPLAN_ERR_USAGE;
    }
    const uint64_t kv = p->n_kv_heads ? p->n_kv_heads : p->n_heads;
    out->kv_heads_rank = p->is_mla ? 1 : (kv >= out->tp ? kv / out->tp : 1);
    pick_worst_stage(p, out);
    return GPUPLAN_OK;
}

/* ---- weights and KV per rank -------------------------------------------- */

static double class_factor(const struct gpuplan_serving_profile *p,
                           const struct serving_layout *l,
                           enum gpuplan_serving_wclass c)
{
    const double tp = (double)l->tp;
    switch (c) {
    case GPUPLAN_SERVING_W_ATTN_TP:
    case GPUPLAN_SERVING_W_MLP_TP:
        return 1.0 / tp;
    case GPUPLAN_SERVING_W_ATTN_KV: {
        const double kv = (double)(p->n_kv_heads ? p->n_kv_heads : p->n_heads);
        return (double)l->kv_heads_rank / kv;
    }
    case GPUPLAN_SERVING_W_EXPERTS:
        return l->ep > 1 ? 1.0 / (double)l->ep : 1.0 / tp;
    case GPUPLAN_SERVING_W_REPLICATED:
    case GPUPLAN_SERVING_W_COUNT:
    default:
        return 1.0;
    }
}

static double class_bytes(const struct gpuplan_serving_block *b,
                          enum gpuplan_serving_wclass c,
                          enum gpuplan_dtype weights_dtype)
{
    double bytes = (double)b->bytes[c];
    uint64_t q = 0;
    if (weights_dtype != GPUPLAN_DTYPE_UNKNOWN && b->linear_params[c] > 0 &&
        gpuplan_dtype_bytes(weights_dtype, b->linear_params[c], false, &q))
        bytes = bytes - (double)b->linear_bytes[c] + (double)q;
    return bytes;
}

double serving_block_rank_bytes(const struct gpuplan_serving_profile *p,
                                const struct serving_layout *l,
                                enum gpuplan_dtype weights_dtype,
                                bool moe,
                                bool experts)
{
    const struct gpuplan_serving_block *b = moe ? &p->moe_block : &p->dense_block;
    double total = 0.0;
    for (int c = 0; c < GPUPLAN_SERVING_W_COUNT; c++) {
        if ((c == GPUPLAN_SERVING_W_EXPERTS) != experts)
            continue;
        total += class_bytes(b, (enum gpuplan_serving_wclass)c, weights_dtype) *
                 class_factor(p, l, (enum gpuplan_serving_wclass)c);
    }
    return total;
}

uint64_t serving_padded_vocab(uint64_t vocab)
{
    return (vocab + VOCAB_PADDING - 1) / VOCAB_PADDING * VOCAB_PADDING;
}

/*
 * Weights of one rank: its stage's blocks, its vocabulary shard of the
 * embedding/head (padded), and RotaryEmbedding's cos_sin_cache buffer,
 * max_position_embeddings x rotary_dim in the model dtype
 * (vllm/model_executor/layers/rotary_embedding.py _compute_cos_sin_cache,
 * one cache shared by all layers). Checked against "Model loading took":
 * Llama-3.1-8B 14.9889 GiB = 14.958 (params) + 0.031 (131072 x 128 x 2 B),
 * granite-4.0-micro fp8 3.4244 = 3.4086 + 0.0156 (validation/serving.md).
 */
double serving_weights_rank_bytes(const struct gpuplan_serving_profile *p,
                                  const struct serving_layout *l,
                                  enum gpuplan_dtype weights_dtype)
{
    double total = 0.0;
    total += (double)l->stage_dense_layers *
             (serving_block_rank_bytes(p, l, weights_dtype, false, false) +
              serving_block_rank_bytes(p, l, weights_dtype, false, true));
    total +=
        (double)l->stage_moe_layers * (serving_block_rank_bytes(p, l, weights_dtype, true, false) +
                                       serving_block_rank_bytes(p, l, weights_dtype, true, true));
    const double pad = p->vocab ? (double)serving_padded_vocab(p->vocab) / (double)p->vocab : 1.0;
    if (l->stage_has_embed)
        total += (double)p->embed_bytes * pad / (double)l->tp;
    if (l->stage_has_head) {
        total += (double)p->head_bytes * pad / (double)l->tp + (double)p->other_bytes;
        if (p->tied_embeddings && !l->stage_has_embed)
            total += (double)p->embed_bytes * pad / (double)l->tp;
    }
    const double dtype_bytes = gpuplan_dtype_bits(p->model_dtype) / GPUPLAN_BITS_PER_BYTE;
    total += (double)p->max_position_embeddings * (double)p->rotary_dim * dtype_bytes;
    return total;
}

double serving_kv_elem_bytes(const struct gpuplan_serving_profile *p,
                             enum gpuplan_serving_kv_dtype kv,
                             enum gpuplan_dtype *element)
{
    enum gpuplan_dtype d = p->model_dtype;
    switch (kv) {
    case GPUPLAN_SERVING_KV_FP8:
        d = GPUPLAN_DTYPE_F8_E4M3;
        break;
    case GPUPLAN_SERVING_KV_BF16:
        d = GPUPLAN_DTYPE_BF16;
        break;
    case GPUPLAN_SERVING_KV_FP16:
        d = GPUPLAN_DTYPE_F16;
        break;
    case GPUPLAN_SERVING_KV_FP32:
        d = GPUPLAN_DTYPE_F32;
        break;
    case GPUPLAN_SERVING_KV_AUTO:
    case GPUPLAN_SERVING_KV_COUNT:
    default:
        if (!is_wide_float(d))
            d = GPUPLAN_DTYPE_BF16;
        break;
    }
    if (element)
        *element = d;
    return gpuplan_dtype_bits(d) / GPUPLAN_BITS_PER_BYTE;
}

/*
 * vllm/v1/kv_cache_interface.py: AttentionSpec.real_page_size_bytes =
 * block x num_kv_heads x (head_size + head_size_v) x dtype; MLAAttentionSpec
 * = block x 1 x (kv_lora_rank + qk_rope_head_dim) x dtype (the latent is not
 * split by TP). Per token: the same without the block.
 */
uint64_t serving_kv_token_layer_bytes(const struct gpuplan_serving_profile *p,
                                      const struct serving_layout *l,
                                      double elem_bytes)
{
    const double dims = (double)(p->head_dim + p->head_dim_v);
    const double heads = (double)l->kv_heads_rank;
    return (uint64_t)llround(heads * dims * elem_bytes);
}

uint32_t serving_stage_kind_layers(const struct gpuplan_serving_profile *p,
                                   const struct serving_layout *l,
                                   enum gpuplan_serving_attn kind)
{
    if (p->n_layers == 0)
        return 0;
    const uint64_t n = (uint64_t)p->n_attn_layers[kind] * l->stage_layers;
    return (uint32_t)((n + p->n_layers - 1) / p->n_layers);
}

/*
 * Activation peak of one forward pass of n tokens on one rank: the residual
 * stream (input and residual, 2h) plus the larger of the attention block's
 * transients (qkv projection output and the attention output) and the MLP's
 * (gate_up output 2I and the activation output I; for an MoE block the
 * fused_moe intermediate caches per routed copy, k x (2I_e + I_e + h),
 * vllm/model_executor/layers/fused_moe/fused_moe.py, plus the shared
 * experts), all in the 2-byte activation dtype, per rank (TP-split widths).
 * Layers run one after another, so one block's transients bound the peak.
 */
double serving_forward_peak_bytes(const struct gpuplan_serving_profile *p,
                                  const struct serving_layout *l,
                                  double n_tokens)
{
    const double act_bytes = 2.0;
    const double tp = (double)l->tp;
    const double h = (double)p->hidden;
    const double q = (double)p->n_heads * (double)p->q_head_dim / tp;
    const double kv = p->is_mla ? (double)p->n_heads * (double)(p->q_head_dim + p->v_head_dim) / tp
                                : 2.0 * (double)l->kv_heads_rank * (double)p->head_dim;
    const double attn_out = (double)p->n_heads * (double)p->v_head_dim / tp;
    const double attn = q + kv + attn_out;
    const double dense = 3.0 * (double)p->intermediate / tp;
    double moe = 0.0;
    if (p->n_moe_layers > 0) {
        const double ie = (double)p->moe_intermediate / (l->ep > 1 ? 1.0 : tp);
        moe = (double)p->n_experts_per_token * (3.0 * ie + h);
    }
    return n_tokens * act_bytes * (2.0 * h + max2(attn, max2(dense, moe)));
}

/* ---- device memory -------------------------------------------------------- */

/*
 * Total memory as torch.cuda.mem_get_info() reports it, logged by vLLM as
 * total_gpu_memory (V0) or implied by its budget lines; per catalog id.
 */
static const struct {
    const char *gpu_id;
    double total_gib;
    const char *source;
} logged_totals[] = {
    { "h100-sxm", 79.22, "vllm-project/vllm PR #10511 comment 2024-12-14 (79.10 in PR #10927)" },
    { "l40s", 44.39, "vLLM 0.7.2 log on an L40 (46068 MiB, as the L40S), 2026-03-01" },
    { "a10g", 22.06, "vLLM 0.7.2 log on an A10 (23028 MiB, as the A10G), 2026-03-01" },
    { "t4", 14.56, "vLLM 0.7 log on a T4 (15360 MiB), 2024-08-01" },
    { "rtx-3090", 23.58, "vllm-project/vllm PR #14447 log (RTX 3090), 2025-04-12" },
    { "mi300x", 191.98, "vllm-project/vllm#53961 (2026-08-26): MI300X's 191.98 GiB" },
};

/*
 * nvidia-smi total minus the engines' total on the GPUs above: H100 0.43,
 * L40 0.60, A10 0.43, T4 0.44, RTX 3090 0.42 GiB; median 0.43 GiB.
 */
#define DRIVER_RESERVED_GIB 0.43
/*
 * Binary-sized memory parts: an "80 GB" H100 has 80 GiB, of which
 * nvidia-smi shows 81559 MiB (81559 / 81920 = 0.99559).
 */
#define VISIBLE_OF_PHYSICAL (81559.0 / 81920.0)

uint64_t gpuplan_serving_device_total_bytes(const struct gpuplan_gpu *gpu)
{
    if (!gpu)
        return 0;
    for (size_t i = 0; i < sizeof logged_totals / sizeof logged_totals[0]; i++) {
        if (strcmp(gpu->id, logged_totals[i].gpu_id) == 0)
            return gpuplan_bytes_from_double(logged_totals[i].total_gib *
                                             (double)GPUPLAN_BYTES_PER_GIB);
    }
    const double reserved = DRIVER_RESERVED_GIB * (double)GPUPLAN_BYTES_PER_GIB;
    if (gpu->memory_visible_bytes > 0)
        return gpuplan_bytes_from_double((double)gpu->memory_visible_bytes - reserved);
    const double datasheet_gib = (double)gpu->memory_bytes / (double)GPUPLAN_BYTES_PER_GB;
    return gpuplan_bytes_from_double(
        datasheet_gib * VISIBLE_OF_PHYSICAL * (double)GPUPLAN_BYTES_PER_GIB - reserved);
}

uint64_t serving_device_total(const struct gpuplan_serving_request *req,
                              const struct gpuplan_gpu *gpu)
{
    return req->device_total_bytes ? req->device_total_bytes
                                   : gpuplan_serving_device_total_bytes(gpu);
}

/*
 * CUDA context per process (docs/formulas.md "Overheads"): the one table of
 * device_internal.h; a GPU of another vendor gets the Hopper-and-later
 * figure, the largest of the table (serving's choice since the module came:
 * no measurement backs a ROCm or Gaudi figure).
 */
#define SERVING_OTHER_VENDOR_CONTEXT_MIB 600U

double serving_cuda_context_bytes(const struct gpuplan_gpu *gpu)
{
    return gpuplan_cuda_context_bytes(gpu, SERVING_OTHER_VENDOR_CONTEXT_MIB);
}

/* ---- log helpers ---------------------------------------------------------- */

void serving_log(struct gpuplan_serving_memory *m, const char *fmt, ...)
{
    if (m->n_log >= GPUPLAN_SERVING_MAX_LOG_LINES)
        return;
    va_list ap;
    va_start(ap, fmt);
    (void)vsnprintf(m->log[m->n_log], sizeof m->log[m->n_log], fmt, ap);
    va_end(ap);
    m->n_log++;
}

const char *serving_thousands(uint64_t v, char *buf, size_t cap)
{
    char digits[32];
    const int n = snprintf(digits, sizeof digits, "%llu", (unsigned long long)v);
    size_t o = 0;
    for (int i = 0; i < n && o + 2 < cap; i++) {
        if (i > 0 && (n - i) % 3 == 0)
            buf[o++] = ',';
        buf[o++] = digits[i];
    }
    buf[o] = '\0';
    return buf;
}
