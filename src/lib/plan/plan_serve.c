/*
 * plan_serve.c - the serving search (issue 17 item 4, issue 14 item 8):
 * which GPUs, how many per replica and how many replicas serve a model at a
 * request rate (or a concurrency) within time-to-first-token and
 * time-per-output-token targets, at what cost.
 *
 * Search space: every layout of the training planner (plan_search.c:
 * catalog GPU x platform x GPUs per node x nodes, with its prices) x the
 * replica shapes on it x weight format (as stored, FP8 where the GPU has it
 * and the checkpoint is not FP8 already, AWQ 4-bit) x KV format (auto, FP8
 * where the GPU has it) x expert parallel (off, or over the replica's TP
 * ranks for MoE models, as vLLM's --enable-expert-parallel does). A replica
 * is tensor parallel over the GPUs of a server and pipeline stages across
 * servers, as vLLM and SGLang split a model; rented slices are one replica
 * each, a bought server may hold several replicas of fewer GPUs.
 *
 * Each candidate: the engine's start-up accounting (gpuplan_serving_memory:
 * does it start, how large is the KV pool; a default max_model_len that
 * does not fit is cut to the largest multiple of 1,024 that does), then
 * continuous batching in steady state (gpuplan_serving_steady_state): the
 * most requests in flight per replica that still meet the targets
 * (bisection: TTFT and TPOT grow with the batch), the replicas the rate
 * needs at that concurrency, and the operating point at the rate's share
 * per replica. Cost per million output tokens = the plan's USD per hour
 * over its output tokens per hour (gpuplan_cost_usd_per_mtok): cloud
 * on-demand rates to rent, the TCO model's own cost to buy. A plan that
 * meets nothing at one request in flight cannot meet it with more replicas:
 * those are the nearest misses.
 *
 * Per kept plan also the disaggregated prefill/decode alternative on the
 * same replica shape at the same rate (gpuplan_serving_disaggregated), and
 * the verify artifact (gpuplan_serving_commands: the launch line and the
 * engine's benchmark).
 *
 * Not here: the formulas (serving*.c), the training search (plan_search.c),
 * rendering (render_plan.c, render_serving.c).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/cost.h"
#include "gpuplan/estimate.h"
#include "gpuplan/units.h"
#include "plan/plan_internal.h"
#include "plan/plan_serve_internal.h"

/* A month of serving (8,760 h a year / 12): what --budget caps for a rented serving plan. */
#define SERVING_BUDGET_HOURS 730.0
/* A default max_model_len the pool cannot hold is cut to a multiple of this (what users
 * type: 32768, 65536); never below one request of the load. */
#define MAX_MODEL_LEN_STEP 1024u
/* Requests in flight tried at most per replica: vLLM's largest default max_num_seqs (1024)
 * times 16, past any pool the catalog GPUs hold for one request of a few hundred tokens. */
#define MAX_CONCURRENCY_TRIED 16384u
/* A disaggregated cost within 0.5 % of the aggregated one is the same (TIE_FRACTION). */
#define DISAGG_SAME TIE_FRACTION
/* Replica shapes on one server (on-prem): TP of 1, 2, 4, 8, 16 and 32 GPUs. */
#define MAX_SHAPES 6

struct serve_cand {
    uint32_t layout;
    uint32_t tp, pp, ep;
    enum gpuplan_dtype weights;
    enum gpuplan_serving_kv_dtype kv;
    uint64_t max_model_len; /* as started (0: the model's) */
    uint32_t units;         /* copies of the layout */
    uint32_t replicas;      /* units x replicas per layout */
    uint64_t c_op, c_limit; /* per replica: at the rate, and the most meeting the targets */
    double ttft_s, tpot_s;
    double rate_per_s;   /* all replicas */
    double tokens_per_s; /* output, all replicas */
    double n_gpus;
    double usd_per_hour, own_usd_per_hour, capex_usd;
    double cost_key, time_key, capex_key;
    double miss_score; /* nearest misses: the worst ratio of achieved to target at one request */
    bool compromise, valid;
};

struct serve_state {
    struct search base; /* req, model, memory profile (server spec), layouts and their prices */
    struct gpuplan_serving_profile profile;
    struct gpuplan_serving_load load; /* the lengths; concurrency set per evaluation */
    bool by_rate;
    double rate_per_s;                   /* the request rate, when by_rate */
    uint64_t concurrency;                /* all replicas, when not */
    double ttft_target_s, tpot_target_s; /* 0 = none */
    struct serve_cand *best;             /* per layout */
    struct serve_cand pareto[2][PARETO_CAP];
    size_t n_pareto[2];
    struct serve_cand misses[GPUPLAN_PLAN_MAX_MISSES];
    size_t n_misses;
    struct serve_cand best_compromise, top0;
    bool any_plain;
    uint64_t evaluated, starting, feasible;
    uint64_t n_unsplittable, n_no_start, n_miss_targets, n_over_gpus, n_over_budget;
    uint64_t n_no_rate, n_no_price;
    uint64_t n_pp_unneeded; /* multi-server replicas one server would start */
    uint64_t n_fleet;       /* on-prem: more than one workstation */
};

/* ---- one candidate ---------------------------------------------------------- */

static void cand_request(const struct serve_state *st,
                         const struct serve_cand *c,
                         struct gpuplan_serving_request *req)
{
    struct gpuplan_job job = st->base.req->job;
    job.tp = c->tp;
    job.pp = c->pp;
    job.tp_set = job.pp_set = true;
    job.ep = c->ep;
    job.weights_dtype = c->weights;
    job.kv_dtype = c->kv;
    job.max_model_len = c->max_model_len;
    gpuplan_serving_request_from_job(&job, req);
}

/* Steady state of one replica with `conc` requests in flight (false: the pool holds none). */
static bool steady_at(const struct serve_state *st,
                      const struct gpuplan_serving_request *req,
                      const struct gpuplan_gpu *gpu,
                      const struct gpuplan_serving_memory *mem,
                      uint64_t conc,
                      struct gpuplan_serving_steady *ss)
{
    struct gpuplan_serving_load load = st->load;
    load.concurrency = conc;
    return gpuplan_serving_steady_state(&st->profile, req, gpu, mem, &load, ss, NULL) == GPUPLAN_OK;
}

static bool meets(const struct serve_state *st, const struct gpuplan_serving_steady *ss)
{
    return (st->ttft_target_s <= 0 || ss->ttft_s <= st->ttft_target_s) &&
           (st->tpot_target_s <= 0 || ss->tpot_s <= st->tpot_target_s);
}

/* How far one request in flight is from the targets: the worse ratio (1 = on target). */
static double miss_score(const struct serve_state *st, const struct gpuplan_serving_steady *ss)
{
    double score = 0.0;
    if (st->ttft_target_s > 0)
        score = fmax(score, ss->ttft_s / st->ttft_target_s);
    if (st->tpot_target_s > 0)
        score = fmax(score, ss->tpot_s / st->tpot_target_s);
    return score;
}

/* The engine's accounting; a default max_model_len that does not fit is cut to what does. */
static bool starts(struct serve_state *st,
                   struct serve_cand *c,
                   const struct gpuplan_gpu *gpu,
                   struct gpuplan_serving_request *req,
                   struct gpuplan_serving_memory *mem)
{
    cand_request(st, c, req);
    if (gpuplan_serving_memory(&st->profile, req, gpu, mem, NULL) != GPUPLAN_OK) {
        st->n_unsplittable++; /* tp not dividing the heads, ep the experts, pp the layers */
        return false;
    }
    st->evaluated++;
    const uint64_t need = st->load.input_tokens + st->load.output_tokens;
    if (mem->refuse_start && st->base.req->job.max_model_len == 0 &&
        mem->largest_max_model_len >= need) {
        uint64_t len = mem->largest_max_model_len / MAX_MODEL_LEN_STEP * MAX_MODEL_LEN_STEP;
        if (len < need)
            len = need;
        c->max_model_len = len;
        cand_request(st, c, req);
        if (gpuplan_serving_memory(&st->profile, req, gpu, mem, NULL) != GPUPLAN_OK)
            return false;
    }
    if (!gpuplan_serving_starts(mem)) {
        st->n_no_start++;
        return false;
    }
    st->starting++;
    return true;
}

/* The most requests in flight per replica that meet the targets (>= 1: checked). */
static uint64_t concurrency_limit(const struct serve_state *st,
                                  const struct gpuplan_serving_request *req,
                                  const struct gpuplan_gpu *gpu,
                                  const struct gpuplan_serving_memory *mem)
{
    struct gpuplan_serving_steady ss;
    if (!steady_at(st, req, gpu, mem, MAX_CONCURRENCY_TRIED, &ss))
        return 1;
    uint64_t lo = 1, hi = ss.concurrency; /* the pool and max_num_seqs cap it */
    if (meets(st, &ss))
        return hi;
    while (hi - lo > 1) {
        const uint64_t mid = lo + (hi - lo) / 2;
        if (steady_at(st, req, gpu, mem, mid, &ss) && meets(st, &ss))
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* The fewest requests in flight per replica (<= limit) that serve `rate` requests/s. */
static uint64_t concurrency_for_rate(const struct serve_state *st,
                                     const struct gpuplan_serving_request *req,
                                     const struct gpuplan_gpu *gpu,
                                     const struct gpuplan_serving_memory *mem,
                                     uint64_t limit,
                                     double rate)
{
    struct gpuplan_serving_steady ss;
    uint64_t lo = 0, hi = limit;
    while (hi - lo > 1) {
        const uint64_t mid = lo + (hi - lo) / 2;
        if (steady_at(st, req, gpu, mem, mid, &ss) && ss.requests_per_s >= rate)
            hi = mid;
        else
            lo = mid;
    }
    return hi;
}

/* Lexicographic keys by objective; smaller ranks first (as plan_search.c's). */
static void keys(const struct serve_state *st, const struct serve_cand *c, double k[3])
{
    switch (st->base.req->objective) {
    case GPUPLAN_OBJECTIVE_TIME:
        k[0] = c->time_key, k[1] = c->cost_key, k[2] = c->n_gpus;
        break;
    case GPUPLAN_OBJECTIVE_GPUS:
        k[0] = c->n_gpus, k[1] = c->cost_key, k[2] = c->time_key;
        break;
    case GPUPLAN_OBJECTIVE_CAPEX:
        k[0] = c->capex_key, k[1] = c->time_key, k[2] = c->n_gpus;
        break;
    default:
        k[0] = c->cost_key, k[1] = c->n_gpus, k[2] = c->time_key;
        break;
    }
}

static bool
keys_better(const struct serve_state *st, const struct serve_cand *a, const struct serve_cand *b)
{
    if (!b->valid)
        return a->valid;
    if (!a->valid)
        return false;
    double ka[3], kb[3];
    keys(st, a, ka);
    keys(st, b, kb);
    /* the objective's figure within 5 % is a near tie (plan_internal.h) */
    const int order = gpuplan_plan_keys_order(ka, kb, 3);
    if (order)
        return order < 0;
    if (a->layout != b->layout)
        return a->layout < b->layout;
    if (a->tp != b->tp)
        return a->tp > b->tp;
    if (a->ep != b->ep)
        return a->ep < b->ep;
    if (a->weights != b->weights)
        return a->weights < b->weights;
    return a->kv < b->kv;
}

/* 4-bit AWQ weights the user did not ask for (lossy) rank after every plan without. */
static bool
better(const struct serve_state *st, const struct serve_cand *a, const struct serve_cand *b)
{
    if (a->valid && b->valid && a->compromise != b->compromise) {
        const struct serve_cand *plain = a->compromise ? b : a;
        double kp[3];
        keys(st, plain, kp);
        if (isfinite(kp[0]))
            return plain == a;
    }
    return keys_better(st, a, b);
}

static bool dominated(const struct serve_cand *a, const struct serve_cand *b)
{
    return b->time_key <= a->time_key && b->cost_key <= a->cost_key &&
           (b->time_key < a->time_key || b->cost_key < a->cost_key);
}

static void pareto_add(struct serve_cand *set, size_t *n_set, const struct serve_cand *c)
{
    if (!isfinite(c->cost_key) || !isfinite(c->time_key))
        return;
    for (size_t i = 0; i < *n_set; i++) {
        if (dominated(c, &set[i]) ||
            (set[i].time_key == c->time_key && set[i].cost_key == c->cost_key))
            return;
    }
    size_t kept = 0;
    for (size_t i = 0; i < *n_set; i++) {
        if (!dominated(&set[i], c))
            set[kept++] = set[i];
    }
    *n_set = kept;
    if (*n_set < PARETO_CAP)
        set[(*n_set)++] = *c;
}

/* A layout that misses the targets at one request: keep the nearest, one per GPU type. */
static void record_miss(struct serve_state *st, const struct serve_cand *c)
{
    const struct gpuplan_gpu *gpu = st->base.layouts[c->layout].gpu;
    size_t at = st->n_misses;
    for (size_t i = 0; i < st->n_misses; i++) {
        if (st->base.layouts[st->misses[i].layout].gpu == gpu) {
            if (!(c->miss_score < st->misses[i].miss_score))
                return;
            memmove(&st->misses[i], &st->misses[i + 1],
                    (st->n_misses - i - 1) * sizeof st->misses[0]);
            st->n_misses--;
            at = st->n_misses;
            break;
        }
    }
    for (at = 0; at < st->n_misses && st->misses[at].miss_score <= c->miss_score; at++)
        ;
    if (at >= GPUPLAN_PLAN_MAX_MISSES)
        return;
    const size_t keep =
        st->n_misses < GPUPLAN_PLAN_MAX_MISSES ? st->n_misses : GPUPLAN_PLAN_MAX_MISSES - 1;
    memmove(&st->misses[at + 1], &st->misses[at], (keep - at) * sizeof st->misses[0]);
    st->misses[at] = *c;
    st->n_misses = keep + 1;
}

/* Prices and the constraints on them: a rate to rent, a price to buy, the budget. */
/* More than one workstation (several units or nodes of a workstation platform). */
static bool is_workstation_fleet(const struct layout *l, const struct serve_cand *c)
{
    return l->platform && strcmp(l->platform->form_factor, "workstation") == 0 &&
           (uint64_t)c->units * l->nodes > 1;
}

static bool priced(struct serve_state *st, const struct layout *l, struct serve_cand *c)
{
    const struct gpuplan_plan_request *req = st->base.req;
    const bool on_prem = req->where == GPUPLAN_WHERE_ON_PREM;
    if (req->where == GPUPLAN_WHERE_CLOUD && !l->has_rate) {
        st->n_no_rate++;
        return false;
    }
    if (on_prem && !l->has_capex) {
        st->n_no_price++;
        return false;
    }
    if (l->care & ~st->base.allow) {
        st->base.n_care++; /* beyond the standard stack, not --allow'ed */
        return false;
    }
    /* a bought workstation is one tower under a desk: a fleet of them is a server's job */
    if (on_prem && is_workstation_fleet(l, c)) {
        st->n_fleet++;
        return false;
    }
    c->usd_per_hour = l->has_rate ? c->units * l->usd_per_hour : 0.0;
    c->own_usd_per_hour = l->has_own ? c->units * l->own_usd_per_hour : 0.0;
    c->capex_usd = l->has_capex ? c->units * l->capex_usd : 0.0;
    c->capex_key = l->has_capex ? c->capex_usd : INFINITY;
    /* buying: the own cost at the stated use (--hours-per-day), else the capex; a rate from
     * another tier than the one asked is shown, never ranked first by cost */
    const bool has_price = on_prem ? l->has_own : l->has_rate && !l->rate_fallback;
    c->cost_key = on_prem && !l->has_own ? c->capex_key
                  : has_price
                      ? gpuplan_cost_usd_per_mtok(on_prem ? c->own_usd_per_hour : c->usd_per_hour,
                                                  c->tokens_per_s)
                      : INFINITY;
    if (!(req->budget_usd > 0.0))
        return true;
    const double spend = on_prem       ? c->capex_key
                         : l->has_rate ? c->usd_per_hour * SERVING_BUDGET_HOURS
                                       : INFINITY;
    if (spend > req->budget_usd) {
        st->n_over_budget++;
        return false;
    }
    return true;
}

static void record(struct serve_state *st, struct serve_cand *c)
{
    c->valid = true;
    st->feasible++;
    c->compromise = !st->base.req->weights_fixed && c->weights == GPUPLAN_DTYPE_AWQ4;
    if (c->compromise && keys_better(st, c, &st->best_compromise))
        st->best_compromise = *c;
    if (!c->compromise)
        st->any_plain = true;
    if (better(st, c, &st->best[c->layout]))
        st->best[c->layout] = *c;
    pareto_add(st->pareto[0], &st->n_pareto[0], c);
    if (!c->compromise)
        pareto_add(st->pareto[1], &st->n_pareto[1], c);
}

/*
 * One candidate: does it start; at one request does it meet the targets;
 * the most in flight that do; the replicas for the load; the operating
 * point; prices.
 */
/*
 * Pipeline stages never raise one user's decode speed (a token passes every
 * stage): a replica spans servers only when one server of the same GPUs
 * cannot start it in the same formats.
 */
static bool one_server_starts(const struct serve_state *st,
                              const struct serve_cand *c,
                              const struct gpuplan_gpu *gpu,
                              uint32_t gpus_per_node)
{
    struct serve_cand single = *c;
    single.tp = gpus_per_node;
    single.pp = 1;
    single.ep = c->ep > 1 ? gpus_per_node : 1;
    struct gpuplan_serving_request req;
    cand_request(st, &single, &req);
    struct gpuplan_serving_memory mem;
    return gpuplan_serving_memory(&st->profile, &req, gpu, &mem, NULL) == GPUPLAN_OK &&
           gpuplan_serving_starts(&mem);
}

static void evaluate(struct serve_state *st, struct serve_cand *c)
{
    const struct gpuplan_plan_request *req = st->base.req;
    const struct layout *l = &st->base.layouts[c->layout];
    if (c->pp > 1 && one_server_starts(st, c, l->gpu, l->gpus_per_node)) {
        st->n_pp_unneeded++;
        return;
    }
    struct gpuplan_serving_request sreq;
    struct gpuplan_serving_memory mem;
    if (!starts(st, c, l->gpu, &sreq, &mem))
        return;
    struct gpuplan_serving_steady ss;
    if (!steady_at(st, &sreq, l->gpu, &mem, 1, &ss)) {
        st->n_no_start++; /* the pool holds no request of the load's length */
        return;
    }
    if (!meets(st, &ss)) {
        st->n_miss_targets++;
        c->miss_score = miss_score(st, &ss);
        c->units = 1;
        c->replicas = l->gpus_per_node * l->nodes / (c->tp * c->pp);
        c->c_op = c->c_limit = 1;
        if (!(l->care & ~st->base.allow)) /* a miss on the stack the request allows */
            record_miss(st, c);
        return;
    }
    c->c_limit = concurrency_limit(st, &sreq, l->gpu, &mem);
    if (!steady_at(st, &sreq, l->gpu, &mem, c->c_limit, &ss))
        return;
    const uint32_t per_unit = l->gpus_per_node * l->nodes / (c->tp * c->pp);
    const double needed = st->by_rate ? ceil(st->rate_per_s / ss.requests_per_s)
                                      : ceil((double)st->concurrency / (double)c->c_limit);
    const double units = ceil(fmax(needed, 1.0) / per_unit);
    c->n_gpus = units * l->gpus_per_node * l->nodes;
    if (c->n_gpus > req->max_gpus) {
        st->n_over_gpus++;
        return;
    }
    c->units = (uint32_t)units;
    c->replicas = c->units * per_unit;
    if (st->by_rate)
        c->c_op =
            concurrency_for_rate(st, &sreq, l->gpu, &mem, c->c_limit, st->rate_per_s / c->replicas);
    else
        c->c_op = (st->concurrency + c->replicas - 1) / c->replicas;
    if (!steady_at(st, &sreq, l->gpu, &mem, c->c_op, &ss))
        return;
    c->ttft_s = ss.ttft_s;
    c->tpot_s = ss.tpot_s;
    /* By concurrency: every request in flight completes at the replica's per-request rate. */
    c->rate_per_s = st->by_rate ? st->rate_per_s
                                : (double)st->concurrency * ss.requests_per_s / (double)c->c_op;
    c->tokens_per_s = c->rate_per_s * (double)st->load.output_tokens;
    c->time_key = ss.ttft_s + (double)(st->load.output_tokens - 1) * ss.tpot_s;
    if (priced(st, l, c))
        record(st, c);
}

/* ---- the knobs tried ---------------------------------------------------------- */

static size_t
weight_formats(const struct serve_state *st, const struct gpuplan_gpu *gpu, enum gpuplan_dtype *out)
{
    const struct gpuplan_plan_request *req = st->base.req;
    if (req->weights_fixed) {
        out[0] = req->job.weights_dtype;
        return 1;
    }
    size_t n = 0;
    out[n++] = GPUPLAN_DTYPE_UNKNOWN; /* as the checkpoint stores them */
    if (gpu->has_fp8 && !gpuplan_serving_profile_stored_fp8(&st->profile))
        out[n++] = GPUPLAN_DTYPE_F8_E4M3;
    out[n++] = GPUPLAN_DTYPE_AWQ4;
    return n;
}

static size_t kv_formats(const struct serve_state *st,
                         const struct gpuplan_gpu *gpu,
                         enum gpuplan_serving_kv_dtype *out)
{
    const struct gpuplan_plan_request *req = st->base.req;
    if (req->kv_fixed) {
        out[0] = req->job.kv_dtype;
        return 1;
    }
    size_t n = 0;
    out[n++] = GPUPLAN_SERVING_KV_AUTO;
    if (gpu->has_fp8)
        out[n++] = GPUPLAN_SERVING_KV_FP8;
    return n;
}

/*
 * Replica shapes (tp, pp) on a layout: one replica over a rented slice or
 * over several servers (TP over each server's GPUs, PP across); a bought
 * single server may hold replicas of 1, 2, 4, ... of its GPUs.
 */
static size_t shapes(const struct serve_state *st,
                     const struct layout *l,
                     uint32_t tp[MAX_SHAPES],
                     uint32_t pp[MAX_SHAPES])
{
    if (l->nodes > 1 || st->base.req->where != GPUPLAN_WHERE_ON_PREM) {
        tp[0] = l->gpus_per_node;
        pp[0] = l->nodes;
        return 1;
    }
    size_t n = 0;
    for (uint32_t t = 1; t <= l->gpus_per_node && n < MAX_SHAPES; t *= 2) {
        if (l->gpus_per_node % t == 0) {
            tp[n] = t;
            pp[n++] = 1;
        }
    }
    return n;
}

static void search_layout(struct serve_state *st, uint32_t li)
{
    const struct layout *l = &st->base.layouts[li];
    uint32_t tps[MAX_SHAPES], pps[MAX_SHAPES];
    const size_t n_shapes = shapes(st, l, tps, pps);
    enum gpuplan_dtype ws[3];
    enum gpuplan_serving_kv_dtype kvs[2];
    const size_t n_w = weight_formats(st, l->gpu, ws);
    const size_t n_kv = kv_formats(st, l->gpu, kvs);
    const bool moe = st->profile.n_experts > 0;
    for (size_t si = 0; si < n_shapes; si++) {
        const uint32_t eps[2] = { 1, tps[si] };
        const size_t n_ep = moe && tps[si] > 1 && st->profile.n_experts % tps[si] == 0 ? 2 : 1;
        for (size_t ei = 0; ei < n_ep; ei++) {
            for (size_t wi = 0; wi < n_w; wi++) {
                for (size_t ki = 0; ki < n_kv; ki++) {
                    struct serve_cand c;
                    memset(&c, 0, sizeof c);
                    c.layout = li;
                    c.tp = tps[si];
                    c.pp = pps[si];
                    c.ep = eps[ei];
                    c.weights = ws[wi];
                    c.kv = kvs[ki];
                    c.max_model_len = st->base.req->job.max_model_len;
                    evaluate(st, &c);
                }
            }
        }
    }
}

/* ---- a kept candidate as a plan ------------------------------------------------ */

/* The disaggregated alternative on the same replica shape at the plan's rate. */
static void disaggregate(const struct serve_state *st,
                         const struct gpuplan_serving_request *req,
                         const struct gpuplan_gpu *gpu,
                         const struct gpuplan_serving_memory *mem,
                         const struct serve_cand *c,
                         struct gpuplan_plan_serving *sv)
{
    struct gpuplan_serving_load load = st->load;
    struct gpuplan_serving_disagg d;
    load.concurrency = MAX_CONCURRENCY_TRIED;
    if (gpuplan_serving_disaggregated(&st->profile, req, gpu, mem, &load, &d, NULL) != GPUPLAN_OK)
        return;
    uint64_t lo = 1, hi = d.decode_concurrency; /* the most a decode replica holds */
    load.concurrency = hi;
    if (st->tpot_target_s > 0 && d.tpot_s > st->tpot_target_s) {
        while (hi - lo > 1) {
            const uint64_t mid = lo + (hi - lo) / 2;
            load.concurrency = mid;
            if (gpuplan_serving_disaggregated(&st->profile, req, gpu, mem, &load, &d, NULL) ==
                    GPUPLAN_OK &&
                d.tpot_s <= st->tpot_target_s)
                lo = mid;
            else
                hi = mid;
        }
        load.concurrency = lo;
    }
    if (gpuplan_serving_disaggregated(&st->profile, req, gpu, mem, &load, &d, NULL) != GPUPLAN_OK)
        return;
    const double rate = c->rate_per_s;
    const double n_decode = fmax(ceil(rate / d.decode_requests_per_s), 1.0);
    const double n_prefill =
        fmax(ceil(rate * (double)st->load.input_tokens / d.prefill_tokens_per_s), 1.0);
    /* the decode replicas' share of the rate: the fewest in flight that serve it */
    uint64_t need_lo = 0, need_hi = load.concurrency;
    struct gpuplan_serving_disagg at = d;
    while (need_hi - need_lo > 1) {
        const uint64_t mid = need_lo + (need_hi - need_lo) / 2;
        load.concurrency = mid;
        if (gpuplan_serving_disaggregated(&st->profile, req, gpu, mem, &load, &at, NULL) ==
                GPUPLAN_OK &&
            at.decode_requests_per_s * n_decode >= rate)
            need_hi = mid;
        else
            need_lo = mid;
    }
    load.concurrency = need_hi;
    if (gpuplan_serving_disaggregated(&st->profile, req, gpu, mem, &load, &at, NULL) != GPUPLAN_OK)
        return;
    sv->has_disagg = true;
    sv->disagg_prefill_replicas = (uint32_t)n_prefill;
    sv->disagg_decode_replicas = (uint32_t)n_decode;
    sv->disagg_ttft_s = at.ttft_s;
    sv->disagg_tpot_s = at.tpot_s;
    sv->disagg_meets_targets = (st->ttft_target_s <= 0 || at.ttft_s <= st->ttft_target_s) &&
                               (st->tpot_target_s <= 0 || at.tpot_s <= st->tpot_target_s);
    /* Every replica costs the same, so the cost ratio is the replica ratio. */
    sv->disagg_saving = 1.0 - (n_prefill + n_decode) / (double)c->replicas;
    const double per_replica =
        (st->base.req->where == GPUPLAN_WHERE_ON_PREM ? c->own_usd_per_hour : c->usd_per_hour) /
        (double)c->replicas;
    sv->disagg_usd_per_hour = per_replica * (n_prefill + n_decode);
}

static void serve_reasons(const struct serve_state *st,
                          struct gpuplan_plan *p,
                          const struct gpuplan_serving_memory *mem,
                          const struct gpuplan_serving_step *step,
                          const char *bound)
{
    const struct gpuplan_plan_serving *sv = &p->serving;
    char tok[32], len[32];
    (void)snprintf(tok, sizeof tok, "%llu", (unsigned long long)sv->kv_capacity_tokens);
    (void)snprintf(len, sizeof len, "%llu", (unsigned long long)sv->max_model_len);
    REASON(p,
           "%u replica(s) of %u x %s (tp %u, pp %u, ep %u): %.1f GiB of weights per GPU; KV "
           "cache %s tokens per replica, max concurrency %.2f at %s tokens",
           sv->replicas, sv->gpus_per_replica, p->gpu->id, sv->tp, sv->pp, sv->ep,
           gpuplan_gib_from_bytes(sv->weights_bytes), tok, sv->max_concurrency, len);
    if (sv->meets_targets)
        REASON(p,
               "at %.3g requests/s: %llu in flight per replica (at most %llu meet the targets): "
               "TTFT %.0f ms, TPOT %.1f ms (%.1f tokens/s per user)",
               sv->request_rate_per_s, (unsigned long long)sv->concurrency,
               (unsigned long long)sv->concurrency_limit, sv->ttft_s * 1e3, sv->tpot_s * 1e3,
               sv->tokens_per_s_per_user);
    REASON(p,
           "decode step %.1f ms, bound by %s: weights %.1f, KV %.1f, compute %.1f, all-reduce "
           "%.1f, per-layer %.1f, MoE %.1f, pipeline %.2f ms",
           step->step_s * 1e3, bound, step->weights_s * 1e3, step->kv_s * 1e3,
           step->compute_s * 1e3, step->allreduce_s * 1e3, step->layer_overhead_s * 1e3,
           step->moe_s * 1e3, step->pipeline_hop_s * 1e3);
    if (sv->pp > 1)
        REASON(p,
               "pipeline: %u stages hold what one server cannot; a token still passes every "
               "stage, so they add %u hops per token and never raise one user's decode speed",
               sv->pp, sv->pp - 1);
    if (sv->has_disagg && fabs(sv->disagg_saving) < DISAGG_SAME && sv->disagg_meets_targets)
        REASON(p,
               "disaggregated prefill/decode would cost the same: %u prefill + %u decode "
               "replicas instead of %u (TTFT %.0f ms, TPOT %.1f ms)",
               sv->disagg_prefill_replicas, sv->disagg_decode_replicas, sv->replicas,
               sv->disagg_ttft_s * 1e3, sv->disagg_tpot_s * 1e3);
    else if (sv->has_disagg && sv->disagg_saving > 0 && sv->disagg_meets_targets)
        REASON(p,
               "disaggregated prefill/decode would win: %u prefill + %u decode replicas instead "
               "of %u (TTFT %.0f ms, TPOT %.1f ms), %.0f %% cheaper",
               sv->disagg_prefill_replicas, sv->disagg_decode_replicas, sv->replicas,
               sv->disagg_ttft_s * 1e3, sv->disagg_tpot_s * 1e3, 100.0 * sv->disagg_saving);
    else if (sv->has_disagg && sv->disagg_meets_targets)
        REASON(p,
               "disaggregated prefill/decode would not win: %u prefill + %u decode replicas "
               "instead of %u (TTFT %.0f ms, TPOT %.1f ms), %.0f %% more cost",
               sv->disagg_prefill_replicas, sv->disagg_decode_replicas, sv->replicas,
               sv->disagg_ttft_s * 1e3, sv->disagg_tpot_s * 1e3, -100.0 * sv->disagg_saving);
    else if (sv->has_disagg)
        REASON(p,
               "disaggregated prefill/decode would miss the targets here (TTFT %.0f ms with the "
               "KV transfer, TPOT %.1f ms)",
               sv->disagg_ttft_s * 1e3, sv->disagg_tpot_s * 1e3);
    if (sv->tp > 1 && step->step_s > 0 && !gpuplan_plan_has_fabric(p->gpu->link))
        WARNING(p,
                "PCIe only: tensor-parallel all-reduces are %.0f %% of a decode step; an "
                "NVLink (SXM) server cuts this",
                100.0 * step->allreduce_s / step->step_s);
    if (p->nodes > 1 && sv->pp > 1)
        WARNING(p,
                "one replica spans %u servers: vLLM needs a Ray cluster over them, SGLang "
                "--nnodes %u with --dist-init-addr",
                sv->pp, sv->pp);
    if (sv->weights_dtype == GPUPLAN_DTYPE_AWQ4)
        WARNING(p, "AWQ 4-bit weights: an AWQ checkpoint of this model is needed, and 4-bit "
                   "weights cost some accuracy; FP8 (8.9+/MI300) or BF16 keep it");
    if (!st->base.model->hub_id[0])
        WARNING(p,
                "no Hugging Face id for '%s': the launch line names it by its id; put the "
                "model's path or Hub id there",
                st->base.model->id);
    if (mem->advice[0])
        WARNING(p, "%s", mem->advice);
    if (!p->has_cloud_rate)
        WARNING(p, "no cloud rate for '%s' in the catalog: pass a price to rank by cost",
                p->gpu->id);
}

static void
materialise(const struct serve_state *st, const struct serve_cand *c, struct gpuplan_plan *p)
{
    const struct layout *l = &st->base.layouts[c->layout];
    const struct gpuplan_model *model = st->base.model;
    memset(p, 0, sizeof *p);
    p->gpu = l->gpu;
    p->platform = l->platform;
    p->gpus_per_node = l->gpus_per_node;
    p->nodes = l->nodes * c->units;
    if (l->nodes == 1 && l->platform && l->platform->max_gpus > l->gpus_per_node) {
        /* rented slices of one server each: as many whole servers as their GPUs fill */
        const uint32_t total = c->units * l->gpus_per_node, per = l->platform->max_gpus;
        p->gpus_per_node = total < per ? total : per;
        p->nodes = (total + per - 1) / per;
    }
    (void)snprintf(p->model_id, sizeof p->model_id, "%s", model->id);
    (void)snprintf(p->model_family, sizeof p->model_family, "%s", model->arch.family);
    struct gpuplan_job job = st->base.req->job;
    job.gpus_per_node = l->gpus_per_node;
    job.nodes = l->nodes;
    job.tp = c->tp;
    job.pp = c->pp;
    job.tp_set = job.pp_set = true;
    job.ep = c->ep;
    job.weights_dtype = c->weights;
    job.kv_dtype = c->kv;
    job.max_model_len = c->max_model_len;
    (void)snprintf(job.gpu_id, sizeof job.gpu_id, "%s", l->gpu->id);
    gpuplan_job_resolve(&job, &p->job);
    p->is_serving = true;
    struct gpuplan_plan_serving *sv = &p->serving;
    struct gpuplan_serving_request req;
    gpuplan_serving_request_from_job(&p->job, &req);
    struct gpuplan_serving_memory mem;
    (void)gpuplan_serving_memory(&st->profile, &req, l->gpu, &mem, NULL);
    struct gpuplan_memory_report *report = calloc(1, sizeof *report);
    if (report && gpuplan_estimate_memory(model, &p->job, l->gpu, report, NULL) == GPUPLAN_OK) {
        p->memory_per_gpu_bytes = report->est.per_gpu.device_total_bytes;
        p->usable_bytes = report->est.gpu_usable_bytes;
        p->headroom_bytes = report->est.headroom_bytes;
        p->fits = report->est.fits;
        gpuplan_plan_server_spec(&st->base, p, &report->est);
    }
    free(report);
    sv->engine = mem.engine;
    (void)snprintf(sv->engine_version, sizeof sv->engine_version, "%s", mem.engine_version);
    (void)snprintf(sv->model_ref, sizeof sv->model_ref, "%s",
                   model->hub_id[0] ? model->hub_id : model->id);
    sv->tp = mem.tp;
    sv->pp = mem.pp;
    sv->ep = mem.ep;
    sv->gpus_per_replica = c->tp * c->pp;
    sv->replicas = c->replicas;
    sv->max_model_len = mem.max_model_len;
    sv->max_num_seqs = mem.max_num_seqs;
    sv->max_num_batched_tokens = mem.max_num_batched_tokens;
    sv->memory_fraction = mem.memory_fraction;
    sv->kv_dtype = c->kv;
    sv->kv_element = mem.kv_element;
    sv->weights_dtype = c->weights;
    sv->enforce_eager = req.enforce_eager;
    sv->kv_capacity_tokens = mem.kv_capacity_tokens;
    sv->max_concurrency = mem.max_concurrency;
    sv->weights_bytes = mem.weights_bytes;
    sv->input_tokens = st->load.input_tokens;
    sv->output_tokens = st->load.output_tokens;
    sv->request_rate_per_s = c->rate_per_s;
    sv->concurrency = c->c_op;
    sv->concurrency_limit = c->c_limit;
    struct gpuplan_serving_steady ss;
    memset(&ss, 0, sizeof ss);
    (void)steady_at(st, &req, l->gpu, &mem, c->c_op, &ss);
    sv->ttft_s = ss.ttft_s;
    sv->tpot_s = ss.tpot_s;
    sv->tokens_per_s = c->valid ? c->tokens_per_s : ss.output_tokens_per_s;
    sv->tokens_per_s_per_gpu = sv->tokens_per_s / ((double)sv->replicas * sv->gpus_per_replica);
    sv->tokens_per_s_per_user = ss.tpot_s > 0 ? 1.0 / ss.tpot_s : 0.0;
    sv->meets_targets = c->valid;
    struct gpuplan_serving_load load = st->load;
    load.concurrency = c->c_op;
    gpuplan_serving_commands(sv->model_ref, &req, &mem, &load,
                             gpuplan_serving_profile_stored_fp8(&st->profile), &sv->commands);
    p->tokens_per_s = sv->tokens_per_s;
    p->tokens_per_s_per_user = sv->tokens_per_s_per_user;
    p->ttft_s = sv->ttft_s;
    p->has_cloud_rate = l->has_rate;
    p->cost_usd_per_hour = l->has_rate ? c->units * l->usd_per_hour : 0.0;
    p->has_capex = l->has_capex;
    p->capex_usd = l->has_capex ? c->units * l->capex_usd : 0.0;
    p->capex = l->capex; /* one unit's lines, times the units (capex_usd is units x its total) */
    for (int i = 0; i < GPUPLAN_CAPEX_ITEM_COUNT; i++) {
        p->capex.line[i].quantity *= c->units;
        p->capex.line[i].usd *= c->units;
    }
    p->capex.total_usd *= c->units;
    p->rate_fallback = l->rate_fallback;
    if (l->rate) {
        (void)snprintf(p->cloud_tier, sizeof p->cloud_tier, "%s",
                       gpuplan_cloud_tier_name(l->rate->tier));
        (void)snprintf(p->cloud_provider, sizeof p->cloud_provider, "%s", l->rate->provider);
    }
    p->has_own_cost = l->has_own;
    p->own_usd_per_hour = l->has_own ? c->units * l->own_usd_per_hour : 0.0;
    p->cost_per_mtok_usd = l->has_rate && sv->tokens_per_s > 0
                               ? gpuplan_cost_usd_per_mtok(p->cost_usd_per_hour, sv->tokens_per_s)
                               : 0.0;
    p->own_cost_per_mtok_usd =
        l->has_own && sv->tokens_per_s > 0
            ? gpuplan_cost_usd_per_mtok(p->own_usd_per_hour, sv->tokens_per_s)
            : 0.0;
    p->compromise = c->compromise;
    p->bottleneck = "";
    struct gpuplan_serving_step step;
    memset(&step, 0, sizeof step);
    (void)gpuplan_serving_step_time(&st->profile, &req, l->gpu, ss.concurrency,
                                    st->load.input_tokens + st->load.output_tokens / 2, 0, &step,
                                    NULL);
    static const char *const bounds[] = { "weights",   "kv",  "compute", "allreduce",
                                          "per-layer", "moe", "pipeline" };
    const double terms[] = { step.weights_s,        step.kv_s,
                             step.compute_s,        step.allreduce_s,
                             step.layer_overhead_s, step.moe_s,
                             step.pipeline_hop_s };
    size_t b = 0;
    for (size_t i = 1; i < sizeof terms / sizeof terms[0]; i++) {
        if (terms[i] > terms[b])
            b = i;
    }
    p->bottleneck = bounds[b];
    if (c->valid)
        disaggregate(st, &req, l->gpu, &mem, c, sv);
    else
        (void)snprintf(sv->miss, sizeof sv->miss,
                       GPUPLAN_TR("TTFT %.0f ms, TPOT %.1f ms at one request"), ss.ttft_s * 1e3,
                       ss.tpot_s * 1e3);
    serve_reasons(st, p, &mem, &step, p->bottleneck);
    gpuplan_plan_maturity(&st->base, p, l->care);
    gpuplan_plan_compat_warnings(&st->base, p);
}

/* ---- ranking and the result --------------------------------------------------- */

static bool
same_offer(const struct serve_state *st, const struct serve_cand *a, const struct serve_cand *b)
{
    const struct layout *x = &st->base.layouts[a->layout], *y = &st->base.layouts[b->layout];
    /* one plan per GPU type (issue 14 item 5): the list compares GPUs, the Pareto set the
     * shapes of one */
    return x->gpu == y->gpu;
}

static void pick_top(struct serve_state *st, struct gpuplan_plan_result *out)
{
    struct serve_cand chosen[GPUPLAN_PLAN_MAX_TOP];
    size_t n = 0;
    const size_t k = st->base.req->top_k;
    for (size_t i = 0; i < st->base.n_layouts; i++) {
        const struct serve_cand *c = &st->best[i];
        if (!c->valid)
            continue;
        bool skip = false;
        for (size_t j = 0; j < n; j++) {
            if (same_offer(st, c, &chosen[j])) {
                if (better(st, c, &chosen[j])) {
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
        size_t pos = 0;
        while (pos < n && !better(st, c, &chosen[pos]))
            pos++;
        if (pos >= k)
            continue;
        const size_t keep = n < k ? n : k - 1;
        memmove(&chosen[pos + 1], &chosen[pos], (keep - pos) * sizeof chosen[0]);
        chosen[pos] = *c;
        n = keep + 1;
    }
    for (size_t i = 0; i < n; i++)
        materialise(st, &chosen[i], &out->top[i]);
    out->n_top = n;
    if (n > 0)
        st->top0 = chosen[0];
}

static int cmp_time(const void *a, const void *b)
{
    const struct serve_cand *x = a, *y = b;
    return (x->time_key > y->time_key) - (x->time_key < y->time_key);
}

static void pick_pareto(struct serve_state *st, struct gpuplan_plan_result *out)
{
    const int w = st->top0.valid && !st->top0.compromise ? 1 : 0;
    struct serve_cand *set = st->pareto[w];
    const size_t n_set = st->n_pareto[w];
    qsort(set, n_set, sizeof set[0], cmp_time);
    const size_t n = n_set < GPUPLAN_PLAN_MAX_PARETO ? n_set : GPUPLAN_PLAN_MAX_PARETO;
    for (size_t i = 0; i < n; i++) {
        const size_t src = n < 2 ? 0 : i * (n_set - 1) / (n - 1);
        materialise(st, &set[src], &out->pareto[i]);
    }
    out->n_pareto = n;
}

/* "at 10 requests/s" or "with 64 requests in flight", for the notes. */
static void load_words(const struct serve_state *st, char *out, size_t cap)
{
    if (st->by_rate)
        (void)snprintf(out, cap, GPUPLAN_TR("%.3g requests/s"), st->rate_per_s);
    else
        (void)snprintf(out, cap, GPUPLAN_TR("%llu requests in flight"),
                       (unsigned long long)st->concurrency);
}

/* "TTFT <= 1000 ms, TPOT <= 50.0 ms": the targets given. */
static void targets_words(const struct serve_state *st, char *out, size_t cap)
{
    out[0] = '\0';
    if (st->ttft_target_s > 0)
        (void)snprintf(out, cap, GPUPLAN_TR("TTFT <= %.0f ms"), st->ttft_target_s * 1e3);
    if (st->tpot_target_s > 0) {
        const size_t len = strlen(out);
        (void)snprintf(out + len, cap - len, GPUPLAN_TR("%sTPOT <= %.1f ms"), len ? ", " : "",
                       st->tpot_target_s * 1e3);
    }
}

static void run_notes(const struct serve_state *st, struct gpuplan_plan_result *out)
{
    const struct gpuplan_plan_request *req = st->base.req;
    char load[64], targets[96];
    load_words(st, load, sizeof load);
    targets_words(st, targets, sizeof targets);
    gpuplan_plan_beyond_max_note(&st->base, out);
    const bool none_tried = st->evaluated == 0 && st->base.beyond_max_gpu;
    if (out->n_top == 0 && st->starting == 0 && !none_tried)
        NOTE(out,
             "no layout starts the engine in up to %u GPUs (it refuses, or runs out of memory at "
             "CUDA graph capture): raise --max-gpus, or a shorter --max-model-len",
             req->max_gpus);
    else if (out->n_top == 0 && st->n_misses > 0)
        NOTE(out,
             "nothing meets the targets (%s) even at one request in flight; the nearest misses "
             "follow",
             targets);
    else if (out->n_top == 0)
        NOTE(out,
             "%llu layouts start but none serves %s within the constraints (GPUs, budget, "
             "prices)",
             (unsigned long long)st->starting, load);
    if (st->n_no_start)
        NOTE(out,
             "%llu candidates do not start: the engine refuses (no KV cache for one request) or "
             "graph capture runs out of memory",
             (unsigned long long)st->n_no_start);
    if (st->n_pp_unneeded)
        NOTE(out,
             "%llu multi-server layouts skipped: one server of the same GPUs starts the model, "
             "and pipeline stages never raise one user's decode speed",
             (unsigned long long)st->n_pp_unneeded);
    if (st->n_miss_targets && out->n_top > 0)
        NOTE(out, "%llu candidates miss the targets even at one request in flight",
             (unsigned long long)st->n_miss_targets);
    if (st->n_over_gpus)
        NOTE(out, "%llu candidates need more than --max-gpus %u for %s",
             (unsigned long long)st->n_over_gpus, req->max_gpus, load);
    if (st->n_over_budget)
        NOTE(out, "%llu candidates cost more than the budget (a month of serving, or capex)",
             (unsigned long long)st->n_over_budget);
    if (st->n_no_price)
        NOTE(out, "%llu fitting candidates dropped: no purchase price in the catalog",
             (unsigned long long)st->n_no_price);
    if (st->n_no_rate)
        NOTE(out, "%llu fitting candidates dropped: no cloud rate in the catalog",
             (unsigned long long)st->n_no_rate);
    if (st->n_fleet)
        NOTE(out,
             "%llu candidates left out: more than one workstation (a fleet of towers is a "
             "server's job)",
             (unsigned long long)st->n_fleet);
    if (st->base.n_care)
        NOTE(out,
             "%llu candidates beyond the standard stack left out (ROCm, Gaudi, GeForce in a "
             "server): --allow to include them",
             (unsigned long long)st->base.n_care);
    if (req->objective == GPUPLAN_OBJECTIVE_COST && out->n_top > 0)
        NOTE(out, "%s",
             req->where == GPUPLAN_WHERE_ON_PREM && req->hours_per_day > 0.0
                 ? GPUPLAN_TR("ranked by own cost per million output tokens at the stated use "
                              "(TCO as in 'gpuplan tco')")
             : req->where == GPUPLAN_WHERE_ON_PREM
                 ? GPUPLAN_TR("buying: ranked by capex, the cheapest servers that meet the "
                              "targets; --hours-per-day H ranks by the own cost at that use")
                 : GPUPLAN_TR("ranked by cloud cost per million output tokens at the catalog's "
                              "on-demand rates"));
    if (out->n_top > 0 && out->top[0].compromise)
        NOTE(out, "%s",
             GPUPLAN_TR("only AWQ 4-bit weights meet the constraints: BF16/FP8 plans "
                        "would keep accuracy (more GPUs, memory or budget)"));
    else if (out->n_top > 0 && keys_better(st, &st->best_compromise, &st->top0))
        NOTE(out, "%s",
             GPUPLAN_TR("AWQ 4-bit plans rank after BF16/FP8 ones (4-bit weights cost "
                        "accuracy); pass --weights awq to rank by the objective alone"));
}

static enum gpuplan_status serve_init(struct serve_state *st,
                                      const struct gpuplan_model *model,
                                      const struct gpuplan_catalog *catalog,
                                      const struct gpuplan_plan_request *req,
                                      struct gpuplan_error *err)
{
    st->base.req = req;
    st->base.model = model;
    st->base.view = req->where == GPUPLAN_WHERE_ON_PREM ? PLAN_VIEW_BUY : PLAN_VIEW_RENT;
    st->base.allow = gpuplan_plan_implied_allow(req, catalog);
    struct gpuplan_job resolved;
    gpuplan_job_resolve(&req->job, &resolved);
    enum gpuplan_status status = gpuplan_serving_profile_build(&st->profile, model, err);
    if (status == GPUPLAN_OK) /* the server spec reads the parameter count */
        status = gpuplan_memory_profile_build(&st->base.mem, model, resolved.lora_target_roles,
                                              resolved.lora_rank, err);
    if (status == GPUPLAN_OK)
        status = gpuplan_plan_build_layouts(&st->base, catalog, err);
    if (status != GPUPLAN_OK)
        return status;
    st->best = calloc(st->base.n_layouts ? st->base.n_layouts : 1, sizeof *st->best);
    if (!st->best)
        return gpuplan_error_set(err, GPUPLAN_ERR_NOMEM, NULL, "out of memory");
    st->load.input_tokens = req->job.input_tokens ? req->job.input_tokens : 1;
    st->load.output_tokens = req->job.output_tokens ? req->job.output_tokens : 1;
    st->by_rate = req->request_rate_per_s > 0.0;
    st->rate_per_s = req->request_rate_per_s;
    st->concurrency = req->job.concurrency ? req->job.concurrency : 1;
    st->ttft_target_s = req->target_ttft_ms / 1e3;
    st->tpot_target_s = req->target_tpot_ms / 1e3;
    return GPUPLAN_OK;
}

enum gpuplan_status gpuplan_plan_serve_run(const struct gpuplan_model *model,
                                           const struct gpuplan_catalog *catalog,
                                           const struct gpuplan_plan_request *req,
                                           struct gpuplan_plan_result *out,
                                           struct gpuplan_error *err)
{
    struct serve_state *st = calloc(1, sizeof *st);
    if (!st)
        return gpuplan_error_set(err, GPUPLAN_ERR_NOMEM, NULL, "out of memory");
    memset(out, 0, sizeof *out);
    out->request = *req;
    (void)snprintf(out->model_id, sizeof out->model_id, "%s", model->id);
    const enum gpuplan_status status = serve_init(st, model, catalog, &out->request, err);
    if (status == GPUPLAN_OK) {
        for (uint32_t i = 0; i < st->base.n_layouts; i++)
            search_layout(st, i);
        out->evaluated = st->evaluated;
        out->fitting = st->starting;
        out->feasible = st->feasible;
        out->needs_care = st->base.n_care;
        pick_top(st, out);
        pick_pareto(st, out);
        if (out->n_top == 0) {
            for (size_t i = 0; i < st->n_misses; i++)
                materialise(st, &st->misses[i], &out->misses[i]);
            out->n_misses = st->n_misses;
        }
        run_notes(st, out);
    }
    free(st->best);
    free(st->base.layouts);
    free(st);
    return status;
}

/* ---- the latency-throughput curve of a kept plan ------------------------------ */

static int curve_point_order(const void *a, const void *b)
{
    const struct gpuplan_plan_curve_point *x = a, *y = b;
    return (x->concurrency > y->concurrency) - (x->concurrency < y->concurrency);
}

enum gpuplan_status gpuplan_plan_serving_curve(const struct gpuplan_model *model,
                                               const struct gpuplan_plan *plan,
                                               struct gpuplan_plan_curve_point *out,
                                               size_t cap,
                                               size_t *n,
                                               struct gpuplan_error *err)
{
    *n = 0;
    if (!plan->is_serving || !plan->gpu || cap == 0)
        return gpuplan_error_set(err, GPUPLAN_ERR_USAGE, "serving curve",
                                 "not a serving plan, or no room for points");
    struct gpuplan_serving_profile *profile = calloc(1, sizeof *profile);
    struct gpuplan_serving_memory *mem = calloc(1, sizeof *mem);
    enum gpuplan_status status =
        profile && mem ? GPUPLAN_OK
                       : gpuplan_error_set(err, GPUPLAN_ERR_NOMEM, NULL, "out of memory");
    if (status == GPUPLAN_OK)
        status = gpuplan_serving_profile_build(profile, model, err);
    struct gpuplan_serving_request req;
    gpuplan_serving_request_from_job(&plan->job, &req);
    if (status == GPUPLAN_OK)
        status = gpuplan_serving_memory(profile, &req, plan->gpu, mem, err);
    const struct gpuplan_plan_serving *sv = &plan->serving;
    const double gpus = sv->gpus_per_replica ? (double)sv->gpus_per_replica : 1.0;
    struct gpuplan_serving_load load = { sv->input_tokens ? sv->input_tokens : 1,
                                         sv->output_tokens ? sv->output_tokens : 1, 0 };
    /* concurrencies: powers of two below what the pool holds, that cap, the two marked */
    uint64_t held = 0;
    struct gpuplan_serving_steady ss;
    load.concurrency = MAX_CONCURRENCY_TRIED;
    if (status == GPUPLAN_OK && gpuplan_serving_starts(mem) &&
        gpuplan_serving_steady_state(profile, &req, plan->gpu, mem, &load, &ss, NULL) == GPUPLAN_OK)
        held = ss.concurrency;
    for (uint64_t c = 1; status == GPUPLAN_OK && held > 0 && *n < cap; c *= 2) {
        const bool last = c >= held;
        const uint64_t conc = last ? held : c;
        load.concurrency = conc;
        if (gpuplan_serving_steady_state(profile, &req, plan->gpu, mem, &load, &ss, NULL) !=
            GPUPLAN_OK)
            break;
        out[(*n)++] = (struct gpuplan_plan_curve_point){
            ss.concurrency, ss.output_tokens_per_s / gpus, ss.ttft_s, ss.tpot_s, false, false
        };
        if (last)
            break;
    }
    const uint64_t marked[2] = { sv->concurrency, sv->concurrency_limit };
    for (int m = 0; m < 2 && status == GPUPLAN_OK && held > 0; m++) {
        if (marked[m] == 0)
            continue;
        size_t at = *n;
        for (size_t i = 0; i < *n; i++)
            if (out[i].concurrency == marked[m])
                at = i;
        if (at == *n) {
            load.concurrency = marked[m];
            if (*n == cap || gpuplan_serving_steady_state(profile, &req, plan->gpu, mem, &load, &ss,
                                                          NULL) != GPUPLAN_OK)
                continue;
            out[(*n)++] = (struct gpuplan_plan_curve_point){
                ss.concurrency, ss.output_tokens_per_s / gpus, ss.ttft_s, ss.tpot_s, false, false
            };
        }
        if (m == 0)
            out[at].is_operating = true;
        else
            out[at].is_limit = true;
    }
    qsort(out, *n, sizeof *out, curve_point_order);
    free(profile);
    free(mem);
    return status;
}
