/*
 * json_internal.h - the JSON DOM reader, over jansson (library-internal).
 *
 * One JSON module, two readers: this DOM for documents where one is
 * convenient (config.json, index.json, catalog files, HTTP bodies), and
 * the json_scan.h pull tokenizer for the safetensors header, where the
 * DOM of a 100,000-tensor header took ~220 ms of CPU (450 ms with the
 * inventory) and the scan takes ~20 ms (31 ms); `make bench`,
 * bench_safetensors. Both accept exactly RFC 8259 JSON.
 * Parsing rejects invalid UTF-8, NaN/Infinity, duplicate keys (jansson's
 * JSON_REJECT_DUPLICATES) and nesting deeper than jansson's compiled limit,
 * and reports "line:column" in err->where. Field getters report the JSON
 * path ("$.text_config.num_hidden_layers") of a missing or mistyped field.
 */
#ifndef GPUPLAN_JSON_INTERNAL_H
#define GPUPLAN_JSON_INTERNAL_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpuplan/buf.h"
#include "gpuplan/error.h"

/* Largest JSON document any reader accepts (a safetensors header cap is 100 MB). */
#define GPUPLAN_JSON_MAX_BYTES (100ULL * 1000ULL * 1000ULL)

/*
 * Parse `len` bytes (not NUL-terminated) into *out (owned by the caller:
 * json_decref). `where` names the input in errors (a file name).
 * The top-level value must be an object when `want_object`.
 */
enum gpuplan_status gpuplan_json_parse(const uint8_t *data,
                                       size_t len,
                                       const char *where,
                                       bool want_object,
                                       json_t **out,
                                       struct gpuplan_error *err);

/*
 * Typed getters. `path` is the JSON path of `obj` for messages ("$" at the
 * top). A missing key returns GPUPLAN_OK and leaves *out unchanged when
 * `required` is false; wrong types, negatives, fractions and overflow are
 * always errors (GPUPLAN_ERR_INVALID_CONFIG).
 */
enum gpuplan_status gpuplan_json_get_u64(const json_t *obj,
                                         const char *key,
                                         const char *where,
                                         const char *path,
                                         bool required,
                                         uint64_t *out,
                                         struct gpuplan_error *err);
enum gpuplan_status gpuplan_json_get_double(const json_t *obj,
                                            const char *key,
                                            const char *where,
                                            const char *path,
                                            bool required,
                                            double *out,
                                            struct gpuplan_error *err);
enum gpuplan_status gpuplan_json_get_bool(const json_t *obj,
                                          const char *key,
                                          const char *where,
                                          const char *path,
                                          bool required,
                                          bool *out,
                                          struct gpuplan_error *err);
/* Copies into out[out_size] (truncation is an error). */
enum gpuplan_status gpuplan_json_get_string(const json_t *obj,
                                            const char *key,
                                            const char *where,
                                            const char *path,
                                            bool required,
                                            char *out,
                                            size_t out_size,
                                            struct gpuplan_error *err);

/*
 * Append `root` as JSON text plus a newline to `out` with jansson dump
 * `flags` (renderers pass JSON_SORT_KEYS | JSON_INDENT(2) and their real
 * precision), then release it. `root` may be NULL (a failed build): that is
 * reported as out of memory. The one place renderers turn a tree into bytes.
 */
enum gpuplan_status
gpuplan_json_write(json_t *root, size_t flags, struct gpuplan_buf *out, struct gpuplan_error *err);

/* JSON integer or integral real to uint64_t; false otherwise. */
bool gpuplan_json_as_u64(const json_t *value, uint64_t *out);

#endif
