/*
 * cursor.h - a bounded little-endian byte reader for binary headers
 * (library-internal). Every read checks the bytes remaining; a failed read
 * fills `err` with the byte offset and leaves the cursor where it was.
 */
#ifndef GPUPLAN_CURSOR_H
#define GPUPLAN_CURSOR_H

#include <stddef.h>
#include <stdint.h>

#include "gpuplan/error.h"

struct gpuplan_cursor {
    const uint8_t *data; /* borrowed */
    size_t len;
    size_t pos;
    const char *where; /* file name for messages; borrowed */
};

void gpuplan_cursor_init(struct gpuplan_cursor *c,
                         const uint8_t *data,
                         size_t len,
                         const char *where);
size_t gpuplan_cursor_remaining(const struct gpuplan_cursor *c);
enum gpuplan_status
gpuplan_cursor_u8(struct gpuplan_cursor *c, uint8_t *out, struct gpuplan_error *err);
enum gpuplan_status
gpuplan_cursor_u16(struct gpuplan_cursor *c, uint16_t *out, struct gpuplan_error *err);
enum gpuplan_status
gpuplan_cursor_u32(struct gpuplan_cursor *c, uint32_t *out, struct gpuplan_error *err);
enum gpuplan_status
gpuplan_cursor_u64(struct gpuplan_cursor *c, uint64_t *out, struct gpuplan_error *err);
/* Borrow `n` bytes at the cursor and advance. */
enum gpuplan_status gpuplan_cursor_bytes(struct gpuplan_cursor *c,
                                         uint64_t n,
                                         const uint8_t **out,
                                         struct gpuplan_error *err);
enum gpuplan_status
gpuplan_cursor_skip(struct gpuplan_cursor *c, uint64_t n, struct gpuplan_error *err);
/* Fill `err` with "<what> at byte <pos>" style position. */
enum gpuplan_status gpuplan_cursor_fail(const struct gpuplan_cursor *c,
                                        size_t at,
                                        enum gpuplan_status code,
                                        struct gpuplan_error *err,
                                        const char *fmt,
                                        ...) __attribute__((format(printf, 5, 6)));

#endif
