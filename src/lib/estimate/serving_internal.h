/*
 * serving_internal.h - what serving.c, serving_memory.c and serving_time.c
 * share: the resolved parallel layout, the engine version and its
 * generation, weights and KV bytes per rank. Library-internal.
 */
#ifndef GPUPLAN_SERVING_INTERNAL_H
#define GPUPLAN_SERVING_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "gpuplan/estimate.h"
#include "gpuplan/serving.h"

/* A parsed version, compared as one number: major * 1e6 + minor * 1e3 + patch. */
struct serving_version {
    uint32_t major, minor, patch;
    uint64_t key;
};

#define SERVING_VERSION_KEY(ma, mi, pa) ((uint64_t)(ma)*1000000u + (uint64_t)(mi)*1000u + (pa))

/* vLLM engine generations whose start-up accounting differs (docs/serving.md, "Versions"). */
enum vllm_gen {
    VLLM_GEN_V0 = 0,   /* 0.6.5-0.7.x, or VLLM_USE_V1=0 on 0.8-0.10: worker.py memory_profiling */
    VLLM_GEN_V1_EARLY, /* 0.8.x: V1 by default, no "Available KV cache memory" line */
    VLLM_GEN_V1,       /* 0.9-0.20: V1 MemorySnapshot profiling; graphs after the pool */
    VLLM_GEN_V1_CG,    /* >= 0.21: the CUDA graph estimate is subtracted before the pool */
    VLLM_GEN_COUNT
};

enum sglang_gen {
    SGLANG_GEN_TP_TABLE = 0, /* 0.4.0-0.4.8: mem_fraction_static by TP size */
    SGLANG_GEN_BUCKETED,     /* 0.4.9-0.5.3: reserved GiB by GPU memory bucket */
    SGLANG_GEN_HEURISTIC,    /* >= 0.5.4: PR #10975 reserved-memory heuristic */
    SGLANG_GEN_COUNT
};

/* The layout every per-rank figure is computed for. */
struct serving_layout {
    uint32_t tp, pp, ep;
    uint32_t stage_layers;       /* layers of the largest pipeline stage */
    uint32_t stage_dense_layers; /* of which dense (the stage with the most bytes) */
    uint32_t stage_moe_layers;
    bool stage_has_embed;   /* first stage (or the last with tied embeddings) */
    bool stage_has_head;    /* last stage */
    uint64_t kv_heads_rank; /* KV heads per rank: max(1, n_kv_heads / tp); 1 for MLA */
};

bool serving_version_from_text(const char *text, struct serving_version *out);

/*
 * Resolve tp/pp/ep against the profile and pick the pipeline stage with the
 * most weight bytes (vLLM sizes every worker's pool and takes the minimum).
 * GPUPLAN_ERR_USAGE with the flag in the hint on a layout that cannot run.
 */
enum gpuplan_status serving_layout_resolve(const struct gpuplan_serving_profile *p,
                                           const struct gpuplan_serving_request *req,
                                           struct serving_layout *out,
                                           struct gpuplan_error *err);

/* Weights of one rank of the layout's worst stage, as loaded (bytes). */
double serving_weights_rank_bytes(const struct gpuplan_serving_profile *p,
                                  const struct serving_layout *l,
                                  enum gpuplan_dtype weights_dtype);

/* Bytes of one layer block of kind `moe` on one rank (no embedding/head), as loaded. */
double serving_block_rank_bytes(const struct gpuplan_serving_profile *p,
                                const struct serving_layout *l,
                                enum gpuplan_dtype weights_dtype,
                                bool moe,
                                bool experts);

/* KV element bytes for `kv` under the model's dtype (auto follows it). */
double serving_kv_elem_bytes(const struct gpuplan_serving_profile *p,
                             enum gpuplan_serving_kv_dtype kv,
                             enum gpuplan_dtype *element);

/* KV bytes per token of one layer on one rank (MLA latent replicated on every rank). */
uint64_t serving_kv_token_layer_bytes(const struct gpuplan_serving_profile *p,
                                      const struct serving_layout *l,
                                      double elem_bytes);

/* Layers of attention kind `kind` in the worst stage (kinds spread evenly over stages). */
uint32_t serving_stage_kind_layers(const struct gpuplan_serving_profile *p,
                                   const struct serving_layout *l,
                                   enum gpuplan_serving_attn kind);

/* CUDA context of one process on `gpu` (docs/formulas.md "Overheads"), bytes. */
double serving_cuda_context_bytes(const struct gpuplan_gpu *gpu);

/* The device total the engine sees: the request's override, else the table. */
uint64_t serving_device_total(const struct gpuplan_serving_request *req,
                              const struct gpuplan_gpu *gpu);

/* Vocabulary padded as vLLM's VocabParallelEmbedding pads it (multiple of 64). */
uint64_t serving_padded_vocab(uint64_t vocab);

/*
 * Peak bytes of one forward pass over `n_tokens` on one rank, the largest
 * block's transient tensors (docs/serving.md "Activation peak").
 */
double serving_forward_peak_bytes(const struct gpuplan_serving_profile *p,
                                  const struct serving_layout *l,
                                  double n_tokens);

/* Append one formatted line to a fixed log; silently stops when full. */
void serving_log(struct gpuplan_serving_memory *m, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/*
 * A serving job (method infer) as the estimate sees it (serving_estimate.c):
 * the engine's accounting on one GPU of a replica as `report` (weights only
 * without `gpu`), and with `sv` (may be NULL) the steady state at the job's
 * load, the launch line and the benchmark. gpuplan_estimate_memory and
 * gpuplan_estimate_run call it. Errors: a layout that does not divide the
 * GPUs given, and those of gpuplan_serving_profile_build / _memory.
 */
enum gpuplan_status serving_estimate(const struct gpuplan_model *model,
                                     const struct gpuplan_job *job,
                                     const struct gpuplan_gpu *gpu,
                                     struct gpuplan_memory_report *report,
                                     struct gpuplan_estimate_serving *sv,
                                     struct gpuplan_error *err);

/* "1,470,588" into buf (cap >= 32). */
const char *serving_thousands(uint64_t v, char *buf, size_t cap);

#endif
