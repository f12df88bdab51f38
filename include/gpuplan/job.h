/*
 * job.h - the job specification: what is trained or served, and how.
 *
 * One struct carries every option of `gpuplan estimate` / `recommend` and of
 * the HTTP bodies. Options are declared once in a table (gpuplan_job_options,
 * options.h) that drives CLI parsing, `--help`, the man page, completion,
 * the JSON body reader and gpuplan_job_init's defaults, so the CLI and the
 * API cannot disagree.
 *
 * Defaults are what a user of the standard stack (PyTorch + Transformers +
 * PEFT + Accelerate) gets: bf16-mixed, AdamW (fp32 states), sdpa attention,
 * no checkpointing for full/LoRA (PEFT's prepare_model_for_kbit_training turns
 * it on for QLoRA), LoRA rank 8 alpha 16 on q_proj,v_proj (PEFT's default for
 * Llama-family models), NF4 with double quantisation for QLoRA.
 */
#ifndef GPUPLAN_JOB_H
#define GPUPLAN_JOB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpuplan/dtype.h"
#include "gpuplan/error.h"
#include "gpuplan/options.h"
#include "gpuplan/serving.h"

enum gpuplan_method {
    GPUPLAN_METHOD_FULL = 0,
    GPUPLAN_METHOD_LORA,
    GPUPLAN_METHOD_QLORA,
    GPUPLAN_METHOD_INFER,
    GPUPLAN_METHOD_COUNT
};

/* Precision recipes, modelled as they really store tensors. */
enum gpuplan_precision {
    GPUPLAN_PRECISION_BF16 =
        0, /* pure bf16 weights, grads and optimizer states (torchtune, LitGPT bf16-true) */
    GPUPLAN_PRECISION_BF16_MIXED, /* bf16 compute, fp32 master weights and states (HF Trainer,
                                     DeepSpeed, Megatron) */
    GPUPLAN_PRECISION_FP16_MIXED, /* as bf16-mixed with fp16 compute and loss scaling */
    GPUPLAN_PRECISION_FP32,       /* everything fp32 */
    GPUPLAN_PRECISION_FP8_MIXED,  /* fp8 matmuls (Transformer Engine / torchao), bf16 weights + fp32
                                     master */
    GPUPLAN_PRECISION_AMP_BF16,   /* fp32 parameters, torch.autocast(bf16) only: no FSDP
                                     MixedPrecision policy, no DeepSpeed bf16 (FSDP gathers fp32) */
    GPUPLAN_PRECISION_COUNT
};

enum gpuplan_optimizer {
    GPUPLAN_OPTIMIZER_ADAMW = 0,   /* two fp32 moments: 8 B/param */
    GPUPLAN_OPTIMIZER_ADAMW_8BIT,  /* bitsandbytes: 2 B/param + block absmax; small tensors fp32 */
    GPUPLAN_OPTIMIZER_PAGED_ADAMW, /* as adamw, in CUDA unified memory */
    GPUPLAN_OPTIMIZER_PAGED_ADAMW_8BIT,
    GPUPLAN_OPTIMIZER_SGD,       /* momentum: 4 B/param */
    GPUPLAN_OPTIMIZER_ADAFACTOR, /* factored second moment: ~O(rows + cols) */
    GPUPLAN_OPTIMIZER_LION,      /* one moment: 4 B/param (fp32) */
    GPUPLAN_OPTIMIZER_COUNT
};

enum gpuplan_grad_ckpt {
    GPUPLAN_CKPT_NONE = 0,
    GPUPLAN_CKPT_SELECTIVE,
    GPUPLAN_CKPT_FULL,
    GPUPLAN_CKPT_COUNT
};
enum gpuplan_attention {
    GPUPLAN_ATTN_EAGER = 0,
    GPUPLAN_ATTN_SDPA,
    GPUPLAN_ATTN_FLASH,
    GPUPLAN_ATTN_COUNT
};

enum gpuplan_sharding {
    GPUPLAN_SHARDING_NONE = 0,    /* single process (or plain replication) */
    GPUPLAN_SHARDING_DDP,         /* data parallel, full replica per GPU */
    GPUPLAN_SHARDING_ZERO1,       /* optimizer states sharded */
    GPUPLAN_SHARDING_ZERO2,       /* + gradients sharded */
    GPUPLAN_SHARDING_ZERO3,       /* + parameters sharded */
    GPUPLAN_SHARDING_FSDP,        /* FULL_SHARD, equivalent to ZeRO-3 */
    GPUPLAN_SHARDING_FSDP_HYBRID, /* HYBRID_SHARD: full shard inside a node, replicate across nodes
                                   */
    GPUPLAN_SHARDING_COUNT
};

enum gpuplan_offload {
    GPUPLAN_OFFLOAD_NONE = 0,
    GPUPLAN_OFFLOAD_OPTIMIZER, /* optimizer states (+ master weights) in host RAM, CPU step */
    GPUPLAN_OFFLOAD_PARAMS,    /* parameters in host RAM */
    GPUPLAN_OFFLOAD_OPTIMIZER_PARAMS, /* both */
    GPUPLAN_OFFLOAD_NVME, /* ZeRO-Infinity: optimizer and params on NVMe, pinned host buffers */
    GPUPLAN_OFFLOAD_COUNT
};

/*
 * The training framework whose defaults a job takes (--stack; docs/stacks.md):
 * a profile sets the knobs that framework's code sets when its user leaves
 * them out, and names the class the intervals come from. Options given
 * explicitly override it (their "given" flags below).
 */
enum gpuplan_framework {
    GPUPLAN_FRAMEWORK_HF_TRAINER = 0, /* transformers Trainer + PEFT + Accelerate (the default) */
    GPUPLAN_FRAMEWORK_TRL,
    GPUPLAN_FRAMEWORK_AXOLOTL,
    GPUPLAN_FRAMEWORK_LLAMA_FACTORY,
    GPUPLAN_FRAMEWORK_UNSLOTH,
    GPUPLAN_FRAMEWORK_TORCHTUNE,
    GPUPLAN_FRAMEWORK_TORCHTITAN,
    GPUPLAN_FRAMEWORK_LITGPT,
    GPUPLAN_FRAMEWORK_DEEPSPEED, /* a training script driving DeepSpeed directly */
    GPUPLAN_FRAMEWORK_MEGATRON,  /* Megatron-LM / Megatron-Core (NeMo, Megatron-Bridge) */
    GPUPLAN_FRAMEWORK_COUNT
};

/*
 * How a training framework runs the routed experts of an MoE layer
 * (--moe-experts; docs/formulas-time-cost.md "MoE"): a loop over the
 * experts, one small GEMM chain per expert that receives tokens (Hugging
 * Face transformers' eager experts), or one grouped GEMM over all local
 * experts (Megatron-Core GroupedMLP/TEGroupedMLP, torchtitan grouped_mm).
 */
enum gpuplan_moe_experts {
    GPUPLAN_MOE_EXPERTS_LOOP = 0,
    GPUPLAN_MOE_EXPERTS_GROUPED,
    GPUPLAN_MOE_EXPERTS_COUNT
};

/* LoRA target set as a bitmask over enum gpuplan_role (bit = 1ULL << role). */
typedef uint64_t gpuplan_role_mask;

#define GPUPLAN_JOB_MAX_TEXT 256

struct gpuplan_job {
    enum gpuplan_framework stack;     /* --stack, default hf-trainer */
    enum gpuplan_method method;       /* default full */
    enum gpuplan_precision precision; /* default bf16-mixed (or the stack's) */
    enum gpuplan_optimizer optimizer; /* default adamw */
    /* the options a stack profile sets were given explicitly (the profile leaves them) */
    bool precision_set, attention_set, chunked_ce_set, compile_set, act_offload_set;
    bool moe_experts_set;
    enum gpuplan_moe_experts moe_experts; /* default loop (or the stack's) */
    enum gpuplan_grad_ckpt grad_ckpt;     /* default none (full for qlora) */
    bool grad_ckpt_set;                   /* the user chose grad_ckpt explicitly */
    enum gpuplan_attention attention;     /* default sdpa */
    uint64_t seq_len;                     /* tokens per sequence, default 2048 */
    uint64_t micro_batch;                 /* sequences per GPU per step, default 1 */
    uint64_t grad_accum;                  /* micro-batches per optimizer step, default 1 */
    bool optim_in_bwd; /* optimizer step fused into backward (grads freed per param) */
    bool act_offload;  /* activation offload to host (torchtune), default no */
    bool chunked_ce;   /* chunked cross-entropy (logits upcast per chunk), default no */
    /*
     * Every micro-batch has the same shape (sequences packed or padded to
     * seq_len), default yes. No: variable-length batches padded to their
     * longest (seq_len the longest), so the caching allocator's reserved
     * memory grows as a band towards the free memory (docs/formulas.md).
     */
    bool packed;
    bool compile;      /* torch.compile'd blocks (fused kernels, fewer saved activations) */
    bool compile_loss; /* ... and the loss (--compile yes; --compile blocks leaves it eager) */
    /*
     * The training loop holds the model's output object from its forward
     * until the next forward returns (`outputs = model(**batch);
     * loss = f(outputs); loss.backward()`), and that output carries the
     * upcast logits and, with HF use_cache left on (checkpointing applied
     * by a wrapper other than HF's gradient_checkpointing_enable), every
     * layer's (k, v). Default no (HF Trainer drops the outputs before
     * backward). --keep-outputs yes.
     */
    bool keep_outputs;
    /*
     * LoRA under FSDP with a *-mixed precision: the frozen base was loaded
     * in fp32 (from_pretrained(torch_dtype=torch.float32)), so its shards
     * stay fp32 while FSDP's MixedPrecision gathers 16-bit units. Ignored
     * elsewhere (DeepSpeed's bf16 engine casts the module; without
     * sharding use --precision amp-bf16). --base-fp32 yes.
     */
    bool base_fp32;
    uint32_t lora_rank;  /* default 8 */
    double lora_alpha;   /* default 16 (time only, no memory effect) */
    double lora_dropout; /* default 0 (PEFT's default); > 0 saves a dropout output + mask per
                            adapted linear */
    char lora_targets[GPUPLAN_JOB_MAX_TEXT]; /* "q_proj,v_proj", "all-linear", "attn" */
    gpuplan_role_mask lora_target_roles;     /* resolved from lora_targets */
    enum gpuplan_dtype quant;       /* qlora base storage: default NF4_DQ; also NF4, INT8 */
    enum gpuplan_sharding sharding; /* default none on 1 GPU, ddp on more */
    bool sharding_set;
    bool fsdp_embed_units; /* --fsdp-wrap layers+embeddings: embedding and head are FSDP units of
                              their own (default: they stay in the gathered root unit) */
    enum gpuplan_offload offload; /* default none */
    uint32_t tp;                  /* tensor parallel degree, default 1 (serving: GPUs per node) */
    uint32_t pp;                  /* pipeline parallel degree, default 1 (serving: nodes) */
    uint32_t cp;  /* context parallel degree (training): each sequence split over cp ranks of the
                     data-parallel group, default 1 */
    uint32_t vpp; /* virtual pipeline stages per pipeline rank (Megatron interleaved 1F1B),
                     default 1 */
    uint32_t gpus_per_node; /* from --gpu ID:N, default 1 */
    uint32_t nodes;         /* default 1 */
    char gpu_id[64];        /* catalog GPU id, "local", or "" (memory only) */
    /*
     * Serving (--method infer): the engine's own flags, 0 / "" meaning its
     * default at the modelled version (serving.h, docs/serving.md), and the
     * load the time estimate runs at (every request alike).
     */
    enum gpuplan_serving_engine engine; /* default vllm */
    char engine_version[32];            /* e.g. "0.11.0"; "" = the newest modelled */
    double gpu_memory_utilization;   /* vLLM --gpu-memory-utilization / SGLang --mem-fraction-static
                                        (the same field; --engine says which); 0 = the engine's */
    uint64_t max_model_len;          /* tokens; 0 = the model's max_position_embeddings */
    uint32_t max_num_seqs;           /* 0 = the engine's default (256 or 1024 by version, GPU) */
    uint64_t max_num_batched_tokens; /* 0 = the engine's default (2048-16384) */
    enum gpuplan_serving_kv_dtype kv_dtype; /* --kv-cache-dtype, default auto (the model's) */
    enum gpuplan_dtype weights_dtype; /* weight format as loaded; UNKNOWN = as stored (auto) */
    bool enforce_eager;               /* no CUDA graphs */
    uint32_t ep; /* expert-parallel degree for routed experts, 1 = off (training: EP ranks are
                    carved out of the data-parallel group, Megatron-Core's expert layout) */
    bool tp_set, pp_set;    /* --tp / --pp given (serving defaults: the GPUs given) */
    uint64_t input_tokens;  /* prompt tokens per request, default 1024 */
    uint64_t output_tokens; /* generated tokens per request, default 128 */
    uint64_t concurrency;   /* requests in flight, all replicas, default 1 */
    /* time and cost */
    uint64_t tokens;         /* training tokens per epoch, 0 = not given */
    uint64_t dataset_tokens; /* tokens in the dataset (= one epoch), 0 = not given; exclusive
                                with tokens */
    double epochs;           /* default 1 */
    int cloud_tier; /* enum gpuplan_cloud_tier of the rate a cost uses, default specialty */
};

/* Fill the defaults: every option's table default (gpuplan_job_options), one GPU per node. */
void gpuplan_job_init(struct gpuplan_job *job);

/*
 * The job after the defaults that depend on other options: QLoRA turns
 * gradient checkpointing on unless the user chose (PEFT's
 * prepare_model_for_kbit_training), more than one GPU means DDP unless a
 * sharding was chosen, tp and pp are at least 1. Serving (infer) follows
 * the engines: tensor parallel over the GPUs of a server and pipeline
 * stages across servers unless --tp / --pp say otherwise, ep at least 1, no
 * sharding. Every estimator evaluates the resolved job; renderers show it.
 * The stack's profile (docs/stacks.md) fills the options it sets that were
 * not given (precision, checkpointing, attention, chunked loss, fused
 * kernels, activation offload, the sharding on more than one GPU).
 */
void gpuplan_job_resolve(const struct gpuplan_job *job, struct gpuplan_job *out);

/*
 * Name `stack` as the implementation the models tell apart (TRL's logits-free chunked loss, a
 * raw DeepSpeed script's load moment) without its profile's defaults: every knob the profile
 * would fill counts as given, so what the job leaves unset keeps gpuplan's default. What
 * `make accuracy` does for a row's `stack` cell (docs/stacks.md).
 */
void gpuplan_job_set_stack_only(struct gpuplan_job *job, enum gpuplan_framework stack);

/*
 * The planner's search axes: a job option that names one fixes that knob
 * when the user gives it (plan.h, gpuplan_plan_request_mark_fixed); the
 * planner searches the others.
 */
enum gpuplan_job_axis {
    GPUPLAN_AXIS_NONE = 0,
    GPUPLAN_AXIS_METHOD,
    GPUPLAN_AXIS_PRECISION,
    GPUPLAN_AXIS_MICRO_BATCH,
    GPUPLAN_AXIS_GRAD_CKPT,
    GPUPLAN_AXIS_SHARDING,
    GPUPLAN_AXIS_OFFLOAD,
    GPUPLAN_AXIS_WEIGHTS,  /* serving weight format */
    GPUPLAN_AXIS_KV_DTYPE, /* serving KV cache format */
    GPUPLAN_AXIS_COUNT
};

/* Limits of the counts the table takes, generous but finite so products cannot overflow. */
#define GPUPLAN_JOB_MAX_BATCH  (1ULL << 20) /* sequences per micro-batch, per step, in flight */
#define GPUPLAN_JOB_MAX_DEGREE (1ULL << 16) /* GPUs per node, nodes, tp, pp */

/*
 * The job's option table (options.h), terminated by an entry with name
 * NULL: every option of `gpuplan estimate`, of the job part of `gpuplan
 * recommend` and of the HTTP bodies, with its default, range and help.
 * Options flagged GPUPLAN_OPTION_SEARCHED (--tp, --pp, --nodes) are the
 * planner's to choose; `axis` names the knob an option fixes.
 */
extern const struct gpuplan_option gpuplan_job_options[];

/*
 * Set one option from text (gpuplan_options_set on gpuplan_job_options).
 * Unknown names get "did you mean"; bad values name the option, the value
 * and the allowed range. GPUPLAN_ERR_USAGE. Accepts '-' or '_' in `name`
 * (so JSON keys "seq_len" work).
 */
enum gpuplan_status gpuplan_job_set(struct gpuplan_job *job,
                                    const char *name,
                                    const char *value,
                                    struct gpuplan_error *err);

/*
 * The value option `opt` (an entry of gpuplan_job_options) holds in `job` as
 * the text gpuplan_job_set reads back to the same value, for every option,
 * also those a setter fills (compile, weights, gpu without its count); ""
 * for a count left at 0 that the option does not take (tokens,
 * dataset-tokens). What a plan JSON carries (render_plan.c) and the plan
 * reader sets again.
 */
void gpuplan_job_format(const struct gpuplan_job *job,
                        const struct gpuplan_option *opt,
                        char *out,
                        size_t out_size);

/* Stable names for enums (as the options spell them). */
const char *gpuplan_method_name(enum gpuplan_method v);
const char *gpuplan_precision_name(enum gpuplan_precision v);
const char *gpuplan_optimizer_name(enum gpuplan_optimizer v);
const char *gpuplan_grad_ckpt_name(enum gpuplan_grad_ckpt v);
const char *gpuplan_attention_name(enum gpuplan_attention v);
const char *gpuplan_sharding_name(enum gpuplan_sharding v);
const char *gpuplan_offload_name(enum gpuplan_offload v);
const char *gpuplan_framework_name(enum gpuplan_framework v);
/*
 * A serving weight format as --weights spells it, so it reads back: "auto"
 * (UNKNOWN: as stored), "fp8", "awq", "gptq", "bf16", "mxfp4", ...,
 * "gguf-Q4_K" for GGUF types. Into out[cap] (cap >= 16), which it returns.
 */
const char *gpuplan_weights_name(enum gpuplan_dtype weights, char *out, size_t cap);

#endif
