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
 * A catalog id (its embedded config.json), a Hub id or a model path. Files go through
 * the library's loader, which opens with O_NONBLOCK and refuses FIFOs,
 * devices and sockets before reading, so `estimate /path/to/fifo` cannot hang.
 */
static enum gpuplan_status load_model(struct gpuplan_model *model,
                                      const char *name,
                                      const struct gpuplan_catalog *catalog,
                                      struct gpuplan_error *err)
{
    const enum gpuplan_status st = cli_load_model(model, name, catalog, err);
    if (st == GPUPLAN_OK && !model->id[0])
        snprintf(model->id, sizeof model->id, "%s", name);
    return st;
}

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
    .description = N_(
        "Estimate GPU and host memory to fine-tune or serve MODEL (a catalog id, a "
        "Hugging Face Hub id or a path, as for 'gpuplan inspect'). With --gpu, also the step time, tokens/s, MFU and bottleneck "
        "(serving: prefill, decode, time to first token), the time to train --tokens "
        "N (or --dataset-tokens N) x --epochs, and its cloud cost at the catalog's "
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
    const char *model_name = args.positional[0];
    struct gpuplan_error err;
    gpuplan_error_init(&err);

    rc = CLI_OK;
    struct gpuplan_catalog *catalog = NULL;
    struct gpuplan_model model;
    struct gpuplan_buf out;
    struct gpuplan_estimate *estimate = calloc(1, sizeof *estimate);
    gpuplan_model_init(&model);
    gpuplan_buf_init(&out, GPUPLAN_BUF_DEFAULT_MAX_BYTES);
    const struct gpuplan_gpu *gpu = NULL;
    struct gpuplan_gpu local_gpu;
    if (!estimate) {
        gpuplan_error_set(&err, GPUPLAN_ERR_NOMEM, NULL, "out of memory");
        rc = cli_report(&err);
        goto out;
    }
    if (gpuplan_catalog_load(&catalog, common.catalog_dir, &err) != GPUPLAN_OK ||
        load_model(&model, model_name, catalog, &err) != GPUPLAN_OK ||
        resolve_gpu(catalog, &job, &local_gpu, &gpu, &err) != GPUPLAN_OK ||
        gpuplan_estimate_run(&model, &job, gpu, estimate, &err) != GPUPLAN_OK ||
        gpuplan_render_estimate(estimate, common.format, &out, &err) != GPUPLAN_OK) {
        rc = cli_report(&err);
        goto out;
    }
    rc = cli_write_buf(&out);
out:
    free(estimate);
    gpuplan_buf_release(&out);
    gpuplan_model_release(&model);
    gpuplan_catalog_free(catalog);
    return rc;
}
