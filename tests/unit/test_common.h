/*
 * test_common.h - helpers shared by the cmocka unit tests.
 * Fixtures are read from tests/fixtures/ (tests run from the repository root,
 * as scripts/run-tests.sh does; tests/fixtures/README.md says where each came from).
 */
#ifndef GPUPLAN_TEST_COMMON_H
#define GPUPLAN_TEST_COMMON_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

/* Path of a file under tests/fixtures/; static buffer. */
static inline const char *fixture_path(const char *rel)
{
    static char path[4096];
    snprintf(path, sizeof path, "tests/fixtures/%s", rel);
    return path;
}

/* Read a whole file; returns malloc'd bytes (NUL-terminated) or NULL. */
static inline uint8_t *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    if (fseek(f, 0, SEEK_END) != 0) {
        fclose(f);
        return NULL;
    }
    long size = ftell(f);
    if (size < 0 || fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        return NULL;
    }
    uint8_t *buf = malloc((size_t)size + 1);
    if (buf && fread(buf, 1, (size_t)size, f) != (size_t)size) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    if (buf) {
        buf[size] = 0;
        *len = (size_t)size;
    }
    return buf;
}

#endif
