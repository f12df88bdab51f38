/*
 * fuzz_hf_config.c - libFuzzer target: arbitrary bytes as a config.json
 * (gpuplan_model_from_hf_config). Must never crash, leak or overflow; on
 * success the totals must be consistent (active <= total, groups well-formed),
 * on failure the error record must be filled and the inventory empty.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "gpuplan/model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct gpuplan_model model;
    struct gpuplan_error err;
    gpuplan_model_init(&model);
    gpuplan_error_init(&err);
    const enum gpuplan_status st =
        gpuplan_model_from_hf_config(&model, data, size, "config.json", &err);
    if (st == GPUPLAN_OK) {
        uint64_t sum = 0;
        for (size_t i = 0; i < model.n_groups; i++) {
            const struct gpuplan_tensor_group *g = &model.groups[i];
            if (g->n_dims < 1 || g->n_dims > GPUPLAN_MAX_DIMS || g->n_tensors < 1 ||
                g->n_params == 0)
                __builtin_trap();
            sum += g->n_params;
        }
        if (!model.has_arch || sum != model.n_params_total ||
            model.n_params_active > model.n_params_total || model.arch.n_layers == 0)
            __builtin_trap();
    } else {
        if (err.code != st || !err.message[0] || !err.where[0] || model.n_groups != 0)
            __builtin_trap();
        if (!memchr(err.message, '\0', sizeof err.message) ||
            !memchr(err.hint, '\0', sizeof err.hint))
            __builtin_trap();
    }
    gpuplan_model_release(&model);
    return 0;
}
