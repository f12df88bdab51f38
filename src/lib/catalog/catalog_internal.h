/*
 * catalog_internal.h - loading the catalog from buffers (library-internal).
 *
 * gpuplan_catalog_load() reads the embedded files and a user's directory into
 * buffers and calls gpuplan_catalog_load_buffers(); the fuzz target calls it
 * directly with arbitrary bytes as a user's gpus.json.
 */
#ifndef GPUPLAN_CATALOG_INTERNAL_H
#define GPUPLAN_CATALOG_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "gpuplan/catalog.h"

/* One user catalog file held in memory (not NUL-terminated). */
struct gpuplan_catalog_file {
    const char *name;    /* "gpus.json", "platforms.json" or "models.json" */
    const char *where;   /* for messages, e.g. "/home/me/cat/gpus.json"; NULL = name */
    const uint8_t *data; /* borrowed */
    size_t len;
};

/*
 * Load the embedded catalog, then merge `files` in order (records with an
 * existing id replace it, new ids are appended), then check cross references.
 * On failure *out is untouched and nothing leaks.
 */
enum gpuplan_status gpuplan_catalog_load_buffers(struct gpuplan_catalog **out,
                                                 const struct gpuplan_catalog_file *files,
                                                 size_t n_files,
                                                 struct gpuplan_error *err);

#endif
