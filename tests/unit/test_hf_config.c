/*
 * test_hf_config.c - config.json -> tensor inventory: exact parameter counts
 * for every fixture in tests/fixtures/README.md, architecture
 * fields, tensor shapes, family rules (ties, biases, experts), and bad input.
 *
 * Expected totals come from the fixture README (computed and cross-checked
 * there against safetensors indexes and keras-hub presets), never from this
 * code. Synthetic configs for families without a fixture (falcon, bloom, mpt,
 * gpt_neox, qwen2_moe, gemma3) are checked against the published counts
 * noted on each row.
 */
#include "test_common.h"

#include <jansson.h>

#include "gpuplan/model.h"

struct fixture_row {
    const char *file;
    uint64_t total;
    uint64_t active; /* 0: same as total */
    uint32_t n_layers;
    uint64_t hidden, heads, kv_heads, head_dim, intermediate, vocab;
    uint32_t experts, top_k;
    bool tied;
};

static const struct fixture_row fixture_rows[] = {
    { "llama-3.1-8b.json", 8030261248ULL, 0, 32, 4096, 32, 8, 128, 14336, 128256, 0, 0, false },
    { "llama-3.1-70b.json", 70553706496ULL, 0, 80, 8192, 64, 8, 128, 28672, 128256, 0, 0, false },
    { "llama-3.1-405b.json", 405853388800ULL, 0, 126, 16384, 128, 8, 128, 53248, 128256, 0, 0,
      false },
    { "llama-3.2-1b.json", 1235814400ULL, 0, 16, 2048, 32, 8, 64, 8192, 128256, 0, 0, true },
    { "llama-3.2-3b.json", 3212749824ULL, 0, 28, 3072, 24, 8, 128, 8192, 128256, 0, 0, true },
    { "mistral-7b-instruct-v0.3.json", 7248023552ULL, 0, 32, 4096, 32, 8, 128, 14336, 32768, 0, 0,
      false },
    { "mixtral-8x7b-v0.1.json", 46702792704ULL, 12879925248ULL, 32, 4096, 32, 8, 128, 14336, 32000,
      8, 2, false },
    { "qwen2.5-7b.json", 7615616512ULL, 0, 28, 3584, 28, 4, 128, 18944, 152064, 0, 0, false },
    { "qwen2.5-72b.json", 72706203648ULL, 0, 80, 8192, 64, 8, 128, 29568, 152064, 0, 0, false },
    { "qwen3-8b.json", 8190735360ULL, 0, 36, 4096, 32, 8, 128, 12288, 151936, 0, 0, false },
    { "qwen3-30b-a3b.json", 30532122624ULL, 3353032704ULL, 48, 2048, 32, 4, 128, 6144, 151936, 128,
      8, false },
    { "deepseek-v3.json", 671026419200ULL, 37552297472ULL, 61, 7168, 128, 128, 192, 18432, 129280,
      256, 8, false },
    { "gemma-2-9b-it.json", 9241705984ULL, 0, 42, 3584, 16, 8, 256, 14336, 256000, 0, 0, true },
    { "phi-3-mini-4k-instruct.json", 3821079552ULL, 0, 32, 3072, 32, 32, 96, 8192, 32064, 0, 0,
      false },
    { "gpt2-large.json", 774030080ULL, 0, 36, 1280, 20, 20, 64, 5120, 50257, 0, 0, true },
    { "t0p.json", 11135332352ULL, 0, 24, 4096, 64, 64, 64, 10240, 32128, 0, 0, false },
};

/* Load a fixture config into *model; fails the test on any error. */
static void load_fixture(const char *file, struct gpuplan_model *model)
{
    char rel[256];
    snprintf(rel, sizeof rel, "hf-configs/%s", file);
    size_t len = 0;
    uint8_t *data = read_file(fixture_path(rel), &len);
    if (!data)
        fail_msg("cannot read fixture %s (run the tests from the repository root)",
                 fixture_path(rel));
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    gpuplan_model_init(model);
    enum gpuplan_status st = gpuplan_model_from_hf_config(model, data, len, file, &err);
    free(data);
    if (st != GPUPLAN_OK)
        fail_msg("%s: %s: %s (%s)", file, err.where, err.message, err.hint);
}

static void test_fixture(void **state)
{
    const struct fixture_row *row = *state;
    struct gpuplan_model m;
    load_fixture(row->file, &m);
    assert_int_equal(m.n_params_total, row->total);
    assert_int_equal(m.n_params_active, row->active ? row->active : row->total);
    const struct gpuplan_arch *a = &m.arch;
    assert_true(m.has_arch);
    assert_string_equal(m.format, "config");
    assert_int_equal(a->n_layers, row->n_layers);
    assert_int_equal(a->hidden_size, row->hidden);
    assert_int_equal(a->n_heads, row->heads);
    assert_int_equal(a->n_kv_heads, row->kv_heads);
    assert_int_equal(a->head_dim, row->head_dim);
    assert_int_equal(a->intermediate_size, row->intermediate);
    assert_int_equal(a->vocab_size, row->vocab);
    assert_int_equal(a->n_experts, row->experts);
    assert_int_equal(a->n_experts_per_token, row->top_k);
    assert_int_equal(a->is_moe, row->experts > 0);
    assert_int_equal(a->tied_embeddings, row->tied);
    assert_int_equal(m.params_by_role[GPUPLAN_ROLE_LM_HEAD],
                     row->tied ? 0 : row->vocab * row->hidden);
    /* Every group is well-formed. */
    for (size_t i = 0; i < m.n_groups; i++) {
        const struct gpuplan_tensor_group *g = &m.groups[i];
        assert_true(g->n_dims >= 1 && g->n_dims <= 2);
        assert_true(g->n_tensors >= 1);
        assert_true(g->layer >= -1 && g->layer < (int32_t)row->n_layers);
        assert_true(g->dtype != GPUPLAN_DTYPE_UNKNOWN);
    }
    gpuplan_model_release(&m);
}

/* Find the first group with `role` in `layer` of `stack`, or NULL. */
static const struct gpuplan_tensor_group *find_group(const struct gpuplan_model *m,
                                                     enum gpuplan_role role,
                                                     enum gpuplan_stack stack,
                                                     int32_t layer)
{
    for (size_t i = 0; i < m->n_groups; i++) {
        const struct gpuplan_tensor_group *g = &m->groups[i];
        if (g->role == role && g->stack == stack && g->layer == layer)
            return g;
    }
    return NULL;
}

static void assert_shape(const struct gpuplan_tensor_group *g, uint64_t d0, uint64_t d1, uint64_t n)
{
    assert_non_null(g);
    assert_int_equal(g->shape[0], d0);
    assert_int_equal(g->n_dims, d1 ? 2 : 1);
    if (d1)
        assert_int_equal(g->shape[1], d1);
    assert_int_equal(g->n_tensors, n);
}

/* gemma-2-9b-it.safetensors.index.json total_size / 2 (BF16) equals the config count. */
static void test_gemma_index(void **state)
{
    (void)state;
    size_t len = 0;
    uint8_t *data =
        read_file(fixture_path("hf-configs/gemma-2-9b-it.safetensors.index.json"), &len);
    assert_non_null(data);
    json_error_t jerr;
    json_t *root = json_loadb((const char *)data, len, 0, &jerr);
    free(data);
    assert_non_null(root);
    const json_t *total = json_object_get(json_object_get(root, "metadata"), "total_size");
    assert_true(json_is_integer(total));
    const uint64_t total_size = (uint64_t)json_integer_value(total);
    json_decref(root);
    assert_int_equal(total_size, 18483411968ULL);
    struct gpuplan_model m;
    load_fixture("gemma-2-9b-it.json", &m);
    assert_int_equal(m.n_params_total, total_size / 2);
    assert_int_equal(m.storage_bytes, total_size);
    gpuplan_model_release(&m);
}

static void test_shapes_llama_qwen(void **state)
{
    (void)state;
    struct gpuplan_model m;
    const enum gpuplan_stack dec = GPUPLAN_STACK_DECODER;
    load_fixture("llama-3.1-8b.json", &m);
    assert_shape(find_group(&m, GPUPLAN_ROLE_ATTN_Q, dec, 0), 4096, 4096, 1);
    assert_shape(find_group(&m, GPUPLAN_ROLE_ATTN_K, dec, 31), 1024, 4096, 1);
    assert_shape(find_group(&m, GPUPLAN_ROLE_MLP_DOWN, dec, 5), 4096, 14336, 1);
    assert_shape(find_group(&m, GPUPLAN_ROLE_EMBEDDING, dec, -1), 128256, 4096, 1);
    assert_int_equal(m.params_by_role[GPUPLAN_ROLE_BIAS], 0);
    assert_int_equal(m.params_by_dtype[GPUPLAN_DTYPE_BF16], m.n_params_total);
    assert_int_equal(m.storage_bytes, 2 * m.n_params_total);
    gpuplan_model_release(&m);

    /* qwen2: q/k/v biases, none on o_proj. */
    load_fixture("qwen2.5-7b.json", &m);
    assert_int_equal(m.params_by_role[GPUPLAN_ROLE_BIAS], 28ULL * (3584 + 512 + 512));
    gpuplan_model_release(&m);

    /* qwen3: q_norm and k_norm of head_dim in every layer. */
    load_fixture("qwen3-8b.json", &m);
    assert_int_equal(m.params_by_role[GPUPLAN_ROLE_NORM], 36ULL * (2 * 4096 + 2 * 128) + 4096);
    assert_true(m.arch.has_qk_norm);
    gpuplan_model_release(&m);
}

static void test_shapes_moe(void **state)
{
    (void)state;
    struct gpuplan_model m;
    const enum gpuplan_stack dec = GPUPLAN_STACK_DECODER;
    load_fixture("mixtral-8x7b-v0.1.json", &m);
    assert_shape(find_group(&m, GPUPLAN_ROLE_EXPERT_GATE, dec, 0), 14336, 4096, 8);
    assert_shape(find_group(&m, GPUPLAN_ROLE_EXPERT_DOWN, dec, 31), 4096, 14336, 8);
    assert_shape(find_group(&m, GPUPLAN_ROLE_ROUTER, dec, 0), 8, 4096, 1);
    assert_null(find_group(&m, GPUPLAN_ROLE_MLP_GATE, dec, 0));
    gpuplan_model_release(&m);

    load_fixture("deepseek-v3.json", &m);
    const struct gpuplan_arch *a = &m.arch;
    assert_true(a->is_mla);
    assert_int_equal(a->n_dense_layers, 3);
    assert_int_equal(a->n_shared_experts, 1);
    assert_int_equal(a->q_lora_rank, 1536);
    assert_int_equal(a->kv_lora_rank, 512);
    assert_shape(find_group(&m, GPUPLAN_ROLE_MLP_GATE, dec, 2), 18432, 7168, 1);
    assert_null(find_group(&m, GPUPLAN_ROLE_MLP_GATE, dec, 3));
    const struct gpuplan_tensor_group *experts = find_group(&m, GPUPLAN_ROLE_EXPERT_UP, dec, 3);
    assert_shape(experts, 2048, 7168, 256);
    assert_int_equal(experts->dtype, GPUPLAN_DTYPE_F8_E4M3);
    assert_shape(find_group(&m, GPUPLAN_ROLE_SHARED_DOWN, dec, 60), 7168, 2048, 1);
    assert_shape(find_group(&m, GPUPLAN_ROLE_MLA_Q_A, dec, 0), 1536, 7168, 1);
    assert_shape(find_group(&m, GPUPLAN_ROLE_MLA_Q_B, dec, 0), 128 * 192, 1536, 1);
    assert_shape(find_group(&m, GPUPLAN_ROLE_MLA_KV_A, dec, 0), 512 + 64, 7168, 1);
    assert_shape(find_group(&m, GPUPLAN_ROLE_MLA_KV_B, dec, 0), 128 * 256, 512, 1);
    assert_shape(find_group(&m, GPUPLAN_ROLE_ATTN_O, dec, 0), 7168, 128 * 128, 1);
    /* Router, embeddings, head and norms stay in torch_dtype; e_score_correction_bias per MoE
     * layer. */
    assert_int_equal(find_group(&m, GPUPLAN_ROLE_ROUTER, dec, 3)->dtype, GPUPLAN_DTYPE_BF16);
    assert_int_equal(find_group(&m, GPUPLAN_ROLE_LM_HEAD, dec, -1)->dtype, GPUPLAN_DTYPE_BF16);
    assert_int_equal(m.params_by_role[GPUPLAN_ROLE_BIAS], 58ULL * 256);
    /* fp8 stores one byte per linear weight: bytes < 2 * params. */
    assert_true(m.storage_bytes < 2 * m.n_params_total);
    assert_true(m.params_by_dtype[GPUPLAN_DTYPE_F8_E4M3] > 600000000000ULL);
    gpuplan_model_release(&m);

    load_fixture("qwen3-30b-a3b.json", &m);
    assert_shape(find_group(&m, GPUPLAN_ROLE_EXPERT_GATE, dec, 47), 768, 2048, 128);
    assert_int_equal(m.arch.moe_intermediate_size, 768);
    assert_int_equal(m.arch.n_dense_layers, 0);
    gpuplan_model_release(&m);
}

static void test_shapes_fused_t5_gpt2(void **state)
{
    (void)state;
    struct gpuplan_model m;
    const enum gpuplan_stack dec = GPUPLAN_STACK_DECODER, enc = GPUPLAN_STACK_ENCODER;
    load_fixture("phi-3-mini-4k-instruct.json", &m);
    assert_shape(find_group(&m, GPUPLAN_ROLE_ATTN_QKV, dec, 0), 3 * 3072, 3072, 1);
    assert_shape(find_group(&m, GPUPLAN_ROLE_MLP_GATE_UP, dec, 0), 2 * 8192, 3072, 1);
    gpuplan_model_release(&m);

    /* GPT-2 Conv1D is stored [in, out]; learned positions; biases everywhere. */
    load_fixture("gpt2-large.json", &m);
    assert_shape(find_group(&m, GPUPLAN_ROLE_ATTN_QKV, dec, 0), 1280, 3840, 1);
    assert_shape(find_group(&m, GPUPLAN_ROLE_MLP_UP, dec, 0), 1280, 5120, 1);
    assert_shape(find_group(&m, GPUPLAN_ROLE_POS_EMBEDDING, dec, -1), 1024, 1280, 1);
    assert_int_equal(m.params_by_role[GPUPLAN_ROLE_BIAS], 36ULL * (3840 + 1280 + 5120 + 1280));
    assert_int_equal(m.params_by_dtype[GPUPLAN_DTYPE_F32], m.n_params_total); /* no torch_dtype */
    gpuplan_model_release(&m);

    load_fixture("t0p.json", &m);
    assert_true(m.arch.is_encoder_decoder);
    assert_int_equal(m.arch.n_encoder_layers, 24);
    assert_true(m.arch.gated_mlp);
    assert_shape(find_group(&m, GPUPLAN_ROLE_REL_POS_BIAS, enc, 0), 32, 64, 1);
    assert_shape(find_group(&m, GPUPLAN_ROLE_REL_POS_BIAS, dec, 0), 32, 64, 1);
    assert_null(find_group(&m, GPUPLAN_ROLE_REL_POS_BIAS, enc, 1));
    assert_int_equal(m.params_by_role[GPUPLAN_ROLE_REL_POS_BIAS], 2 * 32 * 64);
    assert_shape(find_group(&m, GPUPLAN_ROLE_MLP_GATE, enc, 23), 10240, 4096, 1);
    /* decoder: self + cross attention, so two q groups per layer */
    assert_int_equal(m.params_by_role[GPUPLAN_ROLE_ATTN_Q], (24ULL + 2 * 24) * 4096 * 4096);
    gpuplan_model_release(&m);
}

/* Parse an inline JSON config; returns the status, fills *m and *err. */
static enum gpuplan_status
parse_text(const char *text, struct gpuplan_model *m, struct gpuplan_error *err)
{
    gpuplan_error_init(err);
    gpuplan_model_init(m);
    return gpuplan_model_from_hf_config(m, (const uint8_t *)text, strlen(text), "config.json", err);
}

/* Load a fixture, change one key, and parse the result. */
static uint64_t fixture_total_with(const char *file, const char *key, json_t *value)
{
    char rel[256];
    snprintf(rel, sizeof rel, "hf-configs/%s", file);
    size_t len = 0;
    uint8_t *data = read_file(fixture_path(rel), &len);
    assert_non_null(data);
    json_error_t jerr;
    json_t *root = json_loadb((const char *)data, len, 0, &jerr);
    free(data);
    assert_non_null(root);
    json_object_set_new(root, key, value);
    char *text = json_dumps(root, 0);
    json_decref(root);
    assert_non_null(text);
    struct gpuplan_model m;
    struct gpuplan_error err;
    enum gpuplan_status st = parse_text(text, &m, &err);
    free(text);
    if (st != GPUPLAN_OK)
        fail_msg("%s with %s changed: %s", file, key, err.message);
    const uint64_t total = m.n_params_total;
    gpuplan_model_release(&m);
    return total;
}

static void test_tie_toggle(void **state)
{
    (void)state;
    /* Untying Llama-3.2-1B adds an lm_head of vocab x hidden; tying 8B removes one. */
    assert_int_equal(fixture_total_with("llama-3.2-1b.json", "tie_word_embeddings", json_false()),
                     1235814400ULL + 128256ULL * 2048);
    assert_int_equal(fixture_total_with("llama-3.1-8b.json", "tie_word_embeddings", json_true()),
                     8030261248ULL - 128256ULL * 4096);
    /* Without the key, gemma and gpt2 default to tied, llama to untied. */
    assert_int_equal(fixture_total_with("llama-3.2-1b.json", "tie_word_embeddings", json_null()),
                     1235814400ULL + 128256ULL * 2048);
    /* llama attention_bias adds q, k, v, o biases: (32 + 8 + 8 + 32) * 128 per layer. */
    assert_int_equal(fixture_total_with("llama-3.1-8b.json", "attention_bias", json_true()),
                     8030261248ULL + 32ULL * (4096 + 1024 + 1024 + 4096));
    /* qwen3_moe: every second layer dense (decoder_sparse_step 2). */
    const uint64_t moe = 128ULL * 3 * 768 * 2048 + 128 * 2048, dense = 3ULL * 6144 * 2048;
    assert_int_equal(
        fixture_total_with("qwen3-30b-a3b.json", "decoder_sparse_step", json_integer(2)),
        30532122624ULL - 24 * (moe - dense));
    assert_int_equal(
        fixture_total_with("qwen3-30b-a3b.json", "mlp_only_layers", json_pack("[i,i]", 0, 47)),
        30532122624ULL - 2 * (moe - dense));
}

struct synthetic_row {
    const char *name;
    const char *json;
    uint64_t total;
    uint64_t active; /* 0: same as total */
};

/* Published counts: model cards / config-derived figures quoted on each row. */
static const struct synthetic_row synthetic_rows[] = {
    /* tiiuae/falcon-7b: 6,921,720,704 (multi-query, parallel attention, tied head) */
    { "falcon-7b",
      "{\"model_type\":\"falcon\",\"hidden_size\":4544,\"num_attention_heads\":71,\"num_hidden_layers\":32,"
      "\"multi_query\":true,\"parallel_attn\":true,\"bias\":false,\"new_decoder_architecture\":false,"
      "\"vocab_size\":65024,\"torch_dtype\":\"bfloat16\"}",
      6921720704ULL, 0 },
    /* tiiuae/falcon-40b: 41,303,293,952 (new decoder architecture, 8 kv groups) */
    { "falcon-40b",
      "{\"model_type\":\"falcon\",\"hidden_size\":8192,\"num_attention_heads\":128,\"num_kv_heads\":8,"
      "\"num_hidden_layers\":60,\"new_decoder_architecture\":true,\"parallel_attn\":true,\"bias\":false,"
      "\"vocab_size\":65024,\"torch_dtype\":\"bfloat16\"}",
      41303293952ULL, 0 },
    /* bigscience/bloom-7b1: 7,069,016,064 */
    { "bloom-7b1",
      "{\"model_type\":\"bloom\",\"hidden_size\":4096,\"n_head\":32,\"n_layer\":30,\"vocab_size\":250880}",
      7069016064ULL, 0 },
    /* mosaicml/mpt-7b: 6,649,286,656 (no_bias, ALiBi, tied) */
    { "mpt-7b",
      "{\"model_type\":\"mpt\",\"d_model\":4096,\"n_heads\":32,\"n_layers\":32,\"expansion_ratio\":4,"
      "\"max_seq_len\":2048,\"vocab_size\":50432,\"no_bias\":true,\"attn_config\":{\"alibi\":true}}",
      6649286656ULL, 0 },
    /* EleutherAI/gpt-neox-20b: 20,554,567,680 */
    { "gpt-neox-20b",
      "{\"model_type\":\"gpt_neox\",\"hidden_size\":6144,\"num_attention_heads\":64,\"num_hidden_layers\":44,"
      "\"intermediate_size\":24576,\"vocab_size\":50432,\"max_position_embeddings\":2048,"
      "\"tie_word_embeddings\":false}",
      20554567680ULL, 0 },
    /* Qwen/Qwen1.5-MoE-A2.7B: 14.3B total, 2.7B active (60 experts top-4 + shared expert) */
    { "qwen1.5-moe-a2.7b",
      "{\"model_type\":\"qwen2_moe\",\"hidden_size\":2048,\"num_attention_heads\":16,\"num_key_value_heads\":16,"
      "\"num_hidden_layers\":24,\"intermediate_size\":5632,\"moe_intermediate_size\":1408,"
      "\"shared_expert_intermediate_size\":5632,\"num_experts\":60,\"num_experts_per_tok\":4,"
      "\"decoder_sparse_step\":1,\"vocab_size\":151936,\"tie_word_embeddings\":false,"
      "\"torch_dtype\":\"bfloat16\"}",
      14315784192ULL, 2689173504ULL },
    /* google-t5/t5-base (v1.0: ReLU FF, tied head): 222,903,552 */
    { "t5-base",
      "{\"model_type\":\"t5\",\"d_model\":768,\"d_kv\":64,\"d_ff\":3072,\"num_layers\":12,\"num_heads\":12,"
      "\"vocab_size\":32128,\"feed_forward_proj\":\"relu\"}",
      222903552ULL, 0 },
    /* google/gemma-3-1b-pt (gemma3_text): 999,885,952 */
    { "gemma-3-1b",
      "{\"model_type\":\"gemma3_text\",\"hidden_size\":1152,\"num_attention_heads\":4,\"num_key_value_heads\":1,"
      "\"head_dim\":256,\"num_hidden_layers\":26,\"intermediate_size\":6912,\"vocab_size\":262144,"
      "\"torch_dtype\":\"bfloat16\"}",
      999885952ULL, 0 },
    /* gemma-3-1b again, nested the way Gemma3ForConditionalGeneration nests it */
    { "gemma-3-nested",
      "{\"model_type\":\"gemma3\",\"torch_dtype\":\"bfloat16\",\"text_config\":{\"model_type\":\"gemma3_text\","
      "\"hidden_size\":1152,\"num_attention_heads\":4,\"num_key_value_heads\":1,\"num_hidden_layers\":26,"
      "\"intermediate_size\":6912,\"vocab_size\":262144},\"vision_config\":{\"hidden_size\":1152}}",
      999885952ULL, 0 },
};

static void test_synthetic(void **state)
{
    const struct synthetic_row *row = *state;
    struct gpuplan_model m;
    struct gpuplan_error err;
    enum gpuplan_status st = parse_text(row->json, &m, &err);
    if (st != GPUPLAN_OK)
        fail_msg("%s: %s: %s", row->name, err.where, err.message);
    assert_int_equal(m.n_params_total, row->total);
    assert_int_equal(m.n_params_active, row->active ? row->active : row->total);
    gpuplan_model_release(&m);
}

struct bad_row {
    const char *name;
    const char *json;
    enum gpuplan_status code;
    const char *message; /* substring of err.message */
    const char *hint;    /* substring of err.hint, or NULL */
};

#define LLAMA_HEAD \
    "{\"model_type\":\"llama\",\"vocab_size\":32000,\"num_key_value_heads\":8,\"intermediate_size\":1024,"

static const struct bad_row bad_rows[] = {
    { "syntax", "{\"model_type\": \"llama\",", GPUPLAN_ERR_INVALID_INPUT, "invalid JSON",
      "valid UTF-8" },
    { "empty", "", GPUPLAN_ERR_INVALID_INPUT, "empty input", NULL },
    { "array", "[1,2]", GPUPLAN_ERR_INVALID_INPUT, "JSON object", NULL },
    { "no model_type", "{\"hidden_size\":4096}", GPUPLAN_ERR_INVALID_CONFIG,
      "'model_type' is missing", "add 'model_type'" },
    { "model_type type", "{\"model_type\":7}", GPUPLAN_ERR_INVALID_CONFIG,
      "'model_type' must be a string", NULL },
    { "unknown model_type", "{\"model_type\":\"gpt5\"}", GPUPLAN_ERR_UNSUPPORTED,
      "unknown 'model_type' 'gpt5' in 'config.json'", "deepseek_v3" },
    { "zero heads",
      LLAMA_HEAD "\"hidden_size\":4096,\"num_hidden_layers\":2,\"num_attention_heads\":0}",
      GPUPLAN_ERR_INVALID_CONFIG, "'num_attention_heads' is 0 in 'config.json'; must be >= 1",
      NULL },
    { "negative layers",
      LLAMA_HEAD "\"hidden_size\":4096,\"num_hidden_layers\":-3,\"num_attention_heads\":32}",
      GPUPLAN_ERR_INVALID_CONFIG, "'num_hidden_layers' must be a non-negative integer", NULL },
    { "string size",
      LLAMA_HEAD "\"hidden_size\":\"4096\",\"num_hidden_layers\":2,\"num_attention_heads\":32}",
      GPUPLAN_ERR_INVALID_CONFIG, "'hidden_size' must be a non-negative integer", NULL },
    { "fractional size",
      LLAMA_HEAD "\"hidden_size\":4096.5,\"num_hidden_layers\":2,\"num_attention_heads\":32}",
      GPUPLAN_ERR_INVALID_CONFIG, "'hidden_size' must be a non-negative integer", NULL },
    { "missing hidden", LLAMA_HEAD "\"num_hidden_layers\":2,\"num_attention_heads\":32}",
      GPUPLAN_ERR_INVALID_CONFIG, "'hidden_size' is missing in 'config.json'",
      "add 'hidden_size'" },
    { "not divisible",
      LLAMA_HEAD "\"hidden_size\":4097,\"num_hidden_layers\":2,\"num_attention_heads\":32}",
      GPUPLAN_ERR_INVALID_CONFIG, "'hidden_size' 4097 is not divisible by 'num_attention_heads' 32",
      "head_dim" },
    { "kv not dividing",
      "{\"model_type\":\"llama\",\"vocab_size\":32000,\"num_key_value_heads\":5,\"intermediate_size\":1024,"
      "\"hidden_size\":4096,\"num_hidden_layers\":2,\"num_attention_heads\":32}",
      GPUPLAN_ERR_INVALID_CONFIG,
      "'num_key_value_heads' 5 does not divide 'num_attention_heads' 32", NULL },
    { "huge 1e30",
      LLAMA_HEAD "\"hidden_size\":1e30,\"num_hidden_layers\":2,\"num_attention_heads\":32}",
      GPUPLAN_ERR_TOO_LARGE, "'hidden_size' is 1e+30 in 'config.json'; must be <=", NULL },
    { "too many layers",
      LLAMA_HEAD "\"hidden_size\":4096,\"num_hidden_layers\":100000,\"num_attention_heads\":32}",
      GPUPLAN_ERR_TOO_LARGE, "'num_hidden_layers' is 100000 in 'config.json'; must be <= 4096",
      NULL },
    { "tensor over 2^40",
      "{\"model_type\":\"llama\",\"vocab_size\":16777216,\"hidden_size\":16777216,\"num_hidden_layers\":1,"
      "\"num_attention_heads\":1,\"intermediate_size\":1}",
      GPUPLAN_ERR_TOO_LARGE, "element count of 'embedding'", "2^40" },
    { "top-k above experts",
      "{\"model_type\":\"mixtral\",\"vocab_size\":32000,\"hidden_size\":4096,\"num_hidden_layers\":2,"
      "\"num_attention_heads\":32,\"intermediate_size\":1024,\"num_local_experts\":8,"
      "\"num_experts_per_tok\":9}",
      GPUPLAN_ERR_INVALID_CONFIG, "'num_experts_per_tok' is 9 in 'config.json'; must be 1..8",
      NULL },
    { "bad dtype",
      LLAMA_HEAD "\"hidden_size\":4096,\"num_hidden_layers\":2,\"num_attention_heads\":32,"
                 "\"torch_dtype\":\"int8\"}",
      GPUPLAN_ERR_INVALID_CONFIG, "'torch_dtype' is 'int8' in 'config.json'", NULL },
    { "bad mlp_only_layers",
      "{\"model_type\":\"qwen3_moe\",\"vocab_size\":1000,\"hidden_size\":64,\"num_hidden_layers\":2,"
      "\"num_attention_heads\":4,\"mlp_only_layers\":[\"x\"]}",
      GPUPLAN_ERR_INVALID_CONFIG, "'mlp_only_layers' must be an array", NULL },
    { "bad bool",
      LLAMA_HEAD "\"hidden_size\":4096,\"num_hidden_layers\":2,\"num_attention_heads\":32,"
                 "\"tie_word_embeddings\":\"yes\"}",
      GPUPLAN_ERR_INVALID_CONFIG, "'tie_word_embeddings' must be true or false", NULL },
    { "deepseek without kv_lora_rank",
      "{\"model_type\":\"deepseek_v3\",\"vocab_size\":1000,\"hidden_size\":64,\"num_hidden_layers\":2,"
      "\"num_attention_heads\":4,\"intermediate_size\":128,\"qk_nope_head_dim\":16,\"qk_rope_head_dim\":8,"
      "\"v_head_dim\":16}",
      GPUPLAN_ERR_INVALID_CONFIG, "'kv_lora_rank' is missing", NULL },
};

static void test_bad(void **state)
{
    const struct bad_row *row = *state;
    struct gpuplan_model m;
    struct gpuplan_error err;
    enum gpuplan_status st = parse_text(row->json, &m, &err);
    if (st != row->code || !strstr(err.message, row->message) ||
        (row->hint && !strstr(err.hint, row->hint)))
        fail_msg("%s: got %s '%s' (hint '%s', where '%s')", row->name, gpuplan_status_name(st),
                 err.message, err.hint, err.where);
    assert_int_equal(err.code, row->code);
    assert_true(err.where[0] != '\0');
    assert_int_equal(m.n_groups, 0); /* nothing half-built is left */
    gpuplan_model_release(&m);
}

/* Errors carry the JSON path or line:column. */
static void test_error_where(void **state)
{
    (void)state;
    struct gpuplan_model m;
    struct gpuplan_error err;
    assert_int_equal(parse_text("{\n  \"model_type\": \"llama\",\n  \"x\": }", &m, &err),
                     GPUPLAN_ERR_INVALID_INPUT);
    assert_non_null(strstr(err.where, "config.json:3:"));
    assert_int_equal(
        parse_text(LLAMA_HEAD
                   "\"hidden_size\":4096,\"num_hidden_layers\":2,\"num_attention_heads\":0}",
                   &m, &err),
        GPUPLAN_ERR_INVALID_CONFIG);
    assert_string_equal(err.where, "config.json:$.num_attention_heads");
    assert_int_equal(
        parse_text("{\"model_type\":\"gemma3\",\"text_config\":{\"num_attention_heads\":0}}", &m,
                   &err),
        GPUPLAN_ERR_INVALID_CONFIG);
    assert_string_equal(err.where, "config.json:$.text_config.num_attention_heads");
    gpuplan_model_release(&m);
}

#define N_FIXTURES  (sizeof fixture_rows / sizeof fixture_rows[0])
#define N_SYNTHETIC (sizeof synthetic_rows / sizeof synthetic_rows[0])
#define N_BAD       (sizeof bad_rows / sizeof bad_rows[0])

int main(void)
{
    struct CMUnitTest tests[N_FIXTURES + N_SYNTHETIC + N_BAD + 8];
    size_t n = 0;
    for (size_t i = 0; i < N_FIXTURES; i++) {
        const struct CMUnitTest t = { fixture_rows[i].file, test_fixture, NULL, NULL,
                                      (void *)(uintptr_t)&fixture_rows[i] };
        tests[n++] = t;
    }
    for (size_t i = 0; i < N_SYNTHETIC; i++) {
        const struct CMUnitTest t = { synthetic_rows[i].name, test_synthetic, NULL, NULL,
                                      (void *)(uintptr_t)&synthetic_rows[i] };
        tests[n++] = t;
    }
    for (size_t i = 0; i < N_BAD; i++) {
        const struct CMUnitTest t = { bad_rows[i].name, test_bad, NULL, NULL,
                                      (void *)(uintptr_t)&bad_rows[i] };
        tests[n++] = t;
    }
    const struct CMUnitTest fixed[] = {
        cmocka_unit_test(test_gemma_index), cmocka_unit_test(test_shapes_llama_qwen),
        cmocka_unit_test(test_shapes_moe),  cmocka_unit_test(test_shapes_fused_t5_gpt2),
        cmocka_unit_test(test_tie_toggle),  cmocka_unit_test(test_error_where),
    };
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        tests[n++] = fixed[i];
    return _cmocka_run_group_tests("hf_config", tests, n, NULL, NULL);
}
