/*
 * estimate.h - the memory model: bytes per GPU and per host for a job.
 *
 * Two steps, so a planner can evaluate millions of candidates:
 *  (a) gpuplan_memory_profile_build(): once per (model, LoRA targets, rank):
 *      parameter counts by class (quantisable linear, 16-bit rest, trainable
 *      adapters), the largest layer and tensor, and the per-token activation
 *      coefficients of one block, read off the tensor inventory;
 *  (b) gpuplan_memory_eval(): closed-form and allocation-free, from the
 *      profile, the job and the GPU (may be NULL: no fit verdict).
 * gpuplan_estimate_memory() does both and adds "what to change to fit"
 * suggestions by re-running (b) with one option changed at a time.
 *
 * gpuplan_estimate_run() is `gpuplan estimate` as one value: the memory
 * report, and with a GPU the throughput (throughput.h) and the cloud cost
 * (cost.h) of the same job. Renderers only format that value. A serving
 * job (method infer) is the serving engines' model (serving.h): the
 * memory report then holds the engine's start-up accounting and the
 * estimate its steady state, launch line and benchmark.
 *
 * Every formula and its derivation is in src/lib/estimate/memory_model.c and
 * docs/formulas.md. Results are bytes (uint64); nothing is printed.
 * Not here: the time and cost formulas (throughput and cost modules),
 * rendering (render.h).
 */
#ifndef GPUPLAN_ESTIMATE_H
#define GPUPLAN_ESTIMATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpuplan/catalog.h"
#include "gpuplan/error.h"
#include "gpuplan/job.h"
#include "gpuplan/model.h"
#include "gpuplan/serving.h"
#include "gpuplan/throughput.h"

/* Per-model facts the closed-form evaluation needs (no pointers, copyable). */
struct gpuplan_memory_profile {
    char model_id[128];
    uint64_t n_params;      /* all parameters, e.g. 8,030,261,248 */
    uint64_t linear_params; /* nn.Linear weights (quantised by QLoRA / serving formats) */
    uint64_t other_params;  /* embeddings, lm_head, norms, biases: kept 16-bit */
    uint64_t
        small_tensor_params;  /* params in tensors < 4096 elements (bnb 8-bit keeps them fp32) */
    uint64_t factored_params; /* Adafactor: sum of (rows + cols) over matrices + numel of vectors */
    uint64_t block_params;    /* params inside the decoder/encoder blocks */
    uint64_t embed_params;    /* token + position embeddings */
    uint64_t head_params;     /* lm_head (0 when tied) */
    uint64_t expert_params;   /* routed experts' weights, all experts (--ep shards them) */
    uint64_t largest_layer_params;  /* largest FSDP unit: one block, or the embedding/head root */
    uint64_t largest_block_params;  /* largest single block (FSDP's per-block unit) */
    uint64_t largest_tensor_params; /* largest single tensor (grads under optimizer-in-backward) */
    uint64_t largest_linear_params; /* largest quantised linear (QLoRA dequant workspace) */
    /* LoRA adapters for the profile's targets and rank */
    gpuplan_role_mask lora_roles;
    uint32_t lora_rank;
    uint64_t lora_params;          /* r * (in + out) summed over targeted linears */
    uint64_t lora_small_params;    /* adapter tensors < 4096 elements */
    uint64_t lora_factored_params; /* Adafactor factors of the adapters */
    /* architecture (per block, per token) */
    uint32_t n_layers; /* all blocks (encoder + decoder) */
    uint64_t hidden;   /* h */
    uint64_t q_width;  /* n_heads * head_dim */
    uint64_t kv_width; /* n_kv_heads * head_dim */
    uint64_t n_heads;
    uint64_t head_dim;
    uint64_t q_lora_rank;  /* MLA */
    uint64_t kv_lora_rank; /* MLA */
    uint64_t mlp_width;    /* I of the dense MLP, or top-k * I_moe + shared widths */
    uint64_t vocab;
    uint64_t kv_cache_width; /* KV elements per token per layer: 2*kv_width, or MLA latent */
    bool gated_mlp;
    bool is_moe;
    uint32_t n_experts_per_token;
    uint32_t n_experts;
    /* inputs of adapted linears per token per block (elements), by kind of input */
    uint64_t lora_input_elems; /* distinct saved inputs of adapted linears (shared inputs once) */
    uint64_t lora_input_elems_each; /* the same, once per adapted linear (LoRA dropout) */
};

enum gpuplan_status gpuplan_memory_profile_build(struct gpuplan_memory_profile *profile,
                                                 const struct gpuplan_model *model,
                                                 gpuplan_role_mask lora_roles,
                                                 uint32_t lora_rank,
                                                 struct gpuplan_error *err);

/* One GPU's memory (bytes), the host's, and the verdict. */
struct gpuplan_memory_per_gpu {
    uint64_t weights_bytes; /* model weights resident (incl. master copy, working copy, gathered
                               units) */
    uint64_t gradients_bytes;
    uint64_t optimizer_bytes;   /* incl. resident paged states (managed_bytes, outside allocated) */
    uint64_t activations_bytes; /* peak of saved activations + logits/loss + transient workspace */
    uint64_t adapters_bytes;    /* LoRA adapter weights */
    uint64_t kv_cache_bytes;    /* inference */
    uint64_t overhead_bytes;    /* communication buffers, quantisation workspace */
    uint64_t peak_allocated_bytes; /* torch.cuda.max_memory_allocated equivalent; training: the
                                      largest of four moments of a step (docs/formulas.md "Peak"),
                                      not the sum of the categories above */
    uint64_t peak_reserved_bytes;  /* + allocator caching and fragmentation */
    uint64_t cuda_context_bytes;   /* CUDA/driver context, outside the allocator */
    uint64_t device_total_bytes;   /* reserved + context (+ managed): what nvidia-smi shows */
    uint64_t managed_bytes; /* CUDA unified memory resident on the GPU (paged optimizer states),
                               outside the caching allocator: in device_total only */
    /*
     * --packed no with a GPU: the top of the reserved band under variable-length
     * batches, the memory the caching allocator can take (usable - context - NCCL -
     * managed), never below peak_reserved; 0 otherwise. Not an OOM bound: the
     * allocator frees its cached blocks and retries before it fails.
     */
    uint64_t reserved_varlen_high_bytes;
    uint64_t load_peak_bytes; /* the load moment before the first step, where the stack has one
                                 (raw DeepSpeed ZeRO-3: the whole 16-bit model on every GPU);
                                 0 otherwise; peak_allocated is the larger of it and the step */
};

struct gpuplan_memory_estimate {
    struct gpuplan_memory_per_gpu per_gpu;
    uint64_t host_ram_bytes; /* per node: offloaded states, pinned buffers, paged optimizer */
    uint32_t n_gpus;         /* gpus_per_node * nodes */
    uint32_t dp_degree;      /* data-parallel size (n_gpus / (tp * pp)) */
    uint32_t shard_degree;   /* ranks model states are sharded over */
    bool has_gpu;
    uint64_t gpu_usable_bytes; /* what the allocator can use on the GPU */
    bool fits;                 /* device_total <= usable (only with has_gpu) */
    int64_t headroom_bytes;    /* usable - device_total */
    /* serving (method infer): the engine's pool, as it prints it */
    uint64_t kv_capacity_tokens; /* "GPU KV cache size: N tokens" */
    double max_concurrency;      /* requests of max_model_len the pool holds, e.g. 3.42 */
    uint64_t max_model_len;      /* tokens, as the engine starts */
};

#define GPUPLAN_MAX_SUGGESTIONS 8

struct gpuplan_memory_suggestion {
    char change[128];     /* e.g. "--grad-ckpt full" or "--gpu h100-sxm:2 --sharding fsdp" */
    int64_t saving_bytes; /* per-GPU device total saved (positive = less memory) */
    bool fits;            /* the changed job fits */
};

struct gpuplan_memory_report {
    struct gpuplan_memory_estimate est;
    struct gpuplan_memory_suggestion suggestions[GPUPLAN_MAX_SUGGESTIONS];
    size_t n_suggestions;
};

/*
 * Closed form; no allocation, no failure on valid profile and job (counts are
 * bounded by the option table, arithmetic saturates). `gpu` may be NULL.
 * Training jobs: a serving job (method infer) is the serving engines'
 * accounting (serving.h), which this profile does not hold; `out` is then
 * zero but for the GPU counts.
 */
void gpuplan_memory_eval(const struct gpuplan_memory_profile *profile,
                         const struct gpuplan_job *job,
                         const struct gpuplan_gpu *gpu,
                         struct gpuplan_memory_estimate *out);

/*
 * Profile + eval + suggestions (only when a GPU is given and the job does
 * not fit). GPUPLAN_ERR_INVALID_CONFIG when the model lacks the
 * architecture the activation model needs; GPUPLAN_ERR_UNSUPPORTED for
 * combinations not modelled (e.g. tp not dividing the heads).
 * A serving job (method infer) is the engine's start-up accounting
 * (gpuplan_serving_memory on one GPU of a replica; weights only without a
 * GPU): weights, the profile run's activation peak, the KV pool,
 * non-torch memory and CUDA graphs, "fits" meaning the engine starts, and
 * suggestions that make a refused start start.
 */
enum gpuplan_status gpuplan_estimate_memory(const struct gpuplan_model *model,
                                            const struct gpuplan_job *job,
                                            const struct gpuplan_gpu *gpu,
                                            struct gpuplan_memory_report *out,
                                            struct gpuplan_error *err);

/* ---- serving (serving_estimate.c) ---- */

/*
 * Serving (method infer): the engine's start-up accounting on one GPU of a
 * replica (serving.h) and continuous batching at the job's load. A replica
 * is tp x pp GPUs (the job, resolved: TP over a server's GPUs, PP across
 * servers); the GPUs given hold GPUs / (tp x pp) of them, and the job's
 * concurrency is split over them.
 */
struct gpuplan_estimate_serving {
    struct gpuplan_serving_request request;     /* the engine's flags as the job gives them */
    bool has_memory;                            /* a GPU was given */
    struct gpuplan_serving_memory memory;       /* one GPU of a replica */
    uint32_t replicas;                          /* e.g. 2 for 8 GPUs at tp 4 */
    uint64_t concurrency;                       /* all replicas, as the job asks */
    struct gpuplan_serving_load load;           /* one replica: the job's lengths, its share */
    bool has_time;                              /* the engine starts and its pool holds a request */
    char time_error[GPUPLAN_ERROR_MESSAGE_MAX]; /* why not, when it does not */
    struct gpuplan_serving_steady steady;       /* one replica */
    struct gpuplan_serving_step decode_step;    /* one decode step at the steady concurrency */
    double output_tokens_per_s;                 /* all replicas */
    double output_tokens_per_s_per_gpu;
    const char *step_bound; /* the largest term of that step: "weights", "kv", "compute",
                               "allreduce", "per-layer", "moe", "pipeline" (static) */
    struct gpuplan_serving_commands commands; /* launch line and benchmark (with has_memory) */
};

/*
 * The engine request a job asks for: engine, version, memory fraction,
 * lengths and batch limits, KV and weight formats, eager, tp / pp / ep as
 * gpuplan_job_resolve() completes them. `job` need not be resolved.
 */
void gpuplan_serving_request_from_job(const struct gpuplan_job *job,
                                      struct gpuplan_serving_request *req);

/* ---- the whole estimate (estimate.c) ---- */

/* The cloud cost of an estimated job at the catalog's rate for job.cloud_tier. */
struct gpuplan_estimate_cost {
    uint32_t n_gpus;         /* gpus_per_node * nodes, e.g. 8 */
    double usd_per_gpu_hour; /* the GPU's catalog rate; 0 unknown */
    int tier_asked;          /* enum gpuplan_cloud_tier: job.cloud_tier */
    int tier;                /* the rate's tier (another when rate_fallback) */
    bool rate_fallback;      /* the GPU has no rate at tier_asked */
    char provider[64];       /* of the rate, e.g. "RunPod Secure Cloud"; "" unknown */
    bool has_gpu_hours;      /* training with a token count */
    double gpu_hours;        /* train_hours * n_gpus */
    bool has_cloud_usd;      /* ... and a known rate */
    double cloud_usd;        /* the run at usd_per_gpu_hour */
    bool has_usd_per_mtok;   /* serving with a known rate and an output rate */
    double usd_per_mtok;     /* all GPUs for an hour over the output tokens of that hour, per 1e6 */
};

/* ---- ranges (intervals.c) ---- */

struct gpuplan_estimate;

/*
 * One class of validation/intervals-{memory,throughput}.csv (compiled in):
 * the 80 % interval of measured / predicted over the out-of-sample residuals
 * of the class stack|method|kind, or of the coarser class it backs off to
 * (fewer than 10 rows or 3 source families; `make intervals`, docs/validation.md).
 */
struct gpuplan_interval {
    bool has;
    char class_name[64];  /* the class asked for, e.g. "torchtune|lora|reserved" */
    char bounds_from[64]; /* the class the bounds come from, e.g. "*|lora|reserved" */
    uint32_t n_rows;      /* rows of the asked class (0: not in the file) */
    uint32_t n_used;      /* rows the bounds come from */
    double factor_low;    /* measured / predicted, bottom of the 80 % interval, e.g. 0.73 */
    double factor_high;   /* ... top (split-conformal: 1 / factor_low), e.g. 1.38 */
};

/*
 * The interval of `quantity` ("memory" or "throughput") for stack, method
 * and kind ("allocated", "reserved"; "-" for throughput), backing off to
 * *|method|kind, *|*|kind, *|*|* when the class is not in the file. false
 * when the compiled-in file has none (never for the shipped files).
 */
bool gpuplan_interval_find(const char *quantity,
                           const char *stack,
                           const char *method,
                           const char *kind,
                           struct gpuplan_interval *out);

enum gpuplan_fit_verdict {
    GPUPLAN_VERDICT_FITS = 0,     /* the top of the device-total range fits */
    GPUPLAN_VERDICT_MAY_NOT_FIT,  /* the range straddles the usable memory */
    GPUPLAN_VERDICT_DOES_NOT_FIT, /* the bottom of the range does not fit */
    GPUPLAN_VERDICT_COUNT
};

/* "FITS", "MAY NOT FIT", "DOES NOT FIT" (English; renderers translate). */
const char *gpuplan_fit_verdict_label(enum gpuplan_fit_verdict v);
/* "fits", "may-not-fit", "does-not-fit" (JSON). */
const char *gpuplan_fit_verdict_name(enum gpuplan_fit_verdict v);

/*
 * The ranges of a training estimate's figures: each figure times its
 * class's [factor_low, factor_high]. Device total is the reserved range plus
 * what lies outside the allocator (CUDA context, managed memory), which is
 * not scaled. Times scale with 1 / the throughput factors.
 */
struct gpuplan_estimate_ranges {
    bool has_memory; /* a training job (serving has none yet) */
    struct gpuplan_interval allocated, reserved;
    uint64_t peak_allocated_low_bytes, peak_allocated_high_bytes;
    uint64_t peak_reserved_low_bytes, peak_reserved_high_bytes;
    uint64_t device_total_low_bytes, device_total_high_bytes;
    bool has_verdict; /* a GPU was given */
    enum gpuplan_fit_verdict verdict;
    int64_t over_bytes; /* MAY NOT FIT: how far the top of the range is over the usable memory */
    bool has_throughput;
    struct gpuplan_interval throughput;
    double tokens_per_s_per_gpu_low, tokens_per_s_per_gpu_high;
    double step_time_s_low, step_time_s_high;
    bool has_train_time;
    double train_hours_low, train_hours_high;
};

/*
 * The memory part of the ranges (has_memory, the byte ranges, the verdict when
 * `m` has a GPU) of estimate `m` from the intervals of its class: what
 * gpuplan_estimate_ranges_fill does for memory, and the planner for each
 * candidate (intervals looked up once per method). Leaves the throughput
 * fields of `out` as they are.
 */
void gpuplan_memory_ranges_fill(const struct gpuplan_memory_estimate *m,
                                const struct gpuplan_interval *allocated,
                                const struct gpuplan_interval *reserved,
                                struct gpuplan_estimate_ranges *out);

/* The ranges of `e` (its job resolved, memory and throughput filled); `e` unchanged. */
void gpuplan_estimate_ranges_fill(const struct gpuplan_estimate *e,
                                  struct gpuplan_estimate_ranges *out);

struct gpuplan_estimate {
    char model_id[128];     /* e.g. "llama-3.1-8b" */
    uint64_t n_params;      /* the model's parameters, e.g. 8,030,261,248 */
    struct gpuplan_job job; /* as gpuplan_job_resolve() completes it */
    bool has_gpu;
    char gpu_id[64];         /* catalog id, e.g. "h100-sxm" */
    char gpu_cloud_date[16]; /* the rate's date, e.g. "2026-05"; "" undated */
    struct gpuplan_memory_report memory;
    /* serving (job.method infer): the engines' model instead of the training time model */
    bool is_serving;
    struct gpuplan_estimate_serving serving;
    /* training time: with a GPU, when the time model takes the job (else the reason why not) */
    bool has_throughput;
    struct gpuplan_throughput throughput;
    char throughput_error[GPUPLAN_ERROR_MESSAGE_MAX];
    /* the server whose network per GPU the time model used across nodes (e.g. "hgx-b300-8");
     * "" when none was given: the stated assumption (throughput.c, 50 GB/s per GPU) */
    char platform_id[48];
    struct gpuplan_estimate_cost cost;     /* with a GPU and has_throughput */
    struct gpuplan_estimate_ranges ranges; /* training: every figure's 80 % range, the verdict */
};

/*
 * `gpuplan estimate` (and POST /v1/estimate): the memory report
 * (gpuplan_estimate_memory) and, with a GPU, the throughput of the same job
 * (gpuplan_throughput_estimate, no platform: the stated network
 * assumptions; gpuplan_estimate_run_in names one) and its cloud cost. `out` is caller-owned (tens
 * of KB: on the heap) and fully written; `gpu` may be NULL and is not kept. A job the time model
 * refuses is a result (has_throughput false, throughput_error says why); errors are
 * gpuplan_estimate_memory's. A serving job fills `serving` (is_serving): the steady state at the
 * job's load from gpuplan_serving_steady_state, the cost per million output tokens, the launch line
 * and benchmark; an engine that will not start is a result (serving.has_time false,
 * serving.time_error).
 */
enum gpuplan_status gpuplan_estimate_run(const struct gpuplan_model *model,
                                         const struct gpuplan_job *job,
                                         const struct gpuplan_gpu *gpu,
                                         struct gpuplan_estimate *out,
                                         struct gpuplan_error *err);

/*
 * The same in `platform` (may be NULL: gpuplan_estimate_run): the time model
 * reads the server's network per GPU across nodes, as the planner does for
 * the servers it recommends. gpuplan_catalog_sole_platform() finds the one a
 * GPU is sold in.
 */
enum gpuplan_status gpuplan_estimate_run_in(const struct gpuplan_model *model,
                                            const struct gpuplan_job *job,
                                            const struct gpuplan_gpu *gpu,
                                            const struct gpuplan_platform *platform,
                                            struct gpuplan_estimate *out,
                                            struct gpuplan_error *err);

#endif
