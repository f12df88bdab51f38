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
          "Estimate GPU and host memory to fine-tune or serve MODEL (a catalog id or a config.json).\n"
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
    const enum gpuplan_status st = gpuplan_model_load(model, name, catalog, err);
    if (st == GPUPLAN_OK && !model->id[0])
        snprintf(model->id, sizeof model->id, "%s", name);
    return st;
}

int cmd_estimate(int argc, char **argv)
{
    struct gpuplan_job job;
    gpuplan_job_init(&job);
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    enum gpuplan_format format = GPUPLAN_FORMAT_TEXT;
    const char *catalog_dir = NULL, *model_name = NULL;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            print_help();
            return CLI_OK;
        }
        if (strncmp(arg, "--", 2) != 0) {
            if (model_name)
                return cli_usage_error("estimate", "unexpected argument '%s'", arg);
            model_name = arg;
            continue;
        }
        char name[64];
        const char *eq = strchr(arg + 2, '=');
        const size_t n = eq ? (size_t)(eq - arg - 2) : strlen(arg + 2);
        if (n >= sizeof name)
            return cli_usage_error("estimate", "unknown option '%s'", arg);
        memcpy(name, arg + 2, n);
        name[n] = '\0';
        const char *value = eq ? eq + 1 : NULL;
        if (!value) {
            if (i + 1 >= argc)
                return cli_usage_error("estimate", "option '--%s' needs a value", name);
            value = argv[++i];
        }
        if (strcmp(name, "format") == 0) {
            if (gpuplan_format_parse(value, &format, &err) != GPUPLAN_OK)
                return cli_report(&err);
        } else if (strcmp(name, "catalog") == 0) {
            catalog_dir = value;
        } else if (gpuplan_job_set(&job, name, value, &err) != GPUPLAN_OK) {
            return cli_report(&err);
        }
    }
    if (!model_name)
        return cli_usage_error("estimate", "missing MODEL");
    if (strcmp(job.gpu_id, "local") == 0) {
        fputs(
            "gpuplan: error: '--gpu local' is not yet supported by estimate\nhint: run 'gpuplan detect' and pass its id\n",
            stderr);
        return CLI_USAGE;
    }

    int rc = CLI_OK;
    struct gpuplan_catalog *catalog = NULL;
    struct gpuplan_model model;
    struct gpuplan_buf out;
    struct gpuplan_memory_report *report = calloc(1, sizeof *report);
    gpuplan_model_init(&model);
    gpuplan_buf_init(&out, GPUPLAN_BUF_DEFAULT_MAX_BYTES);
    const struct gpuplan_gpu *gpu = NULL;
    if (!report) {
        gpuplan_error_set(&err, GPUPLAN_ERR_NOMEM, NULL, "out of memory");
        rc = cli_report(&err);
        goto out;
    }
    if (gpuplan_catalog_load(&catalog, catalog_dir, &err) != GPUPLAN_OK ||
        load_model(&model, model_name, catalog, &err) != GPUPLAN_OK ||
        (job.gpu_id[0] && gpuplan_catalog_get_gpu(catalog, job.gpu_id, &gpu, &err) != GPUPLAN_OK) ||
        gpuplan_estimate_memory(&model, &job, gpu, report, &err) != GPUPLAN_OK ||
        gpuplan_render_estimate(&model, &job, gpu, report, format, &out, &err) != GPUPLAN_OK) {
        rc = cli_report(&err);
        goto out;
    }
    rc = cli_write_buf(&out);
out:
    free(report);
    gpuplan_buf_release(&out);
    gpuplan_model_release(&model);
    gpuplan_catalog_free(catalog);
    return rc;
}
