/*
 * fuzz_config_torchtune.c - libFuzzer target: arbitrary bytes as a config file
 * read as kind GPUPLAN_CONFIG_TORCHTUNE (gpuplan_config_read). Must never crash,
 * leak or overflow; the invariants are in fuzz_config_check.h.
 */
#include <stddef.h>
#include <stdint.h>

#include "fuzz_config_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct gpuplan_config cfg;
    gpuplan_config_init(&cfg);
    (void)fuzz_config_read(&cfg, data, size, "8B_lora.yaml", GPUPLAN_CONFIG_TORCHTUNE);
    gpuplan_config_release(&cfg);
    return 0;
}
