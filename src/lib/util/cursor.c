/*
 * cursor.c - bounded little-endian reads (see cursor.h).
 */
#include "util/cursor_internal.h"

#include <stdarg.h>
#include <stdio.h>

#include "util/i18n_internal.h"

void gpuplan_cursor_init(struct gpuplan_cursor *c,
                         const uint8_t *data,
                         size_t len,
                         const char *where)
{
    c->data = data;
    c->len = data ? len : 0;
    c->pos = 0;
    c->where = where;
}

size_t gpuplan_cursor_remaining(const struct gpuplan_cursor *c)
{
    return c->len - c->pos;
}

enum gpuplan_status gpuplan_cursor_fail(const struct gpuplan_cursor *c,
                                        size_t at,
                                        enum gpuplan_status code,
                                        struct gpuplan_error *err,
                                        const char *fmt,
                                        ...)
{
    if (!err)
        return code;
    char loc[GPUPLAN_ERROR_WHERE_MAX];
    (void)snprintf(loc, sizeof loc, "%s@%zu", c->where ? c->where : "<input>", at);
    gpuplan_error_set(err, code, loc, "%s", "");
    va_list ap;
    va_start(ap, fmt);
    (void)vsnprintf(err->message, sizeof err->message, GPUPLAN_TR(fmt), ap);
    va_end(ap);
    return code;
}

static enum gpuplan_status need(struct gpuplan_cursor *c, uint64_t n, struct gpuplan_error *err)
{
    if (n > gpuplan_cursor_remaining(c))
        return gpuplan_cursor_fail(c, c->pos, GPUPLAN_ERR_INVALID_INPUT, err,
                                   "truncated: need %llu bytes at offset %zu, %zu remain",
                                   (unsigned long long)n, c->pos, gpuplan_cursor_remaining(c));
    return GPUPLAN_OK;
}

static uint64_t read_le(const uint8_t *p, unsigned n)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

enum gpuplan_status
gpuplan_cursor_u8(struct gpuplan_cursor *c, uint8_t *out, struct gpuplan_error *err)
{
    if (need(c, 1, err))
        return GPUPLAN_ERR_INVALID_INPUT;
    *out = c->data[c->pos++];
    return GPUPLAN_OK;
}

enum gpuplan_status
gpuplan_cursor_u16(struct gpuplan_cursor *c, uint16_t *out, struct gpuplan_error *err)
{
    if (need(c, 2, err))
        return GPUPLAN_ERR_INVALID_INPUT;
    *out = (uint16_t)read_le(c->data + c->pos, 2);
    c->pos += 2;
    return GPUPLAN_OK;
}

enum gpuplan_status
gpuplan_cursor_u32(struct gpuplan_cursor *c, uint32_t *out, struct gpuplan_error *err)
{
    if (need(c, 4, err))
        return GPUPLAN_ERR_INVALID_INPUT;
    *out = (uint32_t)read_le(c->data + c->pos, 4);
    c->pos += 4;
    return GPUPLAN_OK;
}

enum gpuplan_status
gpuplan_cursor_u64(struct gpuplan_cursor *c, uint64_t *out, struct gpuplan_error *err)
{
    if (need(c, 8, err))
        return GPUPLAN_ERR_INVALID_INPUT;
    *out = read_le(c->data + c->pos, 8);
    c->pos += 8;
    return GPUPLAN_OK;
}

enum gpuplan_status gpuplan_cursor_bytes(struct gpuplan_cursor *c,
                                         uint64_t n,
                                         const uint8_t **out,
                                         struct gpuplan_error *err)
{
    if (need(c, n, err))
        return GPUPLAN_ERR_INVALID_INPUT;
    *out = c->data + c->pos;
    c->pos += (size_t)n;
    return GPUPLAN_OK;
}

enum gpuplan_status
gpuplan_cursor_skip(struct gpuplan_cursor *c, uint64_t n, struct gpuplan_error *err)
{
    const uint8_t *ignored;
    return gpuplan_cursor_bytes(c, n, &ignored, err);
}
