/*
 * utf8_internal.h - the one UTF-8 validator of the library (RFC 3629):
 * well-formed sequences only (no overlong forms, no surrogates, nothing past
 * U+10FFFF). Used by the JSON tokenizer (strings), the safetensors header
 * check and the JSON error writer; the jansson DOM has its own.
 */
#ifndef GPUPLAN_UTF8_INTERNAL_H
#define GPUPLAN_UTF8_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

/* Bytes of the well-formed sequence at s[0..avail) (1 for ASCII), or 0 when it is none. */
size_t gpuplan_utf8_sequence_len(const uint8_t *s, size_t avail);

/* Offset of the first byte of s[0..len) that does not start a well-formed sequence; len if none. */
size_t gpuplan_utf8_invalid_at(const uint8_t *s, size_t len);

/* Code points in text[0..len) (one terminal column each: no wide characters). */
size_t gpuplan_utf8_columns(const char *text, size_t len);

#endif
