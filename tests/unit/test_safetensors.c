/*
 * test_safetensors.c - safetensors header and index parsing: the real
 * one-tensor fixture, the two real index files, and generated bad headers
 * (each with its expected status and a distinctive message substring).
 */
#include "test_common.h"

#include "formats/safetensors_internal.h"
#include "gpuplan/model.h"

/* 8-byte LE length + header JSON + `data_bytes` zero bytes; malloc'd. */
static uint8_t *make_file(const char *json, uint64_t declared_len, size_t data_bytes, size_t *len)
{
    const size_t n = strlen(json);
    *len = 8 + n + data_bytes;
    uint8_t *buf = calloc(1, *len);
    assert_non_null(buf);
    for (int i = 0; i < 8; i++)
        buf[i] = (uint8_t)(declared_len >> (8 * i));
    memcpy(buf + 8, json, n);
    return buf;
}

static void test_fixture_one_tensor(void **state)
{
    (void)state;
    size_t len = 0;
    uint8_t *data = read_file(
        fixture_path("weights/llama-3.2-3b_model-00001-model.layers.0.input_layernorm.weight."
                     "safetensors"),
        &len);
    assert_non_null(data);
    assert_int_equal(len, 6280);
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    struct gpuplan_st_header h;
    assert_int_equal(gpuplan_st_header_parse(data, len, len, "fixture", &h, &err), GPUPLAN_OK);
    assert_int_equal(h.header_bytes, 128);
    assert_int_equal(h.n_tensors, 1);
    assert_int_equal(h.n_metadata, 1);
    assert_string_equal(h.metadata_format, "pt");
    assert_string_equal(h.tensors[0].name, "model.layers.0.input_layernorm.weight");
    assert_int_equal(h.tensors[0].dtype, GPUPLAN_DTYPE_BF16);
    assert_int_equal(h.tensors[0].n_dims, 1);
    assert_int_equal(h.tensors[0].shape[0], 3072);
    assert_int_equal(h.data_bytes, 6144);
    gpuplan_st_header_release(&h);

    struct gpuplan_model m;
    gpuplan_model_init(&m);
    assert_int_equal(gpuplan_model_from_safetensors(&m, data, len, len, "fixture", &err),
                     GPUPLAN_OK);
    assert_int_equal(m.n_groups, 1);
    assert_int_equal(m.groups[0].role, GPUPLAN_ROLE_NORM);
    assert_int_equal(m.groups[0].layer, 0);
    assert_int_equal(m.n_params_total, 3072);
    assert_int_equal(m.storage_bytes, 6144);
    assert_int_equal(m.file_bytes, 6280);
    assert_true(m.storage_from_file);
    assert_string_equal(m.format, "safetensors");
    gpuplan_model_release(&m);

    /* Only the header is needed when the file size is given. */
    gpuplan_model_init(&m);
    assert_int_equal(gpuplan_model_from_safetensors(&m, data, 136, len, "fixture", &err),
                     GPUPLAN_OK);
    assert_int_equal(m.n_params_total, 3072);
    gpuplan_model_release(&m);
    /* One byte short of the header, or a file one byte longer, fails. */
    assert_int_equal(gpuplan_model_from_safetensors(&m, data, 135, len, "fixture", &err),
                     GPUPLAN_ERR_INVALID_INPUT);
    assert_non_null(strstr(err.message, "truncated"));
    assert_int_equal(gpuplan_model_from_safetensors(&m, data, len, len + 1, "fixture", &err),
                     GPUPLAN_ERR_INVALID_INPUT);
    assert_non_null(strstr(err.message, "trailing"));
    gpuplan_model_release(&m);
    free(data);
}

struct bad_case {
    const char *label;
    const char *json;
    int64_t declared_len; /* -1: strlen(json) */
    size_t data_bytes;
    size_t give_bytes;   /* 0: the whole buffer */
    uint64_t file_bytes; /* 0: the buffer length */
    enum gpuplan_status code;
    const char *needle;
};

#define T(name, dtype, shape, b, e) \
    "\"" name "\":{\"dtype\":\"" dtype "\",\"shape\":" shape ",\"data_offsets\":[" #b "," #e "]}"

static const struct bad_case bad_cases[] = {
    { "truncated", "{}", -1, 0, 5, 5, GPUPLAN_ERR_INVALID_INPUT, "truncated" },
    { "length past EOF", "{}", 1000, 0, 0, 0, GPUPLAN_ERR_INVALID_INPUT, "runs past the end" },
    { "1 GB length", "{}", 1000000000, 0, 0, 0, GPUPLAN_ERR_TOO_LARGE, "exceeds the limit" },
    { "not an object", "[1,2,3]", -1, 0, 0, 0, GPUPLAN_ERR_INVALID_INPUT, "begin with '{'" },
    { "empty header", "", -1, 0, 0, 0, GPUPLAN_ERR_INVALID_INPUT, "header is empty" },
    { "invalid UTF-8", "{\"a\xff\":{}}", -1, 0, 0, 0, GPUPLAN_ERR_INVALID_INPUT, "UTF-8" },
    { "invalid JSON", "{\"a\":", -1, 0, 0, 0, GPUPLAN_ERR_INVALID_INPUT, "invalid JSON" },
    { "duplicate key", "{" T("a", "F32", "[1]", 0, 4) "," T("a", "F32", "[1]", 4, 8) "}", -1, 8, 0,
      0, GPUPLAN_ERR_INVALID_INPUT, "duplicate" },
    { "hole", "{" T("a", "F32", "[1]", 0, 4) "," T("b", "F32", "[1]", 8, 12) "}", -1, 12, 0, 0,
      GPUPLAN_ERR_INVALID_INPUT, "hole of 4 bytes" },
    { "first not at 0", "{" T("a", "F32", "[1]", 4, 8) "}", -1, 8, 0, 0, GPUPLAN_ERR_INVALID_INPUT,
      "must start at 0" },
    { "overlap", "{" T("a", "F32", "[2]", 0, 8) "," T("b", "F32", "[1]", 4, 8) "}", -1, 8, 0, 0,
      GPUPLAN_ERR_INVALID_INPUT, "overlaps" },
    { "size mismatch", "{" T("a", "F32", "[2]", 0, 4) "}", -1, 4, 0, 0, GPUPLAN_ERR_INVALID_INPUT,
      "size mismatch" },
    { "shape overflow", "{" T("a", "F32", "[4294967296,4294967296,16]", 0, 4) "}", -1, 4, 0, 0,
      GPUPLAN_ERR_INVALID_INPUT, "overflows" },
    { "bit overflow", "{" T("a", "F64", "[4294967296,268435456]", 0, 4) "}", -1, 4, 0, 0,
      GPUPLAN_ERR_INVALID_INPUT, "overflows" },
    { "unknown dtype", "{" T("a", "F7", "[1]", 0, 1) "}", -1, 1, 0, 0, GPUPLAN_ERR_UNSUPPORTED,
      "unknown dtype 'F7'" },
    { "negative dim", "{" T("a", "F32", "[-1]", 0, 4) "}", -1, 4, 0, 0, GPUPLAN_ERR_INVALID_INPUT,
      "negative" },
    { "fractional dim", "{" T("a", "F32", "[1.5]", 0, 4) "}", -1, 4, 0, 0,
      GPUPLAN_ERR_INVALID_INPUT, "non-integer" },
    { "rank 9", "{" T("a", "U8", "[1,1,1,1,1,1,1,1,1]", 0, 1) "}", -1, 1, 0, 0,
      GPUPLAN_ERR_UNSUPPORTED, "9 dimensions" },
    { "end before begin", "{" T("a", "F32", "[0]", 4, 0) "}", -1, 4, 0, 0,
      GPUPLAN_ERR_INVALID_INPUT, "END must be >= BEGIN" },
    { "offsets not pair", "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0]}}", -1, 4,
      0, 0, GPUPLAN_ERR_INVALID_INPUT, "data_offsets" },
    { "no dtype", "{\"a\":{\"shape\":[1],\"data_offsets\":[0,4]}}", -1, 4, 0, 0,
      GPUPLAN_ERR_INVALID_INPUT, "no 'dtype'" },
    { "entry not object", "{\"a\":[]}", -1, 0, 0, 0, GPUPLAN_ERR_INVALID_INPUT,
      "must be an object" },
    { "misaligned F4", "{" T("a", "F4", "[3]", 0, 1) "}", -1, 1, 0, 0, GPUPLAN_ERR_INVALID_INPUT,
      "whole number of bytes" },
    { "metadata non-string", "{\"__metadata__\":{\"format\":1}}", -1, 0, 0, 0,
      GPUPLAN_ERR_INVALID_INPUT, "not a string" },
    { "metadata not object", "{\"__metadata__\":[]}", -1, 0, 0, 0, GPUPLAN_ERR_INVALID_INPUT,
      "must be an object of strings" },
    { "trailing garbage", "{" T("a", "F32", "[1]", 0, 4) "}", -1, 7, 0, 0,
      GPUPLAN_ERR_INVALID_INPUT, "3 bytes of trailing data" },
    { "data truncated", "{" T("a", "F32", "[4]", 0, 16) "}", -1, 8, 0, 0, GPUPLAN_ERR_INVALID_INPUT,
      "file is truncated" },
};

static void test_bad_headers(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++) {
        const struct bad_case *c = &bad_cases[i];
        const uint64_t declared = c->declared_len < 0 ? strlen(c->json) : (uint64_t)c->declared_len;
        size_t len;
        uint8_t *buf = make_file(c->json, declared, c->data_bytes, &len);
        const size_t give = c->give_bytes ? c->give_bytes : len;
        const uint64_t file_bytes = c->file_bytes ? c->file_bytes : len;
        struct gpuplan_error err;
        gpuplan_error_init(&err);
        struct gpuplan_st_header h;
        const enum gpuplan_status st =
            gpuplan_st_header_parse(buf, give, file_bytes, "bad", &h, &err);
        if (st != c->code || !strstr(err.message, c->needle))
            fail_msg("case '%s': status %d (want %d), message '%s' lacks '%s'", c->label, st,
                     c->code, err.message, c->needle);
        assert_true(err.where[0] != '\0');
        assert_null(h.tensors);
        free(buf);
    }
}

struct good_case {
    const char *label;
    const char *json;
    size_t data_bytes;
    size_t n_tensors;
    uint64_t n_params;
};

static const struct good_case good_cases[] = {
    { "empty", "{}", 0, 0, 0 },
    { "padded", "{}      ", 0, 0, 0 },
    { "scalar and empty", "{" T("s", "F32", "[]", 0, 4) "," T("e", "BF16", "[0,5]", 4, 4) "}", 4, 2,
      1 },
    { "unsorted keys", "{" T("b", "F16", "[2]", 4, 8) "," T("a", "F16", "[2]", 0, 4) "}", 8, 2, 4 },
    { "rank 5 folded", "{" T("r", "U8", "[2,3,1,1,2]", 0, 12) "}", 12, 1, 12 },
    { "F6", "{" T("f", "F6_E2M3", "[4]", 0, 3) "}", 3, 1, 4 },
};

static void test_good_headers(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof good_cases / sizeof good_cases[0]; i++) {
        const struct good_case *c = &good_cases[i];
        size_t len;
        uint8_t *buf = make_file(c->json, strlen(c->json), c->data_bytes, &len);
        struct gpuplan_error err;
        gpuplan_error_init(&err);
        struct gpuplan_model m;
        gpuplan_model_init(&m);
        const enum gpuplan_status st =
            gpuplan_model_from_safetensors(&m, buf, len, len, "good", &err);
        if (st != GPUPLAN_OK)
            fail_msg("case '%s': %s: %s", c->label, err.where, err.message);
        assert_int_equal(m.n_params_total, c->n_params);
        assert_int_equal(m.storage_bytes, c->data_bytes);
        gpuplan_model_release(&m);
        free(buf);
    }
}

/* Routed experts merge into one group per (layer, role); bnb 4-bit weights count 2 per byte. */
static void test_experts_and_bnb(void **state)
{
    (void)state;
    const char *json =
        "{" T("model.layers.0.mlp.experts.0.gate_proj.weight", "BF16", "[2,2]", 0, 8) "," T(
            "model.layers.0.mlp.experts.1.gate_proj.weight", "BF16", "[2,2]", 8,
            16) "," T("model.layers.0.mlp.experts.2.gate_proj.weight", "BF16", "[2,2]", 16,
                      24) "," T("model.layers.0.mlp.gate.weight", "BF16", "[3,2]", 24,
                                36) "," T("model.layers.0.self_attn.q_proj.weight", "U8", "[8,1]",
                                          36,
                                          44) "," T("model.layers.0.self_attn.q_proj.weight.absmax",
                                                    "F32", "[1]", 44,
                                                    48) "," T("model.layers.0.self_attn.q_proj.weight.quant_state.bitsandbytes__nf4",
                                                              "U8", "[4]", 48, 52) "}";
    size_t len;
    uint8_t *buf = make_file(json, strlen(json), 52, &len);
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    struct gpuplan_model m;
    gpuplan_model_init(&m);
    assert_int_equal(gpuplan_model_from_safetensors(&m, buf, len, len, "moe", &err), GPUPLAN_OK);
    assert_int_equal(m.n_groups, 5);
    assert_int_equal(m.groups[0].role, GPUPLAN_ROLE_EXPERT_GATE);
    assert_int_equal(m.groups[0].n_tensors, 3);
    assert_int_equal(m.params_by_role[GPUPLAN_ROLE_EXPERT_GATE], 12);
    assert_int_equal(m.params_by_role[GPUPLAN_ROLE_ROUTER], 6);
    assert_int_equal(m.params_by_role[GPUPLAN_ROLE_ATTN_Q], 16);
    assert_int_equal(m.params_by_role[GPUPLAN_ROLE_QUANT_STATE], 5);
    assert_int_equal(m.storage_bytes, 52);
    gpuplan_model_release(&m);
    free(buf);
}

static void test_index_files(void **state)
{
    (void)state;
    static const struct {
        const char *file;
        size_t n_tensors, n_shards;
        uint64_t total_size;
        const char *tensor, *shard;
    } cases[] = {
        { "hf-configs/llama-3.2-3b.resharded.safetensors.index.json", 254, 254, 6425499648ULL,
          "model.layers.0.input_layernorm.weight",
          "model-00001-model.layers.0.input_layernorm.weight.safetensors" },
        { "hf-configs/gemma-2-9b-it.safetensors.index.json", 464, 4, 18483411968ULL,
          "model.embed_tokens.weight", "model-00001-of-00004.safetensors" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t len = 0;
        uint8_t *data = read_file(fixture_path(cases[i].file), &len);
        assert_non_null(data);
        struct gpuplan_error err;
        gpuplan_error_init(&err);
        struct gpuplan_st_index idx;
        assert_int_equal(gpuplan_st_index_parse(data, len, cases[i].file, &idx, &err), GPUPLAN_OK);
        assert_int_equal(idx.n_tensors, cases[i].n_tensors);
        assert_int_equal(idx.n_shards, cases[i].n_shards);
        assert_true(idx.has_total_size);
        assert_int_equal(idx.total_size_bytes, cases[i].total_size);
        assert_string_equal(gpuplan_st_index_shard_of(&idx, cases[i].tensor), cases[i].shard);
        assert_null(gpuplan_st_index_shard_of(&idx, "no.such.tensor"));
        gpuplan_st_index_release(&idx);
        free(data);
    }
}

static void test_index_bad(void **state)
{
    (void)state;
    static const struct {
        const char *json;
        const char *needle;
    } cases[] = {
        { "{\"metadata\":{}}", "'weight_map' object is missing" },
        { "{\"weight_map\":{\"a\":\"../x.safetensors\"}}", "plain file name" },
        { "{\"weight_map\":{\"a\":\"\"}}", "plain file name" },
        { "{\"weight_map\":{\"a\":3}}", "plain file name" },
        { "{\"metadata\":{\"total_size\":-5},\"weight_map\":{}}", "total_size" },
        { "{\"metadata\":[],\"weight_map\":{}}", "'metadata' must be an object" },
        { "[]", "object" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct gpuplan_error err;
        gpuplan_error_init(&err);
        struct gpuplan_st_index idx;
        const enum gpuplan_status st = gpuplan_st_index_parse(
            (const uint8_t *)cases[i].json, strlen(cases[i].json), "index.json", &idx, &err);
        if (st == GPUPLAN_OK || !strstr(err.message, cases[i].needle))
            fail_msg("index case %zu: status %d, message '%s' lacks '%s'", i, st, err.message,
                     cases[i].needle);
        assert_null(idx.root);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fixture_one_tensor), cmocka_unit_test(test_bad_headers),
        cmocka_unit_test(test_good_headers),       cmocka_unit_test(test_experts_and_bnb),
        cmocka_unit_test(test_index_files),        cmocka_unit_test(test_index_bad),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
