/*
 * test_util.c - error record, buffer limits, unit parsing, dtype table, the
 * "did you mean" rule, UTF-8 validation, compute capability parsing.
 */
#include "test_common.h"

#include <math.h>

#include "gpuplan/gpuplan.h"
#include "gpuplan/messages.h"
#include "gpuplan/units.h"
#include "util/i18n_internal.h"
#include "util/suggest_internal.h"
#include "util/utf8_internal.h"

static void test_error_set_and_names(void **state)
{
    (void)state;
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    assert_int_equal(
        gpuplan_error_set(&err, GPUPLAN_ERR_NOT_FOUND, "x.json", "unknown '%s'", "abc"),
        GPUPLAN_ERR_NOT_FOUND);
    assert_string_equal(err.message, "unknown 'abc'");
    assert_string_equal(err.where, "x.json");
    gpuplan_error_where_prefix(&err, "dir/");
    assert_string_equal(err.where, "dir/x.json");
    assert_string_equal(gpuplan_status_name(GPUPLAN_ERR_NOT_FOUND), "not_found");
    assert_int_equal(gpuplan_status_http(GPUPLAN_ERR_TOO_LARGE), 413);
    assert_int_equal(gpuplan_status_http(GPUPLAN_ERR_INVALID_CONFIG), 422);
    assert_string_equal(gpuplan_status_name((enum gpuplan_status)999), "internal");
}

static void test_buf_limit_is_sticky(void **state)
{
    (void)state;
    struct gpuplan_buf b;
    gpuplan_buf_init(&b, 10);
    gpuplan_buf_puts(&b, "12345");
    gpuplan_buf_printf(&b, "%d", 678);
    assert_string_equal(gpuplan_buf_str(&b), "12345678");
    gpuplan_buf_puts(&b, "abc");
    assert_int_equal(b.failed, GPUPLAN_ERR_TOO_LARGE);
    gpuplan_buf_puts(&b, "x");
    assert_string_equal(gpuplan_buf_str(&b), "12345678");
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    assert_int_equal(gpuplan_buf_status(&b, &err), GPUPLAN_ERR_TOO_LARGE);
    gpuplan_buf_release(&b);

    gpuplan_buf_init(&b, 0);
    for (int i = 0; i < 1000; i++)
        gpuplan_buf_printf(&b, "%0300d", i);
    assert_int_equal(b.len, 300000);
    assert_int_equal(b.failed, GPUPLAN_OK);
    gpuplan_buf_release(&b);
}

static void test_parse_bytes(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        int ok;
        uint64_t bytes;
    } rows[] = {
        { "80GB", 1, 80000000000ULL },
        { "80 GiB", 1, 85899345920ULL },
        { "141gb", 1, 141000000000ULL },
        { "1.5TB", 1, 1500000000000ULL },
        { "512MiB", 1, 536870912ULL },
        { "4096", 1, 4096 },
        { "", 0, 0 },
        { "-1GB", 0, 0 },
        { "1e30TB", 0, 0 },
        { "12 parsecs", 0, 0 },
        { "nan", 0, 0 },
        { "0.5", 0, 0 },
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        uint64_t v = 0;
        bool ok = gpuplan_parse_bytes(rows[i].text, &v);
        assert_int_equal(ok, rows[i].ok);
        if (ok)
            assert_int_equal(v, rows[i].bytes);
    }
}

static void test_parse_count(void **state)
{
    (void)state;
    uint64_t v;
    assert_true(gpuplan_parse_count("70e9", &v));
    assert_int_equal(v, 70000000000ULL);
    assert_true(gpuplan_parse_count("8k", &v));
    assert_int_equal(v, 8000);
    assert_true(gpuplan_parse_count("1.5M", &v));
    assert_int_equal(v, 1500000);
    assert_false(gpuplan_parse_count("8kb", &v));
    assert_false(gpuplan_parse_count("1.5", &v));
    assert_false(gpuplan_parse_count("99999999999999999999999", &v));
    double d;
    assert_true(gpuplan_parse_double("0.25", &d));
    assert_false(gpuplan_parse_double("0.25x", &d));
    assert_false(gpuplan_parse_double("inf", &d));
}

static void test_dtype_table(void **state)
{
    (void)state;
    assert_true(gpuplan_dtype_bits(GPUPLAN_DTYPE_BF16) == 16.0);
    assert_true(gpuplan_dtype_bits(GPUPLAN_DTYPE_Q4_K) == 4.5);
    assert_true(gpuplan_dtype_bits(GPUPLAN_DTYPE_Q6_K) == 6.5625);
    assert_true(gpuplan_dtype_bits(GPUPLAN_DTYPE_NF4) == 4.5);
    double dq = gpuplan_dtype_bits(GPUPLAN_DTYPE_NF4_DQ);
    assert_true(dq > 4.1269 && dq < 4.1271);
    assert_int_equal(gpuplan_dtype_from_ggml(12), GPUPLAN_DTYPE_Q4_K);
    assert_int_equal(gpuplan_dtype_from_ggml(4), GPUPLAN_DTYPE_UNKNOWN);
    assert_int_equal(gpuplan_dtype_from_ggml(30), GPUPLAN_DTYPE_BF16);
    assert_int_equal(gpuplan_dtype_from_safetensors("BF16", 4), GPUPLAN_DTYPE_BF16);
    assert_int_equal(gpuplan_dtype_from_safetensors("Q4_K", 4), GPUPLAN_DTYPE_UNKNOWN);
    assert_int_equal(gpuplan_dtype_from_name("bfloat16"), GPUPLAN_DTYPE_BF16);
    uint64_t bytes;
    assert_true(gpuplan_dtype_bytes(GPUPLAN_DTYPE_Q4_K, 512, true, &bytes));
    assert_int_equal(bytes, 288);
    assert_false(gpuplan_dtype_bytes(GPUPLAN_DTYPE_Q4_K, 100, true, &bytes));
    assert_true(gpuplan_dtype_bytes(GPUPLAN_DTYPE_F6_E2M3, 8, true, &bytes));
    assert_int_equal(bytes, 6);
    assert_false(gpuplan_dtype_bytes(GPUPLAN_DTYPE_F64, UINT64_MAX, true, &bytes));
}

/* One rule for every "did you mean": prefix, substring, then max(2, len/3) edits. */
static void test_suggest(void **state)
{
    (void)state;
    static const char *const names[] = { "seq-len", "micro-batch", "lora-rank", "lora-alpha",
                                         "tp" };
    static const struct {
        const char *word;
        const char *first; /* NULL: no suggestion */
        size_t n;
    } rows[] = {
        { "seq-lenn", "seq-len", 1 }, /* one insertion */
        { "micro_batch", "micro-batch", 1 },
        { "lora", "lora-rank", 2 },  /* prefix: both lora-*, in the order offered */
        { "rank", "lora-rank", 1 },  /* substring */
        { "SEQ-LEN", "seq-len", 1 }, /* case-folded */
        { "zzzzzzzzzz", NULL, 0 },   /* nothing near */
        { "", NULL, 0 },
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct gpuplan_suggest s;
        gpuplan_suggest_init(&s, rows[i].word);
        for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
            gpuplan_suggest_add(&s, names[k]);
        assert_int_equal(s.n, rows[i].n);
        if (rows[i].first)
            assert_string_equal(s.best[0].text, rows[i].first);
    }
    assert_int_equal(gpuplan_suggest_distance("h100sxm", "h100-sxm"), 1);
    assert_int_equal(gpuplan_suggest_distance("hl00", "h100"), 1);
    assert_int_equal(gpuplan_suggest_distance("ab", "ba"), 1); /* one adjacent swap */
}

static void test_utf8(void **state)
{
    (void)state;
    static const struct {
        const char *bytes;
        size_t invalid_at; /* strlen when valid */
    } rows[] = {
        { "plain ascii text", 16 },
        { "\xd0\xba\xd0\xbe", 4 },        /* Cyrillic */
        { "ok\xc0\xaf", 2 },              /* overlong '/' */
        { "\xed\xa0\x80", 0 },            /* surrogate U+D800 */
        { "\xf4\x90\x80\x80", 0 },        /* past U+10FFFF */
        { "abc\xe2\x82", 3 },             /* truncated sequence */
        { "\xf0\x9f\x98\x80 smile", 10 }, /* U+1F600 */
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const uint8_t *b = (const uint8_t *)rows[i].bytes;
        assert_int_equal(gpuplan_utf8_invalid_at(b, strlen(rows[i].bytes)), rows[i].invalid_at);
    }
    assert_int_equal(gpuplan_utf8_sequence_len((const uint8_t *)"\xd0\xba", 2), 2);
    assert_int_equal(gpuplan_utf8_sequence_len((const uint8_t *)"\xd0", 1), 0);
    assert_int_equal(gpuplan_utf8_columns("\xd0\xba\xd0\xbe x", 6), 4);
}

static void test_compute_capability(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        bool ok;
        uint32_t major, minor;
    } rows[] = {
        { "9.0", true, 9, 0 },   { "8.9", true, 8, 9 },  { "12.0", true, 12, 0 },
        { "", false, 0, 0 },     { "9", false, 0, 0 },   { "9.", false, 0, 0 },
        { "9.10", false, 0, 0 }, { "0.5", false, 0, 0 }, { "100.0", false, 0, 0 },
        { "x.0", false, 0, 0 },
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        uint32_t major = 77, minor = 77;
        assert_int_equal(gpuplan_gpu_parse_compute_capability(rows[i].text, &major, &minor),
                         rows[i].ok);
        if (rows[i].ok) {
            assert_int_equal(major, rows[i].major);
            assert_int_equal(minor, rows[i].minor);
        }
    }
}

/* Word wrap for --help: no line past the width or ending in a space; long words cut. */
static void test_buf_wrap(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        size_t col, indent, width;
        const char *want;
    } rows[] = {
        { "one two three", 0, 0, 7, "one two\nthree" },
        { "one two three", 4, 4, 11, "one two\n    three" },
        { "abcdefghij", 0, 2, 6, "abcdef\n  ghij" }, /* cut: no line holds it */
        { "a\n\nb", 0, 0, 10, "a\n\nb" },            /* paragraphs kept */
        { "\xd0\xba\xd0\xbe\xd0\xba x", 0, 0, 4, "\xd0\xba\xd0\xbe\xd0\xba\nx" }, /* columns */
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct gpuplan_buf b;
        gpuplan_buf_init(&b, 0);
        gpuplan_buf_wrap(&b, rows[i].text, rows[i].col, rows[i].indent, rows[i].width);
        assert_string_equal(gpuplan_buf_str(&b), rows[i].want);
        gpuplan_buf_release(&b);
    }
}

/* ---- messages.c: a .mo catalog built here, byte by byte --------------------------------- */

static void put32(unsigned char *p, uint32_t v, bool big)
{
    for (int i = 0; i < 4; i++)
        p[big ? 3 - i : i] = (unsigned char)(v >> (8 * i));
}

/* A .mo of `n` pairs (originals in the given order), either byte order; returns its size. */
static size_t
build_mo(unsigned char *buf, const char *const *orig, const char *const *tr, uint32_t n, bool big)
{
    const uint32_t o = 28, t = o + 8 * n;
    uint32_t at = t + 8 * n;
    memset(buf, 0, 28);
    put32(buf, 0x950412deu, big);
    put32(buf + 8, n, big);
    put32(buf + 12, o, big);
    put32(buf + 16, t, big);
    for (uint32_t i = 0; i < 2 * n; i++) {
        const char *str = i < n ? orig[i] : tr[i - n];
        const uint32_t len = (uint32_t)strlen(str);
        put32(buf + o + 8 * i, len, big);
        put32(buf + o + 8 * i + 4, at, big);
        memcpy(buf + at, str, len + 1);
        at += len + 1;
    }
    return at;
}

static void test_messages(void **state)
{
    (void)state;
    static const char *const orig[] = { "", "inputs:\n", "verdict" };
    static const char *const tr[] = { "Content-Type: text/plain; charset=UTF-8\n",
                                      "\xd0\xb8\xd1\x81\xd1\x85:\n", "" };
    unsigned char buf[512];
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    for (int big = 0; big <= 1; big++) {
        const size_t n = build_mo(buf, orig, tr, 3, big);
        struct gpuplan_messages *m = NULL;
        assert_int_equal(gpuplan_messages_parse(buf, n, &m, &err), GPUPLAN_OK);
        assert_string_equal(gpuplan_messages_lookup(m, "inputs:\n"), tr[1]);
        assert_string_equal(gpuplan_messages_lookup(m, "verdict"), "verdict"); /* untranslated */
        assert_string_equal(gpuplan_messages_lookup(m, "absent"), "absent");
        assert_string_equal(gpuplan_messages_lookup(m, ""), ""); /* never the header */
        /* the thread's catalog is what GPUPLAN_TR answers from, and only this thread's */
        assert_null(gpuplan_messages_use(m));
        assert_string_equal(GPUPLAN_TR("inputs:\n"), tr[1]);
        assert_ptr_equal(gpuplan_messages_use(NULL), m);
        assert_string_equal(GPUPLAN_TR("inputs:\n"), "inputs:\n");
        gpuplan_messages_free(m);
    }
    const size_t n = build_mo(buf, orig, tr, 3, false);
    struct gpuplan_messages *m = NULL;
    /* truncated: in the header, in a table, in a string */
    assert_int_equal(gpuplan_messages_parse(buf, 20, &m, &err), GPUPLAN_ERR_INVALID_INPUT);
    assert_int_equal(gpuplan_messages_parse(buf, 40, &m, &err), GPUPLAN_ERR_INVALID_INPUT);
    assert_int_equal(gpuplan_messages_parse(buf, n - 1, &m, &err), GPUPLAN_ERR_INVALID_INPUT);
    assert_null(m);
    /* a string offset past the end */
    unsigned char bad[512];
    memcpy(bad, buf, n);
    put32(bad + 28 + 4, 0xfffffff0u, false);
    assert_int_equal(gpuplan_messages_parse(bad, n, &m, &err), GPUPLAN_ERR_INVALID_INPUT);
    assert_non_null(strstr(err.message, "outside the file"));
    /* wrong magic */
    memcpy(bad, buf, n);
    bad[0] ^= 1;
    assert_int_equal(gpuplan_messages_parse(bad, n, &m, &err), GPUPLAN_ERR_INVALID_INPUT);
    assert_string_equal(err.where, "byte 0");
    /* originals out of order: no binary search over them */
    static const char *const unsorted[] = { "b", "a" };
    const size_t u = build_mo(buf, unsorted, unsorted, 2, false);
    assert_int_equal(gpuplan_messages_parse(buf, u, &m, &err), GPUPLAN_ERR_INVALID_INPUT);
    assert_non_null(strstr(err.message, "not sorted"));
    /* a file that is not there */
    assert_int_equal(gpuplan_messages_load("/nonexistent/gpuplan.mo", &m, &err), GPUPLAN_ERR_IO);
}

/*
 * gpuplan_bytes_from_double rounds as llround() did (ties away from zero)
 * without the libm call: every half-way and next-to-half-way value, the
 * doubles around 2^52 and 2^53, and the saturations.
 */
static void test_bytes_from_double_is_llround(void **state)
{
    (void)state;
    const double cases[] = { 0.5,
                             1.5,
                             2.5,
                             0.49999999999999994,
                             1.4999999999999998,
                             3.0000000000000004,
                             1e6 + 0.5,
                             4503599627370495.5, /* 2^52 - 0.5 */
                             4503599627370496.0, /* 2^52 */
                             9007199254740993.0, /* 2^53 + 1: rounds to 2^53 as a double */
                             1.2345678901234567e17,
                             9.0e18,
                             80.0 * 1073741824.0 * 1.1 };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const double v = cases[i];
        assert_int_equal(gpuplan_bytes_from_double(v), (uint64_t)llround(v));
        assert_int_equal(gpuplan_bytes_from_double(nextafter(v, 0.0)),
                         (uint64_t)llround(nextafter(v, 0.0)));
        assert_int_equal(gpuplan_bytes_from_double(nextafter(v, INFINITY)),
                         (uint64_t)llround(nextafter(v, INFINITY)));
    }
    /* a pseudo-random sweep over 1 .. 2^60 */
    uint64_t x = 88172645463325252ULL;
    for (int i = 0; i < 100000; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        const double v = (double)(x >> 4) / (double)(1ULL << (x % 60));
        assert_int_equal(gpuplan_bytes_from_double(v), (uint64_t)llround(v));
    }
    assert_int_equal(gpuplan_bytes_from_double(0.0), 0);
    assert_int_equal(gpuplan_bytes_from_double(-3.0), 0);
    assert_int_equal(gpuplan_bytes_from_double(NAN), 0);
    assert_int_equal(gpuplan_bytes_from_double(1e30), UINT64_MAX);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bytes_from_double_is_llround),
        cmocka_unit_test(test_error_set_and_names),
        cmocka_unit_test(test_buf_limit_is_sticky),
        cmocka_unit_test(test_parse_bytes),
        cmocka_unit_test(test_parse_count),
        cmocka_unit_test(test_dtype_table),
        cmocka_unit_test(test_suggest),
        cmocka_unit_test(test_utf8),
        cmocka_unit_test(test_compute_capability),
        cmocka_unit_test(test_buf_wrap),
        cmocka_unit_test(test_messages),
    };
    return cmocka_run_group_tests_name("util", tests, NULL, NULL);
}
