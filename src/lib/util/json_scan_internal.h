/*
 * json_scan.h - a strict, bounded, allocation-free JSON pull tokenizer
 * (library-internal).
 *
 * The project's JSON reader for hot paths: a safetensors header of 100,000
 * tensors is 12.8 MB of JSON, and building jansson's DOM for it (one hash
 * object per tensor) costs more than everything else together. Documents
 * where a DOM is convenient (config.json, the catalog, HTTP bodies) keep
 * using jansson through json_internal.h.
 *
 * Grammar: RFC 8259, strictly. The scanner checks the whole structure
 * (commas, colons, matching brackets, keys in key position) and rejects
 * trailing garbage after the top-level value, NaN and Infinity, leading
 * zeros, control characters and invalid UTF-8 in strings, invalid escapes,
 * lone UTF-16 surrogates in \u escapes, "\u0000" (unless
 * GPUPLAN_JSON_SCAN_ALLOW_NUL; names are used as C strings) and nesting
 * deeper than the limit given at init. Whitespace is ' ', '\t', '\n', '\r'.
 *
 * Every error names the byte offset; line:column is computed only then.
 * Errors set err->where = "WHERE:LINE:COLUMN" (1-based; the column counts
 * bytes) and a message starting "invalid JSON: ", and record the offset in
 * scan->error_offset. After an error every later call fails again.
 *
 * Not here: a DOM, duplicate-key detection (it needs the keys; callers
 * that want it collect keys and sort), number-to-double conversion on the
 * hot path (numbers are returned as an exact integer magnitude plus the
 * raw span; gpuplan_json_scan_double converts on demand).
 */
#ifndef GPUPLAN_JSON_SCAN_H
#define GPUPLAN_JSON_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpuplan/error.h"

/* Deepest nesting any caller may ask for; jansson's JSON_PARSER_MAX_DEPTH is the same. */
#define GPUPLAN_JSON_SCAN_MAX_DEPTH 2048U

/* Flags for gpuplan_json_scan_init. */
#define GPUPLAN_JSON_SCAN_ALLOW_NUL 1U /* accept "\u0000" in strings */

enum gpuplan_json_kind {
    GPUPLAN_JSON_END = 0, /* after the top-level value: only whitespace was left */
    GPUPLAN_JSON_OBJECT_BEGIN,
    GPUPLAN_JSON_OBJECT_END,
    GPUPLAN_JSON_ARRAY_BEGIN,
    GPUPLAN_JSON_ARRAY_END,
    GPUPLAN_JSON_KEY, /* a string in key position; its ':' has been consumed */
    GPUPLAN_JSON_STRING,
    GPUPLAN_JSON_NUMBER,
    GPUPLAN_JSON_TRUE,
    GPUPLAN_JSON_FALSE,
    GPUPLAN_JSON_NULL,
};

struct gpuplan_json_token {
    enum gpuplan_json_kind kind;
    size_t offset; /* byte offset of the token's first byte ('"' for strings) */
    size_t len;    /* bytes of the token as written, quotes included */
    /* GPUPLAN_JSON_KEY and GPUPLAN_JSON_STRING (NUMBER: the number as written) */
    const uint8_t *str; /* borrowed: the bytes between the quotes, escapes not decoded */
    size_t str_len;     /* bytes between the quotes; >= the decoded length */
    bool has_escapes;   /* str holds at least one '\' escape */
    /* GPUPLAN_JSON_NUMBER */
    bool is_integer;        /* no fraction and no exponent, e.g. "-12" */
    bool is_negative;       /* written with a leading '-' ("-0" too) */
    bool int_overflow;      /* is_integer and |value| > 2^64 - 1 */
    uint64_t int_magnitude; /* |value| when is_integer and !int_overflow */
};

struct gpuplan_json_scan {
    const uint8_t *data; /* borrowed; need not be NUL-terminated */
    size_t len;
    size_t pos;          /* next byte to read */
    const char *where;   /* input name for errors; borrowed, may be NULL */
    uint32_t depth;      /* open arrays and objects */
    uint32_t max_depth;  /* 1 .. GPUPLAN_JSON_SCAN_MAX_DEPTH */
    unsigned flags;      /* GPUPLAN_JSON_SCAN_* */
    int state;           /* internal */
    size_t error_offset; /* byte offset of the first error, SIZE_MAX when none */
    uint8_t is_object[GPUPLAN_JSON_SCAN_MAX_DEPTH / 8]; /* bit d: container d is an object */
};

/*
 * Start scanning `len` bytes. `max_depth` is clamped to
 * 1 .. GPUPLAN_JSON_SCAN_MAX_DEPTH. Allocates nothing.
 */
void gpuplan_json_scan_init(struct gpuplan_json_scan *scan,
                            const uint8_t *data,
                            size_t len,
                            const char *where,
                            uint32_t max_depth,
                            unsigned flags);

/*
 * Read the next token into *tok. Returns GPUPLAN_ERR_INVALID_INPUT on a
 * syntax error (or GPUPLAN_ERR_TOO_LARGE past the depth limit); once the
 * top-level value is complete, returns GPUPLAN_JSON_END tokens.
 */
enum gpuplan_status gpuplan_json_scan_next(struct gpuplan_json_scan *scan,
                                           struct gpuplan_json_token *tok,
                                           struct gpuplan_error *err);

/*
 * Skip the rest of the value whose first token is `first` (a scalar, or
 * OBJECT_BEGIN / ARRAY_BEGIN just returned by _next).
 */
enum gpuplan_status gpuplan_json_scan_skip(struct gpuplan_json_scan *scan,
                                           const struct gpuplan_json_token *first,
                                           struct gpuplan_error *err);

/*
 * Fail at byte `offset` with a caller's reason, in the scanner's format
 * ("invalid JSON: " + message, where = WHERE:LINE:COLUMN): for errors a
 * caller finds in tokens, such as a duplicate key. Later calls fail too.
 */
enum gpuplan_status gpuplan_json_scan_fail(struct gpuplan_json_scan *scan,
                                           size_t offset,
                                           enum gpuplan_status code,
                                           struct gpuplan_error *err,
                                           const char *fmt,
                                           ...) __attribute__((format(printf, 5, 6)));

/*
 * Decode a KEY or STRING token into out[tok->str_len + 1]: escapes become
 * UTF-8, and a NUL is appended. Returns the decoded length in bytes.
 * `out` may not overlap tok->str.
 */
size_t gpuplan_json_scan_decode(const struct gpuplan_json_token *tok, char *out);

/* True when a KEY or STRING token decodes to exactly lit[0..lit_len). */
bool gpuplan_json_scan_equals(const struct gpuplan_json_token *tok,
                              const char *lit,
                              size_t lit_len);

/*
 * The value of a NUMBER token as a double (strtod, round to nearest).
 * False when it overflows to +-infinity. Underflow to 0 is not an error.
 * Uses the C locale's '.' as the decimal point: the library never calls
 * setlocale (style.md).
 */
bool gpuplan_json_scan_double(const struct gpuplan_json_token *tok, double *out);

/* 1-based line and byte column of `offset` in data[0..len). */
void gpuplan_json_scan_line_col(const uint8_t *data,
                                size_t len,
                                size_t offset,
                                size_t *line,
                                size_t *column);

#endif
