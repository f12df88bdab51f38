/*
 * fuzz_plan_json.c - libFuzzer target: a plan document as `gpuplan emit`
 * reads it (gpuplan_plan_read_json, recommendation 1, or the index in the
 * first byte when the input starts with 0x01..0x10), then every launch
 * file of the plan read (gpuplan_emit for each kind: checks, refusals and
 * writers under arbitrary plans). Must never crash, leak or read out of
 * bounds; failures must fill the error and render as the JSON error
 * document.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/gpuplan.h"
#include "gpuplan/plan.h"
#include "gpuplan/render.h"
#include "gpuplan/request.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_error(enum gpuplan_status st, const struct gpuplan_error *err)
{
    if (err->code != st || !err->message[0])
        __builtin_trap();
    struct gpuplan_buf buf;
    gpuplan_buf_init(&buf, 0);
    gpuplan_render_error_json(err, &buf);
    if (buf.failed || buf.len < 2)
        __builtin_trap();
    gpuplan_buf_release(&buf);
}

static const struct gpuplan_catalog *shared_catalog(void)
{
    static struct gpuplan_catalog *catalog;
    if (!catalog) {
        struct gpuplan_error err;
        gpuplan_error_init(&err);
        if (gpuplan_catalog_load(&catalog, NULL, &err) != GPUPLAN_OK)
            __builtin_trap();
    }
    return catalog;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint32_t index = 1;
    if (size > 0 && data[0] >= 1 && data[0] <= 16) {
        index = data[0];
        data++;
        size--;
    }
    struct gpuplan_plan *plan = malloc(sizeof *plan);
    if (!plan)
        return 0;
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    const enum gpuplan_status st =
        gpuplan_plan_read_json(data, size, "fuzz.json", index, shared_catalog(), plan, &err);
    if (st != GPUPLAN_OK) {
        check_error(st, &err);
        free(plan);
        return 0;
    }
    for (int e = 0; e < GPUPLAN_ENGINE_COUNT; e++) {
        struct gpuplan_buf buf;
        gpuplan_buf_init(&buf, GPUPLAN_BUF_DEFAULT_MAX_BYTES);
        gpuplan_error_init(&err);
        const enum gpuplan_status es = gpuplan_emit(plan, (enum gpuplan_engine)e, &buf, &err);
        if (es != GPUPLAN_OK)
            check_error(es, &err);
        else if (buf.len == 0 || strlen(gpuplan_buf_str(&buf)) != buf.len)
            __builtin_trap();
        gpuplan_buf_release(&buf);
    }
    free(plan);
    return 0;
}
