/*
 * messages.h - a translation catalog (a GNU .mo file) that one thread can
 * speak without touching the process's locale.
 *
 * The CLI translates through gettext and the locale it sets once. The HTTP
 * service answers requests in several languages at once on a thread pool,
 * where a process-wide locale cannot follow each request: it loads each
 * language's .mo file at start (gpuplan_messages_load) and, around one
 * request, makes it the calling thread's (gpuplan_messages_use). Every
 * translated message of the library (GPUPLAN_TR) then comes from it; with
 * none in use, gettext answers as before.
 */
#ifndef GPUPLAN_MESSAGES_H
#define GPUPLAN_MESSAGES_H

#include <stddef.h>

#include "gpuplan/error.h"

struct gpuplan_messages;

/* Largest .mo file accepted (gpuplan's Russian catalog is about 300 KiB). */
#define GPUPLAN_MESSAGES_MAX_BYTES (16u << 20)

/*
 * Read and check a .mo file (either byte order): the header, every string
 * table entry inside the file and NUL-terminated, the originals sorted.
 * GPUPLAN_ERR_IO when it cannot be read, GPUPLAN_ERR_INVALID_INPUT (with
 * the byte offset) when it is not a well-formed catalog.
 */
enum gpuplan_status
gpuplan_messages_load(const char *path, struct gpuplan_messages **out, struct gpuplan_error *err);
/* The same from memory (copied). */
enum gpuplan_status gpuplan_messages_parse(const void *data,
                                           size_t size,
                                           struct gpuplan_messages **out,
                                           struct gpuplan_error *err);
void gpuplan_messages_free(struct gpuplan_messages *m);

/* The translation of `msgid`, or `msgid` itself when the catalog lacks it (or m is NULL). */
const char *gpuplan_messages_lookup(const struct gpuplan_messages *m, const char *msgid);

/* Make `m` the calling thread's catalog (NULL: back to gettext); returns the previous one. */
const struct gpuplan_messages *gpuplan_messages_use(const struct gpuplan_messages *m);

#endif
