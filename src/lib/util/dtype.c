/*
 * dtype.c - the storage table for every tensor element type (see dtype.h
 * for sources). Block sizes of ggml types match ggml.c type_traits;
 * removed ggml ids (4, 5, 31-33, 36-38) map to UNKNOWN.
 */
#include "gpuplan/dtype.h"

#include <string.h>
#include <strings.h>

#include "gpuplan/units.h"

static const struct gpuplan_dtype_info dtype_table[GPUPLAN_DTYPE_COUNT] = {
    [GPUPLAN_DTYPE_UNKNOWN] = { "UNKNOWN", 0, 0, -1, false },
    [GPUPLAN_DTYPE_F64] = { "F64", 1, 8, 28, false },
    [GPUPLAN_DTYPE_F32] = { "F32", 1, 4, 0, false },
    [GPUPLAN_DTYPE_F16] = { "F16", 1, 2, 1, false },
    [GPUPLAN_DTYPE_BF16] = { "BF16", 1, 2, 30, false },
    [GPUPLAN_DTYPE_F8_E4M3] = { "F8_E4M3", 1, 1, -1, false },
    [GPUPLAN_DTYPE_F8_E5M2] = { "F8_E5M2", 1, 1, -1, false },
    [GPUPLAN_DTYPE_F8_E8M0] = { "F8_E8M0", 1, 1, -1, false },
    [GPUPLAN_DTYPE_F8_E4M3FNUZ] = { "F8_E4M3FNUZ", 1, 1, -1, false },
    [GPUPLAN_DTYPE_F8_E5M2FNUZ] = { "F8_E5M2FNUZ", 1, 1, -1, false },
    [GPUPLAN_DTYPE_F6_E2M3] = { "F6_E2M3", 4, 3, -1, false },
    [GPUPLAN_DTYPE_F6_E3M2] = { "F6_E3M2", 4, 3, -1, false },
    [GPUPLAN_DTYPE_F4] = { "F4", 2, 1, -1, false },
    [GPUPLAN_DTYPE_C64] = { "C64", 1, 8, -1, false },
    [GPUPLAN_DTYPE_I64] = { "I64", 1, 8, 27, false },
    [GPUPLAN_DTYPE_I32] = { "I32", 1, 4, 26, false },
    [GPUPLAN_DTYPE_I16] = { "I16", 1, 2, 25, false },
    [GPUPLAN_DTYPE_I8] = { "I8", 1, 1, 24, false },
    [GPUPLAN_DTYPE_U64] = { "U64", 1, 8, -1, false },
    [GPUPLAN_DTYPE_U32] = { "U32", 1, 4, -1, false },
    [GPUPLAN_DTYPE_U16] = { "U16", 1, 2, -1, false },
    [GPUPLAN_DTYPE_U8] = { "U8", 1, 1, -1, false },
    [GPUPLAN_DTYPE_BOOL] = { "BOOL", 1, 1, -1, false },
    [GPUPLAN_DTYPE_Q4_0] = { "Q4_0", 32, 18, 2, true },
    [GPUPLAN_DTYPE_Q4_1] = { "Q4_1", 32, 20, 3, true },
    [GPUPLAN_DTYPE_Q5_0] = { "Q5_0", 32, 22, 6, true },
    [GPUPLAN_DTYPE_Q5_1] = { "Q5_1", 32, 24, 7, true },
    [GPUPLAN_DTYPE_Q8_0] = { "Q8_0", 32, 34, 8, true },
    [GPUPLAN_DTYPE_Q8_1] = { "Q8_1", 32, 36, 9, true },
    [GPUPLAN_DTYPE_Q2_K] = { "Q2_K", 256, 84, 10, true },
    [GPUPLAN_DTYPE_Q3_K] = { "Q3_K", 256, 110, 11, true },
    [GPUPLAN_DTYPE_Q4_K] = { "Q4_K", 256, 144, 12, true },
    [GPUPLAN_DTYPE_Q5_K] = { "Q5_K", 256, 176, 13, true },
    [GPUPLAN_DTYPE_Q6_K] = { "Q6_K", 256, 210, 14, true },
    [GPUPLAN_DTYPE_Q8_K] = { "Q8_K", 256, 292, 15, true },
    [GPUPLAN_DTYPE_IQ2_XXS] = { "IQ2_XXS", 256, 66, 16, true },
    [GPUPLAN_DTYPE_IQ2_XS] = { "IQ2_XS", 256, 74, 17, true },
    [GPUPLAN_DTYPE_IQ3_XXS] = { "IQ3_XXS", 256, 98, 18, true },
    [GPUPLAN_DTYPE_IQ1_S] = { "IQ1_S", 256, 50, 19, true },
    [GPUPLAN_DTYPE_IQ4_NL] = { "IQ4_NL", 32, 18, 20, true },
    [GPUPLAN_DTYPE_IQ3_S] = { "IQ3_S", 256, 110, 21, true },
    [GPUPLAN_DTYPE_IQ2_S] = { "IQ2_S", 256, 82, 22, true },
    [GPUPLAN_DTYPE_IQ4_XS] = { "IQ4_XS", 256, 136, 23, true },
    [GPUPLAN_DTYPE_IQ1_M] = { "IQ1_M", 256, 56, 29, true },
    [GPUPLAN_DTYPE_TQ1_0] = { "TQ1_0", 256, 54, 34, true },
    [GPUPLAN_DTYPE_TQ2_0] = { "TQ2_0", 256, 66, 35, true },
    [GPUPLAN_DTYPE_MXFP4] = { "MXFP4", 32, 17, 39, true },
    [GPUPLAN_DTYPE_NVFP4] = { "NVFP4", 64, 36, 40, true },
    [GPUPLAN_DTYPE_Q1_0] = { "Q1_0", 128, 18, 41, true },
    [GPUPLAN_DTYPE_Q2_0] = { "Q2_0", 64, 18, 42, true },
    /* NF4, block 64: 32 bytes of codes + one fp32 absmax = 36 bytes (4.5 bits). */
    [GPUPLAN_DTYPE_NF4] = { "NF4", 64, 36, -1, true },
    /*
     * NF4 with double quantisation, per 64*256 = 16384 elements: 8192 bytes of
     * codes + 256 uint8 absmax codes + one fp32 second-level absmax = 8452 bytes
     * (4.1270 bits).
     */
    [GPUPLAN_DTYPE_NF4_DQ] = { "NF4_DQ", 16384, 8452, -1, true },
    /*
     * torchao's NF4Tensor (torchtune QLoRA): block 64, int8 quantised
     * scalers, one fp32 factor per 256 scalers: the same 8452 bytes per
     * 16384 elements as bitsandbytes NF4 + DQ. It differs in where the
     * scalers live (inside the tensor, so FSDP shards them; see
     * quant_meta_bytes in memory_model.c).
     */
    [GPUPLAN_DTYPE_NF4_TORCHAO] = { "NF4_TORCHAO", 16384, 8452, -1, true },
    [GPUPLAN_DTYPE_INT8] = { "INT8", 1, 1, -1, true },
    /* GPTQ/AWQ 4-bit, group 128: 64 bytes + fp16 scale + 4-bit zero = 66.5 per 128. */
    [GPUPLAN_DTYPE_GPTQ4] = { "GPTQ4", 256, 133, -1, true },
    [GPUPLAN_DTYPE_AWQ4] = { "AWQ4", 256, 133, -1, true },
};

const struct gpuplan_dtype_info *gpuplan_dtype_get(enum gpuplan_dtype dtype)
{
    if ((unsigned)dtype >= GPUPLAN_DTYPE_COUNT)
        dtype = GPUPLAN_DTYPE_UNKNOWN;
    return &dtype_table[dtype];
}

const char *gpuplan_dtype_name(enum gpuplan_dtype dtype)
{
    return gpuplan_dtype_get(dtype)->name;
}

double gpuplan_dtype_bits(enum gpuplan_dtype dtype)
{
    const struct gpuplan_dtype_info *info = gpuplan_dtype_get(dtype);
    if (!info->block_elems)
        return 0.0;
    return (double)(info->block_bytes * GPUPLAN_BITS_PER_BYTE) / (double)info->block_elems;
}

enum gpuplan_dtype gpuplan_dtype_from_safetensors(const char *name, size_t name_len)
{
    /* Only the plain element types are safetensors dtypes. */
    for (int d = GPUPLAN_DTYPE_F64; d <= GPUPLAN_DTYPE_BOOL; d++) {
        const char *n = dtype_table[d].name;
        if (strlen(n) == name_len && memcmp(n, name, name_len) == 0)
            return (enum gpuplan_dtype)d;
    }
    return GPUPLAN_DTYPE_UNKNOWN;
}

enum gpuplan_dtype gpuplan_dtype_from_ggml(uint32_t ggml_type)
{
    for (int d = 1; d < GPUPLAN_DTYPE_COUNT; d++) {
        if (dtype_table[d].ggml_type >= 0 && (uint32_t)dtype_table[d].ggml_type == ggml_type)
            return (enum gpuplan_dtype)d;
    }
    return GPUPLAN_DTYPE_UNKNOWN;
}

enum gpuplan_dtype gpuplan_dtype_from_name(const char *name)
{
    static const struct {
        const char *alias;
        enum gpuplan_dtype dtype;
    } aliases[] = {
        { "float32", GPUPLAN_DTYPE_F32 },
        { "fp32", GPUPLAN_DTYPE_F32 },
        { "float16", GPUPLAN_DTYPE_F16 },
        { "fp16", GPUPLAN_DTYPE_F16 },
        { "half", GPUPLAN_DTYPE_F16 },
        { "bfloat16", GPUPLAN_DTYPE_BF16 },
        { "float64", GPUPLAN_DTYPE_F64 },
        { "fp8", GPUPLAN_DTYPE_F8_E4M3 },
        { "float8_e4m3fn", GPUPLAN_DTYPE_F8_E4M3 },
        { "float8_e5m2", GPUPLAN_DTYPE_F8_E5M2 },
        { "int8", GPUPLAN_DTYPE_INT8 },
        { "nf4-dq", GPUPLAN_DTYPE_NF4_DQ },
        { "torchao-nf4", GPUPLAN_DTYPE_NF4_TORCHAO },
        { "gptq", GPUPLAN_DTYPE_GPTQ4 },
        { "awq", GPUPLAN_DTYPE_AWQ4 },
    };
    if (!name)
        return GPUPLAN_DTYPE_UNKNOWN;
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++) {
        if (strcasecmp(name, aliases[i].alias) == 0)
            return aliases[i].dtype;
    }
    for (int d = 1; d < GPUPLAN_DTYPE_COUNT; d++) {
        if (strcasecmp(name, dtype_table[d].name) == 0)
            return (enum gpuplan_dtype)d;
    }
    return GPUPLAN_DTYPE_UNKNOWN;
}

bool gpuplan_dtype_bytes(enum gpuplan_dtype dtype,
                         uint64_t n_elems,
                         bool exact,
                         uint64_t *out_bytes)
{
    const struct gpuplan_dtype_info *info = gpuplan_dtype_get(dtype);
    if (!info->block_elems)
        return false;
    uint64_t n_blocks = n_elems / info->block_elems;
    if (n_elems % info->block_elems) {
        if (exact)
            return false;
        n_blocks++;
    }
    return gpuplan_mul_u64(n_blocks, info->block_bytes, out_bytes);
}
