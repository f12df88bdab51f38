/*
 * plan_internal.h - what the planner's files share: a hardware layout, a
 * candidate (one knob setting on a layout), the search state, and the
 * steps each file provides (plan_search.c, plan_server.c, plan_explain.c;
 * plan.c runs them).
 */
#ifndef GPUPLAN_PLAN_INTERNAL_H
#define GPUPLAN_PLAN_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpuplan/estimate.h"
#include "gpuplan/plan.h"
#include "gpuplan/throughput.h"

#include "estimate/memory_internal.h"

#include "util/i18n_internal.h"

/* Keys within 0.5 % are a tie (the model's error is far larger): the next key decides. */
#define TIE_FRACTION 0.005
/* The objective's first key within 5 % is a near tie (issue 14 item 3: the time
 * model's error is larger): fewer GPUs, fewer servers, the standard stack decide. */
#define NEAR_TIE_FRACTION 0.05
/* The two ways to pay: rent (cloud rate) and buy (capex, or the own cost at a stated use). */
#define PLAN_VIEW_RENT 0
#define PLAN_VIEW_BUY  1
/* Feasible candidates kept per Pareto set before the result's GPUPLAN_PLAN_MAX_PARETO. */
#define PARETO_CAP 256

/* One hardware layout: GPU x platform x GPUs per node x nodes, with its prices. */
struct layout {
    const struct gpuplan_gpu *gpu;
    const struct gpuplan_platform *platform;
    uint32_t gpus_per_node, nodes;
    bool has_capex;
    double capex_usd;
    struct gpuplan_capex capex; /* the lines behind capex_usd (cost.h) */
    bool has_rate;
    double usd_per_gpu_hour; /* the catalog rate at the request's cloud tier (or a fallback) */
    double usd_per_hour;     /* all GPUs */
    const struct gpuplan_cloud_rate *rate; /* borrowed; NULL without a rate */
    bool rate_fallback;                    /* no rate at the asked tier: `rate` is another tier's */
    bool has_own;
    double own_usd_per_hour; /* all servers, per hour of use (TCO at --hours-per-day) */
    uint32_t care;           /* enum gpuplan_plan_allow bits the GPU on this platform needs (rented
                                unless the request is on-prem) */
    uint32_t shape;          /* index of its (GPUs per node, nodes) in search.shapes */
    /* the parts prices (catalog parts.json) and the platform's base, for a candidate's RAM and
     * NVMe beyond it (the chassis capex above has only the base) */
    double ram_usd_per_gib, nvme_usd_per_tb, ram_base_gib, nvme_base_tb;
};

/*
 * The GPU-independent memory terms of every knob setting tried on one
 * shape (GPUs per node x nodes) without model parallelism: the layouts of
 * that shape (every GPU and platform) share them, so each is evaluated once
 * per run and finished on each GPU (gpuplan_memory_terms_finish). Indexed
 * by the knobs' positions in the search's lists (plan_search.c,
 * memo_index); allocated when the shape's first candidate is evaluated.
 * TP/PP candidates are evaluated in full (their terms depend on tp x pp).
 */
struct memo_entry {
    struct gpuplan_memory_terms terms;
    bool known;
};
struct shape {
    uint32_t gpus_per_node, nodes;
    struct memo_entry *memo;
};

/* The knobs of one candidate and its figures (what ranking and Pareto need). */
struct candidate {
    uint32_t layout;
    uint8_t method, precision, sharding, offload, ckpt, tp, pp;
    uint8_t care; /* enum gpuplan_plan_allow bits this candidate needs, in the run's view */
    uint64_t micro_batch;
    double tokens_per_s, time_key, cost_key, capex_key;
    double rent_key, own_key; /* USD per million tokens: cloud, own (INFINITY unknown) */
    double rent_spend;        /* the cloud run, USD (INFINITY unknown) */
    double comm_share;        /* exposed communication / step time */
    bool listed;              /* may enter the list (its view's price and budget) */
    bool buyable;             /* has a purchase price within the budget */
    bool compromise;          /* offload that the user did not fix */
    bool may_not_fit;         /* the top of its memory range is over the usable memory */
    int64_t range_over_bytes; /* ... by this much per GPU */
    bool valid;
};

/* Everything the search loop reads; built once per run. */
struct search {
    const struct gpuplan_plan_request *req;
    const struct gpuplan_model *model;
    const struct gpuplan_catalog *catalog; /* its parts prices price a kept plan's RAM/NVMe */
    struct gpuplan_memory_profile mem;
    struct gpuplan_throughput_profile thr;
    struct layout *layouts;
    size_t n_layouts;
    struct shape *shapes; /* the layouts' shapes (training search only) */
    size_t n_shapes;
    struct candidate *best;       /* per layout */
    struct candidate *best_plain; /* per layout, the best that is no compromise */
    /* Pareto sets over (time, cost): [r][0] every feasible candidate, [r][1] those that are
     * no compromise; r = 0 those whose memory range fits, r = 1 all. The result shows
     * [top plan may not fit][top plan is no compromise] (gpuplan_plan_pareto_set) */
    struct candidate pareto[2][2][PARETO_CAP];
    size_t n_pareto[2][2];
    struct candidate best_single; /* best feasible 1-GPU candidate (seed S14) */
    struct candidate top0;        /* the top recommendation */
    uint64_t evaluated, fitting, feasible;
    uint64_t n_no_rate; /* candidates dropped for want of a cloud rate */
    uint64_t over_ram, over_cores, over_nvme;
    uint64_t network_bound;           /* multi-server, mostly waiting on the network */
    uint64_t n_no_price;              /* on-prem: dropped for want of a purchase price */
    struct candidate best_compromise; /* best compromise by the keys alone */
    bool any_plain;                   /* a feasible candidate that is no compromise */
    bool any_plain_fit;               /* ... whose memory range fits */
    int view;                         /* PLAN_VIEW_RENT or PLAN_VIEW_BUY (on-prem) */
    uint32_t allow;                   /* --allow with what the request implies */
    struct candidate best_care;       /* the best beyond the standard stack, not allowed */
    uint64_t n_care;                  /* candidates dropped for that */
    uint64_t too_long;                /* past --max-run-days (no deadline) */
    struct candidate miss_cheap;      /* meets the deadline, not the budget: the cheapest */
    struct candidate miss_fast;       /* within the budget, not the deadline: the fastest */
    /* the memory intervals of the request's stack, per method (looked up once per run) */
    bool has_interval[GPUPLAN_METHOD_COUNT];
    struct gpuplan_interval interval_allocated[GPUPLAN_METHOD_COUNT];
    struct gpuplan_interval interval_reserved[GPUPLAN_METHOD_COUNT];
    uint64_t may_not_fit;              /* feasible candidates whose range may not fit */
    struct candidate best_may_not_fit; /* the best of those (gpuplan_plan_better_in_tier) */
    /* a GPU named with --gpu none of whose offers fits in --max-gpus (an NVL72 rack is 72):
     * the first such GPU and the fewest GPUs it is offered in */
    const struct gpuplan_gpu *beyond_max_gpu;
    uint32_t beyond_max_gpus;
};

/* The note for beyond_max_gpu, when set: what --max-gpus would include it. */
void gpuplan_plan_beyond_max_note(const struct search *s, struct gpuplan_plan_result *out);

/* ---- words (plan_explain.c) ---- */

/*
 * Append the translated `fmt` to list[*n] unless cap entries are there;
 * a text past GPUPLAN_PLAN_TEXT_MAX is cut at a UTF-8 boundary.
 */
void gpuplan_plan_add_text(char (*list)[GPUPLAN_PLAN_TEXT_MAX],
                           size_t *n,
                           size_t cap,
                           const char *fmt,
                           ...) __attribute__((format(printf, 4, 5)));

/* A reason or a warning of plan `p`. */
#define REASON(p, ...) \
    gpuplan_plan_add_text((p)->reasons, &(p)->n_reasons, GPUPLAN_PLAN_MAX_REASONS, __VA_ARGS__)
#define WARNING(p, ...) \
    gpuplan_plan_add_text((p)->warnings, &(p)->n_warnings, GPUPLAN_PLAN_MAX_WARNINGS, __VA_ARGS__)
/* A note of the run (result `out`). */
#define NOTE(out, ...) \
    gpuplan_plan_add_text((out)->notes, &(out)->n_notes, GPUPLAN_PLAN_MAX_NOTES, __VA_ARGS__)

/* ---- the search (plan_search.c) ---- */

/* Every layout the request allows, with its prices (s->layouts, s->n_layouts). */
enum gpuplan_status gpuplan_plan_build_layouts(struct search *s,
                                               const struct gpuplan_catalog *catalog,
                                               struct gpuplan_error *err);
/* The shapes of the layouts (s->shapes, each layout's shape); the training search needs them. */
enum gpuplan_status gpuplan_plan_build_shapes(struct search *s, struct gpuplan_error *err);
void gpuplan_plan_free_shapes(struct search *s);
/* Evaluate every knob setting of layout `li` (training; serving is plan_serve.c's). */
void gpuplan_plan_search_layout(struct search *s, uint32_t li);
/* The job candidate `c` runs on layout `l`. */
void gpuplan_plan_job_for(const struct search *s,
                          const struct layout *l,
                          const struct candidate *c,
                          struct gpuplan_job *job);
/* Fits with the request's headroom. */
bool gpuplan_plan_headroom_ok(const struct gpuplan_plan_request *req,
                              const struct gpuplan_job *job,
                              const struct gpuplan_memory_estimate *m);
/* The stack bits a GPU on a platform needs beyond the standard one (GeForce in a server or
 * a cloud, ROCm, Gaudi). */
uint32_t gpuplan_plan_layout_care(const struct gpuplan_plan_request *req,
                                  const struct gpuplan_gpu *gpu,
                                  const struct gpuplan_platform *platform,
                                  uint32_t nodes,
                                  bool rent);
/* --allow with what the request implies (--vendor amd: rocm; --gpu rtx-4090: geforce; ...). */
uint32_t gpuplan_plan_implied_allow(const struct gpuplan_plan_request *req,
                                    const struct gpuplan_catalog *catalog);
/* `a` ranks before `b` in view PLAN_VIEW_RENT or PLAN_VIEW_BUY (no compromise tier). */
bool gpuplan_plan_view_better(const struct search *s,
                              int view,
                              const struct candidate *a,
                              const struct candidate *b);
/* `a` ranks before `b` by the objective's keys alone (no compromise tier). */
/* Lexicographic order of two key vectors, the first within NEAR_TIE_FRACTION and the others
 * within TIE_FRACTION being ties: < 0 when `ka` ranks first, > 0 when `kb` does, 0 a tie. */
int gpuplan_plan_keys_order(const double *ka, const double *kb, size_t n);
/* The objective's figure of `c` in the run's view (the first ranking key). */
double gpuplan_plan_first_key(const struct search *s, const struct candidate *c);
bool gpuplan_plan_keys_better(const struct search *s,
                              const struct candidate *a,
                              const struct candidate *b);
/* The Pareto set of plans like the top one (its range tier, with or without a compromise). */
const struct candidate *gpuplan_plan_pareto_set(const struct search *s, size_t *n);
/* The memory intervals of the request's stack for each method (s->interval_*). */
void gpuplan_plan_intervals_init(struct search *s, const struct gpuplan_job *resolved);
/* The 80 % range of memory estimate `m` of a job of `method` (has_memory false: none). */
void gpuplan_plan_memory_range(const struct search *s,
                               enum gpuplan_method method,
                               const struct gpuplan_memory_estimate *m,
                               struct gpuplan_estimate_ranges *out);
/* `a` ranks before `b` with the memory range left aside: compromises (unasked offload)
 * after the rest. */
bool gpuplan_plan_better_in_tier(const struct search *s,
                                 const struct candidate *a,
                                 const struct candidate *b);
/* `a` ranks before `b`: a plan whose memory range may not fit after those whose range fits,
 * then compromises (unasked offload) after the rest. */
bool gpuplan_plan_better(const struct search *s,
                         const struct candidate *a,
                         const struct candidate *b);

/* ---- the server (plan_server.c) ---- */

struct gpuplan_plan_host_need {
    double ram_bytes;     /* memory model host need + one 16-bit copy for loading + 10 % */
    uint32_t cores_data;  /* data loading and launcher, floor S11: must fit the platform */
    uint32_t cores_want;  /* + CPU Adam threads when the optimizer runs on the CPU */
    double nvme_bytes;    /* weights + dataset + checkpoints + offloaded state, + 20 % */
    uint64_t drive_bytes; /* the smallest drive size whose count fits the bays */
    uint64_t drives;
};

/* The RAM one server of the plan gets: the need, the S11 floor, a sold DIMM total, at most the
 * platform's maximum (what gpuplan_plan_server_spec writes). */
uint64_t gpuplan_plan_server_ram_bytes(const struct search *s,
                                       const struct gpuplan_job *job,
                                       const struct gpuplan_platform *pl,
                                       const struct gpuplan_plan_host_need *h);
/* What one server of the plan must hold (the assumptions in plan_server.c). */
void gpuplan_plan_host_need(const struct search *s,
                            const struct gpuplan_job *job,
                            uint32_t gpus_per_node,
                            uint32_t nodes,
                            const struct gpuplan_platform *pl,
                            const struct gpuplan_memory_estimate *m,
                            struct gpuplan_plan_host_need *h);
/* "NVLink via NVSwitch", "PCIe only (no GPU-to-GPU fabric)", ... */
const char *gpuplan_plan_link_words(enum gpuplan_link link);
/* The GPUs have a GPU-to-GPU fabric (anything but PCIe). */
bool gpuplan_plan_has_fabric(enum gpuplan_link link);
/* The whole-server spec of plan `p` (its memory estimate `m`), with its warnings. */
void gpuplan_plan_server_spec(const struct search *s,
                              struct gpuplan_plan *p,
                              const struct gpuplan_memory_estimate *m);

/* ---- reasons, warnings, notes (plan_explain.c) ---- */

/* Plan `p`'s reasons and warnings: its layout and time `t`, its knobs, compatibility. */
void gpuplan_plan_explain(const struct search *s,
                          struct gpuplan_plan *p,
                          const struct gpuplan_throughput *t);
/* Plan `p`'s maturity (needs_care, maturity) from the stack bits `care` it needs (S13). */
void gpuplan_plan_maturity(const struct search *s, struct gpuplan_plan *p, uint32_t care);
/* The compatibility warnings of plan `p`'s GPU (CUDA, FlashAttention, FP8, ROCm; S13). */
void gpuplan_plan_compat_warnings(const struct search *s, struct gpuplan_plan *p);
/* The run's notes: why plans were dropped, the ranking basis, the trade-off, S14. */
void gpuplan_plan_run_notes(const struct search *s, struct gpuplan_plan_result *out);

#endif
