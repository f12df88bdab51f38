/*
 * throughput.c - FLOPs, step time, tokens/s, MFU and time to train. Serving
 * is the engines' step model (serving_time.c), which reads this file's
 * matmul efficiency (gpuplan_throughput_efficiency).
 *
 * Every formula states its derivation; the per-generation efficiencies are
 * the only fitted numbers and docs/formulas-time-cost.md lists what they were
 * fitted on and what they were checked on. Not here: memory fit, prices.
 */
#include "gpuplan/throughput.h"

#include <math.h>
#include <string.h>

#include "estimate/device_internal.h"
#include "gpuplan/units.h"

/*
 * Stated assumptions (not fitted):
 * - MEM_BW_EFFICIENCY: streaming kernels (copy, dequantise, optimizer step,
 *   decode GEMV) reach ~80 % of the datasheet memory bandwidth (STREAM-like
 *   copies on A100/H100 reach 80-90 %).
 * - LINK_EFFICIENCY: NCCL/RCCL bus bandwidth of large collectives is ~80 % of
 *   the per-direction link rate (nccl-tests busbw on NVSwitch and PCIe).
 * - DEFAULT_INTER_NODE_GB_PER_S: one 400 Gb/s NIC per GPU (rail-optimised HGX
 *   design) = 50 GB/s per GPU, when neither the platform nor the caller says.
 * - DEFAULT_HOST_MEMORY_GB_PER_S: a two-socket server's usable DRAM bandwidth
 *   for DeepSpeed CPUAdam-style optimizer steps (memory bound).
 * - NVME_GB_PER_S: four Gen4 NVMe drives striped, per server (ZeRO-Infinity).
 */
#define MEM_BW_EFFICIENCY            0.80
#define LINK_EFFICIENCY              0.80
#define DEFAULT_INTER_NODE_GB_PER_S  50.0
#define DEFAULT_HOST_MEMORY_GB_PER_S 100.0
#define NVME_GB_PER_S                12.0
#define ACT_BYTES                    2.0 /* bf16/fp16 activations on the wire */
/* Offloaded optimizer: 16-bit gradients down and 16-bit weights up, per parameter. */
#define OFFLOAD_PCIE_BYTES_PER_PARAM 4.0
/* CPUAdam touches fp32 master, both moments and the grad: (4 + 4 + 4) * 2 + 4 = 28 B per param. */
#define CPU_ADAM_BYTES_PER_PARAM 28.0
/* ZeRO-Infinity: fp32 master and both moments (12 B) read from NVMe and written back. */
#define NVME_BYTES_PER_PARAM 24.0
/* Eager attention's score matrix: fp32 (HF upcasts softmax), ~3 passes forward and ~6 backward. */
#define EAGER_SCORE_BYTES  4.0
#define EAGER_SCORE_PASSES 9.0
/* Without TF32 tensor cores (pre-Ampere) fp32 matmuls run on CUDA cores: a quarter of the fp16
 * tensor-core peak (assumption; V100: 15.7 fp32 against 125 fp16 tensor TFLOPS is 1/8, T4
 * alike, so this is generous to fp32). */
#define FP32_WITHOUT_TF32_SLOWDOWN 4.0
/*
 * MoE experts run as a loop (docs/formulas-time-cost.md "MoE"):
 * - EAGER_OP_OVERHEAD_S: the host-side cost of one eager PyTorch op (dispatcher and
 *   cudaLaunchKernel), ~10 us (Horace He, "Making Deep Learning Go Brrrr From First
 *   Principles", 2022, section "Overhead"): a kernel shorter than that leaves the GPU idle.
 * - LOOP_OPS_PER_EXPERT: the kernels one expert launches per layer forward in Hugging Face's
 *   eager experts loop (transformers Qwen3MoeExperts / MixtralExperts "eager" implementation,
 *   4.x *SparseMoeBlock.forward): torch.where on its mask (a nonzero, which waits for the GPU,
 *   so the host cannot run ahead), the token gather, the gate/up projection, the activation,
 *   the gate * up product, the down projection, the routing-weight multiply and index_add_: 8.
 *   Backward launches about twice as many (the 2x of the elementwise model below).
 */
#define EAGER_OP_OVERHEAD_S 10e-6
#define LOOP_OPS_PER_EXPERT 8.0

/*
 * Matmul efficiency = GEN_EFF[generation] * PRECISION factor * size factor.
 *
 * Size factor: GEMM efficiency saturates with the matrix dimensions; a
 * hyperbolic saturation in the token dimension (micro_batch * seq_len) and in
 * the hidden dimension per GPU (hidden / tp):
 *     s = T / (T + T_HALF) * h / (h + H_HALF).
 * T_HALF and H_HALF were chosen from the shape of cuBLAS GEMM curves
 * (efficiency half of peak near a 256-wide dimension on A100/H100), not
 * fitted to a row.
 *
 * GEN_EFF: fitted. For each GPU family, the median over the fit rows of the
 * constant at which the row's prediction equals its measurement (bisection
 * on the whole step model, tools/accuracy_throughput --fit), leaving out
 * upper-bound rows and rows implying > 85 % of peak; see
 * docs/formulas-time-cost.md for the rows and the leave-one-source-out check.
 * FP8_FACTOR: fitted on the two published fp8/bf16 pairs (torchtitan 8B
 * 8532/6667 on 2x peak = 0.64; NeMo 8B SFT 17246/12412 on 2x peak = 0.69):
 * median 0.66; checked on the 8 fitted Hopper fp8 rows, whose median implied
 * constant (0.54) is that of the 8 bf16 rows (0.53) within rounding.
 */
#define T_HALF_TOKENS 256.0
#define H_HALF        256.0
#define FP8_FACTOR    0.66

enum gen {
    GEN_OTHER = 0,
    GEN_VOLTA_TURING,
    GEN_AMPERE_DC,
    GEN_AMPERE_CONSUMER,
    GEN_ADA,
    GEN_HOPPER,
    GEN_BLACKWELL,
    GEN_CDNA,
    GEN_COUNT
};

static const double gen_eff[GEN_COUNT] = {
    [GEN_OTHER] = 0.40,           /* no fit rows: a stated conservative assumption */
    [GEN_VOLTA_TURING] = 0.40,    /* no fit rows: a stated conservative assumption */
    [GEN_AMPERE_DC] = 0.73,       /* fit: median of 28 rows, 8 sources (A100 40/80 GB) */
    [GEN_AMPERE_CONSUMER] = 0.73, /* GT-17/19 (A6000) imply > 100 % of peak: Ampere DC value */
    [GEN_ADA] = 0.76,             /* fit: GT-16 (RTX 4090); GT-18, GT-20 imply > 85 % */
    [GEN_HOPPER] = 0.53,          /* fit: median of 16 rows, 4 sources (H100/H200, bf16 + fp8) */
    [GEN_BLACKWELL] = 0.53, /* Hopper value; MLPerf upper bounds GT-148/149 imply <= 0.60-0.68 */
    [GEN_CDNA] = 0.53,      /* Hopper value; MLPerf upper bound GT-150 implies <= 0.65 */
};

static const char *const bottleneck_names[GPUPLAN_BOTTLENECK_COUNT] = {
    "compute",
    "memory_bandwidth",
    "communication",
    "offload",
};

const char *gpuplan_bottleneck_name(enum gpuplan_bottleneck bottleneck)
{
    if ((unsigned)bottleneck >= GPUPLAN_BOTTLENECK_COUNT)
        return "unknown";
    return bottleneck_names[bottleneck];
}

void gpuplan_throughput_system_init(struct gpuplan_throughput_system *system)
{
    memset(system, 0, sizeof *system);
}

static double max2(double a, double b)
{
    return a > b ? a : b;
}

static double min2(double a, double b)
{
    return a < b ? a : b;
}

/* ---- profile --------------------------------------------------------- */

static bool role_is_matmul(enum gpuplan_role role)
{
    return gpuplan_role_is_linear(role) || role == GPUPLAN_ROLE_LM_HEAD;
}

static void add_group(struct gpuplan_throughput_profile *p,
                      const struct gpuplan_tensor_group *g,
                      double active_scale)
{
    const enum gpuplan_role role = g->role;
    if ((unsigned)role >= GPUPLAN_ROLE_COUNT || !role_is_matmul(role) || g->n_dims < 2)
        return;
    const double out = (double)g->shape[g->n_dims - 2];
    const double in = (double)g->shape[g->n_dims - 1];
    const double params = (double)g->n_params;
    /* Matrices in the group: stacked experts [E, out, in] and n_tensors. */
    const double n_matrices = out > 0 && in > 0 ? params / (out * in) : 0.0;
    p->linear_total_by_role[role] += params;
    p->linear_active_by_role[role] += params * active_scale;
    p->lora_dims_total_by_role[role] += n_matrices * (in + out);
    p->lora_dims_by_role[role] += n_matrices * (in + out) * active_scale;
    p->lora_out_by_role[role] += n_matrices * out * active_scale;
    if (gpuplan_role_is_routed_expert(role)) {
        p->expert_params_total += params;
        p->expert_params_active += params * active_scale;
    }
}

/*
 * Forward HBM traffic of the non-matmul kernels per token and layer (bytes;
 * bf16 activations, fp32 where the reference code upcasts). Counted kernel by
 * kernel from the Hugging Face Llama modeling code (one kernel per PyTorch op
 * in eager mode), with h = hidden, q = heads * d, k = kv_heads * d, I = MLP
 * width (MoE: top-k + shared experts):
 *   RMSNorm (x.float(), pow, mean, * rsqrt, .to(bf16), * weight): 36 h, twice;
 *   rotary on q and k (* cos, rotate_half neg + cat, * sin, add): 20 (q + k);
 *   attention output transpose + contiguous: 4 q; two residual adds: 12 h;
 *   SwiGLU (silu(gate), * up): 10 I; a plain GELU MLP: 4 I.
 * LayerNorm models (no gated MLP) use F.layer_norm (one kernel, 4 h) and no
 * rotary. Fused (torch.compile, Megatron/TE): each chain is one kernel that
 * reads its inputs and writes its output once: norm + residual 6 h twice,
 * rotary 4 (q + k), SwiGLU 6 I. Backward costs ~2x the forward bytes (each op
 * reads the output gradient and its saved inputs, and writes input gradients).
 * MoE blocks add the token permutation around the experts (Megatron-Core
 * moe_utils permute / unpermute, the HF loop's index and index_add_): read
 * each token's h and write its k copies, then read the k outputs and write h
 * back, 4 (1 + k) h bytes, fused or not.
 * Check, not fit: the compile off/on pairs GT-22/23 (Llama-3.2-3B, A100) and
 * GT-151/152 (Llama-3.1-8B, H100) measure 30 and 24 us per token; this count
 * gives 17 and 16 us (the rest: launch overhead and the loss, not modelled).
 */
static void elementwise_bytes(struct gpuplan_throughput_profile *p,
                              const struct gpuplan_arch *a,
                              double head_dim)
{
    const double h = (double)a->hidden_size;
    const double q = (double)a->n_heads * head_dim;
    const double k = (double)(a->n_kv_heads ? a->n_kv_heads : a->n_heads) * head_dim;
    double mlp = (double)a->intermediate_size;
    if (a->is_moe && a->moe_intermediate_size > 0) {
        const double moe = (double)(a->n_experts_per_token + a->n_shared_experts) *
                           (double)a->moe_intermediate_size;
        const double n = a->n_layers > 0 ? (double)a->n_layers : 1.0;
        const double dense = a->n_dense_layers < a->n_layers ? (double)a->n_dense_layers : 0.0;
        mlp = (dense * (double)a->intermediate_size + (n - dense) * moe) / n;
    }
    const bool llama_style = a->gated_mlp;
    const double qk_norm = a->has_qk_norm ? 36.0 * (q + k) : 0.0;
    const double eager =
        llama_style ? 2.0 * 36.0 * h + 20.0 * (q + k) + qk_norm + 4.0 * q + 12.0 * h + 10.0 * mlp
                    : 2.0 * 4.0 * h + 4.0 * q + 12.0 * h + 4.0 * mlp;
    const double fused =
        2.0 * 6.0 * h + (llama_style ? 4.0 * (q + k) : 0.0) + (llama_style ? 6.0 : 4.0) * mlp;
    double permute = 0.0;
    if (a->is_moe && a->n_experts_per_token > 0) {
        const double moe_layers =
            a->n_dense_layers < a->n_layers ? (double)(a->n_layers - a->n_dense_layers) : 0.0;
        permute = 4.0 * (1.0 + (double)a->n_experts_per_token) * h * moe_layers;
    }
    p->elementwise_bytes_eager = eager * p->n_layers + permute;
    p->elementwise_bytes_fused = fused * p->n_layers + permute;
}

enum gpuplan_status gpuplan_throughput_profile_build(struct gpuplan_throughput_profile *profile,
                                                     const struct gpuplan_model *model,
                                                     struct gpuplan_error *err)
{
    memset(profile, 0, sizeof *profile);
    if (model->n_params_total == 0)
        return gpuplan_error_set(err, GPUPLAN_ERR_INVALID_CONFIG, model->id,
                                 "model '%s' has no parameters; cannot estimate compute",
                                 model->id);
    if (!model->has_arch || model->arch.n_layers == 0)
        return gpuplan_error_set(err, GPUPLAN_ERR_INVALID_CONFIG, model->id,
                                 "model '%s' has no architecture summary (layers, heads); "
                                 "cannot estimate attention and KV traffic",
                                 model->id);
    const struct gpuplan_arch *a = &model->arch;
    profile->n_params_total = (double)model->n_params_total;
    profile->n_params_active = (double)model->n_params_active;
    profile->n_experts = a->is_moe ? a->n_experts : 0;
    profile->n_experts_per_token = a->is_moe ? a->n_experts_per_token : 0;
    const double expert_scale = profile->n_experts > 0 && profile->n_experts_per_token > 0
                                    ? (double)profile->n_experts_per_token / profile->n_experts
                                    : 1.0;
    for (size_t i = 0; i < model->n_groups; i++) {
        const struct gpuplan_tensor_group *g = &model->groups[i];
        add_group(profile, g, gpuplan_role_is_routed_expert(g->role) ? expert_scale : 1.0);
    }
    /* A tied head multiplies by the embedding matrix: a vocab x hidden matmul per token. */
    if (a->tied_embeddings && profile->linear_total_by_role[GPUPLAN_ROLE_LM_HEAD] == 0) {
        const double emb = (double)model->params_by_role[GPUPLAN_ROLE_EMBEDDING];
        profile->linear_active_by_role[GPUPLAN_ROLE_LM_HEAD] = emb;
        profile->linear_total_by_role[GPUPLAN_ROLE_LM_HEAD] = emb;
    }
    for (int r = 0; r < GPUPLAN_ROLE_COUNT; r++) {
        profile->linear_params_active += profile->linear_active_by_role[r];
        profile->linear_params_total += profile->linear_total_by_role[r];
        if (gpuplan_role_is_linear((enum gpuplan_role)r))
            profile->linear_params_quantised += profile->linear_total_by_role[r];
    }
    profile->n_layers = a->n_layers + a->n_encoder_layers;
    if (profile->expert_params_total > 0) {
        profile->n_moe_layers =
            a->n_dense_layers < a->n_layers ? a->n_layers - a->n_dense_layers : a->n_layers;
        profile->expert_ffn_size =
            a->moe_intermediate_size ? a->moe_intermediate_size : a->intermediate_size;
    }
    profile->hidden_size = a->hidden_size;
    profile->sliding_window = a->sliding_window;
    const double heads = (double)a->n_heads;
    profile->n_heads = a->n_heads;
    double head_dim = (double)a->head_dim;
    if (head_dim == 0 && a->n_heads > 0)
        head_dim = (double)a->hidden_size / heads;
    double d_qk = head_dim;
    double d_v = head_dim;
    if (a->is_mla) {
        d_qk = (double)(a->qk_nope_head_dim + a->qk_rope_head_dim);
        d_v = (double)a->v_head_dim;
    }
    /*
     * Attention per token per context token, forward: QK^T is 2 * d_qk FLOPs
     * per head and context token, PV is 2 * d_v (Megatron-LM paper, Narayanan
     * et al. 2021, eq. 3; PaLM appendix B counts 4 * L * H * Q * T forward).
     */
    profile->attn_flops_per_ctx_token = 2.0 * profile->n_layers * heads * (d_qk + d_v);
    if (a->is_mla)
        profile->kv_elems_per_token =
            (double)a->n_layers * (double)(a->kv_lora_rank + a->qk_rope_head_dim);
    else
        profile->kv_elems_per_token = 2.0 * (double)a->n_layers *
                                      (double)(a->n_kv_heads ? a->n_kv_heads : a->n_heads) *
                                      head_dim;
    elementwise_bytes(profile, a, d_qk);
    return GPUPLAN_OK;
}

/* ---- hardware -------------------------------------------------------- */

static enum gen gpu_generation(const struct gpuplan_gpu *gpu)
{
    if (gpu->vendor == GPUPLAN_VENDOR_AMD)
        return GEN_CDNA;
    /* CUDA compute capabilities by generation (CUDA C Programming Guide, "Compute
     * Capabilities"): 7.x Volta/Turing, 8.0 A100, 8.6/8.7 consumer and embedded Ampere,
     * 8.9 Ada, 9.x Hopper, 10.x/12.x Blackwell. */
    const uint32_t major = gpu->cc_major, minor = gpu->cc_minor;
    if (major == 7)
        return GEN_VOLTA_TURING;
    if (major == 8 && minor == 0)
        return GEN_AMPERE_DC;
    if (major == 8 && (minor == 6 || minor == 7))
        return GEN_AMPERE_CONSUMER;
    if (major == 8 && minor == 9)
        return GEN_ADA;
    if (major == 9)
        return GEN_HOPPER;
    if (major == 10 || major == 12)
        return GEN_BLACKWELL;
    const char *arch = gpu->architecture;
    if (strstr(arch, "Hopper"))
        return GEN_HOPPER;
    if (strstr(arch, "Blackwell"))
        return GEN_BLACKWELL;
    if (strstr(arch, "Ada"))
        return GEN_ADA;
    if (strstr(arch, "Ampere"))
        return GEN_AMPERE_DC;
    return GEN_OTHER;
}

/* Dense peak TFLOPS for the compute precision; bf16 falls back to fp16 on GPUs without bf16. */
static double peak_tflops(const struct gpuplan_gpu *gpu, enum gpuplan_precision precision)
{
    switch (precision) {
    case GPUPLAN_PRECISION_FP8_MIXED:
        return gpu->has_fp8 ? gpu->fp8_tflops : 0.0;
    case GPUPLAN_PRECISION_FP16_MIXED:
        return gpu->fp16_tflops;
    case GPUPLAN_PRECISION_FP32:
        /* TF32 tensor cores where the GPU has them (Ampere+), else FP32_WITHOUT_TF32_SLOWDOWN. */
        return gpu->has_tf32 ? gpu->tf32_tflops : gpu->fp16_tflops / FP32_WITHOUT_TF32_SLOWDOWN;
    case GPUPLAN_PRECISION_BF16:
    case GPUPLAN_PRECISION_BF16_MIXED:
    case GPUPLAN_PRECISION_COUNT:
    default:
        return gpu->has_bf16 && gpu->bf16_tflops > 0 ? gpu->bf16_tflops : gpu->fp16_tflops;
    }
}

/* Efficiency of large GEMMs: generation, precision and the hidden size per GPU. */
static double large_gemm_efficiency(const struct gpuplan_gpu *gpu,
                                    enum gpuplan_precision precision,
                                    double hidden_per_gpu)
{
    double e = gen_eff[gpu_generation(gpu)];
    if (precision == GPUPLAN_PRECISION_FP8_MIXED)
        e *= FP8_FACTOR;
    const double h = max2(hidden_per_gpu, 1.0);
    return e * h / (h + H_HALF);
}

double gpuplan_throughput_efficiency(const struct gpuplan_gpu *gpu,
                                     enum gpuplan_precision precision,
                                     double tokens_per_micro_batch,
                                     double hidden_per_gpu)
{
    const double t = max2(tokens_per_micro_batch, 1.0);
    return large_gemm_efficiency(gpu, precision, hidden_per_gpu) * t / (t + T_HALF_TOKENS);
}

/* PCIe x16 per direction, GB/s (device_internal.h: the derivation). */
double gpuplan_pcie_gb_per_s(const struct gpuplan_gpu *gpu)
{
    const uint32_t gen = gpu->pcie_gen ? gpu->pcie_gen : 4;
    double bw = 15.75;
    for (uint32_t g = 3; g < gen && g < 7; g++)
        bw *= 2.0;
    return bw;
}

/* Per-direction bus bandwidth a collective among `n_in_node` GPUs of one server sees, GB/s. */
static double intra_node_gb_per_s(const struct gpuplan_gpu *gpu, uint32_t n_in_node)
{
    const double pcie = gpuplan_pcie_gb_per_s(gpu) * LINK_EFFICIENCY;
    switch (gpu->link) {
    case GPUPLAN_LINK_NVSWITCH:
    case GPUPLAN_LINK_INFINITY_FABRIC:
    case GPUPLAN_LINK_ETHERNET:
        if (gpu->link_gb_per_s > 0 &&
            (gpu->max_gpus_per_link_domain == 0 || n_in_node <= gpu->max_gpus_per_link_domain))
            return gpu->link_gb_per_s / 2.0 * LINK_EFFICIENCY;
        return pcie;
    case GPUPLAN_LINK_NVLINK_BRIDGE:
        /* A bridge joins pairs (or 4); a ring over more GPUs crosses PCIe. */
        if (gpu->link_gb_per_s > 0 && n_in_node <= max2(gpu->max_gpus_per_link_domain, 2))
            return gpu->link_gb_per_s / 2.0 * LINK_EFFICIENCY;
        return pcie;
    case GPUPLAN_LINK_PCIE:
    case GPUPLAN_LINK_COUNT:
    default:
        return pcie;
    }
}

static double inter_node_gb_per_s(const struct gpuplan_throughput_system *sys, uint32_t per_node)
{
    if (sys->inter_node_gb_per_s_per_gpu > 0)
        return sys->inter_node_gb_per_s_per_gpu;
    if (sys->platform && sys->platform->network_gb_per_s > 0 && per_node > 0)
        return sys->platform->network_gb_per_s / per_node * LINK_EFFICIENCY;
    return DEFAULT_INTER_NODE_GB_PER_S * LINK_EFFICIENCY;
}

/* ---- training -------------------------------------------------------- */

struct ctx {
    const struct gpuplan_throughput_profile *p;
    const struct gpuplan_job *job;
    const struct gpuplan_throughput_system *sys;
    uint32_t n_gpus, per_node, tp, pp, dp; /* dp = GPUs / (tp x pp): the gradient group */
    uint32_t cp, ep, vpp;                  /* context, expert, virtual pipeline degrees */
    double mem_bw_bytes_per_s;             /* effective */
    double achieved_flops_per_s;
    double attention_flops_per_s; /* attention runs in bf16 even under fp8 recipes */
};

static bool is_sharded_params(enum gpuplan_sharding s)
{
    return s == GPUPLAN_SHARDING_ZERO3 || s == GPUPLAN_SHARDING_FSDP ||
           s == GPUPLAN_SHARDING_FSDP_HYBRID;
}

static bool is_sharded_optimizer(enum gpuplan_sharding s)
{
    return s != GPUPLAN_SHARDING_NONE && s != GPUPLAN_SHARDING_DDP;
}

static bool is_peft(const struct gpuplan_job *job)
{
    return job->method == GPUPLAN_METHOD_LORA || job->method == GPUPLAN_METHOD_QLORA;
}

/* The LoRA target roles that exist (bits past GPUPLAN_ROLE_COUNT are no role). */
static gpuplan_role_mask target_roles(const struct gpuplan_job *job)
{
    const gpuplan_role_mask all =
        GPUPLAN_ROLE_COUNT >= 64 ? ~0ULL : (1ULL << (GPUPLAN_ROLE_COUNT % 64)) - 1;
    return job->lora_target_roles & all;
}

/* LoRA adapter parameters: rank * sum over target matrices of (in + out) (Hu et al. 2021). */
static double adapter_params(const struct gpuplan_throughput_profile *p,
                             const struct gpuplan_job *job,
                             bool active)
{
    double dims = 0;
    /* the set bits only, lowest first: the same sum in the same order as a loop over roles */
    for (gpuplan_role_mask m = target_roles(job); m; m &= m - 1) {
        const int r = __builtin_ctzll(m);
        dims += active ? p->lora_dims_by_role[r] : p->lora_dims_total_by_role[r];
    }
    return dims * (double)job->lora_rank;
}

/* Bytes per stored weight the matmuls read: compute dtype, or the QLoRA storage type. */
static double weight_bytes_per_param(const struct gpuplan_job *job)
{
    if (job->method == GPUPLAN_METHOD_QLORA)
        return gpuplan_dtype_bits(job->quant) / GPUPLAN_BITS_PER_BYTE;
    if (job->precision == GPUPLAN_PRECISION_FP32)
        return 4.0;
    return 2.0;
}

/* Gradient bytes on the wire: fp32 grads under AMP (fp32 params); bf16 for pure bf16 and
 * FSDP/ZeRO-3 reduce_dtype. */
static double grad_bytes_per_param(const struct gpuplan_job *job, enum gpuplan_sharding sharding)
{
    if (job->precision == GPUPLAN_PRECISION_BF16 || is_sharded_params(sharding))
        return 2.0;
    return 4.0;
}

/*
 * GPU optimizer step traffic per trained parameter (bytes read + written):
 * moments read and written, plus the weight update. AdamW keeps two fp32
 * moments (8 B; pure bf16 recipes keep them in bf16: 4 B), 8-bit AdamW 2 B,
 * SGD momentum and Lion one moment; Adafactor's factored moment is ~0.
 * Mixed precision: fp32 master read+write (8) + fp32 grad read (4) + bf16
 * copy written (2) = 14; pure bf16: param r/w (4) + grad (2) = 6; fp32: 12.
 */
static double optimizer_bytes_per_param(const struct gpuplan_job *job)
{
    const bool bf16_states = job->precision == GPUPLAN_PRECISION_BF16;
    double states = 0;
    switch (job->optimizer) {
    case GPUPLAN_OPTIMIZER_ADAMW:
    case GPUPLAN_OPTIMIZER_PAGED_ADAMW:
        states = bf16_states ? 4.0 : 8.0;
        break;
    case GPUPLAN_OPTIMIZER_ADAMW_8BIT:
    case GPUPLAN_OPTIMIZER_PAGED_ADAMW_8BIT:
        states = 2.0;
        break;
    case GPUPLAN_OPTIMIZER_SGD:
    case GPUPLAN_OPTIMIZER_LION:
        states = bf16_states ? 2.0 : 4.0;
        break;
    case GPUPLAN_OPTIMIZER_ADAFACTOR:
    case GPUPLAN_OPTIMIZER_COUNT:
    default:
        states = 0.0;
        break;
    }
    double weight = 14.0;
    if (job->precision == GPUPLAN_PRECISION_BF16)
        weight = 6.0;
    else if (job->precision == GPUPLAN_PRECISION_FP32)
        weight = 12.0;
    /* PEFT adapters are fp32 under mixed precision: same traffic per parameter. */
    return 2.0 * states + weight;
}

struct flops {
    double forward, attention, backward, recompute, total, model;
};

/*
 * FLOPs per trained token (one replica):
 *   forward   = 2 * linear_active + attention(ctx) + adapters
 *   backward  = 2 * forward for trained weights (input and weight gradients);
 *               frozen base weights under LoRA need input gradients only
 *               (1 * their forward), adapters 2x; attention has no weights, its
 *               backward is 2x its forward (FlashAttention-2 paper, sec. 3).
 *   recompute = full: one more forward; selective: the attention core only
 *               (Korthikanti et al. 2022, "Reducing activation recomputation").
 * Causal attention with SDPA/flash skips masked blocks: context seq/2;
 * eager computes the full square and masks it: context seq. A sliding window
 * caps the context.
 */
static struct flops train_flops(const struct gpuplan_throughput_profile *p,
                                const struct gpuplan_job *job)
{
    struct flops f = { 0 };
    double ctx = (double)job->seq_len;
    if (p->sliding_window > 0 && (double)p->sliding_window < ctx)
        ctx = (double)p->sliding_window;
    const double ctx_eff = job->attention == GPUPLAN_ATTN_EAGER ? ctx : ctx / 2.0;
    const double attn = p->attn_flops_per_ctx_token * ctx_eff;
    const double base = 2.0 * p->linear_params_active;
    const double adapters = is_peft(job) ? 2.0 * adapter_params(p, job, true) : 0.0;
    f.attention = attn;
    f.forward = base + attn + adapters;
    if (is_peft(job))
        f.backward = base + 2.0 * attn + 2.0 * adapters;
    else
        f.backward = 2.0 * (base + attn);
    if (job->grad_ckpt == GPUPLAN_CKPT_FULL)
        f.recompute = f.forward;
    else if (job->grad_ckpt == GPUPLAN_CKPT_SELECTIVE)
        f.recompute = attn;
    f.total = f.forward + f.backward + f.recompute;
    f.model = f.forward + f.backward;
    return f;
}

/* Extra HBM traffic of eager attention per token: the L x H x seq score matrix in fp32
 * (HF upcasts softmax), written and read ~3 times forward and ~6 times backward. */
static double eager_attention_bytes_per_token(const struct gpuplan_throughput_profile *p,
                                              const struct gpuplan_job *job)
{
    if (job->attention != GPUPLAN_ATTN_EAGER)
        return 0.0;
    return (double)p->n_layers * (double)p->n_heads * (double)job->seq_len * EAGER_SCORE_BYTES *
           EAGER_SCORE_PASSES;
}

/*
 * Forward non-matmul bytes per token: the block kernels (profile), plus the
 * LoRA branch of each adapted linear. PEFT in eager mode runs lora_A (reads
 * the input, 2 B per in), lora_B (writes 2 B per out), the scaling multiply
 * (reads and writes out: 4) and the add to the base output (reads two, writes
 * one: 6): 2 in + 12 out bytes; fused (torch.compile, torchtune) the scale and
 * add ride in the lora_B epilogue: 2 in + 4 out. Dropout 0 (PEFT, LLaMA-Factory
 * and torchtune defaults) launches no kernel.
 */
static double elementwise_bytes_per_token(const struct gpuplan_throughput_profile *p,
                                          const struct gpuplan_job *job)
{
    double bytes = job->compile ? p->elementwise_bytes_fused : p->elementwise_bytes_eager;
    if (!is_peft(job))
        return bytes;
    const double out_bytes = job->compile ? 4.0 : 12.0;
    for (gpuplan_role_mask m = target_roles(job); m; m &= m - 1) {
        const int r = __builtin_ctzll(m);
        const double out = p->lora_out_by_role[r];
        const double in = p->lora_dims_by_role[r] - out;
        bytes += 2.0 * in + out_bytes * out;
    }
    return bytes;
}

/* One optimizer step of training, part by part (seconds, per GPU). */
struct step_parts {
    double compute_mb;  /* one micro-batch's matmuls, attention and kernels (roofline) */
    bool weight_bound;  /* ... bound by reading the weights, not by FLOPs */
    double dequant_mb;  /* QLoRA's dequantisation of one micro-batch */
    double optimizer_s; /* the GPU optimizer step */
    double comm_mb_total, comm_mb_exposed;       /* data-parallel, per micro-batch */
    double comm_step_total, comm_step_exposed;   /* data-parallel, once per step */
    double tp_mb, pp_p2p_mb;                     /* tensor and pipeline parallel, per micro-batch */
    double attention_mb;                         /* the attention kernels' share of compute_mb */
    double ep_a2a_mb;                            /* MoE dispatch + combine all-to-all, per mb */
    double cp_ring_mb_total, cp_ring_mb_exposed; /* ring attention's K/V passes, per mb */
    double offload_mb, offload_step;             /* PCIe to host and the CPU optimizer step */
    double bubble;                               /* the pipeline's idle slots */
};

/* The trained parameters: all of this GPU's TP x PP share, and the optimizer's shard of it. */
struct trained {
    double local;    /* this GPU's TP x PP (x EP for the experts) share */
    double shard;    /* what its optimizer steps (ZeRO/FSDP: 1/dp of it; experts 1/(dp/ep)) */
    double comm;     /* local, the experts weighted by their smaller group's ring factor */
    double gathered; /* matmul weights FSDP gathers per pass, TP x PP share before the split */
};

/* Tokens of one micro-batch on one GPU: the sequences split over the cp ranks. */
static double tokens_per_rank(const struct ctx *c)
{
    return (double)c->job->micro_batch * (double)c->job->seq_len / c->cp;
}

/* Hyperbolic GEMM saturation in one dimension (the size factor above). */
static double saturation(double n, double half)
{
    const double x = max2(n, 1.0);
    return x / (x + half);
}

/*
 * Routed experts on one GPU (docs/formulas-time-cost.md "MoE"). Expert
 * parallelism (Megatron-Core's expert layout etp x ep x edp x pp = GPUs, with
 * expert tensor parallel 1, --expert-tensor-parallel-size 1 in
 * alibaba/Pai-Megatron-Patch@a098ca5 examples/deepseek_v3/run_mcore_deepseek_lite.sh) puts E / ep
 * whole experts on each of ep consecutive ranks of a pipeline stage, and each rank's tokens (its
 * 1/tp share under sequence parallelism) go to the ranks of their experts: per micro-batch a local
 * expert receives tokens_rank / tp x ep x top-k / E tokens when the router is balanced, so the
 * expert FLOPs per GPU are the dense share's, at the efficiency of GEMMs that narrow in the token
 * dimension and min(hidden, expert width) wide in the other (the size factor
 * above). Without EP (ep 1) the experts are split over tp like the dense MLP. Imbalance: the
 * slowest EP rank sets the layer's time; with N = tokens_rank x ep x top-k assignments spread
 * uniformly over ep ranks, the largest of ep binomial loads is about mean x (1 + sqrt(2 ln ep) x
 * sqrt((ep - 1) / N)) (the Gaussian tail bound on the maximum). A router that
 * learned a skew is not modelled (forced balance and converged aux-loss
 * balance are assumed).
 */
struct expert_load {
    double flops_per_token; /* expert matmul FLOPs per token, all passes */
    double rate_factor;     /* their efficiency relative to the dense GEMMs' */
    double imbalance;       /* slowest EP rank over the mean */
    double loop_s;          /* per micro-batch: host overhead of a per-expert loop */
};

static struct expert_load expert_load_of(const struct ctx *c)
{
    const struct gpuplan_throughput_profile *p = c->p;
    const struct gpuplan_job *job = c->job;
    struct expert_load e = { 0.0, 1.0, 1.0, 0.0 };
    if (p->expert_params_active <= 0 || p->n_experts == 0 || p->n_experts_per_token == 0)
        return e;
    const double rec = job->grad_ckpt == GPUPLAN_CKPT_FULL ? 1.0 : 0.0;
    const double bwd = is_peft(job) ? 1.0 : 2.0;
    e.flops_per_token = 2.0 * p->expert_params_active * (1.0 + bwd + rec);
    const double tokens = tokens_per_rank(c);
    const double n_exp = (double)p->n_experts, k = (double)p->n_experts_per_token;
    const double etp = c->ep > 1 ? 1.0 : (double)c->tp; /* expert tensor parallel */
    /* token-expert pairs the EP group routes per micro-batch */
    const double assigned = tokens / (c->ep > 1 ? c->tp : 1.0) * c->ep * k;
    const double per_expert = assigned / n_exp;
    const double h = (double)p->hidden_size;
    const double narrow = p->expert_ffn_size > 0 ? min2(h, (double)p->expert_ffn_size) : h;
    e.rate_factor = saturation(per_expert, T_HALF_TOKENS) / saturation(tokens, T_HALF_TOKENS) *
                    saturation(narrow / etp, H_HALF) / saturation(h / c->tp, H_HALF);
    if (c->ep > 1)
        e.imbalance = 1.0 + sqrt(2.0 * log((double)c->ep)) * sqrt((c->ep - 1.0) / assigned);
    if (job->moe_experts == GPUPLAN_MOE_EXPERTS_LOOP) {
        /* The local experts that receive at least one of the `assigned` pairs. */
        const double local = n_exp / c->ep;
        const double hit = local * (1.0 - pow(1.0 - 1.0 / n_exp, assigned));
        const double ops = LOOP_OPS_PER_EXPERT * (1.0 + 2.0 + rec);
        e.loop_s = (double)p->n_moe_layers / c->pp * hit * ops * EAGER_OP_OVERHEAD_S;
    }
    return e;
}

/* Routed expert weights on this GPU: 1 / (pp x ep) of them under EP, else the tp x pp share. */
static double experts_local(const struct ctx *c)
{
    const double e = c->p->expert_params_total;
    return c->ep > 1 ? e / ((double)c->pp * c->ep) : e / ((double)c->tp * c->pp);
}

/* Matmul weights on this GPU: the dense ones' tp x pp share and the local experts. */
static double linear_local(const struct ctx *c)
{
    const struct gpuplan_throughput_profile *p = c->p;
    return (p->linear_params_total - p->expert_params_total) / ((double)c->tp * c->pp) +
           experts_local(c);
}

/* Compute per micro-batch: the roofline of FLOPs against one read of the weights per pass. */
static void train_compute(const struct ctx *c, const struct flops *f, struct step_parts *s)
{
    const struct gpuplan_throughput_profile *p = c->p;
    const struct gpuplan_job *job = c->job;
    const double split = (double)c->tp * c->pp;
    const double tokens_mb = tokens_per_rank(c);
    const double bw = c->mem_bw_bytes_per_s;
    const double passes = job->grad_ckpt == GPUPLAN_CKPT_FULL ? 3.0 : 2.0;
    const double w_bytes = weight_bytes_per_param(job);
    /* Attention FLOPs (forward, backward 2x, recomputed forward) at the attention rate. */
    const double attn_total =
        f->attention * (3.0 + (job->grad_ckpt != GPUPLAN_CKPT_NONE ? 1.0 : 0.0));
    /* Routed experts at their own rate, on the slowest EP rank (expert_load_of). */
    const struct expert_load e = expert_load_of(c);
    s->attention_mb = attn_total / c->attention_flops_per_s * tokens_mb / split;
    const double t_flops =
        ((f->total - attn_total - e.flops_per_token) / c->achieved_flops_per_s +
         e.flops_per_token * e.imbalance / (c->achieved_flops_per_s * e.rate_factor)) *
            tokens_mb / split +
        s->attention_mb + e.loop_s;
    const double t_eager = eager_attention_bytes_per_token(p, job) * tokens_mb / split / bw;
    /* Non-matmul kernels: forward, backward (2x), and the recomputed forward. */
    const double elem_passes = job->grad_ckpt == GPUPLAN_CKPT_FULL ? 4.0 : 3.0;
    const double t_elem =
        elementwise_bytes_per_token(p, job) * elem_passes * tokens_mb / split / bw;
    const double t_weights = linear_local(c) * w_bytes * passes / bw;
    s->compute_mb = max2(t_flops + t_eager + t_elem, t_weights);
    s->weight_bound = t_weights > t_flops + t_eager + t_elem;
    /* QLoRA: every pass dequantises the NF4 weights to bf16 (read q bits, write 2 B). */
    if (job->method == GPUPLAN_METHOD_QLORA) {
        s->dequant_mb = p->linear_params_quantised / split * (w_bytes + 2.0) * passes / bw;
    }
}

/*
 * Data-parallel communication of `sharding` (never none with dp > 1, see
 * train_eval), over NVLink/PCIe inside a node and the network across nodes.
 * The group is every rank that holds the same weights: dp = GPUs / (tp x pp),
 * context-parallel ranks included (Megatron reduces over dp x cp, torchtitan's
 * FSDP mesh is dp_shard x cp); routed experts under EP reduce over their
 * tp x dp / ep expert-data-parallel ranks (trained.comm weights them by that
 * group's ring factor; the group is taken to see the data-parallel links).
 */
static void dp_comm(const struct ctx *c,
                    enum gpuplan_sharding sharding,
                    const struct trained *tr,
                    double fwd_mb,
                    double bwd_mb,
                    struct step_parts *s)
{
    const struct gpuplan_throughput_profile *p = c->p;
    const struct gpuplan_job *job = c->job;
    const double split = (double)c->tp * c->pp;
    const double layers = max2(p->n_layers, 1);
    const double w_bytes = weight_bytes_per_param(job);
    const uint32_t dp_in_node = c->per_node / (c->tp * c->pp) ? c->per_node / (c->tp * c->pp) : 1;
    const bool dp_spans_nodes = c->dp > dp_in_node;
    const double intra = intra_node_gb_per_s(c->sys->gpu, c->per_node) * GPUPLAN_BYTES_PER_GB;
    const double inter = inter_node_gb_per_s(c->sys, c->per_node) * GPUPLAN_BYTES_PER_GB;
    const double dp_bw = dp_spans_nodes ? min2(intra, inter) : intra;
    const double dpf = c->dp > 1 ? (double)(c->dp - 1) / c->dp : 0.0;
    const double g_bytes = grad_bytes_per_param(job, sharding);
    switch (sharding) {
    case GPUPLAN_SHARDING_DDP: {
        /* Ring all-reduce: 2 (n-1)/n of the gradient bytes, once per step, bucketed and
         * overlapped with the last micro-batch's backward. */
        const double t = 2.0 * dpf * tr->comm * g_bytes / dp_bw;
        s->comm_step_total = t;
        s->comm_step_exposed = max2(t - bwd_mb, t / layers);
        break;
    }
    case GPUPLAN_SHARDING_ZERO1: {
        /*
         * Distributed optimizer: reduce-scatter of the gradients, bucketed and
         * overlapped with the last micro-batch's backward, then all-gather of
         * the updated 16-bit weights. Megatron-Core (--overlap-param-gather,
         * which its recipes and NeMo's MegatronStrategy DDP config turn on)
         * overlaps that all-gather with the next step's first forward, one
         * bucket exposed; DeepSpeed ZeRO-1 gathers after the step, exposed.
         */
        const double rs = dpf * tr->comm * g_bytes / dp_bw;
        const double ag = dpf * tr->comm * w_bytes / dp_bw;
        s->comm_step_total = rs + ag;
        s->comm_step_exposed =
            max2(rs - bwd_mb, rs / layers) +
            (job->stack == GPUPLAN_FRAMEWORK_MEGATRON ? max2(ag - fwd_mb, ag / layers) : ag);
        break;
    }
    case GPUPLAN_SHARDING_ZERO2: {
        const double rs = dpf * tr->comm * g_bytes / dp_bw;
        s->comm_mb_total = rs;
        s->comm_mb_exposed = max2(rs - bwd_mb, rs / layers);
        const double ag = dpf * tr->comm * w_bytes / dp_bw;
        s->comm_step_total = ag;
        s->comm_step_exposed = ag;
        break;
    }
    case GPUPLAN_SHARDING_ZERO3:
    case GPUPLAN_SHARDING_FSDP:
    case GPUPLAN_SHARDING_FSDP_HYBRID: {
        /* Per micro-batch: all-gather the weights for forward and again for backward
         * (recompute runs inside the gathered unit), reduce-scatter the gradients.
         * Prefetching hides all but about one layer's transfer behind compute. */
        const bool hybrid = sharding == GPUPLAN_SHARDING_FSDP_HYBRID;
        const double group = hybrid ? min2(c->dp, dp_in_node) : c->dp;
        const double gf = group > 1 ? (group - 1) / group : 0.0;
        const double gbw = hybrid ? intra : dp_bw;
        const double gather = 2.0 * gf * tr->gathered / split * w_bytes;
        const double scatter = gf * tr->comm * g_bytes;
        const double t = (gather + scatter) / gbw;
        s->comm_mb_total = t;
        s->comm_mb_exposed = max2(t - s->compute_mb, t / layers);
        if (hybrid && c->dp > group) {
            const double replicas = (double)c->dp / group;
            const double ar =
                2.0 * (replicas - 1) / replicas * tr->comm / group * g_bytes / min2(intra, inter);
            s->comm_step_total = ar;
            s->comm_step_exposed = max2(ar - bwd_mb, ar / layers);
        }
        break;
    }
    case GPUPLAN_SHARDING_NONE:
    case GPUPLAN_SHARDING_COUNT:
    default:
        break;
    }
}

/*
 * MoE token dispatch and combine (expert parallelism, ep > 1): per MoE layer
 * and micro-batch each rank sends its tokens' hidden states to the ranks of
 * their top-k experts and gets the outputs back, an all-to-all each way,
 * (ep - 1) / ep of tokens_rank / tp x top-k x hidden x 2 B (sequence parallel:
 * each TP rank dispatches its 1/tp of the tokens; Megatron-Core
 * MoEAlltoAllTokenDispatcher, DeepEP alike). Forward, backward (the same two
 * transposed) and a full recompute's forward; not overlapped (Megatron's
 * default; its --overlap-moe-expert-parallel-comm is not modelled). The EP
 * group's ranks are consecutive (expert rank order etp-ep-edp-pp, etp 1): up
 * to GPUs-per-node of them share a server and NVLink, the rest cross the NIC,
 * each part at its own link; the slowest rank's load (expert_load_of) sets
 * the time.
 */
static double ep_all_to_all(const struct ctx *c, double intra, double inter)
{
    const struct gpuplan_throughput_profile *p = c->p;
    if (c->ep <= 1 || p->n_moe_layers == 0 || p->n_experts_per_token == 0)
        return 0.0;
    const double ep = (double)c->ep;
    const double bytes = tokens_per_rank(c) / c->tp * (double)p->n_experts_per_token *
                         (double)p->hidden_size * ACT_BYTES * (ep - 1.0) / ep;
    const double passes = 2.0 + (c->job->grad_ckpt == GPUPLAN_CKPT_FULL ? 1.0 : 0.0);
    const double n_a2a = 2.0 * passes * (double)p->n_moe_layers / c->pp;
    const double in_node = min2(ep, (double)c->per_node);
    const double off_node = ep > in_node ? (ep - in_node) / (ep - 1.0) : 0.0;
    const double one = max2(bytes * (1.0 - off_node) / intra, bytes * off_node / inter);
    return n_a2a * one * expert_load_of(c).imbalance;
}

/*
 * Ring attention (context parallelism, cp > 1; Megatron-Core / Transformer
 * Engine's p2p ring, torchtitan's context_parallel ring): each rank holds
 * seq / cp tokens (load-balanced causal chunks) and, per layer, receives the
 * K/V chunk of every other rank in cp - 1 steps: (cp - 1) x tokens_rank x
 * (K + V width) / tp x 2 B. Backward passes K/V and their gradients (2x), a
 * full recompute passes them once more. Each step's transfer runs while the
 * current chunk's attention is computed, so only the excess over the
 * attention kernels' time is exposed. The ranks are tp apart: one server
 * while tp x cp <= GPUs per node, else the NIC.
 */
static void cp_ring(const struct ctx *c, double intra, double inter, struct step_parts *s)
{
    const struct gpuplan_throughput_profile *p = c->p;
    if (c->cp <= 1)
        return;
    const double layers = max2(p->n_layers, 1);
    const double chunk = tokens_per_rank(c) * p->kv_elems_per_token / layers * ACT_BYTES / c->tp;
    const double passes = 3.0 + (c->job->grad_ckpt == GPUPLAN_CKPT_FULL ? 1.0 : 0.0);
    const double bw = (double)c->tp * c->cp <= c->per_node ? intra : min2(intra, inter);
    s->cp_ring_mb_total = (c->cp - 1.0) * chunk * passes * layers / c->pp / bw;
    s->cp_ring_mb_exposed = max2(s->cp_ring_mb_total - s->attention_mb, 0.0);
}

/*
 * Model-parallel communication per micro-batch. Tensor parallel: 2
 * all-reduces of the activations per layer forward, 2 backward, 2 more with
 * full recompute (Megatron-LM, Shoeybi et al. 2019, fig. 4); not
 * overlapped. Pipeline: activations forward and gradients back across each
 * stage boundary, vpp times with an interleaved schedule (each rank's vpp
 * model chunks are separate stages). Expert all-to-all and the context
 * ring: above.
 */
static void mp_comm(const struct ctx *c, struct step_parts *s)
{
    const struct gpuplan_throughput_profile *p = c->p;
    const struct gpuplan_job *job = c->job;
    const double tokens_mb = tokens_per_rank(c);
    const double layers = max2(p->n_layers, 1);
    const double intra = intra_node_gb_per_s(c->sys->gpu, c->per_node) * GPUPLAN_BYTES_PER_GB;
    const double inter = inter_node_gb_per_s(c->sys, c->per_node) * GPUPLAN_BYTES_PER_GB;
    if (c->tp > 1) {
        const double tp_bw = c->tp <= c->per_node ? intra : min2(intra, inter);
        const double n_ar = (job->grad_ckpt == GPUPLAN_CKPT_FULL ? 6.0 : 4.0) * layers / c->pp;
        const double bytes = tokens_mb * (double)p->hidden_size * ACT_BYTES;
        s->tp_mb = n_ar * 2.0 * (c->tp - 1) / c->tp * bytes / tp_bw;
    }
    if (c->pp > 1) {
        const double pp_bw = c->per_node >= c->tp * c->pp ? intra : min2(intra, inter);
        s->pp_p2p_mb = 2.0 * c->vpp * tokens_mb * (double)p->hidden_size * ACT_BYTES / pp_bw;
    }
    s->ep_a2a_mb = ep_all_to_all(c, intra, inter);
    cp_ring(c, intra, inter, s);
}

/*
 * Offload over PCIe, and the CPU optimizer step (memory bound on host
 * DRAM): gradients down and updated weights up (OFFLOAD_PCIE_BYTES_PER_PARAM),
 * CPUAdam's passes over master, moments and gradient
 * (CPU_ADAM_BYTES_PER_PARAM), and with NVMe the states read and written
 * back (NVME_BYTES_PER_PARAM). Offloaded parameters: each GPU's weight
 * shard goes host-to-device for forward and for backward.
 */
static void train_offload(const struct ctx *c,
                          enum gpuplan_sharding sharding,
                          const struct trained *tr,
                          struct step_parts *s)
{
    const struct gpuplan_throughput_profile *p = c->p;
    const struct gpuplan_job *job = c->job;
    const double split = (double)c->tp * c->pp;
    const double pcie = gpuplan_pcie_gb_per_s(c->sys->gpu) * LINK_EFFICIENCY * GPUPLAN_BYTES_PER_GB;
    const double host_bw = (c->sys->host_memory_gb_per_s > 0 ? c->sys->host_memory_gb_per_s
                                                             : DEFAULT_HOST_MEMORY_GB_PER_S) *
                           GPUPLAN_BYTES_PER_GB / c->per_node;
    if (job->offload != GPUPLAN_OFFLOAD_NONE) {
        s->offload_step = tr->shard * OFFLOAD_PCIE_BYTES_PER_PARAM / pcie +
                          tr->shard * CPU_ADAM_BYTES_PER_PARAM / host_bw;
        if (job->offload == GPUPLAN_OFFLOAD_NVME)
            s->offload_step += tr->shard * NVME_BYTES_PER_PARAM /
                               (NVME_GB_PER_S * GPUPLAN_BYTES_PER_GB / c->per_node);
    }
    if (job->offload == GPUPLAN_OFFLOAD_PARAMS ||
        job->offload == GPUPLAN_OFFLOAD_OPTIMIZER_PARAMS || job->offload == GPUPLAN_OFFLOAD_NVME) {
        const double shard =
            p->linear_params_total / split / (is_sharded_params(sharding) ? c->dp : 1.0);
        s->offload_mb = 2.0 * shard * weight_bytes_per_param(job) / pcie;
    }
}

/* The largest share of the step names the bottleneck (weight reads count as memory). */
static enum gpuplan_bottleneck bottleneck_of(const struct gpuplan_throughput *t, bool weight_bound)
{
    double compute_share = t->compute_s;
    double memory_share = t->memory_s;
    if (weight_bound) {
        memory_share += compute_share;
        compute_share = 0;
    }
    enum gpuplan_bottleneck b = GPUPLAN_BOTTLENECK_COMPUTE;
    double best = compute_share;
    if (memory_share > best) {
        best = memory_share;
        b = GPUPLAN_BOTTLENECK_MEMORY_BANDWIDTH;
    }
    if (t->comm_s > best) {
        best = t->comm_s;
        b = GPUPLAN_BOTTLENECK_COMMUNICATION;
    }
    if (t->offload_s > best)
        b = GPUPLAN_BOTTLENECK_OFFLOAD;
    return b;
}

/*
 * The step from its parts. Pipeline bubble: (pp - 1) micro-batch slots per
 * step (GPipe / 1F1B: bubble fraction (p - 1) / m, Narayanan et al. 2021
 * sec. 2.2), divided by vpp under the interleaved schedule (each rank's vpp
 * model chunks: bubble (p - 1) / (v m), the same paper sec. 2.2.2; its p2p
 * traffic grows vpp-fold, mp_comm). Megatron's mapping: a pipeline
 * micro-batch is --micro-batch sequences and m = --grad-accum micro-batches
 * per step (num-microbatches = GBS / (mbs * dp)); torchtitan's local batch
 * split into n micro-batches is micro_batch = local / n, grad_accum = n. A
 * step trains micro_batch x grad_accum sequences per data-parallel replica;
 * the replicas are dp / cp (the context-parallel ranks share sequences).
 */
static void step_totals(const struct ctx *c,
                        const struct flops *f,
                        struct step_parts *s,
                        struct gpuplan_throughput *out)
{
    const struct gpuplan_job *job = c->job;
    const double ga = (double)job->grad_accum;
    const double tokens_mb = (double)job->micro_batch * (double)job->seq_len;
    const double mp_mb = s->tp_mb + s->pp_p2p_mb + s->ep_a2a_mb + s->cp_ring_mb_exposed;
    const double mb_time =
        s->compute_mb + s->dequant_mb + s->comm_mb_exposed + mp_mb + s->offload_mb;
    s->bubble = c->pp > 1 ? (c->pp - 1.0) / c->vpp *
                                (s->compute_mb + s->tp_mb + s->ep_a2a_mb + s->cp_ring_mb_exposed)
                          : 0.0;
    out->compute_s = ga * s->compute_mb;
    out->memory_s = ga * s->dequant_mb + s->optimizer_s;
    out->comm_total_s =
        ga * (s->comm_mb_total + s->tp_mb + s->pp_p2p_mb + s->ep_a2a_mb + s->cp_ring_mb_total) +
        s->comm_step_total;
    out->comm_s = ga * (s->comm_mb_exposed + mp_mb) + s->comm_step_exposed + s->bubble;
    out->offload_s = ga * s->offload_mb + s->offload_step;
    out->step_time_s =
        ga * mb_time + s->bubble + s->comm_step_exposed + s->optimizer_s + s->offload_step;
    out->tokens_per_step = tokens_mb * ga * c->dp / c->cp;
    out->tokens_per_s = out->step_time_s > 0 ? out->tokens_per_step / out->step_time_s : 0.0;
    out->tokens_per_s_per_gpu = out->tokens_per_s / c->n_gpus;
    out->mfu = out->peak_tflops > 0 ? f->model * out->tokens_per_s_per_gpu /
                                          (out->peak_tflops * GPUPLAN_FLOPS_PER_TFLOP)
                                    : 0.0;
}

/* Hours to train (tokens or dataset_tokens) x epochs, when a count was given. */
static void train_time(const struct gpuplan_job *job, struct gpuplan_throughput *out)
{
    const uint64_t epoch_tokens = job->tokens > 0 ? job->tokens : job->dataset_tokens;
    if (epoch_tokens > 0 && out->tokens_per_s > 0) {
        out->has_train_time = true;
        out->train_tokens = (double)epoch_tokens * (job->epochs > 0 ? job->epochs : 1.0);
        out->train_hours = out->train_tokens / out->tokens_per_s / GPUPLAN_S_PER_HOUR;
    }
}

/*
 * The trained parameters of one GPU. Full training with expert parallelism:
 * the dense weights split over tp x pp as before, the routed experts over pp
 * x ep (whole experts, expert tensor parallel 1: experts_local); a sharded
 * optimizer divides the dense part over the dp ranks and the experts over
 * their tp x dp / ep expert-data-parallel ranks (Megatron-Core's distributed
 * optimizer shards expert states over the expert DP group), so with ZeRO-1+
 * the experts' optimizer shard per GPU is what it was without EP. PEFT
 * adapters stay in the TP x PP share (adapters on experts are not split
 * further).
 */
static struct trained trained_of(const struct ctx *c, enum gpuplan_sharding sharding)
{
    const struct gpuplan_throughput_profile *p = c->p;
    const struct gpuplan_job *job = c->job;
    const double split = (double)c->tp * c->pp;
    const bool sharded = is_sharded_optimizer(sharding);
    struct trained tr;
    if (is_peft(job)) {
        tr.local = adapter_params(p, job, false) / split;
        tr.shard = sharded ? tr.local / c->dp : tr.local;
        tr.comm = tr.local;
        tr.gathered = p->linear_params_total;
        return tr;
    }
    if (c->ep <= 1) {
        tr.local = p->n_params_total / split;
        tr.shard = sharded ? tr.local / c->dp : tr.local;
        tr.comm = tr.local;
        tr.gathered = p->linear_params_total;
        return tr;
    }
    /* expert data parallel: the ranks of a stage holding the same experts */
    const double expert = experts_local(c);
    const double dense = (p->n_params_total - p->expert_params_total) / split;
    const double edp = max2((double)c->tp * c->dp / c->ep, 1.0);
    const double dpf = c->dp > 1 ? (c->dp - 1.0) / c->dp : 0.0;
    const double edpf = (edp - 1.0) / edp;
    const double expert_ring = dpf > 0 ? edpf / dpf : 0.0;
    tr.local = dense + expert;
    tr.shard = sharded ? dense / c->dp + expert / edp : tr.local;
    tr.comm = dense + expert * expert_ring;
    /* what the gather moves, in the tp x pp units dp_comm divides by */
    tr.gathered = p->linear_params_total - p->expert_params_total + expert * split * expert_ring;
    return tr;
}

static void train_eval(struct ctx *c, struct gpuplan_throughput *out)
{
    const struct gpuplan_throughput_profile *p = c->p;
    const struct gpuplan_job *job = c->job;
    enum gpuplan_sharding sharding = job->sharding;
    if (c->dp <= 1)
        sharding = GPUPLAN_SHARDING_NONE;
    else if (sharding == GPUPLAN_SHARDING_NONE)
        sharding = GPUPLAN_SHARDING_DDP;

    const struct flops f = train_flops(p, job);
    out->flops_forward_per_token = f.forward;
    out->flops_attention_per_token = f.attention;
    out->flops_backward_per_token = f.backward;
    out->flops_recompute_per_token = f.recompute;
    out->flops_per_token = f.total;
    out->model_flops_per_token = f.model;

    struct step_parts s;
    memset(&s, 0, sizeof s);
    train_compute(c, &f, &s);
    /* trained parameters and the optimizer step */
    const struct trained tr = trained_of(c, sharding);
    s.optimizer_s = job->offload != GPUPLAN_OFFLOAD_NONE
                        ? 0.0
                        : tr.shard * optimizer_bytes_per_param(job) / c->mem_bw_bytes_per_s;
    const double fwd_mb = s.compute_mb * f.forward / max2(f.total, 1.0);
    const double bwd_mb = s.compute_mb * f.backward / max2(f.total, 1.0);
    dp_comm(c, sharding, &tr, fwd_mb, bwd_mb, &s);
    mp_comm(c, &s);
    train_offload(c, sharding, &tr, &s);
    step_totals(c, &f, &s, out);
    out->bottleneck = bottleneck_of(out, s.weight_bound);
    train_time(job, out);
}

enum gpuplan_status gpuplan_throughput_eval(const struct gpuplan_throughput_profile *profile,
                                            const struct gpuplan_job *job,
                                            const struct gpuplan_throughput_system *system,
                                            struct gpuplan_throughput *out,
                                            struct gpuplan_error *err)
{
    memset(out, 0, sizeof *out);
    const struct gpuplan_gpu *gpu = system->gpu;
    if (!gpu)
        return gpuplan_error_set(err, GPUPLAN_ERR_USAGE, NULL,
                                 "no GPU given; time and throughput need one");
    const uint32_t per_node = job->gpus_per_node ? job->gpus_per_node : 1;
    const uint32_t nodes = job->nodes ? job->nodes : 1;
    const uint32_t tp = job->tp ? job->tp : 1;
    const uint32_t pp = job->pp ? job->pp : 1;
    uint64_t n_gpus = 0, split = 0;
    if (!gpuplan_mul_u64(per_node, nodes, &n_gpus) || n_gpus > UINT32_MAX ||
        !gpuplan_mul_u64(tp, pp, &split) || n_gpus % split != 0)
        return gpuplan_error_set(err, GPUPLAN_ERR_USAGE, NULL,
                                 "GPU count %llu is not a multiple of tp * pp = %llu",
                                 (unsigned long long)n_gpus, (unsigned long long)split);
    if (job->method == GPUPLAN_METHOD_INFER) {
        gpuplan_error_set(err, GPUPLAN_ERR_USAGE, NULL,
                          "the training time model does not time serving jobs");
        gpuplan_error_hint(err, "serving time is the engines' step model "
                                "(gpuplan_serving_steady_state, serving.h)");
        return GPUPLAN_ERR_USAGE;
    }
    const uint32_t cp = job->cp ? job->cp : 1, ep = job->ep ? job->ep : 1;
    const uint32_t vpp = job->vpp ? job->vpp : 1;
    const uint64_t dp = n_gpus / split;
    if (dp % cp != 0)
        return gpuplan_error_set(err, GPUPLAN_ERR_USAGE, NULL,
                                 "'--cp' is %u; must divide the %llu data-parallel ranks (GPUs / "
                                 "(tp x pp))",
                                 cp, (unsigned long long)dp);
    if (ep > 1 && profile->n_experts == 0)
        return gpuplan_error_set(err, GPUPLAN_ERR_USAGE, NULL,
                                 "'--ep' is %u; the model has no routed experts", ep);
    if (ep > 1 && (profile->n_experts % ep != 0 || (n_gpus / pp) % ep != 0))
        return gpuplan_error_set(err, GPUPLAN_ERR_USAGE, NULL,
                                 "'--ep' is %u; must divide the %u routed experts and the %llu "
                                 "GPUs of a pipeline stage (GPUs / pp)",
                                 ep, profile->n_experts, (unsigned long long)(n_gpus / pp));
    if (vpp > 1 && pp < 2)
        return gpuplan_error_set(err, GPUPLAN_ERR_USAGE, NULL,
                                 "'--vpp' is %u; an interleaved schedule needs '--pp' >= 2", vpp);
    if (job->seq_len == 0 || job->micro_batch == 0 || job->grad_accum == 0)
        return gpuplan_error_set(err, GPUPLAN_ERR_USAGE, NULL,
                                 "'seq-len', 'micro-batch' and 'grad-accum' must be >= 1");
    const double peak = peak_tflops(gpu, job->precision);
    if (!(peak > 0) || !(gpu->memory_bandwidth_gb_per_s > 0)) {
        gpuplan_error_set(err, GPUPLAN_ERR_USAGE, gpu->id,
                          "GPU '%s' has no %s peak or memory bandwidth in the catalog", gpu->id,
                          gpuplan_precision_name(job->precision));
        gpuplan_error_hint(err, "choose another --precision, or a GPU with the figure");
        return GPUPLAN_ERR_USAGE;
    }
    struct ctx c = {
        .p = profile,
        .job = job,
        .sys = system,
        .n_gpus = (uint32_t)n_gpus,
        .per_node = per_node,
        .tp = tp,
        .pp = pp,
        .dp = (uint32_t)dp,
        .cp = cp,
        .ep = ep,
        .vpp = vpp,
        .mem_bw_bytes_per_s =
            gpu->memory_bandwidth_gb_per_s * GPUPLAN_BYTES_PER_GB * MEM_BW_EFFICIENCY,
    };
    out->dp = c.dp;
    out->tp = tp;
    out->pp = pp;
    out->peak_tflops = peak;
    const double tokens_mb = (double)job->micro_batch * (double)job->seq_len / cp;
    out->efficiency = system->efficiency_override > 0
                          ? min2(system->efficiency_override, 1.0)
                          : gpuplan_throughput_efficiency(gpu, job->precision, tokens_mb,
                                                          (double)profile->hidden_size / tp);
    out->achieved_tflops = peak * out->efficiency;
    c.achieved_flops_per_s = out->achieved_tflops * GPUPLAN_FLOPS_PER_TFLOP;
    /*
     * FP8 recipes (Transformer Engine, torchao Float8) quantise the linear
     * layers only; SDPA / FlashAttention runs in bf16 at the bf16 peak, with
     * the same generation and size factors (the efficiency without FP8_FACTOR).
     */
    c.attention_flops_per_s = c.achieved_flops_per_s;
    if (job->precision == GPUPLAN_PRECISION_FP8_MIXED) {
        const double bf16_peak = peak_tflops(gpu, GPUPLAN_PRECISION_BF16_MIXED);
        c.attention_flops_per_s =
            bf16_peak * min2(out->efficiency / FP8_FACTOR, 1.0) * GPUPLAN_FLOPS_PER_TFLOP;
    }
    train_eval(&c, out);
    return GPUPLAN_OK;
}

enum gpuplan_status gpuplan_throughput_estimate(const struct gpuplan_model *model,
                                                const struct gpuplan_job *job,
                                                const struct gpuplan_gpu *gpu,
                                                const struct gpuplan_platform *platform,
                                                struct gpuplan_throughput *out,
                                                struct gpuplan_error *err)
{
    memset(out, 0, sizeof *out);
    struct gpuplan_throughput_profile profile;
    enum gpuplan_status st = gpuplan_throughput_profile_build(&profile, model, err);
    if (st != GPUPLAN_OK)
        return st;
    struct gpuplan_throughput_system sys;
    gpuplan_throughput_system_init(&sys);
    sys.gpu = gpu;
    sys.platform = platform;
    /* The job as the memory estimate sees it (QLoRA checkpointing, DDP on > 1 GPU). */
    struct gpuplan_job resolved;
    gpuplan_job_resolve(job, &resolved);
    return gpuplan_throughput_eval(&profile, &resolved, &sys, out, err);
}
