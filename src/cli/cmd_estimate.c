/*
 * cmd_estimate.c - `gpuplan estimate MODEL [job options]`: memory per GPU
 * and per host, the fit verdict and what to change to fit; with a GPU, time,
 * throughput and cloud cost (rendered by the library, as for the HTTP API).
 *
 * Job options are the library's option table (gpuplan_job_options), read
 * by the same parser as every command's (cli_parse). MODEL is a catalog id,
 * a Hugging Face Hub id, or a path to a model file or directory.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "gpuplan/estimate.h"
#include "i18n.h"

/*
 * --gpu ID[:N] from the catalog, or --gpu local: the GPUs of this machine
 * (their count becomes the GPUs per node, their memory the usable memory).
 */
static enum gpuplan_status resolve_gpu(const struct gpuplan_catalog *catalog,
                                       struct gpuplan_job *job,
                                       struct gpuplan_gpu *local_gpu,
                                       const struct gpuplan_gpu **gpu,
                                       struct gpuplan_error *err)
{
    if (!job->gpu_id[0])
        return GPUPLAN_OK;
    if (strcmp(job->gpu_id, "local") != 0)
        return gpuplan_catalog_get_gpu(catalog, job->gpu_id, gpu, err);
    uint32_t count = 0;
    enum gpuplan_status st = cli_local_gpu(catalog, local_gpu, &count, err);
    if (st != GPUPLAN_OK)
        return st;
    job->gpus_per_node = count;
    *gpu = local_gpu;
    return GPUPLAN_OK;
}

static int cmd_estimate(int argc, char **argv);

static const struct gpuplan_option common_options[] = {
    CLI_FORMAT_OPTION(GPUPLAN_RENDER_ESTIMATE_FORMATS),
    CLI_CATALOG_OPTION,
    { .name = NULL },
};

const struct cli_command cli_cmd_estimate = {
    .name = "estimate",
    .run = cmd_estimate,
    .summary = N_("memory per GPU and host to fine-tune or serve a model"),
    .usage = N_("estimate MODEL [OPTIONS]"),
    .description =
        N_("Estimate GPU and host memory to fine-tune or serve MODEL (a catalog id, a Hugging Face "
           "Hub id or a path, as for 'gpuplan inspect'). With --gpu, also the step time, tokens/s, "
           "MFU and bottleneck (serving: prefill, decode, time to first token), the time to train "
           "--tokens N (or --dataset-tokens N) x --epochs, and its cloud cost at the catalog's "
           "on-demand rate."),
    .model_arg = "MODEL",
    .n_positional = 1,
    .groups = { { N_("options"), gpuplan_job_options, 0 }, { N_("options"), common_options, 0 } },
};

static int cmd_estimate(int argc, char **argv)
{
    struct gpuplan_job job;
    gpuplan_job_init(&job);
    struct cli_common common = { GPUPLAN_FORMAT_TEXT, NULL };
    (void)gpuplan_options_init(common_options, &common, NULL);
    struct gpuplan_argv args;
    void *const dests[] = { &job, &common };
    int rc = cli_parse(&cli_cmd_estimate, dests, argc, argv, &args);
    if (rc >= 0)
        return rc;
    if (args.n_positional == 0)
        return cli_missing_model(&cli_cmd_estimate);
    struct cli_run run;
    cli_run_init(&run);
    struct gpuplan_estimate *estimate = calloc(1, sizeof *estimate);
    const struct gpuplan_gpu *gpu = NULL;
    struct gpuplan_gpu local_gpu;
    enum gpuplan_status st =
        estimate ? cli_run_load(&run, common.catalog_dir, args.positional[0])
                 : gpuplan_error_set(&run.err, GPUPLAN_ERR_NOMEM, NULL, "out of memory");
    if (st == GPUPLAN_OK && !run.model.id[0]) /* a path: name the model by it */
        (void)snprintf(run.model.id, sizeof run.model.id, "%s", args.positional[0]);
    if (st == GPUPLAN_OK)
        st = resolve_gpu(run.catalog, &job, &local_gpu, &gpu, &run.err);
    if (st == GPUPLAN_OK)
        st = gpuplan_estimate_run(&run.model, &job, gpu, estimate, &run.err);
    if (st == GPUPLAN_OK)
        st = gpuplan_render_estimate(estimate, common.format, &run.out, &run.err);
    free(estimate);
    return cli_run_finish(&run, st);
}
