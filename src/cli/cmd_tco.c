/*
 * cmd_tco.c - `gpuplan tco`: own vs rent for a GPU server.
 *
 * The options are the tco request's (gpuplan_tco_options: --gpu,
 * --platform) and one flag per cost input (gpuplan_cost_options:
 * --gpu-price, --power-price, ...), each a number whose range the library
 * checks in the input's unit. The catalog gives GPU price, cloud rate, TDP
 * and the platform; the rest are the stated assumptions of docs/tco.md,
 * shown in the output.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "gpuplan/cost.h"
#include "gpuplan/render.h"
#include "gpuplan/request.h"

static const struct gpuplan_option common_options[] = {
    CLI_FORMAT_OPTION(GPUPLAN_RENDER_TCO_FORMATS),
    CLI_CATALOG_OPTION,
    { .name = NULL },
};

static int cmd_tco(int argc, char **argv);

const struct cli_command cli_cmd_tco = {
    .name = "tco",
    .run = cmd_tco,
    .summary = N_("monthly cost of owning vs renting GPUs, and break-even"),
    .usage = N_("tco --gpu ID:N [OPTIONS]"),
    .description = N_("Monthly cost of owning vs renting N GPUs, break-even in months at your use, "
                      "break-even hours per day over the depreciation period, and the cumulative "
                      "cost."),
    .groups = { { N_("options"), gpuplan_tco_options, 0 },
                { N_("options"), gpuplan_cost_options, 0 },
                { N_("options"), common_options, 0 } },
};

static int cmd_tco(int argc, char **argv)
{
    struct gpuplan_tco_request req;
    gpuplan_tco_request_init(&req);
    struct cli_common common = { GPUPLAN_FORMAT_TEXT, NULL };
    (void)gpuplan_options_init(common_options, &common, NULL);
    struct gpuplan_argv args;
    void *const dests[] = { &req, &req.overrides, &common };
    int rc = cli_parse(&cli_cmd_tco, dests, argc, argv, &args);
    if (rc >= 0)
        return rc;
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    /* --gpu ID:N is required and split after parsing: a usage error of the command line. */
    if (gpuplan_tco_request_split_gpu(&req, &err) != GPUPLAN_OK)
        return cli_usage_error("tco", "%s", err.message);
    struct gpuplan_catalog *catalog = NULL;
    struct gpuplan_buf out;
    gpuplan_buf_init(&out, GPUPLAN_BUF_DEFAULT_MAX_BYTES);
    rc = CLI_OK;
    if (gpuplan_catalog_load(&catalog, common.catalog_dir, &err) != GPUPLAN_OK) {
        rc = cli_report(&err);
        goto out;
    }
    const struct gpuplan_gpu *gpu = NULL;
    if (gpuplan_catalog_get_gpu(catalog, req.gpu_id, &gpu, &err) != GPUPLAN_OK) {
        rc = cli_report(&err);
        goto out;
    }
    const struct gpuplan_platform *platform = NULL;
    const char *platform_id =
        req.platform_id[0] ? req.platform_id : (gpu->n_platforms ? gpu->platforms[0] : NULL);
    if (platform_id) {
        platform = gpuplan_catalog_find_platform(catalog, platform_id);
        if (!platform && req.platform_id[0]) {
            rc = cli_usage_error("tco", "unknown platform '%s'", req.platform_id);
            goto out;
        }
    }
    struct gpuplan_cost_inputs in;
    if (gpuplan_cost_inputs_init(&in, gpu, req.n_gpus, platform, &err) != GPUPLAN_OK) {
        rc = cli_report(&err);
        goto out;
    }
    for (int k = 0; k < GPUPLAN_COST_INPUT_COUNT; k++) {
        if (req.overrides.set[k] &&
            gpuplan_cost_inputs_set(&in, (enum gpuplan_cost_input)k, req.overrides.value[k],
                                    &err) != GPUPLAN_OK) {
            rc = cli_report(&err);
            goto out;
        }
    }
    struct gpuplan_tco *tco = malloc(sizeof *tco);
    if (!tco) {
        perror(_("gpuplan: error"));
        rc = CLI_RUN_ERROR;
        goto out;
    }
    if (gpuplan_tco_compute(&in, tco, &err) != GPUPLAN_OK ||
        gpuplan_render_tco(&in, tco, common.format, &out, &err) != GPUPLAN_OK)
        rc = cli_report(&err);
    else
        rc = cli_write_buf(&out);
    free(tco);
out:
    gpuplan_buf_release(&out);
    gpuplan_catalog_free(catalog);
    return rc;
}
