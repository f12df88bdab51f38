/*
 * json_scan.c - strict JSON pull tokenizer (see json_scan.h).
 *
 * Grammar from RFC 8259 sections 2-8. UTF-8 well-formedness follows
 * RFC 3629 section 4 (no overlong forms, no surrogates, nothing above
 * U+10FFFF). The scanner keeps one bit per open container and a small
 * state; it never allocates (gpuplan_json_scan_double may, for a number
 * longer than 63 bytes).
 */
#include "util/json_scan_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/i18n_internal.h"
#include "util/utf8_internal.h"

enum {
    S_VALUE,        /* a value must follow (top level, after ':' or ',' in an array) */
    S_ARRAY_FIRST,  /* after '[': a value or ']' */
    S_OBJECT_FIRST, /* after '{': a key or '}' */
    S_KEY,          /* after ',' in an object: a key */
    S_AFTER_VALUE,  /* ',' or the closing bracket, or the end at depth 0 */
    S_DONE,         /* END returned */
    S_FAILED,       /* an error was reported */
};

/* 1 for bytes that may appear unescaped in a string and need no UTF-8 decoding. */
static const uint8_t plain_byte[256] = {
    ['\x20'] = 1, ['\x21'] = 1, ['\x23'] = 1, ['\x24'] = 1, ['\x25'] = 1, ['\x26'] = 1,
    ['\x27'] = 1, ['\x28'] = 1, ['\x29'] = 1, ['\x2a'] = 1, ['\x2b'] = 1, ['\x2c'] = 1,
    ['\x2d'] = 1, ['\x2e'] = 1, ['\x2f'] = 1, ['\x30'] = 1, ['\x31'] = 1, ['\x32'] = 1,
    ['\x33'] = 1, ['\x34'] = 1, ['\x35'] = 1, ['\x36'] = 1, ['\x37'] = 1, ['\x38'] = 1,
    ['\x39'] = 1, ['\x3a'] = 1, ['\x3b'] = 1, ['\x3c'] = 1, ['\x3d'] = 1, ['\x3e'] = 1,
    ['\x3f'] = 1, ['\x40'] = 1, ['\x41'] = 1, ['\x42'] = 1, ['\x43'] = 1, ['\x44'] = 1,
    ['\x45'] = 1, ['\x46'] = 1, ['\x47'] = 1, ['\x48'] = 1, ['\x49'] = 1, ['\x4a'] = 1,
    ['\x4b'] = 1, ['\x4c'] = 1, ['\x4d'] = 1, ['\x4e'] = 1, ['\x4f'] = 1, ['\x50'] = 1,
    ['\x51'] = 1, ['\x52'] = 1, ['\x53'] = 1, ['\x54'] = 1, ['\x55'] = 1, ['\x56'] = 1,
    ['\x57'] = 1, ['\x58'] = 1, ['\x59'] = 1, ['\x5a'] = 1, ['\x5b'] = 1, ['\x5d'] = 1,
    ['\x5e'] = 1, ['\x5f'] = 1, ['\x60'] = 1, ['\x61'] = 1, ['\x62'] = 1, ['\x63'] = 1,
    ['\x64'] = 1, ['\x65'] = 1, ['\x66'] = 1, ['\x67'] = 1, ['\x68'] = 1, ['\x69'] = 1,
    ['\x6a'] = 1, ['\x6b'] = 1, ['\x6c'] = 1, ['\x6d'] = 1, ['\x6e'] = 1, ['\x6f'] = 1,
    ['\x70'] = 1, ['\x71'] = 1, ['\x72'] = 1, ['\x73'] = 1, ['\x74'] = 1, ['\x75'] = 1,
    ['\x76'] = 1, ['\x77'] = 1, ['\x78'] = 1, ['\x79'] = 1, ['\x7a'] = 1, ['\x7b'] = 1,
    ['\x7c'] = 1, ['\x7d'] = 1, ['\x7e'] = 1, ['\x7f'] = 1,
};

void gpuplan_json_scan_init(struct gpuplan_json_scan *scan,
                            const uint8_t *data,
                            size_t len,
                            const char *where,
                            uint32_t max_depth,
                            unsigned flags)
{
    memset(scan, 0, sizeof *scan);
    scan->data = data;
    scan->len = data ? len : 0;
    scan->where = where;
    scan->max_depth = max_depth < 1                             ? 1
                      : max_depth > GPUPLAN_JSON_SCAN_MAX_DEPTH ? GPUPLAN_JSON_SCAN_MAX_DEPTH
                                                                : max_depth;
    scan->flags = flags;
    scan->state = S_VALUE;
    scan->error_offset = SIZE_MAX;
}

void gpuplan_json_scan_line_col(const uint8_t *data,
                                size_t len,
                                size_t offset,
                                size_t *line,
                                size_t *column)
{
    size_t ln = 1, line_start = 0;
    const size_t end = offset < len ? offset : len;
    for (size_t i = 0; i < end; i++) {
        if (data[i] == '\n') {
            ln++;
            line_start = i + 1;
        }
    }
    *line = ln;
    *column = offset - line_start + 1;
}

static enum gpuplan_status vfail(struct gpuplan_json_scan *scan,
                                 size_t offset,
                                 enum gpuplan_status code,
                                 struct gpuplan_error *err,
                                 const char *fmt,
                                 va_list ap) __attribute__((format(printf, 5, 0)));

static enum gpuplan_status vfail(struct gpuplan_json_scan *scan,
                                 size_t offset,
                                 enum gpuplan_status code,
                                 struct gpuplan_error *err,
                                 const char *fmt,
                                 va_list ap)
{
    char loc[GPUPLAN_ERROR_WHERE_MAX];
    char msg[GPUPLAN_ERROR_MESSAGE_MAX];
    size_t line, column;
    gpuplan_json_scan_line_col(scan->data, scan->len, offset, &line, &column);
    (void)snprintf(loc, sizeof loc, "%s:%zu:%zu", scan->where ? scan->where : "<input>", line,
                   column);
    (void)vsnprintf(msg, sizeof msg, fmt, ap);
    scan->state = S_FAILED;
    if (scan->error_offset == SIZE_MAX)
        scan->error_offset = offset;
    gpuplan_error_set(err, code, loc, "invalid JSON: %s", msg);
    gpuplan_error_hint(err, "check the file is complete, valid UTF-8 JSON");
    return code;
}

enum gpuplan_status gpuplan_json_scan_fail(struct gpuplan_json_scan *scan,
                                           size_t offset,
                                           enum gpuplan_status code,
                                           struct gpuplan_error *err,
                                           const char *fmt,
                                           ...)
{
    va_list ap;
    va_start(ap, fmt);
    const enum gpuplan_status st = vfail(scan, offset, code, err, GPUPLAN_TR(fmt), ap);
    va_end(ap);
    return st;
}

static enum gpuplan_status
fail(struct gpuplan_json_scan *scan, size_t offset, struct gpuplan_error *err, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static enum gpuplan_status
fail(struct gpuplan_json_scan *scan, size_t offset, struct gpuplan_error *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    const enum gpuplan_status st = vfail(scan, offset, GPUPLAN_ERR_INVALID_INPUT, err, fmt, ap);
    va_end(ap);
    return st;
}

/* "'x'" for printable ASCII, "byte 0xNN" otherwise, or "end of input". */
static void describe_at(const struct gpuplan_json_scan *scan, size_t pos, char *out, size_t size)
{
    if (pos >= scan->len)
        (void)snprintf(out, size, "end of input");
    else if (scan->data[pos] > 0x20 && scan->data[pos] < 0x7f)
        (void)snprintf(out, size, "'%c'", scan->data[pos]);
    else
        (void)snprintf(out, size, "byte 0x%02x", scan->data[pos]);
}

static enum gpuplan_status unexpected(struct gpuplan_json_scan *scan,
                                      size_t pos,
                                      const char *expected,
                                      struct gpuplan_error *err)
{
    char what[32];
    describe_at(scan, pos, what, sizeof what);
    return fail(scan, pos, err, GPUPLAN_TR("unexpected %s at byte %zu; expected %s"), what, pos,
                expected);
}

static size_t skip_space(const uint8_t *p, size_t pos, size_t len)
{
    while (pos < len && (p[pos] == ' ' || p[pos] == '\n' || p[pos] == '\r' || p[pos] == '\t'))
        pos++;
    return pos;
}

static int hex_value(uint8_t c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Four hex digits at p[0..3] (caller checked the length); -1 when not hex. */
static int32_t hex4(const uint8_t *p)
{
    int32_t v = 0;
    for (int i = 0; i < 4; i++) {
        const int h = hex_value(p[i]);
        if (h < 0)
            return -1;
        v = v * 16 + h;
    }
    return v;
}

/* A \u escape at p[pos] == '\\', p[pos+1] == 'u'; returns the bytes consumed or 0 on error. */
static size_t unicode_escape(struct gpuplan_json_scan *scan, size_t pos, struct gpuplan_error *err)
{
    const uint8_t *p = scan->data;
    if (scan->len - pos < 6 || hex4(p + pos + 2) < 0) {
        fail(scan, pos, err, GPUPLAN_TR("invalid \\u escape at byte %zu; expected 4 hex digits"),
             pos);
        return 0;
    }
    const int32_t cp = hex4(p + pos + 2);
    if (cp == 0 && !(scan->flags & GPUPLAN_JSON_SCAN_ALLOW_NUL)) {
        fail(scan, pos, err, GPUPLAN_TR("'\\u0000' at byte %zu is not allowed in strings"), pos);
        return 0;
    }
    if (cp >= 0xDC00 && cp <= 0xDFFF) {
        fail(scan, pos, err, GPUPLAN_TR("lone low surrogate '\\u%04X' at byte %zu"), (unsigned)cp,
             pos);
        return 0;
    }
    if (cp < 0xD800 || cp > 0xDBFF)
        return 6;
    /* A high surrogate must be followed by a low one (RFC 8259 section 7). */
    if (scan->len - pos < 12 || p[pos + 6] != '\\' || p[pos + 7] != 'u' ||
        hex4(p + pos + 8) < 0xDC00 || hex4(p + pos + 8) > 0xDFFF) {
        fail(scan, pos, err, GPUPLAN_TR("lone high surrogate '\\u%04X' at byte %zu"), (unsigned)cp,
             pos);
        return 0;
    }
    return 12;
}

/*
 * Whether any of the 8 bytes in `w` is '"', '\\', a control character
 * (< 0x20) or non-ASCII (>= 0x80). has_zero(x) sets the high bit of a byte
 * that is zero (and possibly of bytes above it, which only sends the caller
 * to the exact byte-wise loop): "Determine if a word has a zero byte",
 * Sean Eron Anderson, Bit Twiddling Hacks.
 */
static bool has_special_byte(uint64_t w)
{
    const uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
#define HAS_ZERO(x) (((x)-ones) & ~(x)&highs)
    const uint64_t quote = HAS_ZERO(w ^ (ones * '"'));
    const uint64_t backslash = HAS_ZERO(w ^ (ones * '\\'));
    const uint64_t control = (w - ones * 0x20) & ~w & highs;
#undef HAS_ZERO
    return ((quote | backslash | control | w) & highs) != 0;
}

/* The string whose opening quote is at scan->pos. */
static enum gpuplan_status scan_string(struct gpuplan_json_scan *scan,
                                       struct gpuplan_json_token *tok,
                                       struct gpuplan_error *err)
{
    const uint8_t *p = scan->data;
    const size_t len = scan->len;
    const size_t start = scan->pos;
    size_t pos = start + 1;
    bool has_escapes = false;
    for (;;) {
        /* Eight plain bytes at a time (SWAR), then byte by byte up to the special one. */
        uint64_t w;
        while (len - pos >= 8 && (memcpy(&w, p + pos, 8), !has_special_byte(w)))
            pos += 8;
        while (pos < len && plain_byte[p[pos]])
            pos++;
        if (pos >= len)
            return fail(scan, start, err, GPUPLAN_TR("unterminated string starting at byte %zu"),
                        start);
        const uint8_t c = p[pos];
        if (c == '"')
            break;
        if (c == '\\') {
            has_escapes = true;
            if (pos + 1 >= len)
                return fail(scan, pos, err, GPUPLAN_TR("unterminated escape at byte %zu"), pos);
            const uint8_t e = p[pos + 1];
            if (e == 'u') {
                const size_t n = unicode_escape(scan, pos, err);
                if (n == 0)
                    return GPUPLAN_ERR_INVALID_INPUT;
                pos += n;
            } else if (e == '"' || e == '\\' || e == '/' || e == 'b' || e == 'f' || e == 'n' ||
                       e == 'r' || e == 't') {
                pos += 2;
            } else {
                char what[32];
                describe_at(scan, pos + 1, what, sizeof what);
                return fail(scan, pos, err,
                            GPUPLAN_TR("invalid escape '\\' followed by %s at byte %zu"), what,
                            pos);
            }
        } else if (c < 0x20) {
            return fail(
                scan, pos, err,
                GPUPLAN_TR("control character 0x%02x at byte %zu must be escaped in a string"), c,
                pos);
        } else {
            const size_t n = gpuplan_utf8_sequence_len(p + pos, len - pos);
            if (n == 0)
                return fail(scan, pos, err, GPUPLAN_TR("invalid UTF-8 (byte 0x%02x) at byte %zu"),
                            c, pos);
            pos += n;
        }
    }
    tok->str = p + start + 1;
    tok->str_len = pos - start - 1;
    tok->has_escapes = has_escapes;
    tok->len = pos + 1 - start;
    scan->pos = pos + 1;
    return GPUPLAN_OK;
}

static bool is_digit(uint8_t c)
{
    return c >= '0' && c <= '9';
}

/* The number at scan->pos (RFC 8259 section 6), integer part accumulated exactly. */
static enum gpuplan_status scan_number(struct gpuplan_json_scan *scan,
                                       struct gpuplan_json_token *tok,
                                       struct gpuplan_error *err)
{
    const uint8_t *p = scan->data;
    const size_t len = scan->len;
    const size_t start = scan->pos;
    size_t pos = start;
    tok->is_negative = p[pos] == '-';
    if (tok->is_negative)
        pos++;
    if (pos < len && p[pos] == 'I')
        return fail(scan, start, err, GPUPLAN_TR("Infinity at byte %zu is not a JSON number"),
                    start);
    if (pos >= len || !is_digit(p[pos]))
        return fail(scan, start, err, GPUPLAN_TR("'-' at byte %zu must be followed by a digit"),
                    start);
    uint64_t v = 0;
    bool overflow = false;
    if (p[pos] == '0') {
        pos++;
        if (pos < len && is_digit(p[pos]))
            return fail(scan, start, err, GPUPLAN_TR("number at byte %zu has a leading zero"),
                        start);
    } else {
        /* 19 decimal digits always fit in 64 bits; check overflow only past them. */
        const size_t unchecked_end = len - pos > 19 ? pos + 19 : len;
        for (; pos < unchecked_end && is_digit(p[pos]); pos++)
            v = v * 10 + (uint64_t)(p[pos] - '0');
        for (; pos < len && is_digit(p[pos]); pos++) {
            overflow |= __builtin_mul_overflow(v, 10u, &v);
            overflow |= __builtin_add_overflow(v, (uint64_t)(p[pos] - '0'), &v);
        }
    }
    tok->is_integer = true;
    if (pos < len && p[pos] == '.') {
        pos++;
        if (pos >= len || !is_digit(p[pos]))
            return fail(scan, pos, err, GPUPLAN_TR("number at byte %zu needs a digit after '.'"),
                        start);
        while (pos < len && is_digit(p[pos]))
            pos++;
        tok->is_integer = false;
    }
    if (pos < len && (p[pos] == 'e' || p[pos] == 'E')) {
        pos++;
        if (pos < len && (p[pos] == '+' || p[pos] == '-'))
            pos++;
        if (pos >= len || !is_digit(p[pos]))
            return fail(scan, pos, err,
                        GPUPLAN_TR("number at byte %zu needs a digit in its exponent"), start);
        while (pos < len && is_digit(p[pos]))
            pos++;
        tok->is_integer = false;
    }
    tok->int_overflow = tok->is_integer && overflow;
    tok->int_magnitude = tok->is_integer && !overflow ? v : 0;
    tok->str = p + start;
    tok->str_len = pos - start;
    tok->len = pos - start;
    scan->pos = pos;
    return GPUPLAN_OK;
}

static enum gpuplan_status scan_literal(struct gpuplan_json_scan *scan,
                                        struct gpuplan_json_token *tok,
                                        const char *word,
                                        size_t n,
                                        enum gpuplan_json_kind kind,
                                        struct gpuplan_error *err)
{
    if (scan->len - scan->pos < n || memcmp(scan->data + scan->pos, word, n) != 0)
        return fail(scan, scan->pos, err, GPUPLAN_TR("invalid literal at byte %zu; expected '%s'"),
                    scan->pos, word);
    tok->kind = kind;
    tok->len = n;
    scan->pos += n;
    return GPUPLAN_OK;
}

static void set_is_object(struct gpuplan_json_scan *scan, uint32_t d, bool is_object)
{
    const uint8_t bit = (uint8_t)(1u << (d % 8));
    if (is_object)
        scan->is_object[d / 8] |= bit;
    else
        scan->is_object[d / 8] &= (uint8_t)~bit;
}

static bool top_is_object(const struct gpuplan_json_scan *scan)
{
    const uint32_t d = scan->depth - 1;
    return (scan->is_object[d / 8] >> (d % 8)) & 1u;
}

/* A value starts at scan->pos (whitespace skipped). */
static enum gpuplan_status scan_value(struct gpuplan_json_scan *scan,
                                      struct gpuplan_json_token *tok,
                                      struct gpuplan_error *err)
{
    if (scan->pos >= scan->len)
        return unexpected(scan, scan->pos, "a value", err);
    const uint8_t c = scan->data[scan->pos];
    enum gpuplan_status st = GPUPLAN_OK;
    switch (c) {
    case '{':
    case '[':
        if (scan->depth >= scan->max_depth)
            return gpuplan_json_scan_fail(scan, scan->pos, GPUPLAN_ERR_TOO_LARGE, err,
                                          "nesting at byte %zu is deeper than %u levels", scan->pos,
                                          scan->max_depth);
        set_is_object(scan, scan->depth, c == '{');
        scan->depth++;
        tok->kind = c == '{' ? GPUPLAN_JSON_OBJECT_BEGIN : GPUPLAN_JSON_ARRAY_BEGIN;
        tok->len = 1;
        scan->pos++;
        scan->state = c == '{' ? S_OBJECT_FIRST : S_ARRAY_FIRST;
        return GPUPLAN_OK;
    case '"':
        tok->kind = GPUPLAN_JSON_STRING;
        st = scan_string(scan, tok, err);
        break;
    case 't':
        st = scan_literal(scan, tok, "true", 4, GPUPLAN_JSON_TRUE, err);
        break;
    case 'f':
        st = scan_literal(scan, tok, "false", 5, GPUPLAN_JSON_FALSE, err);
        break;
    case 'n':
        st = scan_literal(scan, tok, "null", 4, GPUPLAN_JSON_NULL, err);
        break;
    case 'N':
    case 'I':
        return fail(scan, scan->pos, err, GPUPLAN_TR("%s at byte %zu is not a JSON number"),
                    c == 'N' ? "NaN" : "Infinity", scan->pos);
    default:
        if (c == '-' || is_digit(c)) {
            tok->kind = GPUPLAN_JSON_NUMBER;
            st = scan_number(scan, tok, err);
        } else {
            return unexpected(scan, scan->pos, "a value", err);
        }
    }
    if (st == GPUPLAN_OK)
        scan->state = S_AFTER_VALUE;
    return st;
}

/* A key starts at scan->pos; consumes the ':' after it. */
static enum gpuplan_status
scan_key(struct gpuplan_json_scan *scan, struct gpuplan_json_token *tok, struct gpuplan_error *err)
{
    if (scan->pos >= scan->len || scan->data[scan->pos] != '"')
        return unexpected(scan, scan->pos, "a string key", err);
    tok->kind = GPUPLAN_JSON_KEY;
    enum gpuplan_status st = scan_string(scan, tok, err);
    if (st != GPUPLAN_OK)
        return st;
    scan->pos = skip_space(scan->data, scan->pos, scan->len);
    if (scan->pos >= scan->len || scan->data[scan->pos] != ':')
        return unexpected(scan, scan->pos, "':' after the key", err);
    scan->pos++;
    scan->state = S_VALUE;
    return GPUPLAN_OK;
}

static enum gpuplan_status close_container(struct gpuplan_json_scan *scan,
                                           struct gpuplan_json_token *tok,
                                           struct gpuplan_error *err)
{
    const uint8_t c = scan->data[scan->pos];
    const bool is_object = top_is_object(scan);
    if ((c == '}') != is_object)
        return unexpected(scan, scan->pos, is_object ? "',' or '}'" : "',' or ']'", err);
    scan->depth--;
    tok->kind = is_object ? GPUPLAN_JSON_OBJECT_END : GPUPLAN_JSON_ARRAY_END;
    tok->len = 1;
    scan->pos++;
    scan->state = S_AFTER_VALUE;
    return GPUPLAN_OK;
}

static enum gpuplan_status after_value(struct gpuplan_json_scan *scan,
                                       struct gpuplan_json_token *tok,
                                       struct gpuplan_error *err)
{
    if (scan->depth == 0) {
        if (scan->pos < scan->len)
            return unexpected(scan, scan->pos, "the end of the document", err);
        tok->kind = GPUPLAN_JSON_END;
        scan->state = S_DONE;
        return GPUPLAN_OK;
    }
    const bool is_object = top_is_object(scan);
    if (scan->pos >= scan->len)
        return unexpected(scan, scan->pos, is_object ? "',' or '}'" : "',' or ']'", err);
    const uint8_t c = scan->data[scan->pos];
    if (c == ',') {
        scan->pos = skip_space(scan->data, scan->pos + 1, scan->len);
        tok->offset = scan->pos;
        return is_object ? scan_key(scan, tok, err) : scan_value(scan, tok, err);
    }
    if (c == '}' || c == ']')
        return close_container(scan, tok, err);
    return unexpected(scan, scan->pos, is_object ? "',' or '}'" : "',' or ']'", err);
}

enum gpuplan_status gpuplan_json_scan_next(struct gpuplan_json_scan *scan,
                                           struct gpuplan_json_token *tok,
                                           struct gpuplan_error *err)
{
    memset(tok, 0, sizeof *tok);
    if (scan->state == S_FAILED)
        return gpuplan_error_set(err, GPUPLAN_ERR_INVALID_INPUT, scan->where,
                                 "invalid JSON: the scanner already failed at byte %zu",
                                 scan->error_offset);
    scan->pos = skip_space(scan->data, scan->pos, scan->len);
    tok->offset = scan->pos;
    switch (scan->state) {
    case S_VALUE:
        return scan_value(scan, tok, err);
    case S_ARRAY_FIRST:
        if (scan->pos < scan->len && scan->data[scan->pos] == ']')
            return close_container(scan, tok, err);
        return scan_value(scan, tok, err);
    case S_OBJECT_FIRST:
        if (scan->pos < scan->len && scan->data[scan->pos] == '}')
            return close_container(scan, tok, err);
        return scan_key(scan, tok, err);
    case S_KEY:
        return scan_key(scan, tok, err);
    case S_AFTER_VALUE:
        return after_value(scan, tok, err);
    default:
        tok->kind = GPUPLAN_JSON_END;
        return GPUPLAN_OK;
    }
}

enum gpuplan_status gpuplan_json_scan_skip(struct gpuplan_json_scan *scan,
                                           const struct gpuplan_json_token *first,
                                           struct gpuplan_error *err)
{
    if (first->kind != GPUPLAN_JSON_OBJECT_BEGIN && first->kind != GPUPLAN_JSON_ARRAY_BEGIN)
        return GPUPLAN_OK;
    const uint32_t depth = scan->depth - 1;
    struct gpuplan_json_token tok;
    while (scan->depth > depth) {
        const enum gpuplan_status st = gpuplan_json_scan_next(scan, &tok, err);
        if (st != GPUPLAN_OK)
            return st;
    }
    return GPUPLAN_OK;
}

/* Append code point `cp` as UTF-8; returns the bytes written. */
static size_t put_utf8(uint32_t cp, char *out)
{
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xC0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | (cp >> 18));
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/* One escape at s[i] == '\\' (validated by the scanner); advances *i. */
static uint32_t decode_escape(const uint8_t *s, size_t n, size_t *i)
{
    const uint8_t e = *i + 1 < n ? s[*i + 1] : 0;
    static const char from[] = "\"\\/bfnrt";
    static const char to[] = "\"\\/\b\f\n\r\t";
    const char *hit = e ? strchr(from, (char)e) : NULL;
    if (hit) {
        *i += 2;
        return (uint8_t)to[hit - from];
    }
    if (e != 'u' || n - *i < 6) {
        *i = n;
        return 0xFFFD;
    }
    uint32_t cp = (uint32_t)hex4(s + *i + 2);
    *i += 6;
    /* UTF-16 surrogate pair (RFC 8259 section 7). */
    if (cp >= 0xD800 && cp <= 0xDBFF && n - *i >= 6 && s[*i] == '\\' && s[*i + 1] == 'u') {
        const uint32_t low = (uint32_t)hex4(s + *i + 2);
        cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
        *i += 6;
    }
    return cp;
}

size_t gpuplan_json_scan_decode(const struct gpuplan_json_token *tok, char *out)
{
    const uint8_t *s = tok->str;
    const size_t n = tok->str_len;
    if (!tok->has_escapes) {
        if (n)
            memcpy(out, s, n);
        out[n] = '\0';
        return n;
    }
    size_t o = 0;
    for (size_t i = 0; i < n;) {
        if (s[i] != '\\') {
            out[o++] = (char)s[i++];
            continue;
        }
        o += put_utf8(decode_escape(s, n, &i), out + o);
    }
    out[o] = '\0';
    return o;
}

bool gpuplan_json_scan_equals(const struct gpuplan_json_token *tok, const char *lit, size_t lit_len)
{
    if (!tok->has_escapes)
        return tok->str_len == lit_len && memcmp(tok->str, lit, lit_len) == 0;
    if (lit_len > tok->str_len)
        return false;
    /* Decode on the fly, comparing as we go: no buffer needed. */
    const uint8_t *s = tok->str;
    const size_t n = tok->str_len;
    size_t o = 0;
    char utf8[4];
    for (size_t i = 0; i < n;) {
        size_t k = 1;
        if (s[i] == '\\')
            k = put_utf8(decode_escape(s, n, &i), utf8);
        else
            utf8[0] = (char)s[i++];
        if (o + k > lit_len || memcmp(lit + o, utf8, k) != 0)
            return false;
        o += k;
    }
    return o == lit_len;
}

bool gpuplan_json_scan_double(const struct gpuplan_json_token *tok, double *out)
{
    if (tok->kind != GPUPLAN_JSON_NUMBER || !tok->str)
        return false;
    char small[64];
    char *text = tok->len < sizeof small ? small : malloc(tok->len + 1);
    if (!text)
        return false;
    memcpy(text, tok->str, tok->len);
    text[tok->len] = '\0';
    const double v = strtod(text, NULL);
    if (text != small)
        free(text);
    *out = v;
    return v - v == 0.0; /* finite: inf - inf is NaN */
}
