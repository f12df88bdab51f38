/*
 * json.c - the one JSON reader (see json_internal.h).
 */
#include "util/json_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/i18n_internal.h"

enum gpuplan_status gpuplan_json_parse(const uint8_t *data,
                                       size_t len,
                                       const char *where,
                                       bool want_object,
                                       json_t **out,
                                       struct gpuplan_error *err)
{
    char loc[GPUPLAN_ERROR_WHERE_MAX];
    if (len > GPUPLAN_JSON_MAX_BYTES) {
        gpuplan_error_set(err, GPUPLAN_ERR_TOO_LARGE, where,
                          "JSON document is %zu bytes; the limit is %llu", len,
                          (unsigned long long)GPUPLAN_JSON_MAX_BYTES);
        return GPUPLAN_ERR_TOO_LARGE;
    }
    if (len == 0) {
        return gpuplan_error_set(err, GPUPLAN_ERR_INVALID_INPUT, where,
                                 "empty input; expected a JSON %s",
                                 want_object ? GPUPLAN_TR("object") : GPUPLAN_TR("value"));
    }
    json_error_t jerr;
    json_t *root =
        json_loadb((const char *)data, len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &jerr);
    if (!root) {
        (void)snprintf(loc, sizeof loc, "%s:%d:%d", where ? where : "<input>", jerr.line,
                       jerr.column);
        gpuplan_error_set(err, GPUPLAN_ERR_INVALID_INPUT, loc, "invalid JSON: %s", jerr.text);
        gpuplan_error_hint(err, "check the file is complete, valid UTF-8 JSON");
        return GPUPLAN_ERR_INVALID_INPUT;
    }
    if (want_object && !json_is_object(root)) {
        json_decref(root);
        return gpuplan_error_set(err, GPUPLAN_ERR_INVALID_INPUT, where,
                                 "expected a JSON object at the top level");
    }
    *out = root;
    return GPUPLAN_OK;
}

bool gpuplan_json_as_u64(const json_t *value, uint64_t *out)
{
    if (json_is_integer(value)) {
        json_int_t v = json_integer_value(value);
        if (v < 0)
            return false;
        *out = (uint64_t)v;
        return true;
    }
    if (json_is_real(value)) {
        double v = json_real_value(value);
        if (!isfinite(v) || v < 0.0 || v >= 9007199254740992.0 || floor(v) != v)
            return false;
        *out = (uint64_t)v;
        return true;
    }
    return false;
}

static enum gpuplan_status field_error(struct gpuplan_error *err,
                                       enum gpuplan_status code,
                                       const char *where,
                                       const char *path,
                                       const char *key,
                                       const char *what)
{
    char loc[GPUPLAN_ERROR_WHERE_MAX];
    (void)snprintf(loc, sizeof loc, "%s%s%s.%s", where ? where : "", where ? ":" : "",
                   path ? path : "$", key);
    return gpuplan_error_set(err, code, loc, "'%s' %s in '%s'", key, GPUPLAN_TR(what),
                             where ? where : GPUPLAN_TR("input"));
}

/*
 * The member `key` of `obj`, or NULL: absent or null, with *st GPUPLAN_OK
 * (an optional field keeps its default) or the "is missing" error.
 */
static const json_t *lookup(const json_t *obj,
                            const char *key,
                            const char *where,
                            const char *path,
                            bool required,
                            enum gpuplan_status *st,
                            struct gpuplan_error *err)
{
    const json_t *v = json_object_get(obj, key);
    *st = GPUPLAN_OK;
    if (v && !json_is_null(v))
        return v;
    if (required)
        *st = field_error(err, GPUPLAN_ERR_INVALID_CONFIG, where, path, key, "is missing");
    return NULL;
}

enum gpuplan_status gpuplan_json_get_u64(const json_t *obj,
                                         const char *key,
                                         const char *where,
                                         const char *path,
                                         bool required,
                                         uint64_t *out,
                                         struct gpuplan_error *err)
{
    enum gpuplan_status st;
    const json_t *v = lookup(obj, key, where, path, required, &st, err);
    if (!v)
        return st;
    if (!gpuplan_json_as_u64(v, out))
        return field_error(err, GPUPLAN_ERR_INVALID_CONFIG, where, path, key,
                           "must be a non-negative integer");
    return GPUPLAN_OK;
}

enum gpuplan_status gpuplan_json_get_double(const json_t *obj,
                                            const char *key,
                                            const char *where,
                                            const char *path,
                                            bool required,
                                            double *out,
                                            struct gpuplan_error *err)
{
    enum gpuplan_status st;
    const json_t *v = lookup(obj, key, where, path, required, &st, err);
    if (!v)
        return st;
    if (!json_is_number(v))
        return field_error(err, GPUPLAN_ERR_INVALID_CONFIG, where, path, key, "must be a number");
    double d = json_number_value(v);
    if (!isfinite(d))
        return field_error(err, GPUPLAN_ERR_INVALID_CONFIG, where, path, key, "must be finite");
    *out = d;
    return GPUPLAN_OK;
}

enum gpuplan_status gpuplan_json_get_bool(const json_t *obj,
                                          const char *key,
                                          const char *where,
                                          const char *path,
                                          bool required,
                                          bool *out,
                                          struct gpuplan_error *err)
{
    enum gpuplan_status st;
    const json_t *v = lookup(obj, key, where, path, required, &st, err);
    if (!v)
        return st;
    if (!json_is_boolean(v))
        return field_error(err, GPUPLAN_ERR_INVALID_CONFIG, where, path, key,
                           "must be true or false");
    *out = json_is_true(v);
    return GPUPLAN_OK;
}

enum gpuplan_status gpuplan_json_get_string(const json_t *obj,
                                            const char *key,
                                            const char *where,
                                            const char *path,
                                            bool required,
                                            char *out,
                                            size_t out_size,
                                            struct gpuplan_error *err)
{
    enum gpuplan_status st;
    const json_t *v = lookup(obj, key, where, path, required, &st, err);
    if (!v)
        return st;
    if (!json_is_string(v))
        return field_error(err, GPUPLAN_ERR_INVALID_CONFIG, where, path, key, "must be a string");
    size_t n = json_string_length(v);
    if (n >= out_size)
        return field_error(err, GPUPLAN_ERR_INVALID_CONFIG, where, path, key, "is too long");
    memcpy(out, json_string_value(v), n);
    out[n] = '\0';
    if (memchr(out, '\0', n))
        return field_error(err, GPUPLAN_ERR_INVALID_CONFIG, where, path, key,
                           "contains a NUL byte");
    return GPUPLAN_OK;
}

enum gpuplan_status
gpuplan_json_write(json_t *root, size_t flags, struct gpuplan_buf *out, struct gpuplan_error *err)
{
    char *text = root ? json_dumps(root, flags) : NULL;
    json_decref(root);
    if (!text)
        return gpuplan_error_set(err, GPUPLAN_ERR_NOMEM, NULL, "out of memory while writing JSON");
    gpuplan_buf_puts(out, text);
    gpuplan_buf_puts(out, "\n");
    free(text);
    return gpuplan_buf_status(out, err);
}
