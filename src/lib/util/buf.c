/*
 * buf.c - growable buffer with a hard maximum and a sticky failure.
 */
#include "gpuplan/buf.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/utf8_internal.h"

void gpuplan_buf_init(struct gpuplan_buf *buf, size_t max_bytes)
{
    memset(buf, 0, sizeof *buf);
    buf->max_bytes = max_bytes ? max_bytes : GPUPLAN_BUF_DEFAULT_MAX_BYTES;
}

void gpuplan_buf_release(struct gpuplan_buf *buf)
{
    if (!buf)
        return;
    free(buf->data);
    buf->data = NULL;
    buf->len = 0;
    buf->cap = 0;
}

void gpuplan_buf_reset(struct gpuplan_buf *buf)
{
    buf->len = 0;
    buf->failed = GPUPLAN_OK;
    if (buf->data)
        buf->data[0] = '\0';
}

static int buf_reserve(struct gpuplan_buf *buf, size_t extra)
{
    if (buf->failed)
        return 0;
    if (extra > buf->max_bytes || buf->len > buf->max_bytes - extra) {
        buf->failed = GPUPLAN_ERR_TOO_LARGE;
        return 0;
    }
    size_t need = buf->len + extra + 1;
    if (need <= buf->cap)
        return 1;
    size_t cap = buf->cap ? buf->cap : 256;
    while (cap < need)
        cap = cap > SIZE_MAX / 2 ? need : cap * 2;
    char *grown = realloc(buf->data, cap);
    if (!grown) {
        buf->failed = GPUPLAN_ERR_NOMEM;
        return 0;
    }
    buf->data = grown;
    buf->cap = cap;
    return 1;
}

void gpuplan_buf_append(struct gpuplan_buf *buf, const void *bytes, size_t n_bytes)
{
    if (!buf_reserve(buf, n_bytes))
        return;
    if (n_bytes)
        memcpy(buf->data + buf->len, bytes, n_bytes);
    buf->len += n_bytes;
    buf->data[buf->len] = '\0';
}

void gpuplan_buf_puts(struct gpuplan_buf *buf, const char *text)
{
    gpuplan_buf_append(buf, text, strlen(text));
}

void gpuplan_buf_vprintf(struct gpuplan_buf *buf, const char *fmt, va_list ap)
{
    if (buf->failed)
        return;
    va_list ap2;
    va_copy(ap2, ap);
    char small[256];
    int n = vsnprintf(small, sizeof small, fmt, ap2);
    va_end(ap2);
    if (n < 0) {
        buf->failed = GPUPLAN_ERR_INTERNAL;
        return;
    }
    if ((size_t)n < sizeof small) {
        gpuplan_buf_append(buf, small, (size_t)n);
        return;
    }
    if (!buf_reserve(buf, (size_t)n))
        return;
    (void)vsnprintf(buf->data + buf->len, (size_t)n + 1, fmt, ap);
    buf->len += (size_t)n;
}

void gpuplan_buf_printf(struct gpuplan_buf *buf, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    gpuplan_buf_vprintf(buf, fmt, ap);
    va_end(ap);
}

void gpuplan_buf_puts_html(struct gpuplan_buf *buf, const char *text)
{
    for (const char *p = text; *p; p++) {
        switch (*p) {
        case '<':
            gpuplan_buf_puts(buf, "&lt;");
            break;
        case '>':
            gpuplan_buf_puts(buf, "&gt;");
            break;
        case '&':
            gpuplan_buf_puts(buf, "&amp;");
            break;
        case '"':
            gpuplan_buf_puts(buf, "&quot;");
            break;
        default:
            gpuplan_buf_append(buf, p, 1);
        }
    }
}

const char *gpuplan_buf_str(const struct gpuplan_buf *buf)
{
    return buf->data ? buf->data : "";
}

enum gpuplan_status gpuplan_buf_status(const struct gpuplan_buf *buf, struct gpuplan_error *err)
{
    switch (buf->failed) {
    case GPUPLAN_OK:
        return GPUPLAN_OK;
    case GPUPLAN_ERR_TOO_LARGE:
        return gpuplan_error_set(err, buf->failed, NULL, "output exceeds %zu bytes",
                                 buf->max_bytes);
    default:
        return gpuplan_error_set(err, buf->failed, NULL, "out of memory while rendering output");
    }
}

static void spaces(struct gpuplan_buf *buf, size_t n)
{
    for (size_t i = 0; i < n; i++)
        gpuplan_buf_append(buf, " ", 1);
}

/* Bytes of text[0..len) that fit in `columns` columns, cut at a code point (at least one). */
static size_t bytes_in_columns(const char *text, size_t len, size_t columns)
{
    size_t i = 0, used = 0;
    while (i < len) {
        size_t next = i + 1;
        while (next < len && ((unsigned char)text[next] & 0xC0) == 0x80)
            next++;
        if (used + 1 > columns && i > 0)
            break;
        used++;
        i = next;
    }
    return i;
}

static size_t new_line(struct gpuplan_buf *buf, size_t indent)
{
    gpuplan_buf_puts(buf, "\n");
    spaces(buf, indent);
    return indent;
}

size_t
gpuplan_buf_wrap(struct gpuplan_buf *buf, const char *text, size_t col, size_t indent, size_t width)
{
    bool fresh = true; /* no word of `text` on this line yet */
    for (const char *p = text; *p;) {
        if (*p == '\n') {
            col = new_line(buf, indent);
            fresh = true;
            p++;
            continue;
        }
        if (*p == ' ') {
            p++;
            continue;
        }
        size_t len = strcspn(p, " \n");
        size_t cols = gpuplan_utf8_columns(p, len);
        size_t gap = fresh ? 0 : 1;
        if (col + gap + cols > width && col > indent) {
            col = new_line(buf, indent); /* does not fit after what is on the line */
            gap = 0;
        }
        while (len > 0 && col + gap + cols > width) {
            /* wider than a whole line: cut it at a code point */
            const size_t room = width > col + gap ? width - col - gap : 1;
            const size_t n = bytes_in_columns(p, len, room);
            spaces(buf, gap);
            gpuplan_buf_append(buf, p, n);
            p += n;
            len -= n;
            col = new_line(buf, indent);
            gap = 0;
            cols = gpuplan_utf8_columns(p, len);
        }
        if (len > 0) {
            spaces(buf, gap);
            gpuplan_buf_append(buf, p, len);
            col += gap + cols;
            p += len;
            fresh = false;
        } else {
            fresh = true;
        }
    }
    return col;
}
