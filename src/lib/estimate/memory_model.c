/*
 * memory_model.c - bytes per GPU and per host for training (serving is the
 * engines' accounting: serving_estimate.c, which gpuplan_estimate_memory
 * calls for an infer job).
 *
 * Profile (once per model and LoRA setup) + closed-form evaluation (per
 * candidate, allocation-free). Derivations are given next to each formula
 * and collected in docs/formulas.md. Notation: P parameters, h hidden, q
 * query width (heads * head_dim), kv key/value width, I MLP width, V vocab,
 * T tokens per micro-batch (micro_batch * seq_len), L blocks, N shard size,
 * c bytes of a compute (matmul) activation, r bytes of a residual-stream
 * activation.
 *
 * The evaluation works in doubles (exact for integers below 2^53, i.e. up to
 * 8 PiB) and saturates when converting to uint64 bytes, so no option
 * combination overflows.
 *
 * Not modelled (see docs/formulas.md "limits"): the base model's dropout
 * (Llama-family configs set it to 0; LoRA's dropout is modelled, see
 * activation_sizes), sequence parallelism, context parallelism, interleaved
 * pipeline schedules, encoder/decoder asymmetry of T5 (blocks are treated
 * alike), Liger/fused kernels.
 */
#include "gpuplan/estimate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "estimate/device_internal.h"
#include "estimate/job_internal.h"
#include "estimate/memory_internal.h"
#include "estimate/serving_internal.h"
#include "gpuplan/units.h"

#define ROLE_BIT(r) (1ULL << (r))

/* bitsandbytes: tensors with fewer elements than this keep 32-bit states (min_8bit_size = 4096). */
#define BNB_MIN_8BIT_ELEMS 4096ULL
/* bitsandbytes blockwise 8-bit states: one fp32 absmax per 2048-element block, per state. */
#define BNB_BLOCK_ELEMS 2048.0
/* torchtune's chunked cross-entropy splits the logits into 8 chunks (CEWithChunkedOutputLoss). */
#define CHUNKED_CE_CHUNKS 8.0
/*
 * TRL's chunked_nll (the SFTTrainer's default loss: huggingface/trl@f2cd57710 (2026-07-24)
 * trl/trainer/sft_config.py, loss_type "chunked_nll"; trl/trainer/sft_trainer.py
 * _chunked_cross_entropy_loss, _CHUNKED_LM_HEAD_CHUNK_SIZE = 256) never builds the logits:
 * the lm_head runs on 256 valid tokens at a time under gradient checkpointing, so a chunk's
 * [256, vocab] tensors live only during its own forward and backward. Per chunk _chunk()
 * holds the fp32 logits (h.float() @ w.float().t()) and log_softmax's fp32 output (8 B per
 * vocab entry) and, in the recomputed backward, their two fp32 gradients (8 B more): 16 B.
 */
#define TRL_CHUNK_TOKENS          256.0
#define TRL_CHUNK_BYTES_PER_LOGIT 16.0
/* DeepSpeed estimators' `additional_buffer_factor` default for host memory (calculators.md 1.2). */
#define DEEPSPEED_HOST_BUFFER_FACTOR 1.5
/* DeepSpeed offload_param defaults: buffer_count 5, buffer_size 1e8 elements (fp16). */
#define DEEPSPEED_NVME_PARAM_BUFFERS 5.0
#define DEEPSPEED_NVME_BUFFER_ELEMS  1e8
#define FP16_BYTES                   2.0
/*
 * ZeRO-Infinity's optimizer swap (assumption): two pinned host buffers, one
 * swapping while the other is stepped, each the largest tensor's whole
 * optimizer record: fp32 master, gradient and two Adam moments, 16 B per
 * parameter.
 */
#define NVME_SWAP_BUFFERS         2.0
#define NVME_SWAP_BYTES_PER_PARAM 16.0

/*
 * Assumptions that are not fitted to any row (docs/formulas.md, "overheads"):
 * - CUDA context + kernels loaded by PyTorch: 300-600 MiB depending on the GPU
 *   generation and CUDA's lazy loading (CUDA_MODULE_LOADING=LAZY default since
 *   CUDA 11.7); we take 400 MiB before Ampere, 500 MiB for Ampere/Ada, 600 MiB
 *   for Hopper and later.
 * - NCCL communicator buffers: 4 MiB NCCL_BUFFSIZE per channel and peer
 *   direction; with the default channel counts on an 8-GPU NVSwitch node this
 *   is a few hundred MiB; we take 256 MiB per GPU whenever there is more than
 *   one GPU (outside the caching allocator).
 * - Caching-allocator slack: reserved = allocated * 1.10 (blocks rounded to
 *   2 MiB segments and cached after free); compared on rows that publish both.
 */
#define CUDA_CONTEXT_PRE_AMPERE_MIB 400ULL
#define CUDA_CONTEXT_AMPERE_MIB     500ULL
#define CUDA_CONTEXT_HOPPER_MIB     600ULL
#define NCCL_BUFFERS_MIB            256ULL
#define ALLOCATOR_SLACK             0.10
/* "More GPUs" is suggested up to a full 8-GPU board (HGX/DGX, MI300X OAM). */
#define SUGGEST_MAX_GPUS_PER_NODE 8

/* ---- profile ---------------------------------------------------------- */

static uint64_t numel_of(const struct gpuplan_tensor_group *g)
{
    return g->n_tensors ? g->n_params / g->n_tensors : g->n_params;
}

/* Width of the tensor feeding a linear of this role (its `in` dimension), by source. */
enum input_source {
    SRC_NONE = 0,
    SRC_NORM1,
    SRC_ATTN_OUT,
    SRC_NORM2,
    SRC_MLP_INNER,
    SRC_MLA_Q,
    SRC_MLA_KV
};

static enum input_source role_source(enum gpuplan_role role)
{
    switch (role) {
    case GPUPLAN_ROLE_ATTN_Q:
    case GPUPLAN_ROLE_ATTN_K:
    case GPUPLAN_ROLE_ATTN_V:
    case GPUPLAN_ROLE_ATTN_QKV:
    case GPUPLAN_ROLE_MLA_Q_A:
    case GPUPLAN_ROLE_MLA_KV_A:
        return SRC_NORM1;
    case GPUPLAN_ROLE_ATTN_O:
        return SRC_ATTN_OUT;
    case GPUPLAN_ROLE_MLA_Q_B:
        return SRC_MLA_Q;
    case GPUPLAN_ROLE_MLA_KV_B:
        return SRC_MLA_KV;
    case GPUPLAN_ROLE_MLP_GATE:
    case GPUPLAN_ROLE_MLP_UP:
    case GPUPLAN_ROLE_MLP_GATE_UP:
    case GPUPLAN_ROLE_ROUTER:
    case GPUPLAN_ROLE_EXPERT_GATE:
    case GPUPLAN_ROLE_EXPERT_UP:
    case GPUPLAN_ROLE_EXPERT_GATE_UP:
    case GPUPLAN_ROLE_SHARED_GATE:
    case GPUPLAN_ROLE_SHARED_UP:
    case GPUPLAN_ROLE_SHARED_ROUTER:
        return SRC_NORM2;
    case GPUPLAN_ROLE_MLP_DOWN:
    case GPUPLAN_ROLE_EXPERT_DOWN:
    case GPUPLAN_ROLE_SHARED_DOWN:
        return SRC_MLP_INNER;
    default:
        return SRC_NONE;
    }
}

static void profile_arch(struct gpuplan_memory_profile *p, const struct gpuplan_arch *a)
{
    p->n_layers = a->n_layers + a->n_encoder_layers;
    p->hidden = a->hidden_size;
    p->n_heads = a->n_heads ? a->n_heads : 1;
    const uint64_t head_dim =
        a->head_dim ? a->head_dim : (a->n_heads ? a->hidden_size / a->n_heads : 0);
    p->head_dim = head_dim;
    p->q_width = p->n_heads * head_dim;
    p->kv_width = (a->n_kv_heads ? a->n_kv_heads : p->n_heads) * head_dim;
    p->kv_cache_width = 2 * p->kv_width;
    if (a->is_mla) {
        /* DeepSeek MLA: per-head q/k of nope+rope dims, v of v_head_dim; the cache holds the
         * latent. */
        p->q_width = p->n_heads * (a->qk_nope_head_dim + a->qk_rope_head_dim);
        p->kv_width = p->q_width;
        p->kv_cache_width = a->kv_lora_rank + a->qk_rope_head_dim;
    }
    p->vocab = a->vocab_size;
    p->gated_mlp = a->gated_mlp;
    p->is_moe = a->is_moe || a->n_experts > 0;
    p->n_experts = a->n_experts;
    p->n_experts_per_token = a->n_experts_per_token;
    p->mlp_width = a->intermediate_size;
    if (p->is_moe) {
        const uint64_t expert_width =
            a->moe_intermediate_size ? a->moe_intermediate_size : a->intermediate_size;
        p->mlp_width = (uint64_t)a->n_experts_per_token * expert_width +
                       (uint64_t)a->n_shared_experts * expert_width;
    }
    p->q_lora_rank = a->q_lora_rank;
    p->kv_lora_rank = a->kv_lora_rank;
}

/* Distinct saved inputs (elements per token) of the adapted linears of one block. */
static uint64_t lora_input_elems(const struct gpuplan_memory_profile *p, gpuplan_role_mask roles)
{
    bool used[SRC_MLA_KV + 1] = { false };
    for (int r = 0; r < GPUPLAN_ROLE_COUNT; r++) {
        if (roles & ROLE_BIT(r))
            used[role_source((enum gpuplan_role)r)] = true;
    }
    uint64_t k = p->is_moe && p->n_experts_per_token ? p->n_experts_per_token : 1;
    uint64_t e = 0;
    if (used[SRC_NORM1])
        e += p->hidden;
    if (used[SRC_ATTN_OUT])
        e += p->q_width;
    if (used[SRC_NORM2])
        e += p->hidden *
             (p->is_moe ? k : 1); /* each routed expert indexes its own copy of its tokens */
    if (used[SRC_MLP_INNER])
        e += p->mlp_width;
    if (used[SRC_MLA_Q])
        e += p->q_lora_rank;
    if (used[SRC_MLA_KV])
        e += p->kv_lora_rank;
    return e;
}

enum gpuplan_status gpuplan_memory_profile_build(struct gpuplan_memory_profile *p,
                                                 const struct gpuplan_model *model,
                                                 gpuplan_role_mask lora_roles,
                                                 uint32_t lora_rank,
                                                 struct gpuplan_error *err)
{
    memset(p, 0, sizeof *p);
    snprintf(p->model_id, sizeof p->model_id, "%s", model->id);
    if (!model->has_arch || model->arch.n_layers == 0 || model->arch.hidden_size == 0)
        return gpuplan_error_set(
            err, GPUPLAN_ERR_INVALID_CONFIG, model->id,
            "model '%s' has no architecture (layers, hidden size); the memory model needs them",
            model->id);
    profile_arch(p, &model->arch);
    p->lora_roles = lora_roles;
    p->lora_rank = lora_rank;

    int32_t max_layer = -1;
    for (size_t i = 0; i < model->n_groups; i++) {
        if (model->groups[i].layer > max_layer)
            max_layer = model->groups[i].layer;
    }
    const size_t n_slots = max_layer >= 0 ? 2 * ((size_t)max_layer + 1) : 1;
    uint64_t *per_layer = calloc(n_slots, sizeof *per_layer);
    if (!per_layer)
        return gpuplan_error_set(err, GPUPLAN_ERR_NOMEM, NULL,
                                 "out of memory for the memory profile");

    uint64_t lora_each_total = 0; /* summed over the blocks */
    for (size_t i = 0; i < model->n_groups; i++) {
        const struct gpuplan_tensor_group *g = &model->groups[i];
        const uint64_t numel = numel_of(g);
        const bool is_matrix = g->n_dims >= 2;
        const bool is_linear = gpuplan_role_is_linear(g->role) && is_matrix;
        p->n_params += g->n_params;
        if (gpuplan_role_is_routed_expert(g->role))
            p->expert_params += g->n_params;
        if (is_linear)
            p->linear_params += g->n_params;
        else
            p->other_params += g->n_params;
        if (numel < BNB_MIN_8BIT_ELEMS)
            p->small_tensor_params += g->n_params;
        /* Adafactor factors a matrix's second moment into a row and a column vector. */
        p->factored_params +=
            is_matrix ? (g->shape[0] + numel / (g->shape[0] ? g->shape[0] : 1)) * g->n_tensors
                      : g->n_params;
        if (numel > p->largest_tensor_params)
            p->largest_tensor_params = numel;
        if (is_linear && numel > p->largest_linear_params)
            p->largest_linear_params = numel;
        if (g->role == GPUPLAN_ROLE_EMBEDDING || g->role == GPUPLAN_ROLE_POS_EMBEDDING)
            p->embed_params += g->n_params;
        else if (g->role == GPUPLAN_ROLE_LM_HEAD)
            p->head_params += g->n_params;
        if (g->layer >= 0) {
            p->block_params += g->n_params;
            per_layer[2 * (size_t)g->layer + (g->stack == GPUPLAN_STACK_ENCODER)] += g->n_params;
        }
        if (is_linear && (lora_roles & ROLE_BIT(g->role)) && g->n_dims == 2 && g->layer >= 0) {
            /*
             * The adapted linears' inputs once per linear (LoRA dropout:
             * PEFT gives each adapted module its own nn.Dropout, so q, k and
             * v drop their own copy of the shared input); a token reaches
             * k of a routed group's experts.
             */
            const bool routed =
                g->role == GPUPLAN_ROLE_EXPERT_GATE || g->role == GPUPLAN_ROLE_EXPERT_UP ||
                g->role == GPUPLAN_ROLE_EXPERT_GATE_UP || g->role == GPUPLAN_ROLE_EXPERT_DOWN;
            const uint64_t k = p->n_experts_per_token ? p->n_experts_per_token : 1;
            lora_each_total += g->shape[1] * (routed && g->n_tensors > k ? k : g->n_tensors);
        }
        if (is_linear && (lora_roles & ROLE_BIT(g->role)) && g->n_dims == 2) {
            /* LoRA: A is r x in, B is out x r (PEFT LoraLayer), per targeted linear. */
            const uint64_t a = (uint64_t)lora_rank * g->shape[1],
                           b = g->shape[0] * (uint64_t)lora_rank;
            p->lora_params += (a + b) * g->n_tensors;
            p->lora_small_params +=
                ((a < BNB_MIN_8BIT_ELEMS ? a : 0) + (b < BNB_MIN_8BIT_ELEMS ? b : 0)) *
                g->n_tensors;
            p->lora_factored_params +=
                ((uint64_t)lora_rank * 2 + g->shape[1] + g->shape[0]) * g->n_tensors;
        }
    }
    uint64_t largest = 0;
    for (size_t i = 0; i < n_slots; i++) {
        if (per_layer[i] > largest)
            largest = per_layer[i];
    }
    free(per_layer);
    p->largest_block_params = largest;
    /*
     * Largest unit when the token embedding and the output head with the
     * final norm are units of their own (torchtune's custom_sharded_layers;
     * ZeRO-3 fetches them module by module).
     */
    const uint64_t rest = p->n_params - p->block_params - p->embed_params;
    uint64_t unit = largest > p->embed_params ? largest : p->embed_params;
    p->largest_layer_params = unit > rest ? unit : rest;
    p->lora_input_elems = lora_input_elems(p, lora_roles);
    p->lora_input_elems_each = p->n_layers ? lora_each_total / p->n_layers : lora_each_total;
    return GPUPLAN_OK;
}

/* ---- evaluation ------------------------------------------------------- */

/*
 * FSDP as HF Accelerate/Trainer (transformer_layer_cls auto-wrap), atorch
 * and torchtitan wrap a model: one unit per block, and the root unit
 * holding what is left (token embedding, final norm, output head). The
 * root is not resharded after forward: FSDP1 _post_forward_reshard ("Do
 * not free the root's parameters in the post-forward for FULL_SHARD with
 * the intention that they are immediately used for backward"), FSDP2
 * FSDPState._lazy_init ("For the root, do not reshard after forward since
 * for training, the parameters would be freed and all-gathered
 * immediately"), so it stays gathered through forward and backward.
 * Not --fsdp-wrap layers+embeddings (torchtune's custom_sharded_layers
 * ['tok_embeddings', 'output'], torchtitan's 2025 wrapping: embedding and
 * head are units of their own, resharded after use) nor ZeRO-3
 * (module-by-module fetch): those keep the largest-unit rule.
 */
static bool fsdp_sharding(const struct gpuplan_job *j)
{
    return j->sharding == GPUPLAN_SHARDING_FSDP || j->sharding == GPUPLAN_SHARDING_FSDP_HYBRID;
}

static bool fsdp_wraps_blocks(const struct gpuplan_job *j)
{
    return fsdp_sharding(j) && j->pp <= 1 && !j->fsdp_embed_units;
}

static bool is_sharded_params(enum gpuplan_sharding s)
{
    return s == GPUPLAN_SHARDING_ZERO3 || s == GPUPLAN_SHARDING_FSDP ||
           s == GPUPLAN_SHARDING_FSDP_HYBRID;
}

/*
 * Torch AMP: the model's parameters stay fp32 (they are the master weights)
 * and only torch.autocast casts matmul inputs to 16 bits. This is what
 * --precision amp-bf16 asks for with any sharding, and what bf16-/fp16-mixed
 * mean without DeepSpeed or FSDP: HF Trainer and accelerate ("native AMP")
 * wrap the forward and the loss in torch.autocast and never cast the model
 * (transformers Trainer.autocast_smart_context_manager; accelerate
 * Accelerator.autocast). With zero* the stack is DeepSpeed's bf16/fp16
 * engine (16-bit parameters + fp32 master partition) and with fsdp it is
 * FSDP's MixedPrecision policy (fp32 shards, 16-bit gathered units).
 */
static bool is_amp(const struct gpuplan_job *j)
{
    if (j->precision == GPUPLAN_PRECISION_AMP_BF16)
        return true;
    return (j->precision == GPUPLAN_PRECISION_BF16_MIXED ||
            j->precision == GPUPLAN_PRECISION_FP16_MIXED) &&
           (j->sharding == GPUPLAN_SHARDING_NONE || j->sharding == GPUPLAN_SHARDING_DDP);
}

static bool is_paged(enum gpuplan_optimizer o)
{
    return o == GPUPLAN_OPTIMIZER_PAGED_ADAMW || o == GPUPLAN_OPTIMIZER_PAGED_ADAMW_8BIT;
}

/*
 * Optimizer state bytes for `n` trainable params, of which `small` sit in
 * tensors < 4096 elements and `factored` is Adafactor's row+column count.
 * `state_bytes` is the element size of 32-bit-style states: 4 (fp32), or 2
 * under pure bf16 (torch.optim keeps states in the parameter dtype).
 * - AdamW: exp_avg + exp_avg_sq = 2 states (Loshchilov & Hutter; torch.optim.AdamW).
 * - 8-bit AdamW (bitsandbytes, Dettmers et al. 2110.02861): 2 uint8 states +
 *   one fp32 absmax per 2048-element block per state; tensors below
 *   min_8bit_size = 4096 elements keep 32-bit states.
 * - SGD with momentum, Lion: one state. Adafactor (beta1 None, HF default):
 *   fp32 row and column second-moment factors.
 */
static double optimizer_bytes(enum gpuplan_optimizer o,
                              double n,
                              double small,
                              double factored,
                              double state_bytes)
{
    switch (o) {
    case GPUPLAN_OPTIMIZER_ADAMW:
    case GPUPLAN_OPTIMIZER_PAGED_ADAMW:
        return 2.0 * state_bytes * n;
    case GPUPLAN_OPTIMIZER_ADAMW_8BIT:
    case GPUPLAN_OPTIMIZER_PAGED_ADAMW_8BIT:
        return (n - small) * (2.0 + 2.0 * 4.0 / BNB_BLOCK_ELEMS) + small * 8.0;
    case GPUPLAN_OPTIMIZER_SGD:
    case GPUPLAN_OPTIMIZER_LION:
        return state_bytes * n;
    case GPUPLAN_OPTIMIZER_ADAFACTOR:
        return 4.0 * factored;
    default:
        return 2.0 * state_bytes * n;
    }
}

struct act_sizes {
    double c;         /* bytes of a matmul activation */
    double r;         /* bytes of a residual-stream activation */
    double per_layer; /* saved bytes per token per block, no recompute */
    double core_s2;   /* part of per_layer that is attention-score sized (dropped by selective) */
    double boundary;  /* bytes per token per block kept under full recompute */
    double bwd_ws;    /* backward workspace per token of one block */
    double selective; /* saved bytes per token per block under selective recompute */
};

/*
 * Saved activations of one HF Llama-style block, per token, derived from
 * what autograd keeps (docs/formulas.md "activations"):
 *  RMSNorm (x.float(), x*rsqrt, w*y): fp32 input 4h; plus the normalised
 *    r-byte input of the weight multiply when the norm weight is trained.
 *  Linear y = xW^T: saves x only when W is trained (frozen W: input grad
 *    needs W alone). Under autocast with an fp32 residual stream each
 *    linear casts (and saves) its own c-byte copy of the input.
 *  SDPA (mem-efficient/flash kernels): q, k, v (HF sdpa path expands GQA
 *    k/v to q width with repeat_kv), output, fp32 logsumexp per head; the
 *    transposed output is copied (contiguous) before o_proj.
 *  flash_attention_2: q, k, v at their own widths, output, logsumexp; o_proj
 *    input is a view of the output.
 *  eager: q, repeated k and v, fp32 softmax output (a*s per token) and its
 *    c-byte cast used by probs@v; o_proj input copy.
 *  SwiGLU MLP: silu input, silu output, up output, down input (4 c*I);
 *    frozen: the down input only when down_proj is adapted (3 c*I).
 *  GELU MLP: fc1 output (GELU input), fc2 input (2 c*I).
 * Compare Korthikanti et al. 2205.05198: sbh(34 + 5as/h) for GPT blocks
 * with dropout and a 4h MLP.
 */
/*
 * compiled_block_note: torch.compile (job.compile). A compiled block saves
 * what AOTAutograd's min-cut partitioner keeps (torch/_functorch/
 * partitioners.py, min_cut_rematerialization_partition): pointwise ops and
 * small reductions may be recomputed from saved tensors; matmuls and
 * attention may not (ban_recomputation), nor a node that backward must
 * materialise anyway (is_materialized_backwards: a matmul's input, read by
 * its weight gradient). So RMSNorm keeps the block input and rstd instead
 * of its fp32 copy and normalised output, the scaled output stays as the
 * q/k/v (or gate/up) input, one tensor even when autocast casts it for
 * each linear (CSE), and the gated MLP drops the SiLU output (gate, up and
 * the product, down's input, stay). Attention saves the same as eager.
 * docs/formulas.md "torch.compile" has the loss and the checks.
 */
static struct act_sizes activation_sizes(const struct gpuplan_memory_profile *p,
                                         const struct gpuplan_job *j,
                                         double seq_len)
{
    struct act_sizes a;
    memset(&a, 0, sizeof a);
    const bool fp32 = j->precision == GPUPLAN_PRECISION_FP32;
    const bool full = j->method == GPUPLAN_METHOD_FULL;
    a.c = fp32 ? 4.0 : 2.0;
    /*
     * The residual stream is fp32 when the module's parameters are fp32 and
     * autocast only casts matmuls: full fine-tuning under torch AMP
     * (is_amp: no DeepSpeed or FSDP parameter casting), any method under
     * amp-bf16 (the frozen base is fp32 too), and QLoRA after
     * prepare_model_for_kbit_training upcast the norms/embeddings.
     */
    const bool autocast_fp32_model =
        (full && is_amp(j)) || j->precision == GPUPLAN_PRECISION_AMP_BF16;
    const bool qlora_fp32_rest =
        j->method == GPUPLAN_METHOD_QLORA && j->precision != GPUPLAN_PRECISION_BF16;
    a.r = (fp32 || autocast_fp32_model || qlora_fp32_rest) ? 4.0 : 2.0;
    const double c = a.c, r = a.r;
    const double h = (double)p->hidden, q = (double)p->q_width, kv = (double)p->kv_width;
    const double I = (double)p->mlp_width, nh = (double)p->n_heads;
    const double lse = 4.0 * nh;
    const double tp = j->tp ? (double)j->tp : 1.0;

    double norms, lin_inputs, core, mlp;
    if (full) {
        norms = 2.0 * (4.0 * h + r * h);
        /* q,k,v share one input and gate,up another; with an fp32 stream autocast copies per
         * linear. */
        const double attn_in = (r == c) ? c * h : 3.0 * c * h;
        const double mlp_in = (r == c) ? c * h : (p->gated_mlp ? 2.0 : 1.0) * c * h;
        lin_inputs = attn_in + mlp_in;
        mlp = (p->gated_mlp ? 4.0 : 2.0) * c * I;
        if (j->compile) {
            /* compiled blocks (compiled_block_note): the block input instead of the
             * fp32 copy and the scaled output; one cast per linear input; no SiLU output. */
            norms = 2.0 * r * h;
            lin_inputs = 2.0 * c * h;
            mlp = (p->gated_mlp ? 3.0 : 2.0) * c * I;
        }
    } else {
        norms = 2.0 * 4.0 * h;
        lin_inputs = c * (double)p->lora_input_elems;
        /*
         * LoRA dropout (p > 0): each adapter keeps its own dropped input (c
         * bytes, or its autocast cast under fp32 adapters) for lora_A's weight
         * gradient and native_dropout's bool mask (1 byte) for the dropout's
         * backward, per adapted linear: q, k and v no longer share one input.
         */
        if (j->lora_dropout > 0.0)
            lin_inputs = (c + 1.0) * (double)p->lora_input_elems_each;
        /* lora_input_elems already counts the down projection's input when it is adapted. */
        mlp = (p->gated_mlp ? 3.0 : 1.0) * c * I;
        if (j->compile) {
            norms = 2.0 * r * h;
            mlp = (p->gated_mlp ? 2.0 : 1.0) * c * I;
        }
    }
    const bool o_input_counted = !full && (p->lora_roles & ROLE_BIT(GPUPLAN_ROLE_ATTN_O));
    switch (j->attention) {
    case GPUPLAN_ATTN_FLASH:
        core = c * (2.0 * q + 2.0 * kv) + lse;
        break;
    case GPUPLAN_ATTN_EAGER:
        a.core_s2 = (4.0 + c) * nh * seq_len / tp;
        core = c * 3.0 * q + (full && !o_input_counted ? c * q : 0.0);
        break;
    case GPUPLAN_ATTN_SDPA:
    default:
        core = c * 4.0 * q + lse + (full ? c * q : 0.0);
        break;
    }
    /*
     * Tensor parallelism is modelled with sequence parallelism, as
     * Megatron-Core and torchtitan run it: every saved tensor is split over
     * tp (Korthikanti et al. eq. 5, (sbh/t)(34 + 5as/h)).
     */
    a.per_layer = (norms + lin_inputs + core + mlp) / tp + a.core_s2;
    a.boundary = r * h / tp;
    a.bwd_ws = c * (2.0 * h + 2.0 * I) / tp;
    /*
     * Selective recompute as the tools that offer it run it with fused
     * attention (torchtitan ac_mode "selective", op policy; PyTorch SAC):
     * matmul outputs are saved except every second one, SDPA/flash outputs
     * and logsumexp are saved, every elementwise op (norms, RoPE, SiLU, mul)
     * is recomputed; plus the block input. With eager attention this also
     * drops the a*s score tensors (Megatron's selective recompute).
     */
    const double mm_out =
        full ? q + 2.0 * kv + h + (p->gated_mlp ? 2.0 : 1.0) * I + h : (double)p->lora_input_elems;
    a.selective = (r * h + 0.5 * c * mm_out + c * q + lse) / tp;
    return a;
}

double gpuplan_cuda_context_bytes(const struct gpuplan_gpu *gpu, uint64_t other_vendor_mib)
{
    uint64_t mib = CUDA_CONTEXT_AMPERE_MIB;
    if (gpu && gpu->vendor != GPUPLAN_VENDOR_NVIDIA)
        mib = other_vendor_mib;
    else if (gpu && gpu->cc_major > 0)
        mib = gpu->cc_major >= 9   ? CUDA_CONTEXT_HOPPER_MIB
              : gpu->cc_major >= 8 ? CUDA_CONTEXT_AMPERE_MIB
                                   : CUDA_CONTEXT_PRE_AMPERE_MIB;
    return (double)(mib * GPUPLAN_BYTES_PER_MIB);
}

/* The training model charges another vendor's GPU the Ampere/Ada figure, as before. */
static double cuda_context_bytes(const struct gpuplan_gpu *gpu)
{
    return gpuplan_cuda_context_bytes(gpu, CUDA_CONTEXT_AMPERE_MIB);
}

/* Bytes of `n` elements in a (possibly block-quantised) dtype, as a double. */
static double dtype_bytes_d(enum gpuplan_dtype d, double n)
{
    return n * gpuplan_dtype_bits(d) / (double)GPUPLAN_BITS_PER_BYTE;
}

/*
 * bitsandbytes' 4-bit quantisation metadata (absmax, nested absmax) of `n`
 * weights: everything but the 4-bit codes. It lives in a QuantState on the
 * module, not in the parameter's storage, so FSDP and ZeRO-3 neither shard
 * nor offload it: bitsandbytes keeps a copy on Linear4bit ("the quant
 * state got lost when the parameter got converted. This happens for
 * example for fsdp", fix_4bit_weight_quant_state_from_module restores it
 * from the module in forward). Each GPU holds all of it for its TP x PP share.
 */
static double quant_meta_bytes(enum gpuplan_dtype q, double n)
{
    if (q != GPUPLAN_DTYPE_NF4 && q != GPUPLAN_DTYPE_NF4_DQ)
        return 0.0;
    return dtype_bytes_d(q, n) - n * 4.0 / (double)GPUPLAN_BITS_PER_BYTE;
}

struct states {
    double weights; /* resident weights incl. master and working copies */
    double grads;
    double optim;
    double adapters;
    double host;     /* bytes moved to host RAM (per GPU) */
    double gathered; /* FSDP/ZeRO-3 unsharded units in flight */
    double ddp_bucket;
    double unsharded_grads; /* FSDP + PP: gradients accumulated unsharded over micro-batches */
    double cast_cache;  /* torch AMP: autocast's 16-bit copies of the fp32 weights (in weights) */
    double root_grad_b; /* FSDP full tuning: the root unit's unsharded head gradient in backward */
    double root_grad_e; /* ... and the whole root unit's gradient when backward ends */
    double gpu_only;    /* part of weights that sharding and offload leave on every GPU */
};

/*
 * Model states per GPU for training.
 * Full fine-tuning, per parameter (P = this GPU's share after TP/PP):
 *  bf16 (pure): weights 2, grads 2, states in bf16 (AdamW 4).
 *  *-mixed under DeepSpeed (zero*) or FSDP MixedPrecision: fp32 master 4 +
 *    16-bit working copy 2 (DeepSpeed's bf16 params, FSDP's gathered
 *    units), grads fp32 4, AdamW fp32 8: 18 B/param, DeepSpeed's 2 + 16
 *    (calculators.md 1.2) and the 16-20 B rule (1.8); fp8-mixed adds a
 *    1-byte copy of the linears.
 *  torch AMP (is_amp: amp-bf16, or *-mixed on none/ddp): fp32 params 4
 *    (they are the master), grads fp32 4, AdamW 8, plus autocast's cast
 *    cache: a 16-bit copy of every fp32 weight a matmul uses, kept while
 *    the autocast region runs (torch autocast_mode.cpp caches casts of
 *    leaf tensors that require grad and clears the cache when the
 *    outermost autocast context exits) and saved by the matmuls for
 *    backward when activations are not recomputed: 2 B per linear param.
 *    Not for FSDP's unsharded views (not leaves) nor frozen weights.
 *    With FSDP and no MixedPrecision policy the units are gathered in fp32.
 *  fp32: 4 + 4 + 8.
 * LoRA: frozen base in 16-bit (fp32 under --precision fp32); adapters fp32
 *  (PEFT autocast_adapter_dtype=True) except under pure bf16 (torchtune).
 * QLoRA: linear weights in --quant (NF4+DQ 4.127 bits, NF4 4.5, int8 8);
 *  everything else fp32 after prepare_model_for_kbit_training ("cast all
 *  non INT8 parameters to fp32"), or bf16 under pure bf16 (torchtune).
 * Sharding: ZeRO-1 shards optimizer + master; ZeRO-2 also grads; ZeRO-3 /
 *  FSDP everything, plus gathered units: two units' 16-bit params (current
 *  + prefetched, FSDP forward/backward prefetch) and one unit's unsharded
 *  16-bit grads before reduce-scatter. DDP keeps a bucket copy of every
 *  gradient (gradient_as_bucket_view=False default).
 */
/* This GPU's TP x PP share of the model states, before sharding and offload. */
struct share;
struct shard_factors;
static void expert_parallel(const struct gpuplan_memory_profile *p,
                            const struct gpuplan_job *j,
                            const struct share *w,
                            const struct shard_factors *f,
                            struct states *s);
struct share {
    double params, linear, other; /* parameters: all, the linears, the rest */
    double trainable, small, factored;
    double state_bytes, grad_bytes; /* per trainable parameter */
    double work;                    /* bytes of a working (compute) copy of a weight */
    double master;                  /* the fp32 master copy (DeepSpeed, FSDP MixedPrecision) */
    double base;                    /* the other resident weights (16/32-bit, quantised base) */
    double optim;                   /* optimizer states */
    double grads;                   /* gradients */
};

/* The ranks each kind of state is divided over: 1 where the sharding keeps it whole. */
struct shard_factors {
    double optim, grads, params; /* ZeRO-1+, ZeRO-2+, ZeRO-3/FSDP */
    bool params_sharded;
};

static bool fsdp_family(const struct gpuplan_job *j)
{
    return j->sharding == GPUPLAN_SHARDING_FSDP || j->sharding == GPUPLAN_SHARDING_FSDP_HYBRID;
}

/* Full fine-tuning: every parameter trains (the precision recipes of the comment above). */
static void full_weights(const struct gpuplan_memory_profile *p,
                         const struct gpuplan_job *j,
                         double mp,
                         const struct shard_factors *f,
                         struct share *w,
                         struct states *s)
{
    const bool fp32 = j->precision == GPUPLAN_PRECISION_FP32;
    const bool pure = j->precision == GPUPLAN_PRECISION_BF16;
    w->trainable = w->params;
    w->small = (double)p->small_tensor_params / mp;
    w->factored = (double)p->factored_params / mp;
    w->state_bytes = pure ? 2.0 : 4.0;
    w->grad_bytes = pure ? 2.0 : 4.0;
    if (pure || fp32) {
        w->base = w->work * w->params;
    } else if (is_amp(j)) {
        w->base = 4.0 * w->params;
        if (!f->params_sharded)
            s->cast_cache = 2.0 * w->linear;
    } else {
        w->master = 4.0 * w->params;
        /*
         * DeepSpeed keeps a (partitioned) 16-bit copy next to the fp32
         * master partition. FSDP's MixedPrecision does not: its 16-bit
         * shard (FSDP1 _mp_shard, FSDP2's cast before all-gather) exists
         * only while a unit is gathered, which `gathered` counts.
         */
        w->base = (fsdp_family(j) ? 0.0 : 2.0 * w->params) +
                  (j->precision == GPUPLAN_PRECISION_FP8_MIXED ? w->linear : 0.0);
    }
}

/* LoRA and QLoRA: the adapters train; the base is frozen (16-bit, fp32 or --quant). */
static void adapter_weights(const struct gpuplan_memory_profile *p,
                            const struct gpuplan_job *j,
                            double mp,
                            struct share *w,
                            struct states *s)
{
    const bool fp32 = j->precision == GPUPLAN_PRECISION_FP32;
    const bool pure = j->precision == GPUPLAN_PRECISION_BF16;
    w->trainable = (double)p->lora_params / mp;
    w->small = (double)p->lora_small_params / mp;
    w->factored = (double)p->lora_factored_params / mp;
    w->state_bytes = pure ? 2.0 : 4.0;
    w->grad_bytes = pure ? 2.0 : 4.0;
    /* amp-bf16 keeps the whole model fp32, frozen base included (no cast cache: frozen
     * weights are not cached by autocast). */
    /*
     * job.base_fp32: a base loaded in fp32 under FSDP MixedPrecision
     * keeps fp32 shards (FSDP casts only the gathered copy to param_dtype,
     * FSDP1 _mp_shard / FSDP2 cast before all-gather; accelerate upcasts
     * trainable flat params only), so 4 B per frozen parameter per shard.
     */
    const bool fsdp_mixed_fp32_base = j->base_fp32 && !pure && !fp32 && fsdp_family(j);
    const bool fp32_base =
        fp32 || j->precision == GPUPLAN_PRECISION_AMP_BF16 || fsdp_mixed_fp32_base;
    if (j->method == GPUPLAN_METHOD_QLORA)
        w->base = dtype_bytes_d(j->quant, w->linear) + (pure ? 2.0 : 4.0) * w->other;
    else
        w->base = (fp32_base ? 4.0 : 2.0) * w->params;
    s->adapters = w->grad_bytes * w->trainable;
}

/* The share of this GPU (TP x PP) and its weights, optimizer states and gradients, unsharded. */
static struct share unsharded(const struct gpuplan_memory_profile *p,
                              const struct gpuplan_job *j,
                              double mp,
                              const struct shard_factors *f,
                              struct states *s)
{
    struct share w;
    memset(&w, 0, sizeof w);
    w.work = j->precision == GPUPLAN_PRECISION_FP32 ? 4.0 : 2.0;
    w.params = (double)p->n_params;
    w.linear = (double)p->linear_params;
    w.other = (double)p->other_params;
    if (mp > 1.0) {
        w.params /= mp;
        w.linear /= mp;
        w.other /= mp;
    }
    if (j->method == GPUPLAN_METHOD_FULL)
        full_weights(p, j, mp, f, &w, s);
    else
        adapter_weights(p, j, mp, &w, s);
    /*
     * bitsandbytes' 32-bit optimizers (PagedAdamW, optim_bits 32) allocate
     * their states in float32 whatever the parameter dtype
     * (Optimizer2State.init_state: get_state_buffer(p, dtype=torch.float32));
     * torch.optim keeps the parameter dtype.
     */
    if (j->optimizer == GPUPLAN_OPTIMIZER_PAGED_ADAMW)
        w.state_bytes = 4.0;
    w.optim = optimizer_bytes(j->optimizer, w.trainable, w.small, w.factored, w.state_bytes);
    w.grads = w.grad_bytes * w.trainable;
    if (j->optim_in_bwd) /* torchtune optimizer_in_bwd: each grad is freed right after its step */
        w.grads = w.grad_bytes * (double)p->largest_tensor_params;
    return w;
}

/*
 * Expert parallelism (--ep, training): Megatron-Core's expert layout with
 * expert tensor parallel 1 (the MoE recipes' setting, throughput.c
 * expert_load_of) keeps E / ep whole experts per GPU of a pipeline stage, so
 * the routed experts' share of each unsharded state is 1 / (pp x ep) instead
 * of the 1 / (tp x pp) the dense layout gives: scaled by tp / ep. A state
 * that ZeRO/FSDP shards is divided over the expert-data-parallel ranks (tp x
 * dp / ep) instead of dp, which cancels that scale: with a distributed
 * optimizer EP leaves the experts' optimizer shard per GPU as it was. The
 * expert fraction is that of the whole model (pipeline stages hold equal
 * shares of blocks). Adapters on experts are not split further.
 */
static void expert_parallel(const struct gpuplan_memory_profile *p,
                            const struct gpuplan_job *j,
                            const struct share *w,
                            const struct shard_factors *f,
                            struct states *s)
{
    if (j->ep <= 1 || p->expert_params == 0 || p->n_params == 0)
        return;
    const double e = (double)p->expert_params / (double)p->n_params;
    const double keep = 1.0 - e + e * (double)(j->tp ? j->tp : 1) / (double)j->ep;
    if (!f->params_sharded)
        s->weights -= (w->base + s->cast_cache) * (1.0 - keep);
    if (j->method != GPUPLAN_METHOD_FULL)
        return;
    if (f->optim <= 1.0) {
        s->optim *= keep;
        if (!f->params_sharded)
            s->weights -= w->master * (1.0 - keep);
    }
    if (f->grads <= 1.0)
        s->grads *= keep;
    s->ddp_bucket *= keep;
}

/*
 * FSDP under pipeline parallelism (torchtitan parallelize: "For PP, do not
 * reshard after forward to avoid per-microbatch all-gathers",
 * reshard_after_forward = not pp_enabled; and torch.distributed.pipelining
 * turns gradient sync off for every micro-batch but the last): the stage's
 * parameters stay gathered in the compute dtype for the whole step, and
 * full fine-tuning accumulates unsharded gradients, upcast to the reduce
 * dtype (fp32 under a mixed policy: FSDP2 to_accumulated_grad_if_needed).
 * In effect ZeRO-2 for the stage, plus the sharded states.
 */
static void pipeline_gathered(const struct gpuplan_job *j,
                              const struct share *w,
                              const struct shard_factors *f,
                              struct states *s)
{
    const bool pure = j->precision == GPUPLAN_PRECISION_BF16;
    s->weights = (w->base + w->master) / f->params;
    const double stage = w->params; /* this GPU's TP x PP share, unsharded */
    s->gathered = w->work * stage;
    s->unsharded_grads = j->method == GPUPLAN_METHOD_FULL ? (pure ? 2.0 : 4.0) * stage : 0.0;
}

/*
 * FSDP/ZeRO-3 QLoRA all-gathers the quantised storage, not a 16-bit copy:
 * torchtune's NF4Tensor implements fsdp_pre_all_gather on its packed data;
 * HF FSDP-QLoRA keeps bnb's packed 4-bit weights in a bf16 quant_storage
 * flat parameter. A unit is one block (its linears in --quant, norms in the
 * 16/32-bit rest dtype), the embedding, or the head with the final norm;
 * two in flight.
 */
static void qlora_gathered(const struct gpuplan_memory_profile *p,
                           const struct gpuplan_job *j,
                           const struct share *w,
                           const struct shard_factors *f,
                           struct states *s)
{
    const bool pure = j->precision == GPUPLAN_PRECISION_BF16;
    const double meta = quant_meta_bytes(j->quant, w->linear);
    s->weights = (w->base - meta + w->master) / f->params + meta;
    s->gpu_only = meta;
    const double L = p->n_layers ? (double)p->n_layers : 1.0;
    const double rest_bytes = pure ? 2.0 : 4.0;
    const double block_linear = (double)p->linear_params / L;
    const double block_other =
        p->block_params > p->linear_params ? (double)(p->block_params - p->linear_params) / L : 0.0;
    /* The gathered unit carries the codes; the metadata is already on the GPU. */
    double unit = dtype_bytes_d(j->quant, block_linear) - quant_meta_bytes(j->quant, block_linear) +
                  rest_bytes * block_other;
    const double embed = rest_bytes * (double)p->embed_params;
    const double head = rest_bytes * (double)(p->n_params - p->block_params - p->embed_params);
    if (fsdp_wraps_blocks(j)) {
        /* The root unit (embedding, final norm, head) stays gathered: see fsdp_wraps_blocks. */
        s->gathered = (2.0 * unit + embed + head) / (j->tp ? j->tp : 1);
    } else {
        unit = unit > embed ? unit : embed;
        unit = unit > head ? unit : head;
        s->gathered = 2.0 * unit / (j->tp ? j->tp : 1);
    }
}

/* ZeRO-3 and FSDP over 16/32-bit weights: the sharded states and the gathered units. */
static void sharded_gathered(const struct gpuplan_memory_profile *p,
                             const struct gpuplan_job *j,
                             const struct share *w,
                             const struct shard_factors *f,
                             struct states *s)
{
    const bool full = j->method == GPUPLAN_METHOD_FULL;
    s->weights = (w->base + w->master) / f->params;
    const double tp = j->tp ? (double)j->tp : 1.0;
    /* amp-bf16 under FSDP: no MixedPrecision policy, so units are gathered (and their
     * gradients reduced) in fp32. */
    const double gw = j->precision == GPUPLAN_PRECISION_AMP_BF16 ? 4.0 : w->work;
    if (fsdp_wraps_blocks(j)) {
        /*
         * Two blocks in flight (current + prefetched) and one block's
         * unsharded gradient, plus the root unit, gathered from the
         * start of forward to the end of backward (fsdp_wraps_blocks).
         * Full tuning: the root's unsharded gradient appears with the
         * head's backward, the first of the step, and is reduced only
         * when the root's post-backward runs after the embedding's
         * (FSDP1: one flat gradient for the whole root; FSDP2: the
         * head's now, the embedding's at the end; the head's is taken).
         */
        const double block = (double)p->largest_block_params / tp;
        const double root = (double)(p->n_params - p->block_params) / tp;
        const double head = (double)(p->head_params ? p->head_params : p->embed_params) / tp;
        s->gathered = 2.0 * gw * block + gw * root + (full ? gw * block : 0.0);
        s->root_grad_b = full ? gw * head : 0.0;
        s->root_grad_e = full ? gw * root : 0.0;
    } else {
        const double unit = (double)p->largest_layer_params / tp;
        s->gathered = 2.0 * gw * unit + (full ? gw * unit : 0.0);
    }
}

/*
 * Move what --offload moves to host RAM (or NVMe), and the paged optimizer
 * states that live in CUDA unified memory.
 */
static void offloaded(const struct gpuplan_memory_profile *p,
                      const struct gpuplan_job *j,
                      const struct share *w,
                      const struct shard_factors *f,
                      struct states *s)
{
    const bool full = j->method == GPUPLAN_METHOD_FULL;
    const bool pure = j->precision == GPUPLAN_PRECISION_BF16;
    if (is_paged(j->optimizer)) {
        /* bnb paged optimizers allocate states in CUDA unified memory, outside PyTorch's allocator;
           under memory pressure the driver evicts them to host RAM. Count them on the host. */
        s->host += s->optim;
        s->optim = 0.0;
    }
    switch (j->offload) {
    case GPUPLAN_OFFLOAD_OPTIMIZER:
        s->host += s->optim + w->master / (f->params_sharded ? f->params : f->optim) +
                   (full && !pure ? 4.0 * w->trainable / f->grads : 0.0);
        if (!f->params_sharded)
            s->weights -= w->master / f->optim;
        else
            s->weights -= w->master / f->params;
        s->optim = 0.0;
        break;
    case GPUPLAN_OFFLOAD_PARAMS:
        if (!fsdp_sharding(j)) {
            s->host += s->weights - s->gpu_only;
            s->weights = s->gpu_only;
            break;
        }
        /*
         * FSDP has no parameter-only offload: CPUOffload(offload_params=True)
         * moves the gradients too, and the optimizer then steps on the CPU
         * shards, so its states live there as well.
         */
        /* fall through */
    case GPUPLAN_OFFLOAD_OPTIMIZER_PARAMS: {
        const double moved = s->weights - s->gpu_only;
        /*
         * FSDP pins a CPU gradient buffer as large as every offloaded shard,
         * frozen ones included (FlatParamHandle.init_flat_param_attributes:
         * "Pre-allocate the sharded gradient on CPU to enable non-blocking D2H
         * transfer", flat_param._cpu_grad = zeros_like(_local_shard)
         * .pin_memory()); it is the host copy of the sharded gradients, so
         * the larger of the two is counted.
         */
        const double host_grads = fsdp_sharding(j) && moved > s->grads ? moved : s->grads;
        s->host += s->optim + moved + host_grads;
        s->weights = s->gpu_only;
        s->optim = 0.0;
        s->grads = s->gathered > 0.0 ? 0.0 : s->grads;
        break;
    }
    case GPUPLAN_OFFLOAD_NVME:
        /* ZeRO-Infinity: states on NVMe; pinned host buffers only (the fp16 parameter buffers
         * and the optimizer swap buffers above). */
        s->host += DEEPSPEED_NVME_PARAM_BUFFERS * DEEPSPEED_NVME_BUFFER_ELEMS * FP16_BYTES +
                   NVME_SWAP_BUFFERS * NVME_SWAP_BYTES_PER_PARAM * (double)p->largest_tensor_params;
        s->weights = s->gpu_only;
        s->optim = 0.0;
        s->grads = s->gathered > 0.0 ? 0.0 : s->grads;
        break;
    case GPUPLAN_OFFLOAD_NONE:
    default:
        break;
    }
}

static struct states model_states(const struct gpuplan_memory_profile *p,
                                  const struct gpuplan_job *j,
                                  double shard,
                                  double mp)
{
    struct states s;
    memset(&s, 0, sizeof s);
    struct shard_factors f;
    f.params_sharded = is_sharded_params(j->sharding);
    f.optim = j->sharding >= GPUPLAN_SHARDING_ZERO1 ? shard : 1.0;
    f.grads = j->sharding >= GPUPLAN_SHARDING_ZERO2 ? shard : 1.0;
    f.params = f.params_sharded ? shard : 1.0;
    const struct share w = unsharded(p, j, mp, &f, &s);

    /* Master weights live with the optimizer partition (DeepSpeed ZeRO-1/2; FSDP shards
     * everything). */
    if (f.params_sharded && j->pp > 1 && f.params > 1.0)
        pipeline_gathered(j, &w, &f, &s);
    else if (f.params_sharded && j->method == GPUPLAN_METHOD_QLORA)
        qlora_gathered(p, j, &w, &f, &s);
    else if (f.params_sharded)
        sharded_gathered(p, j, &w, &f, &s);
    else
        s.weights = w.base + w.master / f.optim + s.cast_cache;
    if (j->method != GPUPLAN_METHOD_FULL)
        s.adapters /= f.params;
    s.grads = w.grads / f.grads;
    s.optim = w.optim / f.optim;
    if (j->sharding == GPUPLAN_SHARDING_DDP)
        s.ddp_bucket = w.grads;
    expert_parallel(p, j, &w, &f, &s);
    offloaded(p, j, &w, &f, &s);
    if (s.weights < 0.0)
        s.weights = 0.0;
    return s;
}

/*
 * Peak activation bytes of one micro-batch on the GPU holding the first
 * pipeline stage (1F1B keeps pp micro-batches in flight there: L layers'
 * worth in total, Korthikanti et al. sec. 4.2.3), plus the logits and loss
 * buffers of the last stage, plus backward workspace.
 */
struct act_peak {
    double stored;      /* saved for backward at the end of forward */
    double transient;   /* one block recomputed + backward workspace */
    double logits_fwd;  /* logits and loss buffers at the end of forward */
    double logits_bwd;  /* ... while the loss is differentiated */
    double last_block;  /* the first block's backward: its activations + workspace */
    double kept_kv;     /* keep_outputs: the output's per-layer (k, v) of one micro-batch */
    double kept_logits; /* keep_outputs: the output's logits (fp32 when the loss upcasts) */
};

static double training_activations(const struct gpuplan_memory_profile *p,
                                   const struct gpuplan_job *j,
                                   struct act_peak *out)
{
    const double seq = (double)j->seq_len, tokens = seq * (double)j->micro_batch;
    const struct act_sizes a = activation_sizes(p, j, seq);
    const double layers =
        (double)p->n_layers; /* per stage L/pp, times pp micro-batches in flight */
    const double tp = j->tp ? (double)j->tp : 1.0;
    double stored, transient;
    const double one_layer = a.per_layer * tokens;
    switch (j->grad_ckpt) {
    case GPUPLAN_CKPT_FULL:
        /* One hidden state per block, plus one block's activations while it is recomputed. */
        stored = layers * a.boundary * tokens;
        transient = one_layer + a.bwd_ws * tokens;
        break;
    case GPUPLAN_CKPT_SELECTIVE:
        stored = layers * (a.selective < a.per_layer ? a.selective : a.per_layer) * tokens;
        transient = one_layer - a.core_s2 * tokens + a.bwd_ws * tokens;
        break;
    case GPUPLAN_CKPT_NONE:
    default:
        stored = layers * a.per_layer * tokens;
        transient = a.bwd_ws * tokens;
        break;
    }
    /* Interleaved 1F1B (--vpp): the first stage holds (1 + (pp - 1) / (pp x vpp)) times the
     * activations of the plain schedule (Korthikanti et al. 2022, sec. 4.2.3). */
    if (j->pp > 1 && j->vpp > 1)
        stored *= 1.0 + ((double)j->pp - 1.0) / ((double)j->pp * (double)j->vpp);
    if (j->act_offload) {
        /* torchtune offloads saved activations to host; one block's worth stays on the GPU. */
        stored = j->grad_ckpt == GPUPLAN_CKPT_FULL ? a.boundary * tokens : one_layer;
    }
    /*
     * Logits and cross-entropy, upcast path (HF ForCausalLMLoss and
     * torchtitan: logits.float(), then F.cross_entropy = log_softmax +
     * nll_loss in eager PyTorch). Forward end: c-byte logits + fp32 copy +
     * the fp32 log-softmax output log_softmax saves = (c + 8) V T. Start
     * of backward (every stored activation still alive): the saved
     * log-softmax output (4 V T), nll_loss_backward's dense fp32 gradient
     * (zeros_like(input), 4 V T) and log_softmax_backward's fp32 result
     * (4 V T) coexist = 12 V T, which is the larger for c <= 4.
     * Chunked CE (torchtune CEWithChunkedOutputLoss, k = 8 chunks, eager):
     * the c-byte logits of every chunk live until the loss returns, each
     * chunk's fp32 log-softmax output is saved (4 V T over all chunks) and
     * one chunk's fp32 copy is transient (4 V T / k): (c + 4 + 4/k) V T; its
     * backward holds the saved outputs plus one chunk's two gradients,
     * (4 + 8/k) V T, never more. A compiled loss keeps less (below).
     */
    const double V = (double)p->vocab / tp;
    double logits;
    if (j->chunked_ce && j->stack == GPUPLAN_FRAMEWORK_TRL) {
        /* TRL_CHUNK_*: one 256-token chunk of the full vocabulary (the lm_head is gathered:
         * maybe_gather_lm_head_ctx), forward and backward alike */
        const double chunk = tokens < TRL_CHUNK_TOKENS ? tokens : TRL_CHUNK_TOKENS;
        out->logits_fwd = out->logits_bwd = TRL_CHUNK_BYTES_PER_LOGIT * (double)p->vocab * chunk;
    } else if (j->compile && j->compile_loss) {
        /*
         * Compiled loss (compiled_block_note): the fused cross-entropy saves
         * its input and the log-sum-exp, and its backward writes the logits'
         * gradient in one kernel. Unchunked: the c-byte logits and their fp32
         * copy at the end of forward (c + 4) V T; backward, the saved fp32
         * input and its fp32 gradient, 8 V T. Chunked (torchtune compiles the
         * per-chunk upcast + cross-entropy): the c-byte chunks stay (c V T)
         * and one chunk's fp32 upcast is transient, (c + 4/k) V T; backward,
         * one chunk's fp32 and c-byte gradients more, (c + (4 + c)/k) V T.
         */
        const double k = CHUNKED_CE_CHUNKS;
        out->logits_fwd = (j->chunked_ce ? a.c + 4.0 / k : a.c + 4.0) * V * tokens;
        out->logits_bwd = (j->chunked_ce ? a.c + (4.0 + a.c) / k : 8.0) * V * tokens;
    } else if (j->chunked_ce) {
        const double fwd = a.c + 4.0 + 4.0 / CHUNKED_CE_CHUNKS, bwd = 4.0 + 8.0 / CHUNKED_CE_CHUNKS;
        out->logits_fwd = fwd * V * tokens;
        out->logits_bwd = bwd * V * tokens;
    } else {
        const double fwd = a.c < 4.0 ? a.c + 8.0 : 8.0, bwd = 12.0;
        out->logits_fwd = fwd * V * tokens;
        out->logits_bwd = bwd * V * tokens;
    }
    logits = out->logits_fwd > out->logits_bwd ? out->logits_fwd : out->logits_bwd;
    out->stored = stored;
    out->transient = transient;
    /* The last block backward runs on (block 0) still holds its own saved or recomputed
     * activations, whatever the checkpointing. */
    out->last_block = one_layer + a.bwd_ws * tokens;
    if (j->keep_outputs) {
        /*
         * The loop holds the model's output (job.h keep_outputs). HF causal
         * LMs return the logits upcast to fp32 (LlamaForCausalLM:
         * `logits = logits.float()` before the loss; c-byte under a chunked
         * loss, which never builds them whole) and, while use_cache is on,
         * every layer's present (k, v) in the compute dtype: LlamaAttention
         * keeps `past_key_value = (key_states, value_states) if use_cache`,
         * i.e. the un-repeated GQA widths, 2 kv elements per token per
         * layer. HF turns use_cache off only under its own
         * gradient_checkpointing (LlamaModel.forward: "use_cache=True is
         * incompatible with gradient checkpointing"); a wrapper such as
         * torch's apply_activation_checkpointing (atorch "checkpoint")
         * leaves the config default (use_cache true for Llama) on.
         */
        out->kept_kv = 2.0 * (double)p->kv_width / tp * a.c * layers * tokens;
        out->kept_logits = (j->chunked_ce ? a.c : 4.0) * V * tokens;
    }
    return stored + (logits > transient ? logits : transient) + out->kept_kv + out->kept_logits;
}

/*
 * The largest double that converts to int64_t safely: below INT64_MAX
 * (9.22e18), where a double past it has no int64_t value (C17 6.3.1.4).
 */
#define INT64_SAFE_BOUND 9.0e18

/* `v` as an int64_t, saturated at the bounds (headroom and savings are signed bytes). */
static int64_t saturate_i64(double v)
{
    return v > INT64_SAFE_BOUND ? INT64_MAX : v < -INT64_SAFE_BOUND ? INT64_MIN : (int64_t)v;
}

/* Bytes of one GPU by category (each at its own maximum), and of its host. */
struct categories {
    double weights, grads, optim, act, adapters, kv, overhead, host;
};

/* GPUs, model-parallel size, data-parallel size and the ranks states are sharded over. */
struct degrees {
    uint64_t n_gpus, mp, dp, shard;
};

static struct degrees degrees_of(const struct gpuplan_job *job)
{
    struct degrees d;
    d.n_gpus = (uint64_t)job->gpus_per_node * job->nodes;
    d.mp = (uint64_t)job->tp * job->pp;
    d.dp = d.n_gpus / d.mp ? d.n_gpus / d.mp : 1;
    d.shard = 1;
    if (job->sharding == GPUPLAN_SHARDING_FSDP_HYBRID)
        d.shard = job->gpus_per_node / d.mp ? job->gpus_per_node / d.mp : 1;
    else if (job->sharding >= GPUPLAN_SHARDING_ZERO1)
        d.shard = d.dp;
    return d;
}

/*
 * The categories of a training job. Host: every GPU's offloaded or paged
 * states (DeepSpeed's estimators add DEEPSPEED_HOST_BUFFER_FACTOR for its
 * offload buffers) and torchtune's offloaded activations.
 */
static void training_categories(const struct gpuplan_memory_profile *profile,
                                const struct gpuplan_job *job,
                                const struct states *s,
                                double act,
                                struct categories *c)
{
    c->weights = s->weights + s->gathered;
    c->grads = s->grads + s->ddp_bucket + s->unsharded_grads + s->root_grad_e;
    c->optim = s->optim;
    c->adapters = s->adapters;
    c->host = s->host * (double)job->gpus_per_node;
    if (job->offload != GPUPLAN_OFFLOAD_NONE && job->sharding >= GPUPLAN_SHARDING_ZERO1 &&
        job->sharding <= GPUPLAN_SHARDING_ZERO3)
        c->host *= DEEPSPEED_HOST_BUFFER_FACTOR;
    c->act = act;
    if (job->act_offload)
        c->host += (double)profile->n_layers *
                   activation_sizes(profile, job, (double)job->seq_len).boundary *
                   (double)job->seq_len * (double)job->micro_batch * (double)job->gpus_per_node;
    if (job->method == GPUPLAN_METHOD_QLORA) /* one dequantised 16-bit weight at a time (bnb
                                                dequantize_4bit) */
        c->overhead += 2.0 * (double)profile->largest_linear_params / (double)job->tp;
}

/*
 * The categories above are each at their own maximum; they do not all
 * peak at once. Four moments bound the step (docs/formulas.md "Peak"):
 * F, the end of forward; B, the start of backward; E, the end of backward;
 * S, the optimizer step. What all four hold: weights (without autocast's
 * cast copies, counted where they live), DDP's bucket, optimizer states,
 * adapters, overhead, and the gradients when they outlive the step.
 * Gradients of the previous step are gone in F and B only when they are
 * freed after every step and not accumulated: zero_grad(set_to_none=True)
 * (torch >= 2.0 default; HF Trainer, torchtune, torchtitan), one
 * micro-batch per optimizer step, and a framework that does not keep a
 * persistent gradient buffer (not DeepSpeed: ZeRO-3 allocates its fp32
 * gradient partition once; not pipeline schedules, which accumulate over
 * micro-batches). Otherwise they count in F and B.
 */
struct moments_base {
    double fixed;      /* held at every moment */
    double live_grads; /* this step's gradients */
    bool grads_freed;  /* ... which are not in `fixed` */
    /*
     * keep_outputs (job.h): the held output (its (k, v) and logits) is
     * alive in B, E and S; in F the new forward has built its own (k, v)
     * while the previous step's output is still held, since the loop
     * rebinds `outputs` only when the forward returns (the new fp32 logits
     * are already in logits_fwd).
     */
    double kept;
};

static struct moments_base moments_base(const struct gpuplan_job *job,
                                        const struct states *s,
                                        const struct act_peak *ap,
                                        const struct categories *c)
{
    struct moments_base m;
    m.grads_freed = job->grad_accum <= 1 && !job->optim_in_bwd && job->pp <= 1 &&
                    (job->sharding == GPUPLAN_SHARDING_NONE ||
                     job->sharding == GPUPLAN_SHARDING_DDP || fsdp_family(job));
    m.live_grads = s->grads + s->unsharded_grads;
    m.fixed = c->weights - s->cast_cache + s->ddp_bucket + c->optim + c->adapters + c->overhead +
              (m.grads_freed ? 0.0 : m.live_grads);
    m.kept = ap->kept_kv + ap->kept_logits;
    return m;
}

/* F: saved activations, the forward logits/loss buffers, autocast's cast cache (alive until the
 * autocast region exits, i.e. through the forward and the loss). */
static double
moment_forward_end(const struct moments_base *m, const struct states *s, const struct act_peak *ap)
{
    return m->fixed + ap->stored + ap->logits_fwd + s->cast_cache +
           (m->kept > 0.0 ? ap->kept_kv + m->kept : 0.0);
}

/* B: saved activations and the larger of the loss backward and one recomputed block; the cast
 * copies survive only where the matmuls saved them (no recompute); FSDP's root gradient. */
static double moment_backward_start(const struct gpuplan_job *job,
                                    const struct moments_base *m,
                                    const struct states *s,
                                    const struct act_peak *ap)
{
    return m->fixed + ap->stored +
           (ap->logits_bwd > ap->transient ? ap->logits_bwd : ap->transient) +
           (job->grad_ckpt == GPUPLAN_CKPT_NONE ? s->cast_cache : 0.0) + m->kept + s->root_grad_b;
}

/* E: every gradient, and the activations and workspace of the block differentiated last. */
static double
moment_backward_end(const struct moments_base *m, const struct states *s, const struct act_peak *ap)
{
    return m->fixed + (m->grads_freed ? m->live_grads : 0.0) + ap->last_block + m->kept +
           s->root_grad_e;
}

/*
 * S, the optimizer step: torch.optim.AdamW's default foreach path "uses ~
 * sizeof(params) more peak memory than the for-loop version due to the
 * intermediates being a tensorlist vs just one tensor" (the `foreach`
 * argument's docstring, torch/optim/optimizer.py): one state-sized
 * temporary (_foreach_sqrt of exp_avg_sq) next to every gradient. Not under
 * DeepSpeed (its own fused Adam), bitsandbytes (8-bit, paged) or an
 * offloaded step. Sharded units are resharded when backward ends: none is
 * gathered at the step.
 */
static double moment_optimizer_step(const struct gpuplan_job *job,
                                    const struct moments_base *m,
                                    const struct states *s)
{
    const bool foreach_temp =
        job->optimizer == GPUPLAN_OPTIMIZER_ADAMW && !job->optim_in_bwd &&
        job->offload == GPUPLAN_OFFLOAD_NONE &&
        !(job->sharding >= GPUPLAN_SHARDING_ZERO1 && job->sharding <= GPUPLAN_SHARDING_ZERO3);
    return m->fixed - s->gathered + (m->grads_freed ? m->live_grads : 0.0) +
           (foreach_temp ? 0.5 * s->optim : 0.0) + m->kept;
}

/* The training step's peak allocation: the largest of the four moments. */
static double training_peak(const struct gpuplan_job *job,
                            const struct states *s,
                            const struct act_peak *ap,
                            const struct categories *c)
{
    const struct moments_base m = moments_base(job, s, ap, c);
    const double f = moment_forward_end(&m, s, ap);
    const double b = moment_backward_start(job, &m, s, ap);
    const double e = moment_backward_end(&m, s, ap);
    const double st = moment_optimizer_step(job, &m, s);
    double peak = f > b ? f : b;
    peak = peak > e ? peak : e;
    return peak > st ? peak : st;
}

/*
 * The load moment, before the first step (issue 16): a training script that
 * drives DeepSpeed directly (--stack deepspeed) builds the model and hands it
 * to deepspeed.initialize, whose engine casts the whole module to its 16-bit
 * type and then moves it, unsharded, to the GPU
 * (deepspeedai/DeepSpeed@edaa72212 (0.19.6) deepspeed/runtime/engine.py
 * _configure_distributed_model: module.bfloat16() / half(), then
 * `if not self.dont_change_device: self.module.to(self.device)`, with
 * dont_change_device False by default) before ZeRO-3 partitions the
 * parameters. Only a model built under deepspeed.zero.Init arrives already
 * partitioned; HF Trainer and accelerate enter zero.Init themselves
 * (transformers is_deepspeed_zero3_enabled), a raw script does not. So under
 * ZeRO-3 every GPU holds all parameters in 16 bits (fp32 without a 16-bit
 * engine) for a moment; tensor/pipeline parallel ranks hold their share.
 * Under ZeRO-0/1/2 the parameters stay whole anyway, so the step is larger.
 * Returns 0 where no such moment exists.
 */
static double load_moment_bytes(const struct gpuplan_memory_profile *profile,
                                const struct gpuplan_job *job,
                                double model_parallel)
{
    if (job->stack != GPUPLAN_FRAMEWORK_DEEPSPEED || job->sharding != GPUPLAN_SHARDING_ZERO3 ||
        job->method == GPUPLAN_METHOD_QLORA) /* bnb loads quantised, on the GPU, by itself */
        return 0.0;
    const double bytes_per_param = job->precision == GPUPLAN_PRECISION_FP32 ? 4.0 : 2.0;
    return (double)profile->n_params * bytes_per_param /
           (model_parallel > 1.0 ? model_parallel : 1.0);
}

static double nccl_bytes(uint64_t n_gpus)
{
    return n_gpus > 1 ? (double)(NCCL_BUFFERS_MIB * GPUPLAN_BYTES_PER_MIB) : 0.0;
}

static double usable_bytes(const struct gpuplan_gpu *gpu)
{
    return (double)(gpu->memory_visible_bytes ? gpu->memory_visible_bytes : gpu->memory_bytes);
}

/*
 * Paged (unified-memory) optimizer states are evicted to host only under
 * memory pressure: when they fit next to everything else they stay on the
 * GPU (bitsandbytes paged optimizers, cudaMallocManaged). Managed memory is
 * not allocated through PyTorch's caching allocator, so
 * torch.cuda.max_memory_allocated/reserved never include it; only
 * nvidia-smi (device total) does. Check (not a fit): torchtune PR #961
 * measured one Llama-2-7B PagedAdamW job at 20.2 GB allocated and 22.3 GB
 * on an 80 GB A100, where its 54 GB of fp32 states fit and stay resident
 * but are not counted. Returns the managed bytes resident on the GPU.
 */
static double paged_resident(const struct gpuplan_memory_terms *t,
                             const struct gpuplan_gpu *gpu,
                             double allocated,
                             uint64_t n_gpus,
                             struct categories *c)
{
    const double paged = t->paged_host; /* with --offload none the host holds only the paged
                                           states */
    const double others =
        allocated * (1.0 + ALLOCATOR_SLACK) + cuda_context_bytes(gpu) + nccl_bytes(n_gpus);
    if (t->offload || others + paged > usable_bytes(gpu))
        return 0.0;
    c->optim += paged; /* shown with the optimizer; not part of allocated/reserved */
    c->host -= paged * (double)t->gpus_per_node;
    if (c->host < 0.0)
        c->host = 0.0;
    return paged;
}

/* The fit verdict on `gpu`. */
static void verdict(const struct gpuplan_gpu *gpu, struct gpuplan_memory_estimate *out)
{
    out->has_gpu = true;
    out->gpu_usable_bytes =
        gpu->memory_visible_bytes ? gpu->memory_visible_bytes : gpu->memory_bytes;
    out->fits = out->per_gpu.device_total_bytes <= out->gpu_usable_bytes;
    out->headroom_bytes =
        saturate_i64((double)out->gpu_usable_bytes - (double)out->per_gpu.device_total_bytes);
}

void gpuplan_memory_eval(const struct gpuplan_memory_profile *profile,
                         const struct gpuplan_job *job_in,
                         const struct gpuplan_gpu *gpu,
                         struct gpuplan_memory_estimate *out)
{
    struct gpuplan_job job;
    gpuplan_job_resolve(job_in, &job);
    gpuplan_memory_eval_resolved(profile, &job, gpu, out);
}

/*
 * Everything above that does not depend on the GPU: the degrees, the
 * categories, the step's peak allocation and the paged optimizer states
 * (memory_internal.h).
 */
void gpuplan_memory_terms_eval(const struct gpuplan_memory_profile *profile,
                               const struct gpuplan_job *job,
                               struct gpuplan_memory_terms *t)
{
    memset(t, 0, sizeof *t);
    const struct degrees d = degrees_of(job);
    t->n_gpus = d.n_gpus;
    t->dp = d.dp;
    t->shard = d.shard;
    t->infer = job->method == GPUPLAN_METHOD_INFER;
    if (t->infer)
        return; /* serving is the engines' accounting (serving_estimate.c), not this profile's */
    /*
     * Context parallelism (--cp): each sequence is split into cp chunks over cp
     * ranks of the data-parallel group (torchtitan context_parallel, Megatron
     * --context-parallel-size), so every per-token activation, logit and loss
     * buffer holds seq/cp tokens; the model states are sharded or replicated
     * over the whole data-parallel group as before (torchtitan's FSDP mesh is
     * dp_shard x cp, Megatron's distributed optimizer spans dp x cp). Ring
     * attention passes the K/V chunks round the ring: a send and a receive
     * buffer of one chunk in forward, and of K/V plus their gradients in
     * backward, 4 x kv_cache_width x seq/cp x micro-batch x 2 B, counted at
     * every moment (over by at most that at the optimizer step). It needs
     * flash-style attention (no seq^2 scores); eager attention is charged the
     * local chunk's scores only.
     */
    struct gpuplan_job local = *job; /* the rank's share of each sequence */
    double ring_bytes = 0.0;
    if (local.cp > 1) {
        local.seq_len = (local.seq_len + local.cp - 1) / local.cp;
        ring_bytes = 4.0 * (double)profile->kv_cache_width * (double)local.seq_len *
                     (double)local.micro_batch * 2.0 / (double)(local.tp ? local.tp : 1);
    }
    job = &local;
    struct categories c;
    memset(&c, 0, sizeof c);
    const struct states s = model_states(profile, job, (double)d.shard, (double)d.mp);
    struct act_peak ap;
    memset(&ap, 0, sizeof ap);
    const double act = training_activations(profile, job, &ap);
    training_categories(profile, job, &s, act, &c);
    c.overhead += ring_bytes;
    const double step = training_peak(job, &s, &ap, &c); /* the moments, not the sum */
    t->load = load_moment_bytes(profile, job, (double)d.mp);
    t->varlen = !job->packed;
    t->allocated = t->load > step ? t->load : step; /* max_memory_allocated spans the load */
    t->weights = c.weights;
    t->grads = c.grads;
    t->optim = c.optim;
    t->act = c.act;
    t->adapters = c.adapters;
    t->kv = c.kv;
    t->overhead = c.overhead;
    t->host = c.host;
    t->paged = is_paged(job->optimizer);
    t->paged_host = s.host;
    t->offload = job->offload != GPUPLAN_OFFLOAD_NONE;
    t->gpus_per_node = job->gpus_per_node;
}

void gpuplan_memory_terms_finish(const struct gpuplan_memory_terms *t,
                                 const struct gpuplan_gpu *gpu,
                                 bool breakdown,
                                 struct gpuplan_memory_estimate *out)
{
    memset(out, 0, sizeof *out);
    out->n_gpus = (uint32_t)(t->n_gpus > UINT32_MAX ? UINT32_MAX : t->n_gpus);
    out->dp_degree = (uint32_t)(t->dp > UINT32_MAX ? UINT32_MAX : t->dp);
    out->shard_degree = (uint32_t)(t->shard > UINT32_MAX ? UINT32_MAX : t->shard);
    if (t->infer)
        return;
    struct categories c = { .weights = t->weights,
                            .grads = t->grads,
                            .optim = t->optim,
                            .act = t->act,
                            .adapters = t->adapters,
                            .kv = t->kv,
                            .overhead = t->overhead,
                            .host = t->host };
    double managed = 0.0;
    const double allocated = t->allocated;
    if (t->paged && gpu)
        managed = paged_resident(t, gpu, allocated, t->n_gpus, &c);
    const double reserved = allocated * (1.0 + ALLOCATOR_SLACK);
    const double context = cuda_context_bytes(gpu);
    const double nccl = nccl_bytes(t->n_gpus);
    struct gpuplan_memory_per_gpu *g = &out->per_gpu;
    g->device_total_bytes = gpuplan_bytes_from_double(reserved + context + nccl + managed);
    out->host_ram_bytes = gpuplan_bytes_from_double(c.host);
    /* the peaks without the breakdown too: the planner's memory range scales them */
    g->peak_allocated_bytes = gpuplan_bytes_from_double(allocated);
    g->peak_reserved_bytes = gpuplan_bytes_from_double(reserved);
    if (gpu)
        verdict(gpu, out);
    if (!breakdown)
        return;
    g->weights_bytes = gpuplan_bytes_from_double(c.weights);
    g->gradients_bytes = gpuplan_bytes_from_double(c.grads);
    g->optimizer_bytes = gpuplan_bytes_from_double(c.optim);
    g->activations_bytes = gpuplan_bytes_from_double(c.act);
    g->adapters_bytes = gpuplan_bytes_from_double(c.adapters);
    g->kv_cache_bytes = gpuplan_bytes_from_double(c.kv);
    g->overhead_bytes = gpuplan_bytes_from_double(c.overhead + nccl);
    g->load_peak_bytes = gpuplan_bytes_from_double(t->load);
    /*
     * Variable-length batches (--packed no): PyTorch's caching allocator keeps
     * the blocks it freed, rounded to their size class, and serves a request
     * only from a cached block at least as large (c10/cuda/CUDACachingAllocator.cpp
     * get_free_block; a cudaMalloc'd segment is never merged with another), so
     * each new larger shape adds segments while the smaller ones stay cached:
     * reserved grows with the shapes seen, bounded only by what the allocator
     * can get. When cudaMalloc fails it frees the cached blocks and retries
     * (release_cached_blocks) before raising out-of-memory, so the band's top
     * is the free memory and not an OOM: the verdict reads the largest shape
     * (peak_reserved). The band is [peak_reserved, usable - context - NCCL -
     * managed]; where it ends inside depends on the order of the shapes.
     */
    if (t->varlen && gpu) {
        const double top = usable_bytes(gpu) - context - nccl - managed;
        g->reserved_varlen_high_bytes = gpuplan_bytes_from_double(top > reserved ? top : reserved);
    }
    g->cuda_context_bytes = gpuplan_bytes_from_double(context);
    g->managed_bytes = gpuplan_bytes_from_double(managed);
}

void gpuplan_memory_eval_resolved(const struct gpuplan_memory_profile *profile,
                                  const struct gpuplan_job *job,
                                  const struct gpuplan_gpu *gpu,
                                  struct gpuplan_memory_estimate *out)
{
    struct gpuplan_memory_terms t;
    gpuplan_memory_terms_eval(profile, job, &t);
    gpuplan_memory_terms_finish(&t, gpu, true, out);
}

/* ---- suggestions -------------------------------------------------------- */

static void add_suggestion(struct gpuplan_memory_report *r,
                           const struct gpuplan_memory_profile *p,
                           const struct gpuplan_job *changed,
                           const struct gpuplan_gpu *gpu,
                           const char *text)
{
    struct gpuplan_memory_estimate e;
    gpuplan_memory_eval(p, changed, gpu, &e);
    const double saving =
        (double)r->est.per_gpu.device_total_bytes - (double)e.per_gpu.device_total_bytes;
    if (saving <= 0.0 || r->n_suggestions >= GPUPLAN_MAX_SUGGESTIONS)
        return;
    struct gpuplan_memory_suggestion *s = &r->suggestions[r->n_suggestions++];
    snprintf(s->change, sizeof s->change, "%s", text);
    s->saving_bytes = saturate_i64(saving);
    s->fits = e.fits;
}

/*
 * The job with one option changed, as a user would type it: the change goes
 * through the option table (gpuplan_job_set: the same value, and the same
 * "given" flags) and the suggestion reads "--option value".
 */
static void try_option(struct gpuplan_memory_report *r,
                       const struct gpuplan_memory_profile *p,
                       const struct gpuplan_job *job,
                       const struct gpuplan_gpu *gpu,
                       const char *option,
                       const char *value)
{
    struct gpuplan_job j = *job;
    if (gpuplan_job_set(&j, option, value, NULL) != GPUPLAN_OK)
        return;
    char text[128];
    (void)snprintf(text, sizeof text, "--%s %s", option, value);
    add_suggestion(r, p, &j, gpu, text);
}

static int suggestion_cmp(const void *a, const void *b)
{
    const struct gpuplan_memory_suggestion *x = a, *y = b;
    if (x->fits != y->fits)
        return x->fits ? -1 : 1;
    return x->saving_bytes > y->saving_bytes   ? -1
           : x->saving_bytes < y->saving_bytes ? 1
                                               : strcmp(x->change, y->change);
}

static void suggest(struct gpuplan_memory_report *r,
                    const struct gpuplan_memory_profile *p,
                    const struct gpuplan_job *job,
                    const struct gpuplan_gpu *gpu)
{
    if (job->grad_ckpt != GPUPLAN_CKPT_FULL)
        try_option(r, p, job, gpu, "grad-ckpt", "full");
    if (job->method == GPUPLAN_METHOD_FULL)
        try_option(r, p, job, gpu, "method", "lora");
    if (job->method != GPUPLAN_METHOD_QLORA)
        try_option(r, p, job, gpu, "method", "qlora");
    if (job->optimizer == GPUPLAN_OPTIMIZER_ADAMW)
        try_option(r, p, job, gpu, "optimizer", "adamw-8bit");
    if (job->micro_batch > 1)
        try_option(r, p, job, gpu, "micro-batch", "1");
    if (job->offload == GPUPLAN_OFFLOAD_NONE)
        try_option(r, p, job, gpu, "offload", "optimizer");
    if (!job->compile)
        try_option(r, p, job, gpu, "compile", "yes");
    if (job->attention == GPUPLAN_ATTN_EAGER)
        try_option(r, p, job, gpu, "attention", "flash");
    if (job->gpus_per_node < SUGGEST_MAX_GPUS_PER_NODE) {
        char text[128];
        struct gpuplan_job j = *job;
        j.gpus_per_node = job->gpus_per_node * 2;
        j.sharding = GPUPLAN_SHARDING_FSDP;
        j.sharding_set = true;
        snprintf(text, sizeof text, "--gpu %s:%u --sharding fsdp", gpu->id, j.gpus_per_node);
        add_suggestion(r, p, &j, gpu, text);
    }
    qsort(r->suggestions, r->n_suggestions, sizeof r->suggestions[0], suggestion_cmp);
}

enum gpuplan_status gpuplan_estimate_memory(const struct gpuplan_model *model,
                                            const struct gpuplan_job *job,
                                            const struct gpuplan_gpu *gpu,
                                            struct gpuplan_memory_report *out,
                                            struct gpuplan_error *err)
{
    if (job->method == GPUPLAN_METHOD_INFER)
        return serving_estimate(model, job, gpu, out, NULL, err);
    memset(out, 0, sizeof *out);
    const uint64_t n_gpus = (uint64_t)job->gpus_per_node * job->nodes;
    const uint64_t mp = (uint64_t)(job->tp ? job->tp : 1) * (job->pp ? job->pp : 1);
    if (mp > n_gpus)
        return gpuplan_error_set(
            err, GPUPLAN_ERR_USAGE, NULL,
            "'--tp' x '--pp' is %llu but only %llu GPUs are given; must be <= the GPU count",
            (unsigned long long)mp, (unsigned long long)n_gpus);
    struct gpuplan_memory_profile *profile = malloc(sizeof *profile);
    if (!profile)
        return gpuplan_error_set(err, GPUPLAN_ERR_NOMEM, NULL,
                                 "out of memory for the memory profile");
    enum gpuplan_status st =
        gpuplan_memory_profile_build(profile, model, job->lora_target_roles, job->lora_rank, err);
    if (st != GPUPLAN_OK)
        goto out;
    /* Pipeline stages hold whole decoder blocks (Megatron/torch.distributed.pipelining
     * split on block boundaries): more stages than blocks leave a stage empty. */
    if (job->pp > 1 && model->arch.n_layers &&
        job->pp > model->arch.n_layers + model->arch.n_encoder_layers) {
        st = gpuplan_error_set(err, GPUPLAN_ERR_USAGE, NULL,
                               "'--pp' is %u; must be <= the %u layers of '%s'", job->pp,
                               model->arch.n_layers + model->arch.n_encoder_layers, model->id);
        gpuplan_error_hint(err, "use fewer pipeline stages, or --tp / sharding across the GPUs");
        goto out;
    }
    /* Data parallel replicates the tp x pp group: the GPU count must be a whole multiple. */
    if (n_gpus % mp != 0) {
        st = gpuplan_error_set(err, GPUPLAN_ERR_USAGE, NULL,
                               "%llu GPUs are not a multiple of '--tp' x '--pp' = %llu",
                               (unsigned long long)n_gpus, (unsigned long long)mp);
        gpuplan_error_hint(err, "pick --tp and --pp whose product divides the GPU count");
        goto out;
    }
    /* DeepSpeed's pipeline engine asserts ZeRO stage < 2 (deepspeed/runtime/pipe/engine.py
     * @03f6f75 PipelineEngine.__init__: "ZeRO-2 and ZeRO-3 are incompatible with pipeline
     * parallelism"); Megatron's distributed optimizer is ZeRO-1-like and torchtitan composes
     * FSDP with PP, so those stay. */
    if (job->pp > 1 &&
        (job->sharding == GPUPLAN_SHARDING_ZERO2 || job->sharding == GPUPLAN_SHARDING_ZERO3)) {
        st = gpuplan_error_set(err, GPUPLAN_ERR_USAGE, NULL,
                               "'--sharding %s' with '--pp %u': DeepSpeed's pipeline engine "
                               "refuses ZeRO-2 and ZeRO-3 with pipeline parallelism",
                               gpuplan_sharding_name(job->sharding), job->pp);
        gpuplan_error_hint(err, "use --sharding zero1 (Megatron's distributed optimizer is "
                                "alike), --sharding fsdp (torchtitan), or --pp 1");
        goto out;
    }
    /* Context parallelism splits sequences over ranks of the data-parallel group. */
    if (job->cp > 1 && (n_gpus / mp) % job->cp != 0) {
        st = gpuplan_error_set(err, GPUPLAN_ERR_USAGE, NULL,
                               "'--cp' is %u; must divide the %llu data-parallel ranks (GPUs / "
                               "(tp x pp))",
                               job->cp, (unsigned long long)(n_gpus / mp));
        gpuplan_error_hint(err, "pick a --cp that divides the GPUs left after --tp and --pp");
        goto out;
    }
    /* Megatron-style tensor parallelism splits the attention heads evenly over the ranks
     * (Megatron-LM asserts num_attention_heads % tensor_model_parallel_size == 0). */
    if (model->arch.n_heads && job->tp > 1 && model->arch.n_heads % job->tp != 0) {
        st = gpuplan_error_set(err, GPUPLAN_ERR_USAGE, NULL,
                               "'--tp' is %u; must divide the %llu attention heads", job->tp,
                               (unsigned long long)model->arch.n_heads);
        gpuplan_error_hint(err, "pick a --tp that divides the heads, e.g. 2, 4 or 8");
        goto out;
    }
    /* Expert parallelism: whole experts over ep ranks of a pipeline stage (expert_parallel). */
    const uint32_t pp = job->pp ? job->pp : 1;
    if (job->ep > 1 && profile->n_experts == 0) {
        st = gpuplan_error_set(err, GPUPLAN_ERR_USAGE, NULL,
                               "'--ep' is %u; the model has no routed experts", job->ep);
        gpuplan_error_hint(err, "leave --ep out for training, or use --method infer");
        goto out;
    }
    if (job->ep > 1 && (profile->n_experts % job->ep != 0 || (n_gpus / pp) % job->ep != 0)) {
        st = gpuplan_error_set(err, GPUPLAN_ERR_USAGE, NULL,
                               "'--ep' is %u; must divide the %u routed experts and the %llu "
                               "GPUs of a pipeline stage (GPUs / pp)",
                               job->ep, profile->n_experts, (unsigned long long)(n_gpus / pp));
        gpuplan_error_hint(err, "leave --ep out for training, or use --method infer");
        goto out;
    }
    if (job->method != GPUPLAN_METHOD_FULL && profile->lora_params == 0) {
        st = gpuplan_error_set(err, GPUPLAN_ERR_USAGE, NULL,
                               "LoRA targets '%s' match no linear layer of '%s'", job->lora_targets,
                               model->id);
        char names[256];
        gpuplan_job_lora_module_names(model, names, sizeof names);
        gpuplan_error_hint(err, "'%s' names its linear layers %s; or use all-linear", model->id,
                           names);
        goto out;
    }
    gpuplan_memory_eval(profile, job, gpu, &out->est);
    if (gpu && !out->est.fits)
        suggest(out, profile, job, gpu);
out:
    free(profile);
    return st;
}
