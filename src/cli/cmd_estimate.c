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

struct estimate_args {
    struct cli_common common; /* first: CLI_FORMAT_OPTION's offsets are cli_common's */
    struct cli_from from;
};

static const struct gpuplan_option common_options[] = {
    CLI_FROM_OPTION(struct estimate_args, from),
    CLI_FORMAT_OPTION(GPUPLAN_RENDER_ESTIMATE_FORMATS),
    CLI_CATALOG_OPTION,
    { .name = NULL },
};

const struct cli_command cli_cmd_estimate = {
    .name = "estimate",
    .run = cmd_estimate,
    .summary = N_("memory per GPU and host to fine-tune or serve a model"),
    .usage = N_("estimate MODEL [OPTIONS] | estimate --from FILE [MODEL] [OPTIONS]"),
    .description =
        N_("Estimate GPU and host memory to fine-tune or serve MODEL (a catalog id, a Hugging Face "
           "Hub id or a path, as for 'gpuplan inspect'). With --gpu, also the step time, tokens/s, "
           "MFU and bottleneck (serving: prefill, decode, time to first token), the time to train "
           "--tokens N (or --dataset-tokens N) x --epochs, and its cloud cost at the catalog's "
           "on-demand rate.\n\nWith --from FILE the job is read from a training config (kind "
           "detected from its content, or named as KIND:FILE); the options given override the "
           "file, MODEL overrides the model it names, and the output lists the keys it did not "
           "understand and the framework defaults it took.\n\nTraining figures carry an 80-percent "
           "range from the out-of-sample errors of their class (--stack x --method x memory kind, "
           "validation/intervals-*.csv); with --gpu the verdict reads the device-total range.\n\n"
           "Exit status: 0 when it fits (the top of the range fits, or no --gpu was given), 4 when "
           "the range straddles the usable memory (MAY NOT FIT), 3 when it does not fit the --gpu, "
           "1 on a run error, 2 on a usage error."),
    .model_arg = "MODEL",
    .n_positional = 1,
    .groups = { { N_("options"), gpuplan_job_options, 0 }, { N_("options"), common_options, 0 } },
};

static int run_estimate(struct gpuplan_job *job,
                        const struct cli_common *common,
                        const char *model,
                        const struct gpuplan_config *cfg)
{
    struct cli_run run;
    cli_run_init(&run);
    struct gpuplan_estimate *estimate = calloc(1, sizeof *estimate);
    const struct gpuplan_gpu *gpu = NULL;
    struct gpuplan_gpu local_gpu;
    enum gpuplan_status st =
        estimate ? cli_run_load(&run, common->catalog_dir, model)
                 : gpuplan_error_set(&run.err, GPUPLAN_ERR_NOMEM, NULL, "out of memory");
    if (st == GPUPLAN_OK && !run.model.id[0]) /* a path: name the model by it */
        (void)snprintf(run.model.id, sizeof run.model.id, "%.127s", model);
    if (st == GPUPLAN_OK)
        st = resolve_gpu(run.catalog, job, &local_gpu, &gpu, &run.err);
    if (st == GPUPLAN_OK)
        st = gpuplan_estimate_run_in(
            &run.model, job, gpu, cli_network_platform(run.catalog, job, gpu), estimate, &run.err);
    if (st == GPUPLAN_OK)
        st = gpuplan_render_estimate_from(estimate, cfg, false, common->format, &run.out, &run.err);
    /* a verdict a script can branch on: 3 does not fit, 4 may not fit (cli_fit_exit) */
    const int rc = cli_fit_exit(cli_run_finish(&run, st), st == GPUPLAN_OK ? estimate : NULL);
    free(estimate);
    return rc;
}

/*
 * --from: the files' job, then every option of the command line again on top
 * (a second parse into the files' job: what the user typed wins).
 */
static int job_from_files(int argc,
                          char **argv,
                          const struct estimate_args *ea,
                          struct gpuplan_config *cfg,
                          struct gpuplan_error *err)
{
    if (cli_config_load(&ea->from, cfg, err) != GPUPLAN_OK)
        return cli_report(err);
    struct estimate_args scratch;
    memset(&scratch, 0, sizeof scratch);
    struct gpuplan_argv again;
    void *const dests[] = { &cfg->job, &scratch };
    const int rc = cli_parse(&cli_cmd_estimate, dests, argc, argv, &again);
    return rc >= 0 ? rc : -1;
}

static int cmd_estimate(int argc, char **argv)
{
    struct gpuplan_job job;
    gpuplan_job_init(&job);
    struct estimate_args ea;
    memset(&ea, 0, sizeof ea);
    (void)gpuplan_options_init(common_options, &ea, NULL);
    struct gpuplan_argv args;
    void *const dests[] = { &job, &ea };
    int rc = cli_parse(&cli_cmd_estimate, dests, argc, argv, &args);
    if (rc >= 0)
        return rc;
    struct gpuplan_config cfg;
    gpuplan_config_init(&cfg);
    const char *model = args.n_positional ? args.positional[0] : NULL;
    if (ea.from.n) {
        struct gpuplan_error err;
        gpuplan_error_init(&err);
        rc = job_from_files(argc, argv, &ea, &cfg, &err);
        if (rc >= 0) {
            gpuplan_config_release(&cfg);
            return rc;
        }
        job = cfg.job;
        if (!model && cfg.model_id[0])
            model = cfg.model_id;
    }
    if (!model) {
        gpuplan_config_release(&cfg);
        return cli_missing_model(&cli_cmd_estimate);
    }
    rc = run_estimate(&job, &ea.common, model, ea.from.n ? &cfg : NULL);
    gpuplan_config_release(&cfg);
    return rc;
}
