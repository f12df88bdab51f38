/*
 * test_memory_model.c - hand-computed memory cases and monotonicity checks
 * on the fixture configs (Llama 3.1 8B/70B, DeepSeek-V3, Mixtral).
 */
#include "test_common.h"

#include <math.h>

#include "estimate/memory_internal.h"
#include "gpuplan/estimate.h"
#include "gpuplan/gpuplan.h"

#define P_LLAMA_8B 8030261248ULL

static void load(struct gpuplan_model *m, const char *name)
{
    char rel[256];
    snprintf(rel, sizeof rel, "hf-configs/%s.json", name);
    size_t len = 0;
    uint8_t *bytes = read_file(fixture_path(rel), &len);
    assert_non_null(bytes);
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    gpuplan_model_init(m);
    assert_int_equal(gpuplan_model_from_hf_config(m, bytes, len, name, &err), GPUPLAN_OK);
    free(bytes);
}

static void eval(const struct gpuplan_model *m,
                 const struct gpuplan_job *job,
                 const struct gpuplan_gpu *gpu,
                 struct gpuplan_memory_estimate *out)
{
    struct gpuplan_memory_profile p;
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    assert_int_equal(
        gpuplan_memory_profile_build(&p, m, job->lora_target_roles, job->lora_rank, &err),
        GPUPLAN_OK);
    gpuplan_memory_eval(&p, job, gpu, out);
}

static void set(struct gpuplan_job *job, const char *name, const char *value)
{
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    assert_int_equal(gpuplan_job_set(job, name, value, &err), GPUPLAN_OK);
}

/* A fresh job from "name=value name=value ..." (the CLI's options without "--"). */
static void job_of(struct gpuplan_job *job, const char *spec)
{
    gpuplan_job_init(job);
    char copy[512];
    assert_true(strlen(spec) < sizeof copy);
    snprintf(copy, sizeof copy, "%s", spec);
    char *save = NULL;
    for (char *kv = strtok_r(copy, " ", &save); kv; kv = strtok_r(NULL, " ", &save)) {
        char *eq = strchr(kv, '=');
        assert_non_null(eq);
        *eq = '\0';
        set(job, kv, eq + 1);
    }
}

/*
 * Full bf16-mixed AdamW on one GPU is torch AMP (HF Trainer): fp32 params 4P
 * (the master) + autocast's bf16 cast cache of the linear weights 2 B each,
 * fp32 grads 4P, Adam 8P. Under DeepSpeed (zero2) it is 16-bit params + fp32
 * master: 6P of weights, the 18 B/param rule.
 */
static void test_full_mixed_adamw_states(void **state)
{
    (void)state;
    struct gpuplan_model m;
    load(&m, "llama-3.1-8b");
    assert_int_equal(m.n_params_total, P_LLAMA_8B);
    struct gpuplan_job job;
    gpuplan_job_init(&job);
    struct gpuplan_memory_profile prof;
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    assert_int_equal(gpuplan_memory_profile_build(&prof, &m, 0, 8, &err), GPUPLAN_OK);
    assert_true(prof.linear_params > P_LLAMA_8B / 2 && prof.linear_params < P_LLAMA_8B);
    struct gpuplan_memory_estimate e;
    eval(&m, &job, NULL, &e);
    assert_int_equal(e.per_gpu.weights_bytes, 4 * P_LLAMA_8B + 2 * prof.linear_params);
    assert_int_equal(e.per_gpu.gradients_bytes, 4 * P_LLAMA_8B);
    assert_int_equal(e.per_gpu.optimizer_bytes, 8 * P_LLAMA_8B);
    assert_false(e.has_gpu);
    /* DeepSpeed ZeRO-2 on 1 GPU (shard 1): 2 + 4 master, 4, 8. */
    set(&job, "sharding", "zero2");
    eval(&m, &job, NULL, &e);
    assert_int_equal(e.per_gpu.weights_bytes, 6 * P_LLAMA_8B);
    assert_int_equal(e.per_gpu.gradients_bytes, 4 * P_LLAMA_8B);
    assert_int_equal(e.per_gpu.optimizer_bytes, 8 * P_LLAMA_8B);
    set(&job, "sharding", "none");
    /* pure bf16: 2 + 2 + 4 */
    set(&job, "precision", "bf16");
    eval(&m, &job, NULL, &e);
    assert_int_equal(e.per_gpu.weights_bytes, 2 * P_LLAMA_8B);
    assert_int_equal(e.per_gpu.gradients_bytes, 2 * P_LLAMA_8B);
    assert_int_equal(e.per_gpu.optimizer_bytes, 4 * P_LLAMA_8B);
    gpuplan_model_release(&m);
}

static double gbd(uint64_t b)
{
    return (double)b;
}

/*
 * amp-bf16 under FSDP: no MixedPrecision policy, so units are gathered in
 * fp32 (twice bf16-mixed's gathered bytes) and the residual stream is fp32;
 * the shards hold fp32 params only (no separate master).
 */
static void test_amp_bf16_fsdp(void **state)
{
    (void)state;
    struct gpuplan_model m;
    load(&m, "llama-3.1-8b");
    struct gpuplan_job job;
    gpuplan_job_init(&job);
    set(&job, "sharding", "fsdp");
    set(&job, "gpu", "none:8");
    set(&job, "grad-ckpt", "full");
    set(&job, "seq-len", "4096");
    struct gpuplan_memory_estimate mixed, amp;
    eval(&m, &job, NULL, &mixed);
    set(&job, "precision", "amp-bf16");
    eval(&m, &job, NULL, &amp);
    const double P = (double)P_LLAMA_8B;
    /* FSDP MixedPrecision: fp32 shards only; the bf16 copies exist while gathered. */
    const double gathered_mixed = gbd(mixed.per_gpu.weights_bytes) - 4.0 * P / 8.0;
    const double gathered_amp = gbd(amp.per_gpu.weights_bytes) - 4.0 * P / 8.0;
    assert_true(gathered_mixed > 0.0);
    assert_true(fabs(gathered_amp - 2.0 * gathered_mixed) < 16.0);
    assert_true(amp.per_gpu.activations_bytes > mixed.per_gpu.activations_bytes);
    /* Sharded fp32 grads alike; the root unit's unsharded gradient (embedding, head, final
     * norm: 2 x 128256 x 4096 + 4096) is fp32 instead of bf16. */
    const double root = 2.0 * 128256.0 * 4096.0 + 4096.0;
    assert_true(fabs(((double)amp.per_gpu.gradients_bytes - (double)mixed.per_gpu.gradients_bytes) -
                     2.0 * root) < 16.0);
    gpuplan_model_release(&m);
}

/*
 * Peak = the largest of end of forward / start of backward / end of
 * backward. Without accumulation the previous step's gradients are freed
 * (zero_grad set_to_none) before the activation peak; with accumulation
 * they are alive throughout and the peak is the sum of the categories.
 */
static void test_peak_moments(void **state)
{
    (void)state;
    struct gpuplan_model m;
    load(&m, "llama-3.1-8b");
    struct gpuplan_job job;
    gpuplan_job_init(&job);
    set(&job, "precision", "bf16");
    set(&job, "seq-len", "32768"); /* long enough for the activations to set the peak */
    set(&job, "grad-ckpt", "full");
    struct gpuplan_memory_estimate one, acc;
    eval(&m, &job, NULL, &one);
    set(&job, "grad-accum", "4");
    eval(&m, &job, NULL, &acc);
    const struct gpuplan_memory_per_gpu *g = &acc.per_gpu;
    const uint64_t sum = g->weights_bytes + g->gradients_bytes + g->optimizer_bytes +
                         g->activations_bytes + g->adapters_bytes + g->overhead_bytes;
    assert_true(g->peak_allocated_bytes + 8 >= sum && g->peak_allocated_bytes <= sum + 8);
    assert_true(one.per_gpu.peak_allocated_bytes < acc.per_gpu.peak_allocated_bytes);
    /* The saving is at most the gradients. */
    assert_true(acc.per_gpu.peak_allocated_bytes - one.per_gpu.peak_allocated_bytes <=
                one.per_gpu.gradients_bytes + 8);
    /* DeepSpeed keeps its gradient partitions: no saving under zero2. */
    set(&job, "grad-accum", "1");
    set(&job, "sharding", "zero2");
    eval(&m, &job, NULL, &one);
    g = &one.per_gpu;
    const uint64_t sum2 = g->weights_bytes + g->gradients_bytes + g->optimizer_bytes +
                          g->activations_bytes + g->adapters_bytes + g->overhead_bytes;
    assert_true(g->peak_allocated_bytes + 8 >= sum2);
    gpuplan_model_release(&m);
}

/* QLoRA: linears in NF4+DQ (4.126953125 bits), the rest upcast to fp32. */
static void test_qlora_weights(void **state)
{
    (void)state;
    struct gpuplan_model m;
    load(&m, "llama-3.1-8b");
    const uint64_t linear = 32ULL * (2 * 4096ULL * 4096 + 2 * 1024ULL * 4096 + 3 * 14336ULL * 4096);
    assert_int_equal(linear, 6979321856ULL);
    const uint64_t other = P_LLAMA_8B - linear;
    /* 6,979,321,856 / 16384 blocks-of-256-blocks * 8452 bytes each */
    const uint64_t nf4dq = linear / 16384 * 8452;
    struct gpuplan_job job;
    gpuplan_job_init(&job);
    set(&job, "method", "qlora");
    struct gpuplan_memory_estimate e;
    eval(&m, &job, NULL, &e);
    assert_int_equal(e.per_gpu.weights_bytes, nf4dq + 4 * other);
    assert_int_equal(nf4dq + 4 * other, 7804174336ULL);
    /* adapters: r=8 on q_proj,v_proj, fp32; grads fp32; AdamW 8 B */
    assert_int_equal(e.per_gpu.adapters_bytes, 4 * 3407872ULL);
    assert_int_equal(e.per_gpu.gradients_bytes, 4 * 3407872ULL);
    assert_int_equal(e.per_gpu.optimizer_bytes, 8 * 3407872ULL);
    gpuplan_model_release(&m);
}

static void test_lora_params(void **state)
{
    (void)state;
    struct gpuplan_model m;
    load(&m, "llama-3.1-8b");
    struct gpuplan_job job;
    gpuplan_job_init(&job);
    struct gpuplan_memory_profile p;
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    assert_int_equal(gpuplan_memory_profile_build(&p, &m, job.lora_target_roles, 8, &err),
                     GPUPLAN_OK);
    assert_int_equal(p.lora_params, 32ULL * 8 * (4096 + 4096 + 4096 + 1024));
    assert_int_equal(p.lora_params, 3407872ULL);
    set(&job, "lora-targets", "all-linear");
    assert_int_equal(gpuplan_memory_profile_build(&p, &m, job.lora_target_roles, 16, &err),
                     GPUPLAN_OK);
    /* q,o: 4096+4096; k,v: 4096+1024; gate,up: 4096+14336; down: 14336+4096 */
    assert_int_equal(p.lora_params, 32ULL * 16 * (2 * 8192 + 2 * 5120 + 3 * 18432));
    gpuplan_model_release(&m);
}

/*
 * Serving jobs are the engines' accounting (serving.h), not this profile's:
 * gpuplan_memory_eval leaves an infer job at zero, gpuplan_estimate_memory
 * gives the engine's weights per rank, its KV pool and whether it starts.
 */
static void test_infer_is_the_serving_model(void **state)
{
    (void)state;
    struct gpuplan_gpu h100; /* what the serving accounting reads of an H100 SXM */
    memset(&h100, 0, sizeof h100);
    snprintf(h100.id, sizeof h100.id, "%s", "h100-sxm");
    h100.cc_major = 9;
    h100.memory_bytes = 80ULL * GPUPLAN_BYTES_PER_GIB;
    h100.has_fp8 = true;
    struct gpuplan_model m;
    load(&m, "llama-3.1-70b");
    struct gpuplan_job job;
    gpuplan_job_init(&job);
    set(&job, "method", "infer");
    struct gpuplan_memory_estimate e;
    eval(&m, &job, NULL, &e);
    assert_int_equal(e.per_gpu.device_total_bytes, 0);
    struct gpuplan_memory_report *r = calloc(1, sizeof *r);
    assert_non_null(r);
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    assert_int_equal(gpuplan_estimate_memory(&m, &job, NULL, r, &err), GPUPLAN_OK);
    /* bf16 weights on one rank, plus RotaryEmbedding's cos_sin_cache (131072 x 128 x 2 B) */
    assert_true(r->est.per_gpu.weights_bytes > 2 * m.n_params_total);
    assert_true(r->est.per_gpu.weights_bytes < 2 * m.n_params_total + 64ULL * 1024 * 1024);
    set(&job, "gpu", "h100-sxm:8");
    assert_int_equal(gpuplan_estimate_memory(&m, &job, &h100, r, &err), GPUPLAN_OK);
    assert_true(r->est.fits); /* tp 8 by default: an eighth of the weights per GPU */
    assert_int_equal(r->est.dp_degree, 1);
    assert_true(r->est.kv_capacity_tokens > 1000000);
    assert_true(r->est.max_concurrency > 1.0);
    set(&job, "gpu", "h100-sxm:2");
    assert_int_equal(gpuplan_estimate_memory(&m, &job, &h100, r, &err), GPUPLAN_OK);
    assert_false(r->est.fits); /* 131072 tokens need more than the pool of tp 2 */
    assert_true(r->est.headroom_bytes < 0);
    assert_true(r->n_suggestions > 0);
    bool max_len = false;
    for (size_t i = 0; i < r->n_suggestions; i++)
        max_len |= strncmp(r->suggestions[i].change, "--max-model-len ", 16) == 0 &&
                   r->suggestions[i].fits;
    assert_true(max_len);
    free(r);
    gpuplan_model_release(&m);
}

static void test_zero3_shards_by_n(void **state)
{
    (void)state;
    struct gpuplan_model m;
    load(&m, "llama-3.1-8b");
    struct gpuplan_job job;
    gpuplan_job_init(&job);
    struct gpuplan_memory_estimate one, eight, z1;
    eval(&m, &job, NULL, &one);
    set(&job, "gpu", "h100-sxm:8");
    set(&job, "sharding", "zero3");
    eval(&m, &job, NULL, &eight);
    assert_int_equal(eight.shard_degree, 8);
    assert_true(eight.per_gpu.optimizer_bytes == one.per_gpu.optimizer_bytes / 8);
    assert_true(eight.per_gpu.gradients_bytes == one.per_gpu.gradients_bytes / 8);
    /* sharded 6P/8 plus the gathered root unit (embedding + head, 16-bit, with prefetch) */
    assert_true(eight.per_gpu.weights_bytes < one.per_gpu.weights_bytes / 2);
    set(&job, "sharding", "zero1");
    eval(&m, &job, NULL, &z1);
    assert_int_equal(z1.per_gpu.optimizer_bytes, one.per_gpu.optimizer_bytes / 8);
    assert_int_equal(z1.per_gpu.gradients_bytes, one.per_gpu.gradients_bytes);
    gpuplan_model_release(&m);
}

/*
 * The load moment of a raw DeepSpeed script under ZeRO-3: the engine casts
 * the module to 16 bits and moves it whole to every GPU before partitioning
 * (engine.py _configure_distributed_model), 2 B/param; HF Trainer enters
 * zero.Init itself (no moment); ZeRO-2 keeps the parameters whole anyway.
 */
static void test_load_moment_deepspeed_zero3(void **state)
{
    (void)state;
    struct gpuplan_model m;
    load(&m, "llama-3.1-8b");
    struct gpuplan_job job;
    struct gpuplan_memory_estimate hf, ds, ds2, ds32, tp2;
    job_of(&job, "gpu=h100-sxm:8 sharding=zero3 method=lora seq-len=256");
    eval(&m, &job, NULL, &hf);
    assert_int_equal(hf.per_gpu.load_peak_bytes, 0);
    set(&job, "stack", "deepspeed");
    eval(&m, &job, NULL, &ds);
    assert_true(ds.per_gpu.load_peak_bytes == 2ULL * m.n_params_total);
    assert_true(ds.per_gpu.peak_allocated_bytes >= ds.per_gpu.load_peak_bytes);
    assert_true(ds.per_gpu.peak_allocated_bytes > hf.per_gpu.peak_allocated_bytes);
    set(&job, "precision", "fp32");
    eval(&m, &job, NULL, &ds32);
    assert_true(ds32.per_gpu.load_peak_bytes == 4ULL * m.n_params_total);
    set(&job, "precision", "bf16-mixed");
    set(&job, "tp", "2");
    eval(&m, &job, NULL, &tp2);
    assert_true(tp2.per_gpu.load_peak_bytes == m.n_params_total); /* 2 B/param over 2 ranks */
    set(&job, "tp", "1");
    set(&job, "sharding", "zero2");
    eval(&m, &job, NULL, &ds2);
    assert_int_equal(ds2.per_gpu.load_peak_bytes, 0);
    gpuplan_model_release(&m);
}

/*
 * --packed no: the reserved band's top is the memory the caching allocator
 * can take (usable - context - NCCL), never below the largest shape's
 * reserved; fixed shapes and no GPU have no band; the allocated peak and the
 * verdict stay the largest shape's.
 */
static void test_varlen_reserved_band(void **state)
{
    (void)state;
    struct gpuplan_model m;
    load(&m, "llama-3.2-1b");
    struct gpuplan_gpu gpu;
    memset(&gpu, 0, sizeof gpu);
    snprintf(gpu.id, sizeof gpu.id, "%s", "test-80g");
    gpu.cc_major = 9;
    gpu.memory_bytes = 80ULL * GPUPLAN_BYTES_PER_GIB;
    struct gpuplan_job job;
    struct gpuplan_memory_estimate fixed, var, none;
    job_of(&job, "method=lora");
    eval(&m, &job, &gpu, &fixed);
    assert_int_equal(fixed.per_gpu.reserved_varlen_high_bytes, 0);
    set(&job, "packed", "no");
    eval(&m, &job, &gpu, &var);
    eval(&m, &job, NULL, &none);
    assert_int_equal(none.per_gpu.reserved_varlen_high_bytes, 0);
    const struct gpuplan_memory_per_gpu *g = &var.per_gpu;
    assert_true(g->reserved_varlen_high_bytes > g->peak_reserved_bytes);
    const uint64_t top = gpu.memory_bytes - g->cuda_context_bytes;
    assert_true(g->reserved_varlen_high_bytes <= top && g->reserved_varlen_high_bytes + 16 >= top);
    assert_int_equal(g->peak_allocated_bytes, fixed.per_gpu.peak_allocated_bytes);
    assert_int_equal(var.fits, fixed.fits);
    /* a job larger than the GPU: the band is no lower than its own reserved */
    job_of(&job, "method=full precision=fp32 seq-len=8192 micro-batch=8 packed=no");
    eval(&m, &job, &gpu, &var);
    assert_true(var.per_gpu.reserved_varlen_high_bytes == var.per_gpu.peak_reserved_bytes);
    gpuplan_model_release(&m);
}

/*
 * --cp N splits each sequence over N ranks: the activations of seq S at cp N
 * are those of seq S/N (plus the ring's K/V buffers), the model states are
 * unchanged; --cp must divide the data-parallel ranks; the time model refuses it.
 */
/* Expert parallelism: whole experts over ep ranks; a distributed optimizer already shards them. */
static void test_expert_parallel(void **state)
{
    (void)state;
    struct gpuplan_model m;
    load(&m, "qwen3-30b-a3b");
    struct gpuplan_memory_profile p;
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    assert_int_equal(gpuplan_memory_profile_build(&p, &m, 0, 8, &err), GPUPLAN_OK);
    assert_true(p.expert_params > p.n_params / 2);
    const double e = (double)p.expert_params / (double)p.n_params;
    struct gpuplan_job job;
    struct gpuplan_memory_estimate one, two, z1, z1ep;
    job_of(&job, "gpu=h100-sxm:8 sharding=ddp");
    eval(&m, &job, NULL, &one);
    job_of(&job, "gpu=h100-sxm:8 sharding=ddp ep=2");
    eval(&m, &job, NULL, &two);
    /* ep 2 halves the experts' optimizer states, gradients and weights per GPU */
    const double keep = 1.0 - e + e / 2.0;
    assert_true(fabs((double)two.per_gpu.optimizer_bytes -
                     keep * (double)one.per_gpu.optimizer_bytes) < 1e3);
    assert_true(fabs((double)two.per_gpu.weights_bytes - keep * (double)one.per_gpu.weights_bytes) <
                1e3);
    /* ZeRO-1: the experts' states shard over tp x dp / ep expert-data-parallel ranks, the same
     * per GPU as over dp without EP */
    job_of(&job, "gpu=h100-sxm:8 sharding=zero1");
    eval(&m, &job, NULL, &z1);
    job_of(&job, "gpu=h100-sxm:8 sharding=zero1 ep=8");
    eval(&m, &job, NULL, &z1ep);
    assert_int_equal(z1ep.per_gpu.optimizer_bytes, z1.per_gpu.optimizer_bytes);
    assert_true(z1ep.per_gpu.weights_bytes < z1.per_gpu.weights_bytes);
    /* --ep must divide the experts (128) and the GPUs of a stage */
    struct gpuplan_memory_report *r = calloc(1, sizeof *r);
    assert_non_null(r);
    job_of(&job, "gpu=h100-sxm:8 ep=3");
    assert_int_equal(gpuplan_estimate_memory(&m, &job, NULL, r, &err), GPUPLAN_ERR_USAGE);
    assert_non_null(strstr(err.message, "'--ep' is 3"));
    free(r);
    gpuplan_model_release(&m);
}

/* Interleaved 1F1B holds (1 + (pp - 1) / (pp x vpp)) times the first stage's activations. */
static void test_interleaved_pipeline_activations(void **state)
{
    (void)state;
    struct gpuplan_model m;
    load(&m, "llama-3.1-8b");
    struct gpuplan_job job;
    struct gpuplan_memory_estimate plain, interleaved;
    job_of(&job, "gpu=h100-sxm:8 pp=4 grad-ckpt=full grad-accum=8");
    eval(&m, &job, NULL, &plain);
    job_of(&job, "gpu=h100-sxm:8 pp=4 vpp=2 grad-ckpt=full grad-accum=8");
    eval(&m, &job, NULL, &interleaved);
    assert_true(interleaved.per_gpu.activations_bytes > plain.per_gpu.activations_bytes);
    assert_true((double)interleaved.per_gpu.activations_bytes <
                (1.0 + 3.0 / 8.0) * (double)plain.per_gpu.activations_bytes + 1.0);
    assert_int_equal(interleaved.per_gpu.weights_bytes, plain.per_gpu.weights_bytes);
    gpuplan_model_release(&m);
}

static void test_context_parallel(void **state)
{
    (void)state;
    struct gpuplan_model m;
    load(&m, "llama-3.1-8b");
    struct gpuplan_job job;
    struct gpuplan_memory_estimate cp8, short_seq;
    job_of(&job, "gpu=h100-sxm:8 sharding=fsdp grad-ckpt=full seq-len=65536 cp=8");
    eval(&m, &job, NULL, &cp8);
    job_of(&job, "gpu=h100-sxm:8 sharding=fsdp grad-ckpt=full seq-len=8192");
    eval(&m, &job, NULL, &short_seq);
    assert_int_equal(cp8.per_gpu.activations_bytes, short_seq.per_gpu.activations_bytes);
    assert_int_equal(cp8.per_gpu.weights_bytes, short_seq.per_gpu.weights_bytes);
    assert_int_equal(cp8.per_gpu.optimizer_bytes, short_seq.per_gpu.optimizer_bytes);
    /* the ring's buffers: 4 x (2 x 1024 K/V elements) x 8192 tokens x 2 B */
    assert_true(cp8.per_gpu.overhead_bytes - short_seq.per_gpu.overhead_bytes ==
                4ULL * 2048ULL * 8192ULL * 2ULL);
    /* --cp must divide GPUs / (tp x pp) */
    struct gpuplan_memory_report *r = calloc(1, sizeof *r);
    assert_non_null(r);
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    job_of(&job, "gpu=h100-sxm:8 tp=2 cp=3");
    assert_int_equal(gpuplan_estimate_memory(&m, &job, NULL, r, &err), GPUPLAN_ERR_USAGE);
    assert_non_null(strstr(err.message, "'--cp' is 3"));
    free(r);
    /* the time model times it: one replica of 8 ranks trains one sequence per micro-batch */
    struct gpuplan_gpu gpu;
    memset(&gpu, 0, sizeof gpu);
    snprintf(gpu.id, sizeof gpu.id, "%s", "test");
    gpu.memory_bytes = 80ULL * GPUPLAN_BYTES_PER_GIB;
    gpu.bf16_tflops = 989.0;
    gpu.has_bf16 = true;
    gpu.memory_bandwidth_gb_per_s = 3350.0;
    struct gpuplan_throughput t;
    gpuplan_error_init(&err);
    job_of(&job, "gpu=h100-sxm:8 cp=8");
    assert_int_equal(gpuplan_throughput_estimate(&m, &job, &gpu, NULL, &t, &err), GPUPLAN_OK);
    assert_true(t.tokens_per_step == (double)job.seq_len * (double)job.micro_batch);
    gpuplan_model_release(&m);
}

/* More tokens never need less memory; more recompute never needs more. */
static void test_monotonic(void **state)
{
    (void)state;
    static const char *const models[] = { "llama-3.1-8b", "mixtral-8x7b-v0.1", "qwen3-8b",
                                          "phi-3-mini-4k-instruct" };
    static const char *const methods[] = { "full", "lora", "qlora" };
    static const char *const attns[] = { "eager", "sdpa", "flash" };
    for (size_t mi = 0; mi < sizeof models / sizeof models[0]; mi++) {
        struct gpuplan_model m;
        load(&m, models[mi]);
        for (size_t k = 0; k < 3; k++) {
            for (size_t a = 0; a < 3; a++) {
                struct gpuplan_job job;
                gpuplan_job_init(&job);
                set(&job, "method", methods[k]);
                set(&job, "attention", attns[a]);
                uint64_t prev = 0;
                for (uint64_t s = 128; s <= 65536; s *= 2) {
                    char text[32];
                    snprintf(text, sizeof text, "%llu", (unsigned long long)s);
                    set(&job, "seq-len", text);
                    uint64_t ckpt[3];
                    static const char *const cks[] = { "none", "selective", "full" };
                    for (int c = 0; c < 3; c++) {
                        set(&job, "grad-ckpt", cks[c]);
                        struct gpuplan_memory_estimate e;
                        eval(&m, &job, NULL, &e);
                        ckpt[c] = e.per_gpu.peak_allocated_bytes;
                        assert_true(e.per_gpu.peak_reserved_bytes >=
                                    e.per_gpu.peak_allocated_bytes);
                        assert_true(e.per_gpu.device_total_bytes > e.per_gpu.peak_reserved_bytes);
                    }
                    /* Full fine-tuning may peak at the end of backward (every gradient
                     * alive, activations nearly gone), where checkpointing saves nothing;
                     * LoRA's gradients are tiny, so its peak always holds activations. */
                    assert_true(ckpt[2] <= ckpt[0]);
                    if (k > 0 || s >= 65536)
                        assert_true(ckpt[2] < ckpt[0]);
                    assert_true(ckpt[1] <= ckpt[0]);
                    assert_true(ckpt[0] >= prev);
                    prev = ckpt[0];
                }
            }
        }
        gpuplan_model_release(&m);
    }
}

static void test_orderings(void **state)
{
    (void)state;
    struct gpuplan_model m;
    load(&m, "llama-3.1-8b");
    struct gpuplan_job job;
    gpuplan_job_init(&job);
    set(&job, "seq-len", "4096");
    struct gpuplan_memory_estimate full, lora, qlora, eager, flash, adam8;
    eval(&m, &job, NULL, &full);
    set(&job, "optimizer", "adamw-8bit");
    eval(&m, &job, NULL, &adam8);
    set(&job, "optimizer", "adamw");
    set(&job, "attention", "eager");
    eval(&m, &job, NULL, &eager);
    set(&job, "attention", "flash");
    eval(&m, &job, NULL, &flash);
    set(&job, "attention", "sdpa");
    set(&job, "method", "lora");
    eval(&m, &job, NULL, &lora);
    set(&job, "method", "qlora");
    eval(&m, &job, NULL, &qlora);
    assert_true(adam8.per_gpu.optimizer_bytes * 3 < full.per_gpu.optimizer_bytes);
    assert_true(eager.per_gpu.activations_bytes > full.per_gpu.activations_bytes);
    assert_true(flash.per_gpu.activations_bytes <= full.per_gpu.activations_bytes);
    assert_true(lora.per_gpu.peak_allocated_bytes < full.per_gpu.peak_allocated_bytes);
    assert_true(qlora.per_gpu.peak_allocated_bytes < lora.per_gpu.peak_allocated_bytes);
    gpuplan_model_release(&m);
}

static void test_fit_and_suggestions(void **state)
{
    (void)state;
    struct gpuplan_model m;
    load(&m, "llama-3.1-70b");
    struct gpuplan_gpu gpu;
    memset(&gpu, 0, sizeof gpu);
    snprintf(gpu.id, sizeof gpu.id, "%s", "test-80g");
    snprintf(gpu.compute_capability, sizeof gpu.compute_capability, "%s", "9.0");
    gpu.cc_major = 9; /* as the catalog parses "9.0" */
    gpu.memory_bytes = 80ULL * GPUPLAN_BYTES_PER_GB;
    struct gpuplan_job job;
    gpuplan_job_init(&job);
    struct gpuplan_memory_report r;
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    assert_int_equal(gpuplan_estimate_memory(&m, &job, &gpu, &r, &err), GPUPLAN_OK);
    assert_true(r.est.has_gpu);
    assert_false(r.est.fits);
    assert_true(r.est.headroom_bytes < 0);
    assert_true(r.n_suggestions > 0);
    bool saw_qlora = false;
    for (size_t i = 0; i < r.n_suggestions; i++) {
        assert_true(r.suggestions[i].saving_bytes > 0);
        if (i > 0 && r.suggestions[i].fits == r.suggestions[i - 1].fits)
            assert_true(r.suggestions[i].saving_bytes <= r.suggestions[i - 1].saving_bytes);
        if (strcmp(r.suggestions[i].change, "--method qlora") == 0) {
            saw_qlora = true;
            assert_true(r.suggestions[i].fits);
        }
    }
    assert_true(saw_qlora);
    /* QLoRA of 70B fits an 80 GB GPU: no suggestions needed. */
    set(&job, "method", "qlora");
    assert_int_equal(gpuplan_estimate_memory(&m, &job, &gpu, &r, &err), GPUPLAN_OK);
    assert_true(r.est.fits);
    assert_int_equal(r.n_suggestions, 0);
    /* tp larger than the GPU count is a usage error */
    set(&job, "tp", "2");
    assert_int_equal(gpuplan_estimate_memory(&m, &job, &gpu, &r, &err), GPUPLAN_ERR_USAGE);
    gpuplan_model_release(&m);
}

/*
 * bitsandbytes PagedAdamW: fp32 states (8 B per parameter even for bf16
 * weights) in CUDA managed memory. Resident states count in the device
 * total (nvidia-smi) but never in PyTorch's allocated/reserved peaks; when
 * they do not fit they live on the host.
 */
static void test_paged_states_outside_allocator(void **state)
{
    (void)state;
    struct gpuplan_model m;
    load(&m, "llama-3.1-8b");
    struct gpuplan_gpu gpu;
    memset(&gpu, 0, sizeof gpu);
    snprintf(gpu.id, sizeof gpu.id, "%s", "test-141g");
    snprintf(gpu.compute_capability, sizeof gpu.compute_capability, "%s", "9.0");
    gpu.cc_major = 9; /* as the catalog parses "9.0" */
    gpu.memory_bytes = 141ULL * GPUPLAN_BYTES_PER_GB;
    struct gpuplan_job job;
    gpuplan_job_init(&job);
    set(&job, "precision", "bf16");
    set(&job, "grad-ckpt", "full");
    struct gpuplan_memory_estimate plain, paged;
    eval(&m, &job, &gpu, &plain);
    set(&job, "optimizer", "paged-adamw");
    eval(&m, &job, &gpu, &paged);
    /* torch.optim AdamW keeps bf16 states (4 B/param) inside the allocator. */
    assert_int_equal(plain.per_gpu.optimizer_bytes, 4 * P_LLAMA_8B);
    assert_int_equal(plain.per_gpu.managed_bytes, 0);
    /* paged: allocated drops by the states, the device total carries 8 B/param */
    assert_int_equal(paged.per_gpu.managed_bytes, 8 * P_LLAMA_8B);
    assert_int_equal(paged.per_gpu.optimizer_bytes, 8 * P_LLAMA_8B);
    /* torch AdamW's states (4P) leave the allocator; plain also carries foreach's
     * state-sized temporary (2P) when the optimizer step sets its peak. */
    assert_true(paged.per_gpu.peak_allocated_bytes + 4 * P_LLAMA_8B <=
                plain.per_gpu.peak_allocated_bytes);
    assert_true(paged.per_gpu.peak_allocated_bytes + 6 * P_LLAMA_8B >=
                plain.per_gpu.peak_allocated_bytes);
    assert_true(paged.per_gpu.device_total_bytes >
                paged.per_gpu.peak_reserved_bytes + 8 * P_LLAMA_8B);
    assert_int_equal(paged.host_ram_bytes, 0);
    /* on a 24 GB card the states do not fit: host RAM, not the device */
    gpu.memory_bytes = 24ULL * GPUPLAN_BYTES_PER_GB;
    eval(&m, &job, &gpu, &paged);
    assert_int_equal(paged.per_gpu.managed_bytes, 0);
    assert_int_equal(paged.host_ram_bytes, 8 * P_LLAMA_8B);
    gpuplan_model_release(&m);
}

/*
 * Cross-entropy peak at the start of backward (upcast path): saved fp32
 * log-softmax output + nll_loss's dense fp32 gradient + log_softmax's
 * fp32 result = 12 V T; chunked CE (8 chunks, eager): (2 + 4 + 4/8) V T.
 * Checked as the difference between two vocabularies-worth of tokens.
 */
static void test_logits_bytes(void **state)
{
    (void)state;
    struct gpuplan_model m;
    load(&m, "llama-3.1-8b");
    const uint64_t V = 128256;
    struct gpuplan_job job;
    gpuplan_job_init(&job);
    set(&job, "precision", "bf16");
    set(&job, "grad-ckpt", "full");
    set(&job, "seq-len", "1024");
    struct gpuplan_memory_estimate e1, e2;
    eval(&m, &job, NULL, &e1);
    set(&job, "seq-len", "2048");
    eval(&m, &job, NULL, &e2);
    /* with full recompute, activations are linear in tokens: boundary 2h per layer + logits */
    const uint64_t per_token = 32ULL * 2 * 4096 + 12 * V;
    const uint64_t d = e2.per_gpu.activations_bytes - e1.per_gpu.activations_bytes;
    assert_true(d >= 1024 * per_token - 1024 && d <= 1024 * per_token + 1024);
    set(&job, "chunked-ce", "yes");
    eval(&m, &job, NULL, &e2);
    set(&job, "seq-len", "1024");
    eval(&m, &job, NULL, &e1);
    const uint64_t per_token_chunked = 32ULL * 2 * 4096 + 13 * V / 2;
    const uint64_t dc = e2.per_gpu.activations_bytes - e1.per_gpu.activations_bytes;
    assert_true(dc >= 1024 * per_token_chunked - 1024 && dc <= 1024 * per_token_chunked + 1024);
    gpuplan_model_release(&m);
}

/*
 * keep_outputs: the held output carries every layer's (k, v) in the compute
 * dtype (GQA widths, not repeated) and the fp32 logits. Llama 3.1 8B,
 * bf16, full recompute, one GPU, T = 2048: kept = 2 * 1024 * 2 B * 32 *
 * 2048 + 4 * V * 2048. The activations category grows by exactly that;
 * the peak (end of forward: the previous step's output is still held
 * while the new one is built) by at least kept plus the new (k, v).
 */
static void test_keep_outputs(void **state)
{
    (void)state;
    struct gpuplan_model m;
    load(&m, "llama-3.1-8b");
    const double V = 128256.0, T = 2048.0;
    struct gpuplan_job job;
    gpuplan_job_init(&job);
    set(&job, "precision", "bf16");
    set(&job, "grad-ckpt", "full");
    set(&job, "seq-len", "2048");
    struct gpuplan_memory_estimate off, on;
    eval(&m, &job, NULL, &off);
    job.keep_outputs = true;
    eval(&m, &job, NULL, &on);
    const double kv = 2.0 * 1024.0 * 2.0 * 32.0 * T, logits = 4.0 * V * T;
    const double dact =
        (double)on.per_gpu.activations_bytes - (double)off.per_gpu.activations_bytes;
    assert_true(fabs(dact - (kv + logits)) < 1024.0);
    const double dpeak =
        (double)on.per_gpu.peak_allocated_bytes - (double)off.per_gpu.peak_allocated_bytes;
    assert_true(dpeak >= kv + logits - 1024.0);
    assert_true(dpeak <= 2.0 * kv + logits + 1024.0);
    gpuplan_model_release(&m);
}

/*
 * base_fp32 (LoRA, FSDP, bf16-mixed): the frozen base shards are fp32,
 * 2 B more per parameter and GPU share (P / 8) than a 16-bit base; the
 * gathered units and activations are unchanged. Ignored under ZeRO-3.
 */
static void test_base_fp32_fsdp_lora(void **state)
{
    (void)state;
    struct gpuplan_model m;
    load(&m, "llama-3.1-8b");
    struct gpuplan_job job;
    gpuplan_job_init(&job);
    set(&job, "method", "lora");
    set(&job, "lora-targets", "all-linear");
    set(&job, "sharding", "fsdp");
    set(&job, "gpu", "none:8");
    set(&job, "grad-ckpt", "full");
    struct gpuplan_memory_estimate b16, b32;
    eval(&m, &job, NULL, &b16);
    job.base_fp32 = true;
    eval(&m, &job, NULL, &b32);
    const double d = (double)b32.per_gpu.weights_bytes - (double)b16.per_gpu.weights_bytes;
    assert_true(fabs(d - 2.0 * (double)P_LLAMA_8B / 8.0) < 1024.0);
    assert_int_equal(b32.per_gpu.activations_bytes, b16.per_gpu.activations_bytes);
    set(&job, "sharding", "zero3");
    eval(&m, &job, NULL, &b32);
    job.base_fp32 = false;
    eval(&m, &job, NULL, &b16);
    assert_int_equal(b32.per_gpu.weights_bytes, b16.per_gpu.weights_bytes);
    gpuplan_model_release(&m);
}

/*
 * FSDP under PP (torchtitan): the stage stays gathered (bf16, 2 B per
 * stage parameter) and full fine-tuning accumulates unsharded fp32
 * gradients (4 B) over the micro-batches, on top of the sharded states.
 */
static void test_fsdp_with_pp_keeps_stage_unsharded(void **state)
{
    (void)state;
    struct gpuplan_model m;
    load(&m, "llama-3.1-70b");
    struct gpuplan_job job;
    gpuplan_job_init(&job);
    set(&job, "gpu", "none:8");
    set(&job, "nodes", "4");
    set(&job, "sharding", "fsdp");
    set(&job, "grad-ckpt", "full");
    set(&job, "pp", "4");
    struct gpuplan_memory_estimate e;
    eval(&m, &job, NULL, &e);
    const double stage = (double)m.n_params_total / 4.0;
    /* sharded over dp = 32 / 4 = 8: fp32 master 4/8 (FSDP keeps no 16-bit shard), plus the
     * gathered stage 2 B */
    const double w = (double)e.per_gpu.weights_bytes, g = (double)e.per_gpu.gradients_bytes;
    assert_true(fabs(w - (4.0 / 8.0 + 2.0) * stage) < 1e6);
    assert_true(fabs(g - (4.0 / 8.0 + 4.0) * stage) < 1e6);
    gpuplan_model_release(&m);
}

/*
 * FSDP QLoRA gathers the quantised storage (the 4-bit codes: bitsandbytes'
 * absmax metadata stays whole on every GPU, outside the flat parameter):
 * for Llama 3.1 70B two blocks in flight (855,638,016 linear weights at
 * 0.5 B + two norms of 8192 in bf16) plus the root unit, the bf16
 * embedding and head with the final norm (2 x 128256 x 8192 + 8192), which
 * FSDP keeps gathered from forward to backward.
 */
static void test_qlora_fsdp_gathers_quantised_units(void **state)
{
    (void)state;
    struct gpuplan_model m;
    load(&m, "llama-3.1-70b");
    struct gpuplan_job job;
    gpuplan_job_init(&job);
    set(&job, "method", "qlora");
    set(&job, "precision", "bf16");
    struct gpuplan_memory_estimate one, eight;
    eval(&m, &job, NULL, &one);
    set(&job, "gpu", "none:8");
    set(&job, "sharding", "fsdp");
    eval(&m, &job, NULL, &eight);
    const double linear = 80.0 * 855638016.0;
    const double meta = linear * (8452.0 * 8.0 / 16384.0 - 4.0) / 8.0; /* NF4 + DQ absmax */
    const double gathered = (double)eight.per_gpu.weights_bytes -
                            ((double)one.per_gpu.weights_bytes - meta) / 8.0 - meta;
    const double block = 855638016.0 * 0.5 + 2.0 * 8192.0 * 2.0;
    const double root = 2.0 * (2.0 * 1050673152.0 + 8192.0);
    assert_true(fabs(gathered - (2.0 * block + root)) < 1e3);
    gpuplan_model_release(&m);
}

/*
 * Where the 4-bit metadata lives: bitsandbytes keeps its QuantState on the
 * module, so FSDP CPU offload moves the codes to the host and leaves the
 * absmax on every GPU; torchao's NF4Tensor (torchtune) carries its scalers
 * inside the tensor, so they are sharded and offloaded with the codes. Same
 * size per weight (8452 bytes per 16384) either way.
 */
static void test_qlora_metadata_placement(void **state)
{
    (void)state;
    struct gpuplan_model m;
    load(&m, "llama-3.1-70b");
    struct gpuplan_job job;
    job_of(&job, "method=qlora precision=bf16 gpu=none:8 sharding=fsdp offload=optimizer+params");
    struct gpuplan_memory_estimate bnb, tao;
    eval(&m, &job, NULL, &bnb);
    set(&job, "quant", "torchao-nf4");
    eval(&m, &job, NULL, &tao);
    const double meta = 80.0 * 855638016.0 * (8452.0 * 8.0 / 16384.0 - 4.0) / 8.0;
    /* torchao gathers its two blocks in flight with their scalers (2 of the 80 blocks). */
    assert_true(fabs(((double)bnb.per_gpu.weights_bytes - (double)tao.per_gpu.weights_bytes) -
                     (meta - 2.0 * meta / 80.0)) < 1e3);
    /* The node's host RAM holds the 8 shards and FSDP's pinned gradient buffer of the same
     * size: with torchao's scalers, without bnb's absmax. */
    assert_true(fabs(((double)tao.host_ram_bytes - (double)bnb.host_ram_bytes) - 2.0 * meta) < 1e4);
    gpuplan_model_release(&m);
}

/*
 * FSDP CPU offload pins a CPU gradient buffer as large as every offloaded
 * shard, frozen ones included (FlatParamHandle.init_flat_param_attributes),
 * so a LoRA base costs its shards twice in host RAM; FSDP's params-only
 * offload is the same as optimizer+params (gradients and the step move too).
 */
static void test_fsdp_offload_pins_cpu_grads(void **state)
{
    (void)state;
    struct gpuplan_model m;
    load(&m, "llama-3.1-8b");
    struct gpuplan_job job;
    job_of(&job, "method=lora precision=bf16 gpu=none:4 sharding=fsdp offload=optimizer+params");
    struct gpuplan_memory_estimate both, params;
    eval(&m, &job, NULL, &both);
    set(&job, "offload", "params");
    eval(&m, &job, NULL, &params);
    assert_int_equal(both.host_ram_bytes, params.host_ram_bytes);
    assert_int_equal(both.per_gpu.peak_allocated_bytes, params.per_gpu.peak_allocated_bytes);
    /* 4 ranks x (bf16 shard + pinned gradient buffer) = 2 x 2 B x P, plus the small adapter
     * states. */
    const double base = 2.0 * 2.0 * (double)P_LLAMA_8B;
    assert_true((double)both.host_ram_bytes >= base);
    assert_true((double)both.host_ram_bytes < base * 1.02);
    gpuplan_model_release(&m);
}

/*
 * torch.compile (docs/formulas.md "torch.compile"): a compiled Llama block
 * keeps the block input instead of each RMSNorm's fp32 copy and normalised
 * output (2 x (4h + 2h) -> 2 x 2h) and drops the SiLU output (2I): 8h + 2I
 * bytes per token per block less in pure bf16. --compile yes also compiles
 * the loss: 12 V T -> 8 V T at its peak; --compile blocks leaves it eager.
 */
static void test_compile_saved_activations(void **state)
{
    (void)state;
    struct gpuplan_model m;
    load(&m, "llama-3.2-3b");
    struct gpuplan_job job;
    job_of(&job, "precision=bf16 seq-len=4096 micro-batch=2");
    struct gpuplan_memory_estimate eager, blocks, full;
    eval(&m, &job, NULL, &eager);
    set(&job, "compile", "blocks");
    eval(&m, &job, NULL, &blocks);
    set(&job, "compile", "yes");
    eval(&m, &job, NULL, &full);
    const double tokens = 2.0 * 4096.0, h = 3072.0, I = 8192.0, V = 128256.0, L = 28.0;
    const double d_blocks =
        (double)eager.per_gpu.activations_bytes - (double)blocks.per_gpu.activations_bytes;
    assert_true(fabs(d_blocks - (8.0 * h + 2.0 * I) * tokens * L) < 1e6);
    const double d_loss =
        (double)blocks.per_gpu.activations_bytes - (double)full.per_gpu.activations_bytes;
    assert_true(fabs(d_loss - 4.0 * V * tokens) < 1e6);
    /* Weights and states do not change. */
    assert_int_equal(eager.per_gpu.weights_bytes, full.per_gpu.weights_bytes);
    assert_int_equal(eager.per_gpu.optimizer_bytes, full.per_gpu.optimizer_bytes);
    gpuplan_model_release(&m);
}

/*
 * LoRA dropout (PEFT: lora_B(lora_A(dropout(x))), one nn.Dropout per adapted
 * module): each adapted linear keeps its own dropped input (2 B) and the
 * dropout mask (1 B) instead of sharing one saved input. Llama 3.1 8B,
 * all-linear, per token per block: 3 x (5h + q + I) - 2 x (2h + q + I) with
 * h = q = 4096, I = 14336.
 */
static void test_lora_dropout_inputs(void **state)
{
    (void)state;
    struct gpuplan_model m;
    load(&m, "llama-3.1-8b");
    struct gpuplan_job job;
    job_of(&job, "method=lora lora-targets=all-linear seq-len=2048");
    struct gpuplan_memory_estimate none, drop;
    eval(&m, &job, NULL, &none);
    set(&job, "lora-dropout", "0.05");
    eval(&m, &job, NULL, &drop);
    const double h = 4096.0, q = 4096.0, I = 14336.0, L = 32.0, tokens = 2048.0;
    const double per = 3.0 * (5.0 * h + q + I) - 2.0 * (2.0 * h + q + I);
    const double d =
        (double)drop.per_gpu.activations_bytes - (double)none.per_gpu.activations_bytes;
    assert_true(fabs(d - per * L * tokens) < 1e6);
    /* dropout 0 is PEFT's nn.Identity: nothing changes */
    set(&job, "lora-dropout", "0");
    eval(&m, &job, NULL, &drop);
    assert_int_equal(drop.per_gpu.activations_bytes, none.per_gpu.activations_bytes);
    gpuplan_model_release(&m);
}

/* The training-loop options reach the job: held outputs add memory; an fp32 LoRA base under
 * FSDP doubles the frozen shards (2 -> 4 B per parameter over 8 ranks). */
static void test_loop_options(void **state)
{
    (void)state;
    struct gpuplan_model m;
    load(&m, "llama-3.1-8b");
    struct gpuplan_job job;
    struct gpuplan_memory_estimate base, with;
    job_of(&job, "method=full grad-ckpt=full");
    eval(&m, &job, NULL, &base);
    job_of(&job, "method=full grad-ckpt=full keep-outputs=yes");
    eval(&m, &job, NULL, &with);
    assert_true(with.per_gpu.peak_allocated_bytes > base.per_gpu.peak_allocated_bytes);
    job_of(&job, "method=lora gpu=none:8 sharding=fsdp");
    eval(&m, &job, NULL, &base);
    job_of(&job, "method=lora gpu=none:8 sharding=fsdp base-fp32=yes");
    eval(&m, &job, NULL, &with);
    const double d = (double)with.per_gpu.weights_bytes - (double)base.per_gpu.weights_bytes;
    assert_true(fabs(d - 2.0 * (double)P_LLAMA_8B / 8.0) < 1e6);
    gpuplan_model_release(&m);
}

static void test_extreme_options_saturate(void **state)
{
    (void)state;
    struct gpuplan_model m;
    load(&m, "llama-3.1-405b");
    struct gpuplan_job job;
    gpuplan_job_init(&job);
    set(&job, "seq-len", "16777216");
    set(&job, "micro-batch", "1048576");
    set(&job, "attention", "eager");
    struct gpuplan_memory_estimate e;
    eval(&m, &job, NULL, &e);
    assert_true(e.per_gpu.device_total_bytes == UINT64_MAX ||
                e.per_gpu.device_total_bytes > (1ULL << 60));
    gpuplan_model_release(&m);
}

/*
 * The planner's split of the estimate (memory_internal.h): the GPU-free
 * terms, finished on a GPU, are gpuplan_memory_eval() field by field; the
 * finish without breakdown fills the total, host RAM and verdict alike;
 * one set of terms finished on two GPUs is each GPU's own estimate.
 */
static void test_terms_split_is_the_estimate(void **state)
{
    (void)state;
    static const char *const jobs[] = {
        "method=full precision=bf16-mixed",
        "method=full precision=bf16-mixed sharding=fsdp gpu=h100-sxm:8",
        "method=lora precision=fp8-mixed sharding=zero3 offload=optimizer+params gpu=h100-sxm:4",
        "method=qlora micro-batch=4 seq-len=4096",
        "method=full optimizer=paged-adamw precision=bf16 grad-ckpt=full",
        "method=lora optimizer=paged-adamw-8bit sharding=fsdp-hybrid gpu=h100-sxm:8 nodes=2",
        "method=full act-offload=yes keep-outputs=yes chunked-ce=yes",
    };
    struct gpuplan_model m;
    load(&m, "llama-3.1-8b");
    struct gpuplan_gpu big, small;
    memset(&big, 0, sizeof big);
    big.cc_major = 9;
    big.memory_bytes = 141ULL * GPUPLAN_BYTES_PER_GB;
    small = big;
    small.cc_major = 8;
    small.memory_bytes = 24ULL * GPUPLAN_BYTES_PER_GB;
    const struct gpuplan_gpu *gpus[] = { &big, &small, NULL };
    for (size_t i = 0; i < sizeof jobs / sizeof jobs[0]; i++) {
        struct gpuplan_job given, job;
        job_of(&given, jobs[i]);
        gpuplan_job_resolve(&given, &job);
        struct gpuplan_memory_profile p;
        struct gpuplan_error err;
        gpuplan_error_init(&err);
        assert_int_equal(
            gpuplan_memory_profile_build(&p, &m, job.lora_target_roles, job.lora_rank, &err),
            GPUPLAN_OK);
        struct gpuplan_memory_terms terms;
        gpuplan_memory_terms_eval(&p, &job, &terms);
        for (size_t g = 0; g < sizeof gpus / sizeof gpus[0]; g++) {
            struct gpuplan_memory_estimate want, full, lean;
            gpuplan_memory_eval(&p, &given, gpus[g], &want);
            gpuplan_memory_terms_finish(&terms, gpus[g], true, &full);
            gpuplan_memory_terms_finish(&terms, gpus[g], false, &lean);
            assert_memory_equal(&want.per_gpu, &full.per_gpu, sizeof want.per_gpu);
            assert_int_equal(want.host_ram_bytes, full.host_ram_bytes);
            assert_int_equal(want.n_gpus, full.n_gpus);
            assert_int_equal(want.dp_degree, full.dp_degree);
            assert_int_equal(want.shard_degree, full.shard_degree);
            assert_int_equal(want.has_gpu, full.has_gpu);
            assert_int_equal(want.gpu_usable_bytes, full.gpu_usable_bytes);
            assert_int_equal(want.fits, full.fits);
            assert_int_equal(want.headroom_bytes, full.headroom_bytes);
            assert_int_equal(want.per_gpu.device_total_bytes, lean.per_gpu.device_total_bytes);
            assert_int_equal(want.host_ram_bytes, lean.host_ram_bytes);
            assert_int_equal(want.fits, lean.fits);
            assert_int_equal(want.headroom_bytes, lean.headroom_bytes);
            assert_int_equal(want.gpu_usable_bytes, lean.gpu_usable_bytes);
            assert_int_equal(lean.per_gpu.weights_bytes, 0); /* no breakdown */
        }
    }
    gpuplan_model_release(&m);
}

/*
 * Layouts that do not divide are usage errors with a hint (exit 2 in the
 * CLI): --tp that does not divide the heads, --ep on a training job (the
 * training model has no expert parallelism), --pp past the layers.
 */
static void test_parallel_sizes_that_do_not_divide(void **state)
{
    (void)state;
    struct gpuplan_model m;
    load(&m, "llama-3.1-8b");
    struct gpuplan_memory_report *r = calloc(1, sizeof *r);
    assert_non_null(r);
    static const char *const bad[] = { "gpu=h100-sxm:3 tp=3", "gpu=h100-sxm:6 tp=3",
                                       "gpu=h100-sxm:2 ep=2", "gpu=h100-sxm:8 nodes=8 pp=64" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct gpuplan_job job;
        job_of(&job, bad[i]);
        struct gpuplan_error err;
        gpuplan_error_init(&err);
        assert_int_equal(gpuplan_estimate_memory(&m, &job, NULL, r, &err), GPUPLAN_ERR_USAGE);
        assert_true(err.hint[0] != '\0');
    }
    struct gpuplan_job job;
    job_of(&job, "gpu=h100-sxm:8 tp=4");
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    assert_int_equal(gpuplan_estimate_memory(&m, &job, NULL, r, &err), GPUPLAN_OK);
    free(r);
    gpuplan_model_release(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parallel_sizes_that_do_not_divide),
        cmocka_unit_test(test_terms_split_is_the_estimate),
        cmocka_unit_test(test_full_mixed_adamw_states),
        cmocka_unit_test(test_amp_bf16_fsdp),
        cmocka_unit_test(test_qlora_metadata_placement),
        cmocka_unit_test(test_fsdp_offload_pins_cpu_grads),
        cmocka_unit_test(test_compile_saved_activations),
        cmocka_unit_test(test_lora_dropout_inputs),
        cmocka_unit_test(test_loop_options),
        cmocka_unit_test(test_peak_moments),
        cmocka_unit_test(test_qlora_weights),
        cmocka_unit_test(test_lora_params),
        cmocka_unit_test(test_infer_is_the_serving_model),
        cmocka_unit_test(test_zero3_shards_by_n),
        cmocka_unit_test(test_load_moment_deepspeed_zero3),
        cmocka_unit_test(test_varlen_reserved_band),
        cmocka_unit_test(test_context_parallel),
        cmocka_unit_test(test_expert_parallel),
        cmocka_unit_test(test_interleaved_pipeline_activations),
        cmocka_unit_test(test_monotonic),
        cmocka_unit_test(test_orderings),
        cmocka_unit_test(test_fit_and_suggestions),
        cmocka_unit_test(test_extreme_options_saturate),
        cmocka_unit_test(test_paged_states_outside_allocator),
        cmocka_unit_test(test_logits_bytes),
        cmocka_unit_test(test_keep_outputs),
        cmocka_unit_test(test_base_fp32_fsdp_lora),
        cmocka_unit_test(test_fsdp_with_pp_keeps_stage_unsharded),
        cmocka_unit_test(test_qlora_fsdp_gathers_quantised_units),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
