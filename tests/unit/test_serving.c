/*
 * test_serving.c - the serving model (include/gpuplan/serving.h): one test
 * per mechanism, on the catalog's models and GPUs and on hand-filled
 * profiles for architectures the config reader does not know, with the
 * published engine figures each mechanism reproduces (validation/serving.md).
 */
#include "test_common.h"

#include <math.h>

#include "estimate/serving_internal.h"
#include "gpuplan/catalog.h"
#include "gpuplan/model.h"
#include "gpuplan/serving.h"
#include "gpuplan/units.h"

#define GIB ((double)GPUPLAN_BYTES_PER_GIB)

static struct gpuplan_catalog *catalog;

static int setup(void **state)
{
    (void)state;
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    return gpuplan_catalog_load(&catalog, NULL, &err) == GPUPLAN_OK ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    gpuplan_catalog_free(catalog);
    return 0;
}

static const struct gpuplan_gpu *gpu(const char *id)
{
    const struct gpuplan_gpu *g = gpuplan_catalog_find_gpu(catalog, id);
    assert_non_null(g);
    return g;
}

static void profile_of(const char *name, struct gpuplan_serving_profile *p)
{
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    struct gpuplan_model m;
    gpuplan_model_init(&m);
    assert_int_equal(gpuplan_model_load(&m, name, catalog, &err), GPUPLAN_OK);
    assert_int_equal(gpuplan_serving_profile_build(p, &m, &err), GPUPLAN_OK);
    gpuplan_model_release(&m);
}

static void memory_ok(const struct gpuplan_serving_profile *p,
                      const struct gpuplan_serving_request *req,
                      const char *gpu_id,
                      struct gpuplan_serving_memory *m)
{
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    const enum gpuplan_status st = gpuplan_serving_memory(p, req, gpu(gpu_id), m, &err);
    if (st != GPUPLAN_OK)
        print_error("gpuplan_serving_memory: %s\n", err.message);
    assert_int_equal(st, GPUPLAN_OK);
}

static bool has_line(const struct gpuplan_serving_memory *m, const char *needle)
{
    for (size_t i = 0; i < m->n_log; i++)
        if (strstr(m->log[i], needle))
            return true;
    return false;
}

/* A hand-filled dense profile (for architectures hf_config does not read). */
static void hand_profile(struct gpuplan_serving_profile *p,
                         uint32_t layers,
                         uint64_t heads,
                         uint64_t kv_heads,
                         uint64_t head_dim)
{
    memset(p, 0, sizeof *p);
    snprintf(p->model_id, sizeof p->model_id, "hand");
    p->n_layers = layers;
    p->n_dense_layers = layers;
    p->hidden = heads * head_dim;
    p->n_heads = heads;
    p->n_kv_heads = kv_heads;
    p->head_dim = head_dim;
    p->head_dim_v = head_dim;
    p->q_head_dim = head_dim;
    p->v_head_dim = head_dim;
    p->intermediate = 4 * p->hidden;
    p->vocab = 32000;
    p->max_position_embeddings = 131072;
    p->model_dtype = GPUPLAN_DTYPE_BF16;
    p->n_attn_layers[GPUPLAN_SERVING_ATTN_FULL] = layers;
}

/* ---- names, versions, requests ---------------------------------------------------- */

static void test_version_parse(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        bool ok;
        uint32_t ma, mi, pa;
    } rows[] = {
        { "0.11.0", true, 0, 11, 0 },
        { "v0.9.2.dev364+gb432b7a28", true, 0, 9, 2 },
        { "0.6.5.dev", true, 0, 6, 5 },
        { "0.21", true, 0, 21, 0 },
        { "0.14.0rc1.dev417", true, 0, 14, 0 },
        { "", false, 0, 0, 0 },
        { "latest", false, 0, 0, 0 },
        { "1", false, 0, 0, 0 },
        { "0.x", false, 0, 0, 0 },
        { "9999.1", false, 0, 0, 0 },
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        uint32_t ma = 7, mi = 7, pa = 7;
        assert_int_equal(gpuplan_serving_version_parse(rows[i].text, &ma, &mi, &pa), rows[i].ok);
        if (rows[i].ok) {
            assert_int_equal(ma, rows[i].ma);
            assert_int_equal(mi, rows[i].mi);
            assert_int_equal(pa, rows[i].pa);
        }
    }
    assert_false(gpuplan_serving_version_parse(NULL, NULL, NULL, NULL));
}

static void test_names(void **state)
{
    (void)state;
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    enum gpuplan_serving_engine e;
    assert_int_equal(gpuplan_serving_engine_from_name("SGLang", &e, &err), GPUPLAN_OK);
    assert_int_equal(e, GPUPLAN_SERVING_SGLANG);
    assert_int_equal(gpuplan_serving_engine_from_name("trtllm", &e, &err), GPUPLAN_ERR_USAGE);
    assert_non_null(strstr(err.message, "'trtllm'"));
    assert_true(err.hint[0] != '\0');
    enum gpuplan_serving_kv_dtype kv;
    assert_int_equal(gpuplan_serving_kv_dtype_from_name("fp8_e5m2", &kv, &err), GPUPLAN_OK);
    assert_int_equal(kv, GPUPLAN_SERVING_KV_FP8);
    assert_int_equal(gpuplan_serving_kv_dtype_from_name("int3", &kv, &err), GPUPLAN_ERR_USAGE);
    assert_string_equal(gpuplan_serving_kv_dtype_name(GPUPLAN_SERVING_KV_FP32), "fp32");
    assert_string_equal(gpuplan_serving_engine_name(GPUPLAN_SERVING_VLLM), "vllm");
}

static void test_bad_requests(void **state)
{
    (void)state;
    struct gpuplan_serving_profile p;
    profile_of("llama-3.1-8b", &p);
    struct gpuplan_serving_request req;
    struct gpuplan_serving_memory m;
    struct gpuplan_error err;
    static const struct {
        const char *version;
        uint32_t tp, pp;
        double fraction;
        const char *where;
    } rows[] = {
        { "0.5.3", 1, 1, 0.0, "engine_version" }, /* older than modelled */
        { "vllm-latest", 1, 1, 0.0, "engine_version" },
        { "0.11.0", 3, 1, 0.0, "tp" },  /* 32 heads / 3 */
        { "0.11.0", 1, 33, 0.0, "pp" }, /* 32 layers */
        { "0.11.0", 1, 1, 1.5, "memory_fraction" },
        { "0.11.0", 1, 1, NAN, "memory_fraction" },
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        gpuplan_serving_request_init(&req);
        snprintf(req.engine_version, sizeof req.engine_version, "%s", rows[i].version);
        req.tp = rows[i].tp;
        req.pp = rows[i].pp;
        req.memory_fraction = rows[i].fraction;
        gpuplan_error_init(&err);
        assert_int_equal(gpuplan_serving_memory(&p, &req, gpu("h100-sxm"), &m, &err),
                         GPUPLAN_ERR_USAGE);
        assert_string_equal(err.where, rows[i].where);
        assert_true(err.hint[0] != '\0');
    }
    gpuplan_serving_request_init(&req);
    gpuplan_error_init(&err);
    assert_int_equal(gpuplan_serving_memory(&p, &req, NULL, &m, &err), GPUPLAN_ERR_USAGE);
    req.tp = 2;
    req.ep = 2; /* a dense model has no experts to split */
    assert_int_equal(gpuplan_serving_memory(&p, &req, gpu("h100-sxm"), &m, &err),
                     GPUPLAN_ERR_USAGE);
    assert_non_null(strstr(err.message, "routed experts"));
    /* the expert-parallel group is the TP ranks of a stage: ep must divide tp */
    struct gpuplan_serving_profile moe;
    profile_of("mixtral-8x7b", &moe);
    gpuplan_serving_request_init(&req);
    req.tp = 2;
    req.ep = 4;
    gpuplan_error_init(&err);
    assert_int_equal(gpuplan_serving_memory(&moe, &req, gpu("h100-sxm"), &m, &err),
                     GPUPLAN_ERR_USAGE);
    assert_string_equal(err.where, "ep");
    assert_non_null(strstr(err.message, "tensor parallel size 2"));
    req.tp = 4;
    gpuplan_error_init(&err);
    assert_int_equal(gpuplan_serving_memory(&moe, &req, gpu("h100-sxm"), &m, &err), GPUPLAN_OK);
}

/* ---- weights as loaded -------------------------------------------------------------- */

/* "Model loading took 14.9889 GiB" (Llama-3.1-8B, vllm PR #17122 log): the parameters
 * (8,030,261,248 x 2 B) plus the rotary cos/sin cache, 131072 x 128 x 2 B. */
static void test_weights_rotary_cache(void **state)
{
    (void)state;
    struct gpuplan_serving_profile p;
    profile_of("llama-3.1-8b", &p);
    struct gpuplan_serving_request req;
    gpuplan_serving_request_init(&req);
    struct gpuplan_serving_memory m;
    memory_ok(&p, &req, "h100-sxm", &m);
    assert_int_equal(m.weights_bytes, 8030261248ULL * 2 + 131072ULL * 128 * 2);
    assert_true(fabs((double)m.weights_bytes / GIB - 14.9889) < 0.0005);
    /* TP 2: everything halves but the rotary cache (norms are replicated: a few KiB). */
    req.tp = 2;
    struct gpuplan_serving_memory m2;
    memory_ok(&p, &req, "h100-sxm", &m2);
    const double half = (8030261248.0 * 2) / 2 + 131072.0 * 128 * 2;
    assert_true(fabs((double)m2.weights_bytes - half) / half < 0.001);
}

/* granite-4.0-micro with --quantization fp8: "Model loading took 3.4244 GiB" (vLLM 0.11.0). */
static void test_weights_fp8(void **state)
{
    (void)state;
    struct gpuplan_serving_profile p;
    profile_of("validation/serving-configs/granite-4.0-micro.json", &p);
    struct gpuplan_serving_request req;
    gpuplan_serving_request_init(&req);
    req.weights_dtype = GPUPLAN_DTYPE_F8_E4M3;
    struct gpuplan_serving_memory m;
    memory_ok(&p, &req, "l40s", &m);
    assert_true(fabs((double)m.weights_bytes / GIB - 3.4244) < 0.001);
}

/* Pipeline stages: the first holds the embedding, the last the head; the worst one counts. */
static void test_weights_pipeline(void **state)
{
    (void)state;
    struct gpuplan_serving_profile p;
    profile_of("llama-3.1-70b", &p);
    struct gpuplan_serving_request req;
    gpuplan_serving_request_init(&req);
    struct gpuplan_serving_memory one, two;
    memory_ok(&p, &req, "h200-sxm", &one);
    req.pp = 2;
    memory_ok(&p, &req, "h200-sxm", &two);
    assert_true(two.weights_bytes < one.weights_bytes / 2 + one.weights_bytes / 50);
    assert_true(two.weights_bytes > one.weights_bytes / 2 - one.weights_bytes / 50);
}

/* ---- KV bytes and blocks ----------------------------------------------------------------- */

/* Llama-3-8B, bf16, block 16: 32 layers x 2 x 8 heads x 128 x 2 B = 128 KiB per token;
 * blocks = floor(available / (16 x 128 KiB)); V1 < 0.22 prints blocks x 16 tokens,
 * >= 0.22 prints int(concurrency x max_model_len). */
static void test_block_rounding(void **state)
{
    (void)state;
    struct gpuplan_serving_profile p;
    profile_of("llama-3-8b", &p);
    struct gpuplan_serving_request req;
    gpuplan_serving_request_init(&req);
    snprintf(req.engine_version, sizeof req.engine_version, "0.11.0");
    req.max_model_len = 8000; /* not a multiple of 16: a request needs 500 blocks */
    struct gpuplan_serving_memory m;
    memory_ok(&p, &req, "h100-sxm", &m);
    assert_int_equal(m.kv_bytes_per_token, 131072);
    assert_int_equal(m.block_size, 16);
    assert_int_equal(m.page_bytes, 16 * 4096);
    assert_int_equal(m.n_kv_groups, 1);
    assert_int_equal(m.group_size, 32);
    assert_int_equal(m.n_blocks, (uint64_t)m.kv_pool_bytes / (16 * 131072));
    assert_int_equal(m.kv_capacity_tokens, m.n_blocks * 16);
    assert_int_equal(m.blocks_per_request, 500);
    assert_true(fabs(m.max_concurrency - (double)m.n_blocks / 500.0) < 1e-9);
    assert_true(has_line(&m, "Available KV cache memory: "));
    assert_true(has_line(&m, "Maximum concurrency for 8,000 tokens per request: "));
    assert_non_null(strstr(m.summary, "GPU KV cache: "));
    assert_non_null(strstr(m.summary, "at 8,000 tokens"));

    snprintf(req.engine_version, sizeof req.engine_version, "0.22.0");
    struct gpuplan_serving_memory n;
    memory_ok(&p, &req, "h100-sxm", &n);
    assert_int_equal(n.kv_capacity_tokens, (uint64_t)(n.max_concurrency * 8000.0));
    assert_true(has_line(&n, "Estimated CUDA graph memory: "));
    assert_true(n.cuda_graph_subtracted);
    assert_true(n.kv_pool_bytes < m.kv_pool_bytes); /* the graph estimate is subtracted */
}

/* MLA caches one latent of kv_lora_rank + qk_rope_head_dim per token per layer, on every
 * TP rank (MLAAttentionSpec; vllm#51454); FlashMLA's 64-token blocks on Hopper. */
static void test_mla_kv(void **state)
{
    (void)state;
    struct gpuplan_serving_profile p;
    profile_of("deepseek-v3", &p);
    assert_true(p.is_mla);
    assert_int_equal(p.head_dim, 576);
    struct gpuplan_serving_request req;
    gpuplan_serving_request_init(&req);
    req.tp = 8;
    struct gpuplan_serving_memory m;
    memory_ok(&p, &req, "h200-sxm", &m);
    assert_int_equal(m.kv_bytes_per_token, 61ULL * 576 * 2); /* 68.6 KiB, not split by TP */
    assert_int_equal(m.block_size, 64);
    memory_ok(&p, &req, "a100-80gb-sxm", &m);
    assert_int_equal(m.block_size, 16);
    req.kv_dtype = GPUPLAN_SERVING_KV_FP8;
    memory_ok(&p, &req, "h200-sxm", &m);
    assert_int_equal(m.kv_bytes_per_token, 61ULL * 576);
}

/* gpt-oss-120b (vllm#27508, 0.11, refused): 18 full + 18 sliding-128 layers, 8 KV heads x 64,
 * bf16, block 16, max_num_batched_tokens 1024, max_model_len 131072: "4.54 GiB KV cache is
 * needed" = 18 layers x 32 KiB pages x (8192 full + 73 sliding blocks). */
static void test_sliding_window_groups(void **state)
{
    (void)state;
    struct gpuplan_serving_profile p;
    hand_profile(&p, 36, 64, 8, 64);
    p.n_attn_layers[GPUPLAN_SERVING_ATTN_FULL] = 18;
    p.n_attn_layers[GPUPLAN_SERVING_ATTN_SLIDING] = 18;
    p.window_tokens[GPUPLAN_SERVING_ATTN_SLIDING] = 128;
    p.dense_block.bytes[GPUPLAN_SERVING_W_REPLICATED] = (uint64_t)(2.0 * GIB); /* 72 GiB */
    struct gpuplan_serving_request req;
    gpuplan_serving_request_init(&req);
    snprintf(req.engine_version, sizeof req.engine_version, "0.11.0");
    req.memory_fraction = 0.95;
    req.max_model_len = 131072;
    req.max_num_batched_tokens = 1024;
    struct gpuplan_serving_memory m;
    memory_ok(&p, &req, "h100-sxm", &m);
    assert_int_equal(m.n_kv_groups, 2);
    assert_int_equal(m.group_size, 18);
    assert_int_equal(m.page_bytes, 32768);
    assert_int_equal(m.blocks_per_request, 8192 + 73);
    assert_int_equal(m.kv_needed_bytes, 18ULL * 32768 * (8192 + 73));
    assert_true(fabs((double)m.kv_needed_bytes / GIB - 4.54) < 0.005);
    assert_true(m.refuse_start);
    assert_true(has_line(&m, "4.54 GiB KV cache is needed"));
    /* The hybrid manager off: every layer pages the whole context. */
    req.disable_hybrid_kv = true;
    memory_ok(&p, &req, "h100-sxm", &m);
    assert_int_equal(m.n_kv_groups, 1);
    assert_int_equal(m.kv_needed_bytes, 36ULL * 32768 * 8192);
}

/* Layouts derived from the config: Gemma 2 alternates (even layers slide), Gemma 3 keeps
 * one full layer in six. */
static void test_layout_derivation(void **state)
{
    (void)state;
    struct gpuplan_serving_profile p;
    profile_of("gemma-2-9b", &p);
    assert_int_equal(p.n_layers, 42);
    assert_int_equal(p.n_attn_layers[GPUPLAN_SERVING_ATTN_SLIDING], 21);
    assert_int_equal(p.n_attn_layers[GPUPLAN_SERVING_ATTN_FULL], 21);
    assert_int_equal(p.window_tokens[GPUPLAN_SERVING_ATTN_SLIDING], 4096);
    profile_of("gemma-3-27b", &p);
    assert_int_equal(p.n_layers, 62);
    assert_int_equal(p.n_attn_layers[GPUPLAN_SERVING_ATTN_FULL], 10);
    assert_int_equal(p.n_attn_layers[GPUPLAN_SERVING_ATTN_SLIDING], 52);
    assert_non_null(strstr(p.layout_note, "1 full layer in 6"));
    /* A Gemma 3 pool on vLLM >= 0.10 holds many more tokens than one paging every layer. */
    struct gpuplan_serving_request req;
    gpuplan_serving_request_init(&req);
    req.max_model_len = 131072;
    struct gpuplan_serving_memory hybrid, flat;
    memory_ok(&p, &req, "h200-sxm", &hybrid);
    req.disable_hybrid_kv = true;
    memory_ok(&p, &req, "h200-sxm", &flat);
    assert_true(hybrid.max_concurrency > 3.0 * flat.max_concurrency);
    profile_of("llama-3.1-8b", &p);
    assert_int_equal(p.n_attn_layers[GPUPLAN_SERVING_ATTN_FULL], 32);
    assert_int_equal(p.n_attn_layers[GPUPLAN_SERVING_ATTN_SLIDING], 0);
}

/* kv-cache-dtype auto follows the model dtype: fp32 models cache 4 bytes per element. */
static void test_kv_dtype_auto(void **state)
{
    (void)state;
    struct gpuplan_serving_profile p;
    hand_profile(&p, 16, 16, 16, 64);
    struct gpuplan_serving_request req;
    gpuplan_serving_request_init(&req);
    req.max_model_len = 4096;
    struct gpuplan_serving_memory m;
    memory_ok(&p, &req, "h100-sxm", &m);
    assert_int_equal(m.kv_element, GPUPLAN_DTYPE_BF16);
    assert_int_equal(m.kv_bytes_per_token, 16ULL * 2 * 16 * 64 * 2);
    p.model_dtype = GPUPLAN_DTYPE_F32;
    memory_ok(&p, &req, "h100-sxm", &m);
    assert_int_equal(m.kv_element, GPUPLAN_DTYPE_F32);
    assert_int_equal(m.kv_bytes_per_token, 16ULL * 2 * 16 * 64 * 4);
    p.model_dtype = GPUPLAN_DTYPE_F16;
    memory_ok(&p, &req, "h100-sxm", &m);
    assert_int_equal(m.kv_element, GPUPLAN_DTYPE_F16);
    req.kv_dtype = GPUPLAN_SERVING_KV_FP8;
    memory_ok(&p, &req, "h100-sxm", &m);
    assert_int_equal(m.kv_bytes_per_token, 16ULL * 2 * 16 * 64);
}

/* KV heads split over TP, replicated once TP exceeds them (QKVParallelLinear). */
static void test_kv_heads_per_rank(void **state)
{
    (void)state;
    struct gpuplan_serving_profile p;
    profile_of("llama-3.1-405b", &p);
    struct gpuplan_serving_request req;
    gpuplan_serving_request_init(&req);
    req.tp = 8; /* 8 KV heads: one per rank, 126 x 512 B = 63 KiB per token per GPU */
    struct gpuplan_serving_memory m;
    memory_ok(&p, &req, "h200-sxm", &m);
    assert_int_equal(m.kv_bytes_per_token, 126ULL * 512);
    req.tp = 16; /* still one KV head per rank */
    memory_ok(&p, &req, "b200", &m);
    assert_int_equal(m.kv_bytes_per_token, 126ULL * 512);
}

/* ---- overheads ------------------------------------------------------------------------ */

static void test_non_torch_tp(void **state)
{
    (void)state;
    struct gpuplan_serving_profile p;
    profile_of("llama-3.1-8b", &p);
    struct gpuplan_serving_request req;
    gpuplan_serving_request_init(&req);
    struct gpuplan_serving_memory one, two;
    memory_ok(&p, &req, "h100-sxm", &one);
    req.tp = 2;
    memory_ok(&p, &req, "h100-sxm", &two);
    assert_true(fabs((double)one.non_torch_bytes / GIB - 0.10) < 1e-6);
    assert_int_equal(two.non_torch_bytes - one.non_torch_bytes, 256ULL * GPUPLAN_BYTES_PER_MIB);
}

/* V1 >= 0.9 batch defaults: >= 70 GiB and not A100 -> 8192 tokens / 1024 sequences
 * (LLM class 16384); else 2048 / 256 (LLM class 8192); 0.27: 16384 on >= 160 GiB. */
static void test_batch_defaults(void **state)
{
    (void)state;
    struct gpuplan_serving_profile p;
    profile_of("llama-3.1-8b", &p);
    struct gpuplan_serving_request req;
    gpuplan_serving_request_init(&req);
    snprintf(req.engine_version, sizeof req.engine_version, "0.11.0");
    static const struct {
        const char *gpu;
        bool offline;
        uint64_t mnbt;
        uint32_t seqs;
    } rows[] = {
        { "h100-sxm", false, 8192, 1024 },     { "h100-sxm", true, 16384, 1024 },
        { "a100-80gb-sxm", false, 2048, 256 }, { "l40s", false, 2048, 256 },
        { "l40s", true, 8192, 256 },
    };
    struct gpuplan_serving_memory m;
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        req.offline = rows[i].offline;
        memory_ok(&p, &req, rows[i].gpu, &m);
        assert_int_equal(m.max_num_batched_tokens, rows[i].mnbt);
        assert_int_equal(m.max_num_seqs, rows[i].seqs);
    }
    req.offline = false;
    snprintf(req.engine_version, sizeof req.engine_version, "0.27.0");
    memory_ok(&p, &req, "b200", &m);
    assert_int_equal(m.max_num_batched_tokens, 16384);
    /* V0: max(max_model_len, 2048) without chunked prefill. */
    snprintf(req.engine_version, sizeof req.engine_version, "0.7.2");
    req.max_model_len = 4096;
    memory_ok(&p, &req, "l40s", &m);
    assert_int_equal(m.max_num_batched_tokens, 4096);
    assert_string_equal(m.engine_generation, "vllm-v0");
    assert_true(has_line(&m, "# GPU blocks: "));
    assert_true(has_line(&m, "gpu_memory_utilization (0.90)"));
}

/* ---- refusals and graph capture ------------------------------------------------------ */

/* One request of max_model_len must fit: vLLM refuses otherwise and names the largest
 * length that fits; that length starts, one block more does not. */
static void test_refusal_largest_len(void **state)
{
    (void)state;
    struct gpuplan_serving_profile p;
    profile_of("qwen3-30b-a3b", &p); /* 48 layers x 4 KV heads x 128: 96 KiB per token */
    struct gpuplan_serving_request req;
    gpuplan_serving_request_init(&req);
    snprintf(req.engine_version, sizeof req.engine_version, "0.15.2");
    req.weights_dtype = GPUPLAN_DTYPE_F8_E4M3;
    req.max_model_len = 262144;
    struct gpuplan_serving_memory m;
    memory_ok(&p, &req, "l40s", &m);
    assert_int_equal(m.kv_bytes_per_token, 96ULL * 1024);
    assert_true(m.refuse_start);
    assert_int_equal(m.kv_needed_bytes, 262144ULL * 96 * 1024); /* 24.0 GiB, as vllm#34076 */
    const uint64_t largest = m.largest_max_model_len;
    assert_true(largest > 0 && largest < 262144);
    /* Full attention: block-granular, floor(available / (layers x page)) x block. */
    assert_int_equal(largest, (uint64_t)m.kv_pool_bytes / (48ULL * 16 * 2048) * 16);
    assert_true(has_line(&m, "the estimated maximum model length is"));
    assert_non_null(strstr(m.summary, "will refuse to start"));
    assert_non_null(strstr(m.advice, "--max-model-len"));
    req.max_model_len = largest;
    memory_ok(&p, &req, "l40s", &m);
    assert_false(m.refuse_start);
    req.max_model_len = largest + 16;
    memory_ok(&p, &req, "l40s", &m);
    assert_true(m.refuse_start);
    /* vllm#34076's own numbers: 3.18 GiB available (rounded in the log) / 96 KiB per token
     * -> 34736 tokens = 2171 blocks; 2171 blocks take 3.1802 GiB. */
    assert_int_equal((uint64_t)(3.1802 * GIB) / (48ULL * 16 * 2048) * 16, 34736);
    /* Nothing left at all: "No available memory for the cache blocks". */
    req.max_model_len = 4096;
    req.memory_fraction = 0.5;
    memory_ok(&p, &req, "l40s", &m);
    assert_true(m.refuse_start);
    assert_true(m.kv_pool_bytes <= 0);
    assert_int_equal(m.largest_max_model_len, 0);
    assert_true(has_line(&m, "No available memory for the cache blocks"));
}

/* Graphs are captured after the pool before 0.21: at 0.99 utilisation there is no room. */
static void test_graph_capture_oom(void **state)
{
    (void)state;
    struct gpuplan_serving_profile p;
    profile_of("llama-3.1-8b", &p);
    struct gpuplan_serving_request req;
    gpuplan_serving_request_init(&req);
    snprintf(req.engine_version, sizeof req.engine_version, "0.11.0");
    req.memory_fraction = 0.995;
    req.max_model_len = 8192;
    struct gpuplan_serving_memory m;
    memory_ok(&p, &req, "h100-sxm", &m);
    assert_true(m.cuda_graph_bytes > 0);
    assert_true(m.graph_capture_oom);
    assert_non_null(strstr(m.advice, "--enforce-eager"));
    req.enforce_eager = true;
    memory_ok(&p, &req, "h100-sxm", &m);
    assert_int_equal(m.cuda_graph_bytes, 0);
    assert_false(m.graph_capture_oom);
    /* At the default utilisation it fits. */
    req.enforce_eager = false;
    req.memory_fraction = 0;
    memory_ok(&p, &req, "h100-sxm", &m);
    assert_false(m.graph_capture_oom);
}

/* ---- SGLang ------------------------------------------------------------------------------- */

/* mem_fraction_static defaults: PR #10975's heuristic (>= 0.5.4) and the TP table (0.4.x). */
static void test_sglang_fraction_defaults(void **state)
{
    (void)state;
    struct gpuplan_serving_profile p;
    profile_of("llama-3.1-70b", &p);
    struct gpuplan_serving_request req;
    gpuplan_serving_request_init(&req);
    req.engine = GPUPLAN_SERVING_SGLANG;
    static const struct {
        const char *version;
        const char *gpu;
        uint32_t tp;
        double fraction;
        uint64_t chunk;
    } rows[] = {
        /* H100: (81562 - (512 + 8192 x 1.5 + 256 x 2 + 1 / 8 x 1024)) / 81562 */
        { "0.5.7", "h100-sxm", 1, 0.835, 8192 },
        /* TP 8: cuda_graph_max_bs 512, + 8 / 8 x 1024 */
        { "0.5.7", "h100-sxm", 8, 0.818, 8192 },
        { "0.4.3", "h100-sxm", 4, 0.85, 8192 },
        { "0.4.3", "h100-sxm", 8, 0.81, 8192 },
        { "0.4.3", "h100-sxm", 2, 0.87, 8192 },
    };
    struct gpuplan_serving_memory m;
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        snprintf(req.engine_version, sizeof req.engine_version, "%s", rows[i].version);
        req.tp = rows[i].tp;
        memory_ok(&p, &req, rows[i].gpu, &m);
        assert_true(fabs(m.memory_fraction - rows[i].fraction) < 1e-9);
        assert_int_equal(m.max_num_batched_tokens, rows[i].chunk);
    }
    /* rest = free x fraction - weights; tokens = rest / (KV bytes per token), page 1. */
    req.tp = 4;
    snprintf(req.engine_version, sizeof req.engine_version, "0.4.3");
    memory_ok(&p, &req, "h100-sxm", &m);
    assert_int_equal(m.block_size, 1);
    const double rest = (double)m.free_at_start_bytes * 0.85 - (double)m.weights_bytes;
    assert_int_equal(m.kv_capacity_tokens, (uint64_t)floor(rest / (double)m.kv_bytes_per_token));
    assert_true(has_line(&m, "KV Cache is allocated. #tokens: "));
}

/* A refused SGLang start and the smallest fraction that would leave a pool: InferenceX#2128,
 * weights 125.65 GB of 137.9 GB free (avail 12.25 GB) -> 0.9113 printed. */
static void test_sglang_refusal(void **state)
{
    (void)state;
    struct gpuplan_serving_profile p;
    hand_profile(&p, 1, 128, 1, 128);
    p.max_position_embeddings = 0; /* no rotary cache: weights exactly as filled */
    p.rotary_dim = 0;
    p.vocab = 0;
    p.dense_block.bytes[GPUPLAN_SERVING_W_REPLICATED] = (uint64_t)(125.65 * GIB);
    struct gpuplan_serving_request req;
    gpuplan_serving_request_init(&req);
    req.engine = GPUPLAN_SERVING_SGLANG;
    req.memory_fraction = 0.88;
    req.max_model_len = 8192;
    req.device_free_bytes = (uint64_t)(137.9 * GIB);
    struct gpuplan_serving_memory m;
    memory_ok(&p, &req, "h200-sxm", &m);
    assert_true(m.refuse_start);
    assert_true(fabs(m.min_memory_fraction - 0.9112) < 0.0002);
    assert_true(has_line(&m, "Loaded weights leave no GPU memory for the KV cache"));
    assert_non_null(strstr(m.advice, "--mem-fraction-static"));
    req.memory_fraction = 0.95;
    memory_ok(&p, &req, "h200-sxm", &m);
    assert_false(m.refuse_start);
}

/*
 * SGLang counts the weights as its free memory drops (model_runner.py load_model): the
 * caching allocator's segments and its fp32 rotary cache. The slack is SGLang's weights
 * minus vLLM's with the rotary cache in fp32 instead of bf16.
 */
static uint64_t
sglang_slack(const char *model, uint32_t tp, enum gpuplan_dtype weights, const char *g)
{
    struct gpuplan_serving_profile p;
    profile_of(model, &p);
    struct gpuplan_serving_request req;
    gpuplan_serving_request_init(&req);
    req.tp = tp;
    req.weights_dtype = weights;
    struct gpuplan_serving_memory v, s;
    memory_ok(&p, &req, g, &v);
    req.engine = GPUPLAN_SERVING_SGLANG;
    memory_ok(&p, &req, g, &s);
    const uint64_t rope = p.max_position_embeddings * p.rotary_dim;
    return s.weights_bytes - (v.weights_bytes - rope * 2 + rope * 4);
}

static void test_sglang_weights_allocator(void **state)
{
    (void)state;
    const uint64_t mib = 1ULL << 20;
    /* Llama-3.1-8B: every linear a multiple of 2 MiB, no slack; the 131072 x 128 fp32
     * rotary cache (64 MiB): 15.02 GiB, as SGLang logs on a 24 GB card (SV-S08). */
    assert_int_equal(sglang_slack("llama-3.1-8b", 1, GPUPLAN_DTYPE_UNKNOWN, "h100-sxm"), 0);
    struct gpuplan_serving_profile p;
    profile_of("llama-3.1-8b", &p);
    struct gpuplan_serving_request req;
    gpuplan_serving_request_init(&req);
    req.engine = GPUPLAN_SERVING_SGLANG;
    struct gpuplan_serving_memory m;
    memory_ok(&p, &req, "h100-sxm", &m);
    assert_int_equal(m.weights_bytes, 8030261248ULL * 2 + 131072ULL * 128 * 4);
    /* Off CUDA (ROCm) the cache is cast to the model dtype: vLLM's figure. */
    memory_ok(&p, &req, "mi300x", &m);
    assert_int_equal(m.weights_bytes, 8030261248ULL * 2 + 131072ULL * 128 * 2);
    /* Qwen3-0.6B: qkv 8 + o 4 + down 6 MiB share one 20 MiB segment a layer (2 MiB left),
     * gate_up 12 MiB its own; the 296.75 MiB embedding takes a 298 MiB segment:
     * 28 x 2 + 1.25 MiB. */
    assert_int_equal(sglang_slack("qwen3-0.6b", 1, GPUPLAN_DTYPE_UNKNOWN, "l4"),
                     28 * 2 * mib + 5 * mib / 4);
    /* QwQ-32B (Qwen2.5-32B shape) at TP 4, per layer: qkv 17.5 -> 18, o 12.5 -> 14,
     * gate_up 135 -> 136, down 67.5 -> 68 MiB; embedding and head 371.25 -> 372:
     * 64 x 3.5 + 1.5 MiB = 0.22 GiB, SGLang's logged 15.54 GB (SV-K23). */
    assert_int_equal(sglang_slack("qwen2.5-32b", 4, GPUPLAN_DTYPE_UNKNOWN, "l4"),
                     64 * 7 * mib / 2 + 3 * mib / 2);
    profile_of("qwen2.5-32b", &p);
    req.tp = 4;
    req.memory_fraction = 0.85;
    req.device_free_bytes = (uint64_t)(21.63 * GIB);
    memory_ok(&p, &req, "l4", &m);
    assert_true(fabs((double)m.weights_bytes / GIB - 15.54) < 0.005);
    assert_true(llabs((long long)m.kv_capacity_tokens - 46611) < 50);
    /* Weight formats (online fp8, packed 4-bit with scales) are not simulated. */
    assert_int_equal(sglang_slack("qwen3-0.6b", 1, GPUPLAN_DTYPE_AWQ4, "l4"), 0);
    assert_int_equal(sglang_slack("qwen3-0.6b", 1, GPUPLAN_DTYPE_F8_E4M3, "l4"), 0);
}

/* ---- step time ------------------------------------------------------------------------------ */

static double tpot(const struct gpuplan_serving_profile *p,
                   uint32_t tp,
                   uint32_t pp,
                   bool eager,
                   const char *gpu_id,
                   uint64_t batch)
{
    struct gpuplan_serving_request req;
    gpuplan_serving_request_init(&req);
    req.tp = tp;
    req.pp = pp;
    req.enforce_eager = eager;
    struct gpuplan_serving_step s;
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    assert_int_equal(gpuplan_serving_step_time(p, &req, gpu(gpu_id), batch, 2048, 0, &s, &err),
                     GPUPLAN_OK);
    return s.step_s;
}

/* More TP shortens one user's step; PP never does (stages run one after another, plus
 * hops); eager adds the host launches; a larger batch takes longer per step. */
static void test_decode_time_monotonic(void **state)
{
    (void)state;
    struct gpuplan_serving_profile p;
    profile_of("llama-3.1-70b", &p);
    const double t1 = tpot(&p, 1, 1, false, "h200-sxm", 1);
    const double t2 = tpot(&p, 2, 1, false, "h200-sxm", 1);
    const double t4 = tpot(&p, 4, 1, false, "h200-sxm", 1);
    const double t8 = tpot(&p, 8, 1, false, "h200-sxm", 1);
    assert_true(t1 > t2 && t2 > t4 && t4 > t8);
    assert_true(tpot(&p, 4, 2, false, "h200-sxm", 1) > t4);
    assert_true(tpot(&p, 1, 2, false, "h200-sxm", 1) > t1);
    assert_true(tpot(&p, 8, 1, true, "h200-sxm", 1) > t8);
    assert_true(tpot(&p, 8, 1, false, "h200-sxm", 64) > t8);
    /* Fixed per-layer costs: even TP 8 stays well above bandwidth alone. */
    struct gpuplan_serving_request req;
    gpuplan_serving_request_init(&req);
    req.tp = 8;
    struct gpuplan_serving_step s;
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    assert_int_equal(gpuplan_serving_step_time(&p, &req, gpu("h200-sxm"), 1, 2048, 0, &s, &err),
                     GPUPLAN_OK);
    assert_true(s.allreduce_s > 0 && s.layer_overhead_s > s.weights_s / 2);
}

/* Issue 14: one user of DeepSeek-R1 on 8 x H200 gets tens of tokens/s, not 326. */
static void test_deepseek_single_user(void **state)
{
    (void)state;
    struct gpuplan_serving_profile p;
    profile_of("deepseek-r1", &p);
    const double tok_s = 1.0 / tpot(&p, 8, 1, false, "h200-sxm", 1);
    assert_true(tok_s > 20.0 && tok_s < 100.0);
}

/* Steady state: more concurrency, more tokens/s, slower per user; the pool caps it. */
static void test_steady_state(void **state)
{
    (void)state;
    struct gpuplan_serving_profile p;
    profile_of("llama-3.1-8b", &p);
    struct gpuplan_serving_request req;
    gpuplan_serving_request_init(&req);
    req.max_model_len = 8192;
    struct gpuplan_serving_memory m;
    memory_ok(&p, &req, "h100-sxm", &m);
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    struct gpuplan_serving_load load = { 1024, 256, 1 };
    struct gpuplan_serving_steady one, many;
    assert_int_equal(gpuplan_serving_steady_state(&p, &req, gpu("h100-sxm"), &m, &load, &one, &err),
                     GPUPLAN_OK);
    load.concurrency = 64;
    assert_int_equal(
        gpuplan_serving_steady_state(&p, &req, gpu("h100-sxm"), &m, &load, &many, &err),
        GPUPLAN_OK);
    assert_true(many.output_tokens_per_s > 10.0 * one.output_tokens_per_s);
    assert_true(many.tpot_s > one.tpot_s);
    assert_true(one.ttft_s > 0 && one.tpot_s > 0);
    load.concurrency = 100000;
    assert_int_equal(
        gpuplan_serving_steady_state(&p, &req, gpu("h100-sxm"), &m, &load, &many, &err),
        GPUPLAN_OK);
    assert_true(many.concurrency <= m.max_num_seqs);
    load.output_tokens = 0;
    assert_int_equal(
        gpuplan_serving_steady_state(&p, &req, gpu("h100-sxm"), &m, &load, &many, &err),
        GPUPLAN_ERR_USAGE);
}

/* Device totals: the engines' logged figure where the table has one, else a derivation. */
static void test_device_total(void **state)
{
    (void)state;
    assert_true(fabs((double)gpuplan_serving_device_total_bytes(gpu("h100-sxm")) / GIB - 79.22) <
                1e-6);
    const double h200 = (double)gpuplan_serving_device_total_bytes(gpu("h200-sxm")) / GIB;
    assert_true(h200 > 139.0 && h200 < 141.0);
    assert_int_equal(gpuplan_serving_device_total_bytes(NULL), 0);
}

/*
 * The CUDA context follows the compute capability's major number as parsed
 * at catalog load: a two-digit major (Blackwell's "10.0", "12.0") is Hopper
 * or later, not "1". Another vendor's GPU gets serving's 600 MiB.
 */
static void test_cuda_context(void **state)
{
    (void)state;
    const double mib = (double)GPUPLAN_BYTES_PER_MIB;
    assert_true(serving_cuda_context_bytes(gpu("t4")) == 400.0 * mib);
    assert_true(serving_cuda_context_bytes(gpu("a100-80gb-sxm")) == 500.0 * mib);
    assert_true(serving_cuda_context_bytes(gpu("h100-sxm")) == 600.0 * mib);
    assert_true(serving_cuda_context_bytes(gpu("b200")) == 600.0 * mib);
    assert_true(serving_cuda_context_bytes(gpu("rtx-5090")) == 600.0 * mib);
    assert_true(serving_cuda_context_bytes(gpu("mi300x")) == 600.0 * mib);
    assert_true(serving_cuda_context_bytes(NULL) == 500.0 * mib);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_version_parse),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_bad_requests),
        cmocka_unit_test(test_weights_rotary_cache),
        cmocka_unit_test(test_weights_fp8),
        cmocka_unit_test(test_weights_pipeline),
        cmocka_unit_test(test_block_rounding),
        cmocka_unit_test(test_mla_kv),
        cmocka_unit_test(test_sliding_window_groups),
        cmocka_unit_test(test_layout_derivation),
        cmocka_unit_test(test_kv_dtype_auto),
        cmocka_unit_test(test_kv_heads_per_rank),
        cmocka_unit_test(test_non_torch_tp),
        cmocka_unit_test(test_batch_defaults),
        cmocka_unit_test(test_refusal_largest_len),
        cmocka_unit_test(test_graph_capture_oom),
        cmocka_unit_test(test_sglang_fraction_defaults),
        cmocka_unit_test(test_sglang_refusal),
        cmocka_unit_test(test_sglang_weights_allocator),
        cmocka_unit_test(test_decode_time_monotonic),
        cmocka_unit_test(test_deepseek_single_user),
        cmocka_unit_test(test_steady_state),
        cmocka_unit_test(test_device_total),
        cmocka_unit_test(test_cuda_context),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
