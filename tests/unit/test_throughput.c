/*
 * test_throughput.c - FLOPs per token, roofline, communication, decode.
 *
 * Models are hand-built inventories (Llama-2-7B shapes), GPUs hand-filled
 * records with datasheet figures, so the expected values below are computed
 * by hand from the formulas in docs/formulas-time-cost.md.
 */
#include "test_common.h"

#include <math.h>

#include "gpuplan/gpuplan.h"
#include "gpuplan/job.h"
#include "gpuplan/throughput.h"

struct dims {
    uint64_t hidden, inter, vocab, heads, kv_heads;
    uint32_t layers, experts, top_k;
};

static void
add(struct gpuplan_model *m, enum gpuplan_role role, uint64_t out, uint64_t in, uint64_t n)
{
    struct gpuplan_tensor_group g;
    memset(&g, 0, sizeof g);
    g.role = role;
    g.layer = -1;
    g.n_dims = 2;
    g.shape[0] = out;
    g.shape[1] = in;
    g.n_tensors = n;
    g.dtype = GPUPLAN_DTYPE_BF16;
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    assert_int_equal(gpuplan_model_add(m, &g, &err), GPUPLAN_OK);
}

/* A Llama-style inventory (untied head, SwiGLU MLP; MoE when experts > 0). */
static void build(struct gpuplan_model *m, const struct dims *d)
{
    gpuplan_model_init(m);
    strcpy(m->id, "test");
    m->has_arch = true;
    m->arch.n_layers = d->layers;
    m->arch.hidden_size = d->hidden;
    m->arch.n_heads = d->heads;
    m->arch.n_kv_heads = d->kv_heads;
    m->arch.head_dim = d->hidden / d->heads;
    m->arch.intermediate_size = d->inter;
    m->arch.vocab_size = d->vocab;
    m->arch.gated_mlp = true;
    m->arch.is_moe = d->experts > 0;
    m->arch.n_experts = d->experts;
    m->arch.n_experts_per_token = d->top_k;
    const uint64_t hd = d->hidden / d->heads;
    add(m, GPUPLAN_ROLE_EMBEDDING, d->vocab, d->hidden, 1);
    add(m, GPUPLAN_ROLE_ATTN_Q, d->hidden, d->hidden, d->layers);
    add(m, GPUPLAN_ROLE_ATTN_K, d->kv_heads * hd, d->hidden, d->layers);
    add(m, GPUPLAN_ROLE_ATTN_V, d->kv_heads * hd, d->hidden, d->layers);
    add(m, GPUPLAN_ROLE_ATTN_O, d->hidden, d->hidden, d->layers);
    if (d->experts) {
        add(m, GPUPLAN_ROLE_ROUTER, d->experts, d->hidden, d->layers);
        add(m, GPUPLAN_ROLE_EXPERT_GATE, d->inter, d->hidden, (uint64_t)d->layers * d->experts);
        add(m, GPUPLAN_ROLE_EXPERT_UP, d->inter, d->hidden, (uint64_t)d->layers * d->experts);
        add(m, GPUPLAN_ROLE_EXPERT_DOWN, d->hidden, d->inter, (uint64_t)d->layers * d->experts);
    } else {
        add(m, GPUPLAN_ROLE_MLP_GATE, d->inter, d->hidden, d->layers);
        add(m, GPUPLAN_ROLE_MLP_UP, d->inter, d->hidden, d->layers);
        add(m, GPUPLAN_ROLE_MLP_DOWN, d->hidden, d->inter, d->layers);
    }
    add(m, GPUPLAN_ROLE_LM_HEAD, d->vocab, d->hidden, 1);
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    assert_int_equal(gpuplan_model_finalize(m, &err), GPUPLAN_OK);
}

static const struct dims llama2_7b = { 4096, 11008, 32000, 32, 32, 32, 0, 0 };

/* Datasheet figures: H100 SXM 989 TFLOPS bf16 dense, 3.35 TB/s, NVLink 4 900 GB/s. */
static struct gpuplan_gpu h100(void)
{
    struct gpuplan_gpu g;
    memset(&g, 0, sizeof g);
    strcpy(g.id, "h100-sxm");
    strcpy(g.architecture, "Hopper");
    strcpy(g.compute_capability, "9.0");
    g.memory_bytes = 80 * GPUPLAN_BYTES_PER_GB;
    g.memory_bandwidth_gb_per_s = 3350;
    g.bf16_tflops = g.fp16_tflops = 989;
    g.fp8_tflops = 1979;
    g.tf32_tflops = 494.5;
    g.has_bf16 = g.has_fp8 = g.has_tf32 = true;
    g.link = GPUPLAN_LINK_NVSWITCH;
    g.link_gb_per_s = 900;
    g.max_gpus_per_link_domain = 8;
    g.pcie_gen = 5;
    g.tdp_w = 700;
    return g;
}

static void job_default(struct gpuplan_job *job, uint32_t n_gpus)
{
    gpuplan_job_init(job);
    job->gpus_per_node = n_gpus;
    job->nodes = 1;
    job->seq_len = 4096;
    job->micro_batch = 2;
    job->grad_accum = 1;
    job->attention = GPUPLAN_ATTN_FLASH;
}

static double rel(double a, double b)
{
    return fabs(a - b) / fabs(b);
}

struct fixture {
    struct gpuplan_model model;
    struct gpuplan_throughput_profile profile;
    struct gpuplan_gpu gpu;
    struct gpuplan_throughput_system sys;
    double n_lin;    /* hand count of matmul params */
    double attn_fwd; /* forward attention FLOPs per token at seq 4096, causal */
};

static void setup(struct fixture *f, const struct dims *d)
{
    build(&f->model, d);
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    assert_int_equal(gpuplan_throughput_profile_build(&f->profile, &f->model, &err), GPUPLAN_OK);
    f->gpu = h100();
    gpuplan_throughput_system_init(&f->sys);
    f->sys.gpu = &f->gpu;
    const double h = (double)d->hidden, hd = h / d->heads;
    f->n_lin = d->layers * (2 * h * h + 2 * h * d->kv_heads * hd + 3 * h * d->inter) +
               (double)d->vocab * h;
    /* 2 * layers * heads * (d_qk + d_v) * seq / 2 */
    f->attn_fwd = 2.0 * d->layers * d->heads * (2 * hd) * 4096 / 2.0;
}

static void test_full_flops_6n_and_8n(void **state)
{
    (void)state;
    struct fixture f;
    setup(&f, &llama2_7b);
    assert_true(rel(f.profile.linear_params_active, f.n_lin) < 1e-12);
    struct gpuplan_job job;
    job_default(&job, 1);
    struct gpuplan_throughput t;
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    job.grad_ckpt = GPUPLAN_CKPT_NONE;
    assert_int_equal(gpuplan_throughput_eval(&f.profile, &job, &f.sys, &t, &err), GPUPLAN_OK);
    /* 6N + 3 x attention forward without recompute */
    assert_true(rel(t.flops_per_token, 6 * f.n_lin + 3 * f.attn_fwd) < 1e-12);
    assert_true(rel(t.model_flops_per_token, t.flops_per_token) < 1e-12);
    job.grad_ckpt = GPUPLAN_CKPT_FULL;
    assert_int_equal(gpuplan_throughput_eval(&f.profile, &job, &f.sys, &t, &err), GPUPLAN_OK);
    /* 8N + 4 x attention forward with full recompute; MFU still counts 6N */
    assert_true(rel(t.flops_per_token, 8 * f.n_lin + 4 * f.attn_fwd) < 1e-12);
    assert_true(rel(t.model_flops_per_token, 6 * f.n_lin + 3 * f.attn_fwd) < 1e-12);
    job.grad_ckpt = GPUPLAN_CKPT_SELECTIVE;
    assert_int_equal(gpuplan_throughput_eval(&f.profile, &job, &f.sys, &t, &err), GPUPLAN_OK);
    assert_true(rel(t.flops_per_token, 6 * f.n_lin + 4 * f.attn_fwd) < 1e-12);
    /* eager attention computes the full masked square: twice the causal context */
    job.grad_ckpt = GPUPLAN_CKPT_NONE;
    job.attention = GPUPLAN_ATTN_EAGER;
    assert_int_equal(gpuplan_throughput_eval(&f.profile, &job, &f.sys, &t, &err), GPUPLAN_OK);
    assert_true(rel(t.flops_forward_per_token, 2 * f.n_lin + 2 * f.attn_fwd) < 1e-12);
    gpuplan_model_release(&f.model);
}

static void test_lora_skips_weight_gradients(void **state)
{
    (void)state;
    struct fixture f;
    setup(&f, &llama2_7b);
    struct gpuplan_job job;
    job_default(&job, 1);
    job.method = GPUPLAN_METHOD_LORA;
    job.grad_ckpt = GPUPLAN_CKPT_NONE;
    job.lora_rank = 8;
    job.lora_target_roles = (1ULL << GPUPLAN_ROLE_ATTN_Q) | (1ULL << GPUPLAN_ROLE_ATTN_V);
    struct gpuplan_throughput t;
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    assert_int_equal(gpuplan_throughput_eval(&f.profile, &job, &f.sys, &t, &err), GPUPLAN_OK);
    /* adapters: r * (in + out) per q and v matrix, 32 layers each */
    const double adapter = 8.0 * 32 * 2 * (4096 + 4096);
    const double fwd = 2 * f.n_lin + f.attn_fwd + 2 * adapter;
    assert_true(rel(t.flops_forward_per_token, fwd) < 1e-12);
    assert_true(rel(t.flops_backward_per_token, 2 * f.n_lin + 2 * f.attn_fwd + 4 * adapter) <
                1e-12);
    /* roughly 4N instead of 6N */
    assert_true(t.flops_per_token < 0.7 * (6 * f.n_lin + 3 * f.attn_fwd));
    gpuplan_model_release(&f.model);
}

/*
 * Eager non-matmul bytes per token, forward, Llama-2-7B (h 4096, 32 heads = 32
 * KV heads, I 11008, 32 layers): 2 RMSNorms 36 h, rotary 20 (q + k), output
 * transpose 4 q, residuals 12 h, SwiGLU 10 I per layer.
 */
static double eager_bytes_7b(void)
{
    const double h = 4096, q = 4096, k = 4096, i = 11008;
    return 32 * (2 * 36 * h + 20 * (q + k) + 4 * q + 12 * h + 10 * i);
}

static void test_time_and_mfu_consistency(void **state)
{
    (void)state;
    struct fixture f;
    setup(&f, &llama2_7b);
    struct gpuplan_job job;
    job_default(&job, 1);
    job.tokens = 1000000000ULL;
    job.epochs = 2;
    struct gpuplan_throughput t;
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    f.sys.efficiency_override = 0.5;
    assert_int_equal(gpuplan_throughput_eval(&f.profile, &job, &f.sys, &t, &err), GPUPLAN_OK);
    /*
     * single GPU, compute-bound: step = FLOPs / (989e12 * 0.5) + eager non-matmul
     * traffic (forward + 2x backward) at 80 % of 3.35 TB/s + optimizer step
     */
    const double tokens = 2.0 * 4096;
    const double compute = t.flops_per_token * tokens / (989e12 * 0.5) +
                           3.0 * eager_bytes_7b() * tokens / (3350e9 * 0.8);
    assert_true(rel(t.compute_s, compute) < 1e-9);
    assert_true(t.step_time_s > compute);
    assert_true(t.step_time_s < compute * 1.3);
    assert_int_equal(t.bottleneck, GPUPLAN_BOTTLENECK_COMPUTE);
    assert_true(rel(t.tokens_per_s, tokens / t.step_time_s) < 1e-12);
    assert_true(t.mfu > 0.35 && t.mfu < 0.5);
    assert_true(t.has_train_time);
    assert_true(rel(t.train_hours, 2e9 / t.tokens_per_s / 3600.0) < 1e-12);
    assert_string_equal(gpuplan_bottleneck_name(t.bottleneck), "compute");
    gpuplan_model_release(&f.model);
}

/*
 * Compile fuses the norm / rotary / SwiGLU chains (docs/formulas-time-cost.md);
 * fp8 runs the linears at the fp8 peak and attention at the bf16 peak.
 */
static void test_compile_and_fp8_attention(void **state)
{
    (void)state;
    struct fixture f;
    setup(&f, &llama2_7b);
    struct gpuplan_job job;
    job_default(&job, 1);
    struct gpuplan_throughput eager, fused, fp8;
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    f.sys.efficiency_override = 0.5;
    assert_int_equal(gpuplan_throughput_eval(&f.profile, &job, &f.sys, &eager, &err), GPUPLAN_OK);
    job.compile = true;
    assert_int_equal(gpuplan_throughput_eval(&f.profile, &job, &f.sys, &fused, &err), GPUPLAN_OK);
    const double tokens = 2.0 * 4096, h = 4096, i = 11008;
    const double fused_bytes = 32 * (12 * h + 4 * (h + h) + 6 * i);
    assert_true(rel(eager.compute_s - fused.compute_s,
                    3.0 * (eager_bytes_7b() - fused_bytes) * tokens / (3350e9 * 0.8)) < 1e-9);
    assert_true(fused.tokens_per_s > eager.tokens_per_s);
    job.precision = GPUPLAN_PRECISION_FP8_MIXED;
    assert_int_equal(gpuplan_throughput_eval(&f.profile, &job, &f.sys, &fp8, &err), GPUPLAN_OK);
    const double attn = 3.0 * f.attn_fwd; /* forward + 2x backward, no recompute */
    const double expect = (fp8.flops_per_token - attn) * tokens / (1979e12 * 0.5) +
                          attn * tokens / (989e12 * (0.5 / 0.66)) +
                          3.0 * fused_bytes * tokens / (3350e9 * 0.8);
    assert_true(rel(fp8.compute_s, expect) < 1e-9);
    gpuplan_model_release(&f.model);
}

/* --dataset-tokens is --tokens under the dataset's name; giving both is a usage error. */
static void test_dataset_tokens(void **state)
{
    (void)state;
    struct fixture f;
    setup(&f, &llama2_7b);
    struct gpuplan_job job;
    job_default(&job, 1);
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    assert_int_equal(gpuplan_job_set(&job, "dataset-tokens", "5e8", &err), GPUPLAN_OK);
    assert_int_equal(gpuplan_job_set(&job, "epochs", "3", &err), GPUPLAN_OK);
    struct gpuplan_throughput t;
    assert_int_equal(gpuplan_throughput_eval(&f.profile, &job, &f.sys, &t, &err), GPUPLAN_OK);
    assert_true(t.has_train_time);
    assert_true(rel(t.train_tokens, 1.5e9) < 1e-12);
    assert_true(rel(t.train_hours, 1.5e9 / t.tokens_per_s / 3600.0) < 1e-12);
    assert_int_equal(gpuplan_job_set(&job, "tokens", "1e9", &err), GPUPLAN_ERR_USAGE);
    assert_non_null(strstr(err.message, "dataset-tokens"));
    struct gpuplan_job other;
    job_default(&other, 1);
    assert_int_equal(gpuplan_job_set(&other, "tokens", "1e9", &err), GPUPLAN_OK);
    assert_int_equal(gpuplan_job_set(&other, "dataset_tokens", "1e9", &err), GPUPLAN_ERR_USAGE);
    gpuplan_model_release(&f.model);
}

/* Serving jobs are the engines' step model (serving.h): the training time model refuses them. */
static void test_infer_refused(void **state)
{
    (void)state;
    struct fixture f;
    setup(&f, &llama2_7b);
    struct gpuplan_job job;
    job_default(&job, 1);
    job.method = GPUPLAN_METHOD_INFER;
    struct gpuplan_throughput t;
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    assert_int_equal(gpuplan_throughput_eval(&f.profile, &job, &f.sys, &t, &err),
                     GPUPLAN_ERR_USAGE);
    assert_non_null(strstr(err.hint, "gpuplan_serving_steady_state"));
    gpuplan_model_release(&f.model);
}

static void test_pcie_loses_to_nvlink(void **state)
{
    (void)state;
    struct fixture f;
    setup(&f, &llama2_7b);
    struct gpuplan_job job;
    job_default(&job, 8);
    job.sharding = GPUPLAN_SHARDING_FSDP;
    job.micro_batch = 1;
    struct gpuplan_throughput nv, pcie;
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    assert_int_equal(gpuplan_throughput_eval(&f.profile, &job, &f.sys, &nv, &err), GPUPLAN_OK);
    f.gpu.link = GPUPLAN_LINK_PCIE;
    assert_int_equal(gpuplan_throughput_eval(&f.profile, &job, &f.sys, &pcie, &err), GPUPLAN_OK);
    assert_true(pcie.comm_total_s > 5 * nv.comm_total_s);
    assert_true(pcie.tokens_per_s_per_gpu < nv.tokens_per_s_per_gpu);
    assert_int_equal(nv.dp, 8);
    gpuplan_model_release(&f.model);
}

static void test_moe_uses_active_params(void **state)
{
    (void)state;
    const struct dims mixtral = { 4096, 14336, 32000, 32, 8, 32, 8, 2 };
    struct fixture f;
    setup(&f, &mixtral);
    const double experts = 32.0 * 8 * 3 * 4096 * 14336;
    assert_true(rel(f.profile.linear_params_total - f.profile.linear_params_active,
                    experts * 6.0 / 8.0) < 1e-12);
    gpuplan_model_release(&f.model);
}

static void test_bad_layouts_are_errors(void **state)
{
    (void)state;
    struct fixture f;
    setup(&f, &llama2_7b);
    struct gpuplan_job job;
    job_default(&job, 8);
    job.tp = 3;
    struct gpuplan_throughput t;
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    assert_int_equal(gpuplan_throughput_eval(&f.profile, &job, &f.sys, &t, &err),
                     GPUPLAN_ERR_USAGE);
    assert_non_null(strstr(err.message, "tp * pp"));
    job.tp = 1;
    job.precision = GPUPLAN_PRECISION_FP8_MIXED;
    f.gpu.has_fp8 = false;
    assert_int_equal(gpuplan_throughput_eval(&f.profile, &job, &f.sys, &t, &err),
                     GPUPLAN_ERR_USAGE);
    f.sys.gpu = NULL;
    assert_int_equal(gpuplan_throughput_eval(&f.profile, &job, &f.sys, &t, &err),
                     GPUPLAN_ERR_USAGE);
    struct gpuplan_model empty;
    gpuplan_model_init(&empty);
    struct gpuplan_throughput_profile p;
    assert_int_equal(gpuplan_throughput_profile_build(&p, &empty, &err),
                     GPUPLAN_ERR_INVALID_CONFIG);
    gpuplan_model_release(&f.model);
}

static void test_efficiency_grows_with_size(void **state)
{
    (void)state;
    const struct gpuplan_gpu g = h100();
    const double small = gpuplan_throughput_efficiency(&g, GPUPLAN_PRECISION_BF16, 512, 2048);
    const double big = gpuplan_throughput_efficiency(&g, GPUPLAN_PRECISION_BF16, 8192, 8192);
    const double fp8 = gpuplan_throughput_efficiency(&g, GPUPLAN_PRECISION_FP8_MIXED, 8192, 8192);
    assert_true(small < big);
    assert_true(big < 1.0 && big > 0.3);
    assert_true(fp8 < big);
}

/* A small-expert MoE (64 experts, top-2, expert width 1408: DeepSeek-MoE-16B-like shapes). */
static const struct dims small_moe = { 2048, 1408, 32000, 16, 16, 24, 64, 2 };

static double
eval_tps(struct fixture *f, const struct gpuplan_job *job, struct gpuplan_throughput *t)
{
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    assert_int_equal(gpuplan_throughput_eval(&f->profile, job, &f->sys, t, &err), GPUPLAN_OK);
    return t->tokens_per_s_per_gpu;
}

/* Few tokens per expert: the per-expert loop pays launch overhead per expert; grouped does not. */
static void test_grouped_gemm_beats_loop(void **state)
{
    (void)state;
    struct fixture f;
    setup(&f, &small_moe);
    struct gpuplan_job job;
    job_default(&job, 1);
    job.seq_len = 512;
    job.micro_batch = 1;
    struct gpuplan_throughput loop, grouped;
    job.moe_experts = GPUPLAN_MOE_EXPERTS_LOOP;
    const double t_loop = eval_tps(&f, &job, &loop);
    job.moe_experts = GPUPLAN_MOE_EXPERTS_GROUPED;
    const double t_grouped = eval_tps(&f, &job, &grouped);
    assert_true(t_grouped > 1.5 * t_loop);
    /* the loop's extra time is its launches: 24 layers x 64 experts hit (512 x 2 pairs over 64
     * experts leave ~0 unhit) x 8 ops x 3 passes x 10 us = 0.369 s at most */
    const double extra = loop.step_time_s - grouped.step_time_s;
    assert_true(extra > 0.9 * 24 * 64 * 8 * 3 * 10e-6 && extra <= 24 * 64 * 8 * 3 * 10e-6 + 1e-9);
    /* many tokens per expert: the launches matter less */
    job.seq_len = 8192;
    job.micro_batch = 4;
    job.moe_experts = GPUPLAN_MOE_EXPERTS_LOOP;
    const double big_loop = eval_tps(&f, &job, &loop);
    job.moe_experts = GPUPLAN_MOE_EXPERTS_GROUPED;
    const double big_grouped = eval_tps(&f, &job, &grouped);
    assert_true(big_grouped / big_loop < t_grouped / t_loop);
    gpuplan_model_release(&f.model);
}

/* Expert parallelism: all-to-all inside a server is cheaper than across servers. */
static void test_ep_all_to_all(void **state)
{
    (void)state;
    struct fixture f;
    setup(&f, &small_moe);
    struct gpuplan_job job;
    job_default(&job, 8);
    job.nodes = 2;
    job.sharding = GPUPLAN_SHARDING_ZERO1;
    job.moe_experts = GPUPLAN_MOE_EXPERTS_GROUPED;
    job.grad_accum = 64; /* the per-micro-batch all-to-all outweighs the once-a-step reduce */
    struct gpuplan_throughput none, in_node, across;
    eval_tps(&f, &job, &none);
    job.ep = 8;
    eval_tps(&f, &job, &in_node);
    job.ep = 16;
    eval_tps(&f, &job, &across);
    assert_true(in_node.comm_total_s > 0);
    assert_true(across.comm_total_s > in_node.comm_total_s);
    /* the experts' weight reads shrink with ep: a GPU holds 1/ep of them */
    assert_true(in_node.compute_s <= none.compute_s * (1 + 1e-9));
    /* ep must divide the experts and the GPUs of a stage */
    job.ep = 3;
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    assert_int_equal(gpuplan_throughput_eval(&f.profile, &job, &f.sys, &across, &err),
                     GPUPLAN_ERR_USAGE);
    assert_non_null(strstr(err.message, "'--ep' is 3"));
    gpuplan_model_release(&f.model);
}

/* DDP's all-reduce overlaps backward: a long backward hides all but one layer's share. */
static void test_dp_reduce_hidden_by_backward(void **state)
{
    (void)state;
    struct fixture f;
    setup(&f, &llama2_7b);
    struct gpuplan_job job;
    job_default(&job, 8);
    job.sharding = GPUPLAN_SHARDING_DDP;
    job.micro_batch = 8;
    struct gpuplan_throughput t;
    eval_tps(&f, &job, &t);
    assert_true(rel(t.comm_s, t.comm_total_s / 32.0) < 1e-9);
    /* a short backward leaves the rest exposed */
    job.micro_batch = 1;
    job.seq_len = 128;
    eval_tps(&f, &job, &t);
    assert_true(t.comm_s > t.comm_total_s / 32.0 * 1.5);
    /* Megatron's distributed optimizer overlaps the parameter all-gather with forward;
     * DeepSpeed's ZeRO-1 gathers after the step */
    job.micro_batch = 8;
    job.seq_len = 4096;
    job.sharding = GPUPLAN_SHARDING_ZERO1;
    struct gpuplan_throughput ds, mega;
    job.stack = GPUPLAN_FRAMEWORK_DEEPSPEED;
    eval_tps(&f, &job, &ds);
    job.stack = GPUPLAN_FRAMEWORK_MEGATRON;
    eval_tps(&f, &job, &mega);
    assert_true(rel(ds.comm_total_s, mega.comm_total_s) < 1e-12);
    assert_true(mega.comm_s < 0.5 * ds.comm_s);
    gpuplan_model_release(&f.model);
}

/* Context parallelism: the sequence split over cp ranks, K/V passed round the ring. */
static void test_cp_ring(void **state)
{
    (void)state;
    struct fixture f;
    setup(&f, &llama2_7b);
    struct gpuplan_job job;
    job_default(&job, 2);
    job.sharding = GPUPLAN_SHARDING_DDP;
    job.micro_batch = 2;
    struct gpuplan_throughput one, two;
    eval_tps(&f, &job, &one);
    job.cp = 2;
    eval_tps(&f, &job, &two);
    /* one replica: a step trains micro_batch x grad_accum sequences */
    assert_true(two.tokens_per_step == 4096.0 * 2);
    assert_true(one.tokens_per_step == 4096.0 * 2 * 2);
    /* ring: (cp - 1) x 4096 local tokens x 8192 K/V elements x 2 B x 3 passes x 32 layers over
     * NVLink 900 / 2 x 0.8 GB/s */
    const double ring = 1.0 * 4096 * 8192 * 2 * 3 * 32 / (360.0 * GPUPLAN_BYTES_PER_GB);
    assert_true(rel(two.comm_total_s - one.comm_total_s, ring) < 1e-9);
    /* long sequences: the attention kernels outlast the ring, which hides behind them */
    job.seq_len = 65536;
    job.micro_batch = 1;
    job.cp = 1;
    eval_tps(&f, &job, &one);
    job.cp = 2;
    eval_tps(&f, &job, &two);
    assert_true(two.comm_total_s > one.comm_total_s);
    assert_true(rel(two.comm_s, one.comm_s) < 1e-9);
    /* cp must divide the data-parallel ranks */
    job.cp = 3;
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    assert_int_equal(gpuplan_throughput_eval(&f.profile, &job, &f.sys, &two, &err),
                     GPUPLAN_ERR_USAGE);
    gpuplan_model_release(&f.model);
}

/* Interleaved 1F1B: vpp virtual stages divide the bubble by vpp. */
static void test_vpp_shrinks_bubble(void **state)
{
    (void)state;
    struct fixture f;
    setup(&f, &llama2_7b);
    struct gpuplan_job job;
    job_default(&job, 4);
    job.pp = 4;
    job.micro_batch = 1;
    job.grad_accum = 8;
    struct gpuplan_throughput v1, v2;
    eval_tps(&f, &job, &v1);
    job.vpp = 2;
    eval_tps(&f, &job, &v2);
    assert_true(v2.step_time_s < v1.step_time_s);
    /* bubble 3 micro-batch slots -> 1.5, p2p 2x: the step shrinks by 1.5 slots less 8 p2p */
    const double slot = v1.compute_s / 8.0;
    const double p2p = 2.0 * 4096 * 4096 * 2 / (360.0 * GPUPLAN_BYTES_PER_GB);
    assert_true(rel(v1.step_time_s - v2.step_time_s, 1.5 * slot - 8 * p2p) < 1e-9);
    job.pp = 1;
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    assert_int_equal(gpuplan_throughput_eval(&f.profile, &job, &f.sys, &v2, &err),
                     GPUPLAN_ERR_USAGE);
    assert_non_null(strstr(err.message, "'--vpp'"));
    gpuplan_model_release(&f.model);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_full_flops_6n_and_8n),
        cmocka_unit_test(test_lora_skips_weight_gradients),
        cmocka_unit_test(test_time_and_mfu_consistency),
        cmocka_unit_test(test_compile_and_fp8_attention),
        cmocka_unit_test(test_dataset_tokens),
        cmocka_unit_test(test_infer_refused),
        cmocka_unit_test(test_pcie_loses_to_nvlink),
        cmocka_unit_test(test_moe_uses_active_params),
        cmocka_unit_test(test_bad_layouts_are_errors),
        cmocka_unit_test(test_efficiency_grows_with_size),
        cmocka_unit_test(test_grouped_gemm_beats_loop),
        cmocka_unit_test(test_ep_all_to_all),
        cmocka_unit_test(test_dp_reduce_hidden_by_backward),
        cmocka_unit_test(test_cp_ring),
        cmocka_unit_test(test_vpp_shrinks_bubble),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
