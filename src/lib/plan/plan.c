/*
 * plan.c - the planner's run (gpuplan_plan_run): check the request, build
 * the profiles and layouts, search (plan_search.c), keep the top K and the
 * Pareto set, and materialise each kept candidate into a plan with its
 * figures, server (plan_server.c), reasons and warnings (plan_explain.c).
 *
 * A serving request (method infer) is the serving search's
 * (gpuplan_plan_serve_run, plan_serve.c).
 * Not here: memory and time formulas (memory_model.c, throughput.c), prices
 * (cost.c), rendering (render_plan.c), launchers (emit.c), the request and
 * its option table (plan_request.c).
 */
#include "gpuplan/plan.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/cost.h"
#include "gpuplan/options.h"
#include "plan/plan_internal.h"
#include "plan/plan_serve_internal.h"

/* Re-evaluate a winning candidate in full and describe it. */
static void materialise(const struct search *s, const struct candidate *c, struct gpuplan_plan *p)
{
    const struct layout *l = &s->layouts[c->layout];
    memset(p, 0, sizeof *p);
    p->gpu = l->gpu;
    p->platform = l->platform;
    p->gpus_per_node = l->gpus_per_node;
    p->nodes = l->nodes;
    snprintf(p->model_id, sizeof p->model_id, "%s", s->model->id);
    snprintf(p->model_family, sizeof p->model_family, "%s", s->model->arch.family);
    const char *hub = s->model->hub_id[0]                    ? s->model->hub_id
                      : strcmp(s->model->format, "dir") == 0 ? s->model->source
                                                             : "";
    if (strlen(hub) < sizeof p->hub_id) /* a longer path is not named: emitters refuse */
        memcpy(p->hub_id, hub, strlen(hub) + 1);
    struct gpuplan_job job;
    gpuplan_plan_job_for(s, l, c, &job);
    gpuplan_job_resolve(&job, &p->job);
    struct gpuplan_memory_estimate m;
    gpuplan_memory_eval(&s->mem, &p->job, l->gpu, &m);
    p->memory_per_gpu_bytes = m.per_gpu.device_total_bytes;
    p->usable_bytes = m.gpu_usable_bytes;
    p->headroom_bytes = m.headroom_bytes;
    p->fits = m.fits;
    struct gpuplan_throughput_system sys;
    gpuplan_throughput_system_init(&sys);
    sys.gpu = l->gpu;
    sys.platform = l->platform;
    struct gpuplan_throughput t;
    memset(&t, 0, sizeof t);
    (void)gpuplan_throughput_eval(&s->thr, &p->job, &sys, &t, NULL);
    p->tokens_per_s = c->tokens_per_s;
    p->mfu = t.mfu;
    p->bottleneck = gpuplan_bottleneck_name(t.bottleneck);
    p->has_time = t.has_train_time;
    p->time_hours = p->has_time ? t.train_hours : 0.0;
    p->has_cloud_rate = l->has_rate;
    p->cost_usd_per_hour = l->usd_per_hour;
    p->cost_usd = (p->has_time && l->has_rate)
                      ? gpuplan_cost_cloud_run_usd(t.train_hours, l->gpus_per_node * l->nodes,
                                                   l->usd_per_gpu_hour)
                      : 0.0;
    p->has_capex = l->has_capex;
    p->capex_usd = l->capex_usd;
    p->capex = l->capex;
    p->rate_fallback = l->rate_fallback;
    if (l->rate) {
        (void)snprintf(p->cloud_tier, sizeof p->cloud_tier, "%s",
                       gpuplan_cloud_tier_name(l->rate->tier));
        (void)snprintf(p->cloud_provider, sizeof p->cloud_provider, "%s", l->rate->provider);
    }
    p->cost_per_mtok_usd = l->has_rate && c->tokens_per_s > 0
                               ? gpuplan_cost_usd_per_mtok(l->usd_per_hour, c->tokens_per_s)
                               : 0.0;
    p->has_own_cost = l->has_own;
    p->own_usd_per_hour = l->has_own ? l->own_usd_per_hour : 0.0;
    p->own_cost_usd = l->has_own && p->has_time ? l->own_usd_per_hour * p->time_hours : 0.0;
    p->own_cost_per_mtok_usd = l->has_own && c->tokens_per_s > 0
                                   ? gpuplan_cost_usd_per_mtok(l->own_usd_per_hour, c->tokens_per_s)
                                   : 0.0;
    p->compromise = c->compromise;
    gpuplan_plan_server_spec(s, p, &m);
    gpuplan_plan_explain(s, p, &t);
}

/* ---- run ---- */

static enum gpuplan_status check_request(const struct gpuplan_plan_request *req,
                                         const struct gpuplan_catalog *catalog,
                                         struct gpuplan_error *err)
{
    /* --top, --max-gpus, deadline, budget, rate, targets, headroom: the option table's ranges,
     * the same the command line and the HTTP bodies are parsed with */
    enum gpuplan_status st = gpuplan_options_check_ranges(gpuplan_plan_options, req, err);
    if (st != GPUPLAN_OK)
        return st;
    if (req->deadline_hours > 0.0 && req->job.tokens == 0 &&
        req->job.method != GPUPLAN_METHOD_INFER) {
        gpuplan_error_set(err, GPUPLAN_ERR_USAGE, "--deadline-hours",
                          "'--deadline-hours' needs the amount of training");
        gpuplan_error_hint(err,
                           "pass --tokens N (per epoch) and --epochs E, or --dataset-tokens N");
        return GPUPLAN_ERR_USAGE;
    }
    if (req->budget_usd > 0.0 && req->job.tokens == 0 && req->job.method != GPUPLAN_METHOD_INFER &&
        req->where != GPUPLAN_WHERE_ON_PREM) {
        gpuplan_error_set(err, GPUPLAN_ERR_USAGE, "--budget",
                          "'--budget' for a cloud run needs the amount of training");
        gpuplan_error_hint(err, "pass --tokens N (per epoch), or --on-prem to cap the capex");
        return GPUPLAN_ERR_USAGE;
    }
    for (size_t i = 0; i < req->n_gpu_ids && i < GPUPLAN_PLAN_MAX_GPU_IDS; i++) {
        const struct gpuplan_gpu *gpu;
        if (gpuplan_catalog_get_gpu(catalog, req->gpu_ids[i], &gpu, err) != GPUPLAN_OK)
            return err ? err->code : GPUPLAN_ERR_NOT_FOUND;
    }
    return GPUPLAN_OK;
}
static int cmp_candidate_time(const void *a, const void *b)
{
    const struct candidate *x = a, *y = b;
    return (x->time_key > y->time_key) - (x->time_key < y->time_key);
}
/* Same GPU, count and nodes on another platform: keep only the gpuplan_plan_better one. */
static bool same_offer(const struct search *s, const struct candidate *a, const struct candidate *b)
{
    const struct layout *x = &s->layouts[a->layout], *y = &s->layouts[b->layout];
    return x->gpu == y->gpu && x->gpus_per_node == y->gpus_per_node && x->nodes == y->nodes;
}
static void pick_top(struct search *s, struct gpuplan_plan_result *out)
{
    struct candidate chosen[GPUPLAN_PLAN_MAX_TOP];
    size_t n = 0;
    const size_t k = s->req->top_k;
    for (size_t i = 0; i < s->n_layouts; i++) {
        const struct candidate *c = &s->best[i];
        if (!c->valid)
            continue;
        size_t pos = n;
        bool skip = false;
        for (size_t j = 0; j < n; j++) {
            if (same_offer(s, c, &chosen[j])) {
                if (gpuplan_plan_better(s, c, &chosen[j])) {
                    memmove(&chosen[j], &chosen[j + 1], (n - j - 1) * sizeof chosen[0]);
                    n--;
                } else {
                    skip = true;
                }
                break;
            }
        }
        if (skip)
            continue;
        for (pos = 0; pos < n && !gpuplan_plan_better(s, c, &chosen[pos]); pos++)
            ;
        if (pos >= k)
            continue;
        const size_t keep = n < k ? n : k - 1;
        memmove(&chosen[pos + 1], &chosen[pos], (keep - pos) * sizeof chosen[0]);
        chosen[pos] = *c;
        n = keep + 1;
    }
    for (size_t i = 0; i < n; i++)
        materialise(s, &chosen[i], &out->top[i]);
    out->n_top = n;
    if (n > 0)
        s->top0 = chosen[0];
}
static void pick_pareto(struct search *s, struct gpuplan_plan_result *out)
{
    const int w = s->top0.valid && !s->top0.compromise ? 1 : 0;
    struct candidate *set = s->pareto[w];
    const size_t n_set = s->n_pareto[w];
    qsort(set, n_set, sizeof set[0], cmp_candidate_time);
    const size_t n = n_set < GPUPLAN_PLAN_MAX_PARETO ? n_set : GPUPLAN_PLAN_MAX_PARETO;
    for (size_t i = 0; i < n; i++) {
        /* evenly spaced when the front is longer than the result holds; ends kept */
        const size_t src = n < 2 ? 0 : i * (n_set - 1) / (n - 1);
        materialise(s, &set[src], &out->pareto[i]);
    }
    out->n_pareto = n;
}
enum gpuplan_status gpuplan_plan_run(const struct gpuplan_model *model,
                                     const struct gpuplan_catalog *catalog,
                                     const struct gpuplan_plan_request *req,
                                     struct gpuplan_plan_result *out,
                                     struct gpuplan_error *err)
{
    enum gpuplan_status st = check_request(req, catalog, err);
    if (st != GPUPLAN_OK)
        return st;
    if (req->job.method == GPUPLAN_METHOD_INFER)
        return gpuplan_plan_serve_run(model, catalog, req, out, err);
    struct search *s = calloc(1, sizeof *s);
    if (!s)
        return gpuplan_error_set(err, GPUPLAN_ERR_NOMEM, NULL, "out of memory");
    memset(out, 0, sizeof *out);
    out->request = *req;
    s->req = &out->request;
    s->model = model;
    struct gpuplan_job resolved;
    gpuplan_job_resolve(&req->job, &resolved);
    st = gpuplan_memory_profile_build(&s->mem, model, resolved.lora_target_roles,
                                      resolved.lora_rank, err);
    if (st == GPUPLAN_OK)
        st = gpuplan_throughput_profile_build(&s->thr, model, err);
    if (st == GPUPLAN_OK)
        st = gpuplan_plan_build_layouts(s, catalog, err);
    if (st == GPUPLAN_OK)
        st = gpuplan_plan_build_shapes(s, err);
    if (st == GPUPLAN_OK) {
        s->best = calloc(s->n_layouts ? s->n_layouts : 1, sizeof *s->best);
        if (!s->best)
            st = gpuplan_error_set(err, GPUPLAN_ERR_NOMEM, NULL, "out of memory");
    }
    if (st != GPUPLAN_OK)
        goto out;
    for (uint32_t i = 0; i < s->n_layouts; i++)
        gpuplan_plan_search_layout(s, i);
    out->evaluated = s->evaluated;
    out->fitting = s->fitting;
    out->feasible = s->feasible;
    out->over_ram = s->over_ram;
    out->over_cores = s->over_cores;
    out->over_nvme = s->over_nvme;
    out->network_bound = s->network_bound;
    pick_top(s, out);
    pick_pareto(s, out);
    gpuplan_plan_run_notes(s, out);
out:
    gpuplan_plan_free_shapes(s);
    free(s->best);
    free(s->layouts);
    free(s);
    return st;
}
