/*
 * fuzz_request.c - libFuzzer target: HTTP request bodies of the three POST
 * endpoints. A first byte 0x01 makes the rest a /v1/tco body
 * (gpuplan_tco_request_from_json, then the catalog lookups, arithmetic and
 * JSON renderer of POST /v1/tco), 0x02 a /v1/recommend body
 * (gpuplan_plan_request_from_json; the search itself is too slow to fuzz
 * per input); anything else is a whole /v1/estimate body
 * (gpuplan_job_from_json), so JSON seeds need no prefix. Any failure is
 * rendered as the JSON error document. Must never crash, leak or read out
 * of bounds; on success the model id is NUL-terminated within its buffer,
 * on failure the error is filled and its rendering valid.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/cost.h"
#include "gpuplan/gpuplan.h"
#include "gpuplan/job.h"
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
    if (buf.failed || buf.len < 2 || gpuplan_buf_str(&buf)[buf.len - 1] != '\n')
        __builtin_trap();
    gpuplan_buf_release(&buf);
}

/* The embedded catalog, loaded once as the server does. */
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

static void fuzz_tco(const char *body, size_t len)
{
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    struct gpuplan_tco_request req;
    enum gpuplan_status st = gpuplan_tco_request_from_json(&req, body, len, &err);
    if (st != GPUPLAN_OK) {
        check_error(st, &err);
        return;
    }
    if (!memchr(req.gpu_id, '\0', sizeof req.gpu_id) || !req.gpu_id[0] ||
        !memchr(req.platform_id, '\0', sizeof req.platform_id) || req.n_gpus == 0)
        __builtin_trap();
    struct gpuplan_tco *tco = malloc(sizeof *tco);
    if (!tco)
        return;
    struct gpuplan_cost_inputs in;
    st = gpuplan_tco_request_run(shared_catalog(), &req, &in, tco, &err);
    struct gpuplan_buf out;
    gpuplan_buf_init(&out, 0);
    if (st == GPUPLAN_OK)
        st = gpuplan_render_tco(&in, tco, GPUPLAN_FORMAT_JSON, &out, &err);
    if (st != GPUPLAN_OK)
        check_error(st, &err);
    gpuplan_buf_release(&out);
    free(tco);
}

static void fuzz_plan(const char *body, size_t len)
{
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    struct gpuplan_plan_request req;
    gpuplan_plan_request_init(&req);
    char model[GPUPLAN_REQUEST_MODEL_MAX];
    memset(model, 'x', sizeof model);
    model[0] = '\0';
    const enum gpuplan_status st =
        gpuplan_plan_request_from_json(&req, body, len, model, sizeof model, &err);
    if (st != GPUPLAN_OK) {
        check_error(st, &err);
        return;
    }
    if (!memchr(model, '\0', sizeof model) || req.n_gpu_ids > GPUPLAN_PLAN_MAX_GPU_IDS)
        __builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 0 && data[0] == 0x01) {
        fuzz_tco((const char *)data + 1, size - 1);
        return 0;
    }
    if (size > 0 && data[0] == 0x02) {
        fuzz_plan((const char *)data + 1, size - 1);
        return 0;
    }
    struct gpuplan_job job;
    struct gpuplan_error err;
    char model[GPUPLAN_REQUEST_MODEL_MAX];
    memset(model, 'x', sizeof model);
    model[0] = '\0';
    gpuplan_job_init(&job);
    gpuplan_error_init(&err);
    const enum gpuplan_status st =
        gpuplan_job_from_json(&job, (const char *)data, size, model, sizeof model, &err);
    if (st == GPUPLAN_OK) {
        if (!memchr(model, '\0', sizeof model))
            __builtin_trap();
        return 0;
    }
    check_error(st, &err);
    return 0;
}
