/*
 * safetensors.c - safetensors header and index parsing (see safetensors.h).
 *
 * The checks follow huggingface/safetensors src/tensor.rs (@24b0b28):
 * read_metadata (HeaderTooSmall, HeaderTooLarge, InvalidHeaderLength,
 * InvalidHeaderStart, InvalidHeader for UTF-8), Metadata::validate
 * (InvalidOffset, ValidationOverflow, MisalignedSlice, TensorInvalidInfo)
 * and MetadataIncompleteBuffer. Work is O(n log n) in the tensor count:
 * one pass of json_scan.h over the JSON (no DOM), one sort of the names
 * for duplicates, one sort by offset (skipped when the writer already
 * emitted offset order), one pass to check tiling.
 */
#include "formats/safetensors_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/tensor_names_internal.h"
#include "gpuplan/units.h"
#include "util/json_internal.h"
#include "util/json_scan_internal.h"
#include "util/utf8_internal.h"

#include "util/i18n_internal.h"

static const char metadata_key[] = "__metadata__";

void gpuplan_st_header_init(struct gpuplan_st_header *header)
{
    memset(header, 0, sizeof *header);
}

void gpuplan_st_header_release(struct gpuplan_st_header *header)
{
    if (!header)
        return;
    free(header->tensors);
    free(header->names);
    free(header->strings);
    memset(header, 0, sizeof *header);
}

static enum gpuplan_status fail_at(struct gpuplan_error *err,
                                   enum gpuplan_status code,
                                   const char *where,
                                   uint64_t offset,
                                   const char *message)
{
    char loc[GPUPLAN_ERROR_WHERE_MAX];
    (void)snprintf(loc, sizeof loc, "%s@%llu", where ? where : "<input>",
                   (unsigned long long)offset);
    return gpuplan_error_set(err, code, loc, "%s", message);
}

/* where = "file:$.NAME" for errors about one tensor. */
static void tensor_where(char *loc, size_t size, const char *where, const char *name)
{
    (void)snprintf(loc, size, "%s:$.%s", where ? where : "<input>", name);
}

enum gpuplan_status gpuplan_st_header_size(const uint8_t *data,
                                           size_t len,
                                           uint64_t file_bytes,
                                           const char *where,
                                           uint64_t *out_total_bytes,
                                           struct gpuplan_error *err)
{
    char msg[GPUPLAN_ERROR_MESSAGE_MAX];
    const uint64_t have = file_bytes ? file_bytes : len;
    if (len < GPUPLAN_SAFETENSORS_PREFIX_BYTES) {
        (void)snprintf(
            msg, sizeof msg,
            GPUPLAN_TR("truncated: %llu bytes; a safetensors file starts with an 8-byte header "
                       "length"),
            (unsigned long long)(file_bytes && file_bytes < len ? file_bytes : len));
        fail_at(err, GPUPLAN_ERR_INVALID_INPUT, where, 0, msg);
        gpuplan_error_hint(err, "check that the file is a complete .safetensors file");
        return GPUPLAN_ERR_INVALID_INPUT;
    }
    uint64_t n = 0;
    for (unsigned i = 0; i < GPUPLAN_SAFETENSORS_PREFIX_BYTES; i++)
        n |= (uint64_t)data[i] << (8 * i);
    if (n > GPUPLAN_SAFETENSORS_MAX_HEADER_BYTES) {
        (void)snprintf(
            msg, sizeof msg, GPUPLAN_TR("header length %llu exceeds the limit of %llu bytes"),
            (unsigned long long)n, (unsigned long long)GPUPLAN_SAFETENSORS_MAX_HEADER_BYTES);
        fail_at(err, GPUPLAN_ERR_TOO_LARGE, where, 0, msg);
        gpuplan_error_hint(err, "the file is not a safetensors file, or its first 8 bytes are "
                                "corrupt");
        return GPUPLAN_ERR_TOO_LARGE;
    }
    const uint64_t total = n + GPUPLAN_SAFETENSORS_PREFIX_BYTES;
    if (total > have) {
        (void)snprintf(
            msg, sizeof msg,
            GPUPLAN_TR("header length %llu runs past the end of the file (%llu bytes; need "
                       "%llu)"),
            (unsigned long long)n, (unsigned long long)have, (unsigned long long)total);
        fail_at(err, GPUPLAN_ERR_INVALID_INPUT, where, 0, msg);
        gpuplan_error_hint(err, "the file is truncated or not a safetensors file");
        return GPUPLAN_ERR_INVALID_INPUT;
    }
    *out_total_bytes = total;
    return GPUPLAN_OK;
}

/*
 * Header parsing on json_scan.h. One pass reads the JSON into tensor
 * records; a tensor's checks run when its object closes. jansson would
 * report the first syntax error or duplicate key before any check, so a
 * failed check is held in `pending` while the scan runs on, and reported
 * only when the document turns out to be well-formed JSON with unique keys.
 * Duplicate keys are found after the scan: top-level names (and the keys
 * of nested objects other than the three known tensor fields) are sorted
 * by (hash, name, offset) and neighbours compared; the first error in
 * document order wins, as in a DOM parser.
 */

/* jansson's limits, kept so the JSON accepted is exactly what json_loadb accepted. */
#define ST_MAX_DEPTH GPUPLAN_JSON_SCAN_MAX_DEPTH /* jansson JSON_PARSER_MAX_DEPTH */

/* A key of a nested object, for duplicate detection. */
struct nested_key {
    struct gpuplan_st_name key;
    uint32_t object; /* which object it belongs to, numbered in document order */
};

/* A JSON integer as jansson holds it (json_int_t is long long), or "not an integer". */
struct int_value {
    bool is_int;
    int64_t value;
};

/* What one tensor entry says, collected before its checks run. */
struct entry_fields {
    bool has_dtype_string;
    enum gpuplan_dtype dtype;
    const char *dtype_text; /* decoded, only when the dtype is unknown */
    bool has_shape_array;
    size_t rank;
    struct int_value dims[GPUPLAN_SAFETENSORS_MAX_DIMS];
    bool has_offsets_array;
    size_t n_offsets;
    struct int_value offsets[2];
};

struct parse_ctx {
    struct gpuplan_json_scan scan;
    const char *where;
    struct gpuplan_st_header *out;
    size_t cap_tensors;
    size_t strings_used; /* of out->strings, which holds header_bytes + 1 */
    size_t strings_cap;
    size_t cap_names;
    struct nested_key *keys; /* owned */
    size_t n_keys, cap_keys;
    uint32_t n_objects;
    uint32_t object_at[ST_MAX_DEPTH + 1]; /* object number of the open object at each depth */
    enum gpuplan_dtype last_dtype;        /* dtype text cache: headers repeat one dtype */
    const uint8_t *last_dtype_text;
    size_t last_dtype_len;
    enum gpuplan_status pending_status; /* first failed tensor check */
    struct gpuplan_error pending;
};

/*
 * 64-bit hash of a name, eight bytes at a time (multiply-xorshift rounds and
 * the MurmurHash3 fmix64 finaliser). Only used to bucket equal names; equal
 * hashes are always confirmed by comparing bytes.
 */
static uint64_t name_hash(const char *s, size_t n)
{
    const uint64_t k = 0x9E3779B97F4A7C15ULL;
    uint64_t h = (uint64_t)n * k;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, s + i, 8);
        h = (h ^ w) * k;
        h ^= h >> 32;
    }
    uint64_t tail = 0;
    for (size_t j = 0; i + j < n; j++)
        tail |= (uint64_t)(uint8_t)s[i + j] << (8 * j);
    h = (h ^ tail) * k;
    h ^= h >> 33;
    h *= 0xFF51AFD7ED558CCDULL;
    h ^= h >> 33;
    h *= 0xC4CEB9FE1A85EC53ULL;
    h ^= h >> 33;
    return h;
}

static int cmp_names(const void *a, const void *b)
{
    const struct gpuplan_st_name *x = a, *y = b;
    if (x->hash != y->hash)
        return x->hash < y->hash ? -1 : 1;
    if (x->len != y->len)
        return x->len < y->len ? -1 : 1;
    const int c = memcmp(x->name, y->name, x->len);
    if (c != 0)
        return c;
    return x->offset < y->offset ? -1 : (x->offset > y->offset);
}

static bool same_name(const struct gpuplan_st_name *x, const struct gpuplan_st_name *y)
{
    return x->hash == y->hash && x->len == y->len && memcmp(x->name, y->name, x->len) == 0;
}

static int cmp_nested_keys(const void *a, const void *b)
{
    const struct nested_key *x = a, *y = b;
    if (x->object != y->object)
        return x->object < y->object ? -1 : 1;
    return cmp_names(&x->key, &y->key);
}

bool gpuplan_st_header_has_name(const struct gpuplan_st_header *header,
                                const char *name,
                                size_t len)
{
    if (!header->names || len > UINT32_MAX)
        return false;
    const struct gpuplan_st_name probe = { name_hash(name, len), name, (uint32_t)len, 0 };
    size_t lo = 0, hi = header->n_names;
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        const struct gpuplan_st_name *m = &header->names[mid];
        int c = m->hash != probe.hash ? (m->hash < probe.hash ? -1 : 1)
                : m->len != probe.len ? (m->len < probe.len ? -1 : 1)
                                      : memcmp(m->name, name, len);
        if (c == 0)
            return true;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return false;
}

/* Grow *items (of `size`-byte elements) to hold one more; false when out of memory. */
static bool grow(void **items, size_t *cap, size_t n, size_t size)
{
    if (n < *cap)
        return true;
    const size_t new_cap = *cap ? *cap * 2 : 256;
    if (new_cap < *cap || new_cap > SIZE_MAX / size)
        return false;
    void *grown = realloc(*items, new_cap * size);
    if (!grown)
        return false;
    *items = grown;
    *cap = new_cap;
    return true;
}

static enum gpuplan_status nomem(struct parse_ctx *ctx, struct gpuplan_error *err)
{
    return gpuplan_error_set(err, GPUPLAN_ERR_NOMEM, ctx->where,
                             "out of memory parsing a header of %llu bytes",
                             (unsigned long long)ctx->out->header_bytes);
}

/*
 * Decode a KEY or STRING token into the strings buffer. Each string of the
 * document is stored at most once and needs str_len + 1 <= its JSON length
 * - 1 bytes, so header_bytes + 1 bytes always suffice; checked anyway.
 */
static const char *
keep_string(struct parse_ctx *ctx, const struct gpuplan_json_token *tok, size_t *out_len)
{
    if (tok->str_len + 1 > ctx->strings_cap - ctx->strings_used)
        return NULL;
    char *s = ctx->out->strings + ctx->strings_used;
    *out_len = gpuplan_json_scan_decode(tok, s);
    ctx->strings_used += *out_len + 1;
    return s;
}

/* A key of nested object `object`, kept for the duplicate check. */
static enum gpuplan_status add_nested_key(struct parse_ctx *ctx,
                                          uint32_t object,
                                          const struct gpuplan_json_token *tok,
                                          const char **out_name,
                                          struct gpuplan_error *err)
{
    size_t len;
    const char *name = keep_string(ctx, tok, &len);
    if (!name)
        return gpuplan_error_set(err, GPUPLAN_ERR_INTERNAL, ctx->where, "header strings overflow");
    if (!grow((void **)&ctx->keys, &ctx->cap_keys, ctx->n_keys, sizeof *ctx->keys))
        return nomem(ctx, err);
    struct nested_key *k = &ctx->keys[ctx->n_keys++];
    k->object = object;
    k->key = (struct gpuplan_st_name){ name_hash(name, len), name, (uint32_t)len,
                                       (uint32_t)tok->offset };
    if (out_name)
        *out_name = name;
    return GPUPLAN_OK;
}

/*
 * A number token as jansson reads it: integers must fit json_int_t
 * (int64), reals must not overflow to infinity; both are syntax errors
 * there ("too big integer", "real number overflow").
 */
static enum gpuplan_status read_number(struct parse_ctx *ctx,
                                       const struct gpuplan_json_token *tok,
                                       struct int_value *out,
                                       struct gpuplan_error *err)
{
    out->is_int = false;
    if (!tok->is_integer) {
        double v;
        if (!gpuplan_json_scan_double(tok, &v))
            return gpuplan_json_scan_fail(&ctx->scan, tok->offset, GPUPLAN_ERR_INVALID_INPUT, err,
                                          "real number overflow at byte %zu", tok->offset);
        return GPUPLAN_OK;
    }
    const uint64_t limit = tok->is_negative ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    if (tok->int_overflow || tok->int_magnitude > limit)
        return gpuplan_json_scan_fail(&ctx->scan, tok->offset, GPUPLAN_ERR_INVALID_INPUT, err,
                                      "too big %sinteger at byte %zu",
                                      tok->is_negative ? "negative " : "", tok->offset);
    out->is_int = true;
    if (!tok->is_negative)
        out->value = (int64_t)tok->int_magnitude;
    else if (tok->int_magnitude == (uint64_t)INT64_MAX + 1)
        out->value = INT64_MIN;
    else
        out->value = -(int64_t)tok->int_magnitude;
    return GPUPLAN_OK;
}

/*
 * Scan the value whose first token is `first` to its end, keeping the keys
 * of any objects in it (each numbered anew) for the duplicate check and
 * checking its numbers as jansson would.
 */
static enum gpuplan_status
skip_value(struct parse_ctx *ctx, const struct gpuplan_json_token *first, struct gpuplan_error *err)
{
    struct int_value ignored;
    if (first->kind == GPUPLAN_JSON_NUMBER)
        return read_number(ctx, first, &ignored, err);
    if (first->kind != GPUPLAN_JSON_OBJECT_BEGIN && first->kind != GPUPLAN_JSON_ARRAY_BEGIN)
        return GPUPLAN_OK;
    const uint32_t base = ctx->scan.depth - 1;
    if (first->kind == GPUPLAN_JSON_OBJECT_BEGIN)
        ctx->object_at[ctx->scan.depth] = ++ctx->n_objects;
    struct gpuplan_json_token tok;
    while (ctx->scan.depth > base) {
        enum gpuplan_status st = gpuplan_json_scan_next(&ctx->scan, &tok, err);
        if (st == GPUPLAN_OK && tok.kind == GPUPLAN_JSON_OBJECT_BEGIN)
            ctx->object_at[ctx->scan.depth] = ++ctx->n_objects;
        else if (st == GPUPLAN_OK && tok.kind == GPUPLAN_JSON_KEY)
            st = add_nested_key(ctx, ctx->object_at[ctx->scan.depth], &tok, NULL, err);
        else if (st == GPUPLAN_OK && tok.kind == GPUPLAN_JSON_NUMBER)
            st = read_number(ctx, &tok, &ignored, err);
        if (st != GPUPLAN_OK)
            return st;
    }
    return GPUPLAN_OK;
}

/* Hold the first failed check; later ones are not reported (jansson order: stop at the first). */
static void pend(struct parse_ctx *ctx, enum gpuplan_status st)
{
    if (ctx->pending_status == GPUPLAN_OK)
        ctx->pending_status = st;
}

static bool has_pending(const struct parse_ctx *ctx)
{
    return ctx->pending_status != GPUPLAN_OK;
}

/* __metadata__: an object of strings (tensor.rs Metadata: HashMap<String, String>). */
static enum gpuplan_status read_metadata(struct parse_ctx *ctx,
                                         const struct gpuplan_json_token *first,
                                         struct gpuplan_error *err)
{
    char loc[GPUPLAN_ERROR_WHERE_MAX];
    if (first->kind != GPUPLAN_JSON_OBJECT_BEGIN) {
        if (!has_pending(ctx)) {
            tensor_where(loc, sizeof loc, ctx->where, metadata_key);
            pend(ctx, gpuplan_error_set(&ctx->pending, GPUPLAN_ERR_INVALID_INPUT, loc,
                                        "'__metadata__' must be an object of strings"));
        }
        return skip_value(ctx, first, err);
    }
    const uint32_t object = ++ctx->n_objects;
    struct gpuplan_json_token tok;
    for (;;) {
        enum gpuplan_status st = gpuplan_json_scan_next(&ctx->scan, &tok, err);
        if (st != GPUPLAN_OK || tok.kind == GPUPLAN_JSON_OBJECT_END)
            return st;
        const char *key = NULL;
        st = add_nested_key(ctx, object, &tok, &key, err);
        if (st == GPUPLAN_OK)
            st = gpuplan_json_scan_next(&ctx->scan, &tok, err);
        if (st != GPUPLAN_OK)
            return st;
        if (tok.kind != GPUPLAN_JSON_STRING) {
            if (!has_pending(ctx)) {
                (void)snprintf(loc, sizeof loc, "%s:$.__metadata__.%s",
                               ctx->where ? ctx->where : "<input>", key);
                pend(ctx, gpuplan_error_set(&ctx->pending, GPUPLAN_ERR_INVALID_INPUT, loc,
                                            "'__metadata__' value '%s' is not a string; "
                                            "safetensors metadata maps strings to strings",
                                            key));
            }
            st = skip_value(ctx, &tok, err);
            if (st != GPUPLAN_OK)
                return st;
            continue;
        }
        if (has_pending(ctx))
            continue;
        if (strcmp(key, "format") == 0) {
            size_t len;
            ctx->out->metadata_format = keep_string(ctx, &tok, &len);
            if (!ctx->out->metadata_format)
                return gpuplan_error_set(err, GPUPLAN_ERR_INTERNAL, ctx->where,
                                         "header strings overflow");
        }
        ctx->out->n_metadata++;
    }
}

/* The value of "dtype": a known safetensors dtype name, or text for the message. */
static enum gpuplan_status read_dtype(struct parse_ctx *ctx,
                                      const struct gpuplan_json_token *tok,
                                      struct entry_fields *f,
                                      struct gpuplan_error *err)
{
    if (tok->kind != GPUPLAN_JSON_STRING) {
        f->has_dtype_string = false;
        return skip_value(ctx, tok, err);
    }
    f->has_dtype_string = true;
    if (!tok->has_escapes && ctx->last_dtype_text && tok->str_len == ctx->last_dtype_len &&
        memcmp(tok->str, ctx->last_dtype_text, tok->str_len) == 0) {
        f->dtype = ctx->last_dtype;
        return GPUPLAN_OK;
    }
    if (!tok->has_escapes) {
        f->dtype = gpuplan_dtype_from_safetensors((const char *)tok->str, tok->str_len);
        if (f->dtype != GPUPLAN_DTYPE_UNKNOWN) {
            ctx->last_dtype = f->dtype;
            ctx->last_dtype_text = tok->str;
            ctx->last_dtype_len = tok->str_len;
            return GPUPLAN_OK;
        }
    }
    size_t len;
    f->dtype_text = keep_string(ctx, tok, &len);
    if (!f->dtype_text)
        return gpuplan_error_set(err, GPUPLAN_ERR_INTERNAL, ctx->where, "header strings overflow");
    f->dtype = gpuplan_dtype_from_safetensors(f->dtype_text, len);
    return GPUPLAN_OK;
}

/* An array of integers ("shape", "data_offsets"): its length and first `keep` elements. */
static enum gpuplan_status read_int_array(struct parse_ctx *ctx,
                                          const struct gpuplan_json_token *first,
                                          bool *is_array,
                                          size_t *count,
                                          struct int_value *items,
                                          size_t keep,
                                          struct gpuplan_error *err)
{
    *is_array = first->kind == GPUPLAN_JSON_ARRAY_BEGIN;
    *count = 0;
    if (!*is_array)
        return skip_value(ctx, first, err);
    struct gpuplan_json_token tok;
    for (;;) {
        enum gpuplan_status st = gpuplan_json_scan_next(&ctx->scan, &tok, err);
        if (st != GPUPLAN_OK || tok.kind == GPUPLAN_JSON_ARRAY_END)
            return st;
        struct int_value v = { false, 0 };
        st = tok.kind == GPUPLAN_JSON_NUMBER ? read_number(ctx, &tok, &v, err)
                                             : skip_value(ctx, &tok, err);
        if (st != GPUPLAN_OK)
            return st;
        if (*count < keep)
            items[*count] = v;
        (*count)++;
    }
}

enum tensor_field { FIELD_DTYPE, FIELD_SHAPE, FIELD_OFFSETS, FIELD_OTHER };

static enum tensor_field field_of(const struct gpuplan_json_token *key)
{
    if (gpuplan_json_scan_equals(key, "dtype", 5))
        return FIELD_DTYPE;
    if (gpuplan_json_scan_equals(key, "shape", 5))
        return FIELD_SHAPE;
    if (gpuplan_json_scan_equals(key, "data_offsets", 12))
        return FIELD_OFFSETS;
    return FIELD_OTHER;
}

/* The members of one tensor object, after its '{'. */
static enum gpuplan_status
read_entry_fields(struct parse_ctx *ctx, struct entry_fields *f, struct gpuplan_error *err)
{
    static const char *const field_names[] = { "dtype", "shape", "data_offsets" };
    const uint32_t object = ++ctx->n_objects;
    bool seen[FIELD_OTHER] = { false, false, false };
    struct gpuplan_json_token key, tok;
    for (;;) {
        enum gpuplan_status st = gpuplan_json_scan_next(&ctx->scan, &key, err);
        if (st != GPUPLAN_OK || key.kind == GPUPLAN_JSON_OBJECT_END)
            return st;
        const enum tensor_field field = field_of(&key);
        if (field != FIELD_OTHER && seen[field])
            return gpuplan_json_scan_fail(&ctx->scan, key.offset, GPUPLAN_ERR_INVALID_INPUT, err,
                                          "duplicate object key '%s' at byte %zu",
                                          field_names[field], key.offset);
        if (field == FIELD_OTHER)
            st = add_nested_key(ctx, object, &key, NULL, err);
        else
            seen[field] = true;
        if (st == GPUPLAN_OK)
            st = gpuplan_json_scan_next(&ctx->scan, &tok, err);
        if (st != GPUPLAN_OK)
            return st;
        switch (field) {
        case FIELD_DTYPE:
            st = read_dtype(ctx, &tok, f, err);
            break;
        case FIELD_SHAPE:
            st = read_int_array(ctx, &tok, &f->has_shape_array, &f->rank, f->dims,
                                GPUPLAN_SAFETENSORS_MAX_DIMS, err);
            break;
        case FIELD_OFFSETS:
            st =
                read_int_array(ctx, &tok, &f->has_offsets_array, &f->n_offsets, f->offsets, 2, err);
            break;
        default:
            st = skip_value(ctx, &tok, err);
        }
        if (st != GPUPLAN_OK)
            return st;
    }
}

static enum gpuplan_status tensor_fail(struct gpuplan_error *err,
                                       enum gpuplan_status code,
                                       const char *where,
                                       const char *name,
                                       const char *fmt,
                                       ...) __attribute__((format(printf, 5, 6)));

/* An error about tensor `name`, where = "file:$.NAME" (built only on failure). */
static enum gpuplan_status tensor_fail(struct gpuplan_error *err,
                                       enum gpuplan_status code,
                                       const char *where,
                                       const char *name,
                                       const char *fmt,
                                       ...)
{
    char loc[GPUPLAN_ERROR_WHERE_MAX];
    char msg[GPUPLAN_ERROR_MESSAGE_MAX];
    tensor_where(loc, sizeof loc, where, name);
    va_list ap;
    va_start(ap, fmt);
    (void)vsnprintf(msg, sizeof msg, GPUPLAN_TR(fmt), ap);
    va_end(ap);
    return gpuplan_error_set(err, code, loc, "%s", msg);
}

static enum gpuplan_status read_shape(const struct entry_fields *f,
                                      const char *where,
                                      const char *name,
                                      struct gpuplan_st_tensor *t,
                                      struct gpuplan_error *err)
{
    if (!f->has_shape_array)
        return tensor_fail(err, GPUPLAN_ERR_INVALID_INPUT, where, name,
                           "tensor '%s' has no 'shape' array", name);
    const size_t rank = f->rank;
    if (rank > GPUPLAN_SAFETENSORS_MAX_DIMS)
        return tensor_fail(err, GPUPLAN_ERR_UNSUPPORTED, where, name,
                           "tensor '%s' has %zu dimensions; at most %u are supported", name, rank,
                           GPUPLAN_SAFETENSORS_MAX_DIMS);
    t->n_dims = (uint32_t)rank;
    t->n_elems = 1;
    for (size_t d = 0; d < rank; d++) {
        if (!f->dims[d].is_int || f->dims[d].value < 0)
            return tensor_fail(err, GPUPLAN_ERR_INVALID_INPUT, where, name,
                               "tensor '%s' has a negative or non-integer dimension %zu in "
                               "'shape'; dimensions must be integers >= 0",
                               name, d);
        t->shape[d] = (uint64_t)f->dims[d].value;
        if (!gpuplan_mul_u64(t->n_elems, t->shape[d], &t->n_elems))
            return tensor_fail(err, GPUPLAN_ERR_INVALID_INPUT, where, name,
                               "tensor '%s': element count overflows 64 bits", name);
    }
    return GPUPLAN_OK;
}

static enum gpuplan_status read_offsets(const struct entry_fields *f,
                                        const char *where,
                                        const char *name,
                                        struct gpuplan_st_tensor *t,
                                        struct gpuplan_error *err)
{
    if (!f->has_offsets_array || f->n_offsets != 2 || !f->offsets[0].is_int ||
        !f->offsets[1].is_int || f->offsets[0].value < 0 || f->offsets[1].value < 0)
        return tensor_fail(err, GPUPLAN_ERR_INVALID_INPUT, where, name,
                           "tensor '%s' must have 'data_offsets' [BEGIN, END] of two "
                           "integers >= 0",
                           name);
    t->begin_bytes = (uint64_t)f->offsets[0].value;
    t->end_bytes = (uint64_t)f->offsets[1].value;
    if (t->end_bytes < t->begin_bytes)
        return tensor_fail(err, GPUPLAN_ERR_INVALID_INPUT, where, name,
                           "tensor '%s' has 'data_offsets' [%llu, %llu]; END must be >= "
                           "BEGIN",
                           name, (unsigned long long)t->begin_bytes,
                           (unsigned long long)t->end_bytes);
    return GPUPLAN_OK;
}

/* END - BEGIN must equal numel * bits / 8 (tensor.rs validate), with checked arithmetic. */
static enum gpuplan_status check_size(const char *where,
                                      const char *name,
                                      const struct gpuplan_st_tensor *t,
                                      struct gpuplan_error *err)
{
    const struct gpuplan_dtype_info *info = gpuplan_dtype_get(t->dtype);
    /* Every safetensors dtype has a whole number of bits: 8 * block_bytes / block_elems. */
    const uint64_t bits_per_elem =
        (uint64_t)info->block_bytes * GPUPLAN_BITS_PER_BYTE / info->block_elems;
    uint64_t n_bits;
    if (!gpuplan_mul_u64(t->n_elems, bits_per_elem, &n_bits))
        return tensor_fail(err, GPUPLAN_ERR_INVALID_INPUT, where, name,
                           "tensor '%s': size in bits overflows 64 bits", name);
    if (n_bits % GPUPLAN_BITS_PER_BYTE != 0)
        return tensor_fail(err, GPUPLAN_ERR_INVALID_INPUT, where, name,
                           "tensor '%s' of %llu %s elements is not a whole number of bytes", name,
                           (unsigned long long)t->n_elems, info->name);
    const uint64_t need = n_bits / GPUPLAN_BITS_PER_BYTE;
    const uint64_t have = t->end_bytes - t->begin_bytes;
    if (need != have)
        return tensor_fail(err, GPUPLAN_ERR_INVALID_INPUT, where, name,
                           "tensor '%s' has data_offsets [%llu, %llu] (%llu bytes); %llu %s "
                           "elements need %llu bytes (size mismatch)",
                           name, (unsigned long long)t->begin_bytes,
                           (unsigned long long)t->end_bytes, (unsigned long long)have,
                           (unsigned long long)t->n_elems, info->name, (unsigned long long)need);
    return GPUPLAN_OK;
}

/* The checks of one tensor, in the order of the former DOM reader. */
static enum gpuplan_status check_tensor(const struct entry_fields *f,
                                        const char *where,
                                        struct gpuplan_st_tensor *t,
                                        struct gpuplan_error *err)
{
    const char *name = t->name;
    if (!f->has_dtype_string)
        return tensor_fail(err, GPUPLAN_ERR_INVALID_INPUT, where, name,
                           "tensor '%s' has no 'dtype' string", name);
    t->dtype = f->dtype;
    if (t->dtype == GPUPLAN_DTYPE_UNKNOWN) {
        tensor_fail(err, GPUPLAN_ERR_UNSUPPORTED, where, name,
                    "tensor '%s' has unknown dtype '%.64s'", name,
                    f->dtype_text ? f->dtype_text : "");
        gpuplan_error_hint(err, "known safetensors dtypes: BOOL, U8, I8, F8_E4M3, F8_E5M2, "
                                "F8_E8M0, F8_E4M3FNUZ, F8_E5M2FNUZ, F6_E2M3, F6_E3M2, F4, U16, "
                                "I16, F16, BF16, U32, I32, F32, C64, U64, I64, F64");
        return GPUPLAN_ERR_UNSUPPORTED;
    }
    enum gpuplan_status st = read_shape(f, where, name, t, err);
    if (st == GPUPLAN_OK)
        st = read_offsets(f, where, name, t, err);
    if (st == GPUPLAN_OK)
        st = check_size(where, name, t, err);
    return st;
}

/* One top-level "NAME": {...} entry whose value starts with `first`. */
static enum gpuplan_status read_tensor(struct parse_ctx *ctx,
                                       const char *name,
                                       size_t name_len,
                                       const struct gpuplan_json_token *first,
                                       struct gpuplan_error *err)
{
    if (first->kind != GPUPLAN_JSON_OBJECT_BEGIN) {
        if (!has_pending(ctx))
            pend(ctx, tensor_fail(&ctx->pending, GPUPLAN_ERR_INVALID_INPUT, ctx->where, name,
                                  "tensor '%s' must be an object with 'dtype', 'shape' and "
                                  "'data_offsets'",
                                  name));
        return skip_value(ctx, first, err);
    }
    struct entry_fields f;
    memset(&f, 0, sizeof f);
    enum gpuplan_status st = read_entry_fields(ctx, &f, err);
    if (st != GPUPLAN_OK || has_pending(ctx))
        return st;
    struct gpuplan_st_header *out = ctx->out;
    if (!grow((void **)&out->tensors, &ctx->cap_tensors, out->n_tensors, sizeof *out->tensors))
        return nomem(ctx, err);
    struct gpuplan_st_tensor *t = &out->tensors[out->n_tensors];
    memset(t, 0, sizeof *t);
    t->name = name;
    t->name_len = name_len;
    st = check_tensor(&f, ctx->where, t, &ctx->pending);
    if (st != GPUPLAN_OK)
        pend(ctx, st);
    else
        out->n_tensors++;
    return GPUPLAN_OK;
}

/* A top-level key: kept in out->names (lookup and duplicate check). */
static enum gpuplan_status add_name(struct parse_ctx *ctx,
                                    const struct gpuplan_json_token *tok,
                                    const char **out_name,
                                    size_t *out_len,
                                    struct gpuplan_error *err)
{
    struct gpuplan_st_header *out = ctx->out;
    const char *name = keep_string(ctx, tok, out_len);
    if (!name)
        return gpuplan_error_set(err, GPUPLAN_ERR_INTERNAL, ctx->where, "header strings overflow");
    if (!grow((void **)&out->names, &ctx->cap_names, out->n_names, sizeof *out->names))
        return nomem(ctx, err);
    out->names[out->n_names++] =
        (struct gpuplan_st_name){ name_hash(name, *out_len), name, (uint32_t)*out_len,
                                  (uint32_t)tok->offset };
    *out_name = name;
    return GPUPLAN_OK;
}

/* The whole top-level object; stops at the first syntax error. */
static enum gpuplan_status scan_header(struct parse_ctx *ctx, struct gpuplan_error *err)
{
    struct gpuplan_json_token tok;
    enum gpuplan_status st = gpuplan_json_scan_next(&ctx->scan, &tok, err);
    /* parse_prefix checked the first byte is '{'. */
    while (st == GPUPLAN_OK) {
        st = gpuplan_json_scan_next(&ctx->scan, &tok, err);
        if (st != GPUPLAN_OK || tok.kind == GPUPLAN_JSON_OBJECT_END)
            break;
        const char *name = NULL;
        size_t name_len = 0;
        st = add_name(ctx, &tok, &name, &name_len, err);
        if (st == GPUPLAN_OK)
            st = gpuplan_json_scan_next(&ctx->scan, &tok, err);
        if (st != GPUPLAN_OK)
            break;
        if (strcmp(name, metadata_key) == 0)
            st = read_metadata(ctx, &tok, err);
        else
            st = read_tensor(ctx, name, name_len, &tok, err);
    }
    if (st == GPUPLAN_OK)
        st = gpuplan_json_scan_next(&ctx->scan, &tok, err); /* only whitespace may follow */
    return st;
}

/*
 * Sort names by cmp_names: a counting pass on the top hash bits (about one
 * name per bucket), then each bucket by cmp_names: O(n) expected, and
 * O(n log n) even when names collide (qsort within a bucket). Replaces
 * *names with the sorted copy; false when out of memory.
 */
static bool sort_names(struct gpuplan_st_name **names, size_t n)
{
    if (n < 64) {
        if (n > 1)
            qsort(*names, n, sizeof **names, cmp_names);
        return true;
    }
    unsigned bits = 6;
    while (((size_t)1 << bits) < n && bits < 20)
        bits++;
    const size_t n_buckets = (size_t)1 << bits;
    size_t *end = calloc(n_buckets, sizeof *end);
    struct gpuplan_st_name *sorted = malloc(n * sizeof *sorted);
    if (!end || !sorted) {
        free(end);
        free(sorted);
        return false;
    }
    const struct gpuplan_st_name *in = *names;
    for (size_t i = 0; i < n; i++)
        end[in[i].hash >> (64 - bits)]++;
    size_t total = 0;
    for (size_t b = 0; b < n_buckets; b++) {
        total += end[b];
        end[b] = total - end[b]; /* start of bucket b, advanced to its end by the scatter */
    }
    for (size_t i = 0; i < n; i++)
        sorted[end[in[i].hash >> (64 - bits)]++] = in[i];
    size_t begin = 0;
    for (size_t b = 0; b < n_buckets; b++) {
        if (end[b] - begin > 1)
            qsort(sorted + begin, end[b] - begin, sizeof *sorted, cmp_names);
        begin = end[b];
    }
    free(end);
    free(*names);
    *names = sorted;
    return true;
}

/*
 * The earliest second occurrence of a key in one object, as an error in
 * `err`, when it comes before byte `before`; GPUPLAN_OK when there is none.
 */
static enum gpuplan_status
find_duplicate(struct parse_ctx *ctx, size_t before, struct gpuplan_error *err)
{
    struct gpuplan_st_header *out = ctx->out;
    const struct gpuplan_st_name *dup = NULL;
    if (!sort_names(&out->names, out->n_names))
        return nomem(ctx, err);
    for (size_t i = 1; i < out->n_names; i++) {
        if (same_name(&out->names[i - 1], &out->names[i]) &&
            (!dup || out->names[i].offset < dup->offset))
            dup = &out->names[i];
    }
    if (ctx->n_keys > 1)
        qsort(ctx->keys, ctx->n_keys, sizeof *ctx->keys, cmp_nested_keys);
    for (size_t i = 1; i < ctx->n_keys; i++) {
        const struct nested_key *a = &ctx->keys[i - 1], *b = &ctx->keys[i];
        if (a->object == b->object && same_name(&a->key, &b->key) &&
            (!dup || b->key.offset < dup->offset))
            dup = &b->key;
    }
    if (!dup || dup->offset >= before)
        return GPUPLAN_OK;
    return gpuplan_json_scan_fail(&ctx->scan, dup->offset, GPUPLAN_ERR_INVALID_INPUT, err,
                                  "duplicate object key '%.200s' at byte %u", dup->name,
                                  dup->offset);
}

static enum gpuplan_status
parse_prefix(const uint8_t *json, uint64_t n, const char *where, struct gpuplan_error *err)
{
    char msg[GPUPLAN_ERROR_MESSAGE_MAX];
    if (n == 0 || json[0] != '{') {
        (void)snprintf(msg, sizeof msg,
                       n ? GPUPLAN_TR("header does not begin with '{' (byte 0x%02x)")
                         : GPUPLAN_TR("header is empty; it must be a JSON object beginning with "
                                      "'{'"),
                       n ? json[0] : 0);
        fail_at(err, GPUPLAN_ERR_INVALID_INPUT, where, GPUPLAN_SAFETENSORS_PREFIX_BYTES, msg);
        gpuplan_error_hint(err, "the file is not a safetensors file");
        return GPUPLAN_ERR_INVALID_INPUT;
    }
    const size_t bad = gpuplan_utf8_invalid_at(json, (size_t)n);
    if (bad < n) {
        (void)snprintf(msg, sizeof msg, GPUPLAN_TR("header is not valid UTF-8 (byte 0x%02x)"),
                       json[bad]);
        return fail_at(err, GPUPLAN_ERR_INVALID_INPUT, where,
                       GPUPLAN_SAFETENSORS_PREFIX_BYTES + bad, msg);
    }
    return GPUPLAN_OK;
}

/* Scan, then report in jansson's order: syntax or duplicate key first, then tensor checks. */
static enum gpuplan_status parse_json(const uint8_t *json,
                                      uint64_t n,
                                      const char *where,
                                      struct gpuplan_st_header *out,
                                      struct gpuplan_error *err)
{
    enum gpuplan_status st = parse_prefix(json, n, where, err);
    if (st != GPUPLAN_OK)
        return st;
    struct parse_ctx *ctx = calloc(1, sizeof *ctx);
    out->strings = malloc((size_t)n + 1);
    if (!ctx || !out->strings) {
        free(ctx);
        return gpuplan_error_set(err, GPUPLAN_ERR_NOMEM, where,
                                 "out of memory for a header of %llu bytes", (unsigned long long)n);
    }
    ctx->where = where;
    ctx->out = out;
    ctx->strings_cap = (size_t)n + 1;
    gpuplan_json_scan_init(&ctx->scan, json, (size_t)n, where, ST_MAX_DEPTH, 0);
    st = scan_header(ctx, err);
    if (st == GPUPLAN_ERR_NOMEM || st == GPUPLAN_ERR_INTERNAL)
        goto out;
    const size_t syntax_at = st == GPUPLAN_OK ? SIZE_MAX : ctx->scan.error_offset;
    const enum gpuplan_status dup = find_duplicate(ctx, syntax_at, err);
    if (dup != GPUPLAN_OK)
        st = dup;
    else if (st == GPUPLAN_ERR_TOO_LARGE)
        st = err ? (err->code = GPUPLAN_ERR_INVALID_INPUT) : GPUPLAN_ERR_INVALID_INPUT;
    else if (st == GPUPLAN_OK && has_pending(ctx)) {
        if (err)
            *err = ctx->pending;
        st = ctx->pending_status;
    }
out:
    free(ctx->keys);
    free(ctx);
    return st;
}

static int cmp_offsets(const void *a, const void *b)
{
    const struct gpuplan_st_tensor *x = a, *y = b;
    if (x->begin_bytes != y->begin_bytes)
        return x->begin_bytes < y->begin_bytes ? -1 : 1;
    if (x->end_bytes != y->end_bytes)
        return x->end_bytes < y->end_bytes ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* Sorted by offset, tensors must tile [0, END) exactly (tensor.rs InvalidOffset). */
static enum gpuplan_status
check_tiling(struct gpuplan_st_header *h, const char *where, struct gpuplan_error *err)
{
    bool sorted = true;
    for (size_t i = 1; i < h->n_tensors && sorted; i++)
        sorted = cmp_offsets(&h->tensors[i - 1], &h->tensors[i]) <= 0;
    if (!sorted)
        qsort(h->tensors, h->n_tensors, sizeof h->tensors[0], cmp_offsets);
    char loc[GPUPLAN_ERROR_WHERE_MAX];
    uint64_t end = 0;
    for (size_t i = 0; i < h->n_tensors; i++) {
        const struct gpuplan_st_tensor *t = &h->tensors[i];
        if (t->begin_bytes == end) {
            end = t->end_bytes;
            continue;
        }
        tensor_where(loc, sizeof loc, where, t->name);
        if (i == 0)
            return gpuplan_error_set(err, GPUPLAN_ERR_INVALID_INPUT, loc,
                                     "hole: the first tensor '%s' starts at data offset %llu; "
                                     "must start at 0",
                                     t->name, (unsigned long long)t->begin_bytes);
        const struct gpuplan_st_tensor *prev = &h->tensors[i - 1];
        if (t->begin_bytes > end)
            return gpuplan_error_set(err, GPUPLAN_ERR_INVALID_INPUT, loc,
                                     "hole of %llu bytes between tensor '%s' (ends at %llu) and "
                                     "tensor '%s' (starts at %llu)",
                                     (unsigned long long)(t->begin_bytes - end), prev->name,
                                     (unsigned long long)end, t->name,
                                     (unsigned long long)t->begin_bytes);
        return gpuplan_error_set(err, GPUPLAN_ERR_INVALID_INPUT, loc,
                                 "tensor '%s' (starts at %llu) overlaps tensor '%s' (ends at "
                                 "%llu)",
                                 t->name, (unsigned long long)t->begin_bytes, prev->name,
                                 (unsigned long long)end);
    }
    h->data_bytes = end;
    return GPUPLAN_OK;
}

static enum gpuplan_status check_file_size(const struct gpuplan_st_header *h,
                                           uint64_t file_bytes,
                                           const char *where,
                                           struct gpuplan_error *err)
{
    char msg[GPUPLAN_ERROR_MESSAGE_MAX];
    uint64_t expect;
    if (!gpuplan_add_u64(h->data_bytes, h->header_bytes + GPUPLAN_SAFETENSORS_PREFIX_BYTES,
                         &expect))
        return fail_at(err, GPUPLAN_ERR_INVALID_INPUT, where, 0,
                       GPUPLAN_TR("tensor data size overflows 64 bits"));
    if (file_bytes == 0 || expect == file_bytes)
        return GPUPLAN_OK;
    if (expect < file_bytes) {
        (void)snprintf(
            msg, sizeof msg,
            GPUPLAN_TR("%llu bytes of trailing data after the last tensor (data ends at byte "
                       "%llu, the file has %llu)"),
            (unsigned long long)(file_bytes - expect), (unsigned long long)expect,
            (unsigned long long)file_bytes);
        return fail_at(err, GPUPLAN_ERR_INVALID_INPUT, where, expect, msg);
    }
    (void)snprintf(
        msg, sizeof msg,
        GPUPLAN_TR("file is truncated: tensor data ends at byte %llu, the file has %llu bytes"),
        (unsigned long long)expect, (unsigned long long)file_bytes);
    fail_at(err, GPUPLAN_ERR_INVALID_INPUT, where, file_bytes, msg);
    gpuplan_error_hint(err, "download the file again");
    return GPUPLAN_ERR_INVALID_INPUT;
}
enum gpuplan_status gpuplan_st_header_parse(const uint8_t *data,
                                            size_t len,
                                            uint64_t file_bytes,
                                            const char *where,
                                            struct gpuplan_st_header *out,
                                            struct gpuplan_error *err)
{
    gpuplan_st_header_init(out);
    uint64_t total = 0;
    enum gpuplan_status st = gpuplan_st_header_size(data, len, file_bytes, where, &total, err);
    if (st != GPUPLAN_OK)
        return st;
    if (total > len) {
        char msg[GPUPLAN_ERROR_MESSAGE_MAX];
        (void)snprintf(msg, sizeof msg,
                       GPUPLAN_TR("truncated: the header needs %llu bytes, %zu available"),
                       (unsigned long long)total, len);
        return fail_at(err, GPUPLAN_ERR_INVALID_INPUT, where, len, msg);
    }
    out->header_bytes = total - GPUPLAN_SAFETENSORS_PREFIX_BYTES;
    st = parse_json(data + GPUPLAN_SAFETENSORS_PREFIX_BYTES, out->header_bytes, where, out, err);
    if (st != GPUPLAN_OK)
        goto out;
    st = check_tiling(out, where, err);
    if (st == GPUPLAN_OK)
        st = check_file_size(out, file_bytes, where, err);
out:
    if (st != GPUPLAN_OK)
        gpuplan_st_header_release(out);
    return st;
}

/* One inventory group per tensor before merging routed experts. */
struct candidate {
    struct gpuplan_tensor_group group;
    size_t merged_into; /* own index, or the index of the group that absorbed it */
};

static bool is_bnb_4bit(const struct gpuplan_st_header *h, const struct gpuplan_st_tensor *t)
{
    static const char *const suffixes[] = { ".quant_state.bitsandbytes__nf4",
                                            ".quant_state.bitsandbytes__fp4" };
    char key[512];
    if (t->dtype != GPUPLAN_DTYPE_U8 || t->name_len + 40 > sizeof key)
        return false;
    for (size_t i = 0; i < 2; i++) {
        const int n = snprintf(key, sizeof key, "%s%s", t->name, suffixes[i]);
        if (n > 0 && gpuplan_st_header_has_name(h, key, (size_t)n))
            return true;
    }
    return false;
}

static enum gpuplan_status make_group(const struct gpuplan_st_header *h,
                                      const struct gpuplan_st_tensor *t,
                                      struct gpuplan_tensor_group *g,
                                      struct gpuplan_error *err)
{
    struct gpuplan_tensor_name_info info;
    gpuplan_tensor_name_classify_hf(t->name, t->name_len, &info);
    memset(g, 0, sizeof *g);
    g->role = info.role;
    g->stack = info.stack;
    g->layer = info.layer;
    g->n_tensors = 1;
    g->dtype = t->dtype;
    if (is_bnb_4bit(h, t)) {
        /* bitsandbytes packs two 4-bit codes per U8 byte (functional.py quantize_4bit). */
        g->dtype = GPUPLAN_DTYPE_F4;
        g->n_dims = 1;
        if (!gpuplan_mul_u64(t->n_elems, 2, &g->shape[0]))
            return gpuplan_error_set(err, GPUPLAN_ERR_INVALID_INPUT, t->name,
                                     "tensor element count overflows 64 bits");
        return GPUPLAN_OK;
    }
    /* Fold leading dimensions of rank > GPUPLAN_MAX_DIMS; numel is unchanged (checked above). */
    const uint32_t fold = t->n_dims > GPUPLAN_MAX_DIMS ? t->n_dims - GPUPLAN_MAX_DIMS : 0;
    g->n_dims = t->n_dims - fold;
    for (uint32_t d = 0; d < g->n_dims; d++)
        g->shape[d] = t->shape[d + fold];
    for (uint32_t d = 0; d < fold; d++)
        g->shape[0] *= t->shape[d];
    return GPUPLAN_OK;
}

static bool same_group(const struct gpuplan_tensor_group *a, const struct gpuplan_tensor_group *b)
{
    if (a->role != b->role || a->stack != b->stack || a->layer != b->layer ||
        a->dtype != b->dtype || a->n_dims != b->n_dims)
        return false;
    return memcmp(a->shape, b->shape, a->n_dims * sizeof a->shape[0]) == 0;
}

/* Hash of the fields same_group compares (multiply-xorshift, as name_hash). */
static uint64_t group_hash(const struct gpuplan_tensor_group *g)
{
    const uint64_t k = 0x9E3779B97F4A7C15ULL;
    uint64_t h = ((uint64_t)g->role << 40) ^ ((uint64_t)g->stack << 32) ^ (uint32_t)g->layer;
    h = (h ^ ((uint64_t)g->dtype << 8 | g->n_dims)) * k;
    for (uint32_t d = 0; d < g->n_dims; d++) {
        h = (h ^ g->shape[d]) * k;
        h ^= h >> 29;
    }
    return h ^ (h >> 32);
}

/*
 * Routed experts of one layer are identical tensors: merge them into one
 * group with n_tensors = experts, so a 256-expert model has a few hundred
 * groups, not tens of thousands. One pass in file order over an
 * open-addressing table (load <= 1/2) keyed by the group fields: the first
 * tensor of each key absorbs the rest, O(n) expected.
 */
static enum gpuplan_status merge_experts(struct candidate *c, size_t n, struct gpuplan_error *err)
{
    size_t n_expert = 0;
    for (size_t i = 0; i < n; i++) {
        c[i].merged_into = i;
        if (gpuplan_role_is_routed_expert(c[i].group.role))
            n_expert++;
    }
    if (n_expert < 2)
        return GPUPLAN_OK;
    size_t cap = 16;
    while (cap < 2 * n_expert)
        cap *= 2;
    size_t *slots = calloc(cap, sizeof *slots); /* candidate index + 1; 0 = empty */
    if (!slots)
        return gpuplan_error_set(err, GPUPLAN_ERR_NOMEM, NULL, "out of memory merging experts");
    for (size_t i = 0; i < n; i++) {
        if (!gpuplan_role_is_routed_expert(c[i].group.role))
            continue;
        size_t at = (size_t)group_hash(&c[i].group) & (cap - 1);
        while (slots[at] && !same_group(&c[slots[at] - 1].group, &c[i].group))
            at = (at + 1) & (cap - 1);
        if (!slots[at]) {
            slots[at] = i + 1;
            continue;
        }
        const size_t head = slots[at] - 1;
        c[head].group.n_tensors++;
        c[i].merged_into = head;
    }
    free(slots);
    return GPUPLAN_OK;
}

enum gpuplan_status gpuplan_st_header_append(const struct gpuplan_st_header *header,
                                             struct gpuplan_model *model,
                                             struct gpuplan_error *err)
{
    if (header->n_tensors == 0)
        return GPUPLAN_OK;
    struct candidate *c = malloc(header->n_tensors * sizeof *c);
    if (!c)
        return gpuplan_error_set(err, GPUPLAN_ERR_NOMEM, NULL, "out of memory for %zu tensors",
                                 header->n_tensors);
    enum gpuplan_status st = GPUPLAN_OK;
    for (size_t i = 0; i < header->n_tensors && st == GPUPLAN_OK; i++)
        st = make_group(header, &header->tensors[i], &c[i].group, err);
    if (st == GPUPLAN_OK)
        st = merge_experts(c, header->n_tensors, err);
    for (size_t i = 0; i < header->n_tensors && st == GPUPLAN_OK; i++) {
        if (c[i].merged_into == i)
            st = gpuplan_model_add(model, &c[i].group, err);
    }
    free(c);
    return st;
}

enum gpuplan_status gpuplan_model_from_safetensors(struct gpuplan_model *model,
                                                   const uint8_t *data,
                                                   size_t len,
                                                   uint64_t file_bytes,
                                                   const char *where,
                                                   struct gpuplan_error *err)
{
    struct gpuplan_st_header header;
    enum gpuplan_status st = gpuplan_st_header_parse(data, len, file_bytes, where, &header, err);
    if (st != GPUPLAN_OK)
        return st;
    st = gpuplan_st_header_append(&header, model, err);
    if (st == GPUPLAN_OK) {
        if (!model->format[0])
            (void)snprintf(model->format, sizeof model->format, "%s", "safetensors");
        model->storage_from_file = true;
        model->file_bytes +=
            file_bytes ? file_bytes
                       : header.header_bytes + GPUPLAN_SAFETENSORS_PREFIX_BYTES + header.data_bytes;
        st = gpuplan_model_finalize(model, err);
    }
    gpuplan_st_header_release(&header);
    return st;
}

void gpuplan_st_index_init(struct gpuplan_st_index *index)
{
    memset(index, 0, sizeof *index);
}

void gpuplan_st_index_release(struct gpuplan_st_index *index)
{
    if (!index)
        return;
    free(index->shards);
    json_decref(index->root);
    memset(index, 0, sizeof *index);
}

static bool shard_name_ok(const char *name, size_t len)
{
    return len > 0 && len <= GPUPLAN_SAFETENSORS_MAX_SHARD_NAME && !memchr(name, '/', len) &&
           !memchr(name, '\\', len) && strcmp(name, ".") != 0 && strcmp(name, "..") != 0;
}

static enum gpuplan_status index_metadata(const json_t *root,
                                          const char *where,
                                          struct gpuplan_st_index *out,
                                          struct gpuplan_error *err)
{
    char loc[GPUPLAN_ERROR_WHERE_MAX];
    const json_t *meta = json_object_get(root, "metadata");
    if (!meta || json_is_null(meta))
        return GPUPLAN_OK;
    if (!json_is_object(meta)) {
        (void)snprintf(loc, sizeof loc, "%s:$.metadata", where ? where : "<input>");
        return gpuplan_error_set(err, GPUPLAN_ERR_INVALID_INPUT, loc,
                                 "'metadata' must be an object");
    }
    const json_t *total = json_object_get(meta, "total_size");
    if (!total || json_is_null(total))
        return GPUPLAN_OK;
    if (!gpuplan_json_as_u64(total, &out->total_size_bytes)) {
        (void)snprintf(loc, sizeof loc, "%s:$.metadata.total_size", where ? where : "<input>");
        return gpuplan_error_set(err, GPUPLAN_ERR_INVALID_INPUT, loc,
                                 "'total_size' must be a non-negative integer byte count");
    }
    out->has_total_size = true;
    return GPUPLAN_OK;
}

static enum gpuplan_status
index_shards(const char *where, struct gpuplan_st_index *out, struct gpuplan_error *err)
{
    char loc[GPUPLAN_ERROR_WHERE_MAX];
    /* A jansson object serves as the hash set of shard names seen. */
    json_t *seen = json_object();
    out->shards = malloc((out->n_tensors ? out->n_tensors : 1) * sizeof *out->shards);
    if (!seen || !out->shards) {
        json_decref(seen);
        return gpuplan_error_set(err, GPUPLAN_ERR_NOMEM, where, "out of memory for the index");
    }
    enum gpuplan_status st = GPUPLAN_OK;
    const char *key;
    json_t *value;
    json_object_foreach(out->weight_map, key, value)
    {
        const char *file = json_string_value(value);
        if (!file || !shard_name_ok(file, json_string_length(value))) {
            (void)snprintf(loc, sizeof loc, "%s:$.weight_map.%s", where ? where : "<input>", key);
            st = gpuplan_error_set(err, GPUPLAN_ERR_INVALID_INPUT, loc,
                                   "shard of tensor '%s' must be a plain file name (1..%u bytes, "
                                   "no '/')",
                                   key, GPUPLAN_SAFETENSORS_MAX_SHARD_NAME);
            break;
        }
        if (json_object_get(seen, file))
            continue;
        if (json_object_set_new(seen, file, json_true()) != 0) {
            st = gpuplan_error_set(err, GPUPLAN_ERR_NOMEM, where, "out of memory for the index");
            break;
        }
        out->shards[out->n_shards++] = file;
    }
    json_decref(seen);
    return st;
}

enum gpuplan_status gpuplan_st_index_parse(const uint8_t *data,
                                           size_t len,
                                           const char *where,
                                           struct gpuplan_st_index *out,
                                           struct gpuplan_error *err)
{
    char loc[GPUPLAN_ERROR_WHERE_MAX];
    gpuplan_st_index_init(out);
    enum gpuplan_status st = gpuplan_json_parse(data, len, where, true, &out->root, err);
    if (st != GPUPLAN_OK)
        return st;
    st = index_metadata(out->root, where, out, err);
    if (st != GPUPLAN_OK)
        goto out;
    out->weight_map = json_object_get(out->root, "weight_map");
    if (!json_is_object(out->weight_map)) {
        (void)snprintf(loc, sizeof loc, "%s:$.weight_map", where ? where : "<input>");
        st = gpuplan_error_set(err, GPUPLAN_ERR_INVALID_INPUT, loc,
                               "'weight_map' object is missing; not a safetensors index");
        gpuplan_error_hint(err, "expected model.safetensors.index.json with 'weight_map'");
        goto out;
    }
    out->n_tensors = json_object_size(out->weight_map);
    st = index_shards(where, out, err);
out:
    if (st != GPUPLAN_OK)
        gpuplan_st_index_release(out);
    return st;
}

const char *gpuplan_st_index_shard_of(const struct gpuplan_st_index *index, const char *name)
{
    if (!index->weight_map || !name)
        return NULL;
    return json_string_value(json_object_get(index->weight_map, name));
}
