/*
 * embedded_data.h - data files compiled into the library by tools/embed.c
 * (library-internal): the catalog JSON and the web page.
 */
#ifndef GPUPLAN_EMBEDDED_DATA_H
#define GPUPLAN_EMBEDDED_DATA_H

#include <stddef.h>

struct gpuplan_embedded_file {
    const char *name;           /* base name, e.g. "gpus.json" */
    const unsigned char *bytes; /* NUL-terminated copy of the file */
    size_t len;                 /* exact length, excluding the NUL */
};

/* Terminated by an entry with name NULL. */
extern const struct gpuplan_embedded_file gpuplan_embedded_files[];

/* The file named `name`, or NULL. */
const struct gpuplan_embedded_file *gpuplan_embedded_find(const char *name);

#endif
