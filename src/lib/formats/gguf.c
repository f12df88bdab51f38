/*
 * gguf.c - GGUF header, metadata and tensor-info parsing (see gguf.h).
 *
 * Hardening follows ggml src/gguf.cpp gguf_init_from_file_impl: magic and
 * version, counts against the bytes left, string caps, duplicate keys and
 * tensor names, n_dims <= GGML_MAX_DIMS, non-negative dims without overflow,
 * known type with blck_size != 0, ne[0] % blck_size == 0, power-of-two
 * alignment, and offsets equal to the running padded size. Unlike gguf.cpp
 * this reader accepts nested arrays (the spec allows them), bounded in depth.
 */
#include "formats/gguf_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/tensor_names_internal.h"
#include "gpuplan/units.h"
#include "util/cursor_internal.h"

/* Parser state: the cursor over the bytes held, and the true file size. */
struct ctx {
    struct gpuplan_cursor c;
    uint64_t file_bytes; /* >= c.len */
    struct gpuplan_gguf *out;
    struct gpuplan_error *err;
};

/* Minimum encoded sizes, used to bound counts before allocating. */
#define MIN_KV_BYTES          (8U + 1U + 4U + 1U)      /* key len, 1-byte key, type, u8 */
#define MIN_TENSOR_INFO_BYTES (8U + 4U + 8U + 4U + 8U) /* name len, n_dims, 1 dim, type, offset */
#define MIN_ARRAY_BYTES       (4U + 8U)                /* elem type, count */

static const uint8_t type_size[GPUPLAN_GGUF_TYPE_COUNT] = {
    [GPUPLAN_GGUF_TYPE_UINT8] = 1,   [GPUPLAN_GGUF_TYPE_INT8] = 1,   [GPUPLAN_GGUF_TYPE_UINT16] = 2,
    [GPUPLAN_GGUF_TYPE_INT16] = 2,   [GPUPLAN_GGUF_TYPE_UINT32] = 4, [GPUPLAN_GGUF_TYPE_INT32] = 4,
    [GPUPLAN_GGUF_TYPE_FLOAT32] = 4, [GPUPLAN_GGUF_TYPE_BOOL] = 1,   [GPUPLAN_GGUF_TYPE_STRING] = 0,
    [GPUPLAN_GGUF_TYPE_ARRAY] = 0,   [GPUPLAN_GGUF_TYPE_UINT64] = 8, [GPUPLAN_GGUF_TYPE_INT64] = 8,
    [GPUPLAN_GGUF_TYPE_FLOAT64] = 8,
};

static uint64_t read_le(const uint8_t *p, unsigned n)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

void gpuplan_gguf_init(struct gpuplan_gguf *gguf)
{
    memset(gguf, 0, sizeof *gguf);
    gguf->file_type = -1;
    gguf->alignment = GPUPLAN_GGUF_DEFAULT_ALIGNMENT;
}

void gpuplan_gguf_release(struct gpuplan_gguf *gguf)
{
    if (!gguf)
        return;
    free(gguf->kvs);
    free(gguf->tensors);
    gpuplan_gguf_init(gguf);
}

/* Bytes left in the file after the cursor (the file may be longer than the bytes held). */
static uint64_t file_left(const struct ctx *x)
{
    return x->file_bytes - x->c.pos;
}

/* A cursor read failed: the bytes held ran out. */
static enum gpuplan_status ran_out(struct ctx *x)
{
    x->out->truncated = true;
    return GPUPLAN_ERR_INVALID_INPUT;
}

#define READ(x, fn, ptr)                                                 \
    do {                                                                 \
        if (gpuplan_cursor_##fn(&(x)->c, (ptr), (x)->err) != GPUPLAN_OK) \
            return ran_out(x);                                           \
    } while (0)

/*
 * Check that `count` items of at least `min_bytes` each fit: in the file
 * (else a hard error), then in the bytes held (else truncated).
 */
static enum gpuplan_status
check_count(struct ctx *x, size_t at, uint64_t count, uint64_t min_bytes, const char *what)
{
    if (min_bytes && count > file_left(x) / min_bytes)
        return gpuplan_cursor_fail(&x->c, at, GPUPLAN_ERR_INVALID_INPUT, x->err,
                                   "%s %llu is impossible: %llu bytes remain in the file", what,
                                   (unsigned long long)count, (unsigned long long)file_left(x));
    if (min_bytes && count > gpuplan_cursor_remaining(&x->c) / min_bytes) {
        gpuplan_cursor_fail(&x->c, at, GPUPLAN_ERR_INVALID_INPUT, x->err,
                            "truncated: %s %llu needs more than the %zu bytes held", what,
                            (unsigned long long)count, gpuplan_cursor_remaining(&x->c));
        return ran_out(x);
    }
    return GPUPLAN_OK;
}

static enum gpuplan_status
read_string(struct ctx *x, uint64_t max_bytes, const char *what, const char **out, size_t *out_len)
{
    const size_t at = x->c.pos;
    uint64_t n;
    READ(x, u64, &n);
    if (n > max_bytes)
        return gpuplan_cursor_fail(&x->c, at, GPUPLAN_ERR_INVALID_INPUT, x->err,
                                   "%s length %llu exceeds the limit of %llu bytes", what,
                                   (unsigned long long)n, (unsigned long long)max_bytes);
    if (n > file_left(x))
        return gpuplan_cursor_fail(&x->c, at, GPUPLAN_ERR_INVALID_INPUT, x->err,
                                   "%s length %llu runs past the end of the file (%llu bytes left)",
                                   what, (unsigned long long)n, (unsigned long long)file_left(x));
    const uint8_t *bytes;
    if (gpuplan_cursor_bytes(&x->c, n, &bytes, x->err) != GPUPLAN_OK)
        return ran_out(x);
    *out = (const char *)bytes;
    *out_len = (size_t)n;
    return GPUPLAN_OK;
}

static enum gpuplan_status skip_value(struct ctx *x, uint32_t type, unsigned depth);

static enum gpuplan_status
skip_array(struct ctx *x, unsigned depth, uint32_t *out_type, uint64_t *out_count)
{
    const size_t at = x->c.pos;
    uint32_t elem;
    uint64_t count;
    READ(x, u32, &elem);
    READ(x, u64, &count);
    if (elem >= GPUPLAN_GGUF_TYPE_COUNT)
        return gpuplan_cursor_fail(&x->c, at, GPUPLAN_ERR_INVALID_INPUT, x->err,
                                   "array element type %u is unknown; must be 0..%d", elem,
                                   GPUPLAN_GGUF_TYPE_COUNT - 1);
    if (elem == GPUPLAN_GGUF_TYPE_ARRAY && depth + 1 >= GPUPLAN_GGUF_MAX_ARRAY_DEPTH)
        return gpuplan_cursor_fail(&x->c, at, GPUPLAN_ERR_INVALID_INPUT, x->err,
                                   "arrays nested deeper than %u levels",
                                   GPUPLAN_GGUF_MAX_ARRAY_DEPTH);
    uint64_t min = type_size[elem];
    if (elem == GPUPLAN_GGUF_TYPE_STRING)
        min = 8;
    else if (elem == GPUPLAN_GGUF_TYPE_ARRAY)
        min = MIN_ARRAY_BYTES;
    enum gpuplan_status st = check_count(x, at + 4, count, min, "array count");
    if (st != GPUPLAN_OK)
        return st;
    if (out_type)
        *out_type = elem;
    if (out_count)
        *out_count = count;
    if (type_size[elem]) {
        /* count * size <= bytes held, checked above. */
        READ(x, skip, count * type_size[elem]);
        if (elem == GPUPLAN_GGUF_TYPE_BOOL) {
            for (uint64_t i = 0; i < count; i++) {
                if (x->c.data[x->c.pos - count + i] > 1)
                    return gpuplan_cursor_fail(&x->c, (size_t)(x->c.pos - count + i),
                                               GPUPLAN_ERR_INVALID_INPUT, x->err,
                                               "bool array element is %u; must be 0 or 1",
                                               x->c.data[x->c.pos - count + i]);
            }
        }
        return GPUPLAN_OK;
    }
    for (uint64_t i = 0; i < count; i++) {
        st = skip_value(x, elem, depth + 1);
        if (st != GPUPLAN_OK)
            return st;
    }
    return GPUPLAN_OK;
}

static enum gpuplan_status skip_value(struct ctx *x, uint32_t type, unsigned depth)
{
    const size_t at = x->c.pos;
    if (type == GPUPLAN_GGUF_TYPE_STRING) {
        const char *s;
        size_t n;
        return read_string(x, GPUPLAN_GGUF_MAX_STRING_BYTES, "string", &s, &n);
    }
    if (type == GPUPLAN_GGUF_TYPE_ARRAY)
        return skip_array(x, depth, NULL, NULL);
    if (type == GPUPLAN_GGUF_TYPE_BOOL) {
        uint8_t b;
        READ(x, u8, &b);
        if (b > 1)
            return gpuplan_cursor_fail(&x->c, at, GPUPLAN_ERR_INVALID_INPUT, x->err,
                                       "bool value is %u; must be 0 or 1", b);
        return GPUPLAN_OK;
    }
    READ(x, skip, type_size[type]);
    return GPUPLAN_OK;
}

static enum gpuplan_status read_kv(struct ctx *x, struct gpuplan_gguf_kv *kv)
{
    const size_t at = x->c.pos;
    enum gpuplan_status st =
        read_string(x, GPUPLAN_GGUF_MAX_KEY_BYTES, "key", &kv->key, &kv->key_len);
    if (st != GPUPLAN_OK)
        return st;
    if (kv->key_len == 0)
        return gpuplan_cursor_fail(&x->c, at, GPUPLAN_ERR_INVALID_INPUT, x->err,
                                   "metadata key is empty");
    const size_t type_at = x->c.pos;
    READ(x, u32, &kv->type);
    if (kv->type >= GPUPLAN_GGUF_TYPE_COUNT)
        return gpuplan_cursor_fail(&x->c, type_at, GPUPLAN_ERR_INVALID_INPUT, x->err,
                                   "key '%.*s' has unknown value type %u; must be 0..%d",
                                   (int)(kv->key_len > 64 ? 64 : kv->key_len), kv->key, kv->type,
                                   GPUPLAN_GGUF_TYPE_COUNT - 1);
    kv->value_at = x->c.pos;
    if (kv->type == GPUPLAN_GGUF_TYPE_ARRAY)
        return skip_array(x, 0, &kv->array_type, &kv->array_count);
    return skip_value(x, kv->type, 0);
}

static int cmp_bytes(const char *a, size_t an, const char *b, size_t bn)
{
    const int c = memcmp(a, b, an < bn ? an : bn);
    if (c)
        return c;
    return an < bn ? -1 : (an > bn);
}

static int cmp_kv(const void *a, const void *b)
{
    const struct gpuplan_gguf_kv *x = *(const struct gpuplan_gguf_kv *const *)a;
    const struct gpuplan_gguf_kv *y = *(const struct gpuplan_gguf_kv *const *)b;
    return cmp_bytes(x->key, x->key_len, y->key, y->key_len);
}

static int cmp_tensor(const void *a, const void *b)
{
    const struct gpuplan_gguf_tensor *x = *(const struct gpuplan_gguf_tensor *const *)a;
    const struct gpuplan_gguf_tensor *y = *(const struct gpuplan_gguf_tensor *const *)b;
    return cmp_bytes(x->name, x->name_len, y->name, y->name_len);
}

/* Duplicate keys or names (gguf.cpp rejects both): sort pointers, compare neighbours. */
static enum gpuplan_status
check_duplicates(struct ctx *x, const void *items, size_t n, size_t item_size, bool are_tensors)
{
    if (n < 2)
        return GPUPLAN_OK;
    const void **sorted = malloc(n * sizeof *sorted);
    if (!sorted)
        return gpuplan_error_set(x->err, GPUPLAN_ERR_NOMEM, x->c.where, "out of memory");
    for (size_t i = 0; i < n; i++)
        sorted[i] = (const char *)items + i * item_size;
    qsort(sorted, n, sizeof *sorted, are_tensors ? cmp_tensor : cmp_kv);
    enum gpuplan_status st = GPUPLAN_OK;
    for (size_t i = 1; i < n && st == GPUPLAN_OK; i++) {
        const int same = are_tensors ? cmp_tensor(&sorted[i - 1], &sorted[i])
                                     : cmp_kv(&sorted[i - 1], &sorted[i]);
        if (same != 0)
            continue;
        const char *name = are_tensors ? ((const struct gpuplan_gguf_tensor *)sorted[i])->name
                                       : ((const struct gpuplan_gguf_kv *)sorted[i])->key;
        const size_t len = are_tensors ? ((const struct gpuplan_gguf_tensor *)sorted[i])->name_len
                                       : ((const struct gpuplan_gguf_kv *)sorted[i])->key_len;
        st = gpuplan_error_set(x->err, GPUPLAN_ERR_INVALID_INPUT, x->c.where, "duplicate %s '%.*s'",
                               are_tensors ? "tensor name" : "key", (int)(len > 64 ? 64 : len),
                               name);
    }
    free(sorted);
    return st;
}

static enum gpuplan_status read_header(struct ctx *x)
{
    uint32_t magic;
    READ(x, u32, &magic);
    if (magic != GPUPLAN_GGUF_MAGIC) {
        gpuplan_cursor_fail(&x->c, 0, GPUPLAN_ERR_INVALID_INPUT, x->err,
                            "bad magic 0x%08x; a GGUF file starts with 'GGUF'", magic);
        gpuplan_error_hint(x->err, "the file is not a GGUF file");
        return GPUPLAN_ERR_INVALID_INPUT;
    }
    READ(x, u32, &x->out->version);
    const uint32_t v = x->out->version;
    if ((v & 0xFFFFU) == 0)
        return gpuplan_cursor_fail(&x->c, 4, GPUPLAN_ERR_UNSUPPORTED, x->err,
                                   "GGUF version 0x%08x looks byte-swapped: big-endian GGUF files "
                                   "are not supported",
                                   v);
    if (v < 2 || v > 3)
        return gpuplan_cursor_fail(&x->c, 4, GPUPLAN_ERR_UNSUPPORTED, x->err,
                                   "GGUF version %u is not supported; must be 2 or 3", v);
    READ(x, u64, &x->out->n_tensors);
    READ(x, u64, &x->out->n_kv);
    return GPUPLAN_OK;
}

static enum gpuplan_status read_kvs(struct ctx *x)
{
    struct gpuplan_gguf *g = x->out;
    enum gpuplan_status st = check_count(x, 16, g->n_kv, MIN_KV_BYTES, "kv_count");
    if (st != GPUPLAN_OK)
        return st;
    g->kvs = calloc(g->n_kv ? g->n_kv : 1, sizeof *g->kvs);
    if (!g->kvs)
        return gpuplan_error_set(x->err, GPUPLAN_ERR_NOMEM, x->c.where, "out of memory");
    for (uint64_t i = 0; i < g->n_kv; i++) {
        st = read_kv(x, &g->kvs[i]);
        if (st != GPUPLAN_OK)
            return st;
    }
    return check_duplicates(x, g->kvs, (size_t)g->n_kv, sizeof *g->kvs, false);
}

static bool key_is(const struct gpuplan_gguf_kv *kv, const char *key)
{
    const size_t n = strlen(key);
    return kv->key_len == n && memcmp(kv->key, key, n) == 0;
}

/* general.alignment (u32, power of two), general.architecture, general.file_type. */
static enum gpuplan_status read_general(struct ctx *x)
{
    struct gpuplan_gguf *g = x->out;
    for (uint64_t i = 0; i < g->n_kv; i++) {
        const struct gpuplan_gguf_kv *kv = &g->kvs[i];
        if (key_is(kv, "general.alignment")) {
            uint64_t a = 0;
            if (kv->type != GPUPLAN_GGUF_TYPE_UINT32 || !gpuplan_gguf_kv_u64(kv, x->c.data, &a) ||
                a == 0 || (a & (a - 1)) != 0)
                return gpuplan_cursor_fail(&x->c, kv->value_at, GPUPLAN_ERR_INVALID_INPUT, x->err,
                                           "'general.alignment' must be a uint32 power of two");
            g->alignment = (uint32_t)a;
        } else if (key_is(kv, "general.architecture") && kv->type == GPUPLAN_GGUF_TYPE_STRING) {
            /* The string was bounds-checked when it was skipped. */
            g->architecture = (const char *)x->c.data + kv->value_at + 8;
            g->architecture_len = (size_t)read_le(x->c.data + kv->value_at, 8);
        } else if (key_is(kv, "general.file_type")) {
            uint64_t ft = 0;
            if (gpuplan_gguf_kv_u64(kv, x->c.data, &ft) && ft <= INT32_MAX)
                g->file_type = (int64_t)ft;
        }
    }
    return GPUPLAN_OK;
}

static enum gpuplan_status read_dims(struct ctx *x, struct gpuplan_gguf_tensor *t, size_t at)
{
    READ(x, u32, &t->n_dims);
    if (t->n_dims < 1 || t->n_dims > GPUPLAN_GGUF_MAX_DIMS)
        return gpuplan_cursor_fail(&x->c, at, GPUPLAN_ERR_INVALID_INPUT, x->err,
                                   "tensor '%.*s' has n_dims %u; must be 1..%u", (int)t->name_len,
                                   t->name, t->n_dims, GPUPLAN_GGUF_MAX_DIMS);
    t->n_elems = 1;
    for (uint32_t d = 0; d < GPUPLAN_GGUF_MAX_DIMS; d++)
        t->ne[d] = 1;
    for (uint32_t d = 0; d < t->n_dims; d++) {
        READ(x, u64, &t->ne[d]);
        if (t->ne[d] > (uint64_t)INT64_MAX)
            return gpuplan_cursor_fail(&x->c, at, GPUPLAN_ERR_INVALID_INPUT, x->err,
                                       "tensor '%.*s' has a negative dimension ne[%u]",
                                       (int)t->name_len, t->name, d);
        if (!gpuplan_mul_u64(t->n_elems, t->ne[d], &t->n_elems) || t->n_elems > INT64_MAX)
            return gpuplan_cursor_fail(&x->c, at, GPUPLAN_ERR_INVALID_INPUT, x->err,
                                       "tensor '%.*s': element count overflows", (int)t->name_len,
                                       t->name);
    }
    return GPUPLAN_OK;
}

static bool is_removed_ggml_type(uint32_t type)
{
    /* ggml.h: 4, 5 (Q4_2, Q4_3), 31-33 (Q4_0_4_4 ...), 36-38 (IQ4_NL_4_4 ...) were removed. */
    return type == 4 || type == 5 || (type >= 31 && type <= 33) || (type >= 36 && type <= 38);
}

static enum gpuplan_status read_type(struct ctx *x, struct gpuplan_gguf_tensor *t, size_t at)
{
    READ(x, u32, &t->ggml_type);
    t->dtype = gpuplan_dtype_from_ggml(t->ggml_type);
    const struct gpuplan_dtype_info *info = gpuplan_dtype_get(t->dtype);
    if (t->dtype == GPUPLAN_DTYPE_UNKNOWN || info->block_elems == 0)
        return gpuplan_cursor_fail(&x->c, at, GPUPLAN_ERR_INVALID_INPUT, x->err,
                                   "tensor '%.*s' has %s ggml type %u", (int)t->name_len, t->name,
                                   is_removed_ggml_type(t->ggml_type) ? "removed" : "unknown",
                                   t->ggml_type);
    if (t->ne[0] % info->block_elems != 0)
        return gpuplan_cursor_fail(&x->c, at, GPUPLAN_ERR_INVALID_INPUT, x->err,
                                   "tensor '%.*s': row length ne[0] = %llu is not a multiple of "
                                   "the %s block size %u",
                                   (int)t->name_len, t->name, (unsigned long long)t->ne[0],
                                   info->name, info->block_elems);
    if (!gpuplan_dtype_bytes(t->dtype, t->n_elems, true, &t->n_bytes))
        return gpuplan_cursor_fail(&x->c, at, GPUPLAN_ERR_INVALID_INPUT, x->err,
                                   "tensor '%.*s': byte size overflows", (int)t->name_len, t->name);
    return GPUPLAN_OK;
}

static enum gpuplan_status read_tensor_info(struct ctx *x, struct gpuplan_gguf_tensor *t)
{
    const size_t at = x->c.pos;
    enum gpuplan_status st =
        read_string(x, GPUPLAN_GGUF_MAX_STRING_BYTES, "tensor name", &t->name, &t->name_len);
    if (st != GPUPLAN_OK)
        return st;
    if (t->name_len > GPUPLAN_GGUF_MAX_NAME_BYTES)
        return gpuplan_cursor_fail(&x->c, at, GPUPLAN_ERR_INVALID_INPUT, x->err,
                                   "tensor name '%.*s...' is %zu bytes; at most %u allowed", 32,
                                   t->name, t->name_len, GPUPLAN_GGUF_MAX_NAME_BYTES);
    st = read_dims(x, t, at);
    if (st == GPUPLAN_OK)
        st = read_type(x, t, at);
    if (st != GPUPLAN_OK)
        return st;
    READ(x, u64, &t->offset_bytes);
    return GPUPLAN_OK;
}

static bool align_up(uint64_t v, uint64_t alignment, uint64_t *out)
{
    return gpuplan_add_u64(v, alignment - 1, out) && ((*out -= *out % alignment), true);
}

/* Offsets must be the running sum of padded sizes (gguf.cpp "has offset X, expected Y"). */
static enum gpuplan_status check_offsets(struct ctx *x)
{
    struct gpuplan_gguf *g = x->out;
    uint64_t expected = 0;
    for (uint64_t i = 0; i < g->n_tensors; i++) {
        const struct gpuplan_gguf_tensor *t = &g->tensors[i];
        if (t->offset_bytes % g->alignment != 0)
            return gpuplan_error_set(x->err, GPUPLAN_ERR_INVALID_INPUT, x->c.where,
                                     "tensor '%.*s' offset %llu is misaligned: not a multiple of "
                                     "the alignment %u",
                                     (int)t->name_len, t->name, (unsigned long long)t->offset_bytes,
                                     g->alignment);
        if (t->offset_bytes != expected)
            return gpuplan_error_set(x->err, GPUPLAN_ERR_INVALID_INPUT, x->c.where,
                                     "tensor '%.*s' has offset %llu, expected %llu",
                                     (int)t->name_len, t->name, (unsigned long long)t->offset_bytes,
                                     (unsigned long long)expected);
        uint64_t padded;
        if (!align_up(t->n_bytes, g->alignment, &padded) ||
            !gpuplan_add_u64(expected, padded, &expected))
            return gpuplan_error_set(x->err, GPUPLAN_ERR_INVALID_INPUT, x->c.where,
                                     "tensor data size overflows 64 bits");
    }
    g->data_bytes = expected;
    return GPUPLAN_OK;
}

static enum gpuplan_status read_tensors(struct ctx *x)
{
    struct gpuplan_gguf *g = x->out;
    enum gpuplan_status st = check_count(x, 8, g->n_tensors, MIN_TENSOR_INFO_BYTES, "tensor_count");
    if (st != GPUPLAN_OK)
        return st;
    g->tensors = calloc(g->n_tensors ? g->n_tensors : 1, sizeof *g->tensors);
    if (!g->tensors)
        return gpuplan_error_set(x->err, GPUPLAN_ERR_NOMEM, x->c.where, "out of memory");
    for (uint64_t i = 0; i < g->n_tensors; i++) {
        st = read_tensor_info(x, &g->tensors[i]);
        if (st != GPUPLAN_OK)
            return st;
    }
    st = check_duplicates(x, g->tensors, (size_t)g->n_tensors, sizeof *g->tensors, true);
    if (st != GPUPLAN_OK)
        return st;
    g->tensor_info_end = x->c.pos;
    if (!align_up(g->tensor_info_end, g->alignment, &g->data_start))
        return gpuplan_error_set(x->err, GPUPLAN_ERR_INVALID_INPUT, x->c.where,
                                 "data offset overflows");
    st = check_offsets(x);
    if (st != GPUPLAN_OK)
        return st;
    uint64_t end;
    if (!gpuplan_add_u64(g->data_start, g->data_bytes, &end) || end > x->file_bytes) {
        gpuplan_cursor_fail(&x->c, (size_t)g->tensor_info_end, GPUPLAN_ERR_INVALID_INPUT, x->err,
                            "file is truncated: tensor data needs %llu bytes from byte %llu, the "
                            "file has %llu",
                            (unsigned long long)g->data_bytes, (unsigned long long)g->data_start,
                            (unsigned long long)x->file_bytes);
        gpuplan_error_hint(x->err, "download the file again");
        return GPUPLAN_ERR_INVALID_INPUT;
    }
    return GPUPLAN_OK;
}

enum gpuplan_status gpuplan_gguf_parse(const uint8_t *data,
                                       size_t len,
                                       uint64_t file_bytes,
                                       const char *where,
                                       struct gpuplan_gguf *out,
                                       struct gpuplan_error *err)
{
    gpuplan_gguf_init(out);
    struct ctx x;
    gpuplan_cursor_init(&x.c, data, len, where);
    x.file_bytes = file_bytes > x.c.len ? file_bytes : x.c.len;
    x.out = out;
    x.err = err;
    enum gpuplan_status st = read_header(&x);
    if (st == GPUPLAN_OK)
        st = read_kvs(&x);
    if (st == GPUPLAN_OK)
        st = read_general(&x);
    if (st == GPUPLAN_OK)
        st = read_tensors(&x);
    if (st != GPUPLAN_OK) {
        const bool truncated = out->truncated && x.c.len < x.file_bytes;
        gpuplan_gguf_release(out);
        out->truncated = truncated;
        if (truncated)
            gpuplan_error_hint(err, "read more of the file and parse again");
    }
    return st;
}

const struct gpuplan_gguf_kv *
gpuplan_gguf_find(const struct gpuplan_gguf *gguf, const uint8_t *data, const char *key)
{
    (void)data;
    for (uint64_t i = 0; i < gguf->n_kv; i++) {
        if (key_is(&gguf->kvs[i], key))
            return &gguf->kvs[i];
    }
    return NULL;
}

/* Integer at `p` of GGUF scalar type `type`; false for non-integers and negatives. */
static bool int_at(const uint8_t *p, uint32_t type, uint64_t *out)
{
    switch (type) {
    case GPUPLAN_GGUF_TYPE_UINT8:
    case GPUPLAN_GGUF_TYPE_UINT16:
    case GPUPLAN_GGUF_TYPE_UINT32:
    case GPUPLAN_GGUF_TYPE_UINT64:
        *out = read_le(p, type_size[type]);
        return true;
    case GPUPLAN_GGUF_TYPE_INT8:
    case GPUPLAN_GGUF_TYPE_INT16:
    case GPUPLAN_GGUF_TYPE_INT32:
    case GPUPLAN_GGUF_TYPE_INT64: {
        const unsigned bits = 8U * type_size[type];
        const uint64_t v = read_le(p, type_size[type]);
        if ((v >> (bits - 1)) & 1U)
            return false; /* negative */
        *out = v;
        return true;
    }
    default:
        return false;
    }
}

bool gpuplan_gguf_kv_u64(const struct gpuplan_gguf_kv *kv, const uint8_t *data, uint64_t *out)
{
    if (!kv || kv->type >= GPUPLAN_GGUF_TYPE_COUNT)
        return false;
    return int_at(data + kv->value_at, kv->type, out);
}

/* Largest element of an integer array (a per-layer feed_forward_length); false if none. */
static bool int_array_max(const struct gpuplan_gguf_kv *kv, const uint8_t *data, uint64_t *out)
{
    if (kv->type != GPUPLAN_GGUF_TYPE_ARRAY || kv->array_type >= GPUPLAN_GGUF_TYPE_COUNT ||
        type_size[kv->array_type] == 0 || kv->array_count == 0)
        return false;
    /* Elements start after the u32 element type and u64 count; bounds checked by the parse. */
    const uint8_t *p = data + kv->value_at + MIN_ARRAY_BYTES;
    uint64_t best = 0;
    for (uint64_t i = 0; i < kv->array_count; i++) {
        uint64_t v;
        if (!int_at(p + i * type_size[kv->array_type], kv->array_type, &v))
            return false;
        best = v > best ? v : best;
    }
    *out = best;
    return true;
}

/* llama.cpp include/llama.h enum llama_ftype (ids 4-6 and 33-35 were removed). */
static const char *const file_type_names[] = {
    [0] = "ALL_F32",        [1] = "MOSTLY_F16",      [2] = "MOSTLY_Q4_0",
    [3] = "MOSTLY_Q4_1",    [7] = "MOSTLY_Q8_0",     [8] = "MOSTLY_Q5_0",
    [9] = "MOSTLY_Q5_1",    [10] = "MOSTLY_Q2_K",    [11] = "MOSTLY_Q3_K_S",
    [12] = "MOSTLY_Q3_K_M", [13] = "MOSTLY_Q3_K_L",  [14] = "MOSTLY_Q4_K_S",
    [15] = "MOSTLY_Q4_K_M", [16] = "MOSTLY_Q5_K_S",  [17] = "MOSTLY_Q5_K_M",
    [18] = "MOSTLY_Q6_K",   [19] = "MOSTLY_IQ2_XXS", [20] = "MOSTLY_IQ2_XS",
    [21] = "MOSTLY_Q2_K_S", [22] = "MOSTLY_IQ3_XS",  [23] = "MOSTLY_IQ3_XXS",
    [24] = "MOSTLY_IQ1_S",  [25] = "MOSTLY_IQ4_NL",  [26] = "MOSTLY_IQ3_S",
    [27] = "MOSTLY_IQ3_M",  [28] = "MOSTLY_IQ2_S",   [29] = "MOSTLY_IQ2_M",
    [30] = "MOSTLY_IQ4_XS", [31] = "MOSTLY_IQ1_M",   [32] = "MOSTLY_BF16",
    [36] = "MOSTLY_TQ1_0",  [37] = "MOSTLY_TQ2_0",   [38] = "MOSTLY_MXFP4_MOE",
    [39] = "MOSTLY_NVFP4",  [40] = "MOSTLY_Q1_0",
};

const char *gpuplan_gguf_file_type_name(int64_t file_type)
{
    if (file_type == 1024)
        return "GUESSED";
    if (file_type < 0 || (uint64_t)file_type >= sizeof file_type_names / sizeof file_type_names[0])
        return NULL;
    return file_type_names[file_type];
}

/* Value of "{arch}.{suffix}" as an integer of any width; 0 when absent. */
static enum gpuplan_status arch_u64(const struct gpuplan_gguf *g,
                                    const uint8_t *data,
                                    const char *suffix,
                                    const char *where,
                                    uint64_t max,
                                    uint64_t *out,
                                    struct gpuplan_error *err)
{
    char key[160];
    if (!g->architecture || g->architecture_len > 64)
        return GPUPLAN_OK;
    (void)snprintf(key, sizeof key, "%.*s.%s", (int)g->architecture_len, g->architecture, suffix);
    const struct gpuplan_gguf_kv *kv = gpuplan_gguf_find(g, data, key);
    if (!kv)
        return GPUPLAN_OK;
    uint64_t v = 0;
    if (!gpuplan_gguf_kv_u64(kv, data, &v) && !int_array_max(kv, data, &v))
        return gpuplan_error_set(err, GPUPLAN_ERR_INVALID_CONFIG, where,
                                 "'%s' must be a non-negative integer", key);
    if (v > max)
        return gpuplan_error_set(err, GPUPLAN_ERR_INVALID_CONFIG, where,
                                 "'%s' is %llu; must be <= %llu", key, (unsigned long long)v,
                                 (unsigned long long)max);
    *out = v;
    return GPUPLAN_OK;
}

static enum gpuplan_status fill_arch(const struct gpuplan_gguf *g,
                                     const uint8_t *data,
                                     const char *where,
                                     struct gpuplan_arch *a,
                                     struct gpuplan_error *err)
{
    const struct {
        const char *suffix;
        uint64_t *out;
    } u64_keys[] = {
        { "embedding_length", &a->hidden_size },
        { "feed_forward_length", &a->intermediate_size },
        { "attention.head_count", &a->n_heads },
        { "attention.head_count_kv", &a->n_kv_heads },
        { "attention.key_length", &a->head_dim },
        { "context_length", &a->max_position_embeddings },
        { "vocab_size", &a->vocab_size },
        { "expert_feed_forward_length", &a->moe_intermediate_size },
        { "attention.q_lora_rank", &a->q_lora_rank },
        { "attention.kv_lora_rank", &a->kv_lora_rank },
        { "attention.sliding_window", &a->sliding_window },
    };
    uint64_t n_layers = 0, n_experts = 0, n_used = 0, n_shared = 0, n_dense = 0;
    const struct {
        const char *suffix;
        uint64_t *out;
    } u32_keys[] = {
        { "block_count", &n_layers },
        { "expert_count", &n_experts },
        { "expert_used_count", &n_used },
        { "expert_shared_count", &n_shared },
        { "leading_dense_block_count", &n_dense },
    };
    enum gpuplan_status st = GPUPLAN_OK;
    for (size_t i = 0; i < sizeof u64_keys / sizeof u64_keys[0] && st == GPUPLAN_OK; i++)
        st = arch_u64(g, data, u64_keys[i].suffix, where, UINT64_MAX, u64_keys[i].out, err);
    for (size_t i = 0; i < sizeof u32_keys / sizeof u32_keys[0] && st == GPUPLAN_OK; i++)
        st = arch_u64(g, data, u32_keys[i].suffix, where, UINT32_MAX, u32_keys[i].out, err);
    if (st != GPUPLAN_OK)
        return st;
    (void)snprintf(a->family, sizeof a->family, "%.*s", (int)g->architecture_len, g->architecture);
    a->n_layers = (uint32_t)n_layers;
    a->n_experts = (uint32_t)n_experts;
    a->n_experts_per_token = (uint32_t)n_used;
    a->n_shared_experts = (uint32_t)n_shared;
    a->n_dense_layers = (uint32_t)n_dense;
    a->is_moe = n_experts > 0;
    /* gguf.md: no head_count_kv means no GQA; no key_length means embedding / heads. */
    if (a->n_kv_heads == 0)
        a->n_kv_heads = a->n_heads;
    if (a->head_dim == 0 && a->n_heads > 0)
        a->head_dim = a->hidden_size / a->n_heads;
    if (a->vocab_size == 0) {
        const struct gpuplan_gguf_kv *tokens = gpuplan_gguf_find(g, data, "tokenizer.ggml.tokens");
        if (tokens && tokens->type == GPUPLAN_GGUF_TYPE_ARRAY)
            a->vocab_size = tokens->array_count;
    }
    return GPUPLAN_OK;
}

static bool name_has(const struct gpuplan_gguf_tensor *t, const char *part)
{
    const size_t n = strlen(part);
    for (size_t i = 0; i + n <= t->name_len; i++) {
        if (memcmp(t->name + i, part, n) == 0)
            return true;
    }
    return false;
}

enum gpuplan_status gpuplan_gguf_append(const struct gpuplan_gguf *gguf,
                                        const uint8_t *data,
                                        const char *where,
                                        struct gpuplan_model *model,
                                        struct gpuplan_error *err)
{
    bool has_head = false, has_gate = false, has_qk_norm = false, has_mla = false;
    for (uint64_t i = 0; i < gguf->n_tensors; i++) {
        const struct gpuplan_gguf_tensor *t = &gguf->tensors[i];
        struct gpuplan_tensor_name_info info;
        gpuplan_tensor_name_classify_gguf(t->name, t->name_len, &info);
        struct gpuplan_tensor_group g;
        memset(&g, 0, sizeof g);
        g.role = info.role;
        g.stack = info.stack;
        g.layer = info.layer;
        g.n_tensors = 1;
        g.dtype = t->dtype;
        g.n_dims = t->n_dims;
        /* ggml ne[] runs fastest-first; PyTorch shape is the reverse. */
        for (uint32_t d = 0; d < t->n_dims; d++)
            g.shape[d] = t->ne[t->n_dims - 1 - d];
        enum gpuplan_status st = gpuplan_model_add(model, &g, err);
        if (st != GPUPLAN_OK)
            return st;
        has_head |= g.role == GPUPLAN_ROLE_LM_HEAD;
        has_gate |= g.role == GPUPLAN_ROLE_MLP_GATE || g.role == GPUPLAN_ROLE_EXPERT_GATE ||
                    g.role == GPUPLAN_ROLE_MLP_GATE_UP || g.role == GPUPLAN_ROLE_EXPERT_GATE_UP;
        has_qk_norm |= name_has(t, "attn_q_norm") || name_has(t, "attn_k_norm");
        has_mla |= g.role >= GPUPLAN_ROLE_MLA_Q_A && g.role <= GPUPLAN_ROLE_MLA_KV_B;
    }
    if (!gguf->architecture)
        return GPUPLAN_OK;
    struct gpuplan_arch arch;
    memset(&arch, 0, sizeof arch);
    enum gpuplan_status st = fill_arch(gguf, data, where, &arch, err);
    if (st != GPUPLAN_OK)
        return st;
    arch.tied_embeddings = !has_head;
    arch.gated_mlp = has_gate;
    arch.has_qk_norm = has_qk_norm;
    arch.is_mla = has_mla;
    model->arch = arch;
    model->has_arch = true;
    return GPUPLAN_OK;
}

enum gpuplan_status gpuplan_model_from_gguf(struct gpuplan_model *model,
                                            const uint8_t *data,
                                            size_t len,
                                            uint64_t file_bytes,
                                            const char *where,
                                            struct gpuplan_error *err)
{
    struct gpuplan_gguf gguf;
    enum gpuplan_status st = gpuplan_gguf_parse(data, len, file_bytes, where, &gguf, err);
    if (st != GPUPLAN_OK)
        return st;
    st = gpuplan_gguf_append(&gguf, data, where, model, err);
    if (st == GPUPLAN_OK) {
        if (!model->format[0])
            (void)snprintf(model->format, sizeof model->format, "%s", "gguf");
        model->storage_from_file = true;
        model->file_bytes = file_bytes ? file_bytes : len;
        model->n_metadata = gguf.n_kv;
        const char *ft = gpuplan_gguf_file_type_name(gguf.file_type);
        if (ft)
            (void)snprintf(model->gguf_file_type, sizeof model->gguf_file_type, "%s", ft);
        st = gpuplan_model_finalize(model, err);
    }
    gpuplan_gguf_release(&gguf);
    return st;
}
