/*
 * fuzz_catalog.c - libFuzzer target: arbitrary bytes as a user's gpus.json,
 * merged over the embedded catalog (gpuplan_catalog_load_buffers). Every
 * input must either load or fail with a filled error; never crash or leak.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "catalog/catalog_internal.h"
#include "gpuplan/render.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const names[] = { "gpus.json", "platforms.json", "models.json" };
    /* The first byte picks which file the rest is; the default is gpus.json. */
    const char *name = names[0];
    if (size > 0 && data[0] < 3) {
        name = names[data[0]];
        data++;
        size--;
    }
    const struct gpuplan_catalog_file file = {
        .name = name, .where = NULL, .data = data, .len = size
    };
    struct gpuplan_catalog *catalog = NULL;
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    if (gpuplan_catalog_load_buffers(&catalog, &file, 1, &err) != GPUPLAN_OK)
        return 0;
    /* A loaded catalog must render and answer lookups. */
    struct gpuplan_buf out;
    gpuplan_buf_init(&out, 0);
    (void)gpuplan_render_gpus(catalog, GPUPLAN_FORMAT_TEXT, &out, &err);
    gpuplan_buf_reset(&out);
    (void)gpuplan_render_gpus(catalog, GPUPLAN_FORMAT_JSON, &out, &err);
    gpuplan_buf_release(&out);
    const struct gpuplan_gpu *gpu = NULL;
    (void)gpuplan_catalog_get_gpu(catalog, "h100", &gpu, &err);
    gpuplan_catalog_free(catalog);
    return 0;
}
