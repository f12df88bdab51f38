/*
 * request.h - JSON request bodies to job specifications, and JSON errors.
 *
 * The HTTP service (`gpuplan serve`), the CLI and the tests share one reader
 * for request bodies: a JSON object whose keys are the options of the
 * request's option tables (options.h: gpuplan_job_options,
 * gpuplan_plan_options, gpuplan_tco_options + gpuplan_cost_options) with
 * '_' instead of '-' ("seq_len" for --seq-len), plus "model". Every value
 * goes through the table's setter as the text the command line would
 * carry, so a body and the equivalent command line cannot disagree.
 *
 *   {"model": "llama-3.1-8b", "method": "qlora", "seq_len": 4096,
 *    "micro_batch": 2, "gpu": "h100-sxm:8", "lora_targets": "all-linear"}
 *
 * Value mapping: strings are passed as they are ("8k" works as on the
 * command line); integers as decimal text; reals as the shortest text that
 * reads back to the same double; true/false as "yes"/"no" for the yes/no
 * options ("act_offload": true) and as "true"/"false" text otherwise (which
 * those options reject with their own message); null keeps the default.
 * Arrays and objects are wrong types. Errors carry the JSON path of the
 * offending field in err->where ("$.seq_len"), or "body:LINE:COL" for
 * malformed JSON.
 *
 * Not here: HTTP itself (src/server/), model loading, estimation, the TCO
 * arithmetic (cost.c), the JSON error document (gpuplan_render_error_json,
 * render.h).
 */
#ifndef GPUPLAN_REQUEST_H
#define GPUPLAN_REQUEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpuplan/buf.h"
#include "gpuplan/catalog.h"
#include "gpuplan/cost.h"
#include "gpuplan/error.h"
#include "gpuplan/job.h"
#include "gpuplan/render.h"

/* Largest request body accepted: 1 MiB (a full request is under 2 KiB). */
#define GPUPLAN_REQUEST_MAX_BODY_BYTES (1024ULL * 1024ULL)

/*
 * Every body may carry "lang": the language of the answer's text (reasons,
 * warnings, notes, errors): one of these; JSON keys and enum values stay
 * English. The service reads it (or Accept-Language); the readers check it.
 */
#define GPUPLAN_REQUEST_LANGS "en|ru"
bool gpuplan_request_lang_is_known(const char *lang);

/* Longest model id a body may name, including the NUL. */
#define GPUPLAN_REQUEST_MODEL_MAX 256

/*
 * Apply the JSON object `body` (`len` bytes, not NUL-terminated) to `job`,
 * which the caller has filled with gpuplan_job_init(). The "model" string is
 * copied into model_out[model_size] (left untouched when absent); with
 * `model_out` NULL a "model" key is an unknown field.
 *
 * Errors: GPUPLAN_ERR_TOO_LARGE past GPUPLAN_REQUEST_MAX_BODY_BYTES;
 * GPUPLAN_ERR_INVALID_INPUT for malformed JSON, a top level that is not an
 * object, or a string holding a NUL byte; GPUPLAN_ERR_USAGE for an unknown
 * field (with "did you mean"), a wrong type, or a value gpuplan_job_set()
 * rejects (out of range, not one of the choices). On error `job` may be
 * partly updated.
 */
enum gpuplan_status gpuplan_job_from_json(struct gpuplan_job *job,
                                          const char *body,
                                          size_t len,
                                          char *model_out,
                                          size_t model_size,
                                          struct gpuplan_error *err);

/*
 * A `gpuplan tco` request (and a `POST /v1/tco` body: the flags with '_'
 * for '-'):
 *
 *   {"gpu": "h100-sxm:8", "platform": "dgx-h100", "hours_per_day": 12,
 *    "years": 3, "power_price": 0.15, "cloud_price": 2.99}
 *
 * "gpu" (required) is "ID" or "ID:N"; each cost input (gpuplan_cost_options,
 * e.g. "gpu_price") is a number or a numeric string; null keeps the
 * default. Range checks are gpuplan_cost_inputs_set()'s.
 */
#define GPUPLAN_TCO_REQUEST_ID_MAX 64
/* GPUs one TCO may count: 100,000 is past the largest clusters built. */
#define GPUPLAN_TCO_MAX_GPUS 100000
struct gpuplan_tco_request {
    char gpu[2 * GPUPLAN_TCO_REQUEST_ID_MAX];     /* --gpu as given, e.g. "h100-sxm:8" */
    char gpu_id[GPUPLAN_TCO_REQUEST_ID_MAX];      /* from `gpu`, by gpuplan_tco_request_split_gpu */
    uint32_t n_gpus;                              /* from `gpu`, 1..GPUPLAN_TCO_MAX_GPUS */
    char platform_id[GPUPLAN_TCO_REQUEST_ID_MAX]; /* "" = the GPU's first platform */
    int cloud_tier; /* enum gpuplan_cloud_tier of the cloud rate, default specialty */
    struct gpuplan_cost_overrides overrides; /* the cost inputs given */
};

/*
 * The tco request's own options (--gpu ID:N, --platform ID), terminated by
 * name NULL; the cost inputs are gpuplan_cost_options, filling
 * req->overrides.
 */
extern const struct gpuplan_option gpuplan_tco_options[];

/* An empty request: no GPU yet, no platform, no input given. */
void gpuplan_tco_request_init(struct gpuplan_tco_request *req);

/*
 * req->gpu "ID" or "ID:N" into gpu_id and n_gpus (1 without ":N").
 * GPUPLAN_ERR_USAGE: no --gpu given ("'--gpu ID:N' is required"), not
 * ID:N, or a count outside 1..GPUPLAN_TCO_MAX_GPUS.
 */
enum gpuplan_status gpuplan_tco_request_split_gpu(struct gpuplan_tco_request *req,
                                                  struct gpuplan_error *err);

/*
 * Read a tco body into `req` (gpuplan_tco_request_init here first) and
 * split its "gpu". Errors as gpuplan_job_from_json(), with the JSON path in
 * err->where; a missing or malformed "gpu" is GPUPLAN_ERR_USAGE at "$.gpu".
 */
enum gpuplan_status gpuplan_tco_request_from_json(struct gpuplan_tco_request *req,
                                                  const char *body,
                                                  size_t len,
                                                  struct gpuplan_error *err);

/* The field of a tco request a failure of gpuplan_tco_request_inputs is about. */
enum gpuplan_tco_field {
    GPUPLAN_TCO_FIELD_NONE = 0,
    GPUPLAN_TCO_FIELD_GPU,        /* no such catalog GPU */
    GPUPLAN_TCO_FIELD_PLATFORM,   /* no such catalog platform */
    GPUPLAN_TCO_FIELD_COST_INPUT, /* an override out of its range; *input says which */
};

/*
 * Resolve `req` against `catalog` as `gpuplan tco` and POST /v1/tco both do:
 * the GPU by id, the named platform or else the GPU's first, the catalog
 * inputs, then the request's overrides, into `in`. On failure *field (and
 * for a cost input *input) names the request field; err->where is left for
 * the caller (a command line and a JSON body spell fields differently).
 */
enum gpuplan_status gpuplan_tco_request_inputs(const struct gpuplan_catalog *catalog,
                                               const struct gpuplan_tco_request *req,
                                               struct gpuplan_cost_inputs *in,
                                               enum gpuplan_tco_field *field,
                                               enum gpuplan_cost_input *input,
                                               struct gpuplan_error *err);

/*
 * gpuplan_tco_request_inputs, then compute the table into `out`; errors at
 * the field's JSON path: an unknown GPU or platform is
 * GPUPLAN_ERR_NOT_FOUND at "$.gpu" / "$.platform", an input out of range
 * GPUPLAN_ERR_USAGE at "$.<input>".
 */
enum gpuplan_status gpuplan_tco_request_run(const struct gpuplan_catalog *catalog,
                                            const struct gpuplan_tco_request *req,
                                            struct gpuplan_cost_inputs *in,
                                            struct gpuplan_tco *out,
                                            struct gpuplan_error *err);

/*
 * A `POST /v1/recommend` body: "model" (a catalog id), the job options as in
 * gpuplan_job_from_json() (each one given fixes that knob, as on the command
 * line), and the planner options of `gpuplan recommend` (gpuplan_plan_options)
 * with '_' for '-': "deadline_hours", "budget", "target_tokens_per_s",
 * "headroom", "max_gpus", "top", "objective", "vendor", "gpu" ("a,b": only
 * these GPUs), "concurrency" (= batch), "on_prem" / "cloud" (true or false).
 * "nodes", "tp" and "pp" are searched, so they are refused. `req` must come
 * from gpuplan_plan_request_init(). Errors as gpuplan_job_from_json().
 */
struct gpuplan_plan_request;
enum gpuplan_status gpuplan_plan_request_from_json(struct gpuplan_plan_request *req,
                                                   const char *body,
                                                   size_t len,
                                                   char *model_out,
                                                   size_t model_size,
                                                   struct gpuplan_error *err);

/*
 * The embedded web page (data/index.html), borrowed from static storage:
 * *out_bytes and *out_len are set and GPUPLAN_OK returned, or
 * GPUPLAN_ERR_NOT_FOUND when the binary was built without a page.
 */
enum gpuplan_status
gpuplan_web_page(const char **out_bytes, size_t *out_len, struct gpuplan_error *err);

struct gpuplan_config;
struct gpuplan_plan_request;

/*
 * As gpuplan_job_from_json and gpuplan_plan_request_from_json, and a body
 * member "from": a list of 1..8 config files as text, each {"text": "...",
 * "kind": "axolotl" (optional: detected), "name": "train.yaml" (optional,
 * for positions)}, each at most GPUPLAN_CONFIG_MAX_BYTES. They are read
 * into `cfg` (fresh from gpuplan_config_init; the caller releases it)
 * first, whatever their place in the body: the job is theirs, "model" is
 * the one they name, the other members override them (and, for a plan, the
 * knobs the files set are not searched). A file they name is not read (the
 * service reads no file): send it as another entry. Errors as the readers',
 * with "$.from[i]" in err->where for a bad entry.
 */
enum gpuplan_status gpuplan_job_from_json_config(struct gpuplan_job *job,
                                                 const char *body,
                                                 size_t len,
                                                 char *model_out,
                                                 size_t model_size,
                                                 struct gpuplan_config *cfg,
                                                 struct gpuplan_error *err);
enum gpuplan_status gpuplan_plan_request_from_json_config(struct gpuplan_plan_request *req,
                                                          const char *body,
                                                          size_t len,
                                                          char *model_out,
                                                          size_t model_size,
                                                          struct gpuplan_config *cfg,
                                                          struct gpuplan_error *err);

/* ---- the customer proposal (propose.c) ---- */

struct gpuplan_model;
struct gpuplan_proposal_options;

/*
 * `gpuplan propose` and POST /v1/propose: gpuplan_plan_run on `req` with
 * the list widened to GPUPLAN_PLAN_MAX_TOP plans (the alternatives are the
 * best plan of each GPU type in it), then gpuplan_render_proposal (render.h)
 * into `out`. Errors: the planner's, the renderer's (GPUPLAN_ERR_UNSUPPORTED
 * when no plan meets the constraints), GPUPLAN_ERR_USAGE for a format that
 * is not html or md.
 */
enum gpuplan_status gpuplan_propose(const struct gpuplan_model *model,
                                    const struct gpuplan_catalog *catalog,
                                    const struct gpuplan_plan_request *req,
                                    const struct gpuplan_proposal_options *opts,
                                    struct gpuplan_buf *out,
                                    struct gpuplan_error *err);

/*
 * A POST /v1/propose body: a /v1/recommend body and members of its own,
 * "format" ("html", the default, "md", or "json": the charts alone) and
 * "chart_width" (json: px, 240..2000), read into `doc`. "lang" is the
 * service's, as in every body. Errors as gpuplan_plan_request_from_json_config.
 */
struct gpuplan_propose_body {
    int format;            /* enum gpuplan_format: HTML, MD or JSON */
    double chart_width_px; /* 0: the charts' default */
};
enum gpuplan_status gpuplan_propose_request_from_json_config(struct gpuplan_plan_request *req,
                                                             struct gpuplan_propose_body *doc,
                                                             const char *body,
                                                             size_t len,
                                                             char *model_out,
                                                             size_t model_size,
                                                             struct gpuplan_config *cfg,
                                                             struct gpuplan_error *err);

/* ---- a plan from `recommend --format json` (plan_read.c) ---- */

struct gpuplan_plan;

/* Largest plan document read: 4 MiB (a 16-plan recommend JSON is under 100 KiB). */
#define GPUPLAN_PLAN_JSON_MAX_BYTES (4ULL * 1024ULL * 1024ULL)

/*
 * Read recommendation `index` (1-based) of a `gpuplan recommend --format
 * json` document (or POST /v1/recommend's answer) into `out`: the GPU and
 * platform looked up in `catalog` (borrowed pointers), the model id, family
 * and Hub id, the job from its "job" object through gpuplan_job_set (every
 * value checked as on the command line), the layout, the memory and time
 * figures and the server. What `gpuplan emit` writes launch files from.
 *
 * Errors: GPUPLAN_ERR_TOO_LARGE past GPUPLAN_PLAN_JSON_MAX_BYTES;
 * GPUPLAN_ERR_INVALID_INPUT for malformed JSON (with line:column), a missing
 * or mistyped member, an index past the list (each with its JSON path in
 * err->where, "NAME:$.recommendations[0].job.sharding"); GPUPLAN_ERR_USAGE
 * for a job value the option table refuses; GPUPLAN_ERR_NOT_FOUND for a GPU
 * the catalog lacks ("did you mean").
 */
enum gpuplan_status gpuplan_plan_read_json(const uint8_t *bytes,
                                           size_t len,
                                           const char *name,
                                           uint32_t index,
                                           const struct gpuplan_catalog *catalog,
                                           struct gpuplan_plan *out,
                                           struct gpuplan_error *err);

#endif
