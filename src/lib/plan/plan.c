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
#include "gpuplan/units.h"
#include "plan/plan_internal.h"
#include "plan/plan_serve_internal.h"

/*
 * A kept plan's capex with the RAM and NVMe its server spec holds: what lies beyond the
 * platform's base is priced from the catalog's parts (gpuplan_capex_compute), so no part of
 * the bill is silently free. The search ranked the chassis capex (the layout's: GPUs,
 * platform, network); the RAM and NVMe beyond the base are added here, for the plans shown.
 */
static void
plan_capex_with_server(const struct search *s, const struct layout *l, struct gpuplan_plan *p)
{
    if (!p->has_capex || !s->catalog)
        return;
    struct gpuplan_cost_inputs in;
    if (gpuplan_cost_inputs_init_ex(&in, s->catalog, l->gpu, l->gpus_per_node * l->nodes,
                                    l->platform, (enum gpuplan_cloud_tier)s->req->job.cloud_tier,
                                    NULL) != GPUPLAN_OK)
        return;
    (void)gpuplan_cost_inputs_set(&in, GPUPLAN_COST_RAM_GIB,
                                  (double)p->server.ram_bytes / (double)GPUPLAN_BYTES_PER_GIB,
                                  NULL);
    (void)gpuplan_cost_inputs_set(&in, GPUPLAN_COST_NVME_TB,
                                  (double)p->server.nvme_bytes / (double)GPUPLAN_BYTES_PER_TB,
                                  NULL);
    gpuplan_capex_compute(&in, &p->capex);
    p->capex_usd = p->capex.total_usd;
}

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
    struct gpuplan_estimate_ranges rg;
    gpuplan_plan_memory_range(s, p->job.method, &m, &rg);
    p->has_range = rg.has_memory && rg.has_verdict;
    p->range_verdict = rg.verdict;
    p->memory_low_bytes = rg.device_total_low_bytes;
    p->memory_high_bytes = rg.device_total_high_bytes;
    p->range_over_bytes = rg.over_bytes;
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
    plan_capex_with_server(s, l, p);
    gpuplan_plan_maturity(s, p, c->care);
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
    if (req->budget_given && !(req->budget_usd > 0.0)) {
        gpuplan_error_set(err, GPUPLAN_ERR_USAGE, "--budget", "'--budget' is 0; must be > 0");
        gpuplan_error_hint(err, "leave --budget out for no budget");
        return GPUPLAN_ERR_USAGE;
    }
    if (req->max_gpus == 0 || req->max_gpus > GPUPLAN_PLAN_MAX_GPUS)
        return gpuplan_error_set(err, GPUPLAN_ERR_USAGE, "--max-gpus",
                                 "'--max-gpus' is %u; must be 1..%d (what the search covers)",
                                 req->max_gpus, GPUPLAN_PLAN_MAX_GPUS);
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
/* The same GPU type: the list keeps the best plan of each (issue 14 item 5), its other
 * counts folded into its row (variants). */
static bool same_offer(const struct search *s, const struct candidate *a, const struct candidate *b)
{
    return s->layouts[a->layout].gpu == s->layouts[b->layout].gpu;
}
/* The other GPU counts of `c`'s GPU that meet the constraints, fewest GPUs first (at most 3). */
static void variants(const struct search *s, const struct candidate *c, struct gpuplan_plan *p)
{
    const struct layout *l = &s->layouts[c->layout];
    const uint32_t n = l->gpus_per_node * l->nodes;
    /* the best of each other count (any platform) */
    struct candidate seen[16];
    size_t k = 0;
    for (size_t i = 0; i < s->n_layouts; i++) {
        const struct candidate *o = c->compromise ? &s->best[i] : &s->best_plain[i];
        const struct layout *ol = &s->layouts[i];
        const uint32_t on = ol->gpus_per_node * ol->nodes;
        if (!o->valid || ol->gpu != l->gpu || on == n || o->compromise != c->compromise ||
            o->may_not_fit != c->may_not_fit)
            continue;
        size_t j = 0;
        while (j < k &&
               s->layouts[seen[j].layout].gpus_per_node * s->layouts[seen[j].layout].nodes != on)
            j++;
        if (j < k) {
            if (gpuplan_plan_better(s, o, &seen[j]))
                seen[j] = *o;
        } else if (k < sizeof seen / sizeof seen[0]) {
            seen[k++] = *o;
        }
    }
    char *w = p->variants;
    size_t left = sizeof p->variants;
    for (size_t shown = 0; shown < 3 && k > 0; shown++) {
        size_t lo = 0;
        for (size_t j = 1; j < k; j++) {
            const struct layout *a = &s->layouts[seen[j].layout], *b = &s->layouts[seen[lo].layout];
            if (a->gpus_per_node * a->nodes < b->gpus_per_node * b->nodes)
                lo = j;
        }
        const struct candidate *o = &seen[lo];
        const struct layout *ol = &s->layouts[o->layout];
        const double money = s->view == PLAN_VIEW_BUY
                                 ? (s->req->hours_per_day > 0.0 && s->req->job.tokens
                                        ? ol->own_usd_per_hour * o->time_key
                                        : o->capex_key)
                                 : o->rent_spend;
        const char *unit = s->view == PLAN_VIEW_RENT     ? GPUPLAN_TR("run")
                           : s->req->hours_per_day > 0.0 ? GPUPLAN_TR("own")
                                                         : GPUPLAN_TR("capex");
        int len;
        if (s->req->job.tokens && isfinite(money))
            len = snprintf(w, left, GPUPLAN_TR("%s%u x (%ux%u) %.3g h, %s $%.0f"),
                           shown ? "; " : "", ol->gpus_per_node * ol->nodes, ol->nodes,
                           ol->gpus_per_node, o->time_key, unit, money);
        else
            len = snprintf(w, left, GPUPLAN_TR("%s%u x (%ux%u) %.0f tokens/s"), shown ? "; " : "",
                           ol->gpus_per_node * ol->nodes, ol->nodes, ol->gpus_per_node,
                           o->tokens_per_s);
        if (len < 0 || (size_t)len >= left)
            break;
        w += len;
        left -= (size_t)len;
        seen[lo] = seen[--k];
    }
}
/*
 * Sort `c` (a handful of GPU types) by the objective's keys alone, with near ties that
 * cannot chain: first by the objective's figure, then each group of plans within
 * NEAR_TIE_FRACTION of its cheapest (its leader) ordered by the next keys (fewer GPUs,
 * fewer servers, the standard stack). Pairwise near ties are not transitive (4 x mi300x
 * within 5 % of 2 x mi300x, that within 5 % of 1 x mi325x, the first 7 % cheaper than the
 * last), so an insertion sort by them alone could rank a plan first that another beats by
 * more than the band; a group measured from its leader cannot.
 */
static void sort_by_keys(const struct search *s, struct candidate *c, size_t n)
{
    for (size_t i = 1; i < n; i++) { /* by the first key, then the layout: a total order */
        const struct candidate x = c[i];
        const double kx = gpuplan_plan_first_key(s, &x);
        size_t j = i;
        while (j > 0) {
            const double kp = gpuplan_plan_first_key(s, &c[j - 1]);
            const bool before = kx < kp || (kx == kp && x.layout < c[j - 1].layout) ||
                                (isfinite(kx) && !isfinite(kp));
            if (!before)
                break;
            c[j] = c[j - 1];
            j--;
        }
        c[j] = x;
    }
    for (size_t lead = 0; lead < n;) {
        const double kl = gpuplan_plan_first_key(s, &c[lead]);
        size_t end = lead + 1;
        while (end < n && isfinite(kl)) {
            const double k = gpuplan_plan_first_key(s, &c[end]);
            if (!isfinite(k) || k - kl > NEAR_TIE_FRACTION * fabs(k))
                break;
            end++;
        }
        for (size_t i = lead + 1; i < end; i++) { /* inside the group every pair is a near tie */
            const struct candidate x = c[i];
            size_t j = i;
            while (j > lead && gpuplan_plan_keys_better(s, &x, &c[j - 1])) {
                c[j] = c[j - 1];
                j--;
            }
            c[j] = x;
        }
        lead = end;
    }
}
/* `c`'s GPU type is already in the list. */
static bool
offered(const struct search *s, const struct candidate *c, const struct candidate *chosen, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (same_offer(s, c, &chosen[i]))
            return true;
    }
    return false;
}
/*
 * Append to `chosen` (up to k) the candidates of `per` (one memory-range tier), a GPU type
 * not yet listed each: plans without a compromise in the objective's order and compromises
 * (offload) in theirs, merged so that a compromise comes before a plan without only when
 * gpuplan_plan_better says so (it is faster and ranks first by the objective).
 */
static void take_tier(struct search *s,
                      struct candidate *per,
                      size_t n_per,
                      struct candidate *chosen,
                      size_t *n,
                      size_t k)
{
    /* split: plain first in the array, compromises after */
    size_t n_plain = 0;
    for (size_t i = 0; i < n_per; i++) {
        if (!per[i].compromise) {
            const struct candidate x = per[i];
            per[i] = per[n_plain];
            per[n_plain++] = x;
        }
    }
    sort_by_keys(s, per, n_plain);
    sort_by_keys(s, per + n_plain, n_per - n_plain);
    size_t a = 0, b = n_plain;
    while (*n < k && (a < n_plain || b < n_per)) {
        const bool take_comp =
            b < n_per && (a >= n_plain || gpuplan_plan_better(s, &per[b], &per[a]));
        const struct candidate *x = take_comp ? &per[b++] : &per[a++];
        if (!offered(s, x, chosen, *n))
            chosen[(*n)++] = *x;
    }
}
/*
 * The best plan of each GPU type, memory-range tier and compromise class, into `per`: every
 * layout's best and best without a compromise of that class, ordered by sort_by_keys (near
 * ties measured from the group's cheapest, as the list is), its first kept. A pairwise
 * "better" in layout order would not be transitive inside the near-tie band (2 x mi300x
 * beats 4, then 8 beats 2 by more than the band, though 4 is within it of 8).
 */
static size_t pick_offers(const struct search *s, struct candidate *per, struct candidate *tmp)
{
    size_t n_per = 0;
    /* a GPU's layouts are contiguous (gpuplan_plan_build_layouts: GPU, then platform, count,
     * nodes): one pass per GPU type */
    for (size_t g = 0, end; g < s->n_layouts; g = end) {
        const struct gpuplan_gpu *gpu = s->layouts[g].gpu;
        for (end = g + 1; end < s->n_layouts && s->layouts[end].gpu == gpu; end++)
            ;
        for (int cls = 0; cls < 4; cls++) {
            const bool compromise = cls & 1, may_not_fit = cls & 2;
            size_t n = 0;
            for (size_t i = g; i < end; i++) {
                const struct candidate *both[2] = { &s->best[i], &s->best_plain[i] };
                for (int b = 0; b < 2; b++)
                    if (both[b]->valid && both[b]->compromise == compromise &&
                        both[b]->may_not_fit == may_not_fit)
                        tmp[n++] = *both[b];
            }
            if (n == 0)
                continue;
            sort_by_keys(s, tmp, n);
            per[n_per++] = tmp[0];
        }
    }
    return n_per;
}
/*
 * The list: the best plan of each GPU type; the plans whose whole memory range fits
 * first, then those that may not fit (gpuplan_plan_better), each tier as take_tier orders
 * it: a total, deterministic order. Each layout offers its best plan and its best plan
 * without a compromise: a layout whose fastest plan offloads (its plans without offload
 * having moved to a smaller micro-batch for their range) still competes without offload.
 */
static void pick_top(struct search *s, struct gpuplan_plan_result *out)
{
    /* a GPU type has at most one entry per (tier, compromise): four */
    struct candidate *per = calloc(4 * s->n_layouts + 1, sizeof *per);
    struct candidate *tmp = calloc(2 * s->n_layouts + 1, sizeof *tmp);
    if (!per || !tmp) {
        free(per);
        free(tmp);
        return;
    }
    const size_t n_per = pick_offers(s, per, tmp);
    free(tmp);
    /* split: the plans whose range fits first in the array, those that may not fit after */
    size_t n_fit = 0;
    for (size_t i = 0; i < n_per; i++) {
        if (!per[i].may_not_fit) {
            const struct candidate x = per[i];
            per[i] = per[n_fit];
            per[n_fit++] = x;
        }
    }
    struct candidate chosen[GPUPLAN_PLAN_MAX_TOP];
    size_t n = 0;
    const size_t k = s->req->top_k;
    take_tier(s, per, n_fit, chosen, &n, k);
    take_tier(s, per + n_fit, n_per - n_fit, chosen, &n, k);
    free(per);
    for (size_t i = 0; i < n; i++) {
        materialise(s, &chosen[i], &out->top[i]);
        variants(s, &chosen[i], &out->top[i]);
    }
    out->n_top = n;
    if (n > 0)
        s->top0 = chosen[0];
}
static void pick_pareto(struct search *s, struct gpuplan_plan_result *out)
{
    /* the set gpuplan_plan_pareto_set names, sorted here */
    const int r = s->top0.valid && s->top0.may_not_fit ? 1 : 0;
    const int w = s->top0.valid && !s->top0.compromise ? 1 : 0;
    struct candidate *set = s->pareto[r][w];
    const size_t n_set = s->n_pareto[r][w];
    qsort(set, n_set, sizeof set[0], cmp_candidate_time);
    const size_t n = n_set < GPUPLAN_PLAN_MAX_PARETO ? n_set : GPUPLAN_PLAN_MAX_PARETO;
    for (size_t i = 0; i < n; i++) {
        /* evenly spaced when the front is longer than the result holds; ends kept */
        const size_t src = n < 2 ? 0 : i * (n_set - 1) / (n - 1);
        materialise(s, &set[src], &out->pareto[i]);
    }
    out->n_pareto = n;
}
/* When nothing is feasible: the nearest misses. */
static void pick_sides(struct search *s, struct gpuplan_plan_result *out)
{
    if (out->n_top > 0)
        return;
    const struct candidate *m[2] = { &s->miss_cheap, &s->miss_fast };
    for (size_t i = 0; i < 2; i++) {
        if (!m[i]->valid || out->n_misses >= GPUPLAN_PLAN_MAX_MISSES)
            continue;
        struct gpuplan_plan *p = &out->misses[out->n_misses++];
        materialise(s, m[i], p);
        snprintf(p->variants, sizeof p->variants, "%s",
                 i == 0 ? GPUPLAN_TR("nearest miss: the cheapest that meets the time (deadline, "
                                     "or --max-run-days)")
                 : s->req->budget_usd > 0.0
                     ? GPUPLAN_TR("nearest miss: the fastest within the budget")
                     : GPUPLAN_TR("nearest miss: the fastest"));
    }
}

static enum gpuplan_status search_once(const struct gpuplan_model *model,
                                       const struct gpuplan_catalog *catalog,
                                       const struct gpuplan_plan_request *req,
                                       struct gpuplan_plan_result *out,
                                       struct gpuplan_error *err);

/*
 * Nothing meets the constraints within --max-gpus: the smallest power-of-two
 * count up to what the search covers that has a plan is one more single
 * change ("change: --max-gpus 128: 128 x b200 meets the constraints").
 */
static void max_gpus_change(const struct gpuplan_model *model,
                            const struct gpuplan_catalog *catalog,
                            struct gpuplan_plan_result *out)
{
    struct gpuplan_plan_result *wider = calloc(1, sizeof *wider);
    if (!wider)
        return;
    struct gpuplan_plan_request req = out->request;
    /* the first wider run whose plan's whole memory range fits; else the first that meets the
     * constraints at all, said with its margin (a change that may not fit is no change to make
     * blind) */
    bool said = false;
    uint32_t risky_m = 0, risky_n = 0;
    const struct gpuplan_gpu *risky_gpu = NULL;
    double risky_hours = 0.0, risky_over_gib = 0.0;
    for (uint32_t m = req.max_gpus * 2; m <= GPUPLAN_PLAN_MAX_GPUS && !said; m *= 2) {
        req.max_gpus = m;
        req.top_k = 1;
        if (search_once(model, catalog, &req, wider, NULL) != GPUPLAN_OK)
            break;
        if (wider->n_top == 0)
            continue;
        const struct gpuplan_plan *p = &wider->top[0];
        if (p->has_range && p->range_verdict != GPUPLAN_VERDICT_FITS) {
            if (!risky_gpu) {
                risky_m = m;
                risky_n = p->gpus_per_node * p->nodes;
                risky_gpu = p->gpu;
                risky_hours = p->time_hours;
                risky_over_gib = gpuplan_gib_from_bytes(
                    (uint64_t)(p->range_over_bytes > 0 ? p->range_over_bytes : 0));
            }
            continue;
        }
        NOTE(out, "change: --max-gpus %u: %u x %s meets the constraints (%.3g h)", m,
             p->gpus_per_node * p->nodes, p->gpu->id, p->time_hours);
        said = true;
    }
    if (!said && risky_gpu)
        NOTE(out,
             "change: --max-gpus %u: %u x %s meets the constraints (%.3g h) but may not fit: "
             "the top of its memory range is %.1f GiB over the usable memory",
             risky_m, risky_n, risky_gpu->id, risky_hours, risky_over_gib);
    free(wider);
}

/*
 * Neither --on-prem nor --cloud: the best to rent (the list's first, when it has a
 * rate) and the best to buy, the first plan of the same request --on-prem (the platforms'
 * sold counts, capex or the own cost at --hours-per-day, the stack as bought), side by
 * side.
 */
static void rent_and_buy(const struct gpuplan_model *model,
                         const struct gpuplan_catalog *catalog,
                         struct gpuplan_plan_result *out)
{
    if (out->top[0].has_cloud_rate) {
        out->best_rent = out->top[0];
        out->has_best_rent = true;
    }
    struct gpuplan_plan_result *buy = calloc(1, sizeof *buy);
    if (!buy)
        return;
    struct gpuplan_plan_request req = out->request;
    req.where = GPUPLAN_WHERE_ON_PREM;
    req.top_k = 1;
    if (gpuplan_plan_run(model, catalog, &req, buy, NULL) == GPUPLAN_OK && buy->n_top > 0) {
        out->best_buy = buy->top[0];
        out->has_best_buy = true;
    }
    free(buy);
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
        st = gpuplan_plan_serve_run(model, catalog, req, out, err);
    else {
        st = search_once(model, catalog, req, out, err);
        if (st == GPUPLAN_OK && out->n_top == 0 && out->fitting > 0 &&
            req->max_gpus < GPUPLAN_PLAN_MAX_GPUS)
            max_gpus_change(model, catalog, out);
    }
    if (st == GPUPLAN_OK && req->where == GPUPLAN_WHERE_ANY && out->n_top > 0)
        rent_and_buy(model, catalog, out);
    return st;
}

static enum gpuplan_status search_once(const struct gpuplan_model *model,
                                       const struct gpuplan_catalog *catalog,
                                       const struct gpuplan_plan_request *req,
                                       struct gpuplan_plan_result *out,
                                       struct gpuplan_error *err)
{
    enum gpuplan_status st = GPUPLAN_OK;
    struct search *s = calloc(1, sizeof *s);
    if (!s)
        return gpuplan_error_set(err, GPUPLAN_ERR_NOMEM, NULL, "out of memory");
    memset(out, 0, sizeof *out);
    out->request = *req;
    (void)snprintf(out->model_id, sizeof out->model_id, "%s", model->id);
    s->req = &out->request;
    s->model = model;
    s->catalog = catalog;
    s->view = req->where == GPUPLAN_WHERE_ON_PREM ? PLAN_VIEW_BUY : PLAN_VIEW_RENT;
    s->allow = gpuplan_plan_implied_allow(req, catalog);
    struct gpuplan_job resolved;
    gpuplan_job_resolve(&req->job, &resolved);
    gpuplan_plan_intervals_init(s, &resolved);
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
        s->best_plain = calloc(s->n_layouts ? s->n_layouts : 1, sizeof *s->best_plain);
        if (!s->best || !s->best_plain)
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
    out->too_long = s->too_long;
    out->needs_care = s->n_care;
    pick_top(s, out);
    pick_pareto(s, out);
    pick_sides(s, out);
    gpuplan_plan_run_notes(s, out);
out:
    gpuplan_plan_free_shapes(s);
    free(s->best);
    free(s->best_plain);
    free(s->layouts);
    free(s);
    return st;
}
