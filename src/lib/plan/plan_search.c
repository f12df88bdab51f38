/*
 * plan_search.c - the planner's search: the hardware layouts, the knob sets
 * tried on each, one candidate's evaluation (memory, the server, time,
 * prices and constraints), ranking, and the Pareto set.
 *
 * Search space (docs/planner.md): catalog GPU x platform x GPUs per node
 * (the platform's sold counts on-prem; any 1/2/4/8 slice up to the
 * platform's size in the cloud) x nodes (1..16; a second server only
 * once the first is full) x (sharding, offload) pair x micro-batch
 * (1..16) x activation checkpointing x method x precision (where open).
 * Serving requests are plan_serve.c's.
 *
 * Each candidate costs one gpuplan_memory_eval(); only those that fit with
 * headroom also get gpuplan_throughput_eval(). Both are closed-form and
 * allocation-free; the profiles are built once per run.
 *
 * Ranking keeps the best knob setting per hardware layout (GPU, platform,
 * GPUs per node, nodes), so the top K are different servers rather than the
 * same server with micro-batch 4 and 8. The Pareto set is over (time, cost)
 * of every feasible candidate.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "estimate/memory_internal.h"
#include "gpuplan/cost.h"
#include "gpuplan/units.h"
#include "plan/plan_internal.h"

/*
 * Global batch (micro-batch x accumulation x data-parallel ranks x seq_len)
 * stops growing at the smaller of 4 Mi tokens (Llama 3's initial pre-training
 * batch, Dubey et al. 2024 section 3.4.1: fine-tuning batches are smaller)
 * and 1/100 of the run's tokens (at least 100 optimizer steps per epoch), so
 * the search does not buy throughput with a batch no one would train with.
 * Micro-batch 1 is always allowed.
 */
#define GLOBAL_BATCH_MAX_TOKENS 4194304.0
#define MIN_OPTIMIZER_STEPS     100.0
/* Multi-server plans with more than 4/5 of the step in exposed communication are dropped:
 * each GPU then computes under a fifth of the time (e.g. workstations on 10 GbE). Half
 * would drop FSDP-only 405B clusters on 8x 400 Gb/s, which the time model puts at
 * 55-60 % (tensor/pipeline parallelism, which would cut it, is not searched). */
#define NETWORK_BOUND_SHARE 0.8
/* Slices a cloud rents of a server (1, 2, 4 or 8 GPUs: AWS p5, GCP a3, Azure ND). */
static const uint32_t gpu_counts_cloud[] = { 1, 2, 4, 8 };
/* Servers tried: powers of two up to 256 (1,024 GPUs on 8-GPU boards, 4-GPU trays); the
 * request's --max-gpus (at most 1,024, plan_request.c) bounds them. */
static const uint32_t node_counts[] = { 1, 2, 4, 8, 16, 32, 64, 128, 256 };
/* Tensor-parallel degrees tried (inside one server's NVLink domain, Megatron-LM's rule:
 * TP's per-layer all-reduces need the fast fabric) and pipeline stages (across servers
 * or inside one). */
static const uint32_t tp_degrees[] = { 1, 2, 4, 8 };
static const uint32_t pp_degrees[] = { 1, 2, 4, 8, 16 };
/* The exposed-communication share of a data-parallel plan above which TP/PP are tried
 * (the quarter plan_explain.c's warnings use, COMM_SHARE_WORTH_NOTING). */
#define COMM_SHARE_MP 0.25
/* Micro-batches tried: powers of two up to 16 sequences. */
static const uint64_t micro_batches[] = { 1, 2, 4, 8, 16 };
#define N_MICRO_BATCHES (sizeof micro_batches / sizeof micro_batches[0])
/* Most (sharding, offload) pairs and methods, checkpointing modes tried (shard_pairs, methods,
 * ckpts below). */
#define MAX_PAIRS   8
#define MAX_METHODS 3
#define MAX_CKPTS   3
/* A shape's memo: one entry per method x precision x pair x checkpointing x micro-batch. */
#define MEMO_PER_SHAPE \
    (MAX_METHODS * GPUPLAN_PRECISION_COUNT * MAX_PAIRS * MAX_CKPTS * N_MICRO_BATCHES)
/* A platform's GPU counts the layouts read (the catalog allows at most this many). */
#define MAX_SOLD_COUNTS 8

/* ---- maturity (seed S13) ---- */

static bool is_geforce(const struct gpuplan_gpu *gpu)
{
    return strstr(gpu->name, "GeForce") != NULL;
}
uint32_t gpuplan_plan_layout_care(const struct gpuplan_plan_request *req,
                                  const struct gpuplan_gpu *gpu,
                                  const struct gpuplan_platform *platform,
                                  uint32_t nodes,
                                  bool rent)
{
    (void)req;
    uint32_t care = 0;
    if (gpu->vendor == GPUPLAN_VENDOR_AMD)
        care |= GPUPLAN_ALLOW_ROCM;
    if (gpu->vendor == GPUPLAN_VENDOR_INTEL)
        care |= GPUPLAN_ALLOW_GAUDI;
    /* GeForce under a desk is the standard stack; in a rack server, a rented slice or a
     * cluster of workstations it is a datacenter deployment, which NVIDIA's GeForce driver
     * licence forbids */
    if (is_geforce(gpu) &&
        (rent || nodes > 1 || !platform || strcmp(platform->form_factor, "workstation") != 0))
        care |= GPUPLAN_ALLOW_GEFORCE;
    /* before Ampere (CC < 8.0: V100, T4): no bf16 (fp16 with loss scaling) and no
     * FlashAttention 2 (it needs CC 8.0+): not the bf16 stack of seed S13 */
    if (gpu->vendor == GPUPLAN_VENDOR_NVIDIA && gpu->cc_major > 0 && gpu->cc_major < 8)
        care |= GPUPLAN_ALLOW_LEGACY;
    return care;
}
uint32_t gpuplan_plan_implied_allow(const struct gpuplan_plan_request *req,
                                    const struct gpuplan_catalog *catalog)
{
    uint32_t allow = req->allow;
    if (req->vendor == GPUPLAN_VENDOR_AMD)
        allow |= GPUPLAN_ALLOW_ROCM;
    if (req->vendor == GPUPLAN_VENDOR_INTEL)
        allow |= GPUPLAN_ALLOW_GAUDI;
    if (req->precision_fixed && req->job.precision == GPUPLAN_PRECISION_FP8_MIXED)
        allow |= GPUPLAN_ALLOW_FP8;
    for (size_t i = 0; i < req->n_gpu_ids && i < GPUPLAN_PLAN_MAX_GPU_IDS; i++) {
        const struct gpuplan_gpu *gpu;
        if (gpuplan_catalog_get_gpu(catalog, req->gpu_ids[i], &gpu, NULL) != GPUPLAN_OK)
            continue;
        /* naming a GPU asks for its stack */
        allow |= gpuplan_plan_layout_care(req, gpu, NULL, 1, true);
    }
    return allow;
}

/* ---- layouts ---- */

static bool gpu_selected(const struct gpuplan_plan_request *req, const struct gpuplan_gpu *gpu)
{
    if (req->vendor != GPUPLAN_PLAN_ANY_VENDOR && (int)gpu->vendor != req->vendor)
        return false;
    if (req->n_gpu_ids == 0)
        return true;
    for (size_t i = 0; i < req->n_gpu_ids; i++) {
        if (strcmp(req->gpu_ids[i], gpu->id) == 0)
            return true;
    }
    return false;
}
static bool platform_sells(const struct gpuplan_platform *platform, uint32_t count)
{
    if (!platform)
        return false;
    for (size_t i = 0; i < platform->n_gpu_counts && i < 8; i++) {
        if (platform->gpu_counts[i] == count)
            return true;
    }
    return false;
}
/*
 * Capex of the layout: GPUs + platforms + network, as gpuplan_tco_compute() sums them.
 * Own cost per hour of use: the TCO model with `gpuplan tco`'s defaults (cost.c,
 * docs/tco.md: 3-year straight-line depreciation, GPUs at 80 % of TDP + platform
 * power times PUE 1.4 at $0.12/kWh, idle power the rest of the day, 10 %/year
 * maintenance, colocation per kW), i.e. monthly own cost / (hours used per day x
 * days per month), with the hours per day the user states (--hours-per-day; no own
 * cost without it). A run of H hours is charged H times this: its share of owning.
 */
static void layout_prices(struct layout *l,
                          const struct gpuplan_catalog *catalog,
                          enum gpuplan_cloud_tier tier,
                          double hours_per_day)
{
    const uint32_t n = l->gpus_per_node * l->nodes;
    struct gpuplan_rate_choice choice;
    gpuplan_gpu_cloud_rate(l->gpu, tier, &choice);
    l->rate = choice.rate;
    l->rate_fallback = choice.fallback;
    l->has_rate = choice.rate != NULL;
    l->usd_per_gpu_hour = choice.rate ? choice.rate->usd_per_gpu_hour : 0.0;
    l->usd_per_hour = l->usd_per_gpu_hour * n;
    l->has_capex = false;
    if (l->gpu->price_usd <= 0.0 || !platform_sells(l->platform, l->gpus_per_node))
        return;
    struct gpuplan_cost_inputs in;
    if (gpuplan_cost_inputs_init_ex(&in, catalog, l->gpu, n, l->platform, tier, NULL) != GPUPLAN_OK)
        return;
    gpuplan_capex_compute(&in, &l->capex);
    l->capex_usd = l->capex.total_usd;
    l->has_capex = true;
    l->ram_usd_per_gib = in.v[GPUPLAN_COST_RAM_PRICE].value;
    l->nvme_usd_per_tb = in.v[GPUPLAN_COST_NVME_PRICE].value;
    l->ram_base_gib = in.ram_base_gib;
    l->nvme_base_tb = in.nvme_base_tb;
    /* The own cost per hour of use needs the use: only when the user states it. */
    if (!(hours_per_day > 0.0) ||
        gpuplan_cost_inputs_set(&in, GPUPLAN_COST_HOURS_PER_DAY, hours_per_day, NULL) != GPUPLAN_OK)
        return;
    /* The cloud rate only enters the break-even figures, not the own cost; the TCO model
     * insists on one, so a GPU without a catalog rate gets a placeholder here. */
    if (!(in.v[GPUPLAN_COST_CLOUD_PRICE].value > 0.0) &&
        gpuplan_cost_inputs_set(&in, GPUPLAN_COST_CLOUD_PRICE, 1.0, NULL) != GPUPLAN_OK)
        return;
    struct gpuplan_tco tco;
    if (gpuplan_tco_compute(&in, &tco, NULL) != GPUPLAN_OK)
        return;
    const double hours_per_month = hours_per_day * GPUPLAN_DAYS_PER_MONTH;
    if (hours_per_month > 0.0) {
        l->own_usd_per_hour = tco.monthly_own_usd / hours_per_month;
        l->has_own = isfinite(l->own_usd_per_hour) && l->own_usd_per_hour > 0.0;
    }
}
static size_t layout_counts(const struct gpuplan_plan_request *req,
                            const struct gpuplan_platform *platform,
                            uint32_t *counts)
{
    size_t n = 0;
    const uint32_t max = platform ? platform->max_gpus : 8;
    if (req->where == GPUPLAN_WHERE_ON_PREM) {
        for (size_t i = 0; platform && i < platform->n_gpu_counts && i < 8; i++)
            counts[n++] = platform->gpu_counts[i];
        return n;
    }
    /* A superchip rack (GB200/GB300 NVL72) is rented as the catalog's rates sell it: whole
     * racks. Its one GB200 rate (Spheron, 2026-03) is "rented as racks, not single GPUs";
     * Azure's ND GB200 v6 VMs (4 GPUs, one compute tray) would allow trays once a dated rate
     * for them is in the catalog (a rental unit per rate: not modelled yet). */
    if (platform && strcmp(platform->form_factor, "superchip") == 0) {
        counts[n++] = max;
        return n;
    }
    for (size_t i = 0; i < sizeof gpu_counts_cloud / sizeof gpu_counts_cloud[0]; i++) {
        if (gpu_counts_cloud[i] <= max)
            counts[n++] = gpu_counts_cloud[i];
    }
    return n;
}
enum gpuplan_status gpuplan_plan_build_layouts(struct search *s,
                                               const struct gpuplan_catalog *catalog,
                                               struct gpuplan_error *err)
{
    const struct gpuplan_plan_request *req = s->req;
    const size_t n_gpus = gpuplan_catalog_n_gpus(catalog);
    const size_t cap = n_gpus * (GPUPLAN_CATALOG_MAX_PLATFORMS_PER_GPU + 1) * 8 * 4 + 1;
    s->layouts = calloc(cap, sizeof *s->layouts);
    if (!s->layouts)
        return gpuplan_error_set(err, GPUPLAN_ERR_NOMEM, NULL, "out of memory");
    for (size_t g = 0; g < n_gpus; g++) {
        const struct gpuplan_gpu *gpu = gpuplan_catalog_gpu_at(catalog, g);
        if (!gpu_selected(req, gpu))
            continue;
        const size_t n_plat = gpu->n_platforms ? gpu->n_platforms : 1;
        const size_t layouts_before = s->n_layouts;
        uint32_t fewest_skipped = 0; /* GPUs of the smallest offer --max-gpus left out */
        for (size_t p = 0; p < n_plat && p < GPUPLAN_CATALOG_MAX_PLATFORMS_PER_GPU; p++) {
            const struct gpuplan_platform *platform =
                gpu->n_platforms ? gpuplan_catalog_find_platform(catalog, gpu->platforms[p]) : NULL;
            uint32_t counts[8];
            const size_t n_counts = layout_counts(req, platform, counts);
            for (size_t c = 0; c < n_counts; c++) {
                for (size_t k = 0; k < sizeof node_counts / sizeof node_counts[0]; k++) {
                    const uint32_t nodes = node_counts[k];
                    const uint32_t max = platform ? platform->max_gpus : 8;
                    if (nodes > 1 && counts[c] != max)
                        continue; /* fill a server before adding another */
                    /* workstations are not clustered: a tower under a desk, not a node */
                    if (nodes > 1 && platform && strcmp(platform->form_factor, "workstation") == 0)
                        continue;
                    if ((uint64_t)counts[c] * nodes > req->max_gpus) {
                        const uint32_t all = counts[c] * nodes;
                        if (fewest_skipped == 0 || all < fewest_skipped)
                            fewest_skipped = all;
                        continue;
                    }
                    if (s->n_layouts + 1 >= cap)
                        continue;
                    struct layout *l = &s->layouts[s->n_layouts++];
                    l->gpu = gpu;
                    l->platform = platform;
                    l->gpus_per_node = counts[c];
                    l->nodes = nodes;
                    layout_prices(l, catalog, (enum gpuplan_cloud_tier)req->job.cloud_tier,
                                  req->hours_per_day);
                    l->care = gpuplan_plan_layout_care(req, gpu, platform, nodes,
                                                       req->where != GPUPLAN_WHERE_ON_PREM);
                }
            }
        }
        /* said only for a GPU the user named (--gpu): a default run does not ask for racks */
        if (s->n_layouts == layouts_before && fewest_skipped > 0 && !s->beyond_max_gpu &&
            req->n_gpu_ids > 0) {
            s->beyond_max_gpu = gpu;
            s->beyond_max_gpus = fewest_skipped;
        }
    }
    return GPUPLAN_OK;
}

void gpuplan_plan_beyond_max_note(const struct search *s, struct gpuplan_plan_result *out)
{
    if (s->beyond_max_gpu)
        NOTE(out,
             "%s is offered only from %u GPUs (the smallest server or rack it is sold or "
             "rented in), more than --max-gpus %u: not tried; --max-gpus %u includes it",
             s->beyond_max_gpu->id, s->beyond_max_gpus, s->req->max_gpus, s->beyond_max_gpus);
}
enum gpuplan_status gpuplan_plan_build_shapes(struct search *s, struct gpuplan_error *err)
{
    s->shapes = calloc(s->n_layouts ? s->n_layouts : 1, sizeof *s->shapes);
    if (!s->shapes)
        return gpuplan_error_set(err, GPUPLAN_ERR_NOMEM, NULL, "out of memory");
    s->n_shapes = 0;
    for (size_t i = 0; i < s->n_layouts; i++) {
        struct layout *l = &s->layouts[i];
        size_t k = 0;
        while (k < s->n_shapes &&
               (s->shapes[k].gpus_per_node != l->gpus_per_node || s->shapes[k].nodes != l->nodes))
            k++;
        if (k == s->n_shapes) {
            s->shapes[k].gpus_per_node = l->gpus_per_node;
            s->shapes[k].nodes = l->nodes;
            s->n_shapes++;
        }
        l->shape = (uint32_t)k;
    }
    return GPUPLAN_OK;
}
void gpuplan_plan_free_shapes(struct search *s)
{
    for (size_t i = 0; s->shapes && i < s->n_shapes; i++)
        free(s->shapes[i].memo);
    free(s->shapes);
    s->shapes = NULL;
    s->n_shapes = 0;
}
/* ---- knob sets ---- */

struct shard_offload {
    enum gpuplan_sharding sharding;
    enum gpuplan_offload offload;
};
/*
 * (sharding, offload) pairs worth trying: optimizer offload rides on ZeRO-2,
 * parameter offload needs ZeRO-3 (DeepSpeed config-json.md); on one GPU
 * DeepSpeed still runs ZeRO-Offload. HYBRID only across nodes.
 */
static size_t shard_pairs(const struct gpuplan_plan_request *req,
                          uint32_t n_gpus,
                          uint32_t nodes,
                          struct shard_offload *out)
{
    static const struct shard_offload single[] = {
        { GPUPLAN_SHARDING_NONE, GPUPLAN_OFFLOAD_NONE },
        { GPUPLAN_SHARDING_ZERO2, GPUPLAN_OFFLOAD_OPTIMIZER },
        { GPUPLAN_SHARDING_ZERO3, GPUPLAN_OFFLOAD_OPTIMIZER_PARAMS },
    };
    static const struct shard_offload multi[] = {
        { GPUPLAN_SHARDING_DDP, GPUPLAN_OFFLOAD_NONE },
        { GPUPLAN_SHARDING_ZERO2, GPUPLAN_OFFLOAD_NONE },
        { GPUPLAN_SHARDING_ZERO2, GPUPLAN_OFFLOAD_OPTIMIZER },
        { GPUPLAN_SHARDING_FSDP, GPUPLAN_OFFLOAD_NONE },
        { GPUPLAN_SHARDING_ZERO3, GPUPLAN_OFFLOAD_OPTIMIZER_PARAMS },
        { GPUPLAN_SHARDING_FSDP_HYBRID, GPUPLAN_OFFLOAD_NONE },
    };
    const struct shard_offload *table = n_gpus > 1 ? multi : single;
    size_t n_table = n_gpus > 1 ? sizeof multi / sizeof multi[0] : sizeof single / sizeof single[0];
    size_t n = 0;
    for (size_t i = 0; i < n_table; i++) {
        if (table[i].sharding == GPUPLAN_SHARDING_FSDP_HYBRID && nodes < 2)
            continue;
        if (req->sharding_fixed && table[i].sharding != req->job.sharding)
            continue;
        if (req->offload_fixed && table[i].offload != req->job.offload)
            continue;
        out[n++] = table[i];
    }
    if (n == 0 && (req->sharding_fixed || req->offload_fixed)) {
        out[0].sharding = req->sharding_fixed
                              ? req->job.sharding
                              : (n_gpus > 1 ? GPUPLAN_SHARDING_DDP : GPUPLAN_SHARDING_NONE);
        out[0].offload = req->offload_fixed ? req->job.offload : GPUPLAN_OFFLOAD_NONE;
        n = 1;
    }
    return n;
}
static size_t methods(const struct gpuplan_plan_request *req, enum gpuplan_method *out)
{
    if (req->method_fixed) {
        out[0] = req->job.method;
        return 1;
    }
    out[0] = GPUPLAN_METHOD_FULL;
    out[1] = GPUPLAN_METHOD_LORA;
    out[2] = GPUPLAN_METHOD_QLORA;
    return 3;
}
/* FP8 training needs CC >= 8.9 (Transformer Engine, torchao; formats-and-engines.md 4.4). */
static size_t precisions(const struct gpuplan_plan_request *req,
                         const struct gpuplan_gpu *gpu,
                         enum gpuplan_method method,
                         enum gpuplan_precision *out)
{
    if (req->precision_fixed) {
        out[0] = req->job.precision;
        return 1;
    }
    size_t n = 0;
    out[n++] = gpu->has_bf16 ? GPUPLAN_PRECISION_BF16_MIXED : GPUPLAN_PRECISION_FP16_MIXED;
    /* pure bf16 weights and states (torchtune, LitGPT bf16-true): full fine-tunes only, since
     * adapters are small enough that their fp32 master copy costs nothing */
    if (gpu->has_bf16 && method == GPUPLAN_METHOD_FULL)
        out[n++] = GPUPLAN_PRECISION_BF16;
    if (gpu->has_fp8 && method != GPUPLAN_METHOD_QLORA)
        out[n++] = GPUPLAN_PRECISION_FP8_MIXED;
    return n;
}
static size_t ckpts(const struct gpuplan_plan_request *req, enum gpuplan_grad_ckpt *out)
{
    if (req->grad_ckpt_fixed) {
        out[0] = req->job.grad_ckpt;
        return 1;
    }
    out[0] = GPUPLAN_CKPT_NONE;
    out[1] = GPUPLAN_CKPT_SELECTIVE;
    out[2] = GPUPLAN_CKPT_FULL;
    return 3;
}
/* ---- one candidate ---- */

/* The layout's part of a candidate's job without model parallelism, resolved once per layout
 * (the knobs set per candidate are all explicit), so a candidate neither formats the GPU id
 * nor copies and resolves the job again (h19's measurement: the id's copy alone was a seventh
 * of the search). */
static void layout_job(const struct search *s, const struct layout *l, struct gpuplan_job *job)
{
    *job = s->req->job;
    job->gpus_per_node = l->gpus_per_node;
    job->nodes = l->nodes;
    const size_t id_len = strnlen(l->gpu->id, sizeof job->gpu_id - 1);
    memcpy(job->gpu_id, l->gpu->id, id_len);
    job->gpu_id[id_len] = '\0';
    job->sharding_set = true;
    job->grad_ckpt_set = true;
    job->tp = 1;
    job->pp = 1;
    const struct gpuplan_job given = *job;
    gpuplan_job_resolve(&given, job);
}
/* The candidate's knobs, over a layout_job(). */
static void set_knobs(const struct candidate *c, struct gpuplan_job *job)
{
    job->method = (enum gpuplan_method)c->method;
    job->precision = (enum gpuplan_precision)c->precision;
    job->sharding = (enum gpuplan_sharding)c->sharding;
    job->offload = (enum gpuplan_offload)c->offload;
    job->grad_ckpt = (enum gpuplan_grad_ckpt)c->ckpt;
    job->micro_batch = c->micro_batch;
}
void gpuplan_plan_job_for(const struct search *s,
                          const struct layout *l,
                          const struct candidate *c,
                          struct gpuplan_job *job)
{
    *job = s->req->job;
    job->gpus_per_node = l->gpus_per_node;
    job->nodes = l->nodes;
    snprintf(job->gpu_id, sizeof job->gpu_id, "%s", l->gpu->id);
    job->method = (enum gpuplan_method)c->method;
    job->precision = (enum gpuplan_precision)c->precision;
    job->precision_set = true;
    job->sharding = (enum gpuplan_sharding)c->sharding;
    job->sharding_set = true;
    job->offload = (enum gpuplan_offload)c->offload;
    job->grad_ckpt = (enum gpuplan_grad_ckpt)c->ckpt;
    job->grad_ckpt_set = true;
    job->micro_batch = c->micro_batch;
    job->tp = c->tp ? c->tp : 1;
    job->pp = c->pp ? c->pp : 1;
}
const struct candidate *gpuplan_plan_pareto_set(const struct search *s, size_t *n)
{
    const int r = s->top0.valid && s->top0.may_not_fit ? 1 : 0;
    const int w = s->top0.valid && !s->top0.compromise ? 1 : 0;
    *n = s->n_pareto[r][w];
    return s->pareto[r][w];
}
void gpuplan_plan_intervals_init(struct search *s, const struct gpuplan_job *resolved)
{
    const char *stack = gpuplan_framework_name(resolved->stack);
    for (size_t i = 0; i < GPUPLAN_METHOD_COUNT; i++) {
        const char *method = gpuplan_method_name((enum gpuplan_method)i);
        s->has_interval[i] =
            i != GPUPLAN_METHOD_INFER &&
            gpuplan_interval_find("memory", stack, method, "allocated",
                                  &s->interval_allocated[i]) &&
            gpuplan_interval_find("memory", stack, method, "reserved", &s->interval_reserved[i]);
    }
}
void gpuplan_plan_memory_range(const struct search *s,
                               enum gpuplan_method method,
                               const struct gpuplan_memory_estimate *m,
                               struct gpuplan_estimate_ranges *out)
{
    memset(out, 0, sizeof *out);
    if ((unsigned)method < GPUPLAN_METHOD_COUNT && s->has_interval[method])
        gpuplan_memory_ranges_fill(m, &s->interval_allocated[method], &s->interval_reserved[method],
                                   out);
}
bool gpuplan_plan_headroom_ok(const struct gpuplan_plan_request *req,
                              const struct gpuplan_job *job,
                              const struct gpuplan_memory_estimate *m)
{
    (void)job;
    if (!m->fits)
        return false;
    return (double)m->headroom_bytes >= req->min_headroom_fraction * (double)m->gpu_usable_bytes;
}
static bool dominated(const struct candidate *a, const struct candidate *b)
{
    return b->time_key <= a->time_key && b->cost_key <= a->cost_key &&
           (b->time_key < a->time_key || b->cost_key < a->cost_key);
}
static void pareto_add(struct candidate *set, size_t *n_set, const struct candidate *c)
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
/*
 * Lexicographic keys by objective and view; smaller is better. The first key is
 * the objective's figure; within NEAR_TIE_FRACTION of each other the plans are a
 * near tie (the time model's error is larger), and fewer GPUs, fewer servers and
 * the standard stack decide before the rest (issue 14 item 3: simpler to buy, to
 * rent and to run; seed S14).
 */
#define N_KEYS 5
static void keys(const struct search *s, const struct candidate *c, int view, double k[N_KEYS])
{
    const struct layout *l = &s->layouts[c->layout];
    const double n = (double)l->gpus_per_node * l->nodes;
    const double nodes = (double)l->nodes, care = c->care ? 1.0 : 0.0;
    /* the money the objective means: rent, the capex, or the own cost at the stated use */
    const double money = view == PLAN_VIEW_RENT                                 ? c->rent_key
                         : s->req->hours_per_day > 0.0 && c->own_key < INFINITY ? c->own_key
                                                                                : c->capex_key;
    switch (s->req->objective) {
    case GPUPLAN_OBJECTIVE_TIME:
        k[0] = c->time_key, k[1] = n, k[2] = nodes, k[3] = care, k[4] = money;
        break;
    case GPUPLAN_OBJECTIVE_GPUS:
        k[0] = n, k[1] = money, k[2] = nodes, k[3] = care, k[4] = c->time_key;
        break;
    case GPUPLAN_OBJECTIVE_CAPEX:
        k[0] = c->capex_key, k[1] = n, k[2] = nodes, k[3] = care, k[4] = c->time_key;
        break;
    default:
        k[0] = money, k[1] = n, k[2] = nodes, k[3] = care, k[4] = c->time_key;
        break;
    }
}
bool gpuplan_plan_view_better(const struct search *s,
                              int view,
                              const struct candidate *a,
                              const struct candidate *b)
{
    if (!b->valid)
        return a->valid;
    if (!a->valid)
        return false;
    double ka[N_KEYS], kb[N_KEYS];
    keys(s, a, view, ka);
    keys(s, b, view, kb);
    const int order = gpuplan_plan_keys_order(ka, kb, N_KEYS);
    return order ? order < 0 : a->layout < b->layout;
}
int gpuplan_plan_keys_order(const double *ka, const double *kb, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        /* the first key: a near tie goes to the next; the others within 0.5 % */
        const double tie = i == 0 ? NEAR_TIE_FRACTION : TIE_FRACTION;
        const double scale = fmax(fabs(ka[i]), fabs(kb[i]));
        if (isfinite(scale) ? fabs(ka[i] - kb[i]) > tie * scale : ka[i] != kb[i])
            return ka[i] < kb[i] ? -1 : 1;
    }
    return 0;
}
double gpuplan_plan_first_key(const struct search *s, const struct candidate *c)
{
    double k[N_KEYS];
    keys(s, c, s->view, k);
    return k[0];
}
/* By the objective's keys alone (no compromise tier), in the run's own view. */
bool gpuplan_plan_keys_better(const struct search *s,
                              const struct candidate *a,
                              const struct candidate *b)
{
    return gpuplan_plan_view_better(s, s->view, a, b);
}
bool gpuplan_plan_better(const struct search *s,
                         const struct candidate *a,
                         const struct candidate *b)
{
    /* A plan that may run out of memory (the top of its 80 % range over the usable memory)
     * is not one to sign: every plan whose whole range fits ranks first, whatever the
     * objective; inside each tier the objective and the compromise rule decide
     * (docs/planner.md, "Fit and the memory range"). */
    if (a->valid && b->valid && a->may_not_fit != b->may_not_fit)
        return !a->may_not_fit;
    return gpuplan_plan_better_in_tier(s, a, b);
}
bool gpuplan_plan_better_in_tier(const struct search *s,
                                 const struct candidate *a,
                                 const struct candidate *b)
{
    /* Offload (slow) only when nothing else meets the constraints: it ranks after every plan
     * without, whatever the objective. An offload plan that is faster than the plan without
     * (e.g. a cluster of small GPUs on Ethernet) is not slow: then the objective decides. */
    if (a->valid && b->valid && a->compromise != b->compromise) {
        const struct candidate *plain = a->compromise ? b : a, *comp = a->compromise ? a : b;
        double kp[N_KEYS];
        keys(s, plain, s->view, kp);
        if (isfinite(kp[0]) && plain->time_key <= comp->time_key)
            return plain == a;
    }
    return gpuplan_plan_keys_better(s, a, b);
}

/*
 * A candidate's fate: larger micro-batches only need more memory, so the
 * micro-batch loop stops at the first CANDIDATE_MISFIT; a candidate that
 * fits but fails a check is CANDIDATE_REJECTED (and counted by why).
 */
enum candidate_outcome { CANDIDATE_MISFIT = 0, CANDIDATE_REJECTED, CANDIDATE_FEASIBLE };

/*
 * A server that cannot hold the host RAM, data-loading cores or NVMe the
 * plan needs is not a plan: reject it (run notes count these), never
 * recommend it with a warning.
 */
static bool server_holds(struct search *s,
                         const struct layout *l,
                         const struct gpuplan_job *job,
                         const struct gpuplan_memory_estimate *m,
                         double *extra_capex_usd)
{
    const struct gpuplan_platform *pl = l->platform;
    *extra_capex_usd = 0.0;
    if (!pl)
        return true;
    struct gpuplan_plan_host_need h;
    gpuplan_plan_host_need(s, job, l->gpus_per_node, l->nodes, pl, m, &h);
    /* the RAM and NVMe beyond the platform's base, priced as the kept plan's capex is
     * (plan.c plan_capex_with_server, gpuplan_capex_compute), so the ranking by capex is the
     * ranking by what the plan costs */
    const double ram_gib =
        (double)gpuplan_plan_server_ram_bytes(s, job, pl, &h) / (double)GPUPLAN_BYTES_PER_GIB;
    const double nvme_tb = (double)(h.drives * h.drive_bytes) / (double)GPUPLAN_BYTES_PER_TB;
    *extra_capex_usd =
        (double)l->nodes * (fmax(0.0, ram_gib - l->ram_base_gib) * l->ram_usd_per_gib +
                            fmax(0.0, nvme_tb - l->nvme_base_tb) * l->nvme_usd_per_tb);
    if (pl->ram_max_bytes && h.ram_bytes > (double)pl->ram_max_bytes) {
        s->over_ram++;
        return false;
    }
    if (pl->cpu_cores_max && h.cores_data > pl->cpu_cores_max) {
        s->over_cores++;
        return false;
    }
    if (pl->nvme_bays && h.drives > pl->nvme_bays) {
        s->over_nvme++;
        return false;
    }
    return true;
}

/*
 * The candidate's time (tokens_per_s, time_key): a layout the time model takes
 * (e.g. tp dividing the heads), not mostly waiting on the network across
 * servers (NETWORK_BOUND_SHARE). The deadline is within_time's.
 */
static bool time_ok(struct search *s,
                    const struct layout *l,
                    const struct gpuplan_job *job,
                    struct candidate *c,
                    struct gpuplan_throughput *t)
{
    struct gpuplan_throughput_system sys;
    gpuplan_throughput_system_init(&sys);
    sys.gpu = l->gpu;
    sys.platform = l->platform;
    if (gpuplan_throughput_eval(&s->thr, job, &sys, t, NULL) != GPUPLAN_OK)
        return false;
    c->tokens_per_s = t->tokens_per_s;
    if (!(c->tokens_per_s > 0.0))
        return false;
    /* More servers whose step is mostly waiting on the network waste most of each added
     * GPU: not a plan anyone would run. */
    if (l->nodes > 1 && t->step_time_s > 0.0 && t->comm_s > NETWORK_BOUND_SHARE * t->step_time_s) {
        s->network_bound++;
        return false;
    }
    c->time_key = t->has_train_time ? t->train_hours : 1.0 / c->tokens_per_s;
    c->comm_share = t->step_time_s > 0.0 ? t->comm_s / t->step_time_s : 0.0;
    return true;
}

/* The deadline, or without one the --max-run-days bound (0: none). */
static bool within_time(const struct search *s, const struct gpuplan_throughput *t)
{
    const struct gpuplan_plan_request *req = s->req;
    if (!t->has_train_time)
        return true;
    if (req->deadline_hours > 0.0)
        return t->train_hours <= req->deadline_hours;
    return !(req->max_run_days > 0.0) ||
           t->train_hours <= req->max_run_days * GPUPLAN_HOURS_PER_DAY;
}

/*
 * The candidate's prices: rent_key (cloud USD per million tokens,
 * gpuplan_cost_usd_per_mtok, which ranks as the run's cost does: the same
 * tokens for every candidate), own_key (the TCO share at --hours-per-day),
 * capex_key, and what the budget caps (spend: the cloud run, or on-prem the
 * capex). cost_key is the run's own view of money (rent, or buying).
 */
static void priced(const struct search *s,
                   const struct layout *l,
                   const struct gpuplan_throughput *t,
                   double extra_capex_usd,
                   struct candidate *c)
{
    c->capex_key = l->has_capex ? l->capex_usd + extra_capex_usd : INFINITY;
    /* A rate from another tier than the one asked (rate_fallback) is shown, never ranked
     * first by cost: its rent key is infinite. */
    c->rent_key = l->has_rate && !l->rate_fallback
                      ? gpuplan_cost_usd_per_mtok(l->usd_per_hour, c->tokens_per_s)
                      : INFINITY;
    c->own_key =
        l->has_own ? gpuplan_cost_usd_per_mtok(l->own_usd_per_hour, c->tokens_per_s) : INFINITY;
    c->rent_spend = l->has_rate && t->has_train_time
                        ? gpuplan_cost_cloud_run_usd(t->train_hours, l->gpus_per_node * l->nodes,
                                                     l->usd_per_gpu_hour)
                        : INFINITY;
    if (s->view == PLAN_VIEW_BUY)
        c->cost_key = s->req->hours_per_day > 0.0 ? c->own_key : c->capex_key;
    else
        c->cost_key = c->rent_key;
}

/* A feasible candidate: the best of its layout, of one GPU, and the Pareto sets. */
static void
record(struct search *s, const struct layout *l, const struct gpuplan_job *job, struct candidate *c)
{
    const struct gpuplan_plan_request *req = s->req;
    c->valid = true;
    s->feasible++;
    c->compromise = !req->offload_fixed && job->offload != GPUPLAN_OFFLOAD_NONE;
    s->may_not_fit += c->may_not_fit;
    if (c->may_not_fit && gpuplan_plan_better_in_tier(s, c, &s->best_may_not_fit))
        s->best_may_not_fit = *c;
    if (c->compromise && gpuplan_plan_keys_better(s, c, &s->best_compromise))
        s->best_compromise = *c;
    if (!c->compromise)
        s->any_plain = true;
    if (!c->compromise && !c->may_not_fit)
        s->any_plain_fit = true;
    if (gpuplan_plan_better(s, c, &s->best[c->layout]))
        s->best[c->layout] = *c;
    if (!c->compromise && gpuplan_plan_better(s, c, &s->best_plain[c->layout]))
        s->best_plain[c->layout] = *c;
    if (l->gpus_per_node * l->nodes == 1 && gpuplan_plan_better(s, c, &s->best_single))
        s->best_single = *c;
    for (int r = c->may_not_fit ? 1 : 0; r < 2; r++) {
        pareto_add(s->pareto[r][0], &s->n_pareto[r][0], c);
        if (!c->compromise)
            pareto_add(s->pareto[r][1], &s->n_pareto[r][1], c);
    }
}

/* The budget's measure of `c` in the run's view (capex buying, the cloud run renting). */
static double spend_of(const struct search *s, const struct candidate *c)
{
    return s->view == PLAN_VIEW_BUY ? c->capex_key : c->rent_spend;
}

/*
 * A candidate that fits and the server holds but misses the deadline or the
 * budget: the nearest misses (cheapest that meets the deadline, fastest within
 * the budget) the run shows when nothing is feasible.
 */
static void track_miss(struct search *s, const struct candidate *c, bool in_time, bool in_budget)
{
    if (c->care & ~s->allow)
        return;
    /* a miss whose memory range fits before one that may not (as the list ranks) */
    const struct candidate *cheap = &s->miss_cheap, *fast = &s->miss_fast;
    const bool cheaper = !cheap->valid || (c->may_not_fit != cheap->may_not_fit
                                               ? !c->may_not_fit
                                               : spend_of(s, c) < spend_of(s, cheap));
    const bool faster =
        !fast->valid ||
        (c->may_not_fit != fast->may_not_fit ? !c->may_not_fit : c->time_key < fast->time_key);
    if (in_time && !in_budget && isfinite(spend_of(s, c)) && cheaper) {
        s->miss_cheap = *c;
        s->miss_cheap.valid = true;
    }
    if (in_budget && !in_time && faster) {
        s->miss_fast = *c;
        s->miss_fast.valid = true;
    }
}

/* One candidate: memory first (cheap, prunes), then the server, time, prices. */
/*
 * The candidate's memory: its shape's memo entry `slot` (the knobs' positions in the search's
 * lists), evaluated on the first layout of the shape that tries these knobs and finished on
 * this layout's GPU: the device total, host RAM and fit of gpuplan_memory_eval_resolved() (the
 * breakdown is the kept plans': materialise()). `job` is resolved (layout_job + set_knobs).
 */
static void memory_of(struct search *s,
                      const struct layout *l,
                      const struct gpuplan_job *job,
                      size_t slot,
                      struct gpuplan_memory_estimate *m)
{
    struct shape *sh = s->shapes ? &s->shapes[l->shape] : NULL;
    if (sh && slot < MEMO_PER_SHAPE && !sh->memo)
        sh->memo = calloc(MEMO_PER_SHAPE, sizeof *sh->memo); /* NULL: evaluated every time */
    if (!sh || slot >= MEMO_PER_SHAPE || !sh->memo) {
        gpuplan_memory_eval_resolved(&s->mem, job, l->gpu, m);
        return;
    }
    struct memo_entry *e = &sh->memo[slot];
    if (!e->known) {
        gpuplan_memory_terms_eval(&s->mem, job, &e->terms);
        e->known = true;
    }
    gpuplan_memory_terms_finish(&e->terms, l->gpu, false, m);
}

/* A knob setting's entry in its shape's memo (struct shape); SIZE_MAX: none. */
static size_t
memo_index(size_t mi, enum gpuplan_precision precision, size_t si, size_t ci, size_t bi)
{
    if (mi >= MAX_METHODS || (unsigned)precision >= GPUPLAN_PRECISION_COUNT || si >= MAX_PAIRS ||
        ci >= MAX_CKPTS || bi >= N_MICRO_BATCHES)
        return SIZE_MAX;
    return (((mi * GPUPLAN_PRECISION_COUNT + (size_t)precision) * MAX_PAIRS + si) * MAX_CKPTS +
            ci) *
               N_MICRO_BATCHES +
           bi;
}

/*
 * One candidate. Without model parallelism `base` is the layout's resolved job (layout_job),
 * whose knobs this sets, and `slot` its memo entry; with TP/PP (`base` NULL) the job is built
 * and its memory evaluated in full.
 */
static enum candidate_outcome
evaluate(struct search *s, struct candidate *c, struct gpuplan_job *base, size_t slot)
{
    const struct gpuplan_plan_request *req = s->req;
    const struct layout *l = &s->layouts[c->layout];
    struct gpuplan_job mp_job;
    struct gpuplan_memory_estimate m;
    const struct gpuplan_job *job;
    if (base) {
        set_knobs(c, base);
        memory_of(s, l, base, slot, &m);
        job = base;
    } else {
        gpuplan_plan_job_for(s, l, c, &mp_job);
        gpuplan_memory_eval(&s->mem, &mp_job, l->gpu, &m);
        job = &mp_job;
    }
    s->evaluated++;
    if (!gpuplan_plan_headroom_ok(s->req, job, &m))
        return CANDIDATE_MISFIT;
    s->fitting++;
    struct gpuplan_estimate_ranges rg;
    gpuplan_plan_memory_range(s, job->method, &m, &rg);
    c->may_not_fit = rg.has_verdict && rg.verdict != GPUPLAN_VERDICT_FITS;
    c->range_over_bytes = c->may_not_fit ? rg.over_bytes : 0;
    struct gpuplan_throughput t;
    double extra_capex_usd = 0.0;
    if (!server_holds(s, l, job, &m, &extra_capex_usd) || !time_ok(s, l, job, c, &t))
        return CANDIDATE_REJECTED;
    priced(s, l, &t, extra_capex_usd, c);
    c->care = (uint8_t)(l->care |
                        (job->precision == GPUPLAN_PRECISION_FP8_MIXED ? GPUPLAN_ALLOW_FP8 : 0u));
    const bool budget = req->budget_usd > 0.0;
    /* rent: a rate (under --cloud, or any budget) within the budget; buy: a price within it */
    const bool rent_ok = l->has_rate ? !budget || c->rent_spend <= req->budget_usd
                                     : req->where == GPUPLAN_WHERE_ANY && !budget;
    c->buyable = l->has_capex && (!budget || c->capex_key <= req->budget_usd);
    c->listed = req->where == GPUPLAN_WHERE_ON_PREM ? c->buyable : rent_ok;
    const bool in_time = within_time(s, &t);
    const bool in_budget = !budget || spend_of(s, c) <= req->budget_usd;
    /* a near miss must be a plan the user could take: priced as the request pays */
    const bool available = req->where == GPUPLAN_WHERE_CLOUD     ? l->has_rate
                           : req->where == GPUPLAN_WHERE_ON_PREM ? l->has_capex
                                                                 : l->has_rate || l->has_capex;
    if (available)
        track_miss(s, c, in_time, in_budget);
    if (!in_time) {
        if (!(req->deadline_hours > 0.0))
            s->too_long++;
        return CANDIDATE_REJECTED;
    }
    if (req->where == GPUPLAN_WHERE_CLOUD && !l->has_rate) {
        s->n_no_rate++;
        return CANDIDATE_REJECTED;
    }
    if (req->where == GPUPLAN_WHERE_ON_PREM && !l->has_capex) {
        s->n_no_price++;
        return CANDIDATE_REJECTED;
    }
    if (!c->listed)
        return CANDIDATE_REJECTED;
    /* beyond the standard stack and not allowed: out (the best such plan is a note); where
     * any, the list rents (a rented GeForce is a datacenter deployment) and the best buy is
     * the on-prem search's (plan.c), where a GeForce workstation is standard */
    if (c->care & ~s->allow) {
        c->valid = true;
        if (gpuplan_plan_better(s, c, &s->best_care))
            s->best_care = *c;
        c->valid = false;
        s->n_care++;
        return CANDIDATE_REJECTED;
    }
    record(s, l, job, c);
    return CANDIDATE_FEASIBLE;
}

/*
 * Model-parallel shapes (tp, pp) of a layout: tp inside one server's
 * NVLink/Infinity Fabric domain (a GPU-to-GPU fabric, at most the domain's
 * size), pp stages over the rest, tp x pp dividing the GPUs, tp dividing
 * the attention heads and pp at most the layers. (1, 1) always.
 */
static size_t mp_shapes(const struct search *s, const struct layout *l, uint32_t (*out)[2])
{
    const uint32_t n = l->gpus_per_node * l->nodes;
    const struct gpuplan_arch *a = s->model->has_arch ? &s->model->arch : NULL;
    const uint32_t domain =
        l->gpu->max_gpus_per_link_domain ? l->gpu->max_gpus_per_link_domain : l->gpus_per_node;
    size_t k = 0;
    for (size_t i = 0; i < sizeof tp_degrees / sizeof tp_degrees[0]; i++) {
        const uint32_t tp = tp_degrees[i];
        if (tp > 1 &&
            (tp > l->gpus_per_node || tp > domain || !gpuplan_plan_has_fabric(l->gpu->link) ||
             (a && a->n_heads && a->n_heads % tp != 0)))
            continue;
        for (size_t j = 0; j < sizeof pp_degrees / sizeof pp_degrees[0]; j++) {
            const uint32_t pp = pp_degrees[j];
            if ((uint64_t)tp * pp > n || n % (tp * pp) != 0 || (a && pp > 1 && pp > a->n_layers))
                continue;
            out[k][0] = tp;
            out[k][1] = pp;
            k++;
        }
    }
    return k;
}

static void search_training(struct search *s, uint32_t li)
{
    const struct layout *l = &s->layouts[li];
    const struct gpuplan_plan_request *req = s->req;
    enum gpuplan_method ms[MAX_METHODS];
    const size_t n_methods = methods(req, ms);
    struct shard_offload pairs[MAX_PAIRS];
    const size_t n_pairs = shard_pairs(req, l->gpus_per_node * l->nodes, l->nodes, pairs);
    enum gpuplan_grad_ckpt cks[MAX_CKPTS];
    const size_t n_ckpts = ckpts(req, cks);
    uint32_t shapes[sizeof tp_degrees / sizeof tp_degrees[0] * sizeof pp_degrees /
                    sizeof pp_degrees[0]][2];
    const size_t n_shapes = mp_shapes(s, l, shapes);
    /* global batch cap (GLOBAL_BATCH_MAX_TOKENS, MIN_OPTIMIZER_STEPS) in micro-batches */
    double cap_tokens = GLOBAL_BATCH_MAX_TOKENS;
    if (req->job.tokens > 0 && (double)req->job.tokens / MIN_OPTIMIZER_STEPS < cap_tokens)
        cap_tokens = (double)req->job.tokens / MIN_OPTIMIZER_STEPS;
    struct gpuplan_job layout_base; /* the layout's resolved job, tp = pp = 1 (layout_job) */
    layout_job(s, l, &layout_base);
    for (size_t hi = 0; hi < n_shapes; hi++) {
        const uint32_t tp = shapes[hi][0], pp = shapes[hi][1];
        const bool mp = tp * pp > 1;
        /* Model parallelism buys memory (a fit, no offload, less recompute) or cuts
         * data-parallel traffic: tried only when data parallelism alone left the layout
         * without a plan, with offload, with activation checkpointing, or with more than a
         * quarter of the step in exposed communication (COMM_SHARE_MP). */
        const struct candidate *dp = &s->best[li];
        if (mp && dp->valid && !dp->compromise && dp->ckpt == GPUPLAN_CKPT_NONE &&
            dp->comm_share <= COMM_SHARE_MP)
            break;
        /* data-parallel ranks carry the global batch */
        const double seqs_per_mb = (double)l->gpus_per_node * l->nodes / (tp * pp) *
                                   (double)req->job.grad_accum * (double)req->job.seq_len;
        const uint64_t mb_cap = seqs_per_mb > 0.0 && cap_tokens / seqs_per_mb >= 1.0
                                    ? (uint64_t)(cap_tokens / seqs_per_mb)
                                    : 1;
        for (size_t mi = 0; mi < n_methods; mi++) {
            /* TP/PP (Megatron-style, with sequence parallelism) for full and LoRA fine-tunes;
             * QLoRA's stacks (PEFT + bitsandbytes) run data parallel */
            if (mp && ms[mi] == GPUPLAN_METHOD_QLORA)
                continue;
            enum gpuplan_precision ps[3];
            const size_t n_prec = precisions(req, l->gpu, ms[mi], ps);
            for (size_t pi = 0; pi < n_prec; pi++) {
                for (size_t si = 0; si < n_pairs; si++) {
                    /* with model parallelism the data-parallel group shards the optimizer
                     * (Megatron's distributed optimizer, ZeRO-1/2) or, TP only, FSDP (2-D);
                     * with pipeline stages ZeRO-1 at most: DeepSpeed's pipeline engine
                     * refuses ZeRO-2/3 (memory_model.c), Megatron's optimizer is ZeRO-1-like */
                    enum gpuplan_sharding sh = pairs[si].sharding;
                    if (mp && pp > 1 && sh == GPUPLAN_SHARDING_ZERO2 && !req->sharding_fixed)
                        sh = GPUPLAN_SHARDING_ZERO1;
                    if (mp && (pairs[si].offload != GPUPLAN_OFFLOAD_NONE ||
                               !(sh == GPUPLAN_SHARDING_ZERO1 || sh == GPUPLAN_SHARDING_DDP ||
                                 (pp == 1 &&
                                  (sh == GPUPLAN_SHARDING_ZERO2 || sh == GPUPLAN_SHARDING_FSDP)))))
                        continue;
                    for (size_t ci = 0; ci < n_ckpts; ci++) {
                        const size_t n_mb = req->micro_batch_fixed
                                                ? 1
                                                : sizeof micro_batches / sizeof micro_batches[0];
                        for (size_t bi = 0; bi < n_mb; bi++) {
                            if (!req->micro_batch_fixed && micro_batches[bi] > mb_cap)
                                break; /* global batch beyond the cap */
                            struct candidate c = { 0 };
                            c.layout = li;
                            c.method = (uint8_t)ms[mi];
                            c.precision = (uint8_t)ps[pi];
                            c.sharding = (uint8_t)sh;
                            c.offload = (uint8_t)pairs[si].offload;
                            c.ckpt = (uint8_t)cks[ci];
                            c.tp = (uint8_t)tp;
                            c.pp = (uint8_t)pp;
                            c.micro_batch =
                                req->micro_batch_fixed ? req->job.micro_batch : micro_batches[bi];
                            const size_t slot = mp ? SIZE_MAX : memo_index(mi, ps[pi], si, ci, bi);
                            if (evaluate(s, &c, mp ? NULL : &layout_base, slot) == CANDIDATE_MISFIT)
                                break; /* a larger micro-batch only needs more memory */
                        }
                    }
                }
            }
        }
    }
}
void gpuplan_plan_search_layout(struct search *s, uint32_t li)
{
    search_training(s, li);
}
