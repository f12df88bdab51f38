/*
 * fuzz_config.c - libFuzzer target: arbitrary bytes as one or two config
 * files of any kind (detection from the content, then a merge). The input is
 * split at the first form feed (0x0C): the part before is read first, the
 * part after merged into the same record, as a caller merges a TRL file and
 * its adapter_config.json. Must never crash, leak or overflow; the
 * invariants are in fuzz_config_check.h.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "fuzz_config_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *split = memchr(data, '\f', size);
    const size_t first = split ? (size_t)(split - data) : size;
    struct gpuplan_config cfg;
    gpuplan_config_init(&cfg);
    enum gpuplan_config_kind kind = GPUPLAN_CONFIG_AUTO;
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    (void)gpuplan_config_detect(data, first, "config", &kind, &err);
    if ((unsigned)kind >= GPUPLAN_CONFIG_KIND_COUNT)
        __builtin_trap();
    if (fuzz_config_read(&cfg, data, first, "first.yaml", GPUPLAN_CONFIG_AUTO) == GPUPLAN_OK &&
        split)
        (void)fuzz_config_read(&cfg, split + 1, size - first - 1, "second.json",
                               GPUPLAN_CONFIG_AUTO);
    gpuplan_config_release(&cfg);
    return 0;
}
