/*
 * serving_time.c - the time of one engine step (decode, or decode plus a
 * chunk of prefill) and continuous batching in steady state.
 *
 * One step, per rank, summed over pipeline stages (a token passes them one
 * after another):
 *   max(weights touched + KV read) / (eta x HBM bandwidth,
 *       FLOPs / achieved matmul rate)                       roofline
 *   + layers x 2 all-reduces (TP): latency + bytes / link
 *   + layers x fixed per-layer cost (kernel tails and launches inside a
 *     CUDA graph; eager adds the host launch of every kernel)
 *   + MoE layers x routing/dispatch cost (+ EP all-to-all)
 *   + (pp - 1) activation hops
 * Every constant below names the published measurement it comes from;
 * LAYER_FIXED_S and MOE_LAYER_S were fitted on the TPOT rows of
 * validation/serving.csv (tools/accuracy_serving --fit prints each row's
 * implied value; docs/serving.md gives the rows and the spread).
 * Not here: memory (serving_memory.c).
 */
#include <math.h>
#include <string.h>

#include "estimate/device_internal.h"
#include "estimate/serving_internal.h"
#include "gpuplan/job.h"
#include "gpuplan/serving.h"
#include "gpuplan/throughput.h"
#include "gpuplan/units.h"

static double max2(double a, double b)
{
    return a > b ? a : b;
}

static double min2(double a, double b)
{
    return a < b ? a : b;
}

/*
 * Fraction of the datasheet HBM bandwidth decode's streaming reads reach:
 * the 0.80 gpuplan's time model states for streaming kernels
 * (src/lib/estimate/throughput.c MEM_BW_EFFICIENCY: STREAM-like copies
 * reach 80-90 % on A100/H100); an assumption, not fitted here.
 */
#define DECODE_BW_FRACTION 0.80
/* NCCL/RCCL bus bandwidth of a collective as a fraction of the link rate
 * (throughput.c LINK_EFFICIENCY, nccl-tests busbw). */
#define LINK_FRACTION 0.80
/*
 * Small-message all-reduce latency per doubling of the group: 6 us for 2
 * H100 on NVSwitch, NCCL 2.20.5 NVLS, inside CUDA graphs, 128 B-64 KB
 * (NVIDIA/nccl#1259, 2024-04-22). Tree and recursive-doubling algorithms
 * take log2(n) steps, so 8 GPUs cost 3 steps.
 */
#define AR_NVLINK_STEP_S 6e-6
/* PCIe (no NVLink): 15 us per doubling, gpuplan's stated small-message latency (an
 * assumption; latency.md: 6 us for 2 GPUs in graphs to a few tens of us for 8 without). */
#define AR_PCIE_STEP_S 15e-6
/* Across nodes: 46-48 us for 4 B-1 KB over IB NDR + NVLS, 16 GPUs (NVIDIA/nccl#1244,
 * 2024-04-09); used flat. */
#define AR_INTERNODE_S 46e-6
/* One rail-optimised 400 Gb/s NIC per GPU (throughput.c DEFAULT_INTER_NODE_GB_PER_S). */
#define INTERNODE_GB_PER_S 50.0
/* Pipeline hop: NCCL send/recv of a small activation, 3.7 us on 4 x H800 NVLink
 * (NVIDIA/nccl#1984, 2026-01-17); across nodes the inter-node latency. */
#define PP_HOP_NVLINK_S 3.7e-6
/*
 * Eager mode launches every kernel from Python: Qwen2.5-Omni-7B's thinker
 * (28 layers) TPOT 22 ms eager vs 13 ms with CUDA graphs on A800
 * (vllm-project/vllm-omni#7960, 2026-09-22): 0.32 ms per layer.
 */
#define EAGER_LAYER_S 3.2e-4
/*
 * Fixed cost per decoder layer inside a CUDA graph: the ~10 small kernels of
 * a layer (norms, rotary, attention, activation, residuals) run for a few
 * microseconds each regardless of bytes. Fitted: median of the implied
 * per-layer cost of the four dense single-user TPOT rows (tools/accuracy_serving
 * --fit): SV-L01 51.6, SV-L03 58.6, SV-L05 40.7, SV-L11 43.0 us (three sources:
 * NIM on H100, vLLM on H100, ROCm vLLM on MI300X) -> 47 us.
 */
#define LAYER_FIXED_S 4.7e-5
/*
 * Extra per MoE layer: routing (top-k softmax, token sort/align), the grouped
 * expert GEMMs' launch tails and the combine. Fitted: median over the four MoE
 * TPOT rows, DeepSeek-R1 on 8 x H100 vLLM (SV-L07, 170 us), 16 x H100 SGLang
 * (SV-L08, 229 us), 8 x H200 SGLang 0.5.7 at concurrency 8 and 64 (SV-L09/L10,
 * 32 and 136 us) -> 153 us. The spread is the engines': 2026 SGLang is 2-5x
 * leaner per MoE layer than 2025 vLLM.
 */
#define MOE_LAYER_S 1.53e-4
/* A token count at which gpuplan_throughput_efficiency() has saturated (its size factor is
 * T / (T + 256)): the large-GEMM rate decode's FLOPs are charged at. */
#define LARGE_GEMM_TOKENS 1e9
/* Activations on the wire: bf16. */
#define ACT_BYTES 2.0

static uint32_t log2_ceil(uint32_t n)
{
    uint32_t s = 0;
    while ((1u << s) < n && s < 31)
        s++;
    return s;
}

static bool spans_nodes(const struct gpuplan_gpu *gpu, uint32_t n)
{
    const uint32_t domain = gpu->max_gpus_per_link_domain ? gpu->max_gpus_per_link_domain : 8;
    return n > domain;
}

static bool has_fabric(const struct gpuplan_gpu *gpu)
{
    return gpu->link == GPUPLAN_LINK_NVSWITCH || gpu->link == GPUPLAN_LINK_INFINITY_FABRIC ||
           gpu->link == GPUPLAN_LINK_NVLINK_BRIDGE || gpu->link == GPUPLAN_LINK_ETHERNET;
}

/* One all-reduce of `bytes` among `n` GPUs: latency plus 2 (n - 1) / n of the bytes. */
static double allreduce_s(const struct gpuplan_gpu *gpu, uint32_t n, double bytes)
{
    if (n <= 1)
        return 0.0;
    double lat, bw_gb;
    if (spans_nodes(gpu, n)) {
        lat = AR_INTERNODE_S;
        bw_gb = INTERNODE_GB_PER_S;
    } else if (has_fabric(gpu) && gpu->link_gb_per_s > 0) {
        lat = AR_NVLINK_STEP_S * log2_ceil(n);
        bw_gb = gpu->link_gb_per_s / 2.0 * LINK_FRACTION;
    } else {
        lat = AR_PCIE_STEP_S * log2_ceil(n);
        bw_gb = gpuplan_pcie_gb_per_s(gpu) * LINK_FRACTION;
    }
    return lat + 2.0 * (double)(n - 1) / (double)n * bytes / (bw_gb * GPUPLAN_BYTES_PER_GB);
}

static double hop_s(const struct gpuplan_gpu *gpu, uint32_t tp, uint32_t pp, double bytes)
{
    if (pp <= 1)
        return 0.0;
    const bool cross = spans_nodes(gpu, tp * pp);
    const double lat = cross ? AR_INTERNODE_S : PP_HOP_NVLINK_S;
    const double bw = cross ? INTERNODE_GB_PER_S
                            : (has_fabric(gpu) && gpu->link_gb_per_s > 0
                                   ? gpu->link_gb_per_s / 2.0 * LINK_FRACTION
                                   : gpuplan_pcie_gb_per_s(gpu) * LINK_FRACTION);
    return lat + bytes / (bw * GPUPLAN_BYTES_PER_GB);
}

/* A checkpoint stores its linears in fp8 when they take one byte per parameter. */
bool gpuplan_serving_profile_stored_fp8(const struct gpuplan_serving_profile *p)
{
    const struct gpuplan_serving_block *b = p->n_dense_layers ? &p->dense_block : &p->moe_block;
    const uint64_t n = b->linear_params[GPUPLAN_SERVING_W_ATTN_TP];
    return n > 0 && b->linear_bytes[GPUPLAN_SERVING_W_ATTN_TP] == n;
}

/* The compute precision of the linears: fp8 weights run fp8 GEMMs where the GPU has them. */
static enum gpuplan_precision compute_precision(const struct gpuplan_serving_profile *p,
                                                const struct gpuplan_serving_request *req,
                                                const struct gpuplan_gpu *gpu)
{
    const bool fp8 = req->weights_dtype == GPUPLAN_DTYPE_UNKNOWN
                         ? gpuplan_serving_profile_stored_fp8(p)
                         : req->weights_dtype == GPUPLAN_DTYPE_F8_E4M3 ||
                               req->weights_dtype == GPUPLAN_DTYPE_F8_E5M2;
    return fp8 && gpu->has_fp8 ? GPUPLAN_PRECISION_FP8_MIXED : GPUPLAN_PRECISION_BF16;
}

static double peak_flops(const struct gpuplan_gpu *gpu, enum gpuplan_precision prec)
{
    double t = prec == GPUPLAN_PRECISION_FP8_MIXED ? gpu->fp8_tflops : gpu->bf16_tflops;
    if (t <= 0)
        t = gpu->fp16_tflops;
    return t * GPUPLAN_FLOPS_PER_TFLOP;
}

/* Weight bytes one rank reads for one token of every sequence, all its stages' layers
 * summed (the whole model / tp): MoE experts touched by `tokens` routed tokens. */
static double weights_read_bytes(const struct gpuplan_serving_profile *p,
                                 const struct serving_layout *l,
                                 enum gpuplan_dtype wd,
                                 double tokens)
{
    double bytes = (double)p->n_dense_layers * (serving_block_rank_bytes(p, l, wd, false, false) +
                                                serving_block_rank_bytes(p, l, wd, false, true));
    if (p->n_moe_layers > 0) {
        double frac = 1.0;
        if (p->n_experts > 0 && p->n_experts_per_token > 0)
            frac = 1.0 - pow(1.0 - (double)p->n_experts_per_token / (double)p->n_experts, tokens);
        bytes += (double)p->n_moe_layers * (serving_block_rank_bytes(p, l, wd, true, false) +
                                            frac * serving_block_rank_bytes(p, l, wd, true, true));
    }
    const double pad = p->vocab ? (double)serving_padded_vocab(p->vocab) / (double)p->vocab : 1.0;
    const double head = p->tied_embeddings ? (double)p->embed_bytes : (double)p->head_bytes;
    return bytes + head * pad / (double)l->tp;
}

/* KV bytes one rank reads for `n_seq` sequences at `ctx` tokens (windows cap sliding layers). */
static double kv_read_bytes(const struct gpuplan_serving_profile *p,
                            const struct serving_layout *l,
                            double elem,
                            double n_seq,
                            double ctx)
{
    const double tl = (double)serving_kv_token_layer_bytes(p, l, elem);
    double total = 0.0;
    for (int k = 0; k < GPUPLAN_SERVING_ATTN_COUNT; k++) {
        const double w = (double)p->window_tokens[k];
        const double span = k == GPUPLAN_SERVING_ATTN_FULL || w <= 0 ? ctx : min2(ctx, w);
        total += (double)p->n_attn_layers[k] * span;
    }
    return n_seq * total * tl;
}

enum gpuplan_status gpuplan_serving_step_time(const struct gpuplan_serving_profile *p,
                                              const struct gpuplan_serving_request *req,
                                              const struct gpuplan_gpu *gpu,
                                              uint64_t n_decode,
                                              uint64_t context_tokens,
                                              uint64_t n_prefill_tokens,
                                              struct gpuplan_serving_step *out,
                                              struct gpuplan_error *err)
{
    memset(out, 0, sizeof *out);
    if (!gpu)
        return gpuplan_error_set(err, GPUPLAN_ERR_USAGE, "gpu",
                                 "no GPU given; step time needs its bandwidth and FLOPs");
    if (gpu->memory_bandwidth_gb_per_s <= 0)
        return gpuplan_error_set(err, GPUPLAN_ERR_USAGE, "gpu",
                                 "GPU '%s' has no memory bandwidth in the catalog", gpu->id);
    struct serving_layout l;
    enum gpuplan_status st = serving_layout_resolve(p, req, &l, err);
    if (st)
        return st;
    const enum gpuplan_precision prec = compute_precision(p, req, gpu);
    const double peak = peak_flops(gpu, prec);
    if (peak <= 0)
        return gpuplan_error_set(err, GPUPLAN_ERR_USAGE, "gpu",
                                 "GPU '%s' has no 16-bit peak in the catalog", gpu->id);
    const double b = (double)n_decode, pre = (double)n_prefill_tokens, tokens = b + pre;
    const double ctx = (double)context_tokens;
    const double elem = serving_kv_elem_bytes(p, req->kv_dtype, NULL);
    const double bw = gpu->memory_bandwidth_gb_per_s * GPUPLAN_BYTES_PER_GB * DECODE_BW_FRACTION;
    const double tp = (double)l.tp;
    const double layers = (double)p->n_layers;

    out->tp = l.tp;
    out->pp = l.pp;
    out->weight_bytes = weights_read_bytes(p, &l, req->weights_dtype, max2(tokens, 1.0));
    out->kv_bytes = kv_read_bytes(p, &l, elem, b, ctx) + kv_read_bytes(p, &l, elem, 1.0, pre);
    out->weights_s = out->weight_bytes / bw;
    out->kv_s = out->kv_bytes / bw;
    /* FLOPs: 2 x active parameters per token (split by TP) + attention QK^T and PV over the
     * context: 4 x heads x head_dim per context token per layer (prefill: causal, half).
     * The roofline's max() already charges thin GEMMs their weight reads, so all FLOPs run at
     * the large-GEMM rate (as throughput.c's decode does). */
    const double heads = (double)p->n_heads / tp;
    const double attn_per_ctx = 2.0 * heads * (double)(p->q_head_dim + p->v_head_dim) * layers;
    const double lin = 2.0 * (double)p->active_params / tp;
    out->flops = lin * tokens + attn_per_ctx * b * ctx + attn_per_ctx * pre * (ctx + pre / 2.0);
    const double eff =
        gpuplan_throughput_efficiency(gpu, prec, LARGE_GEMM_TOKENS, (double)p->hidden / tp);
    out->compute_s = out->flops / (peak * eff);
    const double ar_bytes = max2(tokens, 1.0) * (double)p->hidden * ACT_BYTES;
    out->allreduce_s = layers * 2.0 * allreduce_s(gpu, l.tp, ar_bytes);
    const double layer_fixed = req->layer_fixed_s > 0 ? req->layer_fixed_s : LAYER_FIXED_S;
    const double moe_layer = req->moe_layer_s > 0 ? req->moe_layer_s : MOE_LAYER_S;
    out->layer_overhead_s = layers * (layer_fixed + (req->enforce_eager ? EAGER_LAYER_S : 0.0));
    if (p->n_moe_layers > 0) {
        const double a2a =
            l.ep > 1 ? 2.0 * allreduce_s(gpu, l.ep, ar_bytes * (double)p->n_experts_per_token)
                     : 0.0;
        out->moe_s = (double)p->n_moe_layers * (moe_layer + a2a);
    }
    out->pipeline_hop_s = (double)(l.pp - 1) * hop_s(gpu, l.tp, l.pp, ar_bytes);
    out->step_s = max2(out->weights_s + out->kv_s, out->compute_s) + out->allreduce_s +
                  out->layer_overhead_s + out->moe_s + out->pipeline_hop_s;
    return GPUPLAN_OK;
}

/*
 * Steady state of a closed loop of `concurrency` requests (vLLM V1 and
 * SGLang both mix prefill chunks into decode steps). A request's decode
 * steps carry one token of every running request at the mean context
 * (input + output / 2) and the other requests' prompt chunks: (C - 1) x
 * input / output tokens per step (what keeps C - 1 others cycling), capped
 * by the token budget. Its TTFT is its prompt in chunks of what the budget
 * leaves beside the decodes. Throughput is the cycle: C x output /
 * (TTFT + (output - 1) x TPOT). With PP the requests split into pp
 * micro-batches in flight; each user still waits a full pass per token.
 */
enum gpuplan_status gpuplan_serving_steady_state(const struct gpuplan_serving_profile *p,
                                                 const struct gpuplan_serving_request *req,
                                                 const struct gpuplan_gpu *gpu,
                                                 const struct gpuplan_serving_memory *mem,
                                                 const struct gpuplan_serving_load *load,
                                                 struct gpuplan_serving_steady *out,
                                                 struct gpuplan_error *err)
{
    memset(out, 0, sizeof *out);
    if (!mem || !load || load->output_tokens == 0 || load->concurrency == 0)
        return gpuplan_error_set(err, GPUPLAN_ERR_USAGE, "load",
                                 "a steady state needs output_tokens >= 1 and concurrency >= 1");
    const double in = (double)load->input_tokens, outt = (double)load->output_tokens;
    const double mean_ctx = in + outt / 2.0;
    double c = (double)load->concurrency;
    if (mem->max_num_seqs > 0)
        c = min2(c, (double)mem->max_num_seqs);
    const double fit = mean_ctx > 0 ? floor((double)mem->kv_capacity_tokens / mean_ctx) : c;
    if (fit < c) {
        out->capped_by_kv = true;
        c = fit;
    }
    if (c < 1.0)
        return gpuplan_error_set(err, GPUPLAN_ERR_USAGE, "load",
                                 "the KV pool holds no request of %llu tokens",
                                 (unsigned long long)(load->input_tokens + load->output_tokens));
    out->concurrency = (uint64_t)c;
    const double budget =
        (double)(mem->max_num_batched_tokens ? mem->max_num_batched_tokens : 8192);
    const uint32_t pp = mem->pp ? mem->pp : 1;
    const double micro = pp > 1 && c >= pp ? ceil(c / pp) : c;
    const double others = min2((c - 1.0) * in / outt, max2(budget - micro, 0.0)) * micro / c;
    struct gpuplan_serving_step step;
    enum gpuplan_status st = gpuplan_serving_step_time(
        p, req, gpu, (uint64_t)micro, (uint64_t)mean_ctx, (uint64_t)others, &step, err);
    if (st)
        return st;
    out->step_s = step.step_s;
    out->tpot_s = step.step_s;
    out->tokens_per_s_per_user = 1.0 / out->tpot_s;
    /* TTFT: the prompt's chunks, each a mixed step with the other running decodes. */
    const double chunk = max2(min2(in, budget - (micro - 1.0)), 1.0);
    const double n_chunks = in > 0 ? ceil(in / chunk) : 0.0;
    struct gpuplan_serving_step first;
    st = gpuplan_serving_step_time(p, req, gpu, (uint64_t)(micro - 1.0), (uint64_t)mean_ctx,
                                   (uint64_t)chunk, &first, err);
    if (st)
        return st;
    out->ttft_s = n_chunks * first.step_s;
    const double cycle_s = out->ttft_s + (outt - 1.0) * out->tpot_s;
    out->output_tokens_per_s = cycle_s > 0 ? c * outt / cycle_s : 0.0;
    out->output_tokens_per_s_per_gpu = out->output_tokens_per_s / (double)(mem->tp * pp);
    out->requests_per_s = out->output_tokens_per_s / outt;
    return GPUPLAN_OK;
}

/*
 * Disaggregated prefill/decode (docs/serving.md, "Disaggregated"): a
 * prefill instance runs each prompt alone, in chunks of the token budget
 * (the chunks' attention at the prompt's mean context), and sends the
 * prompt's KV cache to a decode instance in another server: every rank its
 * share, over one 400 Gb/s NIC per GPU (INTERNODE_GB_PER_S, as the
 * all-reduce across nodes) after the inter-node latency. Prompts shorter
 * than the budget are batched into one step. A decode instance runs pure
 * decode steps of its requests at the mean context, with the pipeline
 * micro-batches of the aggregated steady state.
 */
enum gpuplan_status gpuplan_serving_disaggregated(const struct gpuplan_serving_profile *p,
                                                  const struct gpuplan_serving_request *req,
                                                  const struct gpuplan_gpu *gpu,
                                                  const struct gpuplan_serving_memory *mem,
                                                  const struct gpuplan_serving_load *load,
                                                  struct gpuplan_serving_disagg *out,
                                                  struct gpuplan_error *err)
{
    memset(out, 0, sizeof *out);
    if (!mem || !load || load->input_tokens == 0 || load->output_tokens == 0 ||
        load->concurrency == 0)
        return gpuplan_error_set(err, GPUPLAN_ERR_USAGE, "load",
                                 "a disaggregated estimate needs input and output tokens and a "
                                 "concurrency >= 1");
    const double in = (double)load->input_tokens, outt = (double)load->output_tokens;
    const double budget =
        (double)(mem->max_num_batched_tokens ? mem->max_num_batched_tokens : 8192);
    const double chunk = min2(in, budget);
    const double n_chunks = ceil(in / chunk);
    struct gpuplan_serving_step step;
    enum gpuplan_status st = gpuplan_serving_step_time(
        p, req, gpu, 0, (uint64_t)((in - chunk) / 2.0), (uint64_t)chunk, &step, err);
    if (st)
        return st;
    out->prefill_s = n_chunks * step.step_s;
    const double per_step = in < budget ? floor(budget / in) : 1.0;
    if (per_step > 1.0) {
        st = gpuplan_serving_step_time(p, req, gpu, 0, 0, (uint64_t)(per_step * in), &step, err);
        if (st)
            return st;
        out->prefill_tokens_per_s = per_step * in / step.step_s;
    } else {
        out->prefill_tokens_per_s = in / out->prefill_s;
    }
    const double kv_bytes = (double)mem->kv_bytes_per_token * in;
    out->kv_transfer_s =
        AR_INTERNODE_S + kv_bytes / (INTERNODE_GB_PER_S * LINK_FRACTION * GPUPLAN_BYTES_PER_GB);
    out->ttft_s = out->prefill_s + out->kv_transfer_s;
    const double mean_ctx = in + outt / 2.0;
    double c = (double)load->concurrency;
    if (mem->max_num_seqs > 0)
        c = min2(c, (double)mem->max_num_seqs);
    c = min2(c, floor((double)mem->kv_capacity_tokens / mean_ctx));
    if (c < 1.0)
        return gpuplan_error_set(err, GPUPLAN_ERR_USAGE, "load",
                                 "the KV pool holds no request of %llu tokens",
                                 (unsigned long long)(load->input_tokens + load->output_tokens));
    out->decode_concurrency = (uint64_t)c;
    const uint32_t pp = mem->pp ? mem->pp : 1;
    const double micro = pp > 1 && c >= pp ? ceil(c / pp) : c;
    st = gpuplan_serving_step_time(p, req, gpu, (uint64_t)micro, (uint64_t)mean_ctx, 0, &step, err);
    if (st)
        return st;
    out->tpot_s = step.step_s;
    out->decode_requests_per_s = c / (max2(outt - 1.0, 1.0) * out->tpot_s);
    return GPUPLAN_OK;
}
