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
    struct cli_run run;
    cli_run_init(&run);
    struct gpuplan_cost_inputs in;
    enum gpuplan_tco_field field = GPUPLAN_TCO_FIELD_NONE;
    enum gpuplan_cost_input input = GPUPLAN_COST_GPU_PRICE;
    enum gpuplan_status st = cli_run_load(&run, common.catalog_dir, NULL);
    if (st == GPUPLAN_OK)
        st = gpuplan_tco_request_inputs(run.catalog, &req, &in, &field, &input, &run.err);
    if (st != GPUPLAN_OK && field == GPUPLAN_TCO_FIELD_PLATFORM) {
        cli_run_release(&run);
        return cli_usage_error("tco", "unknown platform '%s'", req.platform_id);
    }
    /* struct gpuplan_tco holds two 121-point series: on the heap. */
    struct gpuplan_tco *tco = st == GPUPLAN_OK ? malloc(sizeof *tco) : NULL;
    if (st == GPUPLAN_OK && !tco)
        st = gpuplan_error_set(&run.err, GPUPLAN_ERR_NOMEM, NULL, "out of memory");
    if (st == GPUPLAN_OK)
        st = gpuplan_tco_compute(&in, tco, &run.err);
    if (st == GPUPLAN_OK)
        st = gpuplan_render_tco(&in, tco, common.format, &run.out, &run.err);
    free(tco);
    return cli_run_finish(&run, st);
}
