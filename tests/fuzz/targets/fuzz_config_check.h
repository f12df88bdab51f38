/*
 * fuzz_config_check.h - the invariants every config fuzz target checks
 * (included by tests/fuzz/targets/fuzz_config*.c only).
 *
 * Success: the job is within the option table's ranges, the kind and stack
 * are valid, every note is NUL-terminated, at most GPUPLAN_CONFIG_MAX_NOTES
 * are kept. Failure: the error record is filled (code, message, where) and
 * the record is as it was before the failed read.
 */
#ifndef GPUPLAN_FUZZ_CONFIG_CHECK_H
#define GPUPLAN_FUZZ_CONFIG_CHECK_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "gpuplan/config.h"

static void check_strings(const struct gpuplan_config *cfg)
{
    if (!memchr(cfg->model_id, '\0', sizeof cfg->model_id) ||
        !memchr(cfg->referenced_path, '\0', sizeof cfg->referenced_path) ||
        !memchr(cfg->model_builder, '\0', sizeof cfg->model_builder))
        __builtin_trap();
    if (cfg->n_notes > GPUPLAN_CONFIG_MAX_NOTES)
        __builtin_trap();
    for (size_t i = 0; i < cfg->n_notes; i++) {
        const struct gpuplan_config_note *n = &cfg->notes[i];
        if ((unsigned)n->kind >= GPUPLAN_CONFIG_NOTE_KIND_COUNT ||
            !memchr(n->key, '\0', sizeof n->key) || !memchr(n->where, '\0', sizeof n->where) ||
            !memchr(n->setting, '\0', sizeof n->setting) ||
            !memchr(n->value, '\0', sizeof n->value) || !memchr(n->detail, '\0', sizeof n->detail))
            __builtin_trap();
    }
}

static void check_job(const struct gpuplan_config *cfg)
{
    const struct gpuplan_job *j = &cfg->job;
    if ((unsigned)cfg->kind >= GPUPLAN_CONFIG_KIND_COUNT ||
        (unsigned)cfg->stack >= GPUPLAN_STACK_COUNT || cfg->n_files == 0)
        __builtin_trap();
    if (j->seq_len < 1 || j->micro_batch < 1 || j->grad_accum < 1 || j->lora_rank < 1 ||
        j->tp < 1 || j->pp < 1 || (unsigned)j->method >= GPUPLAN_METHOD_COUNT ||
        (unsigned)j->precision >= GPUPLAN_PRECISION_COUNT ||
        (unsigned)j->sharding >= GPUPLAN_SHARDING_COUNT ||
        (unsigned)j->offload >= GPUPLAN_OFFLOAD_COUNT || !(j->lora_dropout >= 0.0) ||
        !(j->lora_dropout < 1.0) || !(j->epochs >= 0.0))
        __builtin_trap();
    check_strings(cfg);
}

/* Read `data` into `cfg` and check the outcome; returns the status. */
static enum gpuplan_status fuzz_config_read(struct gpuplan_config *cfg,
                                            const uint8_t *data,
                                            size_t size,
                                            const char *name,
                                            enum gpuplan_config_kind kind)
{
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    const size_t notes_before = cfg->n_notes, files_before = cfg->n_files;
    const enum gpuplan_status st = gpuplan_config_read(cfg, data, size, name, kind, &err);
    if (st == GPUPLAN_OK) {
        check_job(cfg);
    } else {
        if (err.code != st || !err.message[0] || !err.where[0] ||
            !memchr(err.message, '\0', sizeof err.message) ||
            !memchr(err.hint, '\0', sizeof err.hint) || cfg->n_notes != notes_before ||
            cfg->n_files != files_before)
            __builtin_trap();
        check_strings(cfg);
    }
    return st;
}

#endif
