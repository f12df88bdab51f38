/*
 * safetensors.c - safetensors header and index parsing (see safetensors.h).
 *
 * The checks follow huggingface/safetensors src/tensor.rs (@24b0b28):
 * read_metadata (HeaderTooSmall, HeaderTooLarge, InvalidHeaderLength,
 * InvalidHeaderStart, InvalidHeader for UTF-8), Metadata::validate
 * (InvalidOffset, ValidationOverflow, MisalignedSlice, TensorInvalidInfo)
 * and MetadataIncompleteBuffer. Work is O(n log n) in the tensor count:
 * one pass over jansson's object, one sort by offset (skipped when the
 * writer already emitted offset order), one pass to check tiling.
 */
#include "safetensors.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/units.h"
#include "json_internal.h"
#include "tensor_names.h"

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
    json_decref(header->root);
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
        (void)snprintf(msg, sizeof msg,
                       "truncated: %llu bytes; a safetensors file starts with an 8-byte header "
                       "length",
                       (unsigned long long)(file_bytes && file_bytes < len ? file_bytes : len));
        fail_at(err, GPUPLAN_ERR_INVALID_INPUT, where, 0, msg);
        gpuplan_error_hint(err, "check that the file is a complete .safetensors file");
        return GPUPLAN_ERR_INVALID_INPUT;
    }
    uint64_t n = 0;
    for (unsigned i = 0; i < GPUPLAN_SAFETENSORS_PREFIX_BYTES; i++)
        n |= (uint64_t)data[i] << (8 * i);
    if (n > GPUPLAN_SAFETENSORS_MAX_HEADER_BYTES) {
        (void)snprintf(msg, sizeof msg, "header length %llu exceeds the limit of %llu bytes",
                       (unsigned long long)n,
                       (unsigned long long)GPUPLAN_SAFETENSORS_MAX_HEADER_BYTES);
        fail_at(err, GPUPLAN_ERR_TOO_LARGE, where, 0, msg);
        gpuplan_error_hint(err, "the file is not a safetensors file, or its first 8 bytes are "
                                "corrupt");
        return GPUPLAN_ERR_TOO_LARGE;
    }
    const uint64_t total = n + GPUPLAN_SAFETENSORS_PREFIX_BYTES;
    if (total > have) {
        (void)snprintf(msg, sizeof msg,
                       "header length %llu runs past the end of the file (%llu bytes; need "
                       "%llu)",
                       (unsigned long long)n, (unsigned long long)have, (unsigned long long)total);
        fail_at(err, GPUPLAN_ERR_INVALID_INPUT, where, 0, msg);
        gpuplan_error_hint(err, "the file is truncated or not a safetensors file");
        return GPUPLAN_ERR_INVALID_INPUT;
    }
    *out_total_bytes = total;
    return GPUPLAN_OK;
}

/* Offset of the first byte that is not valid UTF-8 (RFC 3629), or len when valid. */
static size_t utf8_invalid_at(const uint8_t *s, size_t len)
{
    size_t i = 0;
    while (i < len) {
        const uint8_t c = s[i];
        size_t n;
        uint32_t min;
        uint32_t cp;
        if (c < 0x80) {
            i++;
            continue;
        } else if ((c & 0xE0) == 0xC0) {
            n = 1, min = 0x80, cp = c & 0x1F;
        } else if ((c & 0xF0) == 0xE0) {
            n = 2, min = 0x800, cp = c & 0x0F;
        } else if ((c & 0xF8) == 0xF0) {
            n = 3, min = 0x10000, cp = c & 0x07;
        } else {
            return i;
        }
        if (n > len - i - 1)
            return i;
        for (size_t k = 1; k <= n; k++) {
            if ((s[i + k] & 0xC0) != 0x80)
                return i;
            cp = (cp << 6) | (s[i + k] & 0x3F);
        }
        if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            return i;
        i += n + 1;
    }
    return len;
}

static enum gpuplan_status check_metadata(json_t *meta,
                                          const char *where,
                                          struct gpuplan_st_header *out,
                                          struct gpuplan_error *err)
{
    char loc[GPUPLAN_ERROR_WHERE_MAX];
    if (!json_is_object(meta)) {
        tensor_where(loc, sizeof loc, where, metadata_key);
        return gpuplan_error_set(err, GPUPLAN_ERR_INVALID_INPUT, loc,
                                 "'__metadata__' must be an object of strings");
    }
    const char *key;
    json_t *value;
    json_object_foreach(meta, key, value)
    {
        if (!json_is_string(value)) {
            (void)snprintf(loc, sizeof loc, "%s:$.__metadata__.%s", where ? where : "<input>", key);
            return gpuplan_error_set(err, GPUPLAN_ERR_INVALID_INPUT, loc,
                                     "'__metadata__' value '%s' is not a string; safetensors "
                                     "metadata maps strings to strings",
                                     key);
        }
        if (strcmp(key, "format") == 0)
            out->metadata_format = json_string_value(value);
        out->n_metadata++;
    }
    return GPUPLAN_OK;
}

static enum gpuplan_status read_shape(const json_t *shape,
                                      const char *loc,
                                      const char *name,
                                      struct gpuplan_st_tensor *t,
                                      struct gpuplan_error *err)
{
    if (!json_is_array(shape))
        return gpuplan_error_set(err, GPUPLAN_ERR_INVALID_INPUT, loc,
                                 "tensor '%s' has no 'shape' array", name);
    const size_t rank = json_array_size(shape);
    if (rank > GPUPLAN_SAFETENSORS_MAX_DIMS)
        return gpuplan_error_set(err, GPUPLAN_ERR_UNSUPPORTED, loc,
                                 "tensor '%s' has %zu dimensions; at most %u are supported", name,
                                 rank, GPUPLAN_SAFETENSORS_MAX_DIMS);
    t->n_dims = (uint32_t)rank;
    t->n_elems = 1;
    for (size_t d = 0; d < rank; d++) {
        const json_t *dim = json_array_get(shape, d);
        if (!json_is_integer(dim) || json_integer_value(dim) < 0)
            return gpuplan_error_set(err, GPUPLAN_ERR_INVALID_INPUT, loc,
                                     "tensor '%s' has a negative or non-integer dimension %zu in "
                                     "'shape'; dimensions must be integers >= 0",
                                     name, d);
        t->shape[d] = (uint64_t)json_integer_value(dim);
        if (!gpuplan_mul_u64(t->n_elems, t->shape[d], &t->n_elems))
            return gpuplan_error_set(err, GPUPLAN_ERR_INVALID_INPUT, loc,
                                     "tensor '%s': element count overflows 64 bits", name);
    }
    return GPUPLAN_OK;
}

static enum gpuplan_status read_offsets(const json_t *offsets,
                                        const char *loc,
                                        const char *name,
                                        struct gpuplan_st_tensor *t,
                                        struct gpuplan_error *err)
{
    if (!json_is_array(offsets) || json_array_size(offsets) != 2 ||
        !json_is_integer(json_array_get(offsets, 0)) ||
        !json_is_integer(json_array_get(offsets, 1)) ||
        json_integer_value(json_array_get(offsets, 0)) < 0 ||
        json_integer_value(json_array_get(offsets, 1)) < 0)
        return gpuplan_error_set(err, GPUPLAN_ERR_INVALID_INPUT, loc,
                                 "tensor '%s' must have 'data_offsets' [BEGIN, END] of two "
                                 "integers >= 0",
                                 name);
    t->begin_bytes = (uint64_t)json_integer_value(json_array_get(offsets, 0));
    t->end_bytes = (uint64_t)json_integer_value(json_array_get(offsets, 1));
    if (t->end_bytes < t->begin_bytes)
        return gpuplan_error_set(err, GPUPLAN_ERR_INVALID_INPUT, loc,
                                 "tensor '%s' has 'data_offsets' [%llu, %llu]; END must be >= "
                                 "BEGIN",
                                 name, (unsigned long long)t->begin_bytes,
                                 (unsigned long long)t->end_bytes);
    return GPUPLAN_OK;
}

/* END - BEGIN must equal numel * bits / 8 (tensor.rs validate), with checked arithmetic. */
static enum gpuplan_status check_size(const char *loc,
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
        return gpuplan_error_set(err, GPUPLAN_ERR_INVALID_INPUT, loc,
                                 "tensor '%s': size in bits overflows 64 bits", name);
    if (n_bits % GPUPLAN_BITS_PER_BYTE != 0)
        return gpuplan_error_set(err, GPUPLAN_ERR_INVALID_INPUT, loc,
                                 "tensor '%s' of %llu %s elements is not a whole number of bytes",
                                 name, (unsigned long long)t->n_elems, info->name);
    const uint64_t need = n_bits / GPUPLAN_BITS_PER_BYTE;
    const uint64_t have = t->end_bytes - t->begin_bytes;
    if (need != have)
        return gpuplan_error_set(err, GPUPLAN_ERR_INVALID_INPUT, loc,
                                 "tensor '%s' has data_offsets [%llu, %llu] (%llu bytes); %llu %s "
                                 "elements need %llu bytes (size mismatch)",
                                 name, (unsigned long long)t->begin_bytes,
                                 (unsigned long long)t->end_bytes, (unsigned long long)have,
                                 (unsigned long long)t->n_elems, info->name,
                                 (unsigned long long)need);
    return GPUPLAN_OK;
}

static enum gpuplan_status read_tensor(const char *name,
                                       size_t name_len,
                                       const json_t *entry,
                                       const char *where,
                                       struct gpuplan_st_tensor *t,
                                       struct gpuplan_error *err)
{
    char loc[GPUPLAN_ERROR_WHERE_MAX];
    tensor_where(loc, sizeof loc, where, name);
    memset(t, 0, sizeof *t);
    t->name = name;
    t->name_len = name_len;
    if (!json_is_object(entry))
        return gpuplan_error_set(err, GPUPLAN_ERR_INVALID_INPUT, loc,
                                 "tensor '%s' must be an object with 'dtype', 'shape' and "
                                 "'data_offsets'",
                                 name);
    const json_t *dtype = json_object_get(entry, "dtype");
    if (!json_is_string(dtype))
        return gpuplan_error_set(err, GPUPLAN_ERR_INVALID_INPUT, loc,
                                 "tensor '%s' has no 'dtype' string", name);
    t->dtype = gpuplan_dtype_from_safetensors(json_string_value(dtype), json_string_length(dtype));
    if (t->dtype == GPUPLAN_DTYPE_UNKNOWN) {
        gpuplan_error_set(err, GPUPLAN_ERR_UNSUPPORTED, loc,
                          "tensor '%s' has unknown dtype '%.64s'", name, json_string_value(dtype));
        gpuplan_error_hint(err, "known safetensors dtypes: BOOL, U8, I8, F8_E4M3, F8_E5M2, "
                                "F8_E8M0, F8_E4M3FNUZ, F8_E5M2FNUZ, F6_E2M3, F6_E3M2, F4, U16, "
                                "I16, F16, BF16, U32, I32, F32, C64, U64, I64, F64");
        return GPUPLAN_ERR_UNSUPPORTED;
    }
    enum gpuplan_status st = read_shape(json_object_get(entry, "shape"), loc, name, t, err);
    if (st == GPUPLAN_OK)
        st = read_offsets(json_object_get(entry, "data_offsets"), loc, name, t, err);
    if (st == GPUPLAN_OK)
        st = check_size(loc, name, t, err);
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
                       "tensor data size overflows 64 bits");
    if (file_bytes == 0 || expect == file_bytes)
        return GPUPLAN_OK;
    if (expect < file_bytes) {
        (void)snprintf(msg, sizeof msg,
                       "%llu bytes of trailing data after the last tensor (data ends at byte "
                       "%llu, the file has %llu)",
                       (unsigned long long)(file_bytes - expect), (unsigned long long)expect,
                       (unsigned long long)file_bytes);
        return fail_at(err, GPUPLAN_ERR_INVALID_INPUT, where, expect, msg);
    }
    (void)snprintf(msg, sizeof msg,
                   "file is truncated: tensor data ends at byte %llu, the file has %llu bytes",
                   (unsigned long long)expect, (unsigned long long)file_bytes);
    fail_at(err, GPUPLAN_ERR_INVALID_INPUT, where, file_bytes, msg);
    gpuplan_error_hint(err, "download the file again");
    return GPUPLAN_ERR_INVALID_INPUT;
}

static enum gpuplan_status parse_json(const uint8_t *json,
                                      uint64_t n,
                                      const char *where,
                                      struct gpuplan_st_header *out,
                                      struct gpuplan_error *err)
{
    char msg[GPUPLAN_ERROR_MESSAGE_MAX];
    if (n == 0 || json[0] != '{') {
        (void)snprintf(msg, sizeof msg,
                       n ? "header does not begin with '{' (byte 0x%02x)"
                         : "header is empty; it must be a JSON object beginning with '{'",
                       n ? json[0] : 0);
        fail_at(err, GPUPLAN_ERR_INVALID_INPUT, where, GPUPLAN_SAFETENSORS_PREFIX_BYTES, msg);
        gpuplan_error_hint(err, "the file is not a safetensors file");
        return GPUPLAN_ERR_INVALID_INPUT;
    }
    const size_t bad = utf8_invalid_at(json, (size_t)n);
    if (bad < n) {
        (void)snprintf(msg, sizeof msg, "header is not valid UTF-8 (byte 0x%02x)", json[bad]);
        return fail_at(err, GPUPLAN_ERR_INVALID_INPUT, where,
                       GPUPLAN_SAFETENSORS_PREFIX_BYTES + bad, msg);
    }
    return gpuplan_json_parse(json, (size_t)n, where, true, &out->root, err);
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
        (void)snprintf(msg, sizeof msg, "truncated: the header needs %llu bytes, %zu available",
                       (unsigned long long)total, len);
        return fail_at(err, GPUPLAN_ERR_INVALID_INPUT, where, len, msg);
    }
    out->header_bytes = total - GPUPLAN_SAFETENSORS_PREFIX_BYTES;
    st = parse_json(data + GPUPLAN_SAFETENSORS_PREFIX_BYTES, out->header_bytes, where, out, err);
    if (st != GPUPLAN_OK)
        goto out;
    const size_t n_entries = json_object_size(out->root);
    out->tensors = calloc(n_entries ? n_entries : 1, sizeof *out->tensors);
    if (!out->tensors) {
        st = gpuplan_error_set(err, GPUPLAN_ERR_NOMEM, where, "out of memory for %zu tensors",
                               n_entries);
        goto out;
    }
    const char *key;
    json_t *value;
    void *iter = json_object_iter(out->root);
    for (; iter; iter = json_object_iter_next(out->root, iter)) {
        key = json_object_iter_key(iter);
        value = json_object_iter_value(iter);
        if (strcmp(key, metadata_key) == 0) {
            st = check_metadata(value, where, out, err);
        } else {
            st = read_tensor(key, strlen(key), value, where, &out->tensors[out->n_tensors], err);
            out->n_tensors++;
        }
        if (st != GPUPLAN_OK)
            goto out;
    }
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
    size_t order;       /* position in file order */
    size_t merged_into; /* own index, or the index of the group that absorbed it */
};

static bool is_bnb_4bit(const json_t *root, const struct gpuplan_st_tensor *t)
{
    static const char *const suffixes[] = { ".quant_state.bitsandbytes__nf4",
                                            ".quant_state.bitsandbytes__fp4" };
    char key[512];
    if (t->dtype != GPUPLAN_DTYPE_U8 || t->name_len + 40 > sizeof key)
        return false;
    for (size_t i = 0; i < 2; i++) {
        (void)snprintf(key, sizeof key, "%s%s", t->name, suffixes[i]);
        if (json_object_get(root, key))
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
    if (is_bnb_4bit(h->root, t)) {
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

static int cmp_candidates(const void *a, const void *b)
{
    const struct candidate *x = a, *y = b;
    const struct gpuplan_tensor_group *gx = &x->group, *gy = &y->group;
    const int64_t keys_x[] = { gx->role, gx->stack, gx->layer, gx->dtype, gx->n_dims };
    const int64_t keys_y[] = { gy->role, gy->stack, gy->layer, gy->dtype, gy->n_dims };
    for (size_t i = 0; i < sizeof keys_x / sizeof keys_x[0]; i++) {
        if (keys_x[i] != keys_y[i])
            return keys_x[i] < keys_y[i] ? -1 : 1;
    }
    for (uint32_t d = 0; d < gx->n_dims; d++) {
        if (gx->shape[d] != gy->shape[d])
            return gx->shape[d] < gy->shape[d] ? -1 : 1;
    }
    return x->order < y->order ? -1 : (x->order > y->order);
}

static bool same_group(const struct gpuplan_tensor_group *a, const struct gpuplan_tensor_group *b)
{
    if (a->role != b->role || a->stack != b->stack || a->layer != b->layer ||
        a->dtype != b->dtype || a->n_dims != b->n_dims)
        return false;
    return memcmp(a->shape, b->shape, a->n_dims * sizeof a->shape[0]) == 0;
}

/*
 * Routed experts of one layer are identical tensors: merge them into one
 * group with n_tensors = experts (sort by key, merge runs), so a 256-expert
 * model has a few hundred groups, not tens of thousands.
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
    struct candidate *sorted = malloc(n_expert * sizeof *sorted);
    if (!sorted)
        return gpuplan_error_set(err, GPUPLAN_ERR_NOMEM, NULL, "out of memory merging experts");
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (gpuplan_role_is_routed_expert(c[i].group.role))
            sorted[k++] = c[i];
    }
    qsort(sorted, n_expert, sizeof *sorted, cmp_candidates);
    size_t head = 0;
    for (size_t i = 1; i < n_expert; i++) {
        if (same_group(&sorted[head].group, &sorted[i].group)) {
            c[sorted[head].order].group.n_tensors++;
            c[sorted[i].order].merged_into = sorted[head].order;
        } else {
            head = i;
        }
    }
    free(sorted);
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
    for (size_t i = 0; i < header->n_tensors && st == GPUPLAN_OK; i++) {
        c[i].order = i;
        st = make_group(header, &header->tensors[i], &c[i].group, err);
    }
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
