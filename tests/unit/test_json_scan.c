/*
 * test_json_scan.c - the strict JSON tokenizer: token sequences of valid
 * documents, and invalid documents with the status, byte offset and
 * message of the first error (table-driven); numbers, escapes, line:column;
 * and the safetensors header reader built on it, which must accept and
 * reject exactly what jansson's DOM did (duplicates at any depth, int64
 * range, real overflow, and syntax/duplicate errors before tensor checks).
 */
#include "test_common.h"

#include "formats/safetensors_internal.h"
#include "util/json_scan_internal.h"

/* One character per token: { } [ ] k(ey) s(tring) n(umber) t f z(null), '$' for END. */
static char kind_char(enum gpuplan_json_kind kind)
{
    static const char chars[] = "${}[]ksntfz";
    return chars[kind];
}

/* Scan `len` bytes to the end or the first error; the token string goes to kinds. */
static enum gpuplan_status scan_all(const char *doc,
                                    size_t len,
                                    uint32_t max_depth,
                                    unsigned flags,
                                    char *kinds,
                                    size_t kinds_size,
                                    struct gpuplan_json_scan *scan,
                                    struct gpuplan_error *err)
{
    gpuplan_json_scan_init(scan, (const uint8_t *)doc, len, "t", max_depth, flags);
    size_t k = 0;
    for (;;) {
        struct gpuplan_json_token tok;
        const enum gpuplan_status st = gpuplan_json_scan_next(scan, &tok, err);
        if (st != GPUPLAN_OK) {
            kinds[k] = '\0';
            return st;
        }
        if (k + 1 < kinds_size)
            kinds[k++] = kind_char(tok.kind);
        if (tok.kind == GPUPLAN_JSON_END) {
            kinds[k] = '\0';
            return GPUPLAN_OK;
        }
    }
}

struct valid_case {
    const char *doc;
    const char *kinds;
};

static const struct valid_case valid_cases[] = {
    { "{}", "{}$" },
    { " \t\r\n{ } \n", "{}$" },
    { "[]", "[]$" },
    { "0", "n$" },
    { "-0", "n$" },
    { "\"\"", "s$" },
    { "true", "t$" },
    { "[true,false,null]", "[tfz]$" },
    { "{\"a\":1,\"b\":[2,3.5e-1,{\"c\":null}],\"d\":\"x\"}", "{knk[nn{kz}]ks}$" },
    { "[[[[]]]]", "[[[[]]]]$" },
    { "{\"a\" : { \"b\" : [ ] } }", "{k{k[]}}$" },
    { "1E+2", "n$" },
    { "[-1.0e-0]", "[n]$" },
    { "\"\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\uD83D\\uDE00\"", "s$" },
    { "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"", "s$" },
    { "{\"\":\"\"}", "{ks}$" },
};

static void test_valid_documents(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof valid_cases / sizeof valid_cases[0]; i++) {
        const struct valid_case *c = &valid_cases[i];
        struct gpuplan_json_scan scan;
        struct gpuplan_error err;
        gpuplan_error_init(&err);
        char kinds[64];
        const enum gpuplan_status st =
            scan_all(c->doc, strlen(c->doc), 64, 0, kinds, sizeof kinds, &scan, &err);
        if (st != GPUPLAN_OK || strcmp(kinds, c->kinds) != 0)
            fail_msg("valid case %zu '%s': status %d, tokens '%s' (want '%s'): %s %s", i, c->doc,
                     st, kinds, c->kinds, err.where, err.message);
        assert_int_equal(scan.depth, 0);
    }
}

struct invalid_case {
    const char *doc;
    enum gpuplan_status code;
    size_t offset;
    const char *needle;
};

static const struct invalid_case invalid_cases[] = {
    { "", GPUPLAN_ERR_INVALID_INPUT, 0, "unexpected end of input" },
    { "   ", GPUPLAN_ERR_INVALID_INPUT, 3, "expected a value" },
    { "{", GPUPLAN_ERR_INVALID_INPUT, 1, "expected a string key" },
    { "{\"a\"}", GPUPLAN_ERR_INVALID_INPUT, 4, "':' after the key" },
    { "{\"a\" 1}", GPUPLAN_ERR_INVALID_INPUT, 5, "':' after the key" },
    { "{\"a\":1,}", GPUPLAN_ERR_INVALID_INPUT, 7, "expected a string key" },
    { "{1:2}", GPUPLAN_ERR_INVALID_INPUT, 1, "expected a string key" },
    { "[1,]", GPUPLAN_ERR_INVALID_INPUT, 3, "expected a value" },
    { "[1 2]", GPUPLAN_ERR_INVALID_INPUT, 3, "expected ',' or ']'" },
    { "[}", GPUPLAN_ERR_INVALID_INPUT, 1, "expected a value" },
    { "[1}", GPUPLAN_ERR_INVALID_INPUT, 2, "expected ',' or ']'" },
    { "{\"a\":1]", GPUPLAN_ERR_INVALID_INPUT, 6, "expected ',' or '}'" },
    { "[1]]", GPUPLAN_ERR_INVALID_INPUT, 3, "expected the end of the document" },
    { "{} x", GPUPLAN_ERR_INVALID_INPUT, 3, "expected the end of the document" },
    { "{}{}", GPUPLAN_ERR_INVALID_INPUT, 2, "expected the end of the document" },
    { "[1", GPUPLAN_ERR_INVALID_INPUT, 2, "end of input" },
    { "01", GPUPLAN_ERR_INVALID_INPUT, 0, "leading zero" },
    { "[-01]", GPUPLAN_ERR_INVALID_INPUT, 1, "leading zero" },
    { "-", GPUPLAN_ERR_INVALID_INPUT, 0, "must be followed by a digit" },
    { "+1", GPUPLAN_ERR_INVALID_INPUT, 0, "unexpected '+'" },
    { ".5", GPUPLAN_ERR_INVALID_INPUT, 0, "unexpected '.'" },
    { "1.", GPUPLAN_ERR_INVALID_INPUT, 2, "digit after '.'" },
    { "1.e3", GPUPLAN_ERR_INVALID_INPUT, 2, "digit after '.'" },
    { "1e", GPUPLAN_ERR_INVALID_INPUT, 2, "exponent" },
    { "1e+", GPUPLAN_ERR_INVALID_INPUT, 3, "exponent" },
    { "NaN", GPUPLAN_ERR_INVALID_INPUT, 0, "NaN" },
    { "[Infinity]", GPUPLAN_ERR_INVALID_INPUT, 1, "Infinity" },
    { "-Infinity", GPUPLAN_ERR_INVALID_INPUT, 0, "Infinity" },
    { "tru", GPUPLAN_ERR_INVALID_INPUT, 0, "expected 'true'" },
    { "nul", GPUPLAN_ERR_INVALID_INPUT, 0, "expected 'null'" },
    { "[fals]", GPUPLAN_ERR_INVALID_INPUT, 1, "expected 'false'" },
    { "truex", GPUPLAN_ERR_INVALID_INPUT, 4, "expected the end" },
    { "\"abc", GPUPLAN_ERR_INVALID_INPUT, 0, "unterminated string" },
    { "\"a\x01\"", GPUPLAN_ERR_INVALID_INPUT, 2, "control character 0x01" },
    { "[\"a\nb\"]", GPUPLAN_ERR_INVALID_INPUT, 3, "control character 0x0a" },
    { "\"\\x\"", GPUPLAN_ERR_INVALID_INPUT, 1, "invalid escape" },
    { "\"\\", GPUPLAN_ERR_INVALID_INPUT, 1, "unterminated escape" },
    { "\"\\u12\"", GPUPLAN_ERR_INVALID_INPUT, 1, "4 hex digits" },
    { "\"\\u12G4\"", GPUPLAN_ERR_INVALID_INPUT, 1, "4 hex digits" },
    { "\"\\uD800\"", GPUPLAN_ERR_INVALID_INPUT, 1, "lone high surrogate" },
    { "\"ab\\uD800\\u0041\"", GPUPLAN_ERR_INVALID_INPUT, 3, "lone high surrogate" },
    { "\"\\uDC00\\uD800\"", GPUPLAN_ERR_INVALID_INPUT, 1, "lone low surrogate" },
    { "\"\\u0000\"", GPUPLAN_ERR_INVALID_INPUT, 1, "'\\u0000'" },
    { "\"\xff\"", GPUPLAN_ERR_INVALID_INPUT, 1, "invalid UTF-8 (byte 0xff)" },
    { "\"\xc0\x80\"", GPUPLAN_ERR_INVALID_INPUT, 1, "invalid UTF-8" },         /* overlong NUL */
    { "\"x\xed\xa0\x80\"", GPUPLAN_ERR_INVALID_INPUT, 2, "invalid UTF-8" },    /* U+D800 */
    { "\"\xf4\x90\x80\x80\"", GPUPLAN_ERR_INVALID_INPUT, 1, "invalid UTF-8" }, /* > U+10FFFF */
    { "\"\xe2\x82\"", GPUPLAN_ERR_INVALID_INPUT, 1, "invalid UTF-8" },         /* truncated */
    { "\xef\xbb\xbf{}", GPUPLAN_ERR_INVALID_INPUT, 0, "byte 0xef" },           /* BOM */
    { "{\"a\":1}\x00", GPUPLAN_ERR_INVALID_INPUT, 7, "expected the end" },
};

static void test_invalid_documents(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof invalid_cases / sizeof invalid_cases[0]; i++) {
        const struct invalid_case *c = &invalid_cases[i];
        /* The NUL case is one byte longer than strlen. */
        const size_t len = strlen(c->doc) + (strcmp(c->doc, "{\"a\":1}") == 0);
        struct gpuplan_json_scan scan;
        struct gpuplan_error err;
        gpuplan_error_init(&err);
        char kinds[64];
        const enum gpuplan_status st =
            scan_all(c->doc, len, 64, 0, kinds, sizeof kinds, &scan, &err);
        if (st != c->code || scan.error_offset != c->offset || !strstr(err.message, c->needle) ||
            strncmp(err.message, "invalid JSON: ", 14) != 0)
            fail_msg("invalid case %zu: status %d (want %d), offset %zu (want %zu), message '%s' "
                     "lacks '%s'",
                     i, st, c->code, scan.error_offset, c->offset, err.message, c->needle);
        assert_true(err.where[0] != '\0');
        /* A failed scanner stays failed. */
        struct gpuplan_json_token tok;
        assert_int_not_equal(gpuplan_json_scan_next(&scan, &tok, &err), GPUPLAN_OK);
    }
}

static void test_depth_limit(void **state)
{
    (void)state;
    struct gpuplan_json_scan scan;
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    char kinds[64];
    assert_int_equal(scan_all("[[]]", 4, 2, 0, kinds, sizeof kinds, &scan, &err), GPUPLAN_OK);
    assert_int_equal(scan_all("[[[]]]", 6, 2, 0, kinds, sizeof kinds, &scan, &err),
                     GPUPLAN_ERR_TOO_LARGE);
    assert_int_equal(scan.error_offset, 2);
    assert_non_null(strstr(err.message, "deeper than 2 levels"));
    /* The full limit: GPUPLAN_JSON_SCAN_MAX_DEPTH arrays nest, one more does not. */
    const size_t max = GPUPLAN_JSON_SCAN_MAX_DEPTH;
    char *doc = malloc(2 * max + 3);
    assert_non_null(doc);
    memset(doc, '[', max + 1);
    memset(doc + max + 1, ']', max + 1);
    assert_int_equal(scan_all(doc + 1, 2 * max, 100000, 0, kinds, sizeof kinds, &scan, &err),
                     GPUPLAN_OK);
    assert_int_equal(scan_all(doc, 2 * max + 2, 100000, 0, kinds, sizeof kinds, &scan, &err),
                     GPUPLAN_ERR_TOO_LARGE);
    assert_int_equal(scan.error_offset, max);
    free(doc);
}

static void test_line_column(void **state)
{
    (void)state;
    const char *doc = "{\n  \"a\": 1,\n  \"b\": x\n}";
    struct gpuplan_json_scan scan;
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    char kinds[64];
    assert_int_equal(scan_all(doc, strlen(doc), 64, 0, kinds, sizeof kinds, &scan, &err),
                     GPUPLAN_ERR_INVALID_INPUT);
    assert_int_equal(scan.error_offset, 19);
    assert_string_equal(err.where, "t:3:8");
    assert_non_null(strstr(err.message, "unexpected 'x' at byte 19"));
    assert_true(err.hint[0] != '\0');
    /* A caller's own error, in the same format. */
    gpuplan_json_scan_init(&scan, (const uint8_t *)doc, strlen(doc), "f.json", 8, 0);
    assert_int_equal(gpuplan_json_scan_fail(&scan, 4, GPUPLAN_ERR_INVALID_INPUT, &err,
                                            "duplicate object key '%s'", "a"),
                     GPUPLAN_ERR_INVALID_INPUT);
    assert_string_equal(err.where, "f.json:2:3");
    assert_string_equal(err.message, "invalid JSON: duplicate object key 'a'");
}

/* Scan a one-value document and return its token. */
static struct gpuplan_json_token one_token(const char *doc, unsigned flags)
{
    struct gpuplan_json_scan scan;
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    gpuplan_json_scan_init(&scan, (const uint8_t *)doc, strlen(doc), "t", 8, flags);
    struct gpuplan_json_token tok;
    if (gpuplan_json_scan_next(&scan, &tok, &err) != GPUPLAN_OK)
        fail_msg("'%s': %s", doc, err.message);
    return tok;
}

static void test_numbers(void **state)
{
    (void)state;
    static const struct {
        const char *doc;
        bool is_integer, is_negative, overflow;
        uint64_t magnitude;
    } cases[] = {
        { "0", true, false, false, 0 },
        { "-0", true, true, false, 0 },
        { "42", true, false, false, 42 },
        { "-9223372036854775808", true, true, false, 9223372036854775808ULL },
        { "18446744073709551615", true, false, false, UINT64_MAX },
        { "18446744073709551616", true, false, true, 0 },
        { "99999999999999999999999", true, false, true, 0 },
        { "1.0", false, false, false, 0 },
        { "-2e10", false, true, false, 0 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const struct gpuplan_json_token tok = one_token(cases[i].doc, 0);
        assert_int_equal(tok.kind, GPUPLAN_JSON_NUMBER);
        assert_int_equal(tok.len, strlen(cases[i].doc));
        if (tok.is_integer != cases[i].is_integer || tok.is_negative != cases[i].is_negative ||
            tok.int_overflow != cases[i].overflow || tok.int_magnitude != cases[i].magnitude)
            fail_msg("number '%s': integer %d negative %d overflow %d magnitude %llu", cases[i].doc,
                     tok.is_integer, tok.is_negative, tok.int_overflow,
                     (unsigned long long)tok.int_magnitude);
    }
    double v = 0;
    struct gpuplan_json_token tok = one_token("-2.5e3", 0);
    assert_true(gpuplan_json_scan_double(&tok, &v));
    assert_true(v == -2500.0);
    tok = one_token("1e400", 0);
    assert_false(gpuplan_json_scan_double(&tok, &v));
    tok = one_token("-1e400", 0);
    assert_false(gpuplan_json_scan_double(&tok, &v));
    tok = one_token("1e-400", 0);
    assert_true(gpuplan_json_scan_double(&tok, &v));
    assert_true(v == 0.0);
    /* A number longer than the small conversion buffer. */
    char long_number[200];
    memset(long_number, '1', sizeof long_number - 1);
    long_number[sizeof long_number - 1] = '\0';
    long_number[1] = '.';
    tok = one_token(long_number, 0);
    assert_true(gpuplan_json_scan_double(&tok, &v));
    assert_true(v > 1.11 && v < 1.12);
}

static void test_strings(void **state)
{
    (void)state;
    char out[64];
    struct gpuplan_json_token tok = one_token("\"plain\"", 0);
    assert_false(tok.has_escapes);
    assert_int_equal(tok.str_len, 5);
    assert_int_equal(gpuplan_json_scan_decode(&tok, out), 5);
    assert_string_equal(out, "plain");
    assert_true(gpuplan_json_scan_equals(&tok, "plain", 5));
    assert_false(gpuplan_json_scan_equals(&tok, "plai", 4));

    tok = one_token("\"a\\u00e9\\uD83D\\uDE00\\n\\\"\\/\"", 0);
    assert_true(tok.has_escapes);
    const size_t n = gpuplan_json_scan_decode(&tok, out);
    assert_int_equal(n, 1 + 2 + 4 + 1 + 1 + 1);
    assert_memory_equal(out, "a\xc3\xa9\xf0\x9f\x98\x80\n\"/", n + 1);
    assert_true(gpuplan_json_scan_equals(&tok, "a\xc3\xa9\xf0\x9f\x98\x80\n\"/", n));
    assert_false(gpuplan_json_scan_equals(&tok, "a\xc3\xa9", 3));

    tok = one_token("\"d\\u0074ype\"", 0);
    assert_true(gpuplan_json_scan_equals(&tok, "dtype", 5));

    /* "\u0000" only with GPUPLAN_JSON_SCAN_ALLOW_NUL; it decodes to a NUL byte. */
    tok = one_token("\"a\\u0000b\"", GPUPLAN_JSON_SCAN_ALLOW_NUL);
    assert_int_equal(gpuplan_json_scan_decode(&tok, out), 3);
    assert_memory_equal(out, "a\0b", 4);
}

static void test_skip(void **state)
{
    (void)state;
    const char *doc = "[{\"a\":[1,{\"b\":[]}]},\"s\",3]";
    struct gpuplan_json_scan scan;
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    gpuplan_json_scan_init(&scan, (const uint8_t *)doc, strlen(doc), "t", 16, 0);
    struct gpuplan_json_token tok;
    assert_int_equal(gpuplan_json_scan_next(&scan, &tok, &err), GPUPLAN_OK); /* [ */
    assert_int_equal(gpuplan_json_scan_next(&scan, &tok, &err), GPUPLAN_OK); /* { */
    assert_int_equal(tok.kind, GPUPLAN_JSON_OBJECT_BEGIN);
    assert_int_equal(gpuplan_json_scan_skip(&scan, &tok, &err), GPUPLAN_OK);
    assert_int_equal(scan.depth, 1);
    assert_int_equal(gpuplan_json_scan_next(&scan, &tok, &err), GPUPLAN_OK);
    assert_int_equal(tok.kind, GPUPLAN_JSON_STRING);
    assert_int_equal(tok.offset, 20);
    assert_int_equal(gpuplan_json_scan_skip(&scan, &tok, &err), GPUPLAN_OK); /* a scalar: no-op */
    assert_int_equal(gpuplan_json_scan_next(&scan, &tok, &err), GPUPLAN_OK);
    assert_int_equal(tok.kind, GPUPLAN_JSON_NUMBER);
    assert_int_equal(gpuplan_json_scan_next(&scan, &tok, &err), GPUPLAN_OK);
    assert_int_equal(tok.kind, GPUPLAN_JSON_ARRAY_END);
    assert_int_equal(gpuplan_json_scan_next(&scan, &tok, &err), GPUPLAN_OK);
    assert_int_equal(tok.kind, GPUPLAN_JSON_END);
    assert_int_equal(gpuplan_json_scan_next(&scan, &tok, &err), GPUPLAN_OK);
    assert_int_equal(tok.kind, GPUPLAN_JSON_END);
    /* A syntax error inside the skipped value is reported. */
    gpuplan_json_scan_init(&scan, (const uint8_t *)"[[1,]]", 6, "t", 16, 0);
    assert_int_equal(gpuplan_json_scan_next(&scan, &tok, &err), GPUPLAN_OK);
    assert_int_equal(gpuplan_json_scan_skip(&scan, &tok, &err), GPUPLAN_ERR_INVALID_INPUT);
    assert_int_equal(scan.error_offset, 4);
}

#define TENSOR(name, extra) \
    "\"" name "\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]" extra "}"

struct header_case {
    const char *json;
    enum gpuplan_status code;
    const char *needle; /* NULL: must parse */
};

static const struct header_case header_cases[] = {
    { "{" TENSOR("a", ",\"x\":{\"k\":1,\"k\":2}") "}", GPUPLAN_ERR_INVALID_INPUT,
      "duplicate object key 'k'" },
    { "{" TENSOR("a", ",\"x\":[{\"k\":1},{\"k\":2}]") "}", GPUPLAN_OK, NULL },
    { "{\"a\":{\"dtype\":\"F32\",\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}",
      GPUPLAN_ERR_INVALID_INPUT, "duplicate object key 'dtype'" },
    { "{" TENSOR("a", "") ",\"\\u0061\":{}}", GPUPLAN_ERR_INVALID_INPUT,
      "duplicate object key 'a'" },
    { "{\"__metadata__\":{\"f\":\"x\",\"f\":\"y\"}}", GPUPLAN_ERR_INVALID_INPUT,
      "duplicate object key 'f'" },
    { "{\"a\":{\"dtype\":\"F32\",\"shape\":[9223372036854775808],\"data_offsets\":[0,4]}}",
      GPUPLAN_ERR_INVALID_INPUT, "too big integer" },
    { "{" TENSOR("a", ",\"x\":-9223372036854775809") "}", GPUPLAN_ERR_INVALID_INPUT,
      "too big negative integer" },
    { "{" TENSOR("a", ",\"x\":-9223372036854775808") "}", GPUPLAN_OK, NULL },
    { "{" TENSOR("a", ",\"x\":[1e400]") "}", GPUPLAN_ERR_INVALID_INPUT, "real number overflow" },
    /* A duplicate anywhere beats a failed tensor check earlier in the file. */
    { "{\"a\":{\"dtype\":\"F7\",\"shape\":[1],\"data_offsets\":[0,1]}," TENSOR("b", "") "," TENSOR(
          "b",
          "") "}",
      GPUPLAN_ERR_INVALID_INPUT, "duplicate object key 'b'" },
    /* The earlier of a duplicate and a syntax error wins. */
    { "{" TENSOR("a", "") "," TENSOR("a", "") ",}", GPUPLAN_ERR_INVALID_INPUT,
      "duplicate object key 'a'" },
    { "{" TENSOR("a", ",") "," TENSOR("a", "") "}", GPUPLAN_ERR_INVALID_INPUT,
      "expected a string key" },
    /* Escapes decode before comparison: "dtype" and "F32" written with \u escapes. */
    { "{\"a\":{\"d\\u0074ype\":\"F\\u00332\",\"shape\":[1],\"data_offsets\":[0,4]}}", GPUPLAN_OK,
      NULL },
    { "{\"a\":{\"dtype\":\"F32\",\"shape\":[-0],\"data_offsets\":[0,0]}}", GPUPLAN_OK, NULL },
    { "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}} x",
      GPUPLAN_ERR_INVALID_INPUT, "expected the end of the document" },
};

/* 8-byte LE length + header JSON + `data_bytes` zero bytes; malloc'd. */
static uint8_t *make_safetensors(const char *json, size_t data_bytes, size_t *len)
{
    const size_t n = strlen(json);
    *len = 8 + n + data_bytes;
    uint8_t *buf = calloc(1, *len);
    assert_non_null(buf);
    for (int i = 0; i < 8; i++)
        buf[i] = (uint8_t)((uint64_t)n >> (8 * i));
    memcpy(buf + 8, json, n);
    return buf;
}

static void test_safetensors_header_json(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof header_cases / sizeof header_cases[0]; i++) {
        const struct header_case *c = &header_cases[i];
        size_t len;
        uint8_t *buf = make_safetensors(c->json, 4, &len);
        struct gpuplan_error err;
        gpuplan_error_init(&err);
        struct gpuplan_st_header h;
        /* File size unknown: only the JSON and the tensor checks apply. */
        const enum gpuplan_status st = gpuplan_st_header_parse(buf, len, 0, "h", &h, &err);
        if (st != c->code || (c->needle && !strstr(err.message, c->needle)))
            fail_msg("header case %zu: status %d (want %d), message '%s' lacks '%s'", i, st,
                     c->code, err.message, c->needle ? c->needle : "");
        if (st == GPUPLAN_OK)
            assert_true(gpuplan_st_header_has_name(&h, "a", 1));
        else
            assert_non_null(strstr(err.where, "h:1:"));
        gpuplan_st_header_release(&h);
        free(buf);
    }
    /* "__metadata__" spelled with an escape is still the metadata entry. */
    size_t len;
    uint8_t *buf = make_safetensors("{\"\\u005f_metadata__\":{\"format\":\"pt\"}}", 0, &len);
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    struct gpuplan_st_header h;
    assert_int_equal(gpuplan_st_header_parse(buf, len, len, "h", &h, &err), GPUPLAN_OK);
    assert_int_equal(h.n_tensors, 0);
    assert_int_equal(h.n_metadata, 1);
    assert_string_equal(h.metadata_format, "pt");
    assert_true(gpuplan_st_header_has_name(&h, "__metadata__", 12));
    assert_false(gpuplan_st_header_has_name(&h, "__metadata_", 11));
    gpuplan_st_header_release(&h);
    free(buf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_valid_documents),
        cmocka_unit_test(test_invalid_documents),
        cmocka_unit_test(test_depth_limit),
        cmocka_unit_test(test_line_column),
        cmocka_unit_test(test_numbers),
        cmocka_unit_test(test_strings),
        cmocka_unit_test(test_skip),
        cmocka_unit_test(test_safetensors_header_json),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
