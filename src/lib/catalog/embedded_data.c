/*
 * embedded_data.c - lookup over the generated table of embedded files.
 */
#include "catalog/embedded_data_internal.h"

#include <string.h>

const struct gpuplan_embedded_file *gpuplan_embedded_find(const char *name)
{
    for (const struct gpuplan_embedded_file *f = gpuplan_embedded_files; f->name; f++) {
        if (strcmp(f->name, name) == 0)
            return f;
    }
    return NULL;
}
