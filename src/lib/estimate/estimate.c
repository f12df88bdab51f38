/*
 * estimate.c - `gpuplan estimate` as one value (estimate.h): the memory
 * report, then with a GPU the time of the same job and its cloud cost at
 * the catalog's rate at the job's cloud tier; a serving job is the serving module's
 * (serving_estimate.c) with its cost per million output tokens.
 *
 * Not here: the memory formulas (memory_model.c), the time model
 * (throughput.c), the cost formulas (cost.c), formatting (render_estimate.c).
 */
#include "gpuplan/estimate.h"

#include <stdio.h>
#include <string.h>

#include "estimate/serving_internal.h"
#include "gpuplan/cost.h"
#include "gpuplan/units.h"

static void cost_init(const struct gpuplan_job *job,
                      const struct gpuplan_gpu *gpu,
                      struct gpuplan_estimate_cost *c)
{
    memset(c, 0, sizeof *c);
    c->n_gpus = (job->gpus_per_node ? job->gpus_per_node : 1) * (job->nodes ? job->nodes : 1);
    struct gpuplan_rate_choice choice;
    gpuplan_gpu_cloud_rate(gpu, (enum gpuplan_cloud_tier)job->cloud_tier, &choice);
    c->tier_asked = job->cloud_tier;
    c->tier = choice.rate ? (int)choice.rate->tier : job->cloud_tier;
    c->rate_fallback = choice.fallback;
    if (choice.rate) {
        c->usd_per_gpu_hour = choice.rate->usd_per_gpu_hour;
        (void)snprintf(c->provider, sizeof c->provider, "%s", choice.rate->provider);
    }
}

/* Training: GPU-hours and the cloud run (gpuplan_cost_cloud_run_usd). */
static void estimate_cost(const struct gpuplan_job *job,
                          const struct gpuplan_gpu *gpu,
                          const struct gpuplan_throughput *t,
                          struct gpuplan_estimate_cost *c)
{
    cost_init(job, gpu, c);
    if (t->has_train_time) {
        c->has_gpu_hours = true;
        c->gpu_hours = t->train_hours * c->n_gpus;
        if (c->usd_per_gpu_hour > 0) {
            c->has_cloud_usd = true;
            c->cloud_usd =
                gpuplan_cost_cloud_run_usd(t->train_hours, c->n_gpus, c->usd_per_gpu_hour);
        }
    }
}

/* Serving: one hour of all the GPUs over the output tokens of that hour at the job's load
 * (gpuplan_cost_usd_per_mtok). */
static void serving_cost(const struct gpuplan_job *job,
                         const struct gpuplan_gpu *gpu,
                         const struct gpuplan_estimate_serving *sv,
                         struct gpuplan_estimate_cost *c)
{
    cost_init(job, gpu, c);
    if (sv->has_time && c->usd_per_gpu_hour > 0 && sv->output_tokens_per_s > 0) {
        c->has_usd_per_mtok = true;
        c->usd_per_mtok = gpuplan_cost_usd_per_mtok(
            gpuplan_cost_cloud_run_usd(1.0, c->n_gpus, c->usd_per_gpu_hour),
            sv->output_tokens_per_s);
    }
}

static enum gpuplan_status estimate_run(const struct gpuplan_model *model,
                                        const struct gpuplan_job *job,
                                        const struct gpuplan_gpu *gpu,
                                        const struct gpuplan_platform *platform,
                                        struct gpuplan_estimate *out,
                                        struct gpuplan_error *err)
{
    memset(out, 0, sizeof *out);
    out->is_serving = job->method == GPUPLAN_METHOD_INFER;
    const enum gpuplan_status st =
        out->is_serving ? serving_estimate(model, job, gpu, &out->memory, &out->serving, err)
                        : gpuplan_estimate_memory(model, job, gpu, &out->memory, err);
    if (st != GPUPLAN_OK)
        return st;
    (void)snprintf(out->model_id, sizeof out->model_id, "%s", model->id);
    out->n_params = model->n_params_total;
    gpuplan_job_resolve(job, &out->job);
    if (!gpu)
        return GPUPLAN_OK;
    out->has_gpu = true;
    (void)snprintf(out->gpu_id, sizeof out->gpu_id, "%s", gpu->id);
    struct gpuplan_rate_choice choice;
    gpuplan_gpu_cloud_rate(gpu, (enum gpuplan_cloud_tier)job->cloud_tier, &choice);
    (void)snprintf(out->gpu_cloud_date, sizeof out->gpu_cloud_date, "%s",
                   choice.rate ? choice.rate->date : "");
    if (out->is_serving) {
        serving_cost(&out->job, gpu, &out->serving, &out->cost);
        return GPUPLAN_OK;
    }
    struct gpuplan_error why;
    gpuplan_error_init(&why);
    out->has_throughput = gpuplan_throughput_estimate(model, job, gpu, platform, &out->throughput,
                                                      &why) == GPUPLAN_OK;
    if (platform)
        (void)snprintf(out->platform_id, sizeof out->platform_id, "%s", platform->id);
    if (!out->has_throughput) {
        (void)snprintf(out->throughput_error, sizeof out->throughput_error, "%s", why.message);
        return GPUPLAN_OK;
    }
    estimate_cost(job, gpu, &out->throughput, &out->cost);
    return GPUPLAN_OK;
}

enum gpuplan_status gpuplan_estimate_run_in(const struct gpuplan_model *model,
                                            const struct gpuplan_job *job,
                                            const struct gpuplan_gpu *gpu,
                                            const struct gpuplan_platform *platform,
                                            struct gpuplan_estimate *out,
                                            struct gpuplan_error *err)
{
    const enum gpuplan_status st = estimate_run(model, job, gpu, platform, out, err);
    if (st == GPUPLAN_OK) /* every figure's range from its class's out-of-sample errors */
        gpuplan_estimate_ranges_fill(out, &out->ranges);
    return st;
}

enum gpuplan_status gpuplan_estimate_run(const struct gpuplan_model *model,
                                         const struct gpuplan_job *job,
                                         const struct gpuplan_gpu *gpu,
                                         struct gpuplan_estimate *out,
                                         struct gpuplan_error *err)
{
    return gpuplan_estimate_run_in(model, job, gpu, NULL, out, err);
}
