/*
 * messages.c - a reader of GNU .mo catalogs and the per-thread catalog
 * GPUPLAN_TR consults (include/gpuplan/messages.h).
 *
 * The format (GNU gettext manual, "The Format of GNU MO Files"): a 28-byte
 * header of 32-bit words (magic 0x950412de in the file's byte order,
 * revision, N strings, offset O of the originals' table, offset T of the
 * translations' table, hash table size and offset), then two tables of N
 * (length, offset) pairs; each string is NUL-terminated at its offset, the
 * length not counting the NUL. msgfmt writes the originals sorted by byte
 * value, so a lookup is a binary search (the hash table is not needed).
 */
#include "gpuplan/messages.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/i18n_internal.h"

#define MO_MAGIC        0x950412deu
#define MO_MAGIC_SWAP   0xde120495u
#define MO_HEADER_BYTES 28u
#define MO_ENTRY_BYTES  8u /* length, offset */

struct gpuplan_messages {
    unsigned char *data;
    size_t size;
    uint32_t n;
    uint32_t originals, translations; /* table offsets */
    int swap;
};

_Thread_local const struct gpuplan_messages *gpuplan_messages_current;

static uint32_t word(const struct gpuplan_messages *m, size_t off)
{
    const unsigned char *p = m->data + off;
    if (m->swap)
        return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
    return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

static const char *string_at(const struct gpuplan_messages *m, uint32_t table, uint32_t i)
{
    return (const char *)m->data + word(m, (size_t)table + (size_t)i * MO_ENTRY_BYTES + 4);
}

static enum gpuplan_status bad(struct gpuplan_error *err, size_t at, const char *what)
{
    char where[32];
    snprintf(where, sizeof where, "byte %zu", at);
    gpuplan_error_set(err, GPUPLAN_ERR_INVALID_INPUT, where, "not a GNU .mo catalog: %s", what);
    gpuplan_error_hint(err, "rebuild it with msgfmt from its .po file ('make' does)");
    return GPUPLAN_ERR_INVALID_INPUT;
}

/* Every entry of a table inside the file, its string NUL-terminated there. */
static enum gpuplan_status
check_table(const struct gpuplan_messages *m, uint32_t table, struct gpuplan_error *err)
{
    if ((uint64_t)table + (uint64_t)m->n * MO_ENTRY_BYTES > m->size)
        return bad(err, table, "a string table runs past the end");
    for (uint32_t i = 0; i < m->n; i++) {
        const size_t e = (size_t)table + (size_t)i * MO_ENTRY_BYTES;
        const uint64_t len = word(m, e), off = word(m, e + 4);
        if (off + len >= m->size || m->data[off + len] != '\0')
            return bad(err, e, "a string is outside the file or not NUL-terminated");
    }
    return GPUPLAN_OK;
}

enum gpuplan_status gpuplan_messages_parse(const void *data,
                                           size_t size,
                                           struct gpuplan_messages **out,
                                           struct gpuplan_error *err)
{
    *out = NULL;
    if (size < MO_HEADER_BYTES)
        return bad(err, size, "shorter than its header");
    if (size > GPUPLAN_MESSAGES_MAX_BYTES)
        return bad(err, GPUPLAN_MESSAGES_MAX_BYTES, "larger than 16 MiB");
    struct gpuplan_messages *m = calloc(1, sizeof *m);
    if (!m || !(m->data = malloc(size))) {
        free(m);
        return gpuplan_error_set(err, GPUPLAN_ERR_NOMEM, NULL, "out of memory");
    }
    memcpy(m->data, data, size);
    m->size = size;
    const uint32_t magic = word(m, 0);
    enum gpuplan_status st = GPUPLAN_OK;
    if (magic == MO_MAGIC_SWAP)
        m->swap = 1;
    else if (magic != MO_MAGIC)
        st = bad(err, 0, "wrong magic number");
    if (st == GPUPLAN_OK && (word(m, 4) >> 16) != 0)
        st = bad(err, 4, "unknown major revision");
    if (st == GPUPLAN_OK) {
        m->n = word(m, 8);
        m->originals = word(m, 12);
        m->translations = word(m, 16);
        st = check_table(m, m->originals, err);
    }
    if (st == GPUPLAN_OK)
        st = check_table(m, m->translations, err);
    for (uint32_t i = 1; st == GPUPLAN_OK && i < m->n; i++) {
        if (strcmp(string_at(m, m->originals, i - 1), string_at(m, m->originals, i)) > 0)
            st = bad(err, (size_t)m->originals + (size_t)i * MO_ENTRY_BYTES,
                     "the original strings are not sorted");
    }
    if (st != GPUPLAN_OK) {
        gpuplan_messages_free(m);
        return st;
    }
    *out = m;
    return GPUPLAN_OK;
}

enum gpuplan_status
gpuplan_messages_load(const char *path, struct gpuplan_messages **out, struct gpuplan_error *err)
{
    *out = NULL;
    FILE *f = fopen(path, "rb");
    if (!f)
        return gpuplan_error_set(err, GPUPLAN_ERR_IO, path, "cannot open the message catalog");
    unsigned char *buf = malloc(GPUPLAN_MESSAGES_MAX_BYTES + 1);
    size_t n = buf ? fread(buf, 1, GPUPLAN_MESSAGES_MAX_BYTES + 1, f) : 0;
    const int failed = ferror(f);
    fclose(f);
    enum gpuplan_status st;
    if (!buf)
        st = gpuplan_error_set(err, GPUPLAN_ERR_NOMEM, NULL, "out of memory");
    else if (failed)
        st = gpuplan_error_set(err, GPUPLAN_ERR_IO, path, "cannot read the message catalog");
    else
        st = gpuplan_messages_parse(buf, n, out, err);
    free(buf);
    return st;
}

void gpuplan_messages_free(struct gpuplan_messages *m)
{
    if (!m)
        return;
    free(m->data);
    free(m);
}

const char *gpuplan_messages_lookup(const struct gpuplan_messages *m, const char *msgid)
{
    if (!m || !msgid[0])
        return msgid;
    uint32_t lo = 0, hi = m->n;
    while (lo < hi) {
        const uint32_t mid = lo + (hi - lo) / 2;
        const int c = strcmp(msgid, string_at(m, m->originals, mid));
        if (c == 0) {
            const char *t = string_at(m, m->translations, mid);
            return t[0] ? t : msgid;
        }
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return msgid;
}

const struct gpuplan_messages *gpuplan_messages_use(const struct gpuplan_messages *m)
{
    const struct gpuplan_messages *was = gpuplan_messages_current;
    gpuplan_messages_current = m;
    return was;
}
