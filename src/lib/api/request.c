/*
 * request.c - JSON request bodies through the option tables, the tco
 * request, the page (see request.h).
 *
 * The body is parsed once by the project's JSON reader (json_internal.h:
 * duplicate keys, invalid UTF-8 and NaN are rejected there), then each
 * member is found in the request's option tables (options.h) and its value
 * turned into the text the command line would have carried, which the
 * table's setter checks: the CLI and the API share every name, range and
 * message. Members are applied in document order (jansson keeps insertion
 * order), so the first bad field of a body is the one reported.
 */
#include "gpuplan/request.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/embedded_data_internal.h"
#include "util/i18n_internal.h"
#include "util/json_internal.h"
#include "util/suggest_internal.h"

#include "gpuplan/config.h"
#include "gpuplan/plan.h"
#include "gpuplan/units.h"

/* Longest option value as text: a double needs 24 bytes, strings are passed through. */
#define NUMBER_TEXT_MAX 40
/* Longest option name compared when looking a key up in the option tables. */
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

/*
 * Every request body: at most GPUPLAN_REQUEST_MAX_BODY_BYTES, one JSON object
 * read by the project's JSON reader (UTF-8, no duplicate keys, bounded depth).
 */
static enum gpuplan_status parse_body(const char *body,
                                      size_t len,
                                      bool tco,
                                      const char *example,
                                      json_t **root,
                                      struct gpuplan_error *err)
{
    if (len > GPUPLAN_REQUEST_MAX_BODY_BYTES) {
        gpuplan_error_set(err, GPUPLAN_ERR_TOO_LARGE, "body",
                          "request body is %zu bytes; the limit is %llu", len,
                          (unsigned long long)GPUPLAN_REQUEST_MAX_BODY_BYTES);
        if (tco)
            gpuplan_error_hint(err, "a request is a small JSON object of tco options");
        else
            gpuplan_error_hint(err, "a request is a small JSON object of job options");
        return GPUPLAN_ERR_TOO_LARGE;
    }
    enum gpuplan_status status =
        gpuplan_json_parse((const uint8_t *)body, len, "body", true, root, err);
    if (status == GPUPLAN_ERR_INVALID_INPUT && err)
        gpuplan_error_hint(err, "send one JSON object (UTF-8) such as %s", example);
    return status;
}

/* The JSON spelling of an option name ("seq-len" -> "seq_len"). */
static void json_name_of(const char *option_name, char *out, size_t out_size)
{
    size_t i = 0;
    for (; option_name[i] && i + 1 < out_size; i++)
        out[i] = option_name[i] == '-' ? '_' : option_name[i];
    out[i] = '\0';
}

/* "lang": the language of the answer's text (the service picks it; here only checked). */
static enum gpuplan_status
read_lang(const json_t *value, const char *path, struct gpuplan_error *err)
{
    if (json_is_null(value))
        return GPUPLAN_OK;
    const char *v = json_is_string(value) ? json_string_value(value) : NULL;
    if (v && gpuplan_request_lang_is_known(v))
        return GPUPLAN_OK;
    gpuplan_error_set(err, GPUPLAN_ERR_USAGE, path, "'lang' must be one of %s; got %s",
                      GPUPLAN_REQUEST_LANGS, v ? v : json_type_name(value));
    gpuplan_error_hint(err, "omit it for English, or send the Accept-Language header");
    return GPUPLAN_ERR_USAGE;
}

bool gpuplan_request_lang_is_known(const char *lang)
{
    return strcmp(lang, "en") == 0 || strcmp(lang, "ru") == 0;
}

/* Which request a body is: the words of its unknown-field errors. */
enum body_kind { BODY_JOB, BODY_TCO };

/* One body: the tables its keys name, and what to do beside setting them. */
struct body_reader {
    const struct gpuplan_option_group *groups;
    size_t n_groups;
    enum body_kind kind;
    const char *example; /* a body such as {"model": ...}, for the malformed-JSON hint */
    char *model_out;     /* NULL: "model" is an unknown field */
    size_t model_size;
    /* called after each option applied (the planner marks the knobs it fixes) */
    void (*on_set)(void *ctx, const struct gpuplan_option *opt);
    void *ctx;
    struct gpuplan_config *cfg; /* "from": config files read into it; NULL: an unknown field */
};

/* A field of the body: not a command-line-only option. */
static bool is_field(const struct gpuplan_option *opt)
{
    return !(opt->flags & GPUPLAN_OPTION_CLI_ONLY);
}

/* The option whose JSON name is `key` (no '-' in keys), and its group. */
static const struct gpuplan_option *
find_field(const struct body_reader *r, const char *key, size_t *group)
{
    if (strchr(key, '-'))
        return NULL;
    for (size_t g = 0; g < r->n_groups; g++) {
        for (const struct gpuplan_option *o = r->groups[g].options; o->name; o++) {
            char name[KEY_NAME_MAX];
            json_name_of(o->name, name, sizeof name);
            if (is_field(o) && strcmp(name, key) == 0) {
                *group = g;
                return o;
            }
        }
    }
    return NULL;
}

static enum gpuplan_status unknown_field(const struct body_reader *r,
                                         const char *key,
                                         const char *path,
                                         struct gpuplan_error *err)
{
    const bool tco = r->kind == BODY_TCO;
    if (tco)
        gpuplan_error_set(err, GPUPLAN_ERR_USAGE, path,
                          "unknown field '%s' in the tco request body", key);
    else
        gpuplan_error_set(err, GPUPLAN_ERR_USAGE, path, "unknown field '%s' in the request body",
                          key);
    /* Suggest the nearest field name (suggest_internal.h), as git's help.c does for commands. */
    struct gpuplan_suggest s;
    gpuplan_suggest_init(&s, key);
    if (r->model_out)
        gpuplan_suggest_add(&s, "model");
    for (size_t g = 0; g < r->n_groups; g++) {
        for (const struct gpuplan_option *o = r->groups[g].options; o->name; o++) {
            char name[KEY_NAME_MAX];
            json_name_of(o->name, name, sizeof name);
            if (is_field(o) && !(o->flags & r->groups[g].refuse))
                gpuplan_suggest_add(&s, name);
        }
    }
    if (s.n && tco)
        gpuplan_error_hint(err, "did you mean '%s'? fields are the 'gpuplan tco' flags with '_'",
                           s.best[0].text);
    else if (s.n)
        gpuplan_error_hint(err, "did you mean '%s'? fields are the job options with '_' for '-'",
                           s.best[0].text);
    else if (tco)
        gpuplan_error_hint(err, "fields are the 'gpuplan tco' flags with '_' for '-', e.g. "
                                "'hours_per_day'");
    else
        gpuplan_error_hint(err, "fields are the job options with '_' for '-', e.g. 'seq_len'");
    return GPUPLAN_ERR_USAGE;
}

/* A choice between exactly "no" and "yes" (e.g. --act-offload): JSON booleans name them. */
static bool is_yes_no(const struct gpuplan_option *opt)
{
    const char *const *c = opt->choices;
    return opt->kind == GPUPLAN_OPTION_CHOICE && c && c[0] && c[1] && !c[2] &&
           ((strcmp(c[0], "no") == 0 && strcmp(c[1], "yes") == 0) ||
            (strcmp(c[0], "yes") == 0 && strcmp(c[1], "no") == 0));
}

/*
 * The text a command line would carry for `value`: strings as they are,
 * integers in decimal, reals as the shortest text that reads back exactly,
 * booleans as yes/no for yes/no choices (else "true"/"false", which the
 * option refuses with its own message). *text NULL with GPUPLAN_OK: null,
 * keep the default.
 */
static enum gpuplan_status value_text(const struct gpuplan_option *opt,
                                      const char *key,
                                      const json_t *value,
                                      const char *path,
                                      char *number,
                                      const char **text,
                                      struct gpuplan_error *err)
{
    *text = NULL;
    switch (json_typeof(value)) {
    case JSON_NULL:
        return GPUPLAN_OK;
    case JSON_STRING:
        *text = json_string_value(value);
        if (strlen(*text) != json_string_length(value))
            return gpuplan_error_set(err, GPUPLAN_ERR_INVALID_INPUT, path,
                                     "'%s' contains a NUL byte", key);
        return GPUPLAN_OK;
    case JSON_INTEGER:
        (void)snprintf(number, NUMBER_TEXT_MAX, "%" JSON_INTEGER_FORMAT, json_integer_value(value));
        *text = number;
        return GPUPLAN_OK;
    case JSON_REAL:
        gpuplan_format_double(number, NUMBER_TEXT_MAX, json_real_value(value));
        *text = number;
        return GPUPLAN_OK;
    case JSON_TRUE:
    case JSON_FALSE:
        if (is_yes_no(opt))
            *text = json_is_true(value) ? "yes" : "no";
        else
            *text = json_is_true(value) ? "true" : "false";
        return GPUPLAN_OK;
    case JSON_OBJECT:
    case JSON_ARRAY:
        break;
    }
    gpuplan_error_set(err, GPUPLAN_ERR_USAGE, path,
                      "'%s' must be a string, number or boolean; got %s", key,
                      json_type_name(value));
    gpuplan_error_hint(err, "lists are one string, as on the command line: \"q_proj,v_proj\"");
    return GPUPLAN_ERR_USAGE;
}

/* Apply one member to its option: the value as the text a command line would carry. */
static enum gpuplan_status apply_field(const struct body_reader *r,
                                       const struct gpuplan_option_group *group,
                                       const struct gpuplan_option *opt,
                                       const char *key,
                                       const json_t *value,
                                       const char *path,
                                       struct gpuplan_error *err)
{
    if ((opt->flags & group->refuse) && (strcmp(key, "cp") == 0 || strcmp(key, "vpp") == 0)) {
        gpuplan_error_set(err, GPUPLAN_ERR_USAGE, path,
                          "'%s' is not planned: the planner searches data, tensor and pipeline "
                          "parallelism",
                          key);
        gpuplan_error_hint(err, "POST /v1/estimate with '%s' evaluates a layout with it", key);
        return GPUPLAN_ERR_USAGE;
    }
    if (opt->flags & group->refuse) {
        gpuplan_error_set(err, GPUPLAN_ERR_USAGE, path, "'%s' is searched by the planner", key);
        gpuplan_error_hint(err, "use 'max_gpus'");
        return GPUPLAN_ERR_USAGE;
    }
    if (json_is_null(value))
        return GPUPLAN_OK; /* keep the default */
    char number[NUMBER_TEXT_MAX];
    const char *text = NULL;
    if (opt->kind == GPUPLAN_OPTION_FLAG) {
        if (!json_is_boolean(value))
            return gpuplan_error_set(err, GPUPLAN_ERR_USAGE, path, "'%s' must be true or false",
                                     key);
        if (json_is_false(value))
            return GPUPLAN_OK;
    } else {
        const enum gpuplan_status st = value_text(opt, key, value, path, number, &text, err);
        if (st != GPUPLAN_OK)
            return st;
    }
    struct gpuplan_error set_err;
    gpuplan_error_init(&set_err);
    const enum gpuplan_status status = gpuplan_option_set(opt, group->dest, text, true, &set_err);
    if (status != GPUPLAN_OK) {
        /* Keep the option's message and hint; the location is the JSON path. */
        if (err) {
            *err = set_err;
            (void)snprintf(err->where, sizeof err->where, "%s", path);
        }
        return status;
    }
    if (r->on_set)
        r->on_set(r->ctx, opt);
    return GPUPLAN_OK;
}

/* Most config files one body carries in "from" (as `--from` takes them). */
#define BODY_MAX_FROM 8

/* One "from" entry: {"text": FILE'S TEXT, "kind": "axolotl" (optional), "name": "x.yaml"}. */
static enum gpuplan_status read_from_entry(struct gpuplan_config *cfg,
                                           const json_t *entry,
                                           size_t i,
                                           struct gpuplan_error *err)
{
    char path[64], name[GPUPLAN_CONFIG_WHERE_MAX];
    (void)snprintf(path, sizeof path, "$.from[%zu]", i);
    if (!json_is_object(entry))
        return gpuplan_error_set(err, GPUPLAN_ERR_USAGE, path,
                                 "'from' entries must be objects {\"text\", \"kind\", \"name\"}");
    const json_t *text = json_object_get(entry, "text");
    const json_t *kind = json_object_get(entry, "kind");
    const json_t *nm = json_object_get(entry, "name");
    if (!json_is_string(text))
        return gpuplan_error_set(err, GPUPLAN_ERR_USAGE, path,
                                 "'from[%zu].text' must be the config file's text", i);
    if (json_string_length(text) > GPUPLAN_CONFIG_MAX_BYTES)
        return gpuplan_error_set(err, GPUPLAN_ERR_TOO_LARGE, path,
                                 "'from[%zu].text' is over %u bytes", i, GPUPLAN_CONFIG_MAX_BYTES);
    enum gpuplan_config_kind k = GPUPLAN_CONFIG_AUTO;
    if (kind && !json_is_null(kind) &&
        (!json_is_string(kind) || !gpuplan_config_kind_from_name(json_string_value(kind), &k))) {
        gpuplan_error_set(err, GPUPLAN_ERR_USAGE, path, "'from[%zu].kind' is not a config kind", i);
        gpuplan_error_hint(err, "deepspeed, accelerate, axolotl, llama-factory, torchtune, trl, "
                                "peft or auto");
        return GPUPLAN_ERR_USAGE;
    }
    if (nm && json_is_string(nm))
        (void)snprintf(name, sizeof name, "%.64s", json_string_value(nm));
    else
        (void)snprintf(name, sizeof name, "from[%zu]", i);
    return gpuplan_config_read(cfg, (const uint8_t *)json_string_value(text),
                               json_string_length(text), name, k, err);
}

/* The knobs the files set (or their framework's defaults): fixed for the planner. */
static void from_fixes(const struct body_reader *r)
{
    static const char *const knobs[] = { "method",    "precision", "micro-batch",
                                         "grad-ckpt", "sharding",  "offload" };
    for (size_t k = 0; r->on_set && k < sizeof knobs / sizeof knobs[0]; k++) {
        for (size_t i = 0; i < r->cfg->n_notes; i++) {
            const struct gpuplan_config_note *n = &r->cfg->notes[i];
            if (strcmp(n->setting, knobs[k]) == 0 &&
                (n->kind == GPUPLAN_CONFIG_NOTE_MAPPED || n->kind == GPUPLAN_CONFIG_NOTE_DEFAULT)) {
                r->on_set(r->ctx, gpuplan_options_find(gpuplan_job_options, knobs[k]));
                break;
            }
        }
    }
}

/* "from" first, whatever its place: the files' job, which the other members override. */
static enum gpuplan_status
read_from(const struct body_reader *r, const json_t *root, struct gpuplan_error *err)
{
    const json_t *from = json_object_get(root, "from");
    if (!from || !r->cfg)
        return GPUPLAN_OK;
    if (!json_is_array(from) || json_array_size(from) == 0 || json_array_size(from) > BODY_MAX_FROM)
        return gpuplan_error_set(err, GPUPLAN_ERR_USAGE, "$.from",
                                 "'from' must be a list of 1..%d config files", BODY_MAX_FROM);
    for (size_t i = 0; i < json_array_size(from); i++) {
        const enum gpuplan_status st = read_from_entry(r->cfg, json_array_get(from, i), i, err);
        if (st != GPUPLAN_OK)
            return st;
    }
    for (size_t g = 0; g < r->n_groups; g++) {
        if (r->groups[g].options == gpuplan_job_options)
            memcpy(r->groups[g].dest, &r->cfg->job, sizeof r->cfg->job);
    }
    if (r->model_out && r->cfg->model_id[0])
        (void)snprintf(r->model_out, r->model_size, "%s", r->cfg->model_id);
    from_fixes(r);
    return GPUPLAN_OK;
}

/* Read one body: every member is "model" or a field of the reader's tables. */
static enum gpuplan_status
read_body(const struct body_reader *r, const char *body, size_t len, struct gpuplan_error *err)
{
    json_t *root = NULL;
    enum gpuplan_status status = parse_body(body, len, r->kind == BODY_TCO, r->example, &root, err);
    if (status != GPUPLAN_OK)
        return status;
    status = read_from(r, root, err);
    const char *key;
    json_t *value;
    json_object_foreach(root, key, value)
    {
        if (status != GPUPLAN_OK)
            break;
        if (r->cfg && strcmp(key, "from") == 0)
            continue;
        char path[GPUPLAN_ERROR_WHERE_MAX];
        json_path_of(key, path, sizeof path);
        size_t group = 0;
        const struct gpuplan_option *opt = NULL;
        if (r->model_out && strcmp(key, "model") == 0)
            status = read_model(value, path, r->model_out, r->model_size, err);
        else if (strcmp(key, "lang") == 0)
            status = read_lang(value, path, err);
        else if ((opt = find_field(r, key, &group)) != NULL)
            status = apply_field(r, &r->groups[group], opt, key, value, path, err);
        else
            status = unknown_field(r, key, path, err);
        if (status != GPUPLAN_OK)
            break;
    }
    json_decref(root);
    return status;
}

#define JOB_BODY_EXAMPLE "{\"model\": \"llama-3.1-8b\", \"method\": \"lora\"}"
#define TCO_BODY_EXAMPLE "{\"gpu\": \"h100-sxm:8\", \"hours_per_day\": 12}"

/* A job body (estimate) or a plan body (recommend): the job's fields, with "model". */
static enum gpuplan_status read_job_body(const struct gpuplan_option_group *groups,
                                         size_t n_groups,
                                         struct gpuplan_config *cfg,
                                         void (*on_set)(void *ctx,
                                                        const struct gpuplan_option *opt),
                                         void *ctx,
                                         const char *body,
                                         size_t len,
                                         char *model_out,
                                         size_t model_size,
                                         struct gpuplan_error *err)
{
    const bool accepts_model = model_out != NULL && model_size > 0;
    const struct body_reader r = {
        groups, n_groups, BODY_JOB, JOB_BODY_EXAMPLE, accepts_model ? model_out : NULL, model_size,
        on_set, ctx,      cfg
    };
    return read_body(&r, body, len, err);
}

enum gpuplan_status gpuplan_job_from_json_config(struct gpuplan_job *job,
                                                 const char *body,
                                                 size_t len,
                                                 char *model_out,
                                                 size_t model_size,
                                                 struct gpuplan_config *cfg,
                                                 struct gpuplan_error *err)
{
    const struct gpuplan_option_group groups[] = { { gpuplan_job_options, job, 0 } };
    return read_job_body(groups, 1, cfg, NULL, NULL, body, len, model_out, model_size, err);
}

enum gpuplan_status gpuplan_job_from_json(struct gpuplan_job *job,
                                          const char *body,
                                          size_t len,
                                          char *model_out,
                                          size_t model_size,
                                          struct gpuplan_error *err)
{
    return gpuplan_job_from_json_config(job, body, len, model_out, model_size, NULL, err);
}

/* A job option the body gave fixes its knob (plan.h). */
static void mark_fixed(void *ctx, const struct gpuplan_option *opt)
{
    gpuplan_plan_request_mark_fixed(ctx, opt);
}

enum gpuplan_status gpuplan_plan_request_from_json_config(struct gpuplan_plan_request *req,
                                                          const char *body,
                                                          size_t len,
                                                          char *model_out,
                                                          size_t model_size,
                                                          struct gpuplan_config *cfg,
                                                          struct gpuplan_error *err)
{
    const struct gpuplan_option_group groups[] = {
        { gpuplan_plan_options, req, 0 },
        { gpuplan_job_options, &req->job, GPUPLAN_OPTION_SEARCHED },
    };
    return read_job_body(groups, 2, cfg, mark_fixed, req, body, len, model_out, model_size, err);
}

/* ---- the proposal request ------------------------------------------------------------------ */

#define PROPOSE(field) GPUPLAN_OPTION_AT(struct gpuplan_propose_body, field)

/* The members a proposal body has beside a recommend body's ("lang" is every body's). */
static const struct gpuplan_option propose_body_options[] = {
    { .name = "format",
      .kind = GPUPLAN_OPTION_CHOICE,
      .field = GPUPLAN_FIELD_INT,
      PROPOSE(format),
      .set_offset = GPUPLAN_OPTION_NO_SET,
      .help = GPUPLAN_N_("document format"),
      .default_value = "html",
      .choices = gpuplan_format_names,
      .choice_values = gpuplan_format_values,
      .choice_mask = GPUPLAN_RENDER_PROPOSAL_FORMATS },
    { .name = "chart-width",
      .kind = GPUPLAN_OPTION_REAL,
      .field = GPUPLAN_FIELD_DOUBLE,
      PROPOSE(chart_width_px),
      .set_offset = GPUPLAN_OPTION_NO_SET,
      .arg = "PX",
      .help = GPUPLAN_N_("format json: the charts' width in px"),
      .real_min = 240,
      .real_max = 2000 },
    { .name = NULL },
};

enum gpuplan_status gpuplan_propose_request_from_json_config(struct gpuplan_plan_request *req,
                                                             struct gpuplan_propose_body *doc,
                                                             const char *body,
                                                             size_t len,
                                                             char *model_out,
                                                             size_t model_size,
                                                             struct gpuplan_config *cfg,
                                                             struct gpuplan_error *err)
{
    memset(doc, 0, sizeof *doc);
    if (gpuplan_options_init(propose_body_options, doc, err) != GPUPLAN_OK)
        return err->code;
    const struct gpuplan_option_group groups[] = {
        { gpuplan_plan_options, req, 0 },
        { gpuplan_job_options, &req->job, GPUPLAN_OPTION_SEARCHED },
        { propose_body_options, doc, 0 },
    };
    return read_job_body(groups, 3, cfg, mark_fixed, req, body, len, model_out, model_size, err);
}

enum gpuplan_status gpuplan_plan_request_from_json(struct gpuplan_plan_request *req,
                                                   const char *body,
                                                   size_t len,
                                                   char *model_out,
                                                   size_t model_size,
                                                   struct gpuplan_error *err)
{
    return gpuplan_plan_request_from_json_config(req, body, len, model_out, model_size, NULL, err);
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

/* ---- the tco request ------------------------------------------------------------------------ */

#define TCO(field) GPUPLAN_OPTION_AT(struct gpuplan_tco_request, field)

const struct gpuplan_option gpuplan_tco_options[] = {
    { .name = "gpu",
      .kind = GPUPLAN_OPTION_TEXT,
      .field = GPUPLAN_FIELD_CHARS,
      TCO(gpu),
      .set_offset = GPUPLAN_OPTION_NO_SET,
      .arg = "ID:N",
      .help = GPUPLAN_N_("catalog GPU id and count (required), e.g. h100-sxm:8") },
    { .name = "platform",
      .kind = GPUPLAN_OPTION_TEXT,
      .field = GPUPLAN_FIELD_CHARS,
      TCO(platform_id),
      .set_offset = GPUPLAN_OPTION_NO_SET,
      .arg = "ID",
      .help = GPUPLAN_N_("catalog server platform"),
      .default_doc = GPUPLAN_N_("the GPU's first") },
    { .name = "cloud-tier",
      .kind = GPUPLAN_OPTION_CHOICE,
      .field = GPUPLAN_FIELD_INT,
      TCO(cloud_tier),
      .set_offset = GPUPLAN_OPTION_NO_SET,
      .help = GPUPLAN_N_("which cloud rate to compare with: hyperscaler, specialty, marketplace "
                         "or commit-1y"),
      .default_value = "specialty",
      .choices = gpuplan_cloud_tier_names },
    { .name = NULL },
};

void gpuplan_tco_request_init(struct gpuplan_tco_request *req)
{
    memset(req, 0, sizeof *req);
    (void)gpuplan_options_init(gpuplan_tco_options, req, NULL);
    (void)gpuplan_options_init(gpuplan_cost_options, &req->overrides, NULL);
}

enum gpuplan_status gpuplan_tco_request_split_gpu(struct gpuplan_tco_request *req,
                                                  struct gpuplan_error *err)
{
    const char *text = req->gpu;
    if (!text[0])
        return gpuplan_error_set(err, GPUPLAN_ERR_USAGE, NULL, "'--gpu ID:N' is required");
    const char *colon = strchr(text, ':');
    const size_t len = colon ? (size_t)(colon - text) : strlen(text);
    if (len == 0 || len >= sizeof req->gpu_id)
        return gpuplan_error_set(err, GPUPLAN_ERR_USAGE, NULL, "'--gpu %s' is not ID:N", text);
    memcpy(req->gpu_id, text, len);
    req->gpu_id[len] = '\0';
    req->n_gpus = 1;
    if (colon) {
        uint64_t n = 0;
        if (!gpuplan_parse_count(colon + 1, &n) || n < 1 || n > GPUPLAN_TCO_MAX_GPUS)
            return gpuplan_error_set(err, GPUPLAN_ERR_USAGE, NULL,
                                     "GPU count '%s' in '--gpu %s' must be 1..%d", colon + 1, text,
                                     GPUPLAN_TCO_MAX_GPUS);
        req->n_gpus = (uint32_t)n;
    }
    return GPUPLAN_OK;
}

enum gpuplan_status gpuplan_tco_request_from_json(struct gpuplan_tco_request *req,
                                                  const char *body,
                                                  size_t len,
                                                  struct gpuplan_error *err)
{
    gpuplan_tco_request_init(req);
    const struct gpuplan_option_group groups[] = {
        { gpuplan_tco_options, req, 0 },
        { gpuplan_cost_options, &req->overrides, 0 },
    };
    const struct body_reader r = {
        groups, 2, BODY_TCO, TCO_BODY_EXAMPLE, NULL, 0, NULL, NULL, NULL
    };
    enum gpuplan_status status = read_body(&r, body, len, err);
    if (status != GPUPLAN_OK)
        return status;
    if (!req->gpu[0]) {
        gpuplan_error_set(err, GPUPLAN_ERR_USAGE, "$.gpu", "missing 'gpu' in the request body");
        gpuplan_error_hint(err, "name a catalog GPU and count, e.g. {\"gpu\": \"h100-sxm:8\"}; "
                                "GET /v1/gpus lists them");
        return GPUPLAN_ERR_USAGE;
    }
    status = gpuplan_tco_request_split_gpu(req, err);
    if (status != GPUPLAN_OK && err) {
        (void)snprintf(err->where, sizeof err->where, "$.gpu");
        gpuplan_error_hint(err, "e.g. \"h100-sxm:8\"; GET /v1/gpus lists the ids");
    }
    return status;
}

enum gpuplan_status gpuplan_tco_request_inputs(const struct gpuplan_catalog *catalog,
                                               const struct gpuplan_tco_request *req,
                                               struct gpuplan_cost_inputs *in,
                                               enum gpuplan_tco_field *field,
                                               enum gpuplan_cost_input *input,
                                               struct gpuplan_error *err)
{
    *field = GPUPLAN_TCO_FIELD_NONE;
    const struct gpuplan_gpu *gpu = NULL;
    if (gpuplan_catalog_get_gpu(catalog, req->gpu_id, &gpu, err) != GPUPLAN_OK) {
        *field = GPUPLAN_TCO_FIELD_GPU;
        return GPUPLAN_ERR_NOT_FOUND;
    }
    /* The named platform, else the GPU's first one, else none. */
    const struct gpuplan_platform *platform = NULL;
    const char *platform_id =
        req->platform_id[0] ? req->platform_id : (gpu->n_platforms ? gpu->platforms[0] : NULL);
    if (platform_id) {
        platform = gpuplan_catalog_find_platform(catalog, platform_id);
        if (!platform && req->platform_id[0]) {
            *field = GPUPLAN_TCO_FIELD_PLATFORM;
            return gpuplan_error_set(err, GPUPLAN_ERR_NOT_FOUND, NULL, "unknown platform '%s'",
                                     req->platform_id);
        }
    }
    enum gpuplan_status st = gpuplan_cost_inputs_init_ex(
        in, catalog, gpu, req->n_gpus, platform, (enum gpuplan_cloud_tier)req->cloud_tier, err);
    for (int k = 0; st == GPUPLAN_OK && k < GPUPLAN_COST_INPUT_COUNT; k++) {
        if (!req->overrides.set[k])
            continue;
        st = gpuplan_cost_inputs_set(in, (enum gpuplan_cost_input)k, req->overrides.value[k], err);
        if (st != GPUPLAN_OK) {
            *field = GPUPLAN_TCO_FIELD_COST_INPUT;
            *input = (enum gpuplan_cost_input)k;
        }
    }
    return st;
}

enum gpuplan_status gpuplan_tco_request_run(const struct gpuplan_catalog *catalog,
                                            const struct gpuplan_tco_request *req,
                                            struct gpuplan_cost_inputs *in,
                                            struct gpuplan_tco *out,
                                            struct gpuplan_error *err)
{
    enum gpuplan_tco_field field = GPUPLAN_TCO_FIELD_NONE;
    enum gpuplan_cost_input input = GPUPLAN_COST_GPU_PRICE;
    enum gpuplan_status st = gpuplan_tco_request_inputs(catalog, req, in, &field, &input, err);
    if (st != GPUPLAN_OK && err) {
        char name[KEY_NAME_MAX];
        switch (field) {
        case GPUPLAN_TCO_FIELD_GPU:
            (void)snprintf(err->where, sizeof err->where, "$.gpu");
            break;
        case GPUPLAN_TCO_FIELD_PLATFORM:
            (void)snprintf(err->where, sizeof err->where, "$.platform");
            gpuplan_error_hint(err, "GET /v1/gpus lists each GPU's platforms");
            break;
        case GPUPLAN_TCO_FIELD_COST_INPUT:
            json_name_of(gpuplan_cost_input_flag(input), name, sizeof name);
            (void)snprintf(err->where, sizeof err->where, "$.%s", name);
            break;
        case GPUPLAN_TCO_FIELD_NONE:
            break;
        }
    }
    if (st == GPUPLAN_OK)
        st = gpuplan_tco_compute(in, out, err);
    return st;
}
