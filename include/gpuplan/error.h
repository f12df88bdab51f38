/*
 * error.h - status codes and the caller-owned error record.
 *
 * Every fallible function returns enum gpuplan_status and takes
 * `struct gpuplan_error *err` last. On failure it fills `err` (message first,
 * then a hint on how to fix it, and where: a file plus byte offset, a
 * line:column, or a JSON path); on success it leaves `err` untouched.
 * The record is fixed-size and needs no allocation, so it is safe to use from
 * any thread and after an out-of-memory failure.
 */
#ifndef GPUPLAN_ERROR_H
#define GPUPLAN_ERROR_H

#include <stddef.h>

enum gpuplan_status {
    GPUPLAN_OK = 0,
    GPUPLAN_ERR_USAGE,          /* bad command-line or request option */
    GPUPLAN_ERR_INVALID_INPUT,  /* malformed file or body: syntax, bounds */
    GPUPLAN_ERR_INVALID_CONFIG, /* well-formed but semantically wrong model config */
    GPUPLAN_ERR_UNSUPPORTED,    /* valid input this version does not model */
    GPUPLAN_ERR_NOT_FOUND,      /* unknown model, GPU, path */
    GPUPLAN_ERR_TOO_LARGE,      /* exceeds a hard limit */
    GPUPLAN_ERR_IO,             /* read or write failed */
    GPUPLAN_ERR_NOMEM,          /* allocation failed */
    GPUPLAN_ERR_INTERNAL,       /* a bug: please report */
    GPUPLAN_STATUS_COUNT
};

#define GPUPLAN_ERROR_WHERE_MAX   256
#define GPUPLAN_ERROR_MESSAGE_MAX 512
#define GPUPLAN_ERROR_HINT_MAX    512

struct gpuplan_error {
    enum gpuplan_status code;
    char where[GPUPLAN_ERROR_WHERE_MAX];     /* e.g. "config.json:12:5" or "x.gguf@+4096" */
    char message[GPUPLAN_ERROR_MESSAGE_MAX]; /* e.g. "'num_attention_heads' is 0; must be >= 1" */
    char hint[GPUPLAN_ERROR_HINT_MAX];       /* e.g. "pass --seq-len" (may be empty) */
};

/* Zero the record (code GPUPLAN_OK, empty strings). */
void gpuplan_error_init(struct gpuplan_error *err);

/*
 * Fill `err` (when not NULL) and return `code`, so a caller can write
 * `return gpuplan_error_set(err, GPUPLAN_ERR_INVALID_INPUT, where, "...", ...);`.
 * `where` may be NULL. Messages are truncated to fit, never overflow.
 */
enum gpuplan_status gpuplan_error_set(struct gpuplan_error *err,
                                      enum gpuplan_status code,
                                      const char *where,
                                      const char *fmt,
                                      ...) __attribute__((format(printf, 4, 5)));

/* Set the hint of an already filled record. */
void gpuplan_error_hint(struct gpuplan_error *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Prefix `where` with "prefix" (for example a file name). */
void gpuplan_error_where_prefix(struct gpuplan_error *err, const char *prefix);

/* A stable lowercase token ("invalid_input", "not_found"), the JSON error.code. */
const char *gpuplan_status_name(enum gpuplan_status code);

/* The HTTP status for a failure: 400, 404, 413, 422 or 500 (200 for OK). */
int gpuplan_status_http(enum gpuplan_status code);

#endif
