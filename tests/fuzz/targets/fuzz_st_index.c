/*
 * fuzz_st_index.c - libFuzzer target: model.safetensors.index.json bytes
 * through the index parser and its shard lookup.
 */
#include <stddef.h>
#include <stdint.h>

#include "formats/safetensors_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    struct gpuplan_st_index index;
    if (gpuplan_st_index_parse(data, size, "fuzz", &index, &err) == GPUPLAN_OK) {
        (void)gpuplan_st_index_shard_of(&index, "model.embed_tokens.weight");
        gpuplan_st_index_release(&index);
    }
    return 0;
}
