/*
 * plan.c - the planner: search, constraints, ranking, Pareto set, the
 * whole-server spec, and reasons and warnings in words.
 *
 * Search space (docs/planner.md): catalog GPU x platform x GPUs per node
 * (the platform's sold counts on-prem; any 1/2/4/8 slice up to the
 * platform's size in the cloud) x nodes (1..16; a second server only
 * once the first is full) x (sharding, offload) pair x micro-batch
 * (1..16) x activation checkpointing x method x precision (where open).
 * Serving: GPU x platform x tensor-parallel GPUs x weight format (BF16, FP8
 * where the GPU has it, AWQ 4-bit) x KV format.
 *
 * Each candidate costs one gpuplan_memory_eval(); only those that fit with
 * headroom also get gpuplan_throughput_eval(). Both are closed-form and
 * allocation-free; the profiles are built once per run. Larger micro-batches
 * only add memory, so the micro-batch loop stops at the first misfit.
 *
 * Ranking keeps the best knob setting per hardware layout (GPU, platform,
 * GPUs per node, nodes), so the top K are different servers rather than the
 * same server with micro-batch 4 and 8. The Pareto set is over (time, cost)
 * of every feasible candidate.
 *
 * Not here: memory and time formulas (memory_model.c, throughput.c), prices
 * (cost.c), rendering (render_plan.c), launchers (emit.c).
 */
#include "gpuplan/plan.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/cost.h"
#include "gpuplan/estimate.h"
#include "gpuplan/throughput.h"
#include "gpuplan/units.h"

#include "util/i18n_internal.h"

/*
 * Server-spec assumptions (docs/planner.md):
 * - CPU: 8 cores per GPU for data loading and the launcher (PyTorch
 *   DataLoader workers; NVIDIA's DGX H100 ships 112 cores for 8 GPUs = 14),
 *   8 more per GPU when the optimizer step runs on the CPU (DeepSpeed
 *   CPUAdam is multi-threaded and bound by cores x memory bandwidth), never
 *   below 16 (seed S11: 16+ cores).
 * - RAM: the memory model's host need + one 16-bit copy of the weights for
 *   loading the checkpoint (rank 0 loads, fsdp_cpu_ram_efficient_loading)
 *   + 10 % for the OS and page cache; floor 256 GB, 512 GB for 30B+ params
 *   when fine-tuning (seed S11); rounded up to a sold DIMM total.
 * - NVMe: 16-bit weights + the dataset (8 bytes per token: raw text and
 *   token ids) + two checkpoints (full fine-tune: 16-bit weights + fp32
 *   master + two fp32 moments = 14 B/param; adapters alike for LoRA) +
 *   offloaded state, + 20 %, in 3.84 TB drives at 7 GB/s (PCIe Gen4) or
 *   14 GB/s (Gen5) sequential read each.
 * - Power: GPUs at TDP + the platform's base power; a rack takes 42 U.
 */
#define CORES_PER_GPU_DATA        8u
#define CORES_PER_GPU_CPU_ADAM    8u
#define CORES_MIN_S11             16u
#define RAM_MIN_S11_GIB           256u
#define RAM_MIN_S11_30B_GIB       512u
#define RAM_30B_PARAMS            30e9
#define RAM_SLACK                 0.10
#define DATASET_BYTES_PER_TOKEN   8.0
#define CKPT_FULL_BYTES_PER_PARAM 14.0
#define CKPTS_KEPT                2.0
#define NVME_SLACK                0.20
#define NVME_DRIVE_BYTES          3840000000000ULL
#define NVME_LARGEST_DRIVE_BYTES  30720000000000ULL /* 30.72 TB U.2/E3.S: Micron 9400, PM1733 */
#define NVME_GEN4_GB_PER_S        7.0
#define NVME_GEN5_GB_PER_S        14.0
#define RACK_UNITS                42u
#define RACK_KW_LIQUID            40.0  /* seed S12: 40+ kW racks need liquid cooling */
#define SERVING_BUDGET_HOURS      730.0 /* a month of serving, for --budget */
#define TIE_FRACTION              0.005
#define PARETO_CAP                256
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
/* "Similar cost" for the trade-off note: within 10 % of the cheapest plan. */
#define SIMILAR_COST_FRACTION 0.10

static const uint32_t gpu_counts_cloud[] = { 1, 2, 4, 8 };
static const uint32_t node_counts[] = { 1, 2, 4, 8, 16 };
static const uint64_t micro_batches[] = { 1, 2, 4, 8, 16 };

/* One hardware layout: GPU x platform x GPUs per node x nodes, with its prices. */
struct layout {
    const struct gpuplan_gpu *gpu;
    const struct gpuplan_platform *platform;
    uint32_t gpn, nodes;
    bool has_capex;
    double capex_usd;
    bool has_rate;
    double usd_per_hour; /* all GPUs */
    bool has_own;
    double own_usd_per_hour; /* all servers, per hour of use (TCO defaults) */
};

/* The knobs of one candidate and its figures (what ranking and Pareto need). */
struct lite {
    uint32_t layout;
    uint8_t method, precision, sharding, offload, ckpt;
    uint8_t weights, kv; /* serving dtypes */
    uint64_t micro_batch;
    double tokens_per_s, time_key, cost_key, capex_key;
    bool compromise; /* offload, or AWQ 4-bit weights, that the user did not fix */
    bool valid;
};

/* Everything the search loop reads; built once per run. */
struct search {
    const struct gpuplan_plan_request *req;
    const struct gpuplan_model *model;
    struct gpuplan_memory_profile mem;
    struct gpuplan_throughput_profile thr;
    struct layout *layouts;
    size_t n_layouts;
    struct lite *best; /* per layout */
    /* Pareto sets over (time, cost): [0] every feasible candidate, [1] those that are no
     * compromise; the result shows [1] when the top plan is no compromise */
    struct lite pareto[2][PARETO_CAP];
    size_t n_pareto[2];
    struct lite best_single; /* best feasible 1-GPU candidate (seed S14) */
    struct lite top0;        /* the top recommendation */
    uint64_t evaluated, fitting, feasible;
    uint64_t n_no_rate; /* candidates dropped for want of a cloud rate */
    uint64_t over_ram, over_cores, over_nvme;
    uint64_t network_bound;      /* multi-server, mostly waiting on the network */
    uint64_t n_no_price;         /* on-prem: dropped for want of a purchase price */
    struct lite best_compromise; /* best compromise by the keys alone */
    bool any_plain;              /* a feasible candidate that is no compromise */
};

static void
add_text(char (*list)[GPUPLAN_PLAN_TEXT_MAX], size_t *n, size_t cap, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void
add_text(char (*list)[GPUPLAN_PLAN_TEXT_MAX], size_t *n, size_t cap, const char *fmt, ...)
{
    if (*n >= cap)
        return;
    va_list ap;
    va_start(ap, fmt);
    const int len = vsnprintf(list[*n], GPUPLAN_PLAN_TEXT_MAX, GPUPLAN_TR(fmt), ap);
    va_end(ap);
    if (len >= GPUPLAN_PLAN_TEXT_MAX) {
        /* truncated: never cut a UTF-8 sequence (translations are 2 bytes per letter) */
        size_t end = GPUPLAN_PLAN_TEXT_MAX - 1;
        while (end > 0 && ((unsigned char)list[*n][end] & 0xC0) == 0x80)
            end--;
        list[*n][end] = '\0';
    }
    (*n)++;
}

#define REASON(p, ...) \
    add_text((p)->reasons, &(p)->n_reasons, GPUPLAN_PLAN_MAX_REASONS, __VA_ARGS__)
#define WARNING(p, ...) \
    add_text((p)->warnings, &(p)->n_warnings, GPUPLAN_PLAN_MAX_WARNINGS, __VA_ARGS__)

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
 * days per month). A run of H hours is charged H times this: its share of owning
 * the servers at the assumed use of 8 h/day.
 */
static void layout_prices(struct layout *l)
{
    const uint32_t n = l->gpn * l->nodes;
    l->has_rate = l->gpu->cloud_usd_per_hour > 0.0;
    l->usd_per_hour = l->gpu->cloud_usd_per_hour * n;
    l->has_capex = false;
    if (l->gpu->price_usd <= 0.0 || !platform_sells(l->platform, l->gpn))
        return;
    struct gpuplan_cost_inputs in;
    if (gpuplan_cost_inputs_init(&in, l->gpu, n, l->platform, NULL) != GPUPLAN_OK)
        return;
    const double per_server = in.v[GPUPLAN_COST_PLATFORM_PRICE].value +
                              in.v[GPUPLAN_COST_RAM_PRICE].value +
                              in.v[GPUPLAN_COST_NVME_PRICE].value;
    l->capex_usd = n * in.v[GPUPLAN_COST_GPU_PRICE].value + l->nodes * per_server +
                   in.n_servers * in.v[GPUPLAN_COST_NETWORK_PRICE].value;
    l->has_capex = true;
    /* The cloud rate only enters the break-even figures, not the own cost; the TCO model
     * insists on one, so a GPU without a catalog rate gets a placeholder here. */
    if (!(in.v[GPUPLAN_COST_CLOUD_PRICE].value > 0.0) &&
        gpuplan_cost_inputs_set(&in, GPUPLAN_COST_CLOUD_PRICE, 1.0, NULL) != GPUPLAN_OK)
        return;
    struct gpuplan_tco tco;
    if (gpuplan_tco_compute(&in, &tco, NULL) != GPUPLAN_OK)
        return;
    const double hours_per_month = in.v[GPUPLAN_COST_HOURS_PER_DAY].value * GPUPLAN_DAYS_PER_MONTH;
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
    for (size_t i = 0; i < sizeof gpu_counts_cloud / sizeof gpu_counts_cloud[0]; i++) {
        if (gpu_counts_cloud[i] <= max)
            counts[n++] = gpu_counts_cloud[i];
    }
    return n;
}

static enum gpuplan_status
build_layouts(struct search *s, const struct gpuplan_catalog *catalog, struct gpuplan_error *err)
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
                    if ((uint64_t)counts[c] * nodes > req->max_gpus || s->n_layouts + 1 >= cap)
                        continue;
                    struct layout *l = &s->layouts[s->n_layouts++];
                    l->gpu = gpu;
                    l->platform = platform;
                    l->gpn = counts[c];
                    l->nodes = nodes;
                    layout_prices(l);
                }
            }
        }
    }
    return GPUPLAN_OK;
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

/* Serving weight formats: BF16, FP8 (CC >= 8.9 / MI300), AWQ 4-bit (vLLM). */
static size_t weight_formats(const struct gpuplan_plan_request *req,
                             const struct gpuplan_gpu *gpu,
                             enum gpuplan_dtype *out)
{
    if (req->weights_fixed) {
        out[0] = req->job.weights_dtype;
        return 1;
    }
    size_t n = 0;
    out[n++] = GPUPLAN_DTYPE_BF16;
    if (gpu->has_fp8)
        out[n++] = GPUPLAN_DTYPE_F8_E4M3;
    out[n++] = GPUPLAN_DTYPE_AWQ4;
    return n;
}

static size_t kv_formats(const struct gpuplan_plan_request *req,
                         const struct gpuplan_gpu *gpu,
                         enum gpuplan_dtype *out)
{
    if (req->kv_fixed) {
        out[0] = req->job.kv_dtype;
        return 1;
    }
    size_t n = 0;
    out[n++] = GPUPLAN_DTYPE_BF16;
    if (gpu->has_fp8)
        out[n++] = GPUPLAN_DTYPE_F8_E4M3;
    return n;
}

/* ---- what one server must hold (server spec and the host-limit check) ---- */

static uint64_t round_up_ram(double bytes)
{
    static const uint32_t sizes_gib[] = { 32,   64,   128,  256,  384,  512,  768,
                                          1024, 1536, 2048, 3072, 4096, 6144, 8192 };
    for (size_t i = 0; i < sizeof sizes_gib / sizeof sizes_gib[0]; i++) {
        const uint64_t b = (uint64_t)sizes_gib[i] * GPUPLAN_BYTES_PER_GIB;
        if ((double)b >= bytes)
            return b;
    }
    return gpuplan_bytes_from_double(bytes);
}

struct host_need {
    double ram_bytes;     /* memory model host need + one 16-bit copy for loading + 10 % */
    uint32_t cores_data;  /* data loading and launcher, floor S11: must fit the platform */
    uint32_t cores_want;  /* + CPU Adam threads when the optimizer runs on the CPU */
    double nvme_bytes;    /* weights + dataset + checkpoints + offloaded state, + 20 % */
    uint64_t drive_bytes; /* the smallest drive size whose count fits the bays */
    uint64_t drives;
};

static uint32_t round_cores(uint32_t cores)
{
    if (cores < CORES_MIN_S11)
        cores = CORES_MIN_S11;
    return (cores + 7u) / 8u * 8u;
}

/* Per server; formulas in the server-spec comment at the top of this file. */
static void host_need(const struct search *s,
                      const struct gpuplan_job *job,
                      uint32_t gpus_per_node,
                      uint32_t nodes,
                      const struct gpuplan_platform *pl,
                      const struct gpuplan_memory_estimate *m,
                      struct host_need *h)
{
    const bool infer = job->method == GPUPLAN_METHOD_INFER;
    const bool cpu_adam =
        job->offload != GPUPLAN_OFFLOAD_NONE && job->offload != GPUPLAN_OFFLOAD_PARAMS;
    const double n_params = (double)s->mem.n_params;
    h->cores_data = round_cores(gpus_per_node * CORES_PER_GPU_DATA);
    h->cores_want =
        round_cores(gpus_per_node * (CORES_PER_GPU_DATA + (cpu_adam ? CORES_PER_GPU_CPU_ADAM : 0)));
    h->ram_bytes = ((double)m->host_ram_bytes + 2.0 * n_params) * (1.0 + RAM_SLACK);
    double nvme = 2.0 * n_params;
    if (!infer) {
        const double trained =
            job->method == GPUPLAN_METHOD_FULL ? n_params : (double)s->mem.lora_params;
        nvme += (double)job->tokens * DATASET_BYTES_PER_TOKEN +
                CKPTS_KEPT * CKPT_FULL_BYTES_PER_PARAM * trained / nodes;
        if (job->offload == GPUPLAN_OFFLOAD_NVME)
            nvme += CKPT_FULL_BYTES_PER_PARAM * trained / nodes;
    }
    h->nvme_bytes = nvme * (1.0 + NVME_SLACK);
    /* 3.84, 7.68, 15.36, 30.72 TB: the common U.2/E3.S capacities */
    h->drive_bytes = NVME_DRIVE_BYTES;
    while (pl && pl->nvme_bays && h->drive_bytes < NVME_LARGEST_DRIVE_BYTES &&
           h->nvme_bytes > (double)h->drive_bytes * pl->nvme_bays)
        h->drive_bytes *= 2;
    h->drives = (uint64_t)ceil(h->nvme_bytes / (double)h->drive_bytes);
    if (h->drives < 1)
        h->drives = 1;
}

/* ---- one candidate ---- */

static void job_for(const struct search *s,
                    const struct layout *l,
                    const struct lite *c,
                    struct gpuplan_job *job)
{
    *job = s->req->job;
    job->gpus_per_node = l->gpn;
    job->nodes = l->nodes;
    snprintf(job->gpu_id, sizeof job->gpu_id, "%s", l->gpu->id);
    job->method = (enum gpuplan_method)c->method;
    if (job->method == GPUPLAN_METHOD_INFER) {
        job->weights_dtype = (enum gpuplan_dtype)c->weights;
        job->kv_dtype = (enum gpuplan_dtype)c->kv;
        job->tp = l->gpn; /* vLLM: tensor parallel inside a node, pipeline across nodes */
        job->pp = l->nodes;
        job->sharding = GPUPLAN_SHARDING_NONE;
        job->sharding_set = true;
        job->micro_batch = 1;
        return;
    }
    job->precision = (enum gpuplan_precision)c->precision;
    job->sharding = (enum gpuplan_sharding)c->sharding;
    job->sharding_set = true;
    job->offload = (enum gpuplan_offload)c->offload;
    job->grad_ckpt = (enum gpuplan_grad_ckpt)c->ckpt;
    job->grad_ckpt_set = true;
    job->micro_batch = c->micro_batch;
    job->tp = 1;
    job->pp = 1;
}

static bool headroom_ok(const struct gpuplan_plan_request *req,
                        const struct gpuplan_job *job,
                        const struct gpuplan_memory_estimate *m)
{
    if (!m->fits)
        return false;
    double fraction = req->min_headroom_fraction;
    if (job->method == GPUPLAN_METHOD_INFER && 1.0 - job->gpu_memory_utilization > fraction)
        fraction = 1.0 - job->gpu_memory_utilization; /* vLLM leaves this share unused */
    return (double)m->headroom_bytes >= fraction * (double)m->gpu_usable_bytes;
}

static bool dominated(const struct lite *a, const struct lite *b)
{
    return b->time_key <= a->time_key && b->cost_key <= a->cost_key &&
           (b->time_key < a->time_key || b->cost_key < a->cost_key);
}

static void pareto_add(struct lite *set, size_t *n_set, const struct lite *c)
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

/* Lexicographic keys by objective; smaller is better. */
static void keys(const struct search *s, const struct lite *c, double k[3])
{
    const struct layout *l = &s->layouts[c->layout];
    const double n = (double)l->gpn * l->nodes;
    switch (s->req->objective) {
    case GPUPLAN_OBJECTIVE_TIME:
        k[0] = c->time_key, k[1] = c->cost_key, k[2] = n;
        break;
    case GPUPLAN_OBJECTIVE_GPUS:
        k[0] = n, k[1] = c->cost_key, k[2] = c->time_key;
        break;
    case GPUPLAN_OBJECTIVE_CAPEX:
        k[0] = c->capex_key, k[1] = c->time_key, k[2] = n;
        break;
    default: /* equal cost: fewer GPUs first (simpler to get and run; seed S14) */
        k[0] = c->cost_key, k[1] = n, k[2] = c->time_key;
        break;
    }
}

/* By the objective's keys alone (no compromise tier). */
static bool keys_better(const struct search *s, const struct lite *a, const struct lite *b)
{
    if (!b->valid)
        return a->valid;
    if (!a->valid)
        return false;
    double ka[3], kb[3];
    keys(s, a, ka);
    keys(s, b, kb);
    /* Keys within 0.5 % are a tie (model error is far larger): go to the next key. */
    for (int i = 0; i < 3; i++) {
        const double scale = fmax(fabs(ka[i]), fabs(kb[i]));
        if (isfinite(scale) ? fabs(ka[i] - kb[i]) > TIE_FRACTION * scale : ka[i] != kb[i])
            return ka[i] < kb[i];
    }
    return a->layout < b->layout;
}

static bool better(const struct search *s, const struct lite *a, const struct lite *b)
{
    /* Offload (slow) and 4-bit serving weights (lossy) only when nothing else meets the
     * constraints: they rank after every plan without, whatever the objective. An offload
     * plan that is faster than the plan without (e.g. a cluster of small GPUs on Ethernet)
     * is not slow: then the objective decides. */
    if (a->valid && b->valid && a->compromise != b->compromise) {
        const struct lite *plain = a->compromise ? b : a, *comp = a->compromise ? a : b;
        const bool infer = a->method == GPUPLAN_METHOD_INFER;
        double kp[3];
        keys(s, plain, kp);
        if (isfinite(kp[0]) && (infer || plain->time_key <= comp->time_key))
            return plain == a;
    }
    return keys_better(s, a, b);
}

/*
 * Evaluate one candidate: memory first (cheap, prunes), then time and
 * constraints. Returns whether it fits with headroom (the caller's
 * micro-batch loop stops at the first misfit).
 */
static bool evaluate(struct search *s, struct lite *c)
{
    const struct layout *l = &s->layouts[c->layout];
    const struct gpuplan_plan_request *req = s->req;
    struct gpuplan_job job;
    job_for(s, l, c, &job);
    struct gpuplan_memory_estimate m;
    gpuplan_memory_eval(&s->mem, &job, l->gpu, &m);
    s->evaluated++;
    if (!headroom_ok(req, &job, &m))
        return false;
    s->fitting++;
    /* A server that cannot hold the host RAM, data-loading cores or NVMe the plan needs is
     * not a plan: reject it (run notes count these), never recommend it with a warning. */
    if (l->platform) {
        const struct gpuplan_platform *pl = l->platform;
        struct host_need h;
        host_need(s, &job, l->gpn, l->nodes, pl, &m, &h);
        if (pl->ram_max_bytes && h.ram_bytes > (double)pl->ram_max_bytes) {
            s->over_ram++;
            return true;
        }
        if (pl->cpu_cores_max && h.cores_data > pl->cpu_cores_max) {
            s->over_cores++;
            return true;
        }
        if (pl->nvme_bays && h.drives > pl->nvme_bays) {
            s->over_nvme++;
            return true;
        }
    }
    struct gpuplan_throughput_system sys;
    gpuplan_throughput_system_init(&sys);
    sys.gpu = l->gpu;
    sys.platform = l->platform;
    struct gpuplan_throughput t;
    if (gpuplan_throughput_eval(&s->thr, &job, &sys, &t, NULL) != GPUPLAN_OK)
        return true; /* fits, but not a layout the time model takes (e.g. tp vs heads) */
    const bool infer = job.method == GPUPLAN_METHOD_INFER;
    c->tokens_per_s = infer ? t.decode_tokens_per_s : t.tokens_per_s;
    if (!(c->tokens_per_s > 0.0))
        return true;
    /* More servers whose step is mostly waiting on the network waste most of each added
     * GPU: not a plan anyone would run (NETWORK_BOUND_SHARE). */
    if (l->nodes > 1 && t.step_time_s > 0.0 && t.comm_s > NETWORK_BOUND_SHARE * t.step_time_s) {
        s->network_bound++;
        return true;
    }
    if (infer) {
        if (t.decode_tokens_per_s_per_seq < req->target_tokens_per_s_per_user)
            return true;
        c->time_key = 1.0 / t.decode_tokens_per_s_per_seq;
    } else {
        c->time_key = t.has_train_time ? t.train_hours : 1.0 / c->tokens_per_s;
        if (req->deadline_hours > 0.0 && t.has_train_time && t.train_hours > req->deadline_hours)
            return true;
    }
    if (req->where == GPUPLAN_WHERE_CLOUD && !l->has_rate) {
        s->n_no_rate++;
        return true;
    }
    if (req->where == GPUPLAN_WHERE_ON_PREM && !l->has_capex) {
        s->n_no_price++;
        return true;
    }
    c->capex_key = l->has_capex ? l->capex_usd : INFINITY;
    if (req->where == GPUPLAN_WHERE_ON_PREM) {
        /* own cost of the job: serving per hour; training per million tokens, which ranks as
         * the run's own cost does (same tokens for every candidate) */
        if (!l->has_own)
            c->cost_key = INFINITY;
        else if (infer)
            c->cost_key = l->own_usd_per_hour;
        else
            c->cost_key = gpuplan_cost_usd_per_mtok(l->own_usd_per_hour, c->tokens_per_s);
    } else if (!l->has_rate) {
        c->cost_key = INFINITY;
    } else if (infer) {
        c->cost_key = l->usd_per_hour;
    } else {
        c->cost_key = gpuplan_cost_usd_per_mtok(l->usd_per_hour, c->tokens_per_s);
    }
    if (req->budget_usd > 0.0) {
        double spend = INFINITY;
        if (req->where == GPUPLAN_WHERE_ON_PREM)
            spend = c->capex_key;
        else if (l->has_rate && infer)
            spend = l->usd_per_hour * SERVING_BUDGET_HOURS;
        else if (l->has_rate && t.has_train_time)
            spend = gpuplan_cost_cloud_run_usd(t.train_hours, l->gpn * l->nodes,
                                               l->gpu->cloud_usd_per_hour);
        if (!(spend <= req->budget_usd))
            return true;
    }
    c->valid = true;
    s->feasible++;
    c->compromise = infer ? (!req->weights_fixed && job.weights_dtype == GPUPLAN_DTYPE_AWQ4)
                          : (!req->offload_fixed && job.offload != GPUPLAN_OFFLOAD_NONE);
    if (c->compromise && keys_better(s, c, &s->best_compromise))
        s->best_compromise = *c;
    if (!c->compromise)
        s->any_plain = true;
    if (better(s, c, &s->best[c->layout]))
        s->best[c->layout] = *c;
    if (l->gpn * l->nodes == 1 && better(s, c, &s->best_single))
        s->best_single = *c;
    pareto_add(s->pareto[0], &s->n_pareto[0], c);
    if (!c->compromise)
        pareto_add(s->pareto[1], &s->n_pareto[1], c);
    return true;
}

static void search_training(struct search *s, uint32_t li)
{
    const struct layout *l = &s->layouts[li];
    const struct gpuplan_plan_request *req = s->req;
    enum gpuplan_method ms[3];
    const size_t n_methods = methods(req, ms);
    struct shard_offload pairs[8];
    const size_t n_pairs = shard_pairs(req, l->gpn * l->nodes, l->nodes, pairs);
    enum gpuplan_grad_ckpt cks[3];
    const size_t n_ckpts = ckpts(req, cks);
    /* global batch cap (GLOBAL_BATCH_MAX_TOKENS, MIN_OPTIMIZER_STEPS) in micro-batches */
    double cap_tokens = GLOBAL_BATCH_MAX_TOKENS;
    if (req->job.tokens > 0 && (double)req->job.tokens / MIN_OPTIMIZER_STEPS < cap_tokens)
        cap_tokens = (double)req->job.tokens / MIN_OPTIMIZER_STEPS;
    const double seqs_per_mb =
        (double)l->gpn * l->nodes * (double)req->job.grad_accum * (double)req->job.seq_len;
    const uint64_t mb_cap = seqs_per_mb > 0.0 && cap_tokens / seqs_per_mb >= 1.0
                                ? (uint64_t)(cap_tokens / seqs_per_mb)
                                : 1;
    for (size_t mi = 0; mi < n_methods; mi++) {
        enum gpuplan_precision ps[3];
        const size_t n_prec = precisions(req, l->gpu, ms[mi], ps);
        for (size_t pi = 0; pi < n_prec; pi++) {
            for (size_t si = 0; si < n_pairs; si++) {
                for (size_t ci = 0; ci < n_ckpts; ci++) {
                    const size_t n_mb =
                        req->micro_batch_fixed ? 1 : sizeof micro_batches / sizeof micro_batches[0];
                    for (size_t bi = 0; bi < n_mb; bi++) {
                        if (!req->micro_batch_fixed && micro_batches[bi] > mb_cap)
                            break; /* global batch beyond the cap */
                        struct lite c = { 0 };
                        c.layout = li;
                        c.method = (uint8_t)ms[mi];
                        c.precision = (uint8_t)ps[pi];
                        c.sharding = (uint8_t)pairs[si].sharding;
                        c.offload = (uint8_t)pairs[si].offload;
                        c.ckpt = (uint8_t)cks[ci];
                        c.micro_batch =
                            req->micro_batch_fixed ? req->job.micro_batch : micro_batches[bi];
                        if (!evaluate(s, &c))
                            break; /* a larger micro-batch only needs more memory */
                    }
                }
            }
        }
    }
}

static void search_serving(struct search *s, uint32_t li)
{
    const struct layout *l = &s->layouts[li];
    /* Pipeline stages across servers only for full 8-GPU boards (vLLM multi-node serving);
     * splitting a model over workstations on Ethernet is not a serving plan. */
    if (l->nodes > 1 && l->gpn < 8)
        return;
    enum gpuplan_dtype ws[3], kvs[2];
    const size_t n_w = weight_formats(s->req, l->gpu, ws);
    const size_t n_kv = kv_formats(s->req, l->gpu, kvs);
    for (size_t wi = 0; wi < n_w; wi++) {
        for (size_t ki = 0; ki < n_kv; ki++) {
            struct lite c = { 0 };
            c.layout = li;
            c.method = GPUPLAN_METHOD_INFER;
            c.weights = (uint8_t)ws[wi];
            c.kv = (uint8_t)kvs[ki];
            c.micro_batch = 1;
            (void)evaluate(s, &c);
        }
    }
}

/* ---- materialising a plan: figures, server, reasons, warnings ---- */

static const char *link_words(enum gpuplan_link link)
{
    switch (link) {
    case GPUPLAN_LINK_NVSWITCH:
        return "NVLink via NVSwitch";
    case GPUPLAN_LINK_NVLINK_BRIDGE:
        return "NVLink bridge";
    case GPUPLAN_LINK_INFINITY_FABRIC:
        return "Infinity Fabric";
    case GPUPLAN_LINK_ETHERNET:
        return "on-die RoCE Ethernet";
    default:
        return "PCIe only (no GPU-to-GPU fabric)";
    }
}

static bool has_fabric(enum gpuplan_link link)
{
    return link != GPUPLAN_LINK_PCIE;
}

/* The catalog's parsed compute capability as the number the warnings print (8.9); 0 none. */
static double cc_of(const struct gpuplan_gpu *gpu)
{
    /* NVIDIA's minor version is one digit: 8.9 = 8 + 9 / 10. */
    return (double)gpu->cc_major + (double)gpu->cc_minor / 10.0;
}

static void
server_spec(const struct search *s, struct gpuplan_plan *p, const struct gpuplan_memory_estimate *m)
{
    struct gpuplan_plan_server *sv = &p->server;
    const struct gpuplan_platform *pl = p->platform;
    const struct gpuplan_job *job = &p->job;
    const bool infer = job->method == GPUPLAN_METHOD_INFER;
    const double n_params = (double)s->mem.n_params;
    if (pl) {
        snprintf(sv->platform_id, sizeof sv->platform_id, "%s", pl->id);
        snprintf(sv->platform_name, sizeof sv->platform_name, "%s", pl->name);
        snprintf(sv->form_factor, sizeof sv->form_factor, "%s", pl->form_factor);
    } else {
        snprintf(sv->form_factor, sizeof sv->form_factor, "%s", p->gpu->form_factor);
    }
    sv->n_servers = p->nodes;

    struct host_need h;
    host_need(s, job, p->gpus_per_node, p->nodes, pl, m, &h);
    uint32_t cores = h.cores_want;
    if (pl && pl->cpu_cores_max && cores > pl->cpu_cores_max) {
        /* only the CPU Adam share can be over: the data-loading cores were checked */
        WARNING(p, "CPU: the plan wants %u cores per server; '%s' holds at most %u", cores, pl->id,
                pl->cpu_cores_max);
        cores = pl->cpu_cores_max;
    }
    sv->cpu_cores = cores;

    /* RAM: host need + one 16-bit copy of the weights for loading + 10 %; S11 floor. */
    double floor_bytes = 0.0;
    if (!infer)
        floor_bytes = (double)(n_params >= RAM_30B_PARAMS ? RAM_MIN_S11_30B_GIB : RAM_MIN_S11_GIB) *
                      (double)GPUPLAN_BYTES_PER_GIB;
    sv->ram_bytes = round_up_ram(h.ram_bytes > floor_bytes ? h.ram_bytes : floor_bytes);
    p->host_ram_needed_bytes = gpuplan_bytes_from_double(h.ram_bytes); /* before the S11 floor */
    if (pl && pl->ram_max_bytes && sv->ram_bytes > pl->ram_max_bytes) {
        /* the need itself fits (checked in the search); the rounding or the floor does not */
        if (h.ram_bytes <= floor_bytes)
            WARNING(p, "RAM: the S11 floor of %.0f GiB is above what '%s' holds: %.0f GiB",
                    floor_bytes / (double)GPUPLAN_BYTES_PER_GIB, pl->id,
                    gpuplan_gib_from_bytes(pl->ram_max_bytes));
        sv->ram_bytes = pl->ram_max_bytes;
    }

    /* NVMe: weights + dataset + two checkpoints (+ offloaded state) + 20 %. */
    sv->nvme_bytes = h.drives * h.drive_bytes;
    sv->nvme_gb_per_s =
        (double)h.drives * (p->gpu->pcie_gen >= 5 ? NVME_GEN5_GB_PER_S : NVME_GEN4_GB_PER_S);

    if (p->gpus_per_node == 1)
        snprintf(sv->interconnect, sizeof sv->interconnect, "%s",
                 GPUPLAN_N_("none needed (1 GPU per server)"));
    else if (has_fabric(p->gpu->link))
        snprintf(sv->interconnect, sizeof sv->interconnect, "%s, %.0f GB/s per GPU",
                 link_words(p->gpu->link), p->gpu->link_gb_per_s);
    else
        snprintf(sv->interconnect, sizeof sv->interconnect,
                 "PCIe Gen%u only (no GPU-to-GPU fabric)", p->gpu->pcie_gen);
    if (p->nodes > 1)
        snprintf(sv->network, sizeof sv->network, "%s",
                 pl ? pl->network : "400 Gb/s per GPU (assumption)");
    else
        snprintf(sv->network, sizeof sv->network, "%s", GPUPLAN_N_("none (single server)"));

    const double base_w = pl ? pl->base_power_w : 1000.0;
    sv->power_w = p->gpus_per_node * p->gpu->tdp_w + base_w;
    uint32_t per_rack = 1;
    if (pl && pl->rack_units)
        per_rack = RACK_UNITS / pl->rack_units;
    if (per_rack == 0)
        per_rack = 1;
    const uint32_t in_rack = p->nodes < per_rack ? p->nodes : per_rack;
    sv->rack_power_w = sv->power_w * in_rack;
    if (sv->rack_power_w >= RACK_KW_LIQUID * GPUPLAN_W_PER_KW)
        WARNING(p, "power: %.1f kW in one rack; seed S12: 40+ kW racks need liquid cooling",
                sv->rack_power_w / GPUPLAN_W_PER_KW);
}

static void compat_warnings(const struct search *s, struct gpuplan_plan *p)
{
    const struct gpuplan_gpu *gpu = p->gpu;
    const struct gpuplan_job *job = &p->job;
    const double cc = cc_of(gpu);
    if (gpu->vendor == GPUPLAN_VENDOR_NVIDIA && cc > 0.0) {
        if (cc < 8.0)
            WARNING(
                p,
                "FlashAttention 2 needs compute capability 8.0+; %s is %.1f: sdpa/eager attention, "
                "more activation memory (S13)",
                gpu->id, cc);
        if (cc >= 10.0)
            WARNING(p, "Blackwell (CC %.1f): CUDA 12.8+ and a PyTorch build for sm_%d0 (S13)", cc,
                    (int)cc);
        else if (cc >= 9.0)
            WARNING(p, "Hopper: CUDA 12.4+ for the FP8/BF16 kernels (S13)");
    }
    const bool fp8 =
        job->precision == GPUPLAN_PRECISION_FP8_MIXED ||
        (job->method == GPUPLAN_METHOD_INFER &&
         (job->weights_dtype == GPUPLAN_DTYPE_F8_E4M3 || job->kv_dtype == GPUPLAN_DTYPE_F8_E4M3));
    if (fp8 && gpu->vendor == GPUPLAN_VENDOR_NVIDIA)
        WARNING(p,
                "FP8 needs compute capability 8.9+ (%s: %s) and Transformer Engine or torchao with "
                "CUDA 12.1+",
                gpu->id, gpu->compute_capability);
    if (job->method == GPUPLAN_METHOD_QLORA && gpu->vendor == GPUPLAN_VENDOR_AMD) {
        const bool wheel = strcmp(gpu->gfx_target, "gfx90a") == 0 ||
                           strcmp(gpu->gfx_target, "gfx942") == 0 ||
                           strcmp(gpu->gfx_target, "gfx950") == 0;
        WARNING(p, "bitsandbytes on ROCm: %s (%s) %s the PyPI wheels (gfx90a, gfx942, gfx950)",
                gpu->id, gpu->gfx_target[0] ? gpu->gfx_target : "gfx unknown",
                wheel ? GPUPLAN_TR("is in") : GPUPLAN_TR("is NOT in"));
    }
    /* bitsandbytes quantises nn.Linear layers one by one: routed experts get no fused 4-bit
     * MoE kernel, and MLA's low-rank projections are small, so the 4-bit base saves memory
     * but the expert loop is slower than the time model's dense-matmul estimate */
    if (job->method == GPUPLAN_METHOD_QLORA && s->model->has_arch && s->model->arch.is_moe)
        WARNING(p, "QLoRA on a MoE model: bitsandbytes has no fused 4-bit expert kernels (experts "
                   "run one by one): expect slower steps than estimated; the checkpoint must be "
                   "in 16-bit first (an FP8 release needs converting)");
    if (job->method == GPUPLAN_METHOD_QLORA && gpu->vendor == GPUPLAN_VENDOR_INTEL)
        WARNING(p, "QLoRA on Gaudi: bitsandbytes has a separate HPU backend; check support first");
}

/* Does `job` still fit on this layout when `change` is applied? */
static bool fits_with(const struct search *s,
                      const struct gpuplan_plan *p,
                      void (*change)(struct gpuplan_job *),
                      uint64_t *total)
{
    struct gpuplan_job job = p->job;
    change(&job);
    struct gpuplan_memory_estimate m;
    gpuplan_memory_eval(&s->mem, &job, p->gpu, &m);
    *total = m.per_gpu.device_total_bytes;
    return headroom_ok(s->req, &job, &m);
}

static void no_ckpt(struct gpuplan_job *j)
{
    j->grad_ckpt = GPUPLAN_CKPT_NONE;
}
static void no_offload(struct gpuplan_job *j)
{
    j->offload = GPUPLAN_OFFLOAD_NONE;
    if (j->sharding == GPUPLAN_SHARDING_ZERO3 && j->gpus_per_node * j->nodes > 1)
        j->sharding = GPUPLAN_SHARDING_FSDP;
    else if (j->gpus_per_node * j->nodes == 1)
        j->sharding = GPUPLAN_SHARDING_NONE;
}
static void as_lora(struct gpuplan_job *j)
{
    j->method = GPUPLAN_METHOD_LORA;
}
static void no_sharding(struct gpuplan_job *j)
{
    j->sharding = GPUPLAN_SHARDING_DDP;
}
static void bf16_weights(struct gpuplan_job *j)
{
    j->weights_dtype = GPUPLAN_DTYPE_BF16;
}
static void bf16_kv(struct gpuplan_job *j)
{
    j->kv_dtype = GPUPLAN_DTYPE_BF16;
}

static void knob_reasons(const struct search *s, struct gpuplan_plan *p)
{
    const struct gpuplan_job *job = &p->job;
    const double usable_gib = gpuplan_gib_from_bytes(p->usable_bytes);
    uint64_t total = 0;
    if (job->method == GPUPLAN_METHOD_INFER) {
        if (job->weights_dtype != GPUPLAN_DTYPE_BF16 && !fits_with(s, p, bf16_weights, &total))
            REASON(p, "%s weights made it fit: BF16 needs %.1f GiB per GPU of %.1f usable",
                   gpuplan_dtype_name(job->weights_dtype), gpuplan_gib_from_bytes(total),
                   usable_gib);
        if (job->kv_dtype != GPUPLAN_DTYPE_BF16 && !fits_with(s, p, bf16_kv, &total))
            REASON(p, "FP8 KV cache made it fit: a BF16 cache needs %.1f GiB per GPU",
                   gpuplan_gib_from_bytes(total));
        return;
    }
    if (job->grad_ckpt != GPUPLAN_CKPT_NONE && !fits_with(s, p, no_ckpt, &total))
        REASON(
            p,
            "activation checkpointing (%s) made it fit: without it %.1f GiB per GPU of %.1f usable",
            gpuplan_grad_ckpt_name(job->grad_ckpt), gpuplan_gib_from_bytes(total), usable_gib);
    if (job->offload != GPUPLAN_OFFLOAD_NONE && !fits_with(s, p, no_offload, &total))
        REASON(p, "offload (%s) made it fit: on the GPU the states need %.1f GiB per GPU",
               gpuplan_offload_name(job->offload), gpuplan_gib_from_bytes(total));
    if (job->method == GPUPLAN_METHOD_QLORA && !fits_with(s, p, as_lora, &total))
        REASON(p, "QLoRA's 4-bit base made it fit: 16-bit LoRA needs %.1f GiB per GPU",
               gpuplan_gib_from_bytes(total));
    if ((job->sharding >= GPUPLAN_SHARDING_ZERO1) && p->gpus_per_node * p->nodes > 1 &&
        !fits_with(s, p, no_sharding, &total))
        REASON(p, "sharding (%s) made it fit: a full replica per GPU (DDP) needs %.1f GiB",
               gpuplan_sharding_name(job->sharding), gpuplan_gib_from_bytes(total));
}

static const char *sharding_words(enum gpuplan_sharding s)
{
    switch (s) {
    case GPUPLAN_SHARDING_NONE:
        return GPUPLAN_TR("one GPU holds everything");
    case GPUPLAN_SHARDING_DDP:
        return GPUPLAN_TR("DDP: a full replica per GPU, gradients all-reduced");
    case GPUPLAN_SHARDING_ZERO1:
        return GPUPLAN_TR("ZeRO-1: optimizer states sharded");
    case GPUPLAN_SHARDING_ZERO2:
        return GPUPLAN_TR("ZeRO-2: gradients and optimizer states sharded");
    case GPUPLAN_SHARDING_ZERO3:
        return GPUPLAN_TR("ZeRO-3: weights, gradients and optimizer states sharded");
    case GPUPLAN_SHARDING_FSDP:
        return GPUPLAN_TR("FSDP FULL_SHARD: weights, gradients and optimizer states sharded");
    case GPUPLAN_SHARDING_FSDP_HYBRID:
        return GPUPLAN_TR("FSDP HYBRID_SHARD: sharded inside a server, replicated across servers");
    default:
        return "";
    }
}

/* Why this many GPUs: does the same job fit on half as many? */
static void count_reason(const struct search *s, struct gpuplan_plan *p)
{
    const uint32_t n = p->gpus_per_node * p->nodes;
    if (n < 2)
        return;
    struct gpuplan_job job = p->job;
    if (job.nodes > 1)
        job.nodes /= 2;
    else
        job.gpus_per_node /= 2;
    const uint32_t half = job.gpus_per_node * job.nodes;
    if (job.method == GPUPLAN_METHOD_INFER) {
        job.tp = job.gpus_per_node;
        job.pp = job.nodes;
    } else if (half == 1) {
        job.sharding = job.offload == GPUPLAN_OFFLOAD_NONE ? GPUPLAN_SHARDING_NONE : job.sharding;
    } else if (job.sharding == GPUPLAN_SHARDING_FSDP_HYBRID && job.nodes == 1) {
        job.sharding = GPUPLAN_SHARDING_FSDP;
    }
    struct gpuplan_memory_estimate m;
    gpuplan_memory_eval(&s->mem, &job, p->gpu, &m);
    if (headroom_ok(s->req, &job, &m))
        REASON(
            p,
            "%u GPUs for throughput: %u would also fit (%.1f GiB per GPU) at about twice the time",
            n, half, gpuplan_gib_from_bytes(m.per_gpu.device_total_bytes));
    else
        REASON(p, "%u GPUs because %u do not fit: %.1f GiB per GPU of %.1f usable", n, half,
               gpuplan_gib_from_bytes(m.per_gpu.device_total_bytes),
               gpuplan_gib_from_bytes(m.gpu_usable_bytes));
}

static void
layout_reasons(const struct search *s, struct gpuplan_plan *p, const struct gpuplan_throughput *t)
{
    const struct gpuplan_job *job = &p->job;
    const uint32_t n = p->gpus_per_node * p->nodes;
    const double used = gpuplan_gib_from_bytes(p->memory_per_gpu_bytes);
    const double usable = gpuplan_gib_from_bytes(p->usable_bytes);
    REASON(p, "%u x %s: %.1f GiB per GPU of %.1f GiB usable (%.0f %% headroom)", n, p->gpu->id,
           used, usable, usable > 0 ? 100.0 * (usable - used) / usable : 0.0);
    count_reason(s, p);
    if (job->method == GPUPLAN_METHOD_INFER) {
        struct gpuplan_memory_estimate m;
        gpuplan_memory_eval(&s->mem, job, p->gpu, &m);
        REASON(
            p,
            "KV cache: %.2f GiB per sequence of %llu tokens, %llu sequences over %u GPUs (TP %u)",
            gpuplan_gib_from_bytes(m.kv_bytes_per_seq), (unsigned long long)job->context_len,
            (unsigned long long)job->batch, n, job->tp);
        REASON(p, "decode %.1f tokens/s per user (%.0f total), first token after %.2f s",
               p->tokens_per_s_per_user, p->tokens_per_s, p->ttft_s);
    } else {
        REASON(p, "%s", sharding_words(job->sharding));
        REASON(p, "bottleneck: %s, MFU %.0f %%", p->bottleneck, 100.0 * p->mfu);
    }
    if (p->gpus_per_node > 1 && t->step_time_s > 0.0) {
        const double share = t->comm_total_s / t->step_time_s;
        if (has_fabric(p->gpu->link))
            REASON(p, "%s carries the collectives: %.0f %% of the step before overlap",
                   link_words(p->gpu->link), 100.0 * share);
        else if (share > 0.25)
            WARNING(
                p,
                "PCIe only: collectives are %.0f %% of the step; an NVLink (SXM) server cuts this",
                100.0 * share);
        else
            REASON(p, "NVLink not needed: collectives are %.0f %% of the step over PCIe",
                   100.0 * share);
    }
    if (p->nodes > 1 && t->step_time_s > 0.0 && t->comm_s / t->step_time_s > 0.25)
        WARNING(p, "multi-node: exposed communication is %.0f %% of the step over '%s'",
                100.0 * t->comm_s / t->step_time_s, p->server.network);
    if (t->offload_s > 0.0 && t->step_time_s > 0.0)
        WARNING(p, "offload: PCIe traffic and the CPU optimizer step take %.0f %% of the step",
                100.0 * t->offload_s / t->step_time_s);
    if (job->method == GPUPLAN_METHOD_INFER && job->weights_dtype == GPUPLAN_DTYPE_AWQ4)
        WARNING(p, "AWQ 4-bit weights: an AWQ checkpoint of this model is needed, and 4-bit "
                   "weights cost some accuracy; FP8 (8.9+/MI300) or BF16 keep it");
    if (!p->has_cloud_rate)
        WARNING(p, "no cloud rate for '%s' in the catalog: pass a price to rank by cost",
                p->gpu->id);
}

/* Re-evaluate a winning candidate in full and describe it. */
static void materialise(const struct search *s, const struct lite *c, struct gpuplan_plan *p)
{
    const struct layout *l = &s->layouts[c->layout];
    memset(p, 0, sizeof *p);
    p->gpu = l->gpu;
    p->platform = l->platform;
    p->gpus_per_node = l->gpn;
    p->nodes = l->nodes;
    snprintf(p->model_id, sizeof p->model_id, "%s", s->model->id);
    snprintf(p->model_family, sizeof p->model_family, "%s", s->model->arch.family);
    struct gpuplan_job job;
    job_for(s, l, c, &job);
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
    const bool infer = p->job.method == GPUPLAN_METHOD_INFER;
    p->tokens_per_s = c->tokens_per_s;
    p->tokens_per_s_per_user = infer ? t.decode_tokens_per_s_per_seq : 0.0;
    p->ttft_s = infer ? t.ttft_s : 0.0;
    p->mfu = t.mfu;
    p->bottleneck = gpuplan_bottleneck_name(t.bottleneck);
    p->has_time = !infer && t.has_train_time;
    p->time_hours = p->has_time ? t.train_hours : 0.0;
    p->has_cloud_rate = l->has_rate;
    p->cost_usd_per_hour = l->usd_per_hour;
    p->cost_usd = (p->has_time && l->has_rate)
                      ? gpuplan_cost_cloud_run_usd(t.train_hours, l->gpn * l->nodes,
                                                   l->gpu->cloud_usd_per_hour)
                      : 0.0;
    p->has_capex = l->has_capex;
    p->capex_usd = l->capex_usd;
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
    server_spec(s, p, &m);
    layout_reasons(s, p, &t);
    knob_reasons(s, p);
    compat_warnings(s, p);
}

/* ---- run ---- */

static enum gpuplan_status check_request(const struct gpuplan_plan_request *req,
                                         const struct gpuplan_catalog *catalog,
                                         struct gpuplan_error *err)
{
    if (req->top_k == 0 || req->top_k > GPUPLAN_PLAN_MAX_TOP)
        return gpuplan_error_set(err, GPUPLAN_ERR_USAGE, "--top", "'--top' is %u; must be 1..%d",
                                 req->top_k, GPUPLAN_PLAN_MAX_TOP);
    if (req->max_gpus == 0)
        return gpuplan_error_set(err, GPUPLAN_ERR_USAGE, "--max-gpus",
                                 "'--max-gpus' is 0; must be >= 1");
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
    if (!(req->deadline_hours >= 0.0) || !(req->budget_usd >= 0.0) ||
        !(req->target_tokens_per_s_per_user >= 0.0) || !(req->min_headroom_fraction >= 0.0) ||
        req->min_headroom_fraction >= 1.0)
        return gpuplan_error_set(err, GPUPLAN_ERR_USAGE, NULL,
                                 "deadline, budget and target must be >= 0, headroom in [0, 1)");
    for (size_t i = 0; i < req->n_gpu_ids && i < GPUPLAN_PLAN_MAX_GPU_IDS; i++) {
        const struct gpuplan_gpu *gpu;
        if (gpuplan_catalog_get_gpu(catalog, req->gpu_ids[i], &gpu, err) != GPUPLAN_OK)
            return err ? err->code : GPUPLAN_ERR_NOT_FOUND;
    }
    return GPUPLAN_OK;
}

static int cmp_lite_time(const void *a, const void *b)
{
    const struct lite *x = a, *y = b;
    return (x->time_key > y->time_key) - (x->time_key < y->time_key);
}

/* Same GPU, count and nodes on another platform: keep only the better one. */
static bool same_offer(const struct search *s, const struct lite *a, const struct lite *b)
{
    const struct layout *x = &s->layouts[a->layout], *y = &s->layouts[b->layout];
    return x->gpu == y->gpu && x->gpn == y->gpn && x->nodes == y->nodes;
}

static void pick_top(struct search *s, struct gpuplan_plan_result *out)
{
    struct lite chosen[GPUPLAN_PLAN_MAX_TOP];
    size_t n = 0;
    const size_t k = s->req->top_k;
    for (size_t i = 0; i < s->n_layouts; i++) {
        const struct lite *c = &s->best[i];
        if (!c->valid)
            continue;
        size_t pos = n;
        bool skip = false;
        for (size_t j = 0; j < n; j++) {
            if (same_offer(s, c, &chosen[j])) {
                if (better(s, c, &chosen[j])) {
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
        for (pos = 0; pos < n && !better(s, c, &chosen[pos]); pos++)
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
    struct lite *set = s->pareto[w];
    const size_t n_set = s->n_pareto[w];
    qsort(set, n_set, sizeof set[0], cmp_lite_time);
    const size_t n = n_set < GPUPLAN_PLAN_MAX_PARETO ? n_set : GPUPLAN_PLAN_MAX_PARETO;
    for (size_t i = 0; i < n; i++) {
        /* evenly spaced when the front is longer than the result holds; ends kept */
        const size_t src = n < 2 ? 0 : i * (n_set - 1) / (n - 1);
        materialise(s, &set[src], &out->pareto[i]);
    }
    out->n_pareto = n;
}

/*
 * The time-vs-cost trade-off in words: the fastest feasible plan whose cost is
 * within SIMILAR_COST_FRACTION of the cheapest (among plans of the same kind as
 * the top one: with or without a compromise), when it is faster than the top plan.
 * The Pareto set holds it: nothing cheaper is faster.
 */
static void tradeoff_note(const struct search *s, struct gpuplan_plan_result *out)
{
    if (out->n_top == 0 || s->req->objective != GPUPLAN_OBJECTIVE_COST || !s->top0.valid)
        return;
    const int w = s->top0.compromise ? 0 : 1;
    double cheapest = INFINITY;
    for (size_t i = 0; i < s->n_pareto[w]; i++) {
        if (s->pareto[w][i].cost_key < cheapest)
            cheapest = s->pareto[w][i].cost_key;
    }
    const struct lite *fast = NULL;
    for (size_t i = 0; i < s->n_pareto[w]; i++) {
        const struct lite *c = &s->pareto[w][i];
        if (c->cost_key <= cheapest * (1.0 + SIMILAR_COST_FRACTION) &&
            (!fast || c->time_key < fast->time_key))
            fast = c;
    }
    if (!fast || !(fast->time_key < s->top0.time_key * (1.0 - TIE_FRACTION)) ||
        !isfinite(cheapest) || !(cheapest > 0.0))
        return;
    const struct layout *l = &s->layouts[fast->layout];
    const double more = fmax(0.0, 100.0 * (fast->cost_key / s->top0.cost_key - 1.0));
    if (s->req->job.method == GPUPLAN_METHOD_INFER && s->req->method_fixed)
        add_text(out->notes, &out->n_notes, GPUPLAN_PLAN_MAX_NOTES,
                 "fastest within 10 %% of the cheapest cost: %u x %s (%ux%u), %.1f instead of %.1f "
                 "tokens/s per user, %.0f %% more cost",
                 l->gpn * l->nodes, l->gpu->id, l->nodes, l->gpn, 1.0 / fast->time_key,
                 1.0 / s->top0.time_key, more);
    else if (s->req->job.tokens)
        add_text(out->notes, &out->n_notes, GPUPLAN_PLAN_MAX_NOTES,
                 "fastest within 10 %% of the cheapest cost: %u x %s (%ux%u), %.3g h instead of "
                 "%.3g h, %.0f %% more cost",
                 l->gpn * l->nodes, l->gpu->id, l->nodes, l->gpn, fast->time_key, s->top0.time_key,
                 more);
    else
        add_text(out->notes, &out->n_notes, GPUPLAN_PLAN_MAX_NOTES,
                 "fastest within 10 %% of the cheapest cost: %u x %s (%ux%u), %.0f instead of %.0f "
                 "tokens/s, %.0f %% more cost per token",
                 l->gpn * l->nodes, l->gpu->id, l->nodes, l->gpn, fast->tokens_per_s,
                 s->top0.tokens_per_s, more);
}

static void run_notes(const struct search *s, struct gpuplan_plan_result *out)
{
    const struct gpuplan_plan_request *req = s->req;
    const bool infer = req->method_fixed && req->job.method == GPUPLAN_METHOD_INFER;
    if (out->n_top == 0) {
        if (s->fitting == 0)
            add_text(out->notes, &out->n_notes, GPUPLAN_PLAN_MAX_NOTES,
                     "nothing fits with %.0f %% headroom in up to %u GPUs: raise --max-gpus, allow "
                     "qlora, or a shorter --seq-len/--context",
                     100.0 * req->min_headroom_fraction, req->max_gpus);
        else
            add_text(
                out->notes, &out->n_notes, GPUPLAN_PLAN_MAX_NOTES,
                "%llu candidates fit but none meets the constraints (deadline, budget, target, "
                "prices, what the server holds)",
                (unsigned long long)s->fitting);
    }
    if (s->over_ram + s->over_cores + s->over_nvme)
        add_text(out->notes, &out->n_notes, GPUPLAN_PLAN_MAX_NOTES,
                 "%llu fitting candidates rejected because the server cannot hold them: host RAM "
                 "%llu, CPU cores %llu, NVMe %llu",
                 (unsigned long long)(s->over_ram + s->over_cores + s->over_nvme),
                 (unsigned long long)s->over_ram, (unsigned long long)s->over_cores,
                 (unsigned long long)s->over_nvme);
    if (s->network_bound)
        add_text(out->notes, &out->n_notes, GPUPLAN_PLAN_MAX_NOTES,
                 "%llu multi-server candidates dropped: more than 4/5 of each step waits on the "
                 "network",
                 (unsigned long long)s->network_bound);
    if (s->n_no_price)
        add_text(out->notes, &out->n_notes, GPUPLAN_PLAN_MAX_NOTES,
                 "%llu fitting candidates dropped: no purchase price in the catalog",
                 (unsigned long long)s->n_no_price);
    if (s->n_no_rate)
        add_text(out->notes, &out->n_notes, GPUPLAN_PLAN_MAX_NOTES,
                 "%llu fitting candidates dropped: no cloud rate in the catalog",
                 (unsigned long long)s->n_no_rate);
    if (req->objective == GPUPLAN_OBJECTIVE_COST && out->n_top > 0) {
        const bool own = req->where == GPUPLAN_WHERE_ON_PREM;
        if (infer)
            add_text(out->notes, &out->n_notes, GPUPLAN_PLAN_MAX_NOTES, "%s",
                     own ? GPUPLAN_TR("ranked by own cost per hour of serving (TCO defaults as "
                                      "in 'gpuplan tco'); --objective capex for the cheapest "
                                      "server")
                         : GPUPLAN_TR("ranked by cloud cost per hour of serving"));
        else if (!req->job.tokens)
            add_text(out->notes, &out->n_notes, GPUPLAN_PLAN_MAX_NOTES, "%s",
                     own ? GPUPLAN_TR("no --tokens, so no run time: ranked by own USD per "
                                      "million tokens (TCO defaults as in 'gpuplan tco')")
                         : GPUPLAN_TR("no --tokens, so no run time: ranked by cloud USD per "
                                      "million tokens"));
        else if (own)
            add_text(
                out->notes, &out->n_notes, GPUPLAN_PLAN_MAX_NOTES,
                "on-prem cost is the run's share of owning the servers: depreciation, power, "
                "maintenance and colocation per hour of use (TCO defaults as in 'gpuplan tco') "
                "x run hours; --objective capex for the cheapest server");
    }
    if (out->n_top > 0 && out->top[0].compromise && s->any_plain && !infer)
        add_text(out->notes, &out->n_notes, GPUPLAN_PLAN_MAX_NOTES,
                 "offload ranks first here: every plan without it that meets the constraints is "
                 "slower");
    else if (out->n_top > 0 && out->top[0].compromise)
        add_text(out->notes, &out->n_notes, GPUPLAN_PLAN_MAX_NOTES, "%s",
                 infer ? GPUPLAN_TR("only AWQ 4-bit weights meet the constraints: BF16/FP8 plans "
                                    "would keep accuracy (more GPUs, memory or budget)")
                       : GPUPLAN_TR("only offload meets the constraints: it is slow; without it "
                                    "the job needs more GPU memory (more GPUs, qlora, or budget)"));
    else if (out->n_top > 0 && keys_better(s, &s->best_compromise, &s->top0))
        add_text(out->notes, &out->n_notes, GPUPLAN_PLAN_MAX_NOTES, "%s",
                 infer ? GPUPLAN_TR("AWQ 4-bit plans rank after BF16/FP8 ones (4-bit weights cost "
                                    "accuracy); pass --weights awq to rank by the objective alone")
                       : GPUPLAN_TR("offload plans rank after plans without (offload is slow); "
                                    "pass --offload to rank by the objective alone"));
    tradeoff_note(s, out);
    /* a single GPU only counts as a prototype when it needs no offload */
    if (out->n_top > 0 && s->best_single.valid && !s->best_single.compromise &&
        out->top[0].gpus_per_node * out->top[0].nodes > 1 && !infer) {
        const struct layout *l = &s->layouts[s->best_single.layout];
        if (req->job.tokens)
            add_text(out->notes, &out->n_notes, GPUPLAN_PLAN_MAX_NOTES,
                     "S14: a single %s also does it (%s, %.1f h): enough for a prototype before "
                     "buying a cluster",
                     l->gpu->id, gpuplan_method_name((enum gpuplan_method)s->best_single.method),
                     s->best_single.time_key);
        else
            add_text(out->notes, &out->n_notes, GPUPLAN_PLAN_MAX_NOTES,
                     "S14: a single %s also does it (%s, %.0f tokens/s): enough for a prototype "
                     "before buying a cluster",
                     l->gpu->id, gpuplan_method_name((enum gpuplan_method)s->best_single.method),
                     s->best_single.tokens_per_s);
    }
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
        st = build_layouts(s, catalog, err);
    if (st == GPUPLAN_OK) {
        s->best = calloc(s->n_layouts ? s->n_layouts : 1, sizeof *s->best);
        if (!s->best)
            st = gpuplan_error_set(err, GPUPLAN_ERR_NOMEM, NULL, "out of memory");
    }
    if (st != GPUPLAN_OK)
        goto out;
    const bool infer = req->method_fixed && req->job.method == GPUPLAN_METHOD_INFER;
    for (uint32_t i = 0; i < s->n_layouts; i++) {
        if (infer)
            search_serving(s, i);
        else
            search_training(s, i);
    }
    out->evaluated = s->evaluated;
    out->fitting = s->fitting;
    out->feasible = s->feasible;
    out->over_ram = s->over_ram;
    out->over_cores = s->over_cores;
    out->over_nvme = s->over_nvme;
    out->network_bound = s->network_bound;
    pick_top(s, out);
    pick_pareto(s, out);
    run_notes(s, out);
out:
    free(s->best);
    free(s->layouts);
    free(s);
    return st;
}
