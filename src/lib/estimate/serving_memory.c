/*
 * serving_memory.c - the start-up memory accounting of vLLM and SGLang on
 * one GPU: the KV pool, its blocks, KV capacity and max concurrency,
 * refused starts, OOM at CUDA graph capture, and the engine's log lines.
 *
 * vLLM (docs/serving.md has the version table and every source):
 *   requested = total x gpu_memory_utilization
 *   available = requested - weights - activation peak - non-torch
 *               [- CUDA graph estimate, >= 0.21]
 *   blocks    = floor(available / (page x layers per KV group))
 * as vllm/v1/worker/gpu_worker.py determine_available_memory and
 * vllm/v1/core/kv_cache_utils.py (get_num_blocks, get_kv_cache_groups,
 * get_max_concurrency_for_kv_cache_config, _check_enough_kv_cache_memory,
 * estimate_max_model_len) compute them; V0 (vllm/worker/worker.py
 * determine_num_available_blocks, 0.6.5+) has the same terms.
 * SGLang (python/sglang/srt/model_executor/model_runner.py
 * profile_max_num_token):
 *   rest   = free_at_start x mem_fraction_static - weights
 *   tokens = rest / (KV bytes per token, all layers)
 * where the weights are what the caching allocator reserved for them plus
 * an fp32 rotary cache (sglang_weight_slack, sglang_rope_bytes)
 * with the default fraction of server_args.py _handle_gpu_memory_settings.
 * Not here: step time (serving_time.c).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "estimate/serving_internal.h"
#include "gpuplan/serving.h"
#include "gpuplan/units.h"
#include "util/i18n_internal.h"

static double max2(double a, double b)
{
    return a > b ? a : b;
}

static double min2(double a, double b)
{
    return a < b ? a : b;
}

static double gib(double bytes)
{
    return bytes / (double)GPUPLAN_BYTES_PER_GIB;
}

static uint64_t cdiv(uint64_t a, uint64_t b)
{
    return b ? (a + b - 1) / b : 0;
}

/* ---- constants ------------------------------------------------------------- */

/* vLLM CacheConfig.gpu_memory_utilization default, every version modelled. */
#define VLLM_DEFAULT_UTILIZATION 0.9
/* vLLM default block size on CUDA (CacheConfig block_size 16). */
#define VLLM_DEFAULT_BLOCK 16u
/*
 * FlashMLA's paged KV needs 64-token blocks; vLLM selects it for MLA models
 * on Hopper and newer and sets the block size to 64 (vLLM 0.7.3+ MLA
 * backends, docs/serving.md; not re-read at a tag).
 */
#define VLLM_MLA_BLOCK 64u
/* V0 SchedulerConfig: max_num_seqs 256; without chunked prefill
 * max_num_batched_tokens = max(max_model_len, 2048) (_DEFAULT_MAX_NUM_BATCHED_TOKENS). */
#define VLLM_V0_MAX_NUM_SEQS 256u
#define VLLM_V0_MIN_BATCHED  2048u
/*
 * V0 turns chunked prefill on by itself for the OpenAI server when
 * max_model_len > 32K, with 2048 batched tokens (vllm/engine/arg_utils.py;
 * from memory of the 0.6 code, not re-read at a tag).
 */
#define VLLM_V0_LONG_CONTEXT 32768u
/*
 * V1 batch defaults (vllm/engine/arg_utils.py EngineArgs.get_batch_defaults,
 * PR #17885, 0.9+): on a device with >= 70 GiB that is not an A100, the
 * server batches 8192 tokens (LLM class 16384) and 1024 sequences; else
 * 2048 (LLM 8192) and 256. 0.8.x: 2048 / 8192 and 256 everywhere. From
 * 0.27 (PR #51726) a >= 160 GiB device batches 16384 in the server too.
 */
#define VLLM_V1_BIG_DEVICE_GIB  70.0
#define VLLM_V1_HUGE_DEVICE_GIB 160.0

/*
 * Sampler bytes per (sequence x vocabulary entry) alive at the profile run's
 * sampling peak.
 * V1 (vllm/v1/sample/sampler.py + ops/topk_topp_sampler.py, PyTorch path,
 * counted from the code): the model-dtype logits (2), their fp32 copy (4),
 * sort values (4) and int64 indices (8), the top-k mask (1), the softmax
 * (4) and the top-p mask (1): 24.
 * V0 (vllm/model_executor/layers/sampler.py): measured on five V0 logs
 * whose peak is the sampler's (256 sequences, vocabularies 128256-152064):
 * 38.6, 38.6, 38.6, 39.2, 41.2 B; the median, 38.6, is used (not derived:
 * V0 also keeps probabilities and log-probabilities; validation/serving.md).
 */
#define V1_SAMPLER_BYTES_PER_LOGIT 24.0
#define V0_SAMPLER_BYTES_PER_LOGIT 38.6

/*
 * Non-torch memory in the profile window at TP 1: cuBLAS/attention library
 * workspaces and lazily loaded kernels. Median of six V0 0.6.6-0.7.x logs
 * (0.16, 0.08, 0.05, 0.09, 0.11, 0.20 GiB; validation/serving.md) = 0.10.
 * With TP or PP > 1 NCCL and the custom all-reduce add buffers: the 256 MiB
 * gpuplan states for NCCL (docs/formulas.md "Overheads"); a multi-GPU V0
 * 0.7 log shows 0.36 GiB, the sum.
 */
#define NON_TORCH_TP1_GIB 0.10
#define NCCL_BUFFERS_MIB  256.0

/*
 * CUDA graph pool per (captured size x decoder layer): 0.20 GiB for 35
 * full graphs of 28 layers (V0 0.7.2, Qwen2.5-Math-1.5B), 0.72 GiB for
 * (67 piecewise + 35 full) x 40 layers (V1 0.11.0, granite-4.0-micro),
 * 0.49 GiB for (51 + 35) x 28 (V1 0.11.2, Qwen2.5-1.5B): 219, 189 and 218
 * kB; median 218.5 kB. vLLM's own estimate is within +-50 % of the pool.
 */
#define CUDA_GRAPH_BYTES_PER_SIZE_LAYER 218500.0

/* SGLang: "Init torch distributed ends. mem usage=1.77-2.01 GB" at TP 8 (sglang PR #11716 log,
 * 8 x H200); 0.00 GB at TP 1. Midpoint used for TP or PP > 1. */
#define SGLANG_DIST_INIT_GIB 1.89

/* ---- shared helpers -------------------------------------------------------------- */

static bool is_a100(const struct gpuplan_gpu *gpu)
{
    return gpu && (strstr(gpu->name, "A100") || strstr(gpu->id, "a100"));
}

static bool is_hopper_or_newer(const struct gpuplan_gpu *gpu)
{
    return gpu && gpu->vendor == GPUPLAN_VENDOR_NVIDIA && gpu->cc_major >= 9;
}

static void resolve_common(const struct gpuplan_serving_profile *p,
                           const struct gpuplan_serving_request *req,
                           const struct serving_layout *l,
                           struct gpuplan_serving_memory *m)
{
    m->max_model_len = req->max_model_len ? req->max_model_len : p->max_position_embeddings;
    if (m->max_model_len == 0)
        m->max_model_len = 2048; /* a config without max_position_embeddings */
    m->tp = l->tp;
    m->pp = l->pp;
    m->ep = l->ep;
    m->weights_bytes =
        gpuplan_bytes_from_double(serving_weights_rank_bytes(p, l, req->weights_dtype));
}

/* Count of capture sizes not above `max`: [1, 2, 4] + range(8, 256, 8) + range(256, 513, 16)
 * (vLLM >= 0.11.1) or [1, 2, 4] + range(8, 513, 8) (earlier); also V0's list to 256. */
static uint32_t vllm_capture_sizes(bool new_list, uint64_t max)
{
    uint32_t n = 0;
    for (uint64_t s = 1; s <= max && s <= 512; s++) {
        const bool listed =
            s == 1 || s == 2 || s == 4 ||
            (new_list ? (s >= 8 && s < 256 && s % 8 == 0) || (s >= 256 && s % 16 == 0)
                      : (s >= 8 && s % 8 == 0));
        n += listed ? 1u : 0u;
    }
    return n;
}

/* ---- vLLM ----------------------------------------------------------------------------- */

struct vllm_ctx {
    enum vllm_gen gen;
    struct serving_version v;
    bool hybrid_groups;  /* mixed sliding/full layers in groups (>= 0.10) */
    bool v1_sliding;     /* all-sliding models pool by window in V1 (>= 0.8.3) */
    bool new_token_line; /* "GPU KV cache size" = concurrency x max_model_len (>= 0.22) */
    bool full_graphs;    /* FULL decode graphs besides piecewise (>= 0.11) */
    bool new_capture;    /* capture size list of >= 0.11.1 */
    bool estimates_len;  /* the refusal gives the estimated max length (>= 0.9) */
};

static enum gpuplan_status vllm_resolve_version(const struct gpuplan_serving_request *req,
                                                struct vllm_ctx *c,
                                                struct gpuplan_serving_memory *m,
                                                struct gpuplan_error *err)
{
    const char *text =
        req->engine_version[0] ? req->engine_version : GPUPLAN_SERVING_VLLM_DEFAULT_VERSION;
    if (!serving_version_from_text(text, &c->v)) {
        gpuplan_error_set(err, GPUPLAN_ERR_USAGE, "engine_version",
                          "vLLM version '%s' is not of the form N.N[.N]", text);
        gpuplan_error_hint(err, "pass the version `vllm --version` prints, e.g. 0.11.0");
        return GPUPLAN_ERR_USAGE;
    }
    const uint64_t k = c->v.key;
    if (k < SERVING_VERSION_KEY(0, 6, 5)) {
        gpuplan_error_set(err, GPUPLAN_ERR_USAGE, "engine_version",
                          "vLLM %s is older than modelled; must be 0.6.5 or newer", text);
        gpuplan_error_hint(err, "before 0.6.5 the profile counted memory differently "
                                "(docs/serving.md, Versions)");
        return GPUPLAN_ERR_USAGE;
    }
    if (k < SERVING_VERSION_KEY(0, 8, 0) || (req->vllm_v0 && k < SERVING_VERSION_KEY(0, 11, 0)))
        c->gen = VLLM_GEN_V0;
    else if (k < SERVING_VERSION_KEY(0, 9, 0))
        c->gen = VLLM_GEN_V1_EARLY;
    else if (k < SERVING_VERSION_KEY(0, 21, 0))
        c->gen = VLLM_GEN_V1;
    else
        c->gen = VLLM_GEN_V1_CG;
    c->hybrid_groups = c->gen != VLLM_GEN_V0 && k >= SERVING_VERSION_KEY(0, 10, 0);
    c->v1_sliding = c->gen != VLLM_GEN_V0 && k >= SERVING_VERSION_KEY(0, 8, 3);
    c->new_token_line = k >= SERVING_VERSION_KEY(0, 22, 0);
    c->full_graphs = c->gen != VLLM_GEN_V0 && k >= SERVING_VERSION_KEY(0, 11, 0);
    c->new_capture = k >= SERVING_VERSION_KEY(0, 11, 1);
    c->estimates_len = k >= SERVING_VERSION_KEY(0, 9, 0);
    static const char *const names[VLLM_GEN_COUNT] = { "vllm-v0", "vllm-v1-0.8", "vllm-v1",
                                                       "vllm-v1-cg" };
    (void)snprintf(m->engine_version, sizeof m->engine_version, "%s", text);
    (void)snprintf(m->engine_generation, sizeof m->engine_generation, "%s", names[c->gen]);
    return GPUPLAN_OK;
}

static void vllm_batch_defaults(const struct vllm_ctx *c,
                                const struct gpuplan_serving_request *req,
                                const struct gpuplan_gpu *gpu,
                                struct gpuplan_serving_memory *m)
{
    uint64_t mnbt = 0;
    uint32_t seqs = 0;
    const double total_gib = gib((double)m->device_total_bytes);
    if (c->gen == VLLM_GEN_V0) {
        seqs = VLLM_V0_MAX_NUM_SEQS;
        const bool chunked = !req->offline && m->max_model_len > VLLM_V0_LONG_CONTEXT;
        mnbt = chunked ? VLLM_V0_MIN_BATCHED
                       : (m->max_model_len > VLLM_V0_MIN_BATCHED ? m->max_model_len
                                                                 : VLLM_V0_MIN_BATCHED);
    } else {
        const bool big =
            c->gen != VLLM_GEN_V1_EARLY && total_gib >= VLLM_V1_BIG_DEVICE_GIB && !is_a100(gpu);
        seqs = big ? 1024u : 256u;
        mnbt = req->offline ? (big ? 16384u : 8192u) : (big ? 8192u : 2048u);
        if (c->v.key >= SERVING_VERSION_KEY(0, 27, 0) && total_gib >= VLLM_V1_HUGE_DEVICE_GIB)
            mnbt = 16384u;
    }
    m->max_num_seqs = req->max_num_seqs ? req->max_num_seqs : seqs;
    m->max_num_batched_tokens = req->max_num_batched_tokens ? req->max_num_batched_tokens : mnbt;
}

/* Profile run: a forward of max_num_batched_tokens, then the sampler over
 * min(max_num_seqs, max_num_batched_tokens) sequences (V1 gpu_model_runner
 * profile_run / _dummy_sampler_run; V0 profiles max_num_seqs sequences). */
static double vllm_activation_peak(const struct vllm_ctx *c,
                                   const struct gpuplan_serving_profile *p,
                                   const struct serving_layout *l,
                                   const struct gpuplan_serving_memory *m)
{
    const double tokens = (double)m->max_num_batched_tokens;
    const double reqs = min2((double)m->max_num_seqs, tokens);
    const double per_logit =
        c->gen == VLLM_GEN_V0 ? V0_SAMPLER_BYTES_PER_LOGIT : V1_SAMPLER_BYTES_PER_LOGIT;
    const double sampler = reqs * (double)serving_padded_vocab(p->vocab) * per_logit +
                           tokens * (double)p->hidden * 2.0; /* the kept hidden states */
    const double forward = serving_forward_peak_bytes(p, l, tokens);
    return l->stage_has_head ? max2(forward, sampler) : forward;
}

static double vllm_cuda_graph_bytes(const struct vllm_ctx *c,
                                    const struct serving_layout *l,
                                    const struct gpuplan_serving_request *req,
                                    const struct gpuplan_serving_memory *m)
{
    if (req->enforce_eager)
        return 0.0;
    uint32_t sizes;
    if (c->gen == VLLM_GEN_V0) {
        sizes = vllm_capture_sizes(false, m->max_num_seqs < 256 ? m->max_num_seqs : 256);
    } else {
        sizes = vllm_capture_sizes(c->new_capture, 512);
        if (c->full_graphs)
            sizes += vllm_capture_sizes(false, m->max_num_seqs < 256 ? m->max_num_seqs : 256);
    }
    return (double)sizes * (double)l->stage_layers * CUDA_GRAPH_BYTES_PER_SIZE_LAYER;
}

/* One KV cache group per attention kind in use (vLLM's hybrid manager); the
 * sizes of the groups and their per-request demand at max_model_len. */
struct kv_plan {
    uint32_t n_groups;
    uint32_t group_size;
    uint64_t page_bytes;         /* one block of one layer */
    uint64_t blocks_per_request; /* at max_model_len, summed over the groups */
};

static uint64_t kind_blocks(enum gpuplan_serving_attn kind,
                            uint64_t window,
                            uint64_t len,
                            uint64_t mnbt,
                            uint64_t block)
{
    switch (kind) {
    case GPUPLAN_SERVING_ATTN_SLIDING: {
        /* SlidingWindowSpec.max_memory_usage_bytes: cdiv(min(W - 1 + mnbt, len), block) + 1 */
        const uint64_t t = window - 1 + mnbt < len ? window - 1 + mnbt : len;
        return cdiv(t, block) + 1;
    }
    case GPUPLAN_SERVING_ATTN_CHUNKED_LOCAL: {
        const uint64_t t = window + mnbt < len ? window + mnbt : len;
        return cdiv(t, block);
    }
    case GPUPLAN_SERVING_ATTN_FULL:
    case GPUPLAN_SERVING_ATTN_COUNT:
    default:
        return cdiv(len, block);
    }
}

/*
 * vllm/v1/core/kv_cache_utils.py _get_kv_cache_groups_uniform_page_size:
 * layers grouped by kind; the group size is the smallest kind's layer
 * count (or the largest when the largest is under 1.5 x the smallest), each
 * kind padded to whole groups; every group draws blocks from one pool.
 */
static void plan_groups(const struct gpuplan_serving_profile *p,
                        const struct serving_layout *l,
                        bool hybrid,
                        bool sliding_alone,
                        uint64_t len,
                        uint64_t mnbt,
                        uint64_t block,
                        uint64_t token_layer_bytes,
                        struct kv_plan *out)
{
    uint32_t n_kind[GPUPLAN_SERVING_ATTN_COUNT];
    uint32_t kinds = 0, min_n = UINT32_MAX, max_n = 0, total = 0;
    for (int k = 0; k < GPUPLAN_SERVING_ATTN_COUNT; k++) {
        n_kind[k] = serving_stage_kind_layers(p, l, (enum gpuplan_serving_attn)k);
        total += n_kind[k];
    }
    if (total > l->stage_layers && n_kind[GPUPLAN_SERVING_ATTN_FULL] > 0)
        n_kind[GPUPLAN_SERVING_ATTN_FULL] -= total - l->stage_layers; /* rounding */
    for (int k = 0; k < GPUPLAN_SERVING_ATTN_COUNT; k++) {
        if (n_kind[k] == 0)
            continue;
        kinds++;
        min_n = n_kind[k] < min_n ? n_kind[k] : min_n;
        max_n = n_kind[k] > max_n ? n_kind[k] : max_n;
    }
    out->page_bytes = block * token_layer_bytes;
    const bool use_kinds =
        kinds == 1 ? sliding_alone || n_kind[GPUPLAN_SERVING_ATTN_FULL] > 0 : hybrid;
    if (!use_kinds || kinds == 0) {
        /* One group of all layers, every layer paged as full attention. */
        out->n_groups = 1;
        out->group_size = l->stage_layers;
        out->blocks_per_request = cdiv(len, block);
        return;
    }
    const uint32_t size = (double)max_n < 1.5 * (double)min_n ? max_n : min_n;
    out->group_size = size;
    out->n_groups = 0;
    out->blocks_per_request = 0;
    for (int k = 0; k < GPUPLAN_SERVING_ATTN_COUNT; k++) {
        if (n_kind[k] == 0)
            continue;
        const uint32_t groups = (n_kind[k] + size - 1) / size;
        out->n_groups += groups;
        out->blocks_per_request += groups * kind_blocks((enum gpuplan_serving_attn)k,
                                                        p->window_tokens[k], len, mnbt, block);
    }
}

/* The largest max_model_len whose one request fits `avail`: bisection as
 * estimate_max_model_len does (block-granular for full attention). */
static uint64_t vllm_largest_len(const struct gpuplan_serving_profile *p,
                                 const struct serving_layout *l,
                                 const struct vllm_ctx *c,
                                 uint64_t upper,
                                 uint64_t mnbt,
                                 uint64_t block,
                                 uint64_t token_layer_bytes,
                                 double avail)
{
    uint64_t lo = 0, hi = upper;
    while (lo < hi) {
        const uint64_t mid = lo + (hi - lo + 1) / 2;
        struct kv_plan plan;
        plan_groups(p, l, c->hybrid_groups, c->v1_sliding, mid, mnbt, block, token_layer_bytes,
                    &plan);
        const double need =
            (double)plan.blocks_per_request * (double)plan.page_bytes * (double)plan.group_size;
        if (need <= avail)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

static void vllm_log_lines(const struct vllm_ctx *c,
                           struct gpuplan_serving_memory *m,
                           double act,
                           double non_torch)
{
    char tok[32], len[32];
    const double w = gib((double)m->weights_bytes);
    if (c->gen == VLLM_GEN_V0) {
        serving_log(m, "Loading model weights took %.4f GB", w);
        serving_log(m,
                    "the current vLLM instance can use total_gpu_memory (%.2fGiB) x "
                    "gpu_memory_utilization (%.2f) = %.2fGiB",
                    gib((double)m->device_total_bytes), m->memory_fraction,
                    gib((double)m->requested_bytes));
        serving_log(m,
                    "model weights take %.2fGiB; non_torch_memory takes %.2fGiB; PyTorch "
                    "activation peak memory takes %.2fGiB; the rest of the memory reserved for "
                    "KV Cache is %.2fGiB.",
                    w, gib(non_torch), gib(act), gib((double)m->kv_pool_bytes));
        serving_log(m, "# GPU blocks: %llu", (unsigned long long)m->n_blocks);
        serving_log(m, "Maximum concurrency for %llu tokens per request: %.2fx",
                    (unsigned long long)m->max_model_len, m->max_concurrency);
        return;
    }
    serving_log(m, "Model loading took %.4f GiB memory", w);
    if (c->gen == VLLM_GEN_V1_CG && m->cuda_graph_bytes > 0)
        serving_log(m, "Estimated CUDA graph memory: %.2f GiB total",
                    gib((double)m->cuda_graph_bytes));
    if (c->gen != VLLM_GEN_V1_EARLY)
        serving_log(m, "Available KV cache memory: %.2f GiB", gib((double)m->kv_pool_bytes));
    /* V1 checks one request against the pool before it reports the pool. */
    if (m->refuse_start)
        return;
    serving_log(m, "GPU KV cache size: %s tokens",
                serving_thousands(m->kv_capacity_tokens, tok, sizeof tok));
    serving_log(m, "Maximum concurrency for %s tokens per request: %.2fx",
                serving_thousands(m->max_model_len, len, sizeof len), m->max_concurrency);
}

static void vllm_refusal(const struct vllm_ctx *c, struct gpuplan_serving_memory *m)
{
    char tok[32];
    if (m->kv_pool_bytes <= 0) {
        serving_log(m, "ValueError: No available memory for the cache blocks. Try increasing "
                       "`gpu_memory_utilization` when initializing the engine.");
        return;
    }
    if (c->gen == VLLM_GEN_V0) {
        serving_log(m,
                    "ValueError: The model's max seq len (%llu) is larger than the maximum "
                    "number of tokens that can be stored in KV cache (%llu). Try increasing "
                    "`gpu_memory_utilization` or decreasing `max_model_len` when initializing "
                    "the engine.",
                    (unsigned long long)m->max_model_len,
                    (unsigned long long)(m->n_blocks * m->block_size));
        return;
    }
    char est[160] = "";
    if (c->estimates_len)
        (void)snprintf(est, sizeof est,
                       " Based on the available memory, the estimated maximum model length is "
                       "%llu.",
                       (unsigned long long)m->largest_max_model_len);
    serving_log(m,
                "ValueError: To serve at least one request with the models's max seq len "
                "(%s), (%.2f GiB KV cache is needed, which is larger than the available KV "
                "cache memory (%.2f GiB).%s Try increasing `gpu_memory_utilization` or "
                "decreasing `max_model_len` when initializing the engine.",
                serving_thousands(m->max_model_len, tok, sizeof tok),
                gib((double)m->kv_needed_bytes), gib((double)m->kv_pool_bytes), est);
}

/*
 * Graph capture runs after the pool is allocated in every version before
 * 0.21, in the memory the budget leaves: total x (1 - utilisation) less the
 * CUDA context and, with TP/PP, NCCL's init buffers (outside the measured
 * window from 0.9), plus whatever the block rounding left.
 */
static void vllm_graph_check(const struct vllm_ctx *c,
                             const struct gpuplan_gpu *gpu,
                             double pool_used,
                             struct gpuplan_serving_memory *m)
{
    const double nccl = (m->tp > 1 || m->pp > 1) ? NCCL_BUFFERS_MIB * GPUPLAN_BYTES_PER_MIB : 0.0;
    const double headroom = (double)m->device_total_bytes - (double)m->requested_bytes -
                            serving_cuda_context_bytes(gpu) - nccl +
                            max2((double)m->kv_pool_bytes - pool_used, 0.0);
    m->graph_headroom_bytes = gpuplan_bytes_from_double(headroom);
    m->graph_capture_oom = c->gen != VLLM_GEN_V1_CG && m->cuda_graph_bytes > 0 &&
                           (double)m->cuda_graph_bytes > headroom;
}

static void vllm_summary(struct gpuplan_serving_memory *m)
{
    char tok[32], len[32];
    if (m->refuse_start) {
        if (m->largest_max_model_len > 0)
            (void)snprintf(
                m->summary, sizeof m->summary,
                GPUPLAN_TR("vLLM will refuse to start: one request of %s tokens needs %.2f GiB of "
                           "KV cache, %.2f GiB is available; the largest max_model_len that fits "
                           "is %s"),
                serving_thousands(m->max_model_len, tok, sizeof tok),
                gib((double)m->kv_needed_bytes), gib((double)m->kv_pool_bytes),
                serving_thousands(m->largest_max_model_len, len, sizeof len));
        else
            (void)snprintf(
                m->summary, sizeof m->summary,
                GPUPLAN_TR("vLLM will refuse to start: no memory is left for the KV cache "
                           "(%.2f GiB)"),
                gib((double)m->kv_pool_bytes));
        if (m->largest_max_model_len > 0)
            (void)snprintf(
                m->advice, sizeof m->advice,
                GPUPLAN_TR("pass --max-model-len %llu or less, raise --gpu-memory-utilization, "
                           "use more GPUs (--tensor-parallel-size) or a smaller weight format"),
                (unsigned long long)m->largest_max_model_len);
        else
            (void)snprintf(
                m->advice, sizeof m->advice,
                GPUPLAN_TR("the weights and the profile run leave no memory: use more GPUs "
                           "(--tensor-parallel-size), a smaller weight format, or raise "
                           "--gpu-memory-utilization"));
        return;
    }
    (void)snprintf(m->summary, sizeof m->summary,
                   GPUPLAN_TR("GPU KV cache: %s tokens, max concurrency %.2f at %s tokens"),
                   serving_thousands(m->kv_capacity_tokens, tok, sizeof tok), m->max_concurrency,
                   serving_thousands(m->max_model_len, len, sizeof len));
    if (m->graph_capture_oom)
        (void)snprintf(
            m->advice, sizeof m->advice,
            GPUPLAN_TR("CUDA graph capture needs ~%.2f GiB but ~%.2f GiB is left outside the "
                       "pool: it will run out of memory; pass --enforce-eager or lower "
                       "--gpu-memory-utilization"),
            gib((double)m->cuda_graph_bytes), gib((double)m->graph_headroom_bytes));
}

static enum gpuplan_status vllm_memory(const struct gpuplan_serving_profile *p,
                                       const struct gpuplan_serving_request *req,
                                       const struct gpuplan_gpu *gpu,
                                       const struct serving_layout *l,
                                       struct gpuplan_serving_memory *m,
                                       struct gpuplan_error *err)
{
    struct vllm_ctx c;
    memset(&c, 0, sizeof c);
    enum gpuplan_status st = vllm_resolve_version(req, &c, m, err);
    if (st)
        return st;
    m->memory_fraction = req->memory_fraction > 0 ? req->memory_fraction : VLLM_DEFAULT_UTILIZATION;
    vllm_batch_defaults(&c, req, gpu, m);
    m->block_size = req->block_size                        ? req->block_size
                    : p->is_mla && is_hopper_or_newer(gpu) ? VLLM_MLA_BLOCK
                                                           : VLLM_DEFAULT_BLOCK;
    const double elem = serving_kv_elem_bytes(p, req->kv_dtype, &m->kv_element);
    const uint64_t tl = serving_kv_token_layer_bytes(p, l, elem);

    m->requested_bytes =
        gpuplan_bytes_from_double((double)m->device_total_bytes * m->memory_fraction);
    const double act = vllm_activation_peak(&c, p, l, m);
    const double non_torch =
        NON_TORCH_TP1_GIB * (double)GPUPLAN_BYTES_PER_GIB +
        ((l->tp > 1 || l->pp > 1) ? NCCL_BUFFERS_MIB * GPUPLAN_BYTES_PER_MIB : 0.0);
    m->activation_peak_bytes = gpuplan_bytes_from_double(act);
    m->non_torch_bytes = gpuplan_bytes_from_double(non_torch);
    m->cuda_graph_bytes = gpuplan_bytes_from_double(vllm_cuda_graph_bytes(&c, l, req, m));
    m->cuda_graph_subtracted = c.gen == VLLM_GEN_V1_CG && m->cuda_graph_bytes > 0;
    double avail = (double)m->requested_bytes - (double)m->weights_bytes - act - non_torch -
                   (m->cuda_graph_subtracted ? (double)m->cuda_graph_bytes : 0.0);
    m->kv_pool_bytes = (int64_t)llround(avail);

    struct kv_plan plan;
    const bool hybrid = c.hybrid_groups && !req->disable_hybrid_kv;
    plan_groups(p, l, hybrid, c.v1_sliding && !req->disable_hybrid_kv, m->max_model_len,
                m->max_num_batched_tokens, m->block_size, tl, &plan);
    m->kv_bytes_per_token = tl * l->stage_layers;
    m->page_bytes = plan.page_bytes;
    m->n_kv_groups = plan.n_groups;
    m->group_size = plan.group_size;
    m->blocks_per_request = plan.blocks_per_request;
    m->kv_needed_bytes = plan.blocks_per_request * plan.page_bytes * plan.group_size;
    const double block_bytes = (double)plan.page_bytes * (double)plan.group_size;
    m->n_blocks = avail > 0 && block_bytes > 0 ? (uint64_t)floor(avail / block_bytes) : 0;
    m->max_concurrency =
        plan.blocks_per_request ? (double)m->n_blocks / (double)plan.blocks_per_request : 0.0;
    if (c.new_token_line)
        m->kv_capacity_tokens = (uint64_t)(m->max_concurrency * (double)m->max_model_len);
    else
        m->kv_capacity_tokens = m->n_blocks / (plan.n_groups ? plan.n_groups : 1) * m->block_size;

    /* V0 refuses when the pool holds fewer tokens than max_model_len; V1 when one request's
     * max_memory_usage exceeds the available memory (block-granular either way). */
    if (c.gen == VLLM_GEN_V0)
        m->refuse_start = m->n_blocks * m->block_size < m->max_model_len;
    else
        m->refuse_start = avail <= 0 || (double)m->kv_needed_bytes > avail;
    if (c.gen == VLLM_GEN_V0)
        m->largest_max_model_len = m->n_blocks * m->block_size < m->max_model_len
                                       ? m->n_blocks * m->block_size
                                       : m->max_model_len;
    else
        m->largest_max_model_len =
            avail > 0 ? vllm_largest_len(p, l, &c, m->max_model_len, m->max_num_batched_tokens,
                                         m->block_size, tl, avail)
                      : 0;
    vllm_graph_check(&c, gpu, (double)m->n_blocks * block_bytes, m);
    vllm_log_lines(&c, m, act, non_torch);
    if (m->refuse_start)
        vllm_refusal(&c, m);
    vllm_summary(m);
    return GPUPLAN_OK;
}

/* ---- SGLang --------------------------------------------------------------------------- */

struct sglang_defaults {
    uint64_t chunked_prefill;
    uint32_t cuda_graph_max_bs;
    double fraction;
};

/* server_args.py _handle_gpu_memory_settings (>= 0.5.4, PR #10975; stored copy index id
 * 8356329): buckets by GPU memory in MB, then the reserved-memory heuristic. */
static void sglang_heuristic(double gpu_mib, uint32_t tp, uint32_t pp, struct sglang_defaults *d)
{
    if (gpu_mib < 20.0 * 1024) {
        d->chunked_prefill = 2048;
        d->cuda_graph_max_bs = 8;
    } else if (gpu_mib < 35.0 * 1024) {
        d->chunked_prefill = 2048;
        d->cuda_graph_max_bs = tp < 4 ? 24 : 80;
    } else if (gpu_mib < 60.0 * 1024) {
        d->chunked_prefill = 4096;
        d->cuda_graph_max_bs = tp < 4 ? 32 : 160;
    } else if (gpu_mib < 160.0 * 1024) {
        d->chunked_prefill = 8192;
        d->cuda_graph_max_bs = tp < 4 ? 256 : 512;
    } else {
        d->chunked_prefill = 16384;
        d->cuda_graph_max_bs = 512;
    }
    double reserved = 512.0 + max2((double)d->chunked_prefill, 2048.0) * 1.5 +
                      (double)d->cuda_graph_max_bs * 2.0 + (double)tp * (double)pp / 8.0 * 1024.0;
    if (gpu_mib > 60.0 * 1024)
        reserved = max2(reserved, 10.0 * 1024);
    d->fraction = round((gpu_mib - reserved) / gpu_mib * 1000.0) / 1000.0;
}

/* 0.4.9-0.5.3 (research copy of server_args.py, mid 2025): reserved GiB by bucket. */
static void sglang_bucketed(double gpu_gib, uint32_t tp, uint32_t pp, struct sglang_defaults *d)
{
    const double ps = (double)tp * (double)pp;
    double reserved;
    if (gpu_gib < 35.0) {
        reserved = 2.8 + ps / 10.0;
        d->chunked_prefill = 2048;
    } else if (gpu_gib < 90.0) {
        reserved = 9.5 + ps / 2.0;
        d->chunked_prefill = 8192;
    } else if (gpu_gib < 160.0) {
        reserved = 12.0 + ps / 2.0;
        d->chunked_prefill = 8192;
    } else {
        reserved = 32.0;
        d->chunked_prefill = 16384;
    }
    d->cuda_graph_max_bs = gpu_gib < 35.0 && tp < 4 ? 8 : 160;
    d->fraction = round((gpu_gib - reserved) / gpu_gib * 1000.0) / 1000.0;
}

/* 0.4.0-0.4.8 (server_args.py __post_init__ of that era): by TP size. */
static void sglang_tp_table(double gpu_gib, uint32_t tp, struct sglang_defaults *d)
{
    d->fraction = tp >= 16 ? 0.79 : tp >= 8 ? 0.81 : tp >= 4 ? 0.85 : tp >= 2 ? 0.87 : 0.88;
    d->chunked_prefill = gpu_gib < 25.0 ? 2048 : 8192;
    d->cuda_graph_max_bs = gpu_gib < 25.0 ? 8 : 160;
}

/*
 * SGLang's "mem usage" after loading is a drop in free device memory
 * (model_runner.py load_model: before_avail_memory - get_available_gpu_memory(),
 * which empties the cache first), and its pool is sized from what is left, so
 * the weights cost what PyTorch's caching allocator reserved for them, not the
 * tensor bytes. c10/cuda/CUDACachingAllocator.cpp: requests round up to 512 B
 * (kMinBlockSize); one of at most 1 MiB (kSmallSize) comes from the small pool's
 * 2 MiB segments (not simulated: norms and biases, a few MiB at most); one under
 * 10 MiB (kMinLargeAlloc) from a 20 MiB segment (kLargeBuffer); a larger one gets
 * a segment rounded up to 2 MiB (kRoundLarge). A free block is reused best-fit
 * and split when more than 1 MiB would be left. Checked against six SGLang logs
 * (validation/serving.md): QwQ-32B at TP 4 reserves 0.22 GiB above its tensors,
 * the logged 15.54 GiB = 15.26 + 0.22 + 0.06 (fp32 rotary cache).
 */
#define ALLOC_ROUND_BYTES     512u
#define ALLOC_SMALL_BYTES     (1u << 20)
#define ALLOC_MID_LIMIT_BYTES (10u << 20)
#define ALLOC_MID_SEGMENT     (20u << 20)
#define ALLOC_LARGE_ROUND     (2u << 20)
/* Free fragments tracked (each linear leaves at most one; past the bound, none is kept). */
#define ALLOC_MAX_FRAGMENTS 1024

struct alloc_sim {
    uint64_t reserved, used;
    uint64_t free_blocks[ALLOC_MAX_FRAGMENTS];
    size_t n_free;
};

static void alloc_take(struct alloc_sim *a, uint64_t bytes)
{
    if (bytes == 0)
        return;
    const uint64_t size = cdiv(bytes, ALLOC_ROUND_BYTES) * ALLOC_ROUND_BYTES;
    a->used += size;
    if (size <= ALLOC_SMALL_BYTES)
        return;
    size_t best = a->n_free;
    for (size_t i = 0; i < a->n_free; i++)
        if (a->free_blocks[i] >= size &&
            (best == a->n_free || a->free_blocks[i] < a->free_blocks[best]))
            best = i;
    uint64_t block;
    if (best < a->n_free) {
        block = a->free_blocks[best];
        a->free_blocks[best] = a->free_blocks[--a->n_free];
    } else {
        block = size < ALLOC_MID_LIMIT_BYTES ? ALLOC_MID_SEGMENT
                                             : cdiv(size, ALLOC_LARGE_ROUND) * ALLOC_LARGE_ROUND;
        a->reserved += block;
    }
    if (block - size > ALLOC_SMALL_BYTES && a->n_free < ALLOC_MAX_FRAGMENTS)
        a->free_blocks[a->n_free++] = block - size;
}

/* Bytes of SGLang's rotary cos_sin_cache: fp32 on CUDA, the model dtype elsewhere
 * (layers/rotary_embedding.py RotaryEmbedding.__init__: "NOTE(ByronHsu): cache needs
 * to be in FP32 for numerical stability", `if not _is_cuda: cache = cache.to(dtype)`;
 * stored copies of 2025-2026). */
static double sglang_rope_bytes(const struct gpuplan_serving_profile *p,
                                const struct gpuplan_gpu *gpu)
{
    const double elem = gpu->vendor == GPUPLAN_VENDOR_NVIDIA
                            ? 4.0
                            : gpuplan_dtype_bits(p->model_dtype) / GPUPLAN_BITS_PER_BYTE;
    return (double)p->max_position_embeddings * (double)p->rotary_dim * elem;
}

/*
 * Allocator slack of one rank's weights, in the order SGLang's modules create
 * them (embedding, then per layer qkv, o, the rotary cache after the first
 * layer's attention, gate_up, down; the head last). Dense attention models
 * with the weights as stored only: 0 for MoE, MLA, a weight format (online fp8
 * quantisation replaces the loaded tensors, 4-bit formats pack them with
 * scales: neither is checked against a log), and an MLP whose shape the
 * profile does not give.
 */
static uint64_t sglang_weight_slack(const struct gpuplan_serving_profile *p,
                                    const struct serving_layout *l,
                                    const struct gpuplan_serving_request *req,
                                    const struct gpuplan_gpu *gpu)
{
    const double elem = gpuplan_dtype_bits(p->model_dtype) / GPUPLAN_BITS_PER_BYTE;
    if (req->weights_dtype != GPUPLAN_DTYPE_UNKNOWN)
        return 0;
    if (p->is_mla || p->n_moe_layers > 0 || p->hidden == 0 || p->intermediate == 0)
        return 0;
    const uint64_t mlp = p->dense_block.linear_params[GPUPLAN_SERVING_W_MLP_TP];
    const uint64_t mats = mlp / (p->hidden * p->intermediate);
    if ((mats != 2 && mats != 3) || mats * p->hidden * p->intermediate != mlp)
        return 0;
    struct alloc_sim a; /* 8 KiB on the stack: the library is called from server threads */
    memset(&a, 0, sizeof a);
    const uint64_t h = p->hidden;
    const uint64_t vocab_rank = serving_padded_vocab(p->vocab) / l->tp;
    const uint64_t q = p->n_heads * p->head_dim / l->tp;
    const uint64_t kv =
        l->kv_heads_rank * (p->head_dim + (p->head_dim_v ? p->head_dim_v : p->head_dim));
    const uint64_t inter = p->intermediate / l->tp;
    if (l->stage_has_embed)
        alloc_take(&a, (uint64_t)llround((double)(vocab_rank * h) * elem));
    for (uint32_t i = 0; i < l->stage_layers; i++) {
        alloc_take(&a, (uint64_t)llround((double)(h * (q + kv)) * elem));
        alloc_take(&a, (uint64_t)llround((double)(q * h) * elem));
        if (i == 0)
            alloc_take(&a, (uint64_t)llround(sglang_rope_bytes(p, gpu)));
        alloc_take(&a, (uint64_t)llround((double)(h * (mats - 1) * inter) * elem));
        alloc_take(&a, (uint64_t)llround((double)(inter * h) * elem));
    }
    if (l->stage_has_head && !(p->tied_embeddings && l->stage_has_embed))
        alloc_take(&a, (uint64_t)llround((double)(vocab_rank * h) * elem));
    return a.reserved > a.used ? a.reserved - a.used : 0;
}

static enum gpuplan_status sglang_resolve(const struct gpuplan_serving_request *req,
                                          const struct serving_layout *l,
                                          struct gpuplan_serving_memory *m,
                                          struct sglang_defaults *d,
                                          struct gpuplan_error *err)
{
    const char *text =
        req->engine_version[0] ? req->engine_version : GPUPLAN_SERVING_SGLANG_DEFAULT_VERSION;
    struct serving_version v;
    if (!serving_version_from_text(text, &v)) {
        gpuplan_error_set(err, GPUPLAN_ERR_USAGE, "engine_version",
                          "SGLang version '%s' is not of the form N.N[.N]", text);
        gpuplan_error_hint(err, "pass the version `python -m sglang.version` prints, e.g. 0.5.7");
        return GPUPLAN_ERR_USAGE;
    }
    if (v.key < SERVING_VERSION_KEY(0, 4, 0)) {
        gpuplan_error_set(err, GPUPLAN_ERR_USAGE, "engine_version",
                          "SGLang %s is older than modelled; must be 0.4.0 or newer", text);
        gpuplan_error_hint(err, "docs/serving.md lists the SGLang versions modelled");
        return GPUPLAN_ERR_USAGE;
    }
    /* SGLang sizes its heuristics by nvidia-smi's total (get_device_memory_capacity). */
    const double smi_gib = gib((double)m->device_total_bytes) + 0.43;
    enum sglang_gen gen;
    if (v.key < SERVING_VERSION_KEY(0, 4, 9)) {
        gen = SGLANG_GEN_TP_TABLE;
        sglang_tp_table(smi_gib, l->tp, d);
    } else if (v.key < SERVING_VERSION_KEY(0, 5, 4)) {
        gen = SGLANG_GEN_BUCKETED;
        sglang_bucketed(smi_gib, l->tp, l->pp, d);
    } else {
        gen = SGLANG_GEN_HEURISTIC;
        sglang_heuristic(smi_gib * 1024.0, l->tp, l->pp, d);
    }
    static const char *const names[SGLANG_GEN_COUNT] = { "sglang-tp-table", "sglang-bucketed",
                                                         "sglang-heuristic" };
    (void)snprintf(m->engine_version, sizeof m->engine_version, "%s", text);
    (void)snprintf(m->engine_generation, sizeof m->engine_generation, "%s", names[gen]);
    return GPUPLAN_OK;
}

static void sglang_log_lines(const struct gpuplan_serving_profile *p,
                             struct gpuplan_serving_memory *m,
                             double tokens,
                             double kv_bytes)
{
    const double free_gib = gib((double)m->free_at_start_bytes);
    const double w = gib((double)m->weights_bytes);
    serving_log(m, "Load weight end. avail mem=%.2f GB, mem usage=%.2f GB.", free_gib - w, w);
    if (tokens <= 0) {
        serving_log(m,
                    "ValueError: Loaded weights leave no GPU memory for the KV cache under "
                    "--mem-fraction-static=%.3g.",
                    m->memory_fraction);
        return;
    }
    if (p->is_mla)
        serving_log(m, "KV Cache is allocated. #tokens: %llu, KV size: %.2f GB",
                    (unsigned long long)m->kv_capacity_tokens, gib(kv_bytes));
    else
        serving_log(m, "KV Cache is allocated. #tokens: %llu, K size: %.2f GB, V size: %.2f GB",
                    (unsigned long long)m->kv_capacity_tokens, gib(kv_bytes / 2.0),
                    gib(kv_bytes / 2.0));
    serving_log(m,
                "max_total_num_tokens=%llu, chunked_prefill_size=%llu, max_running_requests=%u, "
                "context_len=%llu",
                (unsigned long long)m->kv_capacity_tokens,
                (unsigned long long)m->max_num_batched_tokens, m->max_num_seqs,
                (unsigned long long)m->max_model_len);
}

static void sglang_summary(struct gpuplan_serving_memory *m)
{
    char tok[32], len[32];
    if (m->refuse_start) {
        (void)snprintf(
            m->summary, sizeof m->summary,
            GPUPLAN_TR("SGLang will refuse to start: the weights leave no KV cache under "
                       "--mem-fraction-static %.3f (at least %.4f needed)"),
            m->memory_fraction, m->min_memory_fraction);
        (void)snprintf(
            m->advice, sizeof m->advice,
            GPUPLAN_TR("raise --mem-fraction-static above %.4f, use more GPUs (--tp) or a smaller "
                       "weight format"),
            m->min_memory_fraction);
        return;
    }
    (void)snprintf(m->summary, sizeof m->summary,
                   GPUPLAN_TR("GPU KV cache: %s tokens, max concurrency %.2f at %s tokens"),
                   serving_thousands(m->kv_capacity_tokens, tok, sizeof tok), m->max_concurrency,
                   serving_thousands(m->max_model_len, len, sizeof len));
    if (m->max_concurrency < 1.0)
        (void)snprintf(
            m->advice, sizeof m->advice,
            GPUPLAN_TR("the pool holds fewer tokens than --context-length; requests longer than "
                       "%llu tokens cannot run"),
            (unsigned long long)m->kv_capacity_tokens);
    else if (m->graph_capture_oom)
        (void)snprintf(
            m->advice, sizeof m->advice,
            GPUPLAN_TR("CUDA graph capture needs ~%.2f GiB beside the prefill activations but "
                       "%.2f GiB is left: lower --mem-fraction-static or --cuda-graph-max-bs, "
                       "or pass --disable-cuda-graph"),
            gib((double)m->cuda_graph_bytes), gib((double)m->graph_headroom_bytes));
}

static enum gpuplan_status sglang_memory(const struct gpuplan_serving_profile *p,
                                         const struct gpuplan_serving_request *req,
                                         const struct gpuplan_gpu *gpu,
                                         const struct serving_layout *l,
                                         struct gpuplan_serving_memory *m,
                                         struct gpuplan_error *err)
{
    struct sglang_defaults d;
    memset(&d, 0, sizeof d);
    enum gpuplan_status st = sglang_resolve(req, l, m, &d, err);
    if (st)
        return st;
    m->memory_fraction = req->memory_fraction > 0 ? req->memory_fraction : d.fraction;
    m->max_num_batched_tokens =
        req->max_num_batched_tokens ? req->max_num_batched_tokens : d.chunked_prefill;
    /* Weights as SGLang's free-memory drop counts them: its fp32 rotary cache in place of
     * the model-dtype one serving_weights_rank_bytes() counts, and the allocator's slack. */
    const double rope_model = (double)p->max_position_embeddings * (double)p->rotary_dim *
                              gpuplan_dtype_bits(p->model_dtype) / GPUPLAN_BITS_PER_BYTE;
    m->weights_bytes =
        gpuplan_bytes_from_double((double)m->weights_bytes + sglang_rope_bytes(p, gpu) -
                                  rope_model + (double)sglang_weight_slack(p, l, req, gpu));
    m->block_size = req->block_size                        ? req->block_size
                    : p->is_mla && is_hopper_or_newer(gpu) ? 64
                                                           : 1;
    const double dist =
        (l->tp > 1 || l->pp > 1) ? SGLANG_DIST_INIT_GIB * (double)GPUPLAN_BYTES_PER_GIB : 0.0;
    const double free_at_start =
        req->device_free_bytes
            ? (double)req->device_free_bytes
            : (double)m->device_total_bytes - serving_cuda_context_bytes(gpu) - dist;
    m->free_at_start_bytes = gpuplan_bytes_from_double(free_at_start);
    m->requested_bytes = gpuplan_bytes_from_double(free_at_start * m->memory_fraction);
    const double elem = serving_kv_elem_bytes(p, req->kv_dtype, &m->kv_element);
    const uint64_t cell = serving_kv_token_layer_bytes(p, l, elem) * l->stage_layers;
    m->kv_bytes_per_token = cell;
    m->n_kv_groups = 1;
    m->group_size = l->stage_layers;
    m->page_bytes = cell * m->block_size / (l->stage_layers ? l->stage_layers : 1);
    /* rest_memory = available after weights - total x (1 - fraction) */
    const double rest = free_at_start * m->memory_fraction - (double)m->weights_bytes;
    m->kv_pool_bytes = (int64_t)llround(rest);
    double tokens = rest > 0 && cell > 0 ? floor(rest / (double)cell) : 0.0;
    tokens = floor(tokens / (double)m->block_size) * (double)m->block_size;
    m->kv_capacity_tokens = (uint64_t)tokens;
    m->n_blocks = (uint64_t)tokens / m->block_size;
    m->kv_needed_bytes = m->max_model_len * cell;
    m->blocks_per_request = cdiv(m->max_model_len, m->block_size);
    m->max_concurrency = (double)m->kv_capacity_tokens / (double)m->max_model_len;
    /* model_runner.init_memory_pool: max_num_reqs = min(max(tokens / context x 512, 2048),
     * 4096) (from memory of the 2025 code; the scheduler caps running requests by it). */
    const double reqs = min2(max2(tokens / (double)m->max_model_len * 512.0, 2048.0), 4096.0);
    m->max_num_seqs = req->max_num_seqs ? req->max_num_seqs : (uint32_t)reqs;
    m->refuse_start = m->kv_capacity_tokens == 0;
    m->min_memory_fraction = free_at_start > 0 ? (double)m->weights_bytes / free_at_start : 1.0;
    m->largest_max_model_len = m->kv_capacity_tokens;
    /* Graphs and prefill activations come out of the (1 - fraction) remainder. */
    const uint64_t bs = req->max_num_seqs && req->max_num_seqs < d.cuda_graph_max_bs
                            ? req->max_num_seqs
                            : d.cuda_graph_max_bs;
    const uint32_t sizes = req->enforce_eager ? 0 : vllm_capture_sizes(false, bs);
    m->cuda_graph_bytes = gpuplan_bytes_from_double((double)sizes * (double)l->stage_layers *
                                                    CUDA_GRAPH_BYTES_PER_SIZE_LAYER);
    m->activation_peak_bytes = gpuplan_bytes_from_double(
        serving_forward_peak_bytes(p, l, (double)m->max_num_batched_tokens));
    const double headroom = free_at_start * (1.0 - m->memory_fraction);
    m->graph_headroom_bytes = gpuplan_bytes_from_double(headroom);
    m->graph_capture_oom =
        (double)m->cuda_graph_bytes + (double)m->activation_peak_bytes > headroom;
    sglang_log_lines(p, m, tokens, tokens * (double)cell);
    sglang_summary(m);
    return GPUPLAN_OK;
}

/* ---- entry point -------------------------------------------------------------- */

enum gpuplan_status gpuplan_serving_memory(const struct gpuplan_serving_profile *p,
                                           const struct gpuplan_serving_request *req,
                                           const struct gpuplan_gpu *gpu,
                                           struct gpuplan_serving_memory *m,
                                           struct gpuplan_error *err)
{
    memset(m, 0, sizeof *m);
    if (!gpu)
        return gpuplan_error_set(err, GPUPLAN_ERR_USAGE, "gpu",
                                 "no GPU given; the KV pool is sized from the GPU's memory");
    if (!(req->memory_fraction >= 0.0 && req->memory_fraction <= 1.0)) {
        gpuplan_error_set(err, GPUPLAN_ERR_USAGE, "memory_fraction",
                          "memory fraction %g is outside (0, 1]", req->memory_fraction);
        gpuplan_error_hint(err, "--gpu-memory-utilization and --mem-fraction-static are "
                                "fractions, e.g. 0.9");
        return GPUPLAN_ERR_USAGE;
    }
    if ((unsigned)req->engine >= GPUPLAN_SERVING_ENGINE_COUNT)
        return gpuplan_error_set(err, GPUPLAN_ERR_USAGE, "engine", "unknown engine %d",
                                 (int)req->engine);
    struct serving_layout l;
    enum gpuplan_status st = serving_layout_resolve(p, req, &l, err);
    if (st)
        return st;
    m->engine = req->engine;
    m->device_total_bytes = serving_device_total(req, gpu);
    if (m->device_total_bytes == 0)
        return gpuplan_error_set(err, GPUPLAN_ERR_USAGE, "gpu",
                                 "GPU '%s' has no memory size in the catalog", gpu->id);
    resolve_common(p, req, &l, m);
    return req->engine == GPUPLAN_SERVING_SGLANG ? sglang_memory(p, req, gpu, &l, m, err)
                                                 : vllm_memory(p, req, gpu, &l, m, err);
}

bool gpuplan_serving_starts(const struct gpuplan_serving_memory *mem)
{
    return !mem->refuse_start && !mem->graph_capture_oom;
}
