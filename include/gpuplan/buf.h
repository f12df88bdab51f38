/*
 * buf.h - a growable byte buffer with a hard maximum (as curl's dynbuf).
 *
 * Renderers write into a caller's buffer, so the CLI and the HTTP service
 * emit byte-identical output. Appends past `max_bytes` or a failed allocation
 * set the sticky `failed` status; later appends are no-ops, and the caller
 * checks the status once at the end. The content is always NUL-terminated.
 */
#ifndef GPUPLAN_BUF_H
#define GPUPLAN_BUF_H

#include <stdarg.h>
#include <stddef.h>

#include "gpuplan/error.h"

#define GPUPLAN_BUF_DEFAULT_MAX_BYTES (64ULL * 1024ULL * 1024ULL)

struct gpuplan_buf {
    char *data;                 /* owned; NULL until the first append */
    size_t len;                 /* bytes used, excluding the NUL */
    size_t cap;                 /* bytes allocated */
    size_t max_bytes;           /* hard limit on len */
    enum gpuplan_status failed; /* GPUPLAN_OK, _ERR_NOMEM or _ERR_TOO_LARGE */
};

void gpuplan_buf_init(struct gpuplan_buf *buf, size_t max_bytes);
void gpuplan_buf_release(struct gpuplan_buf *buf);
void gpuplan_buf_reset(struct gpuplan_buf *buf); /* len = 0, keep memory */
void gpuplan_buf_append(struct gpuplan_buf *buf, const void *bytes, size_t n_bytes);
void gpuplan_buf_puts(struct gpuplan_buf *buf, const char *text);
void gpuplan_buf_printf(struct gpuplan_buf *buf, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void gpuplan_buf_vprintf(struct gpuplan_buf *buf, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));
/* Append `text` escaped for HTML text and attribute values (< > & "). */
void gpuplan_buf_puts_html(struct gpuplan_buf *buf, const char *text);
/* The content as a C string ("" when empty); borrowed, valid until the next append. */
const char *gpuplan_buf_str(const struct gpuplan_buf *buf);

/*
 * Append `text` word-wrapped for a terminal `width` columns wide (one
 * column per code point): the first line goes on at column `col` (what is
 * already on it), later lines start with `indent` spaces; a word longer
 * than a line is cut; '\n' in `text` starts a new (indented) line. No line
 * ends in a space and none passes `width` (for width > indent). Returns the
 * column after the last character appended.
 */
size_t gpuplan_buf_wrap(struct gpuplan_buf *buf,
                        const char *text,
                        size_t col,
                        size_t indent,
                        size_t width);
/* GPUPLAN_OK, or fill `err` from the sticky failure. */
enum gpuplan_status gpuplan_buf_status(const struct gpuplan_buf *buf, struct gpuplan_error *err);

#endif
