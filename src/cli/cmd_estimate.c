/*
 * cmd_estimate.c - `gpuplan estimate MODEL [job options]`: memory per GPU
 * and per host, the fit verdict and what to change to fit; with a GPU, time,
 * throughput and cloud cost (rendered by the library, as for the HTTP API).
 *
 * Job options come from the library's option table (gpuplan_job_options),
 * which also prints --help. MODEL is a catalog id or a path to a
 * config.json.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "gpuplan/estimate.h"
#include "i18n.h"

static void print_help(void)
{
    fputs(
        _("usage: gpuplan estimate MODEL [OPTIONS]\n\n"
          "Estimate GPU and host memory to fine-tune or serve MODEL (a catalog id, a Hugging Face\n"
          "Hub id or a path, as for 'gpuplan inspect').\n"
          "With --gpu, also the step time, tokens/s, MFU and bottleneck (serving: prefill, decode,\n"
          "time to first token), the time to train --tokens N (or --dataset-tokens N) x --epochs,\n"
          "and its cloud cost at the catalog's on-demand rate.\n\n"
          "options:\n"),
        stdout);
    for (const struct gpuplan_job_option *o = gpuplan_job_options; o->name; o++) {
        char left[96];
        snprintf(left, sizeof left, "--%s %s", o->name, o->arg_name ? o->arg_name : "");
        printf(_("  %-44s %s (default: %s)\n"), left, _(o->help), _(o->default_text));
    }
    fputs(_("  --format text|json                           output format (default: text)\n"
            "  --catalog DIR                                extra catalog files\n"
            "  --help                                       this help\n"),
          stdout);
}

/*
 * A catalog id (its embedded config.json) or a model path. Files go through
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

int cmd_estimate(int argc, char **argv)
{
    struct gpuplan_job job;
    gpuplan_job_init(&job);
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    /* The argv -> job parser is the library's, shared with the fuzz target (job_argv.c). */
    struct gpuplan_job_argv args;
    if (gpuplan_job_parse_argv(&job, argc, argv, &args, &err) != GPUPLAN_OK) {
        switch (args.problem) {
        case GPUPLAN_ARGV_UNEXPECTED_ARGUMENT:
            return cli_usage_error("estimate", "unexpected argument '%s'", argv[args.bad_index]);
        case GPUPLAN_ARGV_UNKNOWN_OPTION:
            return cli_usage_error("estimate", "unknown option '%s'", argv[args.bad_index]);
        case GPUPLAN_ARGV_MISSING_VALUE:
            return cli_usage_error("estimate", "option '--%s' needs a value", args.bad_name);
        case GPUPLAN_ARGV_OK:
        case GPUPLAN_ARGV_BAD_VALUE:
            break;
        }
        return cli_report(&err);
    }
    if (args.help) {
        print_help();
        return CLI_OK;
    }
    enum gpuplan_format format = GPUPLAN_FORMAT_TEXT;
    if (args.format && gpuplan_format_parse(args.format, GPUPLAN_RENDER_ESTIMATE_FORMATS, &format,
                                            &err) != GPUPLAN_OK)
        return cli_report(&err);
    const char *catalog_dir = args.catalog_dir, *model_name = args.positional;
    if (!model_name)
        return cli_usage_error("estimate", "missing MODEL");

    int rc = CLI_OK;
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
    if (gpuplan_catalog_load(&catalog, catalog_dir, &err) != GPUPLAN_OK ||
        load_model(&model, model_name, catalog, &err) != GPUPLAN_OK ||
        resolve_gpu(catalog, &job, &local_gpu, &gpu, &err) != GPUPLAN_OK ||
        gpuplan_estimate_run(&model, &job, gpu, estimate, &err) != GPUPLAN_OK ||
        gpuplan_render_estimate(estimate, format, &out, &err) != GPUPLAN_OK) {
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
