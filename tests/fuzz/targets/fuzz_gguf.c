/*
 * fuzz_gguf.c - libFuzzer target: a GGUF file's bytes through the header
 * parser and the inventory builder, both as a whole file and as a prefix
 * of a file twice as long (the partial-read path).
 */
#include <stddef.h>
#include <stdint.h>

#include "formats/gguf_internal.h"
#include "gpuplan/model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    struct gpuplan_model model;
    gpuplan_model_init(&model);
    (void)gpuplan_model_from_gguf(&model, data, size, size, "fuzz", &err);
    gpuplan_model_release(&model);
    struct gpuplan_gguf gguf;
    (void)gpuplan_gguf_parse(data, size, (uint64_t)size * 2, "fuzz", &gguf, &err);
    gpuplan_gguf_release(&gguf);
    return 0;
}
