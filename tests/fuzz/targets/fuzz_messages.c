/*
 * fuzz_messages.c - libFuzzer target: any bytes as a GNU .mo catalog
 * (gpuplan_messages_parse). A catalog that parses answers a lookup of each
 * of a few ids (present or not) with a NUL-terminated string inside its own
 * copy or the id itself; a refusal carries a message.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/messages.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const ids[] = { "", "a", "inputs:\n", "verdict: %s on %s\n", "\xff" };
    struct gpuplan_messages *m = NULL;
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    if (gpuplan_messages_parse(data, size, &m, &err) != GPUPLAN_OK) {
        if (!err.message[0] || m)
            abort();
        return 0;
    }
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
        const char *t = gpuplan_messages_lookup(m, ids[i]);
        if (!t || strlen(t) > size)
            abort();
    }
    gpuplan_messages_free(m);
    return 0;
}
