/*
 * serving.h - what a serving engine does with a GPU's memory, and how long
 * one engine step takes: vLLM (V0 0.6.5+, V1 0.8+) and SGLang.
 *
 * Three steps, as the rest of the estimate layer:
 *   1. gpuplan_serving_profile_build(): once per model, reads the tensor
 *      inventory into a small fixed-size profile: bytes by role class of one
 *      dense and one MoE block, the embedding and head, and the attention
 *      layout (full, sliding-window and chunked-local layer counts, MLA).
 *      The profile is plain data: fill it by hand for an architecture the
 *      config reader does not know (gpt-oss, Llama 4; see docs/serving.md).
 *   2. gpuplan_serving_memory(): the engine's start-up accounting on one
 *      GPU (weights per rank as loaded, the profile run's activation peak,
 *      non-torch memory, CUDA graphs, the KV pool, block rounding, KV
 *      capacity and max concurrency, refused starts, OOM at graph capture)
 *      and the log lines the engine prints for it.
 *   3. gpuplan_serving_step_time() and gpuplan_serving_steady_state(): the
 *      time of one decode or mixed prefill/decode step, and continuous
 *      batching in steady state (TTFT, TPOT, tokens/s) for the serving search.
 * Steps 2 and 3 are closed-form, allocation-free and thread-safe; results
 * are fixed-size structs.
 *
 * Every formula, constant and engine version it follows is in
 * src/lib/estimate/serving*.c and docs/serving.md; validation/serving.md
 * scores them against published engine logs (`make accuracy`).
 * Also the launch line and the engine's benchmark command of a prediction
 * (gpuplan_serving_commands, the verify artifact).
 * Not here: the serving search over GPUs and layouts (src/lib/plan/plan_serve.c),
 * the estimate of a job (estimate.h), rendering (render layer).
 */
#ifndef GPUPLAN_SERVING_H
#define GPUPLAN_SERVING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpuplan/catalog.h"
#include "gpuplan/dtype.h"
#include "gpuplan/error.h"
#include "gpuplan/model.h"

enum gpuplan_serving_engine {
    GPUPLAN_SERVING_VLLM = 0, /* vllm serve / LLM(...) */
    GPUPLAN_SERVING_SGLANG,   /* python -m sglang.launch_server */
    GPUPLAN_SERVING_ENGINE_COUNT
};

/* The newest engine versions modelled; the request's default (docs/serving.md, "Versions"). */
#define GPUPLAN_SERVING_VLLM_DEFAULT_VERSION   "0.27.0"
#define GPUPLAN_SERVING_SGLANG_DEFAULT_VERSION "0.5.7"

/* KV cache element type, as --kv-cache-dtype spells it. */
enum gpuplan_serving_kv_dtype {
    GPUPLAN_SERVING_KV_AUTO = 0, /* the model's dtype: bf16, fp16 or fp32 */
    GPUPLAN_SERVING_KV_FP8,      /* fp8 / fp8_e4m3 / fp8_e5m2: 1 byte, per-tensor scales */
    GPUPLAN_SERVING_KV_BF16,
    GPUPLAN_SERVING_KV_FP16,
    GPUPLAN_SERVING_KV_FP32,
    GPUPLAN_SERVING_KV_COUNT
};

/* Kind of attention layer, as vLLM's KV cache specs distinguish them. */
enum gpuplan_serving_attn {
    GPUPLAN_SERVING_ATTN_FULL = 0,      /* FullAttentionSpec: every token of the context */
    GPUPLAN_SERVING_ATTN_SLIDING,       /* SlidingWindowSpec (Mistral v0.1, Gemma 2/3, gpt-oss) */
    GPUPLAN_SERVING_ATTN_CHUNKED_LOCAL, /* ChunkedLocalAttentionSpec (Llama 4) */
    GPUPLAN_SERVING_ATTN_COUNT
};

/* Role classes of a block's weights, by how TP/EP splits them (vLLM's linear layers). */
enum gpuplan_serving_wclass {
    GPUPLAN_SERVING_W_ATTN_TP = 0, /* q, o, MLA q_b/kv_b: column/row parallel, / tp */
    GPUPLAN_SERVING_W_ATTN_KV,     /* k, v: / tp, replicated once tp > n_kv_heads */
    GPUPLAN_SERVING_W_REPLICATED,  /* MLA q_a/kv_a, router, norms: every rank */
    GPUPLAN_SERVING_W_MLP_TP,      /* dense MLP and shared experts: / tp */
    GPUPLAN_SERVING_W_EXPERTS,     /* routed experts: / tp, or / ep with expert parallel */
    GPUPLAN_SERVING_W_COUNT
};

/* Parameters and stored bytes of one block kind (dense or MoE), by class. */
struct gpuplan_serving_block {
    uint64_t params[GPUPLAN_SERVING_W_COUNT];
    uint64_t bytes[GPUPLAN_SERVING_W_COUNT];         /* as stored (checkpoint dtype) */
    uint64_t linear_params[GPUPLAN_SERVING_W_COUNT]; /* of which nn.Linear weights (what a
                                                        weight format quantises) */
    uint64_t linear_bytes[GPUPLAN_SERVING_W_COUNT];  /* their stored bytes */
};

/*
 * The model as a serving engine sees it. Built by
 * gpuplan_serving_profile_build(); plain data (no pointers), copy freely.
 */
struct gpuplan_serving_profile {
    char model_id[128];
    uint32_t n_layers;         /* decoder blocks, e.g. 32 */
    uint32_t n_dense_layers;   /* blocks with a dense MLP, leading (DeepSeek: 3) */
    uint32_t n_moe_layers;     /* blocks with routed experts */
    uint64_t hidden;           /* e.g. 4096 */
    uint64_t n_heads;          /* query heads, e.g. 32 */
    uint64_t n_kv_heads;       /* e.g. 8; 1 for MLA (one latent) */
    uint64_t head_dim;         /* K head size, e.g. 128; MLA: kv_lora_rank + qk_rope_head_dim */
    uint64_t head_dim_v;       /* V head size; 0 for MLA (the latent holds both) */
    uint64_t q_head_dim;       /* query head size for attention FLOPs (MLA: nope + rope) */
    uint64_t v_head_dim;       /* value head size for attention FLOPs */
    uint64_t intermediate;     /* dense MLP width, e.g. 14336 */
    uint64_t moe_intermediate; /* per-expert width */
    uint32_t n_experts;        /* routed experts per MoE block; 0 dense */
    uint32_t n_experts_per_token;
    uint64_t vocab;                   /* e.g. 128256 */
    uint64_t max_position_embeddings; /* e.g. 131072; the default max_model_len */
    uint64_t rotary_dim;              /* per head, e.g. 128 (MLA: qk_rope_head_dim) */
    bool is_mla;
    bool tied_embeddings;
    enum gpuplan_dtype model_dtype; /* torch_dtype: BF16, F16 or F32 (what kv 'auto' follows) */
    /* attention layout: layers of each kind, with their window (tokens) */
    uint32_t n_attn_layers[GPUPLAN_SERVING_ATTN_COUNT];
    uint64_t window_tokens[GPUPLAN_SERVING_ATTN_COUNT]; /* sliding window / attention chunk */
    /* weights */
    struct gpuplan_serving_block dense_block; /* one dense block */
    struct gpuplan_serving_block moe_block;   /* one MoE block (zero when dense) */
    uint64_t embed_params;                    /* token embedding, vocab x hidden */
    uint64_t embed_bytes;
    uint64_t head_params; /* lm_head; 0 when tied */
    uint64_t head_bytes;
    uint64_t other_bytes;   /* final norm and anything outside blocks, embedding and head */
    uint64_t active_params; /* per token (MoE: top-k experts), for FLOPs */
    char layout_note[160];  /* how the layout was derived, e.g. "gemma3: 1 full layer in 6" */
};

/*
 * Build the profile from a finalized inventory with an architecture summary.
 * Per-layer attention kinds are derived from what struct gpuplan_arch holds
 * (family and sliding_window): Gemma 2 alternates sliding and full layers
 * (even layers slide), Gemma 3 has one full layer in six, other families
 * with a window slide on every layer; the derivation is recorded in notes[].
 * Errors: GPUPLAN_ERR_INVALID_CONFIG when the model has no architecture
 * summary, no layers or no heads; GPUPLAN_ERR_UNSUPPORTED for
 * encoder-decoder models (no serving engine here runs T5 with a KV pool).
 */
enum gpuplan_status gpuplan_serving_profile_build(struct gpuplan_serving_profile *profile,
                                                  const struct gpuplan_model *model,
                                                  struct gpuplan_error *err);

/* What is served and how: the engine's own flags, 0 / empty meaning its default. */
struct gpuplan_serving_request {
    enum gpuplan_serving_engine engine; /* default vLLM */
    char engine_version[32]; /* e.g. "0.11.0", "0.9.2.dev364"; "" = the newest modelled (above) */
    bool vllm_v0;            /* VLLM_USE_V1=0 on 0.8-0.10 (the V0 engine); implied below 0.8 */
    bool offline;            /* vLLM's LLM(...) class defaults rather than `vllm serve` */
    /* vLLM --gpu-memory-utilization (of total memory) or SGLang --mem-fraction-static (of
     * the memory free at start-up); 0 = the engine's default for this version and GPU */
    double memory_fraction;
    uint64_t max_model_len;          /* tokens; 0 = the model's max_position_embeddings */
    uint32_t max_num_seqs;           /* vLLM --max-num-seqs / SGLang --max-running-requests */
    uint64_t max_num_batched_tokens; /* vLLM --max-num-batched-tokens / SGLang
                                        --chunked-prefill-size; 0 = version default */
    uint32_t block_size;             /* tokens per KV block (SGLang --page-size); 0 = default */
    enum gpuplan_serving_kv_dtype kv_dtype; /* default auto */
    uint32_t tp;                            /* --tensor-parallel-size, default 1 */
    uint32_t pp;                            /* --pipeline-parallel-size, default 1 */
    uint32_t ep;            /* expert-parallel degree for routed experts; 0/1 = off */
    bool enforce_eager;     /* vLLM --enforce-eager / SGLang --disable-cuda-graph */
    bool disable_hybrid_kv; /* vLLM --disable-hybrid-kv-cache-manager */
    /* Weight format of the block linears as loaded (--quantization fp8, an AWQ/GPTQ/MXFP4
     * checkpoint): F8_E4M3, AWQ4, GPTQ4, MXFP4, NVFP4, INT8; UNKNOWN = as stored. */
    enum gpuplan_dtype weights_dtype;
    uint64_t device_total_bytes; /* 0: gpuplan_serving_device_total_bytes(gpu) */
    /* SGLang: memory free at start-up after distributed init, as its first "avail mem" log
     * line gives it; 0 = total - CUDA context - distributed-init buffers */
    uint64_t device_free_bytes;
    /*
     * The step time's two fitted constants (serving_time.c LAYER_FIXED_S,
     * MOE_LAYER_S); 0 = the fitted values. For the accuracy tool's
     * leave-one-source-out refit only.
     */
    double layer_fixed_s;
    double moe_layer_s;
};

/* Fill the defaults above (vLLM, newest version, TP 1, everything else the engine's). */
void gpuplan_serving_request_init(struct gpuplan_serving_request *req);

#define GPUPLAN_SERVING_MAX_LOG_LINES 12
#define GPUPLAN_SERVING_LOG_LINE_MAX  400

/* One GPU's start-up accounting (the worst pipeline stage: vLLM takes the minimum pool). */
struct gpuplan_serving_memory {
    /* the engine and the resolved settings */
    enum gpuplan_serving_engine engine;
    char engine_version[32];         /* as resolved, e.g. "0.27.0" */
    char engine_generation[24];      /* "vllm-v0", "vllm-v1-0.8", "vllm-v1", "vllm-v1-cg", ... */
    double memory_fraction;          /* as used (the default when the request left 0) */
    uint64_t max_model_len;          /* tokens, as used */
    uint32_t max_num_seqs;           /* as used */
    uint64_t max_num_batched_tokens; /* as used (the profile run's token count) */
    uint32_t block_size;             /* tokens per block (SGLang: page size) */
    enum gpuplan_dtype kv_element;   /* BF16, F16, F32 or F8_E4M3 */
    uint32_t tp, pp, ep;
    /* bytes per GPU */
    uint64_t device_total_bytes; /* what the engine reads as total memory (cudaMemGetInfo) */
    uint64_t requested_bytes;    /* vLLM: total x utilisation; SGLang: free at start x fraction */
    uint64_t weights_bytes;      /* per rank as loaded (vLLM "Model loading took") */
    uint64_t activation_peak_bytes; /* the profile run at max_num_batched_tokens, or the sampler */
    uint64_t non_torch_bytes;       /* NCCL / custom all-reduce buffers, cuBLAS and friends */
    uint64_t cuda_graph_bytes;      /* estimate of the captured graphs' pool; 0 when eager */
    bool cuda_graph_subtracted;     /* vLLM >= 0.21 sizes the pool after this estimate */
    int64_t kv_pool_bytes;          /* "Available KV cache memory"; negative when nothing is left */
    uint64_t free_at_start_bytes;   /* SGLang: free memory after distributed init */
    /* the pool */
    uint64_t kv_bytes_per_token; /* per rank, all layers of the stage (full-attention view) */
    uint64_t page_bytes;         /* one block of one layer group */
    uint32_t n_kv_groups;        /* vLLM hybrid KV manager groups (1 for uniform models) */
    uint32_t group_size;         /* layers per group */
    uint64_t n_blocks;           /* blocks in the pool (SGLang: tokens / page) */
    uint64_t blocks_per_request; /* at max_model_len */
    uint64_t kv_needed_bytes;    /* one request at max_model_len */
    uint64_t kv_capacity_tokens; /* "GPU KV cache size: N tokens" as this version prints it */
    double max_concurrency;      /* requests of max_model_len the pool holds */
    /* verdicts */
    bool refuse_start;              /* the engine raises at start-up */
    uint64_t largest_max_model_len; /* the longest max_model_len that would start (0: none) */
    double min_memory_fraction;     /* SGLang: the smallest fraction that leaves a KV pool */
    bool graph_capture_oom;         /* capture would not fit outside the pool */
    uint64_t graph_headroom_bytes;  /* memory left for graphs (and activations) outside it */
    /* what the engine prints, in order, and gpuplan's one-line summary */
    char log[GPUPLAN_SERVING_MAX_LOG_LINES][GPUPLAN_SERVING_LOG_LINE_MAX];
    size_t n_log;
    char summary[GPUPLAN_SERVING_LOG_LINE_MAX]; /* "GPU KV cache: N tokens, max concurrency X at
                                                   L tokens" or why it will not start */
    char advice[GPUPLAN_SERVING_LOG_LINE_MAX];  /* what to change when it refuses or OOMs; "" */
};

/*
 * The engine's start-up accounting for `profile` served as `req` on `gpu`
 * (required). "Does not start" is a result (refuse_start), not an error.
 * Errors (GPUPLAN_ERR_USAGE, with the flag in the hint): an unparsable
 * version, a version older than modelled (vLLM < 0.6.5, SGLang < 0.4),
 * memory_fraction outside (0, 1], tp not dividing the query heads, pp over
 * the layer count, ep not dividing the experts, or a GPU without memory.
 */
enum gpuplan_status gpuplan_serving_memory(const struct gpuplan_serving_profile *profile,
                                           const struct gpuplan_serving_request *req,
                                           const struct gpuplan_gpu *gpu,
                                           struct gpuplan_serving_memory *out,
                                           struct gpuplan_error *err);

/*
 * Total device memory as CUDA reports it to the engine (torch's
 * mem_get_info total), which is below the datasheet figure: a table of
 * totals logged by the engines for catalog GPUs, else the catalog's visible
 * memory less the median driver reservation, else the datasheet figure read
 * as GiB less the same (docs/serving.md, "Device memory").
 */
uint64_t gpuplan_serving_device_total_bytes(const struct gpuplan_gpu *gpu);

/* One engine step: `n_decode` sequences at `context_tokens` each, plus `n_prefill_tokens`. */
struct gpuplan_serving_step {
    double step_s;           /* one token for every decode sequence (+ the prefill chunk) */
    double weights_s;        /* weight reads at the bandwidth the GPU reaches */
    double kv_s;             /* KV cache reads */
    double compute_s;        /* FLOPs at the achieved matmul rate (roofline with the reads) */
    double allreduce_s;      /* per-layer TP all-reduces: latency + bytes */
    double layer_overhead_s; /* per-layer fixed costs: kernel tails, launches (eager: more) */
    double moe_s;            /* MoE routing/dispatch per MoE layer (+ EP all-to-all) */
    double pipeline_hop_s;   /* PP: one activation send per stage boundary */
    double weight_bytes;     /* per rank read this step */
    double kv_bytes;         /* per rank read this step */
    double flops;            /* per rank */
    uint32_t tp, pp;
};

/*
 * Time of one step of `req` (engine settings: tp, pp, ep, eager, weights) on
 * `gpu` (required; `platform` may be NULL): `n_decode` sequences decoding one
 * token each at `context_tokens` of context, plus `n_prefill_tokens` of
 * chunked prefill in the same step. Pipeline stages run one after another
 * for one token, so a step's latency is the sum over stages plus the hops
 * (PP never lowers it). Errors as gpuplan_serving_memory() for the layout.
 */
enum gpuplan_status gpuplan_serving_step_time(const struct gpuplan_serving_profile *profile,
                                              const struct gpuplan_serving_request *req,
                                              const struct gpuplan_gpu *gpu,
                                              uint64_t n_decode,
                                              uint64_t context_tokens,
                                              uint64_t n_prefill_tokens,
                                              struct gpuplan_serving_step *out,
                                              struct gpuplan_error *err);

/* A load for continuous batching: every request has the same lengths. */
struct gpuplan_serving_load {
    uint64_t input_tokens;  /* prompt tokens per request, e.g. 1024 */
    uint64_t output_tokens; /* generated tokens per request, e.g. 1024 */
    uint64_t concurrency;   /* requests in flight (closed loop), e.g. 64 */
};

struct gpuplan_serving_steady {
    uint64_t concurrency;       /* as run: the load's, capped by max_num_seqs and the KV pool */
    bool capped_by_kv;          /* the pool holds fewer requests than asked */
    double ttft_s;              /* prefill of one prompt in chunks sharing steps with decodes */
    double tpot_s;              /* time per output token after the first, per user */
    double step_s;              /* one mixed step in steady state */
    double output_tokens_per_s; /* the replica */
    double output_tokens_per_s_per_gpu;
    double tokens_per_s_per_user; /* 1 / tpot */
    double requests_per_s;
};

/*
 * Continuous batching in steady state for `load` on one replica: each step
 * decodes one token for every running request and prefills, in the same
 * step, the share of prompt tokens that keeps the pipeline full
 * (concurrency x input / output per step, at most max_num_batched_tokens);
 * TTFT is the prompt's chunks at that step time. Requires `mem` from
 * gpuplan_serving_memory() for the same profile, request and GPU (the pool
 * caps the concurrency). Errors as gpuplan_serving_step_time().
 */
enum gpuplan_status gpuplan_serving_steady_state(const struct gpuplan_serving_profile *profile,
                                                 const struct gpuplan_serving_request *req,
                                                 const struct gpuplan_gpu *gpu,
                                                 const struct gpuplan_serving_memory *mem,
                                                 const struct gpuplan_serving_load *load,
                                                 struct gpuplan_serving_steady *out,
                                                 struct gpuplan_error *err);

/*
 * A start that is clean: the engine starts (no refusal) and CUDA graph
 * capture fits. Every serving plan and a fitting estimate need it.
 */
bool gpuplan_serving_starts(const struct gpuplan_serving_memory *mem);

/*
 * Disaggregated prefill/decode on instances of the same layout as `req`:
 * prefill instances run prompts alone in chunks of the token budget and
 * hand the KV cache to decode instances over the network; decode instances
 * run pure decode steps. For the load's lengths and `load->concurrency`
 * requests in flight on one decode instance. No queueing, as the
 * aggregated steady state (docs/serving.md, "Disaggregated").
 */
struct gpuplan_serving_disagg {
    double prefill_s;             /* one prompt's chunks on an idle prefill instance */
    double kv_transfer_s;         /* its KV cache to the decode instance */
    double ttft_s;                /* prefill_s + kv_transfer_s */
    double prefill_tokens_per_s;  /* one prefill instance, full chunks back to back */
    uint64_t decode_concurrency;  /* as run on one decode instance (the pool caps it) */
    double tpot_s;                /* a pure decode step at that concurrency */
    double decode_requests_per_s; /* one decode instance */
};

enum gpuplan_status gpuplan_serving_disaggregated(const struct gpuplan_serving_profile *profile,
                                                  const struct gpuplan_serving_request *req,
                                                  const struct gpuplan_gpu *gpu,
                                                  const struct gpuplan_serving_memory *mem,
                                                  const struct gpuplan_serving_load *load,
                                                  struct gpuplan_serving_disagg *out,
                                                  struct gpuplan_error *err);

/* ---- the verify artifact (serving_commands.c) ---- */

#define GPUPLAN_SERVING_COMMAND_MAX 640

/*
 * The engine launch line a prediction assumes, and the engine's own
 * benchmark at the load, so a user can check the prediction on their
 * machine: `vllm serve HUB_ID --tensor-parallel-size T ...` and `vllm bench
 * serve ... --random-input-len I --random-output-len O --max-concurrency C`
 * (SGLang: `python -m sglang.launch_server` and `python -m
 * sglang.bench_serving`). Every engine flag is spelled out with the value
 * the accounting used (mem: as resolved), so the line starts the engine the
 * figures describe.
 */
struct gpuplan_serving_commands {
    char launch[GPUPLAN_SERVING_COMMAND_MAX]; /* one replica's engine */
    char bench[GPUPLAN_SERVING_COMMAND_MAX];  /* against that replica, closed loop at C */
    char quantization[16];           /* the engine's --quantization: "fp8" (online), or "" */
    bool needs_quantized_checkpoint; /* awq/gptq/mxfp4/nvfp4/int8/gguf: a checkpoint in that
                                        format under another Hub id */
    uint64_t num_prompts;            /* the benchmark's --num-prompts */
};

/*
 * Fill `out` for `model_ref` (a Hub id such as "meta-llama/Llama-3.3-70B-Instruct",
 * or the path the model came from), the request and its resolved memory,
 * and a replica's load. `stored_fp8`: the checkpoint already stores fp8
 * linears (no --quantization then).
 */
void gpuplan_serving_commands(const char *model_ref,
                              const struct gpuplan_serving_request *req,
                              const struct gpuplan_serving_memory *mem,
                              const struct gpuplan_serving_load *load,
                              bool stored_fp8,
                              struct gpuplan_serving_commands *out);

/* The profile's block linears are stored in fp8 (a fp8 checkpoint such as DeepSeek-R1). */
bool gpuplan_serving_profile_stored_fp8(const struct gpuplan_serving_profile *profile);

/* Names as the engines' flags spell them ("vllm", "sglang"; "auto", "fp8", "bf16", ...). */
const char *gpuplan_serving_engine_name(enum gpuplan_serving_engine engine);
const char *gpuplan_serving_kv_dtype_name(enum gpuplan_serving_kv_dtype kv);
/* Parse a name; GPUPLAN_ERR_USAGE with "did you mean" style hint on a miss. */
enum gpuplan_status gpuplan_serving_engine_from_name(const char *name,
                                                     enum gpuplan_serving_engine *out,
                                                     struct gpuplan_error *err);
enum gpuplan_status gpuplan_serving_kv_dtype_from_name(const char *name,
                                                       enum gpuplan_serving_kv_dtype *out,
                                                       struct gpuplan_error *err);

/*
 * Parse an engine version ("0.11.0", "v0.9.2.dev364+gb432b7a28", "0.6.5.dev")
 * into major/minor/patch; trailing pre-release text is ignored.
 * Returns false when it does not start with N.N.
 */
bool gpuplan_serving_version_parse(const char *text,
                                   uint32_t *major,
                                   uint32_t *minor,
                                   uint32_t *patch);

#endif
