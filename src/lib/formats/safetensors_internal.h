/*
 * safetensors.h - safetensors headers and sharded indexes (library-internal).
 *
 * File layout (huggingface/safetensors README "Format", src/tensor.rs):
 *
 *   u64 LE   N                 header length in bytes, N <= 100,000,000
 *   N bytes  UTF-8 JSON object, begins with '{', may be padded with 0x20:
 *            { "__metadata__": { "format": "pt", ... },        string -> string only
 *              "NAME": { "dtype": "BF16", "shape": [3072], "data_offsets": [BEGIN, END] },
 *              ... }
 *   bytes    tensor data; NAME's bytes are at 8 + N + BEGIN .. 8 + N + END
 *
 * Checks, as in tensor.rs: the header is valid UTF-8 and JSON without
 * duplicate keys (read with json_scan.h, not a DOM); every dtype is known;
 * shapes are non-negative integers; sorted by data_offsets the tensors tile
 * the data from 0 with no hole or overlap; END - BEGIN == numel * bits / 8
 * (checked, whole bytes); and, when the file size is known,
 * 8 + N + last END == file size.
 *
 * The index (model.safetensors.index.json, huggingface_hub
 * serialization/_torch.py) is {"metadata": {"total_size": BYTES},
 * "weight_map": {"NAME": "SHARD.safetensors", ...}}.
 *
 * Not here: reading files (model_load.c), parameter semantics (model.c).
 */
#ifndef GPUPLAN_SAFETENSORS_H
#define GPUPLAN_SAFETENSORS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpuplan/dtype.h"
#include "gpuplan/error.h"
#include "gpuplan/model.h"

/* tensor.rs MAX_HEADER_SIZE. */
#define GPUPLAN_SAFETENSORS_MAX_HEADER_BYTES 100000000ULL
/* Bytes before the JSON header: the u64 length. */
#define GPUPLAN_SAFETENSORS_PREFIX_BYTES 8U
/* Highest tensor rank accepted; ranks above GPUPLAN_MAX_DIMS are folded for the inventory. */
#define GPUPLAN_SAFETENSORS_MAX_DIMS 8U
/* Longest shard file name an index may name. */
#define GPUPLAN_SAFETENSORS_MAX_SHARD_NAME 255U

struct gpuplan_st_tensor {
    const char *name; /* borrowed from the header's strings, NUL-terminated */
    size_t name_len;  /* bytes, excluding the NUL */
    enum gpuplan_dtype dtype;
    uint32_t n_dims; /* 0 (scalar) .. GPUPLAN_SAFETENSORS_MAX_DIMS */
    uint64_t shape[GPUPLAN_SAFETENSORS_MAX_DIMS];
    uint64_t n_elems;     /* product of shape (1 for a scalar) */
    uint64_t begin_bytes; /* data_offsets[0], relative to the data section */
    uint64_t end_bytes;   /* data_offsets[1], one past the end */
};

/* A top-level key of the header (tensor name or "__metadata__"), for lookup by name. */
struct gpuplan_st_name {
    uint64_t hash;    /* of the decoded name (safetensors.c name_hash) */
    const char *name; /* borrowed from the header's strings, NUL-terminated */
    uint32_t len;     /* bytes, excluding the NUL */
    uint32_t offset;  /* byte offset of the key in the header JSON */
};

struct gpuplan_st_header {
    char *strings;                 /* owned: decoded names and metadata, NUL-terminated */
    struct gpuplan_st_name *names; /* owned: every top-level key, sorted by hash */
    size_t n_names;
    uint64_t header_bytes;             /* N, e.g. 128 */
    uint64_t data_bytes;               /* last END: size of the data section */
    struct gpuplan_st_tensor *tensors; /* owned; sorted by data offset */
    size_t n_tensors;
    size_t n_metadata;           /* __metadata__ entries */
    const char *metadata_format; /* borrowed __metadata__.format ("pt"), or NULL */
};

void gpuplan_st_header_init(struct gpuplan_st_header *header);
void gpuplan_st_header_release(struct gpuplan_st_header *header);

/*
 * Read N from the first 8 bytes and check it against the 100 MB cap and the
 * file size (`file_bytes`, 0 when unknown). On success *out_total_bytes is
 * 8 + N, the bytes a caller must read to parse the header.
 */
enum gpuplan_status gpuplan_st_header_size(const uint8_t *data,
                                           size_t len,
                                           uint64_t file_bytes,
                                           const char *where,
                                           uint64_t *out_total_bytes,
                                           struct gpuplan_error *err);

/*
 * Parse and validate a header from the file's leading `len` bytes (at least
 * 8 + N). `file_bytes` is the whole file's size, or 0 when unknown (then
 * the final-offset check is skipped). `where` names the file in errors.
 * On failure `out` holds nothing to release beyond what _release frees.
 */
enum gpuplan_status gpuplan_st_header_parse(const uint8_t *data,
                                            size_t len,
                                            uint64_t file_bytes,
                                            const char *where,
                                            struct gpuplan_st_header *out,
                                            struct gpuplan_error *err);

/* True when the header has a top-level key `name` of `len` bytes (O(log n)). */
bool gpuplan_st_header_has_name(const struct gpuplan_st_header *header,
                                const char *name,
                                size_t len);

/*
 * Append the header's tensors to `model` as groups (role, layer and stack
 * from the tensor name; PyTorch shape; exact dtype). Routed-expert tensors
 * of equal shape, dtype, role and layer become one group with n_tensors =
 * the number of experts. A bitsandbytes 4-bit weight (U8 data with a
 * ".quant_state.bitsandbytes__nf4"/"__fp4" sibling) counts 2 weights per
 * stored byte, as dtype F4, so its parameters and stored bytes are both right.
 * Does not finalize.
 */
enum gpuplan_status gpuplan_st_header_append(const struct gpuplan_st_header *header,
                                             struct gpuplan_model *model,
                                             struct gpuplan_error *err);

struct gpuplan_st_index {
    json_t *root;              /* owned */
    json_t *weight_map;        /* borrowed from root */
    uint64_t total_size_bytes; /* metadata.total_size, 0 when absent */
    bool has_total_size;
    size_t n_tensors;    /* entries in weight_map, e.g. 254 */
    const char **shards; /* owned array of borrowed names, first-appearance order */
    size_t n_shards;
};

void gpuplan_st_index_init(struct gpuplan_st_index *index);
void gpuplan_st_index_release(struct gpuplan_st_index *index);

/*
 * Parse a model.safetensors.index.json held in memory. Shard names must be
 * plain file names (no '/', not "." or "..", at most 255 bytes), as they are
 * opened beside the index.
 */
enum gpuplan_status gpuplan_st_index_parse(const uint8_t *data,
                                           size_t len,
                                           const char *where,
                                           struct gpuplan_st_index *out,
                                           struct gpuplan_error *err);

/* The shard file that holds tensor `name`, or NULL; borrowed from the index. */
const char *gpuplan_st_index_shard_of(const struct gpuplan_st_index *index, const char *name);

#endif
