/*
 * test_gguf.c - GGUF header parsing: the real tiny llama fixture, every
 * prefix of its first 2 KB, and generated bad files built with a small
 * writer (each with its expected status and a distinctive message).
 */
#include "test_common.h"

#include "formats/gguf_internal.h"
#include "gpuplan/model.h"

static uint8_t *load_fixture(size_t *len)
{
    uint8_t *data = read_file(fixture_path("weights/llama-2-tiny-random.gguf"), len);
    assert_non_null(data);
    return data;
}

static void test_fixture(void **state)
{
    (void)state;
    size_t len = 0;
    uint8_t *data = load_fixture(&len);
    assert_int_equal(len, 1750560);
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    struct gpuplan_gguf g;
    assert_int_equal(gpuplan_gguf_parse(data, len, len, "tiny.gguf", &g, &err), GPUPLAN_OK);
    assert_int_equal(g.version, 3);
    assert_int_equal(g.n_tensors, 12);
    assert_int_equal(g.n_kv, 18);
    assert_int_equal(g.alignment, 32);
    assert_int_equal(g.tensor_info_end, 724398);
    assert_int_equal(g.data_start, 724416);
    assert_int_equal(g.data_bytes, 1026144);
    assert_int_equal(g.file_type, 1);
    assert_string_equal(gpuplan_gguf_file_type_name(g.file_type), "MOSTLY_F16");
    const struct gpuplan_gguf_kv *tokens = gpuplan_gguf_find(&g, data, "tokenizer.ggml.tokens");
    assert_non_null(tokens);
    assert_int_equal(tokens->array_count, 32000);
    uint64_t v = 0;
    assert_true(gpuplan_gguf_kv_u64(gpuplan_gguf_find(&g, data, "llama.context_length"), data, &v));
    assert_int_equal(v, 4096);
    gpuplan_gguf_release(&g);

    struct gpuplan_model m;
    gpuplan_model_init(&m);
    assert_int_equal(gpuplan_model_from_gguf(&m, data, len, len, "tiny.gguf", &err), GPUPLAN_OK);
    assert_true(m.has_arch);
    assert_string_equal(m.arch.family, "llama");
    assert_int_equal(m.arch.hidden_size, 8);
    assert_int_equal(m.arch.n_layers, 1);
    assert_int_equal(m.arch.vocab_size, 32000);
    assert_int_equal(m.arch.intermediate_size, 32);
    assert_int_equal(m.arch.n_heads, 2);
    assert_int_equal(m.arch.n_kv_heads, 2);
    assert_int_equal(m.arch.head_dim, 4);
    assert_int_equal(m.arch.max_position_embeddings, 4096);
    assert_true(m.arch.gated_mlp);
    assert_false(m.arch.tied_embeddings);
    assert_int_equal(m.n_params_total, 513048);
    assert_int_equal(m.n_params_active, 513048);
    assert_int_equal(m.n_groups, 12);
    /* token_embd: ne [8, 32000] -> PyTorch [32000, 8]. */
    assert_int_equal(m.groups[0].role, GPUPLAN_ROLE_EMBEDDING);
    assert_int_equal(m.groups[0].shape[0], 32000);
    assert_int_equal(m.groups[0].shape[1], 8);
    assert_int_equal(m.groups[7].role, GPUPLAN_ROLE_MLP_DOWN);
    assert_int_equal(m.groups[7].shape[0], 8);
    assert_int_equal(m.groups[7].shape[1], 32);
    assert_int_equal(m.params_by_dtype[GPUPLAN_DTYPE_F32], 24);
    assert_int_equal(m.params_by_dtype[GPUPLAN_DTYPE_F16], 513024);
    assert_int_equal(m.params_by_role[GPUPLAN_ROLE_LM_HEAD], 256000);
    assert_int_equal(m.storage_bytes, 513024 * 2 + 24 * 4);
    assert_int_equal(m.n_metadata, 18);
    assert_string_equal(m.gguf_file_type, "MOSTLY_F16");
    assert_string_equal(m.format, "gguf");
    gpuplan_model_release(&m);
    free(data);
}

/* Every prefix of the first 2 KB fails cleanly, as a file or as a partial read. */
static void test_prefixes(void **state)
{
    (void)state;
    size_t len = 0;
    uint8_t *data = load_fixture(&len);
    for (size_t k = 0; k <= 2048; k++) {
        uint8_t *copy = malloc(k ? k : 1);
        assert_non_null(copy);
        memcpy(copy, data, k);
        struct gpuplan_error err;
        gpuplan_error_init(&err);
        struct gpuplan_gguf g;
        assert_int_not_equal(gpuplan_gguf_parse(copy, k, k, "prefix", &g, &err), GPUPLAN_OK);
        assert_true(err.message[0] != '\0');
        assert_int_not_equal(gpuplan_gguf_parse(copy, k, len, "prefix", &g, &err), GPUPLAN_OK);
        if (k >= 8)
            assert_true(g.truncated);
        free(copy);
    }
    free(data);
}

/* A little GGUF writer for generated cases. */
struct w {
    uint8_t buf[4096];
    size_t len;
};

static void put(struct w *w, const void *p, size_t n)
{
    assert_true(w->len + n <= sizeof w->buf);
    memcpy(w->buf + w->len, p, n);
    w->len += n;
}

static void u32(struct w *w, uint32_t v)
{
    uint8_t b[4];
    for (int i = 0; i < 4; i++)
        b[i] = (uint8_t)(v >> (8 * i));
    put(w, b, 4);
}

static void u64(struct w *w, uint64_t v)
{
    uint8_t b[8];
    for (int i = 0; i < 8; i++)
        b[i] = (uint8_t)(v >> (8 * i));
    put(w, b, 8);
}

static void str(struct w *w, const char *s)
{
    u64(w, strlen(s));
    put(w, s, strlen(s));
}

static void pad(struct w *w, size_t alignment)
{
    while (w->len % alignment)
        w->buf[w->len++] = 0;
}

/* What to break in the generated file. */
enum fault {
    F_NONE,
    F_MAGIC,
    F_V1,
    F_V4,
    F_BIG_ENDIAN,
    F_HUGE_STRING,
    F_HUGE_ARRAY,
    F_NESTED_BOMB,
    F_UNKNOWN_GGML_TYPE,
    F_REMOVED_GGML_TYPE,
    F_NDIMS_5,
    F_MISALIGNED,
    F_WRONG_OFFSET,
    F_DUP_TENSOR,
    F_DUP_KEY,
    F_BAD_ALIGNMENT,
    F_HUGE_KV_COUNT,
    F_HUGE_TENSOR_COUNT,
    F_LONG_NAME,
    F_BLOCK_REMAINDER,
    F_BAD_BOOL,
    F_BAD_VALUE_TYPE,
    F_NEG_DIM,
    F_DATA_SHORT,
};

/*
 * A MoE-shaped file: arch "tiny", 2 tensors (F32 [32] and a Q8_0 expert
 * stack ne [32, 2, 4] = 4 experts), plus metadata of several types.
 */
static void build(struct w *w, enum fault f)
{
    w->len = 0;
    u32(w, f == F_MAGIC ? 0x46554748U : 0x46554747U);
    u32(w, f == F_V1 ? 1 : f == F_V4 ? 4 : f == F_BIG_ENDIAN ? 0x03000000U : 3);
    u64(w, f == F_HUGE_TENSOR_COUNT ? (1ULL << 60) : f == F_DUP_TENSOR ? 3 : 2);
    const uint64_t n_kv = f == F_HUGE_KV_COUNT ? (1ULL << 60) : f == F_DUP_KEY ? 9 : 8;
    u64(w, n_kv);
    str(w, "general.architecture");
    u32(w, 8);
    str(w, "tiny");
    str(w, "general.alignment");
    u32(w, 4);
    u32(w, f == F_BAD_ALIGNMENT ? 24 : 32);
    str(w, "tiny.block_count");
    u32(w, 0); /* u8 */
    put(w, "\x01", 1);
    str(w, "tiny.expert_count");
    u32(w, 11); /* i64 */
    u64(w, 4);
    str(w, "tiny.expert_used_count");
    u32(w, 2); /* u16 */
    put(w, "\x02\x00", 2);
    str(w, "tiny.feed_forward_length");
    u32(w, 9); /* array of u32, per layer */
    u32(w, 4);
    u64(w, 2);
    u32(w, 16);
    u32(w, 24);
    str(w, "some.flag");
    u32(w, f == F_BAD_VALUE_TYPE ? 13 : 7);
    put(w, f == F_BAD_BOOL ? "\x02" : "\x01", 1);
    str(w, "nested");
    u32(w, 9);
    if (f == F_NESTED_BOMB) {
        for (int i = 0; i < 40; i++) {
            u32(w, 9);
            u64(w, 1);
        }
        u32(w, 0);
        u64(w, 0);
    } else if (f == F_HUGE_ARRAY) {
        u32(w, 10);
        u64(w, 1ULL << 40);
    } else {
        u32(w, 9); /* array of 2 arrays of strings */
        u64(w, 2);
        u32(w, 8);
        u64(w, 1);
        str(w, "x");
        u32(w, 8);
        u64(w, 0);
    }
    if (f == F_DUP_KEY) {
        str(w, "some.flag");
        u32(w, 7);
        put(w, "\x00", 1);
    }
    if (f == F_HUGE_STRING) {
        u64(w, 1ULL << 35);
        put(w, "abc", 3);
    }
    /* tensor 0: blk.0.attn_norm.weight F32 [32] = 128 bytes */
    str(w, f == F_LONG_NAME
               ? "blk.0.attn_norm.weight.aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
               : "blk.0.attn_norm.weight");
    u32(w, f == F_NDIMS_5 ? 5 : 1);
    u64(w, f == F_NEG_DIM ? (uint64_t)-32 : 32);
    if (f == F_NDIMS_5) {
        for (int i = 0; i < 4; i++)
            u64(w, 1);
    }
    u32(w, f == F_UNKNOWN_GGML_TYPE ? 99 : f == F_REMOVED_GGML_TYPE ? 31 : 0);
    u64(w, 0);
    /* tensor 1: blk.0.ffn_gate_exps.weight Q8_0 ne [32, 2, 4]: 8 rows x 34 bytes = 272 */
    str(w, "blk.0.ffn_gate_exps.weight");
    u32(w, 3);
    u64(w, f == F_BLOCK_REMAINDER ? 33 : 32);
    u64(w, 2);
    u64(w, 4);
    u32(w, 8);
    u64(w, f == F_MISALIGNED ? 129 : f == F_WRONG_OFFSET ? 160 : 128);
    if (f == F_DUP_TENSOR) {
        str(w, "blk.0.attn_norm.weight");
        u32(w, 1);
        u64(w, 32);
        u32(w, 0);
        u64(w, 128 + 288);
    }
    pad(w, 32);
    const size_t data = f == F_DUP_TENSOR ? 128 + 288 + 128 : 128 + 288;
    for (size_t i = 0; i < (f == F_DATA_SHORT ? data - 1 : data); i++)
        w->buf[w->len++] = 0;
}

static void test_generated_good(void **state)
{
    (void)state;
    struct w w;
    build(&w, F_NONE);
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    struct gpuplan_model m;
    gpuplan_model_init(&m);
    const enum gpuplan_status st = gpuplan_model_from_gguf(&m, w.buf, w.len, w.len, "gen", &err);
    if (st != GPUPLAN_OK)
        fail_msg("%s: %s", err.where, err.message);
    assert_string_equal(m.arch.family, "tiny");
    assert_int_equal(m.arch.n_layers, 1);
    assert_int_equal(m.arch.n_experts, 4);
    assert_int_equal(m.arch.n_experts_per_token, 2);
    assert_int_equal(m.arch.intermediate_size, 24);
    assert_true(m.arch.is_moe);
    assert_true(m.arch.tied_embeddings);
    assert_int_equal(m.n_groups, 2);
    assert_int_equal(m.groups[1].role, GPUPLAN_ROLE_EXPERT_GATE);
    assert_int_equal(m.groups[1].n_dims, 3);
    assert_int_equal(m.groups[1].shape[0], 4);
    assert_int_equal(m.groups[1].shape[1], 2);
    assert_int_equal(m.groups[1].shape[2], 32);
    assert_int_equal(m.groups[1].n_bytes, 272);
    assert_int_equal(m.n_params_total, 32 + 256);
    /* top-2 of 4 experts: half of the 256 routed parameters are active. */
    assert_int_equal(m.n_params_active, 32 + 128);
    gpuplan_model_release(&m);
}

static const struct {
    enum fault fault;
    enum gpuplan_status code;
    const char *needle;
} bad_cases[] = {
    { F_MAGIC, GPUPLAN_ERR_INVALID_INPUT, "bad magic" },
    { F_V1, GPUPLAN_ERR_UNSUPPORTED, "version 1 is not supported" },
    { F_V4, GPUPLAN_ERR_UNSUPPORTED, "version 4 is not supported" },
    { F_BIG_ENDIAN, GPUPLAN_ERR_UNSUPPORTED, "big-endian" },
    { F_HUGE_STRING, GPUPLAN_ERR_INVALID_INPUT, "exceeds the limit" },
    { F_HUGE_ARRAY, GPUPLAN_ERR_INVALID_INPUT, "array count 1099511627776 is impossible" },
    { F_NESTED_BOMB, GPUPLAN_ERR_INVALID_INPUT, "nested deeper" },
    { F_UNKNOWN_GGML_TYPE, GPUPLAN_ERR_INVALID_INPUT, "unknown ggml type 99" },
    { F_REMOVED_GGML_TYPE, GPUPLAN_ERR_INVALID_INPUT, "removed ggml type 31" },
    { F_NDIMS_5, GPUPLAN_ERR_INVALID_INPUT, "n_dims 5" },
    { F_MISALIGNED, GPUPLAN_ERR_INVALID_INPUT, "misaligned" },
    { F_WRONG_OFFSET, GPUPLAN_ERR_INVALID_INPUT, "has offset 160, expected 128" },
    { F_DUP_TENSOR, GPUPLAN_ERR_INVALID_INPUT, "duplicate tensor name 'blk.0.attn_norm.weight'" },
    { F_DUP_KEY, GPUPLAN_ERR_INVALID_INPUT, "duplicate key 'some.flag'" },
    { F_BAD_ALIGNMENT, GPUPLAN_ERR_INVALID_INPUT, "power of two" },
    { F_HUGE_KV_COUNT, GPUPLAN_ERR_INVALID_INPUT, "kv_count" },
    { F_HUGE_TENSOR_COUNT, GPUPLAN_ERR_INVALID_INPUT, "tensor_count" },
    { F_LONG_NAME, GPUPLAN_ERR_INVALID_INPUT, "at most 63" },
    { F_BLOCK_REMAINDER, GPUPLAN_ERR_INVALID_INPUT, "not a multiple of the Q8_0 block size 32" },
    { F_BAD_BOOL, GPUPLAN_ERR_INVALID_INPUT, "must be 0 or 1" },
    { F_BAD_VALUE_TYPE, GPUPLAN_ERR_INVALID_INPUT, "unknown value type 13" },
    { F_NEG_DIM, GPUPLAN_ERR_INVALID_INPUT, "negative dimension" },
    { F_DATA_SHORT, GPUPLAN_ERR_INVALID_INPUT, "file is truncated" },
};

static void test_generated_bad(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++) {
        struct w w;
        build(&w, bad_cases[i].fault);
        struct gpuplan_error err;
        gpuplan_error_init(&err);
        struct gpuplan_gguf g;
        const enum gpuplan_status st =
            gpuplan_gguf_parse(w.buf, w.len, w.len, "bad.gguf", &g, &err);
        if (st != bad_cases[i].code || !strstr(err.message, bad_cases[i].needle))
            fail_msg("fault %d: status %d (want %d), message '%s' lacks '%s'",
                     (int)bad_cases[i].fault, st, bad_cases[i].code, err.message,
                     bad_cases[i].needle);
        assert_null(g.kvs);
        assert_null(g.tensors);
    }
}

static void test_file_type_names(void **state)
{
    (void)state;
    static const struct {
        int64_t id;
        const char *name;
    } rows[] = {
        { 0, "ALL_F32" },
        { 2, "MOSTLY_Q4_0" },
        { 7, "MOSTLY_Q8_0" },
        { 15, "MOSTLY_Q4_K_M" },
        { 18, "MOSTLY_Q6_K" },
        { 32, "MOSTLY_BF16" },
        { 38, "MOSTLY_MXFP4_MOE" },
        { 1024, "GUESSED" },
        { 4, NULL },
        { 34, NULL },
        { -1, NULL },
        { 5000, NULL },
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const char *got = gpuplan_gguf_file_type_name(rows[i].id);
        if (rows[i].name)
            assert_string_equal(got, rows[i].name);
        else
            assert_null(got);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fixture),         cmocka_unit_test(test_prefixes),
        cmocka_unit_test(test_generated_good),  cmocka_unit_test(test_generated_bad),
        cmocka_unit_test(test_file_type_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
