/*
 * serving_estimate.c - `gpuplan estimate --method infer`: a job's serving
 * request, the engine's start-up accounting as the memory report (with the
 * changes that make a refused start start), and continuous batching at the
 * job's load, its launch line and benchmark.
 *
 * One serving model: the engines' (serving.h, serving*.c). A replica is tp
 * x pp GPUs (gpuplan_job_resolve: tensor parallel over a server's GPUs,
 * pipeline stages across servers); the GPUs given hold GPUs / (tp x pp)
 * replicas, and the job's concurrency is split over them.
 * Not here: the formulas (serving.c, serving_memory.c, serving_time.c), the
 * cost (estimate.c), formatting (render_serving.c), the search
 * (plan_serve.c).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "estimate/serving_internal.h"
#include "gpuplan/estimate.h"
#include "gpuplan/units.h"

/* "More GPUs" is suggested up to a full 8-GPU board, as for training (memory_model.c). */
#define SUGGEST_MAX_GPUS_PER_NODE 8u
/* A utilisation suggested for a refused vLLM start on a GPU the engine has to itself: 5 %
 * is left for the CUDA context (0.4-0.6 GiB), NCCL (0.25 GiB) and graphs on an 80 GB GPU;
 * an assumption, and the suggestion is re-evaluated like any other. */
#define SUGGEST_HIGH_UTILIZATION 0.95
/* Suggested fractions are rounded to this step, as users type them (0.87, not 0.8713). */
#define FRACTION_STEP 0.01

void gpuplan_serving_request_from_job(const struct gpuplan_job *job_in,
                                      struct gpuplan_serving_request *req)
{
    struct gpuplan_job job;
    gpuplan_job_resolve(job_in, &job);
    gpuplan_serving_request_init(req);
    req->engine = job.engine;
    (void)snprintf(req->engine_version, sizeof req->engine_version, "%s", job.engine_version);
    req->memory_fraction = job.gpu_memory_utilization;
    req->max_model_len = job.max_model_len;
    req->max_num_seqs = job.max_num_seqs;
    req->max_num_batched_tokens = job.max_num_batched_tokens;
    req->kv_dtype = job.kv_dtype;
    req->tp = job.tp;
    req->pp = job.pp;
    req->ep = job.ep;
    req->enforce_eager = job.enforce_eager;
    req->weights_dtype = job.weights_dtype;
}

/* ---- the memory report ---------------------------------------------------- */

/* How far a start is from starting: the KV cache one request lacks, or the graphs' excess. */
static double shortfall_bytes(const struct gpuplan_serving_memory *m)
{
    if (m->refuse_start)
        return (double)m->kv_needed_bytes - (double)m->kv_pool_bytes;
    if (m->graph_capture_oom)
        return (double)m->cuda_graph_bytes +
               (m->engine == GPUPLAN_SERVING_SGLANG ? (double)m->activation_peak_bytes : 0.0) -
               (double)m->graph_headroom_bytes;
    return 0.0;
}

/*
 * The engine's accounting as the memory report's categories: weights as
 * loaded, the profile run's activation peak, the pool the engine allocates,
 * non-torch memory and CUDA graphs as overhead, the CUDA context. The
 * engine allocates its pool up front, so allocated and reserved are one;
 * what nvidia-smi shows adds the rest. "Fits" means it starts.
 */
static void report_of(const struct gpuplan_serving_memory *m,
                      const struct gpuplan_gpu *gpu,
                      struct gpuplan_memory_estimate *e)
{
    struct gpuplan_memory_per_gpu *g = &e->per_gpu;
    g->weights_bytes = m->weights_bytes;
    g->activations_bytes = m->activation_peak_bytes;
    g->kv_cache_bytes = m->kv_pool_bytes > 0 ? (uint64_t)m->kv_pool_bytes : 0;
    g->overhead_bytes = m->non_torch_bytes + m->cuda_graph_bytes;
    g->cuda_context_bytes = gpuplan_bytes_from_double(serving_cuda_context_bytes(gpu));
    g->peak_allocated_bytes = g->weights_bytes + g->activations_bytes + g->kv_cache_bytes;
    g->peak_reserved_bytes = g->peak_allocated_bytes;
    g->device_total_bytes = g->peak_reserved_bytes + g->overhead_bytes + g->cuda_context_bytes;
    e->has_gpu = true;
    e->gpu_usable_bytes = m->device_total_bytes;
    e->fits = gpuplan_serving_starts(m);
    /* a start that fails is short by what it lacks (the KV of one request, the graphs) */
    const double short_by = shortfall_bytes(m);
    e->headroom_bytes = e->fits ? (int64_t)e->gpu_usable_bytes - (int64_t)g->device_total_bytes
                        : short_by > 9.0e18 ? INT64_MIN
                                            : -(int64_t)short_by;
    e->kv_capacity_tokens = m->refuse_start ? 0 : m->kv_capacity_tokens;
    e->max_concurrency = m->refuse_start ? 0.0 : m->max_concurrency;
    e->max_model_len = m->max_model_len;
}

struct suggest_ctx {
    const struct gpuplan_serving_profile *profile;
    const struct gpuplan_job *job;
    const struct gpuplan_gpu *gpu;
    double shortfall;
    struct gpuplan_memory_report *report;
};

/* The job with one option changed through the table, as a user would type it. */
static void try_change(struct suggest_ctx *c, const char *option, const char *value)
{
    struct gpuplan_job j = *c->job;
    if (gpuplan_job_set(&j, option, value, NULL) != GPUPLAN_OK)
        return;
    if (strcmp(option, "gpu") == 0)
        j.tp_set = j.pp_set = false; /* more GPUs: the engines' default layout over them */
    struct gpuplan_serving_request req;
    gpuplan_serving_request_from_job(&j, &req);
    struct gpuplan_serving_memory m;
    if (gpuplan_serving_memory(c->profile, &req, c->gpu, &m, NULL) != GPUPLAN_OK)
        return;
    const double saving = c->shortfall - shortfall_bytes(&m);
    struct gpuplan_memory_report *r = c->report;
    if ((!(saving > 0.0) && !gpuplan_serving_starts(&m)) ||
        r->n_suggestions >= GPUPLAN_MAX_SUGGESTIONS)
        return;
    struct gpuplan_memory_suggestion *s = &r->suggestions[r->n_suggestions++];
    (void)snprintf(s->change, sizeof s->change, "--%s %s", option, value);
    s->saving_bytes = saving > 9.0e18 ? INT64_MAX : (int64_t)saving;
    s->fits = gpuplan_serving_starts(&m);
}

static int suggestion_cmp(const void *a, const void *b)
{
    const struct gpuplan_memory_suggestion *x = a, *y = b;
    if (x->fits != y->fits)
        return x->fits ? -1 : 1;
    return x->saving_bytes > y->saving_bytes   ? -1
           : x->saving_bytes < y->saving_bytes ? 1
                                               : strcmp(x->change, y->change);
}

/* A fraction rounded down (or up) to FRACTION_STEP, as option text. */
static void fraction_text(double f, bool up, char *out, size_t cap)
{
    const double steps = up ? ceil(f / FRACTION_STEP - 1e-9) : floor(f / FRACTION_STEP + 1e-9);
    (void)snprintf(out, cap, "%.2f", steps * FRACTION_STEP);
}

/*
 * What makes a refused start (or an OOM at graph capture) start, each
 * change alone: the longest max_model_len that fits, an fp8 cache and fp8
 * weights (where the GPU has fp8), 4-bit AWQ weights, twice the GPUs, a
 * higher memory fraction (SGLang: the minimum the engine names), eager mode
 * or a lower utilisation for the graphs.
 */
static void suggest(struct suggest_ctx *c, const struct gpuplan_serving_memory *m)
{
    char text[64];
    const struct gpuplan_job *job = c->job;
    const bool sglang = m->engine == GPUPLAN_SERVING_SGLANG;
    if (m->refuse_start) {
        if (m->largest_max_model_len > 0 && m->largest_max_model_len < m->max_model_len) {
            (void)snprintf(text, sizeof text, "%llu", (unsigned long long)m->largest_max_model_len);
            try_change(c, "max-model-len", text);
        }
        if (job->kv_dtype != GPUPLAN_SERVING_KV_FP8 && c->gpu->has_fp8)
            try_change(c, "kv-dtype", "fp8");
        if (job->weights_dtype != GPUPLAN_DTYPE_F8_E4M3 && c->gpu->has_fp8 &&
            !gpuplan_serving_profile_stored_fp8(c->profile))
            try_change(c, "weights", "fp8");
        if (job->weights_dtype != GPUPLAN_DTYPE_AWQ4)
            try_change(c, "weights", "awq");
        if (sglang && m->min_memory_fraction < 1.0 - FRACTION_STEP) {
            fraction_text(m->min_memory_fraction + FRACTION_STEP, true, text, sizeof text);
            try_change(c, "mem-fraction-static", text);
        } else if (!sglang && m->memory_fraction < SUGGEST_HIGH_UTILIZATION) {
            fraction_text(SUGGEST_HIGH_UTILIZATION, false, text, sizeof text);
            try_change(c, "gpu-memory-utilization", text);
        }
    } else if (m->graph_capture_oom) {
        try_change(c, "enforce-eager", "yes");
        const double total = (double)m->device_total_bytes;
        const double lower = m->memory_fraction - c->shortfall / (total > 0 ? total : 1.0);
        if (lower > FRACTION_STEP) {
            fraction_text(lower - FRACTION_STEP, false, text, sizeof text);
            try_change(c, sglang ? "mem-fraction-static" : "gpu-memory-utilization", text);
        }
    }
    if (job->gpus_per_node < SUGGEST_MAX_GPUS_PER_NODE && !job->tp_set) {
        (void)snprintf(text, sizeof text, "%s:%u", c->gpu->id, job->gpus_per_node * 2);
        try_change(c, "gpu", text);
    }
    qsort(c->report->suggestions, c->report->n_suggestions, sizeof c->report->suggestions[0],
          suggestion_cmp);
}

/* ---- the load ------------------------------------------------------------- */

static const char *step_bound(const struct gpuplan_serving_step *s)
{
    static const char *const names[] = { "weights",   "kv",  "compute", "allreduce",
                                         "per-layer", "moe", "pipeline" };
    const double terms[] = { s->weights_s,        s->kv_s,  s->compute_s,     s->allreduce_s,
                             s->layer_overhead_s, s->moe_s, s->pipeline_hop_s };
    size_t best = 0;
    for (size_t i = 1; i < sizeof terms / sizeof terms[0]; i++) {
        if (terms[i] > terms[best])
            best = i;
    }
    return names[best];
}

/* Continuous batching on one replica at its share of the job's concurrency. */
static void serving_time(const struct gpuplan_serving_profile *p,
                         const struct gpuplan_job *job,
                         const struct gpuplan_gpu *gpu,
                         const struct gpuplan_model *model,
                         struct gpuplan_estimate_serving *sv)
{
    const struct gpuplan_serving_memory *m = &sv->memory;
    sv->concurrency = job->concurrency ? job->concurrency : 1;
    const uint64_t per = (sv->concurrency + sv->replicas - 1) / sv->replicas;
    sv->load.input_tokens = job->input_tokens;
    sv->load.output_tokens = job->output_tokens;
    sv->load.concurrency = per;
    gpuplan_serving_commands(model->hub_id[0] ? model->hub_id : model->id, &sv->request, m,
                             &sv->load, gpuplan_serving_profile_stored_fp8(p), &sv->commands);
    if (!gpuplan_serving_starts(m)) {
        (void)snprintf(sv->time_error, sizeof sv->time_error, "%s", m->summary);
        return;
    }
    struct gpuplan_error why;
    gpuplan_error_init(&why);
    if (gpuplan_serving_steady_state(p, &sv->request, gpu, m, &sv->load, &sv->steady, &why) !=
            GPUPLAN_OK ||
        gpuplan_serving_step_time(p, &sv->request, gpu, sv->steady.concurrency,
                                  job->input_tokens + job->output_tokens / 2, 0, &sv->decode_step,
                                  &why) != GPUPLAN_OK) {
        (void)snprintf(sv->time_error, sizeof sv->time_error, "%s", why.message);
        return;
    }
    sv->has_time = true;
    const uint64_t busy = (sv->concurrency + per - 1) / per; /* replicas with requests */
    sv->output_tokens_per_s = sv->steady.output_tokens_per_s * (double)busy;
    sv->output_tokens_per_s_per_gpu =
        sv->output_tokens_per_s / ((double)sv->replicas * m->tp * (m->pp ? m->pp : 1));
    sv->step_bound = step_bound(&sv->decode_step);
}

enum gpuplan_status serving_estimate(const struct gpuplan_model *model,
                                     const struct gpuplan_job *job_in,
                                     const struct gpuplan_gpu *gpu,
                                     struct gpuplan_memory_report *report,
                                     struct gpuplan_estimate_serving *sv,
                                     struct gpuplan_error *err)
{
    memset(report, 0, sizeof *report);
    if (sv)
        memset(sv, 0, sizeof *sv);
    struct gpuplan_job job;
    gpuplan_job_resolve(job_in, &job);
    const uint64_t n_gpus = (uint64_t)job.gpus_per_node * job.nodes;
    const uint64_t mp = (uint64_t)job.tp * job.pp;
    if (mp > n_gpus || n_gpus % mp != 0) {
        gpuplan_error_set(err, GPUPLAN_ERR_USAGE, NULL,
                          "'--tp' x '--pp' is %llu; must divide the %llu GPUs given",
                          (unsigned long long)mp, (unsigned long long)n_gpus);
        gpuplan_error_hint(err, "leave --tp and --pp out: the engines split a replica over the "
                                "GPUs of a server (tp) and across servers (pp)");
        return GPUPLAN_ERR_USAGE;
    }
    struct gpuplan_serving_profile profile;
    enum gpuplan_status st = gpuplan_serving_profile_build(&profile, model, err);
    if (st != GPUPLAN_OK)
        return st;
    struct gpuplan_serving_request req;
    gpuplan_serving_request_from_job(&job, &req);
    struct gpuplan_memory_estimate *e = &report->est;
    e->n_gpus = (uint32_t)n_gpus;
    e->dp_degree = (uint32_t)(n_gpus / mp);
    e->shard_degree = 1;
    if (!gpu) {
        struct serving_layout l;
        st = serving_layout_resolve(&profile, &req, &l, err);
        if (st != GPUPLAN_OK)
            return st;
        e->per_gpu.weights_bytes =
            gpuplan_bytes_from_double(serving_weights_rank_bytes(&profile, &l, req.weights_dtype));
        e->per_gpu.peak_allocated_bytes = e->per_gpu.weights_bytes;
        e->per_gpu.peak_reserved_bytes = e->per_gpu.weights_bytes;
        e->per_gpu.device_total_bytes = e->per_gpu.weights_bytes;
        e->max_model_len = req.max_model_len ? req.max_model_len : profile.max_position_embeddings;
        if (sv) {
            sv->request = req;
            sv->replicas = e->dp_degree;
        }
        return GPUPLAN_OK;
    }
    struct gpuplan_serving_memory local = { 0 };
    struct gpuplan_serving_memory *m = sv ? &sv->memory : &local;
    st = gpuplan_serving_memory(&profile, &req, gpu, m, err);
    if (st != GPUPLAN_OK)
        return st;
    report_of(m, gpu, e);
    if (!gpuplan_serving_starts(m)) {
        struct suggest_ctx c = { &profile, &job, gpu, shortfall_bytes(m), report };
        suggest(&c, m);
    }
    if (sv) {
        sv->request = req;
        sv->has_memory = true;
        sv->replicas = e->dp_degree;
        serving_time(&profile, &job, gpu, model, sv);
    }
    return GPUPLAN_OK;
}
