/*
 * fuzz_request.c - libFuzzer target: an HTTP request body to a job
 * (gpuplan_job_from_json), then the JSON error document for any failure.
 * Must never crash, leak or read out of bounds; on success the model id is
 * NUL-terminated within its buffer, on failure the rendered error is valid.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "gpuplan/gpuplan.h"
#include "gpuplan/job.h"
#include "gpuplan/request.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
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
    if (err.code != st || !err.message[0])
        __builtin_trap();
    struct gpuplan_buf buf;
    gpuplan_buf_init(&buf, 0);
    gpuplan_render_error_json(&err, &buf);
    if (buf.failed || buf.len < 2 || gpuplan_buf_str(&buf)[buf.len - 1] != '\n')
        __builtin_trap();
    gpuplan_buf_release(&buf);
    return 0;
}
