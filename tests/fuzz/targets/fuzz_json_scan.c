/*
 * fuzz_json_scan.c - libFuzzer target: any bytes through the JSON pull
 * tokenizer, with and without GPUPLAN_JSON_SCAN_ALLOW_NUL and at a small
 * depth limit. Every string is decoded and compared with itself, every
 * number converted; the invariants checked are the contract of
 * json_scan.h (tokens inside the input, balanced depth at END, an error
 * offset inside the input, decoded strings no longer than their source).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/json_scan_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int ok)
{
    if (!ok)
        abort();
}

static void run(const uint8_t *data, size_t size, uint32_t max_depth, unsigned flags)
{
    struct gpuplan_json_scan scan;
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    gpuplan_json_scan_init(&scan, data, size, "fuzz", max_depth, flags);
    char *decoded = malloc(size + 1);
    if (!decoded)
        return;
    for (;;) {
        struct gpuplan_json_token tok;
        if (gpuplan_json_scan_next(&scan, &tok, &err) != GPUPLAN_OK) {
            check(scan.error_offset <= size);
            check(err.where[0] != '\0');
            break;
        }
        check(tok.offset <= size && tok.len <= size - tok.offset);
        check(scan.depth <= max_depth);
        if (tok.kind == GPUPLAN_JSON_END) {
            check(scan.depth == 0);
            break;
        }
        if (tok.kind == GPUPLAN_JSON_KEY || tok.kind == GPUPLAN_JSON_STRING) {
            check(tok.str == data + tok.offset + 1 && tok.str_len + 2 == tok.len);
            const size_t n = gpuplan_json_scan_decode(&tok, decoded);
            check(n <= tok.str_len && decoded[n] == '\0');
            check(gpuplan_json_scan_equals(&tok, decoded, n));
            check(!gpuplan_json_scan_equals(&tok, decoded, n + 1));
            if (!(flags & GPUPLAN_JSON_SCAN_ALLOW_NUL))
                check(memchr(decoded, '\0', n) == NULL);
        }
        if (tok.kind == GPUPLAN_JSON_NUMBER) {
            double v;
            (void)gpuplan_json_scan_double(&tok, &v);
            check(tok.is_integer || tok.int_magnitude == 0);
        }
    }
    free(decoded);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    run(data, size, GPUPLAN_JSON_SCAN_MAX_DEPTH, 0);
    run(data, size, 4, GPUPLAN_JSON_SCAN_ALLOW_NUL);
    return 0;
}
