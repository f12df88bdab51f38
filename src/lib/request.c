/*
 * request.c - JSON request bodies to jobs, JSON error documents, the page
 * (see request.h).
 *
 * The body is parsed once by the project's JSON reader (json_internal.h:
 * duplicate keys, invalid UTF-8 and NaN are rejected there), then each
 * member is turned into the text the command line would have carried and
 * handed to gpuplan_job_set(), the only place option values are checked.
 * Members are applied in document order (jansson keeps insertion order), so
 * the first bad field of a body is the one reported.
 */
#include "gpuplan/request.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "embedded_data.h"
#include "json_internal.h"
#include "levenshtein.h"

/* Longest option value as text: a double needs 24 bytes, strings are passed through. */
#define NUMBER_TEXT_MAX 40
/* Longest option name compared when looking a key up in the option table. */
#define KEY_NAME_MAX 64

/* "$.seq_len", or "$[\"odd key\"]"-like text with unprintable bytes as '?'. */
static void json_path_of(const char *key, char *out, size_t out_size)
{
    bool plain = key[0] != '\0';
    for (const char *p = key; *p; p++) {
        const unsigned char ch = (unsigned char)*p;
        if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
              ch == '_'))
            plain = false;
    }
    if (plain) {
        (void)snprintf(out, out_size, "$.%s", key);
        return;
    }
    size_t n = 0;
    char safe[KEY_NAME_MAX + 1];
    for (const char *p = key; *p && n < KEY_NAME_MAX; p++) {
        const unsigned char ch = (unsigned char)*p;
        safe[n++] = (ch >= 0x20 && ch < 0x7f && ch != '"' && ch != '\\') ? (char)ch : '?';
    }
    safe[n] = '\0';
    (void)snprintf(out, out_size, "$[\"%s\"]", safe);
}

/* The option whose name equals `key` with '_' for '-'; NULL when none. */
static const struct gpuplan_job_option *find_option(const char *key)
{
    for (const struct gpuplan_job_option *opt = gpuplan_job_options; opt->name; opt++) {
        const char *a = opt->name;
        const char *b = key;
        while (*a && *b && (*a == *b || (*a == '-' && *b == '_'))) {
            a++;
            b++;
        }
        if (*a == '\0' && *b == '\0')
            return opt;
    }
    return NULL;
}

/* The JSON spelling of an option name ("seq-len" -> "seq_len"). */
static void json_name_of(const char *option_name, char *out, size_t out_size)
{
    size_t i = 0;
    for (; option_name[i] && i + 1 < out_size; i++)
        out[i] = option_name[i] == '-' ? '_' : option_name[i];
    out[i] = '\0';
}

static enum gpuplan_status
unknown_field(const char *key, const char *path, bool accepts_model, struct gpuplan_error *err)
{
    gpuplan_error_set(err, GPUPLAN_ERR_USAGE, path, "unknown field '%s' in the request body", key);
    /* Suggest the nearest field name, as git's help.c does for commands. */
    char best[KEY_NAME_MAX] = "";
    size_t best_distance = SIZE_MAX;
    if (accepts_model) {
        best_distance = gpuplan_levenshtein(key, "model");
        (void)snprintf(best, sizeof best, "model");
    }
    for (const struct gpuplan_job_option *opt = gpuplan_job_options; opt->name; opt++) {
        char name[KEY_NAME_MAX];
        json_name_of(opt->name, name, sizeof name);
        const size_t d = gpuplan_levenshtein(key, name);
        if (d < best_distance) {
            best_distance = d;
            (void)snprintf(best, sizeof best, "%s", name);
        }
    }
    /* A suggestion more than a third of the word away is noise (git uses a similar cut). */
    if (best[0] && best_distance <= 2 + strlen(best) / 3)
        gpuplan_error_hint(err, "did you mean '%s'? fields are the job options with '_' for '-'",
                           best);
    else
        gpuplan_error_hint(err, "fields are the job options with '_' for '-', e.g. 'seq_len'");
    return GPUPLAN_ERR_USAGE;
}

/* Shortest "%.*g" text that reads back to exactly `value` (at most 17 digits). */
static void real_text(double value, char *out, size_t out_size)
{
    for (int digits = 1; digits <= 17; digits++) {
        (void)snprintf(out, out_size, "%.*g", digits, value);
        if (strtod(out, NULL) == value)
            return;
    }
}

static const char *json_type_name(const json_t *value)
{
    switch (json_typeof(value)) {
    case JSON_OBJECT:
        return "an object";
    case JSON_ARRAY:
        return "an array";
    case JSON_STRING:
        return "a string";
    case JSON_INTEGER:
    case JSON_REAL:
        return "a number";
    case JSON_TRUE:
    case JSON_FALSE:
        return "a boolean";
    case JSON_NULL:
        return "null";
    }
    return "a value";
}

static enum gpuplan_status read_model(const json_t *value,
                                      const char *path,
                                      char *model_out,
                                      size_t model_size,
                                      struct gpuplan_error *err)
{
    if (json_is_null(value))
        return GPUPLAN_OK;
    if (!json_is_string(value))
        return gpuplan_error_set(err, GPUPLAN_ERR_USAGE, path,
                                 "'model' must be a string (a catalog model id); got %s",
                                 json_type_name(value));
    const size_t n = json_string_length(value);
    if (n == 0)
        return gpuplan_error_set(err, GPUPLAN_ERR_USAGE, path, "'model' is empty");
    if (n >= model_size)
        return gpuplan_error_set(err, GPUPLAN_ERR_USAGE, path,
                                 "'model' is %zu bytes long; the limit is %zu", n, model_size - 1);
    if (memchr(json_string_value(value), '\0', n))
        return gpuplan_error_set(err, GPUPLAN_ERR_INVALID_INPUT, path,
                                 "'model' contains a NUL byte");
    memcpy(model_out, json_string_value(value), n + 1);
    return GPUPLAN_OK;
}

/* A choice between exactly "no" and "yes" (e.g. --act-offload). */
static bool is_yes_no(const struct gpuplan_job_option *opt)
{
    const char *const *c = opt->choices;
    return opt->type == GPUPLAN_OPT_CHOICE && c && c[0] && c[1] && !c[2] &&
           ((strcmp(c[0], "no") == 0 && strcmp(c[1], "yes") == 0) ||
            (strcmp(c[0], "yes") == 0 && strcmp(c[1], "no") == 0));
}

/* Apply one member: the value as the text a command line would carry. */
static enum gpuplan_status apply_option(struct gpuplan_job *job,
                                        const struct gpuplan_job_option *opt,
                                        const char *key,
                                        const json_t *value,
                                        const char *path,
                                        struct gpuplan_error *err)
{
    char number[NUMBER_TEXT_MAX];
    const char *text = NULL;
    switch (json_typeof(value)) {
    case JSON_NULL:
        return GPUPLAN_OK; /* keep the default */
    case JSON_STRING:
        text = json_string_value(value);
        if (strlen(text) != json_string_length(value))
            return gpuplan_error_set(err, GPUPLAN_ERR_INVALID_INPUT, path,
                                     "'%s' contains a NUL byte", key);
        break;
    case JSON_INTEGER:
        (void)snprintf(number, sizeof number, "%" JSON_INTEGER_FORMAT, json_integer_value(value));
        text = number;
        break;
    case JSON_REAL:
        real_text(json_real_value(value), number, sizeof number);
        text = number;
        break;
    case JSON_TRUE:
    case JSON_FALSE:
        /* Yes/no options read JSON booleans; elsewhere the option rejects "true"/"false". */
        if (is_yes_no(opt))
            text = json_is_true(value) ? "yes" : "no";
        else
            text = json_is_true(value) ? "true" : "false";
        break;
    case JSON_OBJECT:
    case JSON_ARRAY:
        gpuplan_error_set(err, GPUPLAN_ERR_USAGE, path,
                          "'%s' must be a string, number or boolean; got %s", key,
                          json_type_name(value));
        gpuplan_error_hint(err, "lists are one string, as on the command line: \"q_proj,v_proj\"");
        return GPUPLAN_ERR_USAGE;
    }
    struct gpuplan_error set_err;
    gpuplan_error_init(&set_err);
    const enum gpuplan_status status = gpuplan_job_set(job, opt->name, text, &set_err);
    if (status != GPUPLAN_OK) {
        /* Keep the option's message and hint; the location is the JSON path. */
        if (err) {
            *err = set_err;
            (void)snprintf(err->where, sizeof err->where, "%s", path);
        }
        return status;
    }
    return GPUPLAN_OK;
}

enum gpuplan_status gpuplan_job_from_json(struct gpuplan_job *job,
                                          const char *body,
                                          size_t len,
                                          char *model_out,
                                          size_t model_size,
                                          struct gpuplan_error *err)
{
    if (len > GPUPLAN_REQUEST_MAX_BODY_BYTES) {
        gpuplan_error_set(err, GPUPLAN_ERR_TOO_LARGE, "body",
                          "request body is %zu bytes; the limit is %llu", len,
                          (unsigned long long)GPUPLAN_REQUEST_MAX_BODY_BYTES);
        gpuplan_error_hint(err, "a request is a small JSON object of job options");
        return GPUPLAN_ERR_TOO_LARGE;
    }
    json_t *root = NULL;
    enum gpuplan_status status =
        gpuplan_json_parse((const uint8_t *)body, len, "body", true, &root, err);
    if (status != GPUPLAN_OK) {
        if (status == GPUPLAN_ERR_INVALID_INPUT && err)
            gpuplan_error_hint(err, "send one JSON object (UTF-8) such as "
                                    "{\"model\": \"llama-3.1-8b\", \"method\": \"lora\"}");
        return status;
    }
    const bool accepts_model = model_out != NULL && model_size > 0;
    const char *key;
    json_t *value;
    json_object_foreach(root, key, value)
    {
        char path[GPUPLAN_ERROR_WHERE_MAX];
        json_path_of(key, path, sizeof path);
        if (accepts_model && strcmp(key, "model") == 0) {
            status = read_model(value, path, model_out, model_size, err);
        } else {
            /* JSON keys spell options with '_' only: "seq-len" is not a field. */
            const struct gpuplan_job_option *opt = strchr(key, '-') ? NULL : find_option(key);
            status = opt ? apply_option(job, opt, key, value, path, err)
                         : unknown_field(key, path, accepts_model, err);
        }
        if (status != GPUPLAN_OK)
            break;
    }
    json_decref(root);
    return status;
}

/* Length of the valid UTF-8 sequence at s[0..n), or 0 when it is not one (RFC 3629). */
static size_t utf8_sequence_len(const unsigned char *s, size_t n)
{
    size_t need;
    unsigned min_cp;
    unsigned cp;
    if (s[0] < 0x80)
        return 1;
    if ((s[0] & 0xe0) == 0xc0) {
        need = 2;
        cp = s[0] & 0x1fu;
        min_cp = 0x80;
    } else if ((s[0] & 0xf0) == 0xe0) {
        need = 3;
        cp = s[0] & 0x0fu;
        min_cp = 0x800;
    } else if ((s[0] & 0xf8) == 0xf0) {
        need = 4;
        cp = s[0] & 0x07u;
        min_cp = 0x10000;
    } else {
        return 0;
    }
    if (need > n)
        return 0;
    for (size_t i = 1; i < need; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3fu);
    }
    if (cp < min_cp || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return need;
}

/*
 * Append `text` as a JSON string. Messages are truncated by snprintf and may
 * end inside a UTF-8 sequence, so invalid bytes become U+FFFD.
 */
static void append_json_string(struct gpuplan_buf *buf, const char *text)
{
    const unsigned char *s = (const unsigned char *)text;
    size_t n = strlen(text);
    gpuplan_buf_puts(buf, "\"");
    while (n > 0) {
        const unsigned char ch = s[0];
        size_t step = 1;
        if (ch == '"' || ch == '\\') {
            gpuplan_buf_printf(buf, "\\%c", ch);
        } else if (ch == '\n') {
            gpuplan_buf_puts(buf, "\\n");
        } else if (ch == '\t') {
            gpuplan_buf_puts(buf, "\\t");
        } else if (ch < 0x20 || ch == 0x7f) {
            gpuplan_buf_printf(buf, "\\u%04x", ch);
        } else {
            step = utf8_sequence_len(s, n);
            if (step == 0) {
                gpuplan_buf_puts(buf, "\\ufffd");
                step = 1;
            } else {
                gpuplan_buf_append(buf, s, step);
            }
        }
        s += step;
        n -= step;
    }
    gpuplan_buf_puts(buf, "\"");
}

void gpuplan_render_error_json(const struct gpuplan_error *err, struct gpuplan_buf *buf)
{
    gpuplan_buf_puts(buf, "{\"error\":{\"code\":");
    append_json_string(buf, gpuplan_status_name(err->code));
    gpuplan_buf_puts(buf, ",\"message\":");
    append_json_string(buf, err->message);
    gpuplan_buf_puts(buf, ",\"hint\":");
    append_json_string(buf, err->hint);
    gpuplan_buf_puts(buf, ",\"where\":");
    append_json_string(buf, err->where);
    gpuplan_buf_puts(buf, "}}\n");
}

enum gpuplan_status
gpuplan_web_page(const char **out_bytes, size_t *out_len, struct gpuplan_error *err)
{
    const struct gpuplan_embedded_file *page = gpuplan_embedded_find("index.html");
    if (!page)
        return gpuplan_error_set(err, GPUPLAN_ERR_NOT_FOUND, "index.html",
                                 "this build has no embedded web page");
    *out_bytes = (const char *)page->bytes;
    *out_len = page->len;
    return GPUPLAN_OK;
}
