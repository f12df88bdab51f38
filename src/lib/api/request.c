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

#include "catalog/embedded_data_internal.h"
#include "util/json_internal.h"
#include "util/suggest_internal.h"

#include "gpuplan/plan.h"
#include "gpuplan/units.h"

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
    /* Suggest the nearest field name (suggest_internal.h), as git's help.c does for commands. */
    struct gpuplan_suggest s;
    gpuplan_suggest_init(&s, key);
    if (accepts_model)
        gpuplan_suggest_add(&s, "model");
    for (const struct gpuplan_job_option *opt = gpuplan_job_options; opt->name; opt++) {
        char name[KEY_NAME_MAX];
        json_name_of(opt->name, name, sizeof name);
        gpuplan_suggest_add(&s, name);
    }
    if (s.n)
        gpuplan_error_hint(err, "did you mean '%s'? fields are the job options with '_' for '-'",
                           s.best[0].text);
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

#define JOB_BODY_EXAMPLE "{\"model\": \"llama-3.1-8b\", \"method\": \"lora\"}"
#define TCO_BODY_EXAMPLE "{\"gpu\": \"h100-sxm:8\", \"hours_per_day\": 12}"

/*
 * Every request body: at most GPUPLAN_REQUEST_MAX_BODY_BYTES, one JSON object
 * read by the project's JSON reader (UTF-8, no duplicate keys, bounded depth).
 */
static enum gpuplan_status parse_body(const char *body,
                                      size_t len,
                                      const char *example,
                                      json_t **root,
                                      struct gpuplan_error *err)
{
    if (len > GPUPLAN_REQUEST_MAX_BODY_BYTES) {
        gpuplan_error_set(err, GPUPLAN_ERR_TOO_LARGE, "body",
                          "request body is %zu bytes; the limit is %llu", len,
                          (unsigned long long)GPUPLAN_REQUEST_MAX_BODY_BYTES);
        gpuplan_error_hint(err, "a request is a small JSON object of job options");
        return GPUPLAN_ERR_TOO_LARGE;
    }
    enum gpuplan_status status =
        gpuplan_json_parse((const uint8_t *)body, len, "body", true, root, err);
    if (status == GPUPLAN_ERR_INVALID_INPUT && err)
        gpuplan_error_hint(err, "send one JSON object (UTF-8) such as %s", example);
    return status;
}

enum gpuplan_status gpuplan_job_from_json(struct gpuplan_job *job,
                                          const char *body,
                                          size_t len,
                                          char *model_out,
                                          size_t model_size,
                                          struct gpuplan_error *err)
{
    json_t *root = NULL;
    enum gpuplan_status status = parse_body(body, len, JOB_BODY_EXAMPLE, &root, err);
    if (status != GPUPLAN_OK)
        return status;
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

/* ---- POST /v1/tco bodies -------------------------------------------------------------------- */

/* The cost input whose flag equals `key` with '_' for '-'; -1 when none. */
static int find_cost_input(const char *key)
{
    for (int k = 0; k < GPUPLAN_COST_INPUT_COUNT; k++) {
        const char *a = gpuplan_cost_input_flag((enum gpuplan_cost_input)k);
        const char *b = key;
        while (*a && *b && (*a == *b || (*a == '-' && *b == '_'))) {
            a++;
            b++;
        }
        if (*a == '\0' && *b == '\0' && !strchr(key, '-'))
            return k;
    }
    return -1;
}

static enum gpuplan_status
tco_unknown_field(const char *key, const char *path, struct gpuplan_error *err)
{
    gpuplan_error_set(err, GPUPLAN_ERR_USAGE, path, "unknown field '%s' in the tco request body",
                      key);
    struct gpuplan_suggest s;
    gpuplan_suggest_init(&s, key);
    gpuplan_suggest_add(&s, "gpu");
    gpuplan_suggest_add(&s, "platform");
    for (int k = 0; k < GPUPLAN_COST_INPUT_COUNT; k++) {
        char name[KEY_NAME_MAX];
        json_name_of(gpuplan_cost_input_flag((enum gpuplan_cost_input)k), name, sizeof name);
        gpuplan_suggest_add(&s, name);
    }
    if (s.n)
        gpuplan_error_hint(err, "did you mean '%s'? fields are the 'gpuplan tco' flags with '_'",
                           s.best[0].text);
    else
        gpuplan_error_hint(err, "fields are the 'gpuplan tco' flags with '_' for '-', e.g. "
                                "'hours_per_day'");
    return GPUPLAN_ERR_USAGE;
}

/* A string member without NUL bytes that fits `size` (with its NUL). */
static enum gpuplan_status read_id(const json_t *value,
                                   const char *key,
                                   const char *path,
                                   char *out,
                                   size_t size,
                                   struct gpuplan_error *err)
{
    if (!json_is_string(value))
        return gpuplan_error_set(err, GPUPLAN_ERR_USAGE, path, "'%s' must be a string; got %s", key,
                                 json_type_name(value));
    const size_t n = json_string_length(value);
    if (memchr(json_string_value(value), '\0', n))
        return gpuplan_error_set(err, GPUPLAN_ERR_INVALID_INPUT, path, "'%s' contains a NUL byte",
                                 key);
    if (n == 0)
        return gpuplan_error_set(err, GPUPLAN_ERR_USAGE, path, "'%s' is empty", key);
    if (n >= size)
        return gpuplan_error_set(err, GPUPLAN_ERR_USAGE, path,
                                 "'%s' is %zu bytes long; the limit is %zu", key, n, size - 1);
    memcpy(out, json_string_value(value), n + 1);
    return GPUPLAN_OK;
}

/* "h100-sxm:8" -> id and count, with the limits of `gpuplan tco --gpu` (src/cli/cmd_tco.c). */
static enum gpuplan_status read_gpu_count(struct gpuplan_tco_request *req,
                                          const char *text,
                                          const char *path,
                                          struct gpuplan_error *err)
{
    const char *colon = strchr(text, ':');
    const size_t len = colon ? (size_t)(colon - text) : strlen(text);
    if (len == 0 || len >= sizeof req->gpu_id) {
        gpuplan_error_set(err, GPUPLAN_ERR_USAGE, path, "'gpu' value '%.80s' is not ID:N", text);
        gpuplan_error_hint(err, "e.g. \"h100-sxm:8\"; GET /v1/gpus lists the ids");
        return GPUPLAN_ERR_USAGE;
    }
    memcpy(req->gpu_id, text, len);
    req->gpu_id[len] = '\0';
    req->n_gpus = 1;
    if (colon) {
        uint64_t n = 0;
        if (!gpuplan_parse_count(colon + 1, &n) || n < 1 || n > 100000) {
            return gpuplan_error_set(err, GPUPLAN_ERR_USAGE, path,
                                     "GPU count '%.40s' in 'gpu' must be 1..100000", colon + 1);
        }
        req->n_gpus = (uint32_t)n;
    }
    return GPUPLAN_OK;
}

/* A cost input: a JSON number, or a string with a number (as the flag's text). */
static enum gpuplan_status read_cost_value(struct gpuplan_tco_request *req,
                                           int k,
                                           const char *key,
                                           const json_t *value,
                                           const char *path,
                                           struct gpuplan_error *err)
{
    double v = 0.0;
    if (json_is_null(value))
        return GPUPLAN_OK;
    if (json_is_number(value)) {
        v = json_number_value(value);
    } else if (json_is_string(value) &&
               strlen(json_string_value(value)) == json_string_length(value) &&
               gpuplan_parse_double(json_string_value(value), &v)) {
        /* numeric text, as on the command line */
    } else {
        gpuplan_error_set(err, GPUPLAN_ERR_USAGE, path, "'%s' needs a number; got %s", key,
                          json_type_name(value));
        gpuplan_error_hint(err, "unit: %s", gpuplan_cost_input_unit((enum gpuplan_cost_input)k));
        return GPUPLAN_ERR_USAGE;
    }
    req->set[k] = true;
    req->value[k] = v;
    return GPUPLAN_OK;
}

enum gpuplan_status gpuplan_tco_request_from_json(struct gpuplan_tco_request *req,
                                                  const char *body,
                                                  size_t len,
                                                  struct gpuplan_error *err)
{
    memset(req, 0, sizeof *req);
    req->n_gpus = 1;
    if (len > GPUPLAN_REQUEST_MAX_BODY_BYTES) {
        gpuplan_error_set(err, GPUPLAN_ERR_TOO_LARGE, "body",
                          "request body is %zu bytes; the limit is %llu", len,
                          (unsigned long long)GPUPLAN_REQUEST_MAX_BODY_BYTES);
        gpuplan_error_hint(err, "a request is a small JSON object of tco options");
        return GPUPLAN_ERR_TOO_LARGE;
    }
    json_t *root = NULL;
    enum gpuplan_status status =
        gpuplan_json_parse((const uint8_t *)body, len, "body", true, &root, err);
    if (status != GPUPLAN_OK) {
        if (status == GPUPLAN_ERR_INVALID_INPUT && err)
            gpuplan_error_hint(err, "send one JSON object (UTF-8) such as "
                                    "{\"gpu\": \"h100-sxm:8\", \"hours_per_day\": 12}");
        return status;
    }
    const char *key;
    json_t *value;
    json_object_foreach(root, key, value)
    {
        char path[GPUPLAN_ERROR_WHERE_MAX];
        json_path_of(key, path, sizeof path);
        int k = -1;
        if (strcmp(key, "gpu") == 0) {
            char text[2 * GPUPLAN_TCO_REQUEST_ID_MAX];
            status = json_is_null(value) ? GPUPLAN_OK
                                         : read_id(value, key, path, text, sizeof text, err);
            if (status == GPUPLAN_OK && !json_is_null(value))
                status = read_gpu_count(req, text, path, err);
        } else if (strcmp(key, "platform") == 0) {
            status = json_is_null(value) ? GPUPLAN_OK
                                         : read_id(value, key, path, req->platform_id,
                                                   sizeof req->platform_id, err);
        } else if ((k = find_cost_input(key)) >= 0) {
            status = read_cost_value(req, k, key, value, path, err);
        } else {
            status = tco_unknown_field(key, path, err);
        }
        if (status != GPUPLAN_OK)
            break;
    }
    json_decref(root);
    if (status == GPUPLAN_OK && !req->gpu_id[0]) {
        gpuplan_error_set(err, GPUPLAN_ERR_USAGE, "$.gpu", "missing 'gpu' in the request body");
        gpuplan_error_hint(err, "name a catalog GPU and count, e.g. {\"gpu\": \"h100-sxm:8\"}; "
                                "GET /v1/gpus lists them");
        return GPUPLAN_ERR_USAGE;
    }
    return status;
}

enum gpuplan_status gpuplan_tco_request_run(const struct gpuplan_catalog *catalog,
                                            const struct gpuplan_tco_request *req,
                                            struct gpuplan_cost_inputs *in,
                                            struct gpuplan_tco *out,
                                            struct gpuplan_error *err)
{
    const struct gpuplan_gpu *gpu = NULL;
    if (gpuplan_catalog_get_gpu(catalog, req->gpu_id, &gpu, err) != GPUPLAN_OK) {
        (void)snprintf(err->where, sizeof err->where, "$.gpu");
        return err->code;
    }
    /* As cmd_tco.c: the named platform, else the GPU's first one, else none. */
    const struct gpuplan_platform *platform = NULL;
    const char *platform_id =
        req->platform_id[0] ? req->platform_id : (gpu->n_platforms ? gpu->platforms[0] : NULL);
    if (platform_id) {
        platform = gpuplan_catalog_find_platform(catalog, platform_id);
        if (!platform && req->platform_id[0]) {
            gpuplan_error_set(err, GPUPLAN_ERR_NOT_FOUND, "$.platform", "unknown platform '%s'",
                              req->platform_id);
            gpuplan_error_hint(err, "GET /v1/gpus lists each GPU's platforms");
            return GPUPLAN_ERR_NOT_FOUND;
        }
    }
    enum gpuplan_status st = gpuplan_cost_inputs_init(in, gpu, req->n_gpus, platform, err);
    for (int k = 0; st == GPUPLAN_OK && k < GPUPLAN_COST_INPUT_COUNT; k++) {
        if (!req->set[k])
            continue;
        st = gpuplan_cost_inputs_set(in, (enum gpuplan_cost_input)k, req->value[k], err);
        if (st != GPUPLAN_OK) {
            char name[KEY_NAME_MAX];
            json_name_of(gpuplan_cost_input_flag((enum gpuplan_cost_input)k), name, sizeof name);
            (void)snprintf(err->where, sizeof err->where, "$.%s", name);
        }
    }
    if (st == GPUPLAN_OK)
        st = gpuplan_tco_compute(in, out, err);
    return st;
}

/* ---- POST /v1/recommend bodies --------------------------------------------------------------- */

/* A number >= 0 (JSON number or numeric string), as `gpuplan recommend` reads its reals. */
static enum gpuplan_status plan_real(const json_t *value,
                                     const char *key,
                                     const char *path,
                                     double *out,
                                     struct gpuplan_error *err)
{
    double v = -1.0;
    if (json_is_number(value))
        v = json_number_value(value);
    else if (!json_is_string(value) ||
             strlen(json_string_value(value)) != json_string_length(value) ||
             !gpuplan_parse_double(json_string_value(value), &v))
        v = -1.0;
    if (!(v >= 0.0))
        return gpuplan_error_set(err, GPUPLAN_ERR_USAGE, path, "'%s' must be a number >= 0", key);
    *out = v;
    return GPUPLAN_OK;
}

/* The text of a string member (no NUL bytes), or NULL with err set. */
static const char *
plan_text(const json_t *value, const char *key, const char *path, struct gpuplan_error *err)
{
    if (!json_is_string(value) || strlen(json_string_value(value)) != json_string_length(value)) {
        gpuplan_error_set(err, GPUPLAN_ERR_USAGE, path, "'%s' must be a string; got %s", key,
                          json_type_name(value));
        return NULL;
    }
    return json_string_value(value);
}

static enum gpuplan_status plan_choice(const json_t *value,
                                       const char *key,
                                       const char *path,
                                       const char *const *names,
                                       int n,
                                       int *out,
                                       struct gpuplan_error *err)
{
    const char *text = plan_text(value, key, path, err);
    if (!text)
        return GPUPLAN_ERR_USAGE;
    for (int i = 0; i < n; i++) {
        if (strcmp(text, names[i]) == 0) {
            *out = i;
            return GPUPLAN_OK;
        }
    }
    gpuplan_error_set(err, GPUPLAN_ERR_USAGE, path, "unknown value '%.64s' for '%s'", text, key);
    gpuplan_error_hint(err, "one of %s|%s|%s|%s", names[0], names[1], names[2], names[3]);
    return GPUPLAN_ERR_USAGE;
}

/* "a,b" -> gpu_ids, a ":N" count dropped (searched), as cmd_recommend.c's --gpu. */
static enum gpuplan_status plan_gpu_list(struct gpuplan_plan_request *req,
                                         const json_t *value,
                                         const char *path,
                                         struct gpuplan_error *err)
{
    const char *text = plan_text(value, "gpu", path, err);
    if (!text)
        return GPUPLAN_ERR_USAGE;
    req->n_gpu_ids = 0;
    for (const char *p = text; *p;) {
        const size_t n = strcspn(p, ",");
        if (n == 0 || n >= sizeof req->gpu_ids[0] || req->n_gpu_ids >= GPUPLAN_PLAN_MAX_GPU_IDS)
            return gpuplan_error_set(err, GPUPLAN_ERR_USAGE, path,
                                     "'gpu' is '%.64s'; want up to %d ids separated by ','", text,
                                     GPUPLAN_PLAN_MAX_GPU_IDS);
        char *id = req->gpu_ids[req->n_gpu_ids];
        memcpy(id, p, n);
        id[n] = '\0';
        char *colon = strchr(id, ':');
        if (colon)
            *colon = '\0';
        req->n_gpu_ids++;
        p += n;
        if (*p == ',')
            p++;
    }
    return GPUPLAN_OK;
}

/* A planner member; *matched false when `key` is not a planner option. */
static enum gpuplan_status plan_member(struct gpuplan_plan_request *req,
                                       const char *key,
                                       const json_t *value,
                                       const char *path,
                                       bool *matched,
                                       struct gpuplan_error *err)
{
    static const char *const objectives[] = { "cost", "time", "gpus", "capex" };
    static const char *const vendors[] = { "nvidia", "amd", "intel", "any" };
    *matched = true;
    int choice = 0;
    enum gpuplan_status st = GPUPLAN_OK;
    if (strcmp(key, "on_prem") == 0 || strcmp(key, "cloud") == 0) {
        if (!json_is_boolean(value))
            return gpuplan_error_set(err, GPUPLAN_ERR_USAGE, path, "'%s' must be true or false",
                                     key);
        if (json_is_true(value))
            req->where = key[0] == 'o' ? GPUPLAN_WHERE_ON_PREM : GPUPLAN_WHERE_CLOUD;
    } else if (strcmp(key, "deadline_hours") == 0) {
        st = plan_real(value, key, path, &req->deadline_hours, err);
    } else if (strcmp(key, "budget") == 0) {
        st = plan_real(value, key, path, &req->budget_usd, err);
    } else if (strcmp(key, "target_tokens_per_s") == 0) {
        st = plan_real(value, key, path, &req->target_tokens_per_s_per_user, err);
    } else if (strcmp(key, "headroom") == 0) {
        st = plan_real(value, key, path, &req->min_headroom_fraction, err);
    } else if (strcmp(key, "max_gpus") == 0 || strcmp(key, "top") == 0) {
        double v = 0.0;
        st = plan_real(value, key, path, &v, err);
        /* 1..4096 as the CLI; whole numbers only. */
        if (st == GPUPLAN_OK && (v < 1.0 || v > 4096.0 || v != (double)(uint32_t)v))
            st = gpuplan_error_set(err, GPUPLAN_ERR_USAGE, path, "'%s' must be 1..4096", key);
        if (st == GPUPLAN_OK && key[0] == 'm')
            req->max_gpus = (uint32_t)v;
        else if (st == GPUPLAN_OK)
            req->top_k = (uint32_t)v;
    } else if (strcmp(key, "objective") == 0) {
        st = plan_choice(value, key, path, objectives, 4, &choice, err);
        if (st == GPUPLAN_OK)
            req->objective = (enum gpuplan_plan_objective)choice;
    } else if (strcmp(key, "vendor") == 0) {
        st = plan_choice(value, key, path, vendors, 4, &choice, err);
        if (st == GPUPLAN_OK)
            req->vendor = choice == 3 ? GPUPLAN_PLAN_ANY_VENDOR : choice;
    } else if (strcmp(key, "gpu") == 0) {
        st = plan_gpu_list(req, value, path, err);
    } else if (strcmp(key, "nodes") == 0 || strcmp(key, "tp") == 0 || strcmp(key, "pp") == 0) {
        gpuplan_error_set(err, GPUPLAN_ERR_USAGE, path, "'%s' is searched by the planner", key);
        gpuplan_error_hint(err, "use 'max_gpus'");
        st = GPUPLAN_ERR_USAGE;
    } else {
        *matched = false;
    }
    return st;
}

enum gpuplan_status gpuplan_plan_request_from_json(struct gpuplan_plan_request *req,
                                                   const char *body,
                                                   size_t len,
                                                   char *model_out,
                                                   size_t model_size,
                                                   struct gpuplan_error *err)
{
    json_t *root = NULL;
    enum gpuplan_status status = parse_body(body, len, JOB_BODY_EXAMPLE, &root, err);
    if (status != GPUPLAN_OK)
        return status;
    const bool accepts_model = model_out != NULL && model_size > 0;
    const char *key;
    json_t *value;
    json_object_foreach(root, key, value)
    {
        char path[GPUPLAN_ERROR_WHERE_MAX];
        json_path_of(key, path, sizeof path);
        bool matched = false;
        if (accepts_model && strcmp(key, "model") == 0) {
            status = read_model(value, path, model_out, model_size, err);
            matched = true;
        } else if (!json_is_null(value)) {
            status = plan_member(req, key, value, path, &matched, err);
        } else {
            /* null keeps the default of any known field */
            static const char *const planner_keys[] = { "on_prem",
                                                        "cloud",
                                                        "deadline_hours",
                                                        "budget",
                                                        "target_tokens_per_s",
                                                        "headroom",
                                                        "max_gpus",
                                                        "top",
                                                        "objective",
                                                        "vendor",
                                                        "gpu",
                                                        "concurrency" };
            for (size_t i = 0; i < sizeof planner_keys / sizeof planner_keys[0]; i++)
                matched = matched || strcmp(key, planner_keys[i]) == 0;
            matched = matched || (!strchr(key, '-') && find_option(key) != NULL);
        }
        if (status == GPUPLAN_OK && !matched) {
            const char *job_key = strcmp(key, "concurrency") == 0 ? "batch" : key;
            const struct gpuplan_job_option *opt = strchr(key, '-') ? NULL : find_option(job_key);
            status = opt ? apply_option(&req->job, opt, key, value, path, err)
                         : unknown_field(key, path, accepts_model, err);
            if (status == GPUPLAN_OK && opt)
                gpuplan_plan_request_mark_fixed(req, opt->name);
        }
        if (status != GPUPLAN_OK)
            break;
    }
    json_decref(root);
    return status;
}
