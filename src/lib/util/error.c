/*
 * error.c - the caller-owned error record and status tables.
 *
 * Messages and hints are formatted through the catalog (GPUPLAN_TR): English
 * unless the front-end chose a language (i18n_internal.h).
 */
#include "gpuplan/error.h"

#include "util/i18n_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void gpuplan_error_init(struct gpuplan_error *err)
{
    if (err)
        memset(err, 0, sizeof *err);
}

enum gpuplan_status gpuplan_error_set(struct gpuplan_error *err,
                                      enum gpuplan_status code,
                                      const char *where,
                                      const char *fmt,
                                      ...)
{
    if (!err)
        return code;
    err->code = code;
    err->hint[0] = '\0';
    (void)snprintf(err->where, sizeof err->where, "%s", where ? where : "");
    va_list ap;
    va_start(ap, fmt);
    (void)vsnprintf(err->message, sizeof err->message, GPUPLAN_TR(fmt), ap);
    va_end(ap);
    return code;
}

void gpuplan_error_hint(struct gpuplan_error *err, const char *fmt, ...)
{
    if (!err)
        return;
    va_list ap;
    va_start(ap, fmt);
    (void)vsnprintf(err->hint, sizeof err->hint, GPUPLAN_TR(fmt), ap);
    va_end(ap);
}

void gpuplan_error_where_prefix(struct gpuplan_error *err, const char *prefix)
{
    if (!err || !prefix || !*prefix)
        return;
    char old[GPUPLAN_ERROR_WHERE_MAX];
    memcpy(old, err->where, sizeof old);
    if (old[0])
        (void)snprintf(err->where, sizeof err->where, "%s%s", prefix, old);
    else
        (void)snprintf(err->where, sizeof err->where, "%s", prefix);
}

static const struct {
    const char *name;
    int http;
} status_table[GPUPLAN_STATUS_COUNT] = {
    [GPUPLAN_OK] = { "ok", 200 },
    [GPUPLAN_ERR_USAGE] = { "usage", 400 },
    [GPUPLAN_ERR_INVALID_INPUT] = { "invalid_input", 400 },
    [GPUPLAN_ERR_INVALID_CONFIG] = { "invalid_config", 422 },
    [GPUPLAN_ERR_UNSUPPORTED] = { "unsupported", 422 },
    [GPUPLAN_ERR_NOT_FOUND] = { "not_found", 404 },
    [GPUPLAN_ERR_TOO_LARGE] = { "too_large", 413 },
    [GPUPLAN_ERR_IO] = { "io", 500 },
    [GPUPLAN_ERR_NOMEM] = { "out_of_memory", 500 },
    [GPUPLAN_ERR_INTERNAL] = { "internal", 500 },
};

const char *gpuplan_status_name(enum gpuplan_status code)
{
    if ((unsigned)code >= GPUPLAN_STATUS_COUNT)
        return "internal";
    return status_table[code].name;
}

int gpuplan_status_http(enum gpuplan_status code)
{
    if ((unsigned)code >= GPUPLAN_STATUS_COUNT)
        return 500;
    return status_table[code].http;
}
