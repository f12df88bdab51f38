/*
 * plan_explain.c - a plan's reasons and warnings in words (why this GPU
 * count, what made it fit, what it runs on, compatibility pitfalls of the
 * seed claims S13-S14), and the run's notes (why plans were dropped, the
 * ranking basis, the time-vs-cost trade-off).
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "gpuplan/units.h"
#include "plan/plan_internal.h"

/* "Similar cost" for the trade-off note: within 10 % of the cheapest plan. */
#define SIMILAR_COST_FRACTION 0.10
/* Collectives that take more than a quarter of the step are worth a warning (or a word). */
#define COMM_SHARE_WORTH_NOTING 0.25

void gpuplan_plan_add_text(char (*list)[GPUPLAN_PLAN_TEXT_MAX],
                           size_t *n,
                           size_t cap,
                           const char *fmt,
                           ...)
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

/* The catalog's parsed compute capability as the number the warnings print (8.9); 0 none. */
static double cc_of(const struct gpuplan_gpu *gpu)
{
    /* NVIDIA's minor version is one digit: 8.9 = 8 + 9 / 10. */
    return (double)gpu->cc_major + (double)gpu->cc_minor / 10.0;
}
void gpuplan_plan_compat_warnings(const struct search *s, struct gpuplan_plan *p)
{
    const struct gpuplan_gpu *gpu = p->gpu;
    const struct gpuplan_job *job = &p->job;
    const double cc = cc_of(gpu);
    if (gpu->vendor == GPUPLAN_VENDOR_NVIDIA && cc > 0.0) {
        if (cc < 8.0)
            WARNING(
                p,
                "FlashAttention 2 needs compute capability 8.0+; %s is %.1f: sdpa/eager attention, "
                "more activation memory",
                gpu->id, cc);
        if (cc >= 10.0)
            WARNING(p, "Blackwell (CC %.1f): CUDA 12.8+ and a PyTorch build for sm_%d0", cc,
                    (int)cc);
        else if (cc >= 9.0)
            WARNING(p, "Hopper: CUDA 12.4+ for the FP8/BF16 kernels");
    }
    const bool fp8 =
        job->method != GPUPLAN_METHOD_INFER && job->precision == GPUPLAN_PRECISION_FP8_MIXED;
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
/*
 * The standard stack (seed S13: PyTorch + PEFT + Accelerate/DeepSpeed/FSDP on CUDA,
 * bf16-mixed or the method's own recipe) or what the plan needs care with.
 */
void gpuplan_plan_maturity(const struct search *s, struct gpuplan_plan *p, uint32_t care)
{
    (void)s;
    const struct gpuplan_gpu *gpu = p->gpu;
    p->needs_care = care != 0;
    char *w = p->maturity;
    size_t left = sizeof p->maturity;
    const bool serving = p->job.method == GPUPLAN_METHOD_INFER;
    int len = snprintf(w, left, "%s",
                       care      ? GPUPLAN_TR("needs care:")
                       : serving ? GPUPLAN_TR("standard: the engine's CUDA build, BF16 or FP8 "
                                              "weights (FP8 on Hopper/Blackwell)")
                                 : GPUPLAN_TR("standard: PyTorch + PEFT + Accelerate/DeepSpeed/"
                                              "FSDP on CUDA"));
    const struct {
        uint32_t bit;
        const char *words;
    } parts[] = {
        { GPUPLAN_ALLOW_FP8,
          GPUPLAN_N_("FP8 training (Transformer Engine or torchao float8): validate the loss "
                     "against a bf16 run") },
        { GPUPLAN_ALLOW_ROCM,
          p->job.method == GPUPLAN_METHOD_QLORA
              ? GPUPLAN_N_("ROCm, not CUDA: PyTorch ROCm wheels, bitsandbytes' ROCm build for the "
                           "4-bit base")
              : GPUPLAN_N_("ROCm, not CUDA: PyTorch ROCm wheels, FlashAttention's ROCm port") },
        { GPUPLAN_ALLOW_GAUDI,
          GPUPLAN_N_("Gaudi, not CUDA: optimum-habana and the HPU PyTorch bridge") },
        { GPUPLAN_ALLOW_LEGACY,
          GPUPLAN_N_("before Ampere (compute capability below 8.0): fp16 with loss scaling, no "
                     "FlashAttention 2") },
        { GPUPLAN_ALLOW_GEFORCE,
          GPUPLAN_N_("GeForce in a server or a cloud: NVIDIA's GeForce driver licence forbids "
                     "datacenter deployment") },
    };
    for (size_t i = 0; i < sizeof parts / sizeof parts[0] && len >= 0 && (size_t)len < left; i++) {
        if (!(care & parts[i].bit))
            continue;
        w += len;
        left -= (size_t)len;
        len = snprintf(w, left, " %s;", GPUPLAN_TR(parts[i].words));
    }
    if (care && left > 1 && len >= 0 && (size_t)len < left && w[len - 1] == ';')
        w[len - 1] = '\0';
    /* the MI250X is two GCDs, each a device of half the memory, to the OS and the frameworks */
    if (strcmp(gpu->id, "mi250x") == 0)
        WARNING(p, "MI250X: the OS and PyTorch see two 64 GB GCDs per card, not one 128 GB device");
}

/* Does `job` still fit on this layout when `change` is applied? */
static bool fits_with(const struct search *s,
                      const struct gpuplan_plan *p,
                      void (*change)(struct gpuplan_job *),
                      struct gpuplan_memory_estimate *m)
{
    struct gpuplan_job job = p->job;
    change(&job);
    gpuplan_memory_eval(&s->mem, &job, p->gpu, m);
    return gpuplan_plan_headroom_ok(s->req, &job, m);
}
/*
 * Why an estimate `m` is no plan, in its own numbers: it does not fit (more than
 * usable), or it fits but leaves less than the --headroom share free.
 */
static const char *
misfit_words(const struct search *s, const struct gpuplan_memory_estimate *m, char *buf, size_t n)
{
    const double used = gpuplan_gib_from_bytes(m->per_gpu.device_total_bytes);
    const double usable = gpuplan_gib_from_bytes(m->gpu_usable_bytes);
    if (!m->fits)
        snprintf(buf, n, GPUPLAN_TR("does not fit: %.1f GiB per GPU of %.1f usable"), used, usable);
    else
        snprintf(buf, n,
                 GPUPLAN_TR("leaves less than the %.0f %% headroom: %.1f GiB per GPU of %.1f "
                            "usable (%.1f %% free)"),
                 100.0 * s->req->min_headroom_fraction, used, usable,
                 usable > 0 ? 100.0 * (usable - used) / usable : 0.0);
    return buf;
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
static void no_tp(struct gpuplan_job *j)
{
    j->tp = 1;
}
static void knob_reasons(const struct search *s, struct gpuplan_plan *p)
{
    const struct gpuplan_job *job = &p->job;
    const unsigned long long mb = (unsigned long long)job->micro_batch;
    struct gpuplan_memory_estimate m;
    char why[GPUPLAN_PLAN_TEXT_MAX];
    if (job->grad_ckpt != GPUPLAN_CKPT_NONE && !fits_with(s, p, no_ckpt, &m))
        REASON(p,
               "activation checkpointing (%s) made it fit: without it, at micro-batch %llu, it %s",
               gpuplan_grad_ckpt_name(job->grad_ckpt), mb, misfit_words(s, &m, why, sizeof why));
    if (job->offload != GPUPLAN_OFFLOAD_NONE && !fits_with(s, p, no_offload, &m))
        REASON(p, "offload (%s) made it fit: with the states on the GPU it %s",
               gpuplan_offload_name(job->offload), misfit_words(s, &m, why, sizeof why));
    if (job->method == GPUPLAN_METHOD_QLORA && !fits_with(s, p, as_lora, &m))
        REASON(p, "QLoRA's 4-bit base made it fit: 16-bit LoRA on the same GPUs %s",
               misfit_words(s, &m, why, sizeof why));
    if ((job->sharding >= GPUPLAN_SHARDING_ZERO1) && p->gpus_per_node * p->nodes > 1 &&
        !fits_with(s, p, no_sharding, &m))
        REASON(p, "sharding (%s) made it fit: a full replica per GPU (DDP) at micro-batch %llu %s",
               gpuplan_sharding_name(job->sharding), mb, misfit_words(s, &m, why, sizeof why));
    if (job->tp > 1) {
        if (!fits_with(s, p, no_tp, &m))
            REASON(p,
                   "tensor parallel %u with sequence parallelism splits weights and activations "
                   "%u ways: without it the layout %s",
                   job->tp, job->tp, misfit_words(s, &m, why, sizeof why));
        else
            REASON(p,
                   "tensor parallel %u (inside the server's %s) with sequence parallelism: "
                   "activations split %u ways",
                   job->tp, gpuplan_plan_link_words(p->gpu->link), job->tp);
    }
    if (job->pp > 1)
        REASON(p, "%u pipeline stages of %u layers each: the bubble costs time, memory splits",
               job->pp, s->model->has_arch ? s->model->arch.n_layers / job->pp : 0u);
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
/* The money a candidate stands for in the run's view, and its word. */
static double money_of(const struct search *s, const struct candidate *c, const char **unit)
{
    const struct layout *l = &s->layouts[c->layout];
    if (s->view == PLAN_VIEW_RENT) {
        *unit = GPUPLAN_TR("run");
        return c->rent_spend;
    }
    if (s->req->hours_per_day > 0.0 && s->req->job.tokens) {
        *unit = GPUPLAN_TR("own");
        return l->own_usd_per_hour * c->time_key;
    }
    *unit = GPUPLAN_TR("capex");
    return c->capex_key;
}
/*
 * Why this many GPUs, from the plans' own numbers: the best plan the search kept
 * on half as many of this GPU (then what ranked this one first), or why half
 * is no plan (does not fit even at micro-batch 1 with full checkpointing, or
 * leaves less than the headroom, or fits but meets no constraint).
 */
static void count_reason(const struct search *s, struct gpuplan_plan *p)
{
    const uint32_t n = p->gpus_per_node * p->nodes;
    if (n < 2)
        return;
    const uint32_t half = n / 2;
    /* for a plan that is no compromise, half as many without one first: "only with CPU
     * offload" is said only when no such plan exists (a layout's best may offload while its
     * best without offload still does it) */
    const struct candidate *best = NULL;
    for (int pass = p->compromise ? 1 : 0; pass < 2 && !best; pass++)
        for (size_t i = 0; i < s->n_layouts; i++) {
            const struct layout *l = &s->layouts[i];
            const struct candidate *c = pass == 0 ? &s->best_plain[i] : &s->best[i];
            if (c->valid && l->gpu == p->gpu && l->gpus_per_node * l->nodes == half &&
                (!best || gpuplan_plan_better(s, c, best)))
                best = c;
        }
    if (best) {
        const char *unit = "";
        const double money = money_of(s, best, &unit);
        const struct gpuplan_job *j = &p->job;
        if (best->compromise && !p->compromise)
            REASON(p,
                   "%u GPUs, not %u: %u do it only with CPU offload (%.3g h), and offload ranks "
                   "after plans without",
                   n, half, half, best->time_key);
        else if (best->may_not_fit && p->range_verdict == GPUPLAN_VERDICT_FITS &&
                 s->req->job.tokens && isfinite(money))
            REASON(p,
                   "%u GPUs, not %u: %u also do it (%.3g h, %s $%.0f) but may not fit: the top "
                   "of their memory range is %.1f GiB over, so they rank after plans whose range "
                   "fits",
                   n, half, half, best->time_key, unit, money,
                   gpuplan_gib_from_bytes(
                       (uint64_t)(best->range_over_bytes > 0 ? best->range_over_bytes : 0)));
        else if (s->req->job.tokens && isfinite(money))
            REASON(p,
                   "%u GPUs, not %u: %u also do it (%.3g h, %s $%.0f) and rank after this "
                   "(%.3g h) by the objective",
                   n, half, half, best->time_key, unit, money, p->time_hours);
        else
            REASON(p, "%u GPUs, not %u: %u also do it (%.0f tokens/s) and rank after this (%.0f)",
                   n, half, half, best->tokens_per_s, p->tokens_per_s);
        (void)j;
        return;
    }
    /* half as many is no layout of this GPU: the platform is sold (or rented) in this size */
    bool offered = false;
    for (size_t i = 0; i < s->n_layouts && !offered; i++) {
        const struct layout *l = &s->layouts[i];
        offered = l->gpu == p->gpu && l->gpus_per_node * l->nodes == half;
    }
    if (!offered) {
        REASON(p, "%u GPUs: %s comes with %u per server, and %u is no offer here", n,
               p->server.platform_id[0] ? p->server.platform_id : p->gpu->id, p->gpus_per_node,
               half);
        return;
    }
    struct gpuplan_job job = p->job;
    if (job.nodes > 1)
        job.nodes /= 2;
    else
        job.gpus_per_node /= 2;
    if (half == 1) {
        job.sharding = job.offload == GPUPLAN_OFFLOAD_NONE ? GPUPLAN_SHARDING_NONE : job.sharding;
        job.tp = job.pp = 1;
    } else if (job.sharding == GPUPLAN_SHARDING_FSDP_HYBRID && job.nodes == 1) {
        job.sharding = GPUPLAN_SHARDING_FSDP;
    }
    if ((uint64_t)job.tp * job.pp > half || half % (job.tp * job.pp) != 0)
        job.pp = half / job.tp ? half / job.tp : 1;
    if ((uint64_t)job.tp * job.pp > half)
        job.tp = job.pp = 1;
    /* the lightest memory on half: micro-batch 1, full checkpointing */
    job.micro_batch = 1;
    job.grad_ckpt = GPUPLAN_CKPT_FULL;
    struct gpuplan_memory_estimate m;
    gpuplan_memory_eval(&s->mem, &job, p->gpu, &m);
    char why[GPUPLAN_PLAN_TEXT_MAX];
    if (gpuplan_plan_headroom_ok(s->req, &job, &m))
        REASON(p,
               "%u GPUs, not %u: %u fit at micro-batch 1 with full checkpointing (%.1f GiB per "
               "GPU) but meet no constraint (deadline, budget, run length, what the server holds)",
               n, half, half, gpuplan_gib_from_bytes(m.per_gpu.device_total_bytes));
    else
        REASON(p, "%u GPUs because on %u (%s, micro-batch 1, full checkpointing) the job %s", n,
               half, gpuplan_sharding_name(job.sharding), misfit_words(s, &m, why, sizeof why));
}
static void
layout_reasons(const struct search *s, struct gpuplan_plan *p, const struct gpuplan_throughput *t)
{
    const struct gpuplan_job *job = &p->job;
    const uint32_t n = p->gpus_per_node * p->nodes;
    const double used = gpuplan_gib_from_bytes(p->memory_per_gpu_bytes);
    const double usable = gpuplan_gib_from_bytes(p->usable_bytes);
    const double headroom_pct = usable > 0 ? 100.0 * (usable - used) / usable : 0.0;
    if (p->has_range)
        REASON(p,
               "%u x %s: %.1f GiB per GPU of %.1f GiB usable (%.0f %% headroom; 80 %% range "
               "%.1f-%.1f GiB)",
               n, p->gpu->id, used, usable, headroom_pct,
               gpuplan_gib_from_bytes(p->memory_low_bytes),
               gpuplan_gib_from_bytes(p->memory_high_bytes));
    else
        REASON(p, "%u x %s: %.1f GiB per GPU of %.1f GiB usable (%.0f %% headroom)", n, p->gpu->id,
               used, usable, headroom_pct);
    if (p->has_range && p->range_verdict != GPUPLAN_VERDICT_FITS)
        WARNING(p,
                "MAY NOT FIT: the top of the 80 %% memory range, %.1f GiB per GPU, is %.1f GiB "
                "over the %.1f GiB usable: ranked after the plans whose whole range fits",
                gpuplan_gib_from_bytes(p->memory_high_bytes),
                gpuplan_gib_from_bytes((uint64_t)p->range_over_bytes), usable);
    count_reason(s, p);
    REASON(p, "%s", sharding_words(job->sharding));
    REASON(p, "bottleneck: %s, MFU %.0f %%", p->bottleneck, 100.0 * p->mfu);
    if (p->gpus_per_node > 1 && t->step_time_s > 0.0) {
        const double share = t->comm_total_s / t->step_time_s;
        if (gpuplan_plan_has_fabric(p->gpu->link))
            REASON(p, "%s carries the collectives: %.0f %% of the step before overlap",
                   gpuplan_plan_link_words(p->gpu->link), 100.0 * share);
        else if (share > COMM_SHARE_WORTH_NOTING)
            WARNING(
                p,
                "PCIe only: collectives are %.0f %% of the step; an NVLink (SXM) server cuts this",
                100.0 * share);
        else
            REASON(p, "NVLink not needed: collectives are %.0f %% of the step over PCIe",
                   100.0 * share);
    }
    if (p->nodes > 1 && t->step_time_s > 0.0 &&
        t->comm_s / t->step_time_s > COMM_SHARE_WORTH_NOTING)
        WARNING(p, "multi-node: exposed communication is %.0f %% of the step over '%s'",
                100.0 * t->comm_s / t->step_time_s, p->server.network);
    if (t->offload_s > 0.0 && t->step_time_s > 0.0)
        WARNING(p, "offload: PCIe traffic and the CPU optimizer step take %.0f %% of the step",
                100.0 * t->offload_s / t->step_time_s);
    if (!p->has_cloud_rate)
        WARNING(p, "no cloud rate for '%s' in the catalog: pass a price to rank by cost",
                p->gpu->id);
}
/*
 * The time-vs-cost trade-off in words: the fastest feasible plan whose cost is
 * within SIMILAR_COST_FRACTION of the cheapest (among plans of the same kind as
 * the top one: with or without a compromise, its memory range fitting or not), when it
 * is faster than the top plan.
 * The Pareto set holds it: nothing cheaper is faster.
 */
static void tradeoff_note(const struct search *s, struct gpuplan_plan_result *out)
{
    if (out->n_top == 0 || s->req->objective != GPUPLAN_OBJECTIVE_COST || !s->top0.valid)
        return;
    size_t n_set = 0;
    const struct candidate *set = gpuplan_plan_pareto_set(s, &n_set);
    double cheapest = INFINITY;
    for (size_t i = 0; i < n_set; i++) {
        if (set[i].cost_key < cheapest)
            cheapest = set[i].cost_key;
    }
    const struct candidate *fast = NULL;
    for (size_t i = 0; i < n_set; i++) {
        const struct candidate *c = &set[i];
        if (c->cost_key <= cheapest * (1.0 + SIMILAR_COST_FRACTION) &&
            (!fast || c->time_key < fast->time_key))
            fast = c;
    }
    if (!fast || !(fast->time_key < s->top0.time_key * (1.0 - TIE_FRACTION)) ||
        !isfinite(cheapest) || !(cheapest > 0.0))
        return;
    const struct layout *l = &s->layouts[fast->layout];
    const double more = fmax(0.0, 100.0 * (fast->cost_key / s->top0.cost_key - 1.0));
    if (s->req->job.tokens)
        NOTE(out,
             "fastest within 10 %% of the cheapest cost: %u x %s (%ux%u), %.3g h instead of "
             "%.3g h, %.0f %% more cost",
             l->gpus_per_node * l->nodes, l->gpu->id, l->nodes, l->gpus_per_node, fast->time_key,
             s->top0.time_key, more);
    else
        NOTE(out,
             "fastest within 10 %% of the cheapest cost: %u x %s (%ux%u), %.0f instead of %.0f "
             "tokens/s, %.0f %% more cost per token",
             l->gpus_per_node * l->nodes, l->gpu->id, l->nodes, l->gpus_per_node,
             fast->tokens_per_s, s->top0.tokens_per_s, more);
}
/* Why there is no plan, and what was dropped for what. */
static void dropped_notes(const struct search *s, struct gpuplan_plan_result *out)
{
    const struct gpuplan_plan_request *req = s->req;
    gpuplan_plan_beyond_max_note(s, out);
    const bool none_tried = s->evaluated == 0 && s->beyond_max_gpu; /* the note above: why */
    if (out->n_top == 0 && s->fitting == 0 && !none_tried)
        NOTE(out,
             "nothing fits with %.0f %% headroom in up to %u GPUs: raise --max-gpus, allow "
             "qlora, or a shorter --seq-len",
             100.0 * req->min_headroom_fraction, req->max_gpus);
    else if (out->n_top == 0 && !none_tried)
        NOTE(out,
             "%llu candidates fit but none meets the constraints (deadline, budget, prices, "
             "what the server holds)",
             (unsigned long long)s->fitting);
    if (s->over_ram + s->over_cores + s->over_nvme)
        NOTE(out,
             "%llu fitting candidates rejected because the server cannot hold them: host RAM "
             "%llu, CPU cores %llu, NVMe %llu",
             (unsigned long long)(s->over_ram + s->over_cores + s->over_nvme),
             (unsigned long long)s->over_ram, (unsigned long long)s->over_cores,
             (unsigned long long)s->over_nvme);
    if (s->network_bound)
        NOTE(out,
             "%llu multi-server candidates dropped: more than 4/5 of each step waits on the "
             "network",
             (unsigned long long)s->network_bound);
    if (s->n_no_price)
        NOTE(out, "%llu fitting candidates dropped: no purchase price in the catalog",
             (unsigned long long)s->n_no_price);
    if (s->n_no_rate)
        NOTE(out, "%llu fitting candidates dropped: no cloud rate in the catalog",
             (unsigned long long)s->n_no_rate);
    if (s->too_long)
        NOTE(out,
             "%llu candidates run longer than --max-run-days %.0f (%.0f h) and are not "
             "recommended: give --deadline-hours to accept a longer run",
             (unsigned long long)s->too_long, req->max_run_days,
             req->max_run_days * GPUPLAN_HOURS_PER_DAY);
}

/* Beyond the standard stack: what was left out, and what allowing it would give. */
static void care_note(const struct search *s, struct gpuplan_plan_result *out)
{
    if (!s->n_care)
        return;
    const struct candidate *c = &s->best_care;
    const uint32_t need = c->care & ~s->allow;
    char flags[64] = "";
    const char *names[] = { "fp8", "rocm", "gaudi", "geforce", "legacy" };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (need & (1u << i)) {
            const size_t at = strlen(flags);
            snprintf(flags + at, sizeof flags - at, "%s%s", at ? "," : "", names[i]);
        }
    }
    if (!c->valid || out->n_top == 0 || !gpuplan_plan_keys_better(s, c, &s->top0)) {
        NOTE(out,
             "%llu candidates beyond the standard stack left out (FP8 training, ROCm, Gaudi, "
             "GeForce in a server, pre-Ampere): --allow to include them",
             (unsigned long long)s->n_care);
        return;
    }
    const struct layout *l = &s->layouts[c->layout];
    const double ratio = s->top0.cost_key > 0 ? c->cost_key / s->top0.cost_key : 1.0;
    if (isfinite(ratio) && s->req->objective == GPUPLAN_OBJECTIVE_COST && ratio < 1.0)
        NOTE(out,
             "beyond the standard stack, --allow %s would rank first: %u x %s at %.0f %% less "
             "cost (%.3g h)",
             flags, l->gpus_per_node * l->nodes, l->gpu->id, 100.0 * (1.0 - ratio), c->time_key);
    else
        NOTE(out, "beyond the standard stack, --allow %s would rank first: %u x %s (%.3g h)", flags,
             l->gpus_per_node * l->nodes, l->gpu->id, c->time_key);
}

/*
 * Nothing meets the constraints: the single changes that would make it feasible,
 * from the nearest misses (cheapest that meets the deadline, fastest within the
 * budget) and what was left out.
 */
static void feasibility_notes(const struct search *s, struct gpuplan_plan_result *out)
{
    const struct gpuplan_plan_request *req = s->req;
    if (out->n_top > 0 || s->fitting == 0)
        return;
    const bool buy = s->view == PLAN_VIEW_BUY;
    if (s->miss_cheap.valid && req->budget_usd > 0.0) {
        const struct layout *l = &s->layouts[s->miss_cheap.layout];
        const double spend = buy ? s->miss_cheap.capex_key : s->miss_cheap.rent_spend;
        NOTE(out,
             "change: --budget %.0f (%s) admits the cheapest plan that meets the time: %u x %s",
             ceil(spend), buy ? GPUPLAN_TR("capex") : GPUPLAN_TR("the cloud run"),
             l->gpus_per_node * l->nodes, l->gpu->id);
    }
    if (s->miss_fast.valid) {
        const struct layout *l = &s->layouts[s->miss_fast.layout];
        const double h = ceil(s->miss_fast.time_key);
        if (req->deadline_hours > 0.0 && req->budget_usd > 0.0)
            NOTE(out, "change: --deadline-hours %.0f: the fastest plan within the budget, %u x %s",
                 h, l->gpus_per_node * l->nodes, l->gpu->id);
        else if (req->deadline_hours > 0.0)
            NOTE(out, "change: --deadline-hours %.0f: the fastest plan, %u x %s", h,
                 l->gpus_per_node * l->nodes, l->gpu->id);
        else
            NOTE(out,
                 "change: --max-run-days %.0f (or --deadline-hours %.0f): the fastest plan within "
                 "the budget, %u x %s, runs %.0f days",
                 ceil(h / GPUPLAN_HOURS_PER_DAY), h, l->gpus_per_node * l->nodes, l->gpu->id,
                 h / GPUPLAN_HOURS_PER_DAY);
    }
    if (s->n_care && s->best_care.valid)
        NOTE(out, "%s",
             GPUPLAN_TR("change: --allow (see above) admits plans beyond the standard stack"));
}

/* What the cost objective ranked by. */
static void basis_note(const struct search *s, struct gpuplan_plan_result *out)
{
    const struct gpuplan_plan_request *req = s->req;
    if (req->objective != GPUPLAN_OBJECTIVE_COST || out->n_top == 0)
        return;
    const bool own = req->where == GPUPLAN_WHERE_ON_PREM && req->hours_per_day > 0.0;
    if (req->where == GPUPLAN_WHERE_ON_PREM && !own)
        NOTE(out, "%s",
             GPUPLAN_TR("buying: ranked by capex, the cheapest server that meets the constraints "
                        "(time shown); --hours-per-day H ranks by the own cost of the run at that "
                        "use (TCO)"));
    else if (!req->job.tokens)
        NOTE(out, "%s",
             own ? GPUPLAN_TR("no --tokens, so no run time: ranked by own USD per "
                              "million tokens (TCO defaults as in 'gpuplan tco')")
                 : GPUPLAN_TR("no --tokens, so no run time: ranked by cloud USD per "
                              "million tokens"));
    else if (own)
        NOTE(out,
             "on-prem cost is the run's share of owning the servers at %.3g h/day of use: "
             "depreciation, power, maintenance and colocation (TCO as in 'gpuplan tco') per hour "
             "of use x run hours",
             req->hours_per_day);
}

/* Offload ranks after the rest: say when that decided. */
static void compromise_note(const struct search *s, struct gpuplan_plan_result *out)
{
    if (out->n_top == 0)
        return;
    /* the plans without offload that rank after: slower, or (the top plan's range fitting)
     * all of them may not fit */
    const bool top_fits = !s->top0.may_not_fit;
    if (out->top[0].compromise && (s->any_plain_fit || (s->any_plain && !top_fits)))
        NOTE(out, "offload ranks first here: every plan without it that meets the constraints is "
                  "slower");
    else if (out->top[0].compromise && s->any_plain)
        NOTE(out, "offload ranks first here: every plan without it that meets the constraints "
                  "MAY NOT FIT (the top of its 80 %% memory range is over the usable memory)");
    else if (out->top[0].compromise)
        NOTE(out, "%s",
             GPUPLAN_TR("only offload meets the constraints: it is slow; without it "
                        "the job needs more GPU memory (more GPUs, qlora, or budget)"));
    else if (gpuplan_plan_keys_better(s, &s->best_compromise, &s->top0))
        NOTE(out, "%s",
             GPUPLAN_TR("offload plans rank after plans without (offload is slow); "
                        "pass --offload to rank by the objective alone"));
}

/*
 * Plans whose memory range may not fit rank after those whose range fits: say when that
 * decided the top plan, or when no plan's whole range fits.
 */
static void range_note(const struct search *s, struct gpuplan_plan_result *out)
{
    if (out->n_top == 0)
        return;
    if (s->top0.may_not_fit) {
        NOTE(out, "no plan's whole 80 %% memory range fits: every plan listed MAY NOT FIT "
                  "(each warns by how much); more GPUs, a smaller micro-batch or more "
                  "checkpointing give the margin");
        return;
    }
    const struct candidate *b = &s->best_may_not_fit;
    if (!b->valid || !gpuplan_plan_better_in_tier(s, b, &s->top0))
        return;
    const struct layout *l = &s->layouts[b->layout];
    /* the knobs that tell it from a listed plan of the same GPUs: sharding, TP/PP, checkpointing */
    char knobs[64] = "";
    if (b->tp > 1 || b->pp > 1)
        (void)snprintf(knobs, sizeof knobs, " tp%u pp%u", (unsigned)b->tp, (unsigned)b->pp);
    NOTE(out,
         "ranked by the memory range: %u x %s (%s%s, ckpt %s) at micro-batch %llu ranks first by "
         "the objective but MAY NOT FIT (the top of its 80 %% range is %.1f GiB over the usable "
         "memory), so it ranks after the plans whose whole range fits",
         l->gpus_per_node * l->nodes, l->gpu->id,
         gpuplan_sharding_name((enum gpuplan_sharding)b->sharding), knobs,
         gpuplan_grad_ckpt_name((enum gpuplan_grad_ckpt)b->ckpt),
         (unsigned long long)b->micro_batch, gpuplan_gib_from_bytes((uint64_t)b->range_over_bytes));
}

/* S14: a single GPU that does the job is a prototype (only when it needs no offload). */
static void prototype_note(const struct search *s, struct gpuplan_plan_result *out)
{
    if (out->n_top == 0 || !s->best_single.valid || s->best_single.compromise ||
        s->best_single.may_not_fit || out->top[0].gpus_per_node * out->top[0].nodes <= 1)
        return;
    const struct layout *l = &s->layouts[s->best_single.layout];
    const char *method = gpuplan_method_name((enum gpuplan_method)s->best_single.method);
    if (s->req->job.tokens)
        NOTE(out,
             "a single %s also does it (%s, %.1f h): enough for a prototype before "
             "buying a cluster",
             l->gpu->id, method, s->best_single.time_key);
    else
        NOTE(out,
             "a single %s also does it (%s, %.0f tokens/s): enough for a prototype "
             "before buying a cluster",
             l->gpu->id, method, s->best_single.tokens_per_s);
}

void gpuplan_plan_run_notes(const struct search *s, struct gpuplan_plan_result *out)
{
    dropped_notes(s, out);
    care_note(s, out);
    feasibility_notes(s, out);
    basis_note(s, out);
    compromise_note(s, out);
    range_note(s, out);
    tradeoff_note(s, out);
    prototype_note(s, out);
}

void gpuplan_plan_explain(const struct search *s,
                          struct gpuplan_plan *p,
                          const struct gpuplan_throughput *t)
{
    layout_reasons(s, p, t);
    knob_reasons(s, p);
    gpuplan_plan_compat_warnings(s, p);
}
