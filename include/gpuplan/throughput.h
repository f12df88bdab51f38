/*
 * throughput.h - compute, time and throughput of a training or serving job.
 *
 * Two steps, so that a planner can evaluate ~10^6 candidates a second:
 *
 *   1. gpuplan_throughput_profile_build(): once per model, reads the tensor
 *      inventory into a small fixed-size profile (linear parameters per role,
 *      attention FLOPs per context token, KV bytes per token, ...).
 *   2. gpuplan_throughput_eval(): closed-form, allocation-free, no error path
 *      beyond argument checks; a pure function of (profile, job, system).
 *
 * Model (derivations in docs/formulas-time-cost.md):
 *   - FLOPs per token: forward 2 x linear parameters touched per token
 *     (MoE: active experts only) + causal attention; backward 2 x forward for
 *     trained weights, 1 x forward (input gradients only) for frozen ones;
 *     full checkpointing recomputes one forward, selective only attention.
 *   - Achieved matmul rate: the GPU's dense peak for the compute precision x
 *     an efficiency by architecture generation, precision and matrix size,
 *     calibrated on published measurements (see the .c file and the doc).
 *     Under fp8 recipes attention runs at the bf16 rate (only linears are fp8).
 *   - Memory-bound terms: weight streaming (roofline), QLoRA dequantisation,
 *     the non-matmul kernels (norms, rotary, activations, residuals, the LoRA
 *     branch; eager one-kernel-per-op, or fused with job.compile), the GPU
 *     optimizer step.
 *   - Communication over the links the GPUs have (NVSwitch, NVLink bridge,
 *     PCIe, inter-node network): DDP all-reduce, ZeRO/FSDP all-gather +
 *     reduce-scatter with prefetch overlap, TP all-reduces, PP bubble.
 *   - Offload: PCIe traffic and the CPU optimizer step.
 *
 * Training only: serving time is the engines' step model (serving.h,
 * gpuplan_serving_step_time), which reads gpuplan_throughput_efficiency().
 * Not here: memory fit (memory model), prices (cost.h), search (planner).
 */
#ifndef GPUPLAN_THROUGHPUT_H
#define GPUPLAN_THROUGHPUT_H

#include <stdbool.h>
#include <stdint.h>

#include "gpuplan/catalog.h"
#include "gpuplan/error.h"
#include "gpuplan/job.h"
#include "gpuplan/model.h"

enum gpuplan_bottleneck {
    GPUPLAN_BOTTLENECK_COMPUTE = 0,      /* tensor-core FLOPs */
    GPUPLAN_BOTTLENECK_MEMORY_BANDWIDTH, /* HBM/GDDR traffic: decode, dequant, optimizer */
    GPUPLAN_BOTTLENECK_COMMUNICATION,    /* exposed collectives, pipeline bubble */
    GPUPLAN_BOTTLENECK_OFFLOAD,          /* PCIe to host and the CPU optimizer step */
    GPUPLAN_BOTTLENECK_COUNT
};

/* "compute", "memory_bandwidth", "communication", "offload". */
const char *gpuplan_bottleneck_name(enum gpuplan_bottleneck bottleneck);

/*
 * The model-dependent part, built once. Plain data, no pointers: copy freely.
 * "Active" counts scale routed experts by experts_per_token / n_experts.
 */
struct gpuplan_throughput_profile {
    double n_params_total;          /* e.g. 8.03e9 */
    double n_params_active;         /* per token, e.g. 12.9e9 for Mixtral */
    double linear_params_active;    /* matmul weights a token multiplies by, incl. lm_head */
    double linear_params_total;     /* all matmul weights (what FSDP gathers, what NF4 stores) */
    double linear_params_quantised; /* those of the linear roles (what QLoRA dequantises) */
    double linear_active_by_role[GPUPLAN_ROLE_COUNT]; /* active matmul params per role */
    double linear_total_by_role[GPUPLAN_ROLE_COUNT];  /* stored matmul params per role */
    double lora_dims_by_role[GPUPLAN_ROLE_COUNT]; /* sum of (in + out) over active matrices: adapter
                                                     params per rank */
    double lora_dims_total_by_role[GPUPLAN_ROLE_COUNT]; /* same over all stored matrices */
    double lora_out_by_role[GPUPLAN_ROLE_COUNT];        /* sum of out over active matrices (adapter
                                                           output traffic) */
    double attn_flops_per_ctx_token; /* forward: 2 * layers * heads * (d_qk + d_v) */
    double kv_elems_per_token;       /* cached K+V elements per token, all layers */
    /* Forward HBM bytes per token of the non-matmul kernels (norms, rotary, activation,
     * residual adds), all layers: eager PyTorch (one kernel per op) and fused. */
    double elementwise_bytes_eager;
    double elementwise_bytes_fused;
    uint64_t sliding_window; /* tokens, 0 = none */
    uint64_t hidden_size;    /* e.g. 4096 */
    uint64_t n_heads;        /* attention heads, e.g. 32 */
    uint32_t n_layers;       /* decoder + encoder blocks */
    uint32_t n_experts;      /* routed experts, 0 dense */
    uint32_t n_experts_per_token;
    double expert_params_total;  /* routed expert weights, all experts */
    double expert_params_active; /* ... that one token multiplies by (top-k of them) */
    uint32_t n_moe_layers;       /* blocks with routed experts, e.g. 94 for Qwen3-235B-A22B */
    uint64_t expert_ffn_size;    /* one expert's inner width, e.g. 1536 */
};

/* Hardware a job runs on; fill with gpuplan_throughput_system_init() then set `gpu`. */
struct gpuplan_throughput_system {
    const struct gpuplan_gpu *gpu; /* borrowed, required */
    const struct gpuplan_platform
        *platform;                      /* borrowed, may be NULL (then the stated assumptions) */
    double inter_node_gb_per_s_per_gpu; /* 0: platform network / GPUs per node, else assumption */
    double host_memory_gb_per_s;        /* 0: assumption (CPU optimizer step) */
    double efficiency_override;         /* 0: calibrated; else fraction of dense peak (0, 1] */
};

void gpuplan_throughput_system_init(struct gpuplan_throughput_system *system);

struct gpuplan_throughput {
    /* FLOPs per trained token on one model replica (before TP/PP split) */
    double flops_forward_per_token;   /* matmuls + attention, e.g. 2 * 8e9 + attention */
    double flops_attention_per_token; /* forward attention part of the above */
    double flops_backward_per_token;
    double flops_recompute_per_token;
    double flops_per_token;       /* hardware FLOPs: forward + backward + recompute */
    double model_flops_per_token; /* for MFU: forward + backward, no recompute */
    /* rates */
    double peak_tflops;     /* dense peak in the compute precision, per GPU */
    double efficiency;      /* fraction of peak the matmuls reach */
    double achieved_tflops; /* peak * efficiency */
    /* per optimizer step, per GPU (seconds) */
    uint32_t dp, tp, pp;    /* data, tensor, pipeline parallel degrees */
    double tokens_per_step; /* all GPUs: micro_batch * seq * grad_accum * dp */
    double compute_s;       /* matmuls + attention (roofline with weight reads) */
    double memory_s;        /* dequantisation + GPU optimizer step */
    double comm_total_s;    /* all collectives, before overlap */
    double comm_s;          /* exposed collectives + pipeline bubble */
    double offload_s;       /* PCIe to host + CPU optimizer step */
    double step_time_s;
    double tokens_per_s_per_gpu;
    double tokens_per_s; /* all GPUs */
    double mfu;          /* model FLOPs / (peak * time), 0..1 */
    enum gpuplan_bottleneck bottleneck;
    bool has_train_time; /* job.tokens or job.dataset_tokens > 0 */
    double train_tokens; /* (tokens or dataset_tokens) * epochs */
    double train_hours;
};

/*
 * Build the profile from a finalized inventory. Errors: GPUPLAN_ERR_INVALID_CONFIG
 * when the model has no parameters or no architecture summary.
 */
enum gpuplan_status gpuplan_throughput_profile_build(struct gpuplan_throughput_profile *profile,
                                                     const struct gpuplan_model *model,
                                                     struct gpuplan_error *err);

/*
 * Evaluate one configuration. GPU count = job->gpus_per_node * job->nodes;
 * dp = GPUs / (tp * pp). Errors (GPUPLAN_ERR_USAGE): no GPU, a GPU without a
 * peak for the compute precision, zero seq_len/micro_batch/grad_accum, a
 * GPU count not divisible by tp * pp, or a serving job (method infer: the
 * serving module times those). `out` is fully written on success.
 */
enum gpuplan_status gpuplan_throughput_eval(const struct gpuplan_throughput_profile *profile,
                                            const struct gpuplan_job *job,
                                            const struct gpuplan_throughput_system *system,
                                            struct gpuplan_throughput *out,
                                            struct gpuplan_error *err);

/*
 * Both steps for one job: build the profile of `model`, evaluate the job as
 * gpuplan_job_resolve() completes it (QLoRA checkpointing, DDP on > 1 GPU) on
 * `gpu` (required) in `platform` (may be NULL: the stated network
 * assumptions). Errors as the two steps. What `gpuplan estimate` and
 * POST /v1/estimate show.
 */
enum gpuplan_status gpuplan_throughput_estimate(const struct gpuplan_model *model,
                                                const struct gpuplan_job *job,
                                                const struct gpuplan_gpu *gpu,
                                                const struct gpuplan_platform *platform,
                                                struct gpuplan_throughput *out,
                                                struct gpuplan_error *err);

/* The calibrated matmul efficiency (fraction of dense peak) for a GPU, precision
 * and per-GPU GEMM size; exposed for tests and the accuracy report. */
double gpuplan_throughput_efficiency(const struct gpuplan_gpu *gpu,
                                     enum gpuplan_precision precision,
                                     double tokens_per_micro_batch,
                                     double hidden_per_gpu);

#endif
