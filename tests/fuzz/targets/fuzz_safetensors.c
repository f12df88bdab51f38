/*
 * fuzz_safetensors.c - libFuzzer target: a safetensors file's bytes through
 * the header parser and the inventory builder, with the file size taken
 * as the input size.
 */
#include <stddef.h>
#include <stdint.h>

#include "formats/safetensors_internal.h"
#include "gpuplan/model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    struct gpuplan_model model;
    gpuplan_model_init(&model);
    (void)gpuplan_model_from_safetensors(&model, data, size, size, "fuzz", &err);
    gpuplan_model_release(&model);
    /* Unknown file size: the final-offset check is skipped. */
    struct gpuplan_st_header header;
    (void)gpuplan_st_header_parse(data, size, 0, "fuzz", &header, &err);
    gpuplan_st_header_release(&header);
    return 0;
}
