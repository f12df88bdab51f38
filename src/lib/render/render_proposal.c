/*
 * render_proposal.c - the customer proposal (`gpuplan propose`, POST
 * /v1/propose): one document, HTML or Markdown, built with doc.c from a
 * plan result, with the charts of svg_chart.c.
 *
 * Page one: the customer's job and constraints, the recommended server as a
 * bill of materials (every line priced from the catalog record the planner
 * used, with its date) and its power. Then the time and cost of the run, the
 * alternatives (the best plan of each other GPU type, side by side), the
 * pictures (memory per GPU, time vs cost, own vs cloud cost), the maturity
 * and risks of the stack (the planner's warnings and notes), the launch
 * configuration (the emitters of emit*.c) and where every number comes from.
 *
 * Two figures are evaluated here rather than read off the result, both with
 * the models the planner itself ran: the memory breakdown of each plan shown
 * (gpuplan_estimate_memory on the plan's job and GPU: the planner keeps only
 * the total) and the TCO of the recommended server (gpuplan_tco_compute with
 * `gpuplan tco`'s defaults, as the planner's own cost does). Every word goes
 * through GPUPLAN_TR: the document is in the language the front-end chose.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/catalog.h"
#include "gpuplan/cost.h"
#include "gpuplan/dtype.h"
#include "gpuplan/estimate.h"
#include "gpuplan/model.h"
#include "gpuplan/plan.h"
#include "gpuplan/render.h"
#include "gpuplan/units.h"
#include "render/doc_internal.h"
#include "render/render_internal.h"
#include "render/svg_internal.h"
#include "util/i18n_internal.h"
#include "util/json_internal.h"

/* Alternatives shown beside the recommendation: one per other GPU type, at most five (the
 * side-by-side table then has six rows, which fits one printed page with the charts' captions). */
#define PROPOSAL_MAX_ALTS  5
#define PROPOSAL_MAX_SHOWN (1 + PROPOSAL_MAX_ALTS)
/* Launch configurations shown: the engines the plan runs on as planned, at most three. */
#define PROPOSAL_MAX_LAUNCH 3
/* Bytes of one table cell or fact (the longest, a price source and a rate source: 256 + 64 + 256 +
 * 511). */
#define CELL_MAX 1200
/* Columns of the alternatives table. */
#define ALT_COLUMNS 9
/* Rows of the sources table: GPUs shown, the platform, the model, the cost inputs, the models. */
#define SOURCE_ROWS    (PROPOSAL_MAX_SHOWN + 4 + GPUPLAN_COST_INPUT_COUNT)
#define SOURCE_COLUMNS 4
/* Facts of the job section. */
#define JOB_FACTS 16

typedef char cell_t[CELL_MAX];

/* The charts, as the JSON names them. */
enum chart_slot {
    CHART_MEMORY,
    CHART_TIME_COST,
    CHART_BUY_RENT,
    CHART_TPOT,
    CHART_TTFT,
    CHART_COUNT
};
static const char *const chart_keys[CHART_COUNT] = { "memory", "time_cost", "buy_rent", "tpot",
                                                     "ttft" };

/* What the document shows, gathered before anything is written. */
struct proposal {
    const struct gpuplan_plan_result *result;
    const struct gpuplan_catalog *catalog;
    const struct gpuplan_model *model;
    const struct gpuplan_plan *shown[PROPOSAL_MAX_SHOWN]; /* [0] the recommendation */
    size_t n_shown;
    bool alts_cut; /* other GPU types met the constraints beyond --top */
    bool has_memory[PROPOSAL_MAX_SHOWN];
    struct gpuplan_memory_per_gpu memory[PROPOSAL_MAX_SHOWN];
    uint64_t usable_bytes[PROPOSAL_MAX_SHOWN];
    bool has_range[PROPOSAL_MAX_SHOWN]; /* the device total's 80 % range (training) */
    uint64_t range_low_bytes[PROPOSAL_MAX_SHOWN], range_high_bytes[PROPOSAL_MAX_SHOWN];
    bool has_inputs; /* cost inputs of the recommended server */
    struct gpuplan_cost_inputs inputs;
    bool has_tco;
    bool tco_has_cloud; /* the catalog has a cloud rate: the rent line is drawn */
    struct gpuplan_tco *tco;
    /* the text of every cell and fact, here so that concurrent calls share nothing */
    cell_t job_v[JOB_FACTS];
    cell_t bom_d[8], bom_fv[6];
    cell_t run_v[10];
    cell_t alt[PROPOSAL_MAX_SHOWN][ALT_COLUMNS];
    const char *alt_ptrs[PROPOSAL_MAX_SHOWN * ALT_COLUMNS];
    cell_t mem_labels[PROPOSAL_MAX_SHOWN];
    cell_t pt_labels[GPUPLAN_PLAN_MAX_TOP + GPUPLAN_PLAN_MAX_PARETO];
    cell_t line;
    /* serving: the recommended replica's latency-throughput curve (both latency charts) */
    struct gpuplan_plan_curve_point curve[GPUPLAN_PLAN_CURVE_MAX];
    size_t n_curve;
    cell_t curve_label;
    char curve_point_labels[GPUPLAN_PLAN_CURVE_MAX][32];
    cell_t src[SOURCE_ROWS][SOURCE_COLUMNS];
    const char *src_ptrs[SOURCE_ROWS * SOURCE_COLUMNS];
    /* --format json (the page's pictures): the charts alone, each with its own style */
    bool charts_only;
    double width_px;
    enum gpuplan_status sink_status; /* the first failure of opts->chart_sink, */
    struct gpuplan_error sink_err;   /* and what it said */
    const char *md_prefix;           /* before the Markdown's image files ("" none) */
    bool md_links;                   /* the caller writes them (chart_sink): link them */
    bool own_style; /* each <svg> with its <style>: charts alone, or files beside md */
    const struct gpuplan_proposal_options *opts;
    struct gpuplan_buf charts[CHART_COUNT];
};

/* ---- words and numbers ---- */

/* A precision as people name it ("BF16 mixed (FP32 master weights)"), translated. */
static const char *precision_words(enum gpuplan_precision p)
{
    switch (p) {
    case GPUPLAN_PRECISION_BF16:
        return GPUPLAN_TR("BF16 (weights, gradients and optimizer states)");
    case GPUPLAN_PRECISION_BF16_MIXED:
        return GPUPLAN_TR("BF16 mixed (FP32 master weights)");
    case GPUPLAN_PRECISION_FP16_MIXED:
        return GPUPLAN_TR("FP16 mixed (FP32 master weights, loss scaling)");
    case GPUPLAN_PRECISION_FP32:
        return "FP32";
    case GPUPLAN_PRECISION_FP8_MIXED:
        return GPUPLAN_TR("FP8 matmuls (BF16 weights, FP32 master)");
    case GPUPLAN_PRECISION_AMP_BF16:
        return GPUPLAN_TR("BF16 autocast (FP32 weights)");
    default:
        return gpuplan_precision_name(p);
    }
}

/* A storage format as people write it: "FP8 E4M3", "NF4", "BF16" (not F8_E4M3). */
static void dtype_words(char *dst, size_t size, enum gpuplan_dtype d)
{
    switch (d) {
    case GPUPLAN_DTYPE_F32:
        snprintf(dst, size, "FP32");
        return;
    case GPUPLAN_DTYPE_F16:
        snprintf(dst, size, "FP16");
        return;
    case GPUPLAN_DTYPE_F8_E4M3:
        snprintf(dst, size, "FP8 E4M3");
        return;
    case GPUPLAN_DTYPE_F8_E5M2:
        snprintf(dst, size, "FP8 E5M2");
        return;
    case GPUPLAN_DTYPE_NF4_DQ:
        snprintf(dst, size, "%s", GPUPLAN_TR("NF4, double-quantised"));
        return;
    default:
        break;
    }
    const char *name = gpuplan_dtype_name(d);
    size_t i = 0;
    for (; name[i] && i + 1 < size; i++)
        dst[i] = name[i] == '_' ? ' ' : name[i];
    dst[i] = '\0';
}

/* What the plan trains or serves with: "QLoRA, NF4 base, BF16 mixed" / "FP8 E4M3 weights". */
static void method_words(char *dst, size_t size, const struct gpuplan_plan *p)
{
    char a[64], b[64];
    if (p->is_serving) {
        const enum gpuplan_dtype w = p->serving.weights_dtype;
        if (w == GPUPLAN_DTYPE_UNKNOWN)
            snprintf(a, sizeof a, "%s", GPUPLAN_TR("as stored"));
        else
            dtype_words(a, sizeof a, w);
        dtype_words(b, sizeof b, p->serving.kv_element);
        snprintf(dst, size, GPUPLAN_TR("serving: weights %s, KV cache %s"), a, b);
        return;
    }
    switch (p->job.method) {
    case GPUPLAN_METHOD_QLORA:
        dtype_words(a, sizeof a, p->job.quant);
        snprintf(dst, size, GPUPLAN_TR("QLoRA rank %u (%s base), %s"), p->job.lora_rank, a,
                 precision_words(p->job.precision));
        return;
    case GPUPLAN_METHOD_LORA:
        snprintf(dst, size, GPUPLAN_TR("LoRA rank %u, %s"), p->job.lora_rank,
                 precision_words(p->job.precision));
        return;
    default:
        snprintf(dst, size, GPUPLAN_TR("full fine-tuning, %s"), precision_words(p->job.precision));
        return;
    }
}

/* What bounds a step, in words (the time models' static names: throughput.c, plan_serve.c). */
static const char *bound_words(const char *name)
{
    static const char *const words[][2] = {
        { "compute", GPUPLAN_N_("compute") },
        { "memory_bandwidth", GPUPLAN_N_("memory bandwidth") },
        { "communication", GPUPLAN_N_("communication between GPUs") },
        { "offload", GPUPLAN_N_("offload traffic to the host") },
        { "weights", GPUPLAN_N_("reading the weights") },
        { "kv", GPUPLAN_N_("reading the KV cache") },
        { "allreduce", GPUPLAN_N_("all-reduce between GPUs") },
        { "per-layer", GPUPLAN_N_("per-layer overhead") },
        { "moe", GPUPLAN_N_("expert routing") },
        { "pipeline", GPUPLAN_N_("pipeline bubbles") },
    };
    for (size_t i = 0; name && i < sizeof words / sizeof words[0]; i++)
        if (strcmp(name, words[i][0]) == 0)
            return GPUPLAN_TR(words[i][1]);
    return name && name[0] ? name : "?";
}

/* Where an offload puts what, in words. */
static const char *offload_words(enum gpuplan_offload o)
{
    switch (o) {
    case GPUPLAN_OFFLOAD_OPTIMIZER:
        return GPUPLAN_TR("optimizer states in CPU RAM");
    case GPUPLAN_OFFLOAD_PARAMS:
        return GPUPLAN_TR("parameters in CPU RAM");
    case GPUPLAN_OFFLOAD_OPTIMIZER_PARAMS:
        return GPUPLAN_TR("optimizer states and parameters in CPU RAM");
    case GPUPLAN_OFFLOAD_NVME:
        return GPUPLAN_TR("optimizer states and parameters on NVMe");
    default:
        return "";
    }
}

/* "8 × gaudi3" / "2 × 8 × h100-sxm" (servers × GPUs each). */
static void layout_words(char *dst, size_t size, const struct gpuplan_plan *p)
{
    if (p->nodes > 1)
        snprintf(dst, size, "%u \xC3\x97 %u \xC3\x97 %s", p->nodes, p->gpus_per_node, p->gpu->id);
    else
        snprintf(dst, size, "%u \xC3\x97 %s", p->gpus_per_node, p->gpu->id);
}

/* The sharding and parallelism of a plan: "DDP", "FSDP", "TP 4 × PP 2". */
static void parallel_words(char *dst, size_t size, const struct gpuplan_plan *p)
{
    if (p->is_serving) {
        snprintf(dst, size, "TP %u \xC2\xB7 PP %u \xC2\xB7 EP %u", p->serving.tp, p->serving.pp,
                 p->serving.ep);
        return;
    }
    static const char *const names[GPUPLAN_SHARDING_COUNT] = {
        [GPUPLAN_SHARDING_NONE] = "1 GPU",
        [GPUPLAN_SHARDING_DDP] = "DDP",
        [GPUPLAN_SHARDING_ZERO1] = "ZeRO-1",
        [GPUPLAN_SHARDING_ZERO2] = "ZeRO-2",
        [GPUPLAN_SHARDING_ZERO3] = "ZeRO-3",
        [GPUPLAN_SHARDING_FSDP] = "FSDP",
        [GPUPLAN_SHARDING_FSDP_HYBRID] = "FSDP hybrid",
    };
    const unsigned s = (unsigned)p->job.sharding;
    snprintf(dst, size, "%s", s < GPUPLAN_SHARDING_COUNT && names[s] ? names[s] : "?");
    if (p->job.offload != GPUPLAN_OFFLOAD_NONE) {
        const size_t n = strlen(dst);
        snprintf(dst + n, size - n, ", %s", offload_words(p->job.offload));
    }
}

/* Append " (note)" to a cell. */
static void append(char *cell, const char *note)
{
    const size_t n = strlen(cell);
    snprintf(cell + n, CELL_MAX - n, " (%s)", note);
}

/* The GPU-to-GPU link of the plan's servers in words (plan_server.c's three forms). */
static void interconnect_words(char *dst, size_t size, const struct gpuplan_plan *p)
{
    const char *text = p->server.interconnect;
    const char *comma = strrchr(text, ',');
    if (p->gpus_per_node <= 1) {
        snprintf(dst, size, "%s", GPUPLAN_TR("none needed (1 GPU per server)"));
    } else if (strncmp(text, "PCIe Gen", 8) == 0) {
        snprintf(dst, size, GPUPLAN_TR("PCIe Gen%u only (no GPU-to-GPU fabric)"), p->gpu->pcie_gen);
    } else if (comma) {
        char link[sizeof p->server.interconnect];
        const size_t n = (size_t)(comma - text);
        memcpy(link, text, n);
        link[n] = '\0';
        snprintf(dst, size, GPUPLAN_TR("%s, %.0f GB/s per GPU"), link, p->gpu->link_gb_per_s);
    } else {
        snprintf(dst, size, "%s", text);
    }
}

/* Bytes as "512 GiB" (binary, whole) or "3.84 TB" (decimal, drives). */
static void gib_words(char *dst, size_t size, uint64_t bytes)
{
    snprintf(dst, size, "%.0f GiB", gpuplan_gib_from_bytes(bytes));
}
static void tb_words(char *dst, size_t size, uint64_t bytes)
{
    snprintf(dst, size, "%.2f TB", (double)bytes / 1e12);
}
static void kw_words(char *dst, size_t size, double w)
{
    snprintf(dst, size, "%.1f kW", w / 1000.0);
}
static void usd_words(char *dst, size_t size, double usd)
{
    gpuplan_format_usd(dst, size, usd);
}

/* ---- gathering ---- */

/* The plans shown: the recommendation, then the first plan of each other GPU type. */
static void pick_shown(struct proposal *pr, uint32_t max_plans)
{
    const struct gpuplan_plan_result *r = pr->result;
    const size_t cap =
        max_plans == 0 || max_plans > PROPOSAL_MAX_SHOWN ? PROPOSAL_MAX_SHOWN : max_plans;
    pr->n_shown = 0;
    if (r->n_top == 0)
        return;
    pr->shown[pr->n_shown++] = &r->top[0];
    const struct gpuplan_plan *lists[2] = { r->top, r->pareto };
    const size_t counts[2] = { r->n_top, r->n_pareto };
    for (size_t l = 0; l < 2; l++) {
        for (size_t i = 0; i < counts[l] && pr->n_shown < cap; i++) {
            const struct gpuplan_plan *p = &lists[l][i];
            bool seen = false;
            for (size_t k = 0; k < pr->n_shown && !seen; k++)
                seen = pr->shown[k]->gpu == p->gpu;
            if (!seen)
                pr->shown[pr->n_shown++] = p;
        }
    }
    /* more GPU types than --top leaves room for: the document says so, not "no other" */
    for (size_t l = 0; l < 2 && pr->n_shown == cap; l++)
        for (size_t i = 0; i < counts[l] && !pr->alts_cut; i++) {
            bool seen = false;
            for (size_t k = 0; k < pr->n_shown && !seen; k++)
                seen = pr->shown[k]->gpu == lists[l][i].gpu;
            pr->alts_cut = !seen;
        }
}

/* Each shown plan's memory breakdown, as the planner's memory model gives it, and the 80 %
 * range of its device total from the out-of-sample errors of its class (intervals.c). */
static void gather_memory(struct proposal *pr)
{
    struct gpuplan_estimate *est = calloc(1, sizeof *est);
    if (!est)
        return;
    for (size_t i = 0; i < pr->n_shown; i++) {
        const struct gpuplan_plan *p = pr->shown[i];
        struct gpuplan_job job = p->job;
        job.gpus_per_node = p->gpus_per_node;
        job.nodes = p->nodes;
        if (gpuplan_estimate_run(pr->model, &job, p->gpu, est, NULL) != GPUPLAN_OK)
            continue;
        pr->memory[i] = est->memory.est.per_gpu;
        pr->usable_bytes[i] = p->usable_bytes;
        pr->has_memory[i] = est->memory.est.per_gpu.device_total_bytes > 0;
        struct gpuplan_estimate_ranges ranges;
        gpuplan_estimate_ranges_fill(est, &ranges);
        pr->has_range[i] = ranges.has_memory && ranges.device_total_high_bytes > 0;
        pr->range_low_bytes[i] = ranges.device_total_low_bytes;
        pr->range_high_bytes[i] = ranges.device_total_high_bytes;
    }
    free(est);
}

/* The recommended server's cost inputs and TCO (`gpuplan tco`'s defaults). */
static void gather_tco(struct proposal *pr)
{
    const struct gpuplan_plan *p = pr->shown[0];
    const uint32_t n = p->gpus_per_node * p->nodes;
    const enum gpuplan_cloud_tier tier =
        (enum gpuplan_cloud_tier)pr->result->request.job.cloud_tier;
    if (gpuplan_cost_inputs_init_ex(&pr->inputs, pr->catalog, p->gpu, n, p->platform, tier, NULL) !=
        GPUPLAN_OK)
        return;
    pr->has_inputs = true;
    if (!(pr->inputs.v[GPUPLAN_COST_GPU_PRICE].value > 0.0))
        return;
    pr->tco = calloc(1, sizeof *pr->tco);
    if (!pr->tco)
        return;
    struct gpuplan_cost_inputs in = pr->inputs;
    pr->tco_has_cloud = in.v[GPUPLAN_COST_CLOUD_PRICE].value > 0.0;
    /* Without a cloud rate only the own line is drawn; the TCO model insists on a rate, which
     * enters the cloud line and the break-even only (as the planner's own cost does). */
    if (!pr->tco_has_cloud &&
        gpuplan_cost_inputs_set(&in, GPUPLAN_COST_CLOUD_PRICE, 1.0, NULL) != GPUPLAN_OK)
        return;
    pr->has_tco = gpuplan_tco_compute(&in, pr->tco, NULL) == GPUPLAN_OK;
}

/* ---- sections ---- */

static const char *where_words(enum gpuplan_plan_where w)
{
    switch (w) {
    case GPUPLAN_WHERE_ON_PREM:
        return GPUPLAN_TR("own servers (on-premises purchase)");
    case GPUPLAN_WHERE_CLOUD:
        return GPUPLAN_TR("rented in the cloud");
    default:
        return GPUPLAN_TR("either: buying and renting compared");
    }
}

static const char *objective_words(enum gpuplan_plan_objective o)
{
    switch (o) {
    case GPUPLAN_OBJECTIVE_TIME:
        return GPUPLAN_TR("shortest time");
    case GPUPLAN_OBJECTIVE_GPUS:
        return GPUPLAN_TR("fewest GPUs");
    case GPUPLAN_OBJECTIVE_CAPEX:
        return GPUPLAN_TR("cheapest server to buy");
    default:
        return GPUPLAN_TR("lowest cost");
    }
}

/* The customer's job and constraints. */
static void section_job(struct gpuplan_doc *doc, struct proposal *pr)
{
    const struct gpuplan_plan_request *rq = &pr->result->request;
    const struct gpuplan_plan *top = pr->shown[0];
    cell_t *v = pr->job_v;
    struct gpuplan_doc_fact f[JOB_FACTS];
    size_t n = 0;
    const struct gpuplan_catalog_model *cm =
        pr->catalog ? gpuplan_catalog_find_model(pr->catalog, pr->model->id) : NULL;
    snprintf(v[n], CELL_MAX, GPUPLAN_TR("%s (%.1f billion parameters)"),
             cm && cm->name[0] ? cm->name : pr->model->id, (double)pr->model->n_params_total / 1e9);
    f[n] = (struct gpuplan_doc_fact){ GPUPLAN_TR("Model"), v[n] };
    n++;
    method_words(v[n], CELL_MAX, top);
    f[n] = (struct gpuplan_doc_fact){ GPUPLAN_TR("Method"), v[n] };
    n++;
    if (top->is_serving) {
        snprintf(v[n], CELL_MAX, GPUPLAN_TR("%llu prompt + %llu output tokens per request"),
                 (unsigned long long)top->serving.input_tokens,
                 (unsigned long long)top->serving.output_tokens);
        f[n] = (struct gpuplan_doc_fact){ GPUPLAN_TR("Requests"), v[n] };
        n++;
        if (rq->request_rate_per_s > 0.0)
            snprintf(v[n], CELL_MAX, GPUPLAN_TR("%.4g requests/s"), rq->request_rate_per_s);
        else
            snprintf(v[n], CELL_MAX, GPUPLAN_TR("%llu requests in flight"),
                     (unsigned long long)rq->job.concurrency);
        f[n] = (struct gpuplan_doc_fact){ GPUPLAN_TR("Load"), v[n] };
        n++;
        if (rq->target_ttft_ms > 0.0 || rq->target_tpot_ms > 0.0) {
            snprintf(v[n], CELL_MAX,
                     GPUPLAN_TR("time to first token %.4g ms, per output token %.4g ms"),
                     rq->target_ttft_ms, rq->target_tpot_ms);
            f[n] = (struct gpuplan_doc_fact){ GPUPLAN_TR("Latency targets"), v[n] };
            n++;
        }
    } else {
        snprintf(v[n], CELL_MAX, GPUPLAN_TR("%llu tokens, %llu per GPU per step"),
                 (unsigned long long)top->job.seq_len, (unsigned long long)top->job.micro_batch);
        f[n] = (struct gpuplan_doc_fact){ GPUPLAN_TR("Sequence length, micro-batch"), v[n] };
        n++;
        if (rq->job.tokens > 0)
            snprintf(v[n], CELL_MAX, GPUPLAN_TR("%.4g billion tokens per epoch, %.4g epochs"),
                     (double)rq->job.tokens / 1e9, rq->job.epochs);
        else
            snprintf(v[n], CELL_MAX, "%s",
                     GPUPLAN_TR("not given: throughput and hourly cost only (--tokens N for the "
                                "run's time and cost)"));
        f[n] = (struct gpuplan_doc_fact){ GPUPLAN_TR("Training data"), v[n] };
        n++;
    }
    f[n] = (struct gpuplan_doc_fact){ GPUPLAN_TR("Where"), where_words(rq->where) };
    n++;
    f[n] = (struct gpuplan_doc_fact){ GPUPLAN_TR("Ranked by"), objective_words(rq->objective) };
    n++;
    if (rq->deadline_hours > 0.0) {
        snprintf(v[n], CELL_MAX, GPUPLAN_TR("%.4g h"), rq->deadline_hours);
        f[n] = (struct gpuplan_doc_fact){ GPUPLAN_TR("Deadline"), v[n] };
        n++;
    }
    if (rq->budget_usd > 0.0) {
        usd_words(v[n], CELL_MAX, rq->budget_usd);
        f[n] = (struct gpuplan_doc_fact){ GPUPLAN_TR("Budget"), v[n] };
        n++;
    }
    if (rq->max_gpus > 0) {
        snprintf(v[n], CELL_MAX, "%u", rq->max_gpus);
        f[n] = (struct gpuplan_doc_fact){ GPUPLAN_TR("GPUs at most"), v[n] };
        n++;
    }
    snprintf(v[n], CELL_MAX, GPUPLAN_TR("%.0f %% of usable memory per GPU"),
             rq->min_headroom_fraction * 100.0);
    f[n] = (struct gpuplan_doc_fact){ GPUPLAN_TR("Headroom kept"), v[n] };
    n++;
    gpuplan_doc_facts(doc, f, n);
}

/* The recommended server as a bill of materials, then its power and network. */
static void section_bom(struct gpuplan_doc *doc, struct proposal *pr)
{
    const struct gpuplan_plan *p = pr->shown[0];
    const struct gpuplan_plan_server *s = &p->server;
    const uint32_t n_gpus = p->gpus_per_node * p->nodes;
    const uint32_t n_servers = s->n_servers ? s->n_servers : p->nodes;
    /* the planner's capex lines (cost.h: GPUs, platform, RAM and NVMe beyond its base,
     * the cluster network), as priced from the catalog and data/parts.json */
    const struct gpuplan_capex *cx = p->has_capex ? &p->capex : NULL;
    const struct gpuplan_capex_line *ln = cx ? cx->line : NULL;
    cell_t *d = pr->bom_d;
    struct gpuplan_doc_bom_row rows[8];
    size_t n = 0;
    const bool gpu_priced = ln && ln[GPUPLAN_CAPEX_GPUS].priced;
    snprintf(d[n], CELL_MAX, "%s, %s", p->gpu->name, p->gpu->memory_literal);
    if (!gpu_priced)
        append(d[n], GPUPLAN_TR("no catalog price: on request"));
    rows[n] = (struct gpuplan_doc_bom_row){ "GPU",
                                            d[n],
                                            n_gpus,
                                            gpu_priced,
                                            gpu_priced ? ln[GPUPLAN_CAPEX_GPUS].unit_usd : 0.0,
                                            gpu_priced ? ln[GPUPLAN_CAPEX_GPUS].usd : 0.0 };
    n++;
    const bool plat_priced = ln && ln[GPUPLAN_CAPEX_PLATFORM].priced;
    snprintf(d[n], CELL_MAX, "%s", s->platform_name[0] ? s->platform_name : s->form_factor);
    rows[n] = (struct gpuplan_doc_bom_row){ GPUPLAN_TR("Platform"),
                                            d[n],
                                            n_servers,
                                            plat_priced,
                                            plat_priced ? ln[GPUPLAN_CAPEX_PLATFORM].unit_usd : 0.0,
                                            plat_priced ? ln[GPUPLAN_CAPEX_PLATFORM].usd : 0.0 };
    n++;
    if (p->platform && p->platform->cpu[0])
        snprintf(d[n], CELL_MAX, GPUPLAN_TR("%s; %u cores per server"), p->platform->cpu,
                 s->cpu_cores);
    else
        snprintf(d[n], CELL_MAX, GPUPLAN_TR("%u cores per server"), s->cpu_cores);
    append(d[n], GPUPLAN_TR("in the platform price"));
    rows[n] = (struct gpuplan_doc_bom_row){ "CPU", d[n], n_servers, false, 0.0, 0.0 };
    n++;
    /* RAM and NVMe: the part beyond the platform's base is a line of its own, per GiB / TB */
    char size[CELL_MAX];
    const struct gpuplan_capex_line *ram = ln ? &ln[GPUPLAN_CAPEX_RAM] : NULL;
    gib_words(size, sizeof size, s->ram_bytes);
    snprintf(d[n], CELL_MAX, GPUPLAN_TR("%s per server"), size);
    if (ram && ram->quantity > 0.0) {
        const size_t k = strlen(d[n]);
        snprintf(d[n] + k, CELL_MAX - k,
                 GPUPLAN_TR(": %.0f GiB beyond the platform's base, per GiB"), ram->quantity);
        rows[n] = (struct gpuplan_doc_bom_row){
            GPUPLAN_TR("RAM"), d[n],          (uint64_t)llround(ram->quantity),
            ram->priced,       ram->unit_usd, ram->usd
        };
    } else {
        append(d[n], GPUPLAN_TR("in the platform price"));
        rows[n] = (struct gpuplan_doc_bom_row){ GPUPLAN_TR("RAM"), d[n], n_servers, false, 0, 0 };
    }
    n++;
    const struct gpuplan_capex_line *nvme = ln ? &ln[GPUPLAN_CAPEX_NVME] : NULL;
    tb_words(size, sizeof size, s->nvme_bytes);
    snprintf(d[n], CELL_MAX, GPUPLAN_TR("%s per server, %.0f GB/s read"), size, s->nvme_gb_per_s);
    if (nvme && nvme->quantity > 0.0) {
        const size_t k = strlen(d[n]);
        snprintf(d[n] + k, CELL_MAX - k, GPUPLAN_TR(": %.2f TB beyond the platform's base, per TB"),
                 nvme->quantity);
        rows[n] = (struct gpuplan_doc_bom_row){
            "NVMe", d[n], (uint64_t)llround(nvme->quantity), nvme->priced, nvme->unit_usd, nvme->usd
        };
    } else {
        append(d[n], GPUPLAN_TR("in the platform price"));
        rows[n] = (struct gpuplan_doc_bom_row){ "NVMe", d[n], n_servers, false, 0, 0 };
    }
    n++;
    const struct gpuplan_capex_line *net = ln ? &ln[GPUPLAN_CAPEX_NETWORK] : NULL;
    snprintf(d[n], CELL_MAX, "%s", GPUPLAN_TR(s->network)); /* the catalog's, or plan_server.c's */
    if (net && net->quantity > 0.0)
        rows[n] = (struct gpuplan_doc_bom_row){ GPUPLAN_TR("Network (NICs, ports, cables)"),
                                                d[n],
                                                (uint64_t)llround(net->quantity),
                                                net->priced,
                                                net->unit_usd,
                                                net->usd };
    else
        rows[n] = (struct gpuplan_doc_bom_row){
            GPUPLAN_TR("Network (NICs, ports, cables)"), d[n], n_servers, false, 0, 0
        };
    n++;
    const bool all_priced = cx && gpu_priced && cx->n_unpriced == 0;
    const double total = cx ? cx->total_usd : 0.0;
    char caption[CELL_MAX];
    layout_words(size, sizeof size, p);
    snprintf(caption, sizeof caption, GPUPLAN_TR("Bill of materials: %s in %u server(s)"), size,
             n_servers);
    const struct gpuplan_doc_bom bom = {
        .id = "bom",
        .caption = caption,
        .item_header = GPUPLAN_TR("Item"),
        .detail_header = GPUPLAN_TR("Detail"),
        .quantity_header = GPUPLAN_TR("Qty"),
        .unit_header = GPUPLAN_TR("Unit price"),
        .line_header = GPUPLAN_TR("Line total"),
        .total_label = GPUPLAN_TR("Total"),
        .unpriced = "\xE2\x80\x94",
        .rows = rows,
        .n_rows = n,
        .has_total = all_priced,
        .total_usd = total,
    };
    gpuplan_doc_bom(doc, &bom);
    cell_t *fv = pr->bom_fv;
    struct gpuplan_doc_fact f[6];
    size_t k = 0;
    char a[32], b[32];
    kw_words(a, sizeof a, s->power_w);
    kw_words(b, sizeof b, s->rack_power_w);
    snprintf(fv[k], CELL_MAX, GPUPLAN_TR("%s per server at load, %s per rack"), a, b);
    f[k] = (struct gpuplan_doc_fact){ GPUPLAN_TR("Power"), fv[k] };
    k++;
    interconnect_words(fv[k], CELL_MAX, p);
    f[k] = (struct gpuplan_doc_fact){ GPUPLAN_TR("GPU interconnect"), fv[k] };
    k++;
    if (gpu_priced) {
        const char *plat_date = !p->platform                 ? "\xE2\x80\x94"
                                : p->platform->price_date[0] ? p->platform->price_date
                                                             : p->platform->retrieved;
        snprintf(fv[k], CELL_MAX, GPUPLAN_TR("GPU price of %s, platform price of %s"),
                 p->gpu->price_date, plat_date);
        f[k] = (struct gpuplan_doc_fact){ GPUPLAN_TR("Prices as of"), fv[k] };
        k++;
    }
    gpuplan_doc_facts(doc, f, k);
    if (!all_priced)
        gpuplan_doc_note(doc, GPUPLAN_TR("Not every line has a catalog price: no total is given; "
                                         "ask the vendor for a quote of the missing lines."));
    gpuplan_doc_note(doc, GPUPLAN_TR("Indicative list prices from gpuplan's catalog, not a "
                                     "quote; tax, shipping and support are not included."));
}

/* Time and cost of the run on the recommended server. */
static void section_run(struct gpuplan_doc *doc, struct proposal *pr)
{
    const struct gpuplan_plan *p = pr->shown[0];
    cell_t *v = pr->run_v;
    struct gpuplan_doc_fact f[10];
    size_t n = 0;
    if (p->is_serving) {
        snprintf(v[n], CELL_MAX,
                 GPUPLAN_TR("%.0f output tokens/s in all, %.1f per user; first token in %.2f s"),
                 p->tokens_per_s, p->tokens_per_s_per_user, p->ttft_s);
        f[n] = (struct gpuplan_doc_fact){ GPUPLAN_TR("Throughput"), v[n] };
        n++;
        snprintf(v[n], CELL_MAX, GPUPLAN_TR("%u replica(s) of %u GPU(s), %s"), p->serving.replicas,
                 p->serving.gpus_per_replica, gpuplan_serving_engine_name(p->serving.engine));
        f[n] = (struct gpuplan_doc_fact){ GPUPLAN_TR("Layout"), v[n] };
        n++;
    } else {
        snprintf(v[n], CELL_MAX, GPUPLAN_TR("%.0f tokens/s on all GPUs (MFU %.0f %%, bound by %s)"),
                 p->tokens_per_s, p->mfu * 100.0, bound_words(p->bottleneck));
        f[n] = (struct gpuplan_doc_fact){ GPUPLAN_TR("Throughput"), v[n] };
        n++;
        if (p->has_time) {
            snprintf(v[n], CELL_MAX, GPUPLAN_TR("%.1f h (%.1f days)"), p->time_hours,
                     p->time_hours / 24.0);
            f[n] = (struct gpuplan_doc_fact){ GPUPLAN_TR("Time of the run"), v[n] };
            n++;
        }
    }
    if (p->has_cloud_rate) {
        /* the rate the plan was priced at: its tier (or the fallback's), provider and date */
        struct gpuplan_rate_choice rc;
        gpuplan_gpu_cloud_rate(p->gpu, (enum gpuplan_cloud_tier)pr->result->request.job.cloud_tier,
                               &rc);
        const uint32_t n_gpus = p->gpus_per_node * p->nodes;
        snprintf(v[n], CELL_MAX,
                 GPUPLAN_TR("%.2f USD per hour (%.2f USD per GPU-hour, %s tier, %s, %s)"),
                 p->cost_usd_per_hour, n_gpus ? p->cost_usd_per_hour / n_gpus : 0.0,
                 GPUPLAN_TR(p->cloud_tier), p->cloud_provider,
                 rc.rate ? rc.rate->date : "\xE2\x80\x94");
        f[n] = (struct gpuplan_doc_fact){ GPUPLAN_TR("Rent"), v[n] };
        n++;
        if (!p->is_serving && p->has_time) {
            usd_words(v[n], CELL_MAX, p->cost_usd);
            f[n] = (struct gpuplan_doc_fact){ GPUPLAN_TR("Rented run"), v[n] };
            n++;
        }
    } else {
        snprintf(v[n], CELL_MAX, GPUPLAN_TR("no cloud rate for %s in the catalog"), p->gpu->id);
        f[n] = (struct gpuplan_doc_fact){ GPUPLAN_TR("Rent"), v[n] };
        n++;
    }
    if (p->has_capex) {
        usd_words(v[n], CELL_MAX, p->capex_usd);
        f[n] = (struct gpuplan_doc_fact){ GPUPLAN_TR("Purchase"), v[n] };
        n++;
    }
    if (p->has_own_cost) {
        snprintf(v[n], CELL_MAX,
                 GPUPLAN_TR("%.2f USD per hour of use (%.2f USD per million tokens)"),
                 p->own_usd_per_hour, p->own_cost_per_mtok_usd);
        f[n] = (struct gpuplan_doc_fact){ GPUPLAN_TR("Own cost"), v[n] };
        n++;
        if (!p->is_serving && p->has_time) {
            usd_words(v[n], CELL_MAX, p->own_cost_usd);
            f[n] = (struct gpuplan_doc_fact){ GPUPLAN_TR("Own run (share of ownership)"), v[n] };
            n++;
        }
    }
    if (pr->has_tco) {
        const struct gpuplan_tco *t = pr->tco;
        if (pr->tco_has_cloud && t->has_break_even_months)
            snprintf(v[n], CELL_MAX, GPUPLAN_TR("buying pays off after %.1f months at %.4g h/day"),
                     t->break_even_months, pr->inputs.v[GPUPLAN_COST_HOURS_PER_DAY].value);
        else if (pr->tco_has_cloud)
            snprintf(v[n], CELL_MAX,
                     GPUPLAN_TR("buying does not pay off within %.0f months at %.4g h/day"),
                     t->months, pr->inputs.v[GPUPLAN_COST_HOURS_PER_DAY].value);
        else
            snprintf(v[n], CELL_MAX, "%s",
                     GPUPLAN_TR("not known: the catalog has no cloud rate for this GPU"));
        f[n] = (struct gpuplan_doc_fact){ GPUPLAN_TR("Buy or rent"), v[n] };
        n++;
    }
    gpuplan_doc_facts(doc, f, n);
    gpuplan_doc_note(doc, GPUPLAN_TR("Own cost: depreciation over 3 years, energy, maintenance and "
                                     "colocation at 8 hours of use a day ('gpuplan tco' "
                                     "defaults), per hour of use."));
}

/* The alternatives, one per GPU type, side by side with the recommendation. */
static void section_alternatives(struct gpuplan_doc *doc, struct proposal *pr)
{
    const struct gpuplan_doc_column cols[ALT_COLUMNS] = {
        { GPUPLAN_TR("Plan"), GPUPLAN_DOC_LEFT, true },
        { GPUPLAN_TR("Precision"), GPUPLAN_DOC_LEFT, false },
        { pr->shown[0]->is_serving ? "TP / PP / EP" : GPUPLAN_TR("Parallelism"), GPUPLAN_DOC_LEFT,
          false },
        { GPUPLAN_TR("GiB per GPU"), GPUPLAN_DOC_RIGHT, false },
        { GPUPLAN_TR("Tokens/s"), GPUPLAN_DOC_RIGHT, false },
        { GPUPLAN_TR("Hours"), GPUPLAN_DOC_RIGHT, false },
        { GPUPLAN_TR("Rent, USD/h"), GPUPLAN_DOC_RIGHT, false },
        { GPUPLAN_TR("Purchase"), GPUPLAN_DOC_RIGHT, false },
        { GPUPLAN_TR("Own, USD/h"), GPUPLAN_DOC_RIGHT, false },
    };
    cell_t(*cells)[ALT_COLUMNS] = pr->alt;
    const char **ptrs = pr->alt_ptrs;
    for (size_t i = 0; i < pr->n_shown; i++) {
        const struct gpuplan_plan *p = pr->shown[i];
        cell_t *c = cells[i];
        layout_words(c[0], CELL_MAX, p);
        if (p->is_serving) {
            char w[64];
            if (p->serving.weights_dtype == GPUPLAN_DTYPE_UNKNOWN)
                snprintf(w, sizeof w, "%s", GPUPLAN_TR("as stored"));
            else
                dtype_words(w, sizeof w, p->serving.weights_dtype);
            snprintf(c[1], CELL_MAX, "%s", w);
        } else if (p->job.method == GPUPLAN_METHOD_QLORA) {
            char q[64];
            dtype_words(q, sizeof q, p->job.quant);
            snprintf(c[1], CELL_MAX, "%s + %s", q, precision_words(p->job.precision));
        } else {
            snprintf(c[1], CELL_MAX, "%s", precision_words(p->job.precision));
        }
        parallel_words(c[2], CELL_MAX, p);
        snprintf(c[3], CELL_MAX, "%.1f", gpuplan_gib_from_bytes(p->memory_per_gpu_bytes));
        snprintf(c[4], CELL_MAX, "%.0f", p->tokens_per_s);
        if (p->has_time)
            snprintf(c[5], CELL_MAX, "%.1f", p->time_hours);
        else
            snprintf(c[5], CELL_MAX, "\xE2\x80\x94");
        if (p->has_cloud_rate)
            snprintf(c[6], CELL_MAX, "%.2f", p->cost_usd_per_hour);
        else
            snprintf(c[6], CELL_MAX, "\xE2\x80\x94");
        if (p->has_capex)
            usd_words(c[7], CELL_MAX, p->capex_usd);
        else
            snprintf(c[7], CELL_MAX, "\xE2\x80\x94");
        if (p->has_own_cost)
            snprintf(c[8], CELL_MAX, "%.2f", p->own_usd_per_hour);
        else
            snprintf(c[8], CELL_MAX, "\xE2\x80\x94");
        for (size_t k = 0; k < ALT_COLUMNS; k++)
            ptrs[i * ALT_COLUMNS + k] = c[k];
    }
    const struct gpuplan_doc_table t = {
        .id = "alternatives",
        .caption =
            GPUPLAN_TR("The recommendation (marked) and the best plan of each other GPU type"),
        .columns = cols,
        .n_columns = ALT_COLUMNS,
        .cells = ptrs,
        .n_rows = pr->n_shown,
        .highlight_row = 0,
        .keep = true,
    };
    gpuplan_doc_table(doc, &t);
    if (pr->alts_cut)
        gpuplan_doc_note(doc, GPUPLAN_TR("More GPU types meet the constraints: ask for more "
                                         "plans (--top K, six at most) to see them side by "
                                         "side."));
    else if (pr->n_shown == 1)
        gpuplan_doc_note(doc, GPUPLAN_TR("No other GPU type meets the constraints."));
}

/* The figure of `svg` (a chart just drawn), then the buffer emptied for the next. */
static void put_figure(struct gpuplan_doc *doc,
                       struct proposal *pr,
                       enum chart_slot slot,
                       struct gpuplan_buf *svg,
                       const char *id,
                       const char *caption,
                       const char *md_src)
{
    if (pr->charts_only) {
        gpuplan_buf_append(&pr->charts[slot], svg->data, svg->len);
    } else {
        /* the Markdown's image file, the caller's prefix + "memory.svg", linked only when the
         * caller writes the files (chart_sink): otherwise the caption alone */
        char src[160];
        snprintf(src, sizeof src, "%s%s", pr->md_prefix, md_src);
        const struct gpuplan_doc_figure fig = { id, caption, svg->data, svg->len,
                                                pr->md_links ? src : NULL };
        gpuplan_doc_figure(doc, &fig);
        if (pr->md_links && pr->sink_status == GPUPLAN_OK)
            pr->sink_status =
                pr->opts->chart_sink(pr->opts->chart_ctx, src, svg->data, svg->len, &pr->sink_err);
    }
    gpuplan_buf_reset(svg);
}

/* A note of the document (nothing in the charts' JSON). */
static void doc_note(struct gpuplan_doc *doc, const struct proposal *pr, const char *text)
{
    if (!pr->charts_only)
        gpuplan_doc_note(doc, text);
}

static void figure_memory(struct gpuplan_doc *doc, struct proposal *pr, struct gpuplan_buf *svg)
{
    cell_t *labels = pr->mem_labels;
    struct gpuplan_svg_mem_bar bars[PROPOSAL_MAX_SHOWN];
    size_t n = 0;
    for (size_t i = 0; i < pr->n_shown; i++) {
        if (!pr->has_memory[i])
            continue;
        const struct gpuplan_memory_per_gpu *m = &pr->memory[i];
        layout_words(labels[n], CELL_MAX, pr->shown[i]);
        struct gpuplan_svg_mem_bar *b = &bars[n];
        memset(b, 0, sizeof *b);
        b->label = labels[n];
        b->part_gib[GPUPLAN_SVG_MEM_WEIGHTS] = gpuplan_gib_from_bytes(m->weights_bytes);
        b->part_gib[GPUPLAN_SVG_MEM_GRADIENTS] = gpuplan_gib_from_bytes(m->gradients_bytes);
        b->part_gib[GPUPLAN_SVG_MEM_OPTIMIZER] = gpuplan_gib_from_bytes(m->optimizer_bytes);
        b->part_gib[GPUPLAN_SVG_MEM_ACTIVATIONS] = gpuplan_gib_from_bytes(m->activations_bytes);
        b->part_gib[GPUPLAN_SVG_MEM_ADAPTERS] = gpuplan_gib_from_bytes(m->adapters_bytes);
        b->part_gib[GPUPLAN_SVG_MEM_KV_CACHE] = gpuplan_gib_from_bytes(m->kv_cache_bytes);
        b->part_gib[GPUPLAN_SVG_MEM_OVERHEAD] = gpuplan_gib_from_bytes(m->overhead_bytes);
        b->part_gib[GPUPLAN_SVG_MEM_CUDA_CONTEXT] = gpuplan_gib_from_bytes(m->cuda_context_bytes);
        b->usable_gib = gpuplan_gib_from_bytes(pr->usable_bytes[i]);
        b->has_total = true;
        b->total_gib = gpuplan_gib_from_bytes(m->device_total_bytes);
        b->has_range = pr->has_range[i];
        b->low_gib = gpuplan_gib_from_bytes(pr->range_low_bytes[i]);
        b->high_gib = gpuplan_gib_from_bytes(pr->range_high_bytes[i]);
        n++;
    }
    if (n == 0 || !(bars[0].usable_gib > 0.0))
        return;
    const struct gpuplan_svg_mem_chart chart = {
        .common = { .id = "chart-memory",
                    .title = GPUPLAN_TR("Memory per GPU"),
                    .desc = GPUPLAN_TR("What each GPU holds at the peak of a step, with the "
                                       "estimate's 80-percent range, against the memory the "
                                       "framework can use."),
                    .omit_style = !pr->own_style,
                    .width_px = pr->width_px },
        .part_labels = { GPUPLAN_TR("weights"), GPUPLAN_TR("gradients"), GPUPLAN_TR("optimizer"),
                         GPUPLAN_TR("activations"), GPUPLAN_TR("adapters"), GPUPLAN_TR("KV cache"),
                         GPUPLAN_TR("overhead"), GPUPLAN_TR("CUDA context") },
        .usable_label = GPUPLAN_TR("usable memory"),
        .range_label = GPUPLAN_TR("peak range"),
        .total_label = GPUPLAN_TR("peak"),
        .axis_label = GPUPLAN_TR("memory per GPU"),
        .unit = "GiB",
        .bars = bars,
        .n_bars = n,
    };
    if (gpuplan_svg_memory(&chart, svg, NULL) == GPUPLAN_OK)
        put_figure(doc, pr, CHART_MEMORY, svg, "fig-memory",
                   GPUPLAN_TR("Memory per GPU: the parts at the peak, the peak, and the usable "
                              "memory (line)"),
                   "memory.svg");
    else
        gpuplan_buf_reset(svg);
}

static void figure_scatter(struct gpuplan_doc *doc, struct proposal *pr, struct gpuplan_buf *svg)
{
    const struct gpuplan_plan_result *r = pr->result;
    cell_t *labels = pr->pt_labels;
    struct gpuplan_svg_point pts[GPUPLAN_PLAN_MAX_TOP + GPUPLAN_PLAN_MAX_PARETO];
    const bool own = r->request.where == GPUPLAN_WHERE_ON_PREM;
    size_t n = 0;
    double lo = INFINITY, hi = 0.0;
    const struct gpuplan_plan *lists[2] = { r->top, r->pareto };
    const size_t counts[2] = { r->n_top, r->n_pareto };
    for (size_t l = 0; l < 2; l++) {
        for (size_t i = 0; i < counts[l]; i++) {
            const struct gpuplan_plan *p = &lists[l][i];
            const bool has_y = own ? p->has_own_cost : p->has_cloud_rate;
            if (!p->has_time || !has_y || !(p->time_hours > 0.0))
                continue;
            bool dup = false;
            for (size_t k = 0; k < n && !dup; k++)
                dup = strcmp(labels[k], "") != 0 && pts[k].x == p->time_hours &&
                      pts[k].y == (own ? p->own_cost_usd : p->cost_usd);
            if (dup) {
                if (l == 1)
                    for (size_t k = 0; k < n; k++)
                        if (pts[k].x == p->time_hours)
                            pts[k].is_pareto = true;
                continue;
            }
            layout_words(labels[n], CELL_MAX, p);
            pts[n] = (struct gpuplan_svg_point){ p->time_hours, own ? p->own_cost_usd : p->cost_usd,
                                                 labels[n], l == 1, l == 0 && i == 0 };
            lo = fmin(lo, p->time_hours);
            hi = fmax(hi, p->time_hours);
            n++;
        }
    }
    if (n == 0)
        return;
    const struct gpuplan_svg_scatter chart = {
        .common = { .id = "chart-time-cost",
                    .title = GPUPLAN_TR("Time vs cost"),
                    .desc = GPUPLAN_TR("One point per plan: the time of the run and what it "
                                       "costs; the Pareto set is joined."),
                    .omit_style = !pr->own_style,
                    .width_px = pr->width_px },
        .x = { GPUPLAN_TR("time of the run"), GPUPLAN_TR("h"), hi > 10.0 * lo, false, false },
        .y = { own ? GPUPLAN_TR("own cost of the run") : GPUPLAN_TR("rented cost of the run"),
               "USD", false, true, false },
        .points = pts,
        .n_points = n,
        .draw_front = true,
        .pareto_label = GPUPLAN_TR("Pareto set"),
        .other_label = GPUPLAN_TR("other plans"),
        .highlight_label = GPUPLAN_TR("recommended"),
    };
    if (gpuplan_svg_scatter(&chart, svg, NULL) == GPUPLAN_OK)
        put_figure(doc, pr, CHART_TIME_COST, svg, "fig-time-cost",
                   GPUPLAN_TR("Time vs cost of the plans found"), "time-cost.svg");
    else
        gpuplan_buf_reset(svg);
}

static void figure_tco(struct gpuplan_doc *doc, struct proposal *pr, struct gpuplan_buf *svg)
{
    if (!pr->has_tco || pr->tco->n_points < 2)
        return;
    const struct gpuplan_tco *t = pr->tco;
    struct gpuplan_svg_line lines[2] = {
        { GPUPLAN_TR("own"), t->cumulative_own_usd, t->n_points },
        { GPUPLAN_TR("cloud"), t->cumulative_cloud_usd, t->n_points },
    };
    const struct gpuplan_svg_cost_chart chart = {
        .common = { .id = "chart-buy-rent",
                    .title = GPUPLAN_TR("Own vs cloud cost"),
                    .desc = GPUPLAN_TR("Cumulative cost of owning the recommended servers and of "
                                       "renting the same GPUs, month by month."),
                    .omit_style = !pr->own_style,
                    .width_px = pr->width_px },
        .x = { GPUPLAN_TR("months"), NULL, false, true, true },
        .y = { GPUPLAN_TR("cumulative cost"), "USD", false, true, false },
        .x_start = 0.0,
        .x_step = 1.0,
        .lines = lines,
        .n_lines = pr->tco_has_cloud ? 2 : 1,
        .has_break_even = pr->tco_has_cloud && t->has_break_even_months,
        .break_even_x = t->break_even_months,
        .break_even_label = GPUPLAN_TR("break-even"),
    };
    if (gpuplan_svg_cost(&chart, svg, NULL) == GPUPLAN_OK)
        put_figure(doc, pr, CHART_BUY_RENT, svg, "fig-buy-rent",
                   GPUPLAN_TR("Buy or rent: the recommended server's cumulative cost"),
                   "buy-rent.svg");
    else
        gpuplan_buf_reset(svg);
    if (!pr->tco_has_cloud)
        doc_note(doc, pr,
                 GPUPLAN_TR("The catalog has no cloud rate for this GPU: only the "
                            "cost of owning is drawn."));
}

/* Serving: the recommended replica's curve (gpuplan_plan_serving_curve), once per process. */
static void gather_curve(struct proposal *pr)
{
    const struct gpuplan_plan *p = pr->shown[0];
    pr->n_curve = 0;
    if (!p->is_serving ||
        gpuplan_plan_serving_curve(pr->model, p, pr->curve, GPUPLAN_PLAN_CURVE_MAX, &pr->n_curve,
                                   NULL) != GPUPLAN_OK)
        pr->n_curve = 0;
    /* the engine as its project spells it */
    const char *engine = p->serving.engine == GPUPLAN_SERVING_SGLANG ? "SGLang" : "vLLM";
    snprintf(pr->curve_label, CELL_MAX, GPUPLAN_TR("%s, one replica: %u × %s"), engine,
             p->serving.gpus_per_replica, p->gpu->name);
    for (size_t i = 0; i < pr->n_curve; i++) {
        const unsigned long long c = (unsigned long long)pr->curve[i].concurrency;
        char *dst = pr->curve_point_labels[i];
        const size_t size = sizeof pr->curve_point_labels[i];
        if (pr->curve[i].is_operating)
            snprintf(dst, size, GPUPLAN_TR("c=%llu (planned)"), c);
        else if (pr->curve[i].is_limit)
            snprintf(dst, size, GPUPLAN_TR("c=%llu (limit)"), c);
        else
            snprintf(dst, size, "c=%llu", c);
    }
}

/*
 * Latency against throughput per GPU as requests in flight grow: TPOT (linear, from 0) or TTFT
 * (log: it grows by orders of magnitude once prompts queue behind decodes), with the request's
 * latency target and, at a request rate, the output tokens per GPU that rate needs.
 */
static void
figure_latency(struct gpuplan_doc *doc, struct proposal *pr, struct gpuplan_buf *svg, bool ttft)
{
    if (pr->n_curve == 0)
        return;
    const struct gpuplan_plan_result *r = pr->result;
    const struct gpuplan_plan *p = pr->shown[0];
    double x[GPUPLAN_PLAN_CURVE_MAX], y[GPUPLAN_PLAN_CURVE_MAX];
    const char *labels[GPUPLAN_PLAN_CURVE_MAX];
    for (size_t i = 0; i < pr->n_curve; i++) {
        x[i] = pr->curve[i].tokens_per_s_per_gpu;
        y[i] = ttft ? pr->curve[i].ttft_s : pr->curve[i].tpot_s * 1e3;
        labels[i] = pr->curve_point_labels[i];
        if (!(x[i] > 0.0) || !(y[i] > 0.0))
            return; /* nothing a log axis can draw: no chart rather than a wrong one */
    }
    const struct gpuplan_svg_curve curve = { pr->curve_label, x, y, labels, pr->n_curve };
    struct gpuplan_svg_target targets[2];
    size_t n_targets = 0;
    const double target = ttft ? r->request.target_ttft_ms / 1e3 : r->request.target_tpot_ms;
    if (target > 0.0)
        targets[n_targets++] = (struct gpuplan_svg_target){ ttft ? GPUPLAN_TR("TTFT target")
                                                                 : GPUPLAN_TR("TPOT target"),
                                                            target, false };
    if (r->request.request_rate_per_s > 0.0 && p->serving.tokens_per_s_per_gpu > 0.0)
        targets[n_targets++] = (struct gpuplan_svg_target){ GPUPLAN_TR("needed at the rate"),
                                                            p->serving.tokens_per_s_per_gpu, true };
    const struct gpuplan_svg_latency_chart chart = {
        .common = { .id = ttft ? "chart-ttft" : "chart-tpot",
                    .title = ttft ? GPUPLAN_TR("Time to first token vs throughput")
                                  : GPUPLAN_TR("Time per output token vs throughput"),
                    .desc = GPUPLAN_TR("Latency against output throughput per GPU of one replica "
                                       "as requests in flight grow (c = requests in flight), "
                                       "with the targets."),
                    .omit_style = !pr->own_style,
                    .width_px = pr->width_px },
        .x = { GPUPLAN_TR("output throughput per GPU"), GPUPLAN_TR("tokens/s"), false, true,
               false },
        .y = { ttft ? "TTFT" : "TPOT", ttft ? GPUPLAN_TR("s") : GPUPLAN_TR("ms"), ttft, !ttft,
               false },
        .curves = &curve,
        .n_curves = 1,
        .targets = targets,
        .n_targets = n_targets,
    };
    if (gpuplan_svg_latency(&chart, svg, NULL) == GPUPLAN_OK)
        put_figure(doc, pr, ttft ? CHART_TTFT : CHART_TPOT, svg, ttft ? "fig-ttft" : "fig-tpot",
                   ttft ? GPUPLAN_TR("Serving: time to first token against throughput per GPU, "
                                     "with the TTFT target")
                        : GPUPLAN_TR("Serving: time per output token against throughput per "
                                     "GPU, with the TPOT target"),
                   ttft ? "ttft.svg" : "tpot.svg");
    else
        gpuplan_buf_reset(svg);
}

/* The maturity and risks of the stack: the planner's warnings and notes, the reasons. */
static void section_risks(struct gpuplan_doc *doc, struct proposal *pr)
{
    const struct gpuplan_plan *p = pr->shown[0];
    const struct gpuplan_plan_result *r = pr->result;
    /* the planner's maturity first: "standard: ..." or "needs care: ..." with the reason */
    if (p->maturity[0]) {
        char *line = pr->line;
        snprintf(line, CELL_MAX, GPUPLAN_TR("Software stack: %s."), p->maturity);
        if (p->needs_care)
            gpuplan_doc_note(doc, line);
        else
            gpuplan_doc_paragraph(doc, line);
    }
    if (p->n_warnings == 0)
        gpuplan_doc_paragraph(doc, GPUPLAN_TR("The planner raised no warning for this plan."));
    for (size_t i = 0; i < p->n_warnings; i++)
        gpuplan_doc_note(doc, p->warnings[i]);
    gpuplan_doc_section_begin(doc, "why", GPUPLAN_TR("Why this server"), 0);
    for (size_t i = 0; i < p->n_reasons; i++)
        gpuplan_doc_paragraph(doc, p->reasons[i]);
    gpuplan_doc_section_end(doc);
    if (r->n_notes) {
        gpuplan_doc_section_begin(doc, "search", GPUPLAN_TR("The search"), 0);
        char *line = pr->line;
        snprintf(line, CELL_MAX,
                 GPUPLAN_TR("%llu candidates evaluated, %llu fit, %llu meet the constraints."),
                 (unsigned long long)r->evaluated, (unsigned long long)r->fitting,
                 (unsigned long long)r->feasible);
        gpuplan_doc_paragraph(doc, line);
        for (size_t i = 0; i < r->n_notes; i++)
            gpuplan_doc_paragraph(doc, r->notes[i]);
        gpuplan_doc_section_end(doc);
    }
}

/* The launch configurations the plan runs as planned. */
static void section_launch(struct gpuplan_doc *doc, const struct gpuplan_plan *p)
{
    /* Launchers first, then the fine-tuning frameworks (torchtune keeps selective recompute). */
    static const enum gpuplan_engine training[] = {
        GPUPLAN_ENGINE_ACCELERATE, GPUPLAN_ENGINE_DEEPSPEED,     GPUPLAN_ENGINE_TORCHRUN,
        GPUPLAN_ENGINE_SLURM,      GPUPLAN_ENGINE_TORCHTUNE,     GPUPLAN_ENGINE_AXOLOTL,
        GPUPLAN_ENGINE_TRL,        GPUPLAN_ENGINE_LLAMA_FACTORY,
    };
    static const enum gpuplan_engine serving[] = { GPUPLAN_ENGINE_VLLM, GPUPLAN_ENGINE_SGLANG,
                                                   GPUPLAN_ENGINE_K8S };
    const enum gpuplan_engine *list = p->is_serving ? serving : training;
    const size_t n_list =
        p->is_serving ? sizeof serving / sizeof serving[0] : sizeof training / sizeof training[0];
    static const char *const files[GPUPLAN_ENGINE_COUNT] = {
        [GPUPLAN_ENGINE_DEEPSPEED] = "ds_config.json",
        [GPUPLAN_ENGINE_ACCELERATE] = "accelerate.yaml",
        [GPUPLAN_ENGINE_TORCHRUN] = "torchrun.sh",
        [GPUPLAN_ENGINE_SLURM] = "train.sbatch",
        [GPUPLAN_ENGINE_AXOLOTL] = "axolotl.yaml",
        [GPUPLAN_ENGINE_VLLM] = "vllm.sh",
        [GPUPLAN_ENGINE_SGLANG] = "sglang.sh",
        [GPUPLAN_ENGINE_K8S] = "k8s.yaml",
    };
    static const char *const langs[GPUPLAN_ENGINE_COUNT] = {
        [GPUPLAN_ENGINE_DEEPSPEED] = "json",     [GPUPLAN_ENGINE_ACCELERATE] = "yaml",
        [GPUPLAN_ENGINE_TORCHRUN] = "sh",        [GPUPLAN_ENGINE_SLURM] = "sh",
        [GPUPLAN_ENGINE_AXOLOTL] = "yaml",       [GPUPLAN_ENGINE_VLLM] = "sh",
        [GPUPLAN_ENGINE_SGLANG] = "sh",          [GPUPLAN_ENGINE_K8S] = "yaml",
        [GPUPLAN_ENGINE_TORCHTUNE] = "yaml",     [GPUPLAN_ENGINE_TRL] = "json",
        [GPUPLAN_ENGINE_LLAMA_FACTORY] = "yaml",
    };
    struct gpuplan_buf code;
    gpuplan_buf_init(&code, 0);
    size_t shown = 0;
    char tried[160] = ""; /* the kinds that refused, for the note (their reasons: gpuplan emit) */
    for (size_t i = 0; i < n_list && shown < PROPOSAL_MAX_LAUNCH; i++) {
        const enum gpuplan_engine e = list[i];
        if (p->is_serving && e != GPUPLAN_ENGINE_K8S &&
            (e == GPUPLAN_ENGINE_VLLM) != (p->serving.engine == GPUPLAN_SERVING_VLLM))
            continue;
        if (e == GPUPLAN_ENGINE_SLURM && p->nodes < 2)
            continue;
        if (gpuplan_emit_check(p, e, NULL) != GPUPLAN_OK) {
            const size_t len = strlen(tried);
            snprintf(tried + len, sizeof tried - len, "%s%s", len ? ", " : "",
                     gpuplan_engine_name(e));
            continue;
        }
        gpuplan_buf_reset(&code);
        if (gpuplan_emit(p, e, &code, NULL) != GPUPLAN_OK || code.len == 0)
            continue;
        char summary[128];
        snprintf(summary, sizeof summary, GPUPLAN_TR("Launch configuration: %s"),
                 gpuplan_engine_name(e));
        const struct gpuplan_doc_code c = { .summary = summary,
                                            .filename = files[e],
                                            .language = langs[e],
                                            .text = code.data,
                                            .len = code.len,
                                            .is_open = false };
        gpuplan_doc_code(doc, &c);
        shown++;
    }
    gpuplan_buf_release(&code);
    if (shown == 0) {
        char line[CELL_MAX];
        snprintf(line, sizeof line,
                 GPUPLAN_TR("No launch configuration kind runs this plan as planned (tried: %s; "
                            "'gpuplan emit KIND' says why)."),
                 tried[0] ? tried : "\xE2\x80\x94");
        gpuplan_doc_note(doc, line);
    }
}

/* The unit of each cost input as the sources table writes it after the value ("" none). */
static const char *const input_units[GPUPLAN_COST_INPUT_COUNT] = {
    [GPUPLAN_COST_GPU_PRICE] = "USD",
    [GPUPLAN_COST_PLATFORM_PRICE] = "USD",
    [GPUPLAN_COST_RAM_PRICE] = "USD",
    [GPUPLAN_COST_NVME_PRICE] = "USD",
    [GPUPLAN_COST_NETWORK_PRICE] = "USD",
    [GPUPLAN_COST_GPU_TDP] = "W",
    [GPUPLAN_COST_GPU_LOAD] = "",
    [GPUPLAN_COST_PLATFORM_POWER] = "W",
    [GPUPLAN_COST_IDLE_POWER] = "W",
    [GPUPLAN_COST_PUE] = "",
    [GPUPLAN_COST_POWER_PRICE] = "USD/kWh",
    [GPUPLAN_COST_MAINTENANCE] = "",
    [GPUPLAN_COST_COLOCATION] = "USD",
    [GPUPLAN_COST_YEARS] = "",
    [GPUPLAN_COST_HOURS_PER_DAY] = GPUPLAN_N_("h/day"),
    [GPUPLAN_COST_CLOUD_PRICE] = "USD",
};

/* Where every number comes from. */
static void section_sources(struct gpuplan_doc *doc, struct proposal *pr)
{
    const struct gpuplan_doc_column cols[SOURCE_COLUMNS] = {
        { GPUPLAN_TR("Figure"), GPUPLAN_DOC_LEFT, true },
        { GPUPLAN_TR("Value"), GPUPLAN_DOC_LEFT, false },
        { GPUPLAN_TR("Source"), GPUPLAN_DOC_LEFT, false },
        { GPUPLAN_TR("Date"), GPUPLAN_DOC_LEFT, false },
    };
    cell_t(*cells)[SOURCE_COLUMNS] = pr->src;
    const char **ptrs = pr->src_ptrs;
    size_t n = 0;
    const struct gpuplan_plan *top = pr->shown[0];
    for (size_t i = 0; i < pr->n_shown && n < SOURCE_ROWS; i++) {
        const struct gpuplan_gpu *g = pr->shown[i]->gpu;
        bool seen = false;
        for (size_t k = 0; k < i && !seen; k++)
            seen = pr->shown[k]->gpu == g;
        if (seen)
            continue;
        snprintf(cells[n][0], CELL_MAX, GPUPLAN_TR("GPU %s: memory, speed, power, prices"), g->id);
        char price[48], rate[48];
        if (g->price_usd > 0.0)
            usd_words(price, sizeof price, g->price_usd);
        else
            snprintf(price, sizeof price, "\xE2\x80\x94");
        struct gpuplan_rate_choice rc;
        gpuplan_gpu_cloud_rate(g, (enum gpuplan_cloud_tier)pr->result->request.job.cloud_tier, &rc);
        if (rc.rate)
            snprintf(rate, sizeof rate, "%.2f", rc.rate->usd_per_gpu_hour);
        else
            snprintf(rate, sizeof rate, "\xE2\x80\x94");
        snprintf(cells[n][1], CELL_MAX, GPUPLAN_TR("%s; %s USD per GPU-hour"), price, rate);
        /* the price's own source when the record has one, the rate's provider and source */
        snprintf(cells[n][2], CELL_MAX, "%s%s%s%s%s",
                 g->price_source[0] ? g->price_source : g->source, rc.rate ? "; " : "",
                 rc.rate ? rc.rate->provider : "", rc.rate ? ": " : "",
                 rc.rate ? rc.rate->source : "");
        snprintf(cells[n][3], CELL_MAX, GPUPLAN_TR("record %s; price %s; rate %s"), g->retrieved,
                 g->price_date[0] ? g->price_date : "\xE2\x80\x94",
                 rc.rate && rc.rate->date[0] ? rc.rate->date : "\xE2\x80\x94");
        n++;
    }
    if (top->platform) {
        const struct gpuplan_platform *pl = top->platform;
        snprintf(cells[n][0], CELL_MAX, GPUPLAN_TR("Platform %s"), pl->id);
        char price[48];
        usd_words(price, sizeof price, pl->base_price_usd);
        snprintf(cells[n][1], CELL_MAX, GPUPLAN_TR("%s, %.0f W besides the GPUs"), price,
                 pl->base_power_w);
        snprintf(cells[n][2], CELL_MAX, "%s", pl->source);
        snprintf(cells[n][3], CELL_MAX, "%s", pl->retrieved);
        n++;
    }
    const struct gpuplan_catalog_model *cm =
        pr->catalog ? gpuplan_catalog_find_model(pr->catalog, pr->model->id) : NULL;
    snprintf(cells[n][0], CELL_MAX, GPUPLAN_TR("Model %s: architecture"), pr->model->id);
    snprintf(cells[n][1], CELL_MAX, GPUPLAN_TR("%llu parameters"),
             (unsigned long long)pr->model->n_params_total);
    snprintf(cells[n][2], CELL_MAX, "%s", cm ? cm->source : pr->model->source);
    snprintf(cells[n][3], CELL_MAX, "%s", cm ? cm->retrieved : "\xE2\x80\x94");
    n++;
    if (pr->has_inputs) {
        for (size_t i = 0; i < GPUPLAN_COST_INPUT_COUNT && n < SOURCE_ROWS - 2; i++) {
            const struct gpuplan_cost_value *cv = &pr->inputs.v[i];
            if (cv->origin == GPUPLAN_COST_FROM_CATALOG)
                continue; /* the catalog records above */
            if (i == GPUPLAN_COST_CLOUD_PRICE && !(cv->value > 0.0))
                continue; /* no rate: nothing was priced with it */
            snprintf(cells[n][0], CELL_MAX, "%s", GPUPLAN_TR(gpuplan_cost_options[i].help));
            snprintf(cells[n][1], CELL_MAX, "%.6g %s", cv->value, GPUPLAN_TR(input_units[i]));
            snprintf(cells[n][2], CELL_MAX, "%s",
                     cv->origin == GPUPLAN_COST_FROM_USER
                         ? GPUPLAN_TR("given in the request")
                         : GPUPLAN_TR("stated assumption of gpuplan (docs/tco.md)"));
            snprintf(cells[n][3], CELL_MAX, "\xE2\x80\x94");
            n++;
        }
    }
    snprintf(cells[n][0], CELL_MAX, "%s", GPUPLAN_TR("Memory per GPU"));
    snprintf(cells[n][1], CELL_MAX, "%s", GPUPLAN_TR("computed"));
    snprintf(cells[n][2], CELL_MAX, "%s",
             GPUPLAN_TR("gpuplan's memory model (docs/formulas.md), from the model's tensors"));
    snprintf(cells[n][3], CELL_MAX, "\xE2\x80\x94");
    n++;
    snprintf(cells[n][0], CELL_MAX, "%s", GPUPLAN_TR("Throughput, time and cost"));
    snprintf(cells[n][1], CELL_MAX, "%s", GPUPLAN_TR("computed"));
    snprintf(cells[n][2], CELL_MAX, "%s",
             top->is_serving
                 ? GPUPLAN_TR("gpuplan's serving model (docs/serving.md)")
                 : GPUPLAN_TR("gpuplan's time model (docs/formulas-time-cost.md) and the prices "
                              "above"));
    snprintf(cells[n][3], CELL_MAX, "\xE2\x80\x94");
    n++;
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < SOURCE_COLUMNS; k++)
            ptrs[i * SOURCE_COLUMNS + k] = cells[i][k];
    const struct gpuplan_doc_table t = {
        .id = "sources",
        .caption = GPUPLAN_TR("Sources of the figures (catalog records quote their sources as "
                              "published)"),
        .columns = cols,
        .n_columns = SOURCE_COLUMNS,
        .cells = ptrs,
        .n_rows = n,
        .highlight_row = SIZE_MAX,
    };
    gpuplan_doc_table(doc, &t);
}

/* ---- the document ---- */

/*
 * --format json: {"schema_version":1, "model", "recommended": "8 × gaudi3", "charts":
 * {"memory", "time_cost", "buy_rent", "tpot", "ttft": one <svg> each, with its own style, or
 * null}} (the two latency charts for a serving plan only).
 */
static enum gpuplan_status charts_json(struct proposal *pr,
                                       const struct gpuplan_proposal_options *opts,
                                       struct gpuplan_buf *out,
                                       struct gpuplan_error *err)
{
    pr->charts_only = true;
    pr->own_style = true;
    pr->width_px = opts->width_px;
    for (size_t i = 0; i < CHART_COUNT; i++)
        gpuplan_buf_init(&pr->charts[i], 0);
    struct gpuplan_buf svg;
    gpuplan_buf_init(&svg, 0);
    figure_memory(NULL, pr, &svg);
    figure_scatter(NULL, pr, &svg);
    figure_tco(NULL, pr, &svg);
    figure_latency(NULL, pr, &svg, false);
    figure_latency(NULL, pr, &svg, true);
    gpuplan_buf_release(&svg);
    json_t *root = json_object();
    json_t *charts = json_object();
    char layout[CELL_MAX];
    layout_words(layout, sizeof layout, pr->shown[0]);
    int bad = !root || !charts;
    bad |= json_object_set_new(root, "schema_version", json_integer(1));
    bad |= json_object_set_new(root, "model", json_string(pr->model->id));
    bad |= json_object_set_new(root, "recommended", json_string(layout));
    for (size_t i = 0; i < CHART_COUNT; i++) {
        struct gpuplan_error buf_err;
        gpuplan_error_init(&buf_err);
        const bool has =
            pr->charts[i].len > 0 && gpuplan_buf_status(&pr->charts[i], &buf_err) == GPUPLAN_OK;
        bad |= json_object_set_new(charts, chart_keys[i],
                                   has ? json_stringn(pr->charts[i].data, pr->charts[i].len)
                                       : json_null());
    }
    bad |= json_object_set_new(root, "charts", charts);
    if (bad) {
        json_decref(root);
        return gpuplan_error_set(err, GPUPLAN_ERR_NOMEM, "", "out of memory");
    }
    return gpuplan_json_write(
        root, JSON_SORT_KEYS | JSON_INDENT(2) | JSON_REAL_PRECISION(10) | JSON_ENSURE_ASCII, out,
        err);
}

enum gpuplan_status gpuplan_render_proposal(const struct gpuplan_model *model,
                                            const struct gpuplan_catalog *catalog,
                                            const struct gpuplan_plan_result *result,
                                            const struct gpuplan_proposal_options *opts,
                                            struct gpuplan_buf *out,
                                            struct gpuplan_error *err)
{
    if (gpuplan_format_check(opts->format, GPUPLAN_RENDER_PROPOSAL_FORMATS, err) != GPUPLAN_OK)
        return err->code;
    if (result->n_top == 0) {
        gpuplan_error_set(err, GPUPLAN_ERR_UNSUPPORTED, "",
                          "no plan meets the constraints: nothing to propose");
        for (size_t i = 0; i < result->n_notes && i < 1; i++)
            gpuplan_error_hint(err, "%s", result->notes[i]);
        return err->code;
    }
    struct proposal *prp = calloc(1, sizeof *prp);
    if (!prp)
        return gpuplan_error_set(err, GPUPLAN_ERR_NOMEM, "", "out of memory");
    struct proposal *const pr = prp;
    pr->result = result;
    pr->catalog = catalog;
    pr->model = model;
    pick_shown(pr, opts->max_plans);
    pr->md_prefix = opts->md_prefix ? opts->md_prefix : "";
    pr->md_links = opts->format == GPUPLAN_FORMAT_MD && opts->chart_sink != NULL;
    pr->own_style = pr->md_links;
    pr->opts = opts;
    gpuplan_error_init(&pr->sink_err);
    gather_memory(pr);
    gather_tco(pr);
    gather_curve(pr);
    if (opts->format == GPUPLAN_FORMAT_JSON) {
        const enum gpuplan_status st = charts_json(pr, opts, out, err);
        for (size_t i = 0; i < CHART_COUNT; i++)
            gpuplan_buf_release(&pr->charts[i]);
        free(pr->tco);
        free(prp);
        return st;
    }

    const struct gpuplan_plan *top = pr->shown[0];
    const struct gpuplan_catalog_model *cm =
        catalog ? gpuplan_catalog_find_model(catalog, model->id) : NULL;
    char title[CELL_MAX], subtitle[CELL_MAX], layout[CELL_MAX], footer[CELL_MAX];
    const char *model_name = cm && cm->name[0] ? cm->name : model->id;
    snprintf(title, sizeof title,
             top->is_serving ? GPUPLAN_TR("GPU server proposal: serving %s")
                             : GPUPLAN_TR("GPU server proposal: fine-tuning %s"),
             model_name);
    layout_words(layout, sizeof layout, top);
    snprintf(subtitle, sizeof subtitle, GPUPLAN_TR("Recommended: %s on %s"), layout,
             top->server.platform_name[0] ? top->server.platform_name : top->gpu->name);
    snprintf(footer, sizeof footer,
             GPUPLAN_TR("Estimates computed by gpuplan %s, not a vendor quote."),
             opts->version ? opts->version : "");
    const struct gpuplan_doc_head head = {
        .lang = opts->lang && opts->lang[0] ? opts->lang : "en",
        .title = title,
        .subtitle = subtitle,
        .date_label = GPUPLAN_TR("Date"),
        .date = opts->date,
        .footer = footer,
        .paper = GPUPLAN_DOC_PAPER_ANY,
    };
    struct gpuplan_doc doc;
    const enum gpuplan_doc_format df =
        opts->format == GPUPLAN_FORMAT_MD ? GPUPLAN_DOC_MD : GPUPLAN_DOC_HTML;
    gpuplan_doc_begin(&doc, out, df, &head);

    /* Not kept whole: the section is taller than what is left of page one under the header;
     * the bill of materials itself never breaks (doc.c), so it stays on page one. */
    gpuplan_doc_section_begin(&doc, "summary", GPUPLAN_TR("The job and the recommended server"), 0);
    section_job(&doc, pr);
    section_bom(&doc, pr);
    gpuplan_doc_section_end(&doc);

    gpuplan_doc_section_begin(&doc, "run", GPUPLAN_TR("Time and cost of the run"), 0);
    section_run(&doc, pr);
    gpuplan_doc_section_end(&doc);

    gpuplan_doc_section_begin(&doc, "alternatives", GPUPLAN_TR("Alternatives"),
                              GPUPLAN_DOC_BREAK_BEFORE);
    section_alternatives(&doc, pr);
    gpuplan_doc_section_end(&doc);

    struct gpuplan_buf svg;
    gpuplan_buf_init(&svg, 0);
    gpuplan_doc_section_begin(&doc, "charts", GPUPLAN_TR("Pictures"), GPUPLAN_DOC_BREAK_BEFORE);
    if (opts->format == GPUPLAN_FORMAT_MD && !pr->md_links)
        gpuplan_doc_note(&doc, GPUPLAN_TR("The pictures are SVG files beside the Markdown "
                                          "(gpuplan propose --format md -o FILE); this copy "
                                          "has their captions only."));
    figure_memory(&doc, pr, &svg);
    figure_scatter(&doc, pr, &svg);
    if (!top->is_serving && !top->has_time)
        gpuplan_doc_note(&doc, GPUPLAN_TR("No time-vs-cost chart: the request gives no training "
                                          "tokens (--tokens N)."));
    figure_tco(&doc, pr, &svg);
    figure_latency(&doc, pr, &svg, false);
    figure_latency(&doc, pr, &svg, true);
    gpuplan_doc_section_end(&doc);
    gpuplan_buf_release(&svg);

    gpuplan_doc_section_begin(&doc, "risks", GPUPLAN_TR("Maturity and risks of the stack"),
                              GPUPLAN_DOC_BREAK_BEFORE);
    section_risks(&doc, pr);
    gpuplan_doc_section_end(&doc);

    gpuplan_doc_section_begin(&doc, "launch", GPUPLAN_TR("Launch configuration"), 0);
    section_launch(&doc, top);
    gpuplan_doc_section_end(&doc);

    gpuplan_doc_section_begin(&doc, "sources", GPUPLAN_TR("Where the numbers come from"),
                              GPUPLAN_DOC_BREAK_BEFORE);
    section_sources(&doc, pr);
    if (opts->command && opts->command[0]) {
        const struct gpuplan_doc_code c = { .summary = GPUPLAN_TR("Reproduce this document"),
                                            .language = "sh",
                                            .text = opts->command,
                                            .len = strlen(opts->command),
                                            .is_open = true };
        gpuplan_doc_code(&doc, &c);
    }
    gpuplan_doc_section_end(&doc);
    enum gpuplan_status st = gpuplan_doc_end(&doc, err);
    if (st == GPUPLAN_OK && pr->sink_status != GPUPLAN_OK) {
        st = pr->sink_status;
        if (err && pr->sink_err.code != GPUPLAN_OK)
            *err = pr->sink_err;
        else
            gpuplan_error_set(err, st, "", "a chart of the document was not written");
    }
    free(pr->tco);
    free(prp);
    return st;
}
