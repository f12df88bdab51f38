/*
 * dtype.h - element types of stored tensors and their exact storage cost.
 *
 * One table covers safetensors dtypes, every ggml (GGUF) tensor type and the
 * quantised formats the memory model stores weights in (bitsandbytes NF4 with
 * and without double quantisation, LLM.int8, GPTQ/AWQ 4-bit). A type stores
 * `block_elems` elements in `block_bytes` bytes, so bits per element are
 * 8 * block_bytes / block_elems exactly.
 *
 * Sources: safetensors src/tensor.rs Dtype::bitsize; ggml src/ggml.c
 * type_traits and ggml-common.h block structs (see
 * docs/research/formats-and-engines.md section 2.2); bitsandbytes
 * functional.py for NF4 (block 64, fp32 absmax; double quantisation stores
 * absmax as uint8 in blocks of 256 with one fp32 constant per block:
 * 4 + 8/64 + 32/(64*256) = 4.127 bits).
 */
#ifndef GPUPLAN_DTYPE_H
#define GPUPLAN_DTYPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum gpuplan_dtype {
    GPUPLAN_DTYPE_UNKNOWN = 0,
    /* plain element types (safetensors names) */
    GPUPLAN_DTYPE_F64,
    GPUPLAN_DTYPE_F32,
    GPUPLAN_DTYPE_F16,
    GPUPLAN_DTYPE_BF16,
    GPUPLAN_DTYPE_F8_E4M3,
    GPUPLAN_DTYPE_F8_E5M2,
    GPUPLAN_DTYPE_F8_E8M0,
    GPUPLAN_DTYPE_F8_E4M3FNUZ,
    GPUPLAN_DTYPE_F8_E5M2FNUZ,
    GPUPLAN_DTYPE_F6_E2M3,
    GPUPLAN_DTYPE_F6_E3M2,
    GPUPLAN_DTYPE_F4,
    GPUPLAN_DTYPE_C64,
    GPUPLAN_DTYPE_I64,
    GPUPLAN_DTYPE_I32,
    GPUPLAN_DTYPE_I16,
    GPUPLAN_DTYPE_I8,
    GPUPLAN_DTYPE_U64,
    GPUPLAN_DTYPE_U32,
    GPUPLAN_DTYPE_U16,
    GPUPLAN_DTYPE_U8,
    GPUPLAN_DTYPE_BOOL,
    /* ggml block-quantised types (GGUF) */
    GPUPLAN_DTYPE_Q4_0,
    GPUPLAN_DTYPE_Q4_1,
    GPUPLAN_DTYPE_Q5_0,
    GPUPLAN_DTYPE_Q5_1,
    GPUPLAN_DTYPE_Q8_0,
    GPUPLAN_DTYPE_Q8_1,
    GPUPLAN_DTYPE_Q2_K,
    GPUPLAN_DTYPE_Q3_K,
    GPUPLAN_DTYPE_Q4_K,
    GPUPLAN_DTYPE_Q5_K,
    GPUPLAN_DTYPE_Q6_K,
    GPUPLAN_DTYPE_Q8_K,
    GPUPLAN_DTYPE_IQ2_XXS,
    GPUPLAN_DTYPE_IQ2_XS,
    GPUPLAN_DTYPE_IQ3_XXS,
    GPUPLAN_DTYPE_IQ1_S,
    GPUPLAN_DTYPE_IQ4_NL,
    GPUPLAN_DTYPE_IQ3_S,
    GPUPLAN_DTYPE_IQ2_S,
    GPUPLAN_DTYPE_IQ4_XS,
    GPUPLAN_DTYPE_IQ1_M,
    GPUPLAN_DTYPE_TQ1_0,
    GPUPLAN_DTYPE_TQ2_0,
    GPUPLAN_DTYPE_MXFP4,
    GPUPLAN_DTYPE_NVFP4,
    GPUPLAN_DTYPE_Q1_0,
    GPUPLAN_DTYPE_Q2_0,
    /* in-memory formats used by training and serving stacks */
    GPUPLAN_DTYPE_NF4,         /* bitsandbytes NF4, block 64, fp32 absmax: 4.5 bits */
    GPUPLAN_DTYPE_NF4_DQ,      /* NF4 + double quantisation: 4.127 bits */
    GPUPLAN_DTYPE_NF4_TORCHAO, /* torchao NF4Tensor (torchtune QLoRA): 4.127 bits, scalers
                                  sharded with the codes */
    GPUPLAN_DTYPE_INT8,        /* LLM.int8 / weight-only int8: 8 bits (+ per-row scale ignored) */
    GPUPLAN_DTYPE_GPTQ4,       /* 4-bit, group 128, fp16 scale + 4-bit zero: 4.156 bits */
    GPUPLAN_DTYPE_AWQ4,        /* 4-bit, group 128, fp16 scale + 4-bit zero: 4.156 bits */
    GPUPLAN_DTYPE_COUNT
};

struct gpuplan_dtype_info {
    const char *name;     /* canonical name, e.g. "BF16", "Q4_K", "NF4_DQ" */
    uint32_t block_elems; /* elements per storage block, e.g. 256 for Q4_K */
    uint32_t block_bytes; /* bytes per block, e.g. 144 for Q4_K */
    int32_t ggml_type;    /* ggml type id, or -1 when not a ggml type */
    bool is_quantized;    /* block-quantised (bits per element not a whole byte type) */
};

/* Information for `dtype`; never NULL (UNKNOWN has a zero-size entry). */
const struct gpuplan_dtype_info *gpuplan_dtype_get(enum gpuplan_dtype dtype);
const char *gpuplan_dtype_name(enum gpuplan_dtype dtype);
/* Bits per element, e.g. 16.0 for BF16, 4.5 for Q4_0; 0 for UNKNOWN. */
double gpuplan_dtype_bits(enum gpuplan_dtype dtype);

/* Lookups; return GPUPLAN_DTYPE_UNKNOWN when nothing matches. */
enum gpuplan_dtype gpuplan_dtype_from_safetensors(const char *name, size_t name_len);
enum gpuplan_dtype gpuplan_dtype_from_ggml(uint32_t ggml_type);
/* Case-insensitive canonical name or alias ("bf16", "bfloat16", "float16", "q4_k_m" is NOT a
 * dtype). */
enum gpuplan_dtype gpuplan_dtype_from_name(const char *name);

/*
 * Bytes taken by `n_elems` elements: n_elems / block_elems * block_bytes.
 * Returns false on overflow, on UNKNOWN, or when `n_elems` is not a whole
 * number of blocks and `exact` is true (ggml requires whole blocks). With
 * `exact` false a partial block is rounded up (used for in-memory formats).
 */
bool gpuplan_dtype_bytes(enum gpuplan_dtype dtype,
                         uint64_t n_elems,
                         bool exact,
                         uint64_t *out_bytes);

#endif
