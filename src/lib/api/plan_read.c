/*
 * plan_read.c - a plan back from its JSON (`recommend --format json`), for
 * `gpuplan emit` (request.h).
 *
 * The document is parsed once by the project's JSON reader (bounded, strict:
 * json_internal.h); the chosen recommendation's members are read with the
 * typed getters, each error naming its JSON path. The job is rebuilt from
 * the "job" object through gpuplan_job_set, so a value the command line
 * would refuse is refused here with the same message. Not here: writing the
 * document (render_plan.c), the launch files (emit*.c).
 */
#include "gpuplan/request.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "gpuplan/plan.h"
#include "util/json_internal.h"

static enum gpuplan_status
bad(struct gpuplan_error *err, const char *name, const char *path, const char *what)
{
    gpuplan_error_set(err, GPUPLAN_ERR_INVALID_INPUT, NULL, "'%s' in '%s' %s", path, name, what);
    if (err)
        (void)snprintf(err->where, sizeof err->where, "%s:%s", name, path);
    gpuplan_error_hint(err, "give the output of `gpuplan recommend ... --format json`");
    return GPUPLAN_ERR_INVALID_INPUT;
}

/* The "job" object: every member a string option value (render_plan.c job_json). */
static enum gpuplan_status read_job(json_t *job_obj,
                                    const char *name,
                                    const char *path,
                                    struct gpuplan_job *job,
                                    struct gpuplan_error *err)
{
    char where[200];
    if (!json_is_object(job_obj))
        return bad(err, name, path, "must be an object of job options");
    gpuplan_job_init(job);
    const char *key;
    json_t *value;
    json_object_foreach(job_obj, key, value)
    {
        (void)snprintf(where, sizeof where, "%s.%.64s", path, key);
        if (!json_is_string(value))
            return bad(err, name, where, "must be a string (an option's value)");
        const enum gpuplan_status st = gpuplan_job_set(job, key, json_string_value(value), err);
        if (st != GPUPLAN_OK) {
            if (err)
                (void)snprintf(err->where, sizeof err->where, "%s:%s", name, where);
            return st;
        }
    }
    return GPUPLAN_OK;
}

static enum gpuplan_status read_server(const json_t *rec,
                                       const char *name,
                                       const char *path,
                                       struct gpuplan_plan_server *sv,
                                       struct gpuplan_error *err)
{
    const json_t *o = json_object_get(rec, "server");
    if (!o)
        return GPUPLAN_OK;
    char p[160];
    (void)snprintf(p, sizeof p, "%s.server", path);
    if (!json_is_object(o))
        return bad(err, name, p, "must be an object");
    uint64_t cores = 0, servers = 0;
    enum gpuplan_status st = gpuplan_json_get_u64(o, "cpu_cores", name, p, false, &cores, err);
    if (st == GPUPLAN_OK)
        st = gpuplan_json_get_u64(o, "servers", name, p, false, &servers, err);
    if (st == GPUPLAN_OK)
        st = gpuplan_json_get_u64(o, "ram_bytes", name, p, false, &sv->ram_bytes, err);
    if (st == GPUPLAN_OK)
        st = gpuplan_json_get_u64(o, "nvme_bytes", name, p, false, &sv->nvme_bytes, err);
    if (st == GPUPLAN_OK)
        st = gpuplan_json_get_string(o, "platform", name, p, false, sv->platform_id,
                                     sizeof sv->platform_id, err);
    if (st == GPUPLAN_OK && (cores > UINT32_MAX || servers > UINT32_MAX))
        return bad(err, name, p, "has a count past 2^32");
    sv->cpu_cores = (uint32_t)cores;
    sv->n_servers = (uint32_t)servers;
    return st;
}

/* A u32 member (0..2^32-1). */
static enum gpuplan_status get_u32(const json_t *o,
                                   const char *key,
                                   const char *name,
                                   const char *path,
                                   uint32_t *out,
                                   struct gpuplan_error *err)
{
    uint64_t v = 0;
    const enum gpuplan_status st = gpuplan_json_get_u64(o, key, name, path, false, &v, err);
    if (st != GPUPLAN_OK)
        return st;
    if (v > UINT32_MAX)
        return bad(err, name, path, "has a count past 2^32");
    *out = (uint32_t)v;
    return GPUPLAN_OK;
}

/* The "serving" object of a serving plan (render_serving.c render_plan_serving_json). */
static enum gpuplan_status read_serving(const json_t *rec,
                                        const char *name,
                                        const char *path,
                                        struct gpuplan_plan *out,
                                        struct gpuplan_error *err)
{
    const json_t *o = json_object_get(rec, "serving");
    if (!o || json_is_null(o))
        return GPUPLAN_OK;
    char p[160], text[32] = "";
    (void)snprintf(p, sizeof p, "%s.serving", path);
    if (!json_is_object(o))
        return bad(err, name, p, "must be an object");
    struct gpuplan_plan_serving *sv = &out->serving;
    enum gpuplan_status st =
        gpuplan_json_get_string(o, "engine", name, p, true, text, sizeof text, err);
    if (st == GPUPLAN_OK && gpuplan_serving_engine_from_name(text, &sv->engine, err) != GPUPLAN_OK)
        return bad(err, name, p, "has an unknown engine");
    if (st == GPUPLAN_OK)
        st = gpuplan_json_get_string(o, "engine_version", name, p, false, sv->engine_version,
                                     sizeof sv->engine_version, err);
    if (st == GPUPLAN_OK)
        st = gpuplan_json_get_string(o, "model_ref", name, p, false, sv->model_ref,
                                     sizeof sv->model_ref, err);
    static const char *const counts[] = { "tp",       "pp",          "ep", "gpus_per_replica",
                                          "replicas", "max_num_seqs" };
    uint32_t *const dests[] = { &sv->tp,       &sv->pp,          &sv->ep, &sv->gpus_per_replica,
                                &sv->replicas, &sv->max_num_seqs };
    for (size_t i = 0; st == GPUPLAN_OK && i < sizeof counts / sizeof counts[0]; i++)
        st = get_u32(o, counts[i], name, p, dests[i], err);
    if (st == GPUPLAN_OK)
        st = gpuplan_json_get_u64(o, "max_model_len", name, p, false, &sv->max_model_len, err);
    if (st == GPUPLAN_OK)
        st = gpuplan_json_get_u64(o, "input_tokens", name, p, false, &sv->input_tokens, err);
    if (st == GPUPLAN_OK)
        st = gpuplan_json_get_u64(o, "output_tokens", name, p, false, &sv->output_tokens, err);
    if (st == GPUPLAN_OK)
        st = gpuplan_json_get_double(o, "ttft_s", name, p, false, &sv->ttft_s, err);
    if (st == GPUPLAN_OK)
        st = gpuplan_json_get_double(o, "tpot_s", name, p, false, &sv->tpot_s, err);
    if (st == GPUPLAN_OK)
        st = gpuplan_json_get_double(o, "memory_fraction", name, p, false, &sv->memory_fraction,
                                     err);
    const json_t *c = json_object_get(o, "commands");
    char cp[192];
    (void)snprintf(cp, sizeof cp, "%s.commands", p);
    if (st == GPUPLAN_OK && c && !json_is_object(c))
        return bad(err, name, cp, "must be an object");
    if (st == GPUPLAN_OK && c)
        st = gpuplan_json_get_string(c, "launch", name, cp, false, sv->commands.launch,
                                     sizeof sv->commands.launch, err);
    if (st == GPUPLAN_OK && c)
        st = gpuplan_json_get_bool(c, "needs_quantized_checkpoint", name, cp, false,
                                   &sv->commands.needs_quantized_checkpoint, err);
    if (st == GPUPLAN_OK && (sv->tp == 0 || sv->gpus_per_replica == 0 || sv->replicas == 0))
        return bad(err, name, p, "has a zero tp, gpus_per_replica or replicas");
    if (st == GPUPLAN_OK && sv->pp == 0)
        sv->pp = 1;
    if (st == GPUPLAN_OK && sv->ep == 0)
        sv->ep = 1;
    out->is_serving = st == GPUPLAN_OK;
    return st;
}

/* gpus_per_node and nodes: 1..GPUPLAN_JOB_MAX_DEGREE. */
static enum gpuplan_status read_layout(const json_t *rec,
                                       const char *name,
                                       const char *path,
                                       struct gpuplan_plan *out,
                                       struct gpuplan_error *err)
{
    uint64_t g = 0, n = 0;
    enum gpuplan_status st = gpuplan_json_get_u64(rec, "gpus_per_node", name, path, true, &g, err);
    if (st == GPUPLAN_OK)
        st = gpuplan_json_get_u64(rec, "nodes", name, path, true, &n, err);
    if (st != GPUPLAN_OK)
        return st;
    if (g < 1 || n < 1 || g > GPUPLAN_JOB_MAX_DEGREE || n > GPUPLAN_JOB_MAX_DEGREE)
        return bad(err, name, path, "has gpus_per_node or nodes outside 1..65536");
    out->gpus_per_node = (uint32_t)g;
    out->nodes = (uint32_t)n;
    return GPUPLAN_OK;
}

static enum gpuplan_status read_figures(const json_t *rec,
                                        const char *name,
                                        const char *path,
                                        struct gpuplan_plan *out,
                                        struct gpuplan_error *err)
{
    enum gpuplan_status st = gpuplan_json_get_u64(rec, "memory_per_gpu_bytes", name, path, false,
                                                  &out->memory_per_gpu_bytes, err);
    if (st == GPUPLAN_OK)
        st = gpuplan_json_get_u64(rec, "usable_bytes", name, path, false, &out->usable_bytes, err);
    if (st == GPUPLAN_OK)
        st = gpuplan_json_get_u64(rec, "host_ram_needed_bytes", name, path, false,
                                  &out->host_ram_needed_bytes, err);
    if (st == GPUPLAN_OK)
        st = gpuplan_json_get_bool(rec, "fits", name, path, false, &out->fits, err);
    if (st == GPUPLAN_OK)
        st = gpuplan_json_get_double(rec, "tokens_per_s", name, path, false, &out->tokens_per_s,
                                     err);
    const json_t *t = json_object_get(rec, "time_hours");
    if (st == GPUPLAN_OK && t && !json_is_null(t)) {
        st = gpuplan_json_get_double(rec, "time_hours", name, path, false, &out->time_hours, err);
        out->has_time = st == GPUPLAN_OK && out->time_hours >= 0.0;
    }
    return st;
}

static enum gpuplan_status read_names(const json_t *root,
                                      const json_t *rec,
                                      const char *name,
                                      const char *path,
                                      struct gpuplan_plan *out,
                                      struct gpuplan_error *err)
{
    enum gpuplan_status st = gpuplan_json_get_string(root, "model", name, "$", false, out->model_id,
                                                     sizeof out->model_id, err);
    if (st == GPUPLAN_OK)
        st = gpuplan_json_get_string(rec, "model", name, path, false, out->model_id,
                                     sizeof out->model_id, err);
    if (st == GPUPLAN_OK)
        st = gpuplan_json_get_string(rec, "model_family", name, path, false, out->model_family,
                                     sizeof out->model_family, err);
    if (st == GPUPLAN_OK)
        st = gpuplan_json_get_string(rec, "hub_id", name, path, false, out->hub_id,
                                     sizeof out->hub_id, err);
    return st;
}

enum gpuplan_status gpuplan_plan_read_json(const uint8_t *bytes,
                                           size_t len,
                                           const char *name,
                                           uint32_t index,
                                           const struct gpuplan_catalog *catalog,
                                           struct gpuplan_plan *out,
                                           struct gpuplan_error *err)
{
    const char *file = name ? name : "plan";
    memset(out, 0, sizeof *out);
    if (len > GPUPLAN_PLAN_JSON_MAX_BYTES)
        return gpuplan_error_set(err, GPUPLAN_ERR_TOO_LARGE, file,
                                 "'%s' is %zu bytes; a plan document is at most %llu", file, len,
                                 (unsigned long long)GPUPLAN_PLAN_JSON_MAX_BYTES);
    json_t *root = NULL;
    enum gpuplan_status st = gpuplan_json_parse(bytes, len, file, true, &root, err);
    if (st != GPUPLAN_OK)
        goto out;
    const json_t *recs = json_object_get(root, "recommendations");
    char path[64];
    if (!json_is_array(recs)) {
        st = bad(err, file, "$.recommendations", "must be the list of plans");
        goto out;
    }
    if (index < 1 || index > json_array_size(recs)) {
        (void)snprintf(path, sizeof path, "$.recommendations");
        gpuplan_error_set(err, GPUPLAN_ERR_INVALID_INPUT, NULL, "plan #%u asked for; '%s' has %zu",
                          index, file, json_array_size(recs));
        if (err)
            (void)snprintf(err->where, sizeof err->where, "%s:%s", file, path);
        gpuplan_error_hint(err, "--plan N with N in 1..%zu", json_array_size(recs));
        st = GPUPLAN_ERR_INVALID_INPUT;
        goto out;
    }
    (void)snprintf(path, sizeof path, "$.recommendations[%u]", index - 1);
    const json_t *rec = json_array_get(recs, index - 1);
    if (!json_is_object(rec)) {
        st = bad(err, file, path, "must be an object");
        goto out;
    }
    char job_path[96];
    (void)snprintf(job_path, sizeof job_path, "%s.job", path);
    json_t *job_obj = json_object_get(rec, "job");
    if (!job_obj) {
        st = bad(err, file, job_path, "is missing (a plan JSON from an older gpuplan?)");
        goto out;
    }
    struct gpuplan_job job;
    st = read_job(job_obj, file, job_path, &job, err);
    if (st == GPUPLAN_OK)
        st = read_layout(rec, file, path, out, err);
    char gpu[48] = "";
    if (st == GPUPLAN_OK)
        st = gpuplan_json_get_string(rec, "gpu", file, path, true, gpu, sizeof gpu, err);
    if (st == GPUPLAN_OK)
        st = gpuplan_catalog_get_gpu(catalog, gpu, &out->gpu, err);
    if (st == GPUPLAN_OK)
        st = read_names(root, rec, file, path, out, err);
    if (st == GPUPLAN_OK)
        st = read_figures(rec, file, path, out, err);
    if (st == GPUPLAN_OK)
        st = read_server(rec, file, path, &out->server, err);
    if (st == GPUPLAN_OK)
        st = read_serving(rec, file, path, out, err);
    if (st != GPUPLAN_OK)
        goto out;
    out->platform = gpuplan_catalog_find_platform(catalog, out->server.platform_id);
    job.gpus_per_node = out->gpus_per_node;
    job.nodes = out->nodes;
    (void)snprintf(job.gpu_id, sizeof job.gpu_id, "%s", out->gpu->id);
    gpuplan_job_resolve(&job, &out->job);
out:
    json_decref(root);
    if (st == GPUPLAN_ERR_INVALID_CONFIG) { /* the JSON reader's code for a bad document */
        st = GPUPLAN_ERR_INVALID_INPUT;
        if (err)
            err->code = st;
    }
    return st;
}
