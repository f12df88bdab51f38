/*
 * cmd_check.c - `gpuplan check FILE... --gpu ID[:N] [--nodes N]`: will the
 * run a training config describes fit on these GPUs? The files are read as
 * `--from` reads them (cli_config.c); the job options given override them.
 * Prints the estimate, the files' unknown keys and framework defaults, the
 * verdict, and what to change to fit in the file's own vocabulary
 * (gpuplan_config_spell_change). Exit status (cli_fit_exit): 0 the top of
 * the device-total range fits, 4 the range straddles the usable memory (MAY
 * NOT FIT), 3 does not fit, 1 an error, 2 a usage error.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "gpuplan/estimate.h"

struct check_args {
    struct cli_common common; /* first: CLI_FORMAT_OPTION's offsets are cli_common's */
    const char *model;        /* --model, over the one the file names */
};

static const struct gpuplan_option check_options[] = {
    { .name = "model",
      .kind = GPUPLAN_OPTION_TEXT,
      .field = GPUPLAN_FIELD_STRING,
      GPUPLAN_OPTION_AT(struct check_args, model),
      .set_offset = GPUPLAN_OPTION_NO_SET,
      .arg = "MODEL",
      .help = N_("the model (catalog id, Hub id or path) when the file names none or another"),
      .default_doc = N_("(the file's)"),
      .flags = GPUPLAN_OPTION_CLI_ONLY },
    CLI_FORMAT_OPTION(GPUPLAN_RENDER_CHECK_FORMATS),
    CLI_CATALOG_OPTION,
    { .name = NULL },
};

static int cmd_check(int argc, char **argv);

const struct cli_command cli_cmd_check = {
    .name = "check",
    .run = cmd_check,
    .summary = N_("will this training config fit on these GPUs? (exit 0 fits, 3 does not)"),
    .usage = N_("check FILE... --gpu ID[:N] [--nodes N] [OPTIONS]"),
    .description = N_(
        "Read a training config (DeepSpeed, accelerate, axolotl, LLaMA-Factory, torchtune, "
        "TRL, PEFT; a second FILE merges, e.g. TRL arguments and an adapter_config.json; a "
        "DeepSpeed JSON the file names is read too) and estimate its run on the GPUs given. "
        "Prints the memory per GPU, the keys the file has that gpuplan does not understand, "
        "the framework defaults it took, the verdict and, when it does not fit, the smallest "
        "changes to the file's own keys that make it fit. Exit status 0 when the top of the "
        "estimate's 80-percent range fits, 4 when the range straddles the usable memory (MAY NOT "
        "FIT), 3 when it does not fit."),
    .model_arg = NULL,
    .n_positional = 4,
    .groups = { { N_("options"), gpuplan_job_options, 0 }, { N_("options"), check_options, 0 } },
};

static enum gpuplan_status check_gpu(const struct gpuplan_catalog *catalog,
                                     struct gpuplan_job *job,
                                     struct gpuplan_gpu *local,
                                     const struct gpuplan_gpu **gpu,
                                     struct gpuplan_error *err)
{
    if (strcmp(job->gpu_id, "local") != 0)
        return gpuplan_catalog_get_gpu(catalog, job->gpu_id, gpu, err);
    uint32_t count = 0;
    const enum gpuplan_status st = cli_local_gpu(catalog, local, &count, err);
    if (st == GPUPLAN_OK) {
        job->gpus_per_node = count;
        *gpu = local;
    }
    return st;
}

static int cmd_check(int argc, char **argv)
{
    struct gpuplan_job scratch;
    gpuplan_job_init(&scratch);
    struct check_args ca;
    memset(&ca, 0, sizeof ca);
    (void)gpuplan_options_init(check_options, &ca, NULL);
    struct gpuplan_argv args;
    void *dests[] = { &scratch, &ca };
    int rc = cli_parse(&cli_cmd_check, dests, argc, argv, &args);
    if (rc >= 0)
        return rc;
    if (args.n_positional == 0)
        return cli_usage_error("check", "missing FILE argument");
    if (!scratch.gpu_id[0])
        return cli_usage_error("check", "'check' needs --gpu ID[:N] (or --gpu local)");
    struct cli_from from = { .n = 0 };
    for (size_t i = 0; i < args.n_positional; i++)
        from.paths[from.n++] = args.positional[i];
    struct gpuplan_config cfg;
    gpuplan_config_init(&cfg);
    struct cli_run run;
    cli_run_init(&run);
    struct gpuplan_estimate *estimate = calloc(1, sizeof *estimate);
    enum gpuplan_status st =
        estimate ? cli_config_load(&from, &cfg, &run.err)
                 : gpuplan_error_set(&run.err, GPUPLAN_ERR_NOMEM, NULL, "out of memory");
    if (st == GPUPLAN_OK) { /* the command line over the files */
        struct check_args again_args = ca;
        struct gpuplan_argv again;
        dests[0] = &cfg.job;
        dests[1] = &again_args;
        (void)cli_parse(&cli_cmd_check, dests, argc, argv, &again);
    }
    const char *model = ca.model ? ca.model : cfg.model_id[0] ? cfg.model_id : NULL;
    if (st == GPUPLAN_OK && !model)
        st = gpuplan_error_set(&run.err, GPUPLAN_ERR_USAGE, NULL,
                               "'%s' names no model; pass --model MODEL", args.positional[0]);
    const struct gpuplan_gpu *gpu = NULL;
    struct gpuplan_gpu local;
    if (st == GPUPLAN_OK)
        st = cli_run_load(&run, ca.common.catalog_dir, model);
    if (st == GPUPLAN_OK && !run.model.id[0])
        (void)snprintf(run.model.id, sizeof run.model.id, "%.127s", model);
    if (st == GPUPLAN_OK)
        st = check_gpu(run.catalog, &cfg.job, &local, &gpu, &run.err);
    if (st == GPUPLAN_OK)
        st = gpuplan_estimate_run_in(&run.model, &cfg.job, gpu,
                                     cli_network_platform(run.catalog, &cfg.job, gpu), estimate,
                                     &run.err);
    if (st == GPUPLAN_OK)
        st = gpuplan_render_estimate_from(estimate, &cfg, true, ca.common.format, &run.out,
                                          &run.err);
    gpuplan_config_release(&cfg);
    rc = cli_fit_exit(cli_run_finish(&run, st), st == GPUPLAN_OK ? estimate : NULL);
    free(estimate);
    return rc;
}
