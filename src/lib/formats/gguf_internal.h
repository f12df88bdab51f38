/*
 * gguf.h - GGUF v2/v3 little-endian headers (library-internal).
 *
 * Layout (ggml docs/gguf.md; reference reader ggml src/gguf.cpp):
 *
 *   u32  magic "GGUF" (0x46554747 read little-endian)
 *   u32  version: 2 or 3 (v1 used u32 counts and is rejected; a version whose
 *        low 16 bits are 0 is a byte-swapped, big-endian file)
 *   u64  tensor_count
 *   u64  kv_count
 *   kv[kv_count]:        string key, u32 value_type, value
 *   tensor_info[count]:  string name, u32 n_dims, u64 ne[n_dims], u32 ggml_type, u64 offset
 *   0x00 padding to `alignment` (general.alignment, u32 power of two, default 32)
 *   tensor data: tensor i at data_start + offset_i; offsets are the running
 *        sum of each tensor's bytes padded to `alignment` (gguf.cpp)
 *
 *   string = u64 length + bytes (UTF-8, not NUL-terminated)
 *   value types: 0 u8, 1 i8, 2 u16, 3 i16, 4 u32, 5 i32, 6 f32, 7 bool,
 *                8 string, 9 array (u32 elem_type, u64 count, elements), 10 u64,
 *                11 i64, 12 f64
 *
 * ne[0] is the contiguous dimension (the reverse of PyTorch's shape) and
 * holds whole quantisation blocks. Every count and length is checked against
 * the bytes remaining before anything is allocated; array nesting is bounded.
 *
 * Not here: reading files (model_load.c).
 */
#ifndef GPUPLAN_GGUF_H
#define GPUPLAN_GGUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpuplan/dtype.h"
#include "gpuplan/error.h"
#include "gpuplan/model.h"

#define GPUPLAN_GGUF_MAGIC             0x46554747U
#define GPUPLAN_GGUF_DEFAULT_ALIGNMENT 32U
/* gguf.cpp: name.length() >= GGML_MAX_NAME (64) is rejected. */
#define GPUPLAN_GGUF_MAX_NAME_BYTES 63U
/* gguf.cpp GGUF_MAX_STRING_LENGTH (1 GiB); keys are at most 65535 bytes (spec). */
#define GPUPLAN_GGUF_MAX_STRING_BYTES (1024ULL * 1024ULL * 1024ULL)
#define GPUPLAN_GGUF_MAX_KEY_BYTES    65535U
/* Arrays of arrays deeper than this are rejected (gguf.cpp rejects any nesting). */
#define GPUPLAN_GGUF_MAX_ARRAY_DEPTH 8U
#define GPUPLAN_GGUF_MAX_DIMS        4U

enum gpuplan_gguf_type {
    GPUPLAN_GGUF_TYPE_UINT8 = 0,
    GPUPLAN_GGUF_TYPE_INT8,
    GPUPLAN_GGUF_TYPE_UINT16,
    GPUPLAN_GGUF_TYPE_INT16,
    GPUPLAN_GGUF_TYPE_UINT32,
    GPUPLAN_GGUF_TYPE_INT32,
    GPUPLAN_GGUF_TYPE_FLOAT32,
    GPUPLAN_GGUF_TYPE_BOOL,
    GPUPLAN_GGUF_TYPE_STRING,
    GPUPLAN_GGUF_TYPE_ARRAY,
    GPUPLAN_GGUF_TYPE_UINT64,
    GPUPLAN_GGUF_TYPE_INT64,
    GPUPLAN_GGUF_TYPE_FLOAT64,
    GPUPLAN_GGUF_TYPE_COUNT
};

struct gpuplan_gguf_kv {
    const char *key; /* borrowed from the parsed bytes; not NUL-terminated */
    size_t key_len;
    uint32_t type;        /* enum gpuplan_gguf_type */
    size_t value_at;      /* byte offset of the value (after the type) */
    uint32_t array_type;  /* element type when type is ARRAY */
    uint64_t array_count; /* elements when type is ARRAY */
};

struct gpuplan_gguf_tensor {
    const char *name;                   /* borrowed; not NUL-terminated */
    size_t name_len;                    /* <= 63 */
    uint32_t n_dims;                    /* 1..4 */
    uint64_t ne[GPUPLAN_GGUF_MAX_DIMS]; /* ggml order: ne[0] contiguous; unused = 1 */
    uint32_t ggml_type;
    enum gpuplan_dtype dtype;
    uint64_t offset_bytes; /* relative to the data section */
    uint64_t n_elems;
    uint64_t n_bytes; /* n_elems / block * block bytes */
};

struct gpuplan_gguf {
    uint32_t version;                    /* 2 or 3 */
    uint64_t n_tensors;                  /* e.g. 12 */
    uint64_t n_kv;                       /* e.g. 18 */
    uint32_t alignment;                  /* e.g. 32 */
    struct gpuplan_gguf_kv *kvs;         /* owned; n_kv entries */
    struct gpuplan_gguf_tensor *tensors; /* owned; n_tensors entries */
    uint64_t tensor_info_end;            /* byte offset after the tensor infos, e.g. 724,398 */
    uint64_t data_start;                 /* aligned start of the data, e.g. 724,416 */
    uint64_t data_bytes;                 /* padded tensor data, e.g. 1,026,144 */
    const char *architecture;            /* borrowed general.architecture, or NULL */
    size_t architecture_len;
    int64_t file_type; /* general.file_type, -1 when absent */
    bool truncated;    /* parsing ran out of the `len` bytes given */
};

void gpuplan_gguf_init(struct gpuplan_gguf *gguf);
void gpuplan_gguf_release(struct gpuplan_gguf *gguf);

/*
 * Parse the header, metadata and tensor infos from the file's leading `len`
 * bytes. `file_bytes` is the whole file's size (0 = unknown: then `len` is
 * taken as the file). The result borrows from `data`, which must outlive it.
 * When the bytes given end before the tensor infos do but the file is
 * longer, the status is GPUPLAN_ERR_INVALID_INPUT with out->truncated set:
 * the caller may read more and parse again.
 */
enum gpuplan_status gpuplan_gguf_parse(const uint8_t *data,
                                       size_t len,
                                       uint64_t file_bytes,
                                       const char *where,
                                       struct gpuplan_gguf *out,
                                       struct gpuplan_error *err);

/* The pair with key `key` (NUL-terminated), or NULL. */
const struct gpuplan_gguf_kv *
gpuplan_gguf_find(const struct gpuplan_gguf *gguf, const uint8_t *data, const char *key);

/* An integer value of any width; false when not an integer type or negative. */
bool gpuplan_gguf_kv_u64(const struct gpuplan_gguf_kv *kv, const uint8_t *data, uint64_t *out);

/* llama.cpp llama_ftype name for general.file_type, e.g. "MOSTLY_Q4_K_M"; NULL if unknown. */
const char *gpuplan_gguf_file_type_name(int64_t file_type);

/*
 * Append the tensors to `model` (PyTorch shape order, role from the GGUF
 * name, expert stacks as one 3-D group) and fill model->arch from the
 * `{arch}.*` keys when general.architecture is present. Does not finalize.
 */
enum gpuplan_status gpuplan_gguf_append(const struct gpuplan_gguf *gguf,
                                        const uint8_t *data,
                                        const char *where,
                                        struct gpuplan_model *model,
                                        struct gpuplan_error *err);

#endif
