/*
 * utf8.c - UTF-8 well-formedness (see utf8_internal.h).
 *
 * RFC 3629 section 4: a lead byte 110xxxxx, 1110xxxx or 11110xxx opens a
 * sequence of 2, 3 or 4 bytes, each continuation byte 10xxxxxx; the code
 * point must need that many bytes (no overlong form), lie at most at
 * U+10FFFF and outside the UTF-16 surrogates U+D800..U+DFFF.
 */
#include "util/utf8_internal.h"

#include <string.h>

/* The 8-bit mask of the high bit of each byte in a 64-bit word. */
#define HIGH_BITS_OF_8_BYTES 0x8080808080808080ULL

size_t gpuplan_utf8_sequence_len(const uint8_t *s, size_t avail)
{
    if (avail == 0)
        return 0;
    const uint8_t c = s[0];
    size_t n;
    uint32_t cp, min;
    if (c < 0x80)
        return 1;
    if ((c & 0xE0) == 0xC0) {
        n = 2, cp = c & 0x1Fu, min = 0x80;
    } else if ((c & 0xF0) == 0xE0) {
        n = 3, cp = c & 0x0Fu, min = 0x800;
    } else if ((c & 0xF8) == 0xF0) {
        n = 4, cp = c & 0x07u, min = 0x10000;
    } else {
        return 0;
    }
    if (n > avail)
        return 0;
    for (size_t k = 1; k < n; k++) {
        if ((s[k] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[k] & 0x3Fu);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return n;
}

size_t gpuplan_utf8_invalid_at(const uint8_t *s, size_t len)
{
    size_t i = 0;
    while (i < len) {
        if (s[i] < 0x80) {
            i++;
            /* ASCII fast path: eight bytes at a time while no high bit is set. */
            uint64_t w;
            while (len - i >= 8 && (memcpy(&w, s + i, 8), (w & HIGH_BITS_OF_8_BYTES) == 0))
                i += 8;
            continue;
        }
        const size_t n = gpuplan_utf8_sequence_len(s + i, len - i);
        if (n == 0)
            return i;
        i += n;
    }
    return len;
}

size_t gpuplan_utf8_columns(const char *text, size_t len)
{
    size_t n = 0;
    for (size_t i = 0; i < len; i++)
        if (((unsigned char)text[i] & 0xC0) != 0x80)
            n++;
    return n;
}
