/*
 * cmd_catalog.c - `gpuplan gpus`, `gpuplan platforms` and `gpuplan models`:
 * the catalog listings, each row with its source.
 */
#include "cli.h"
#include "gpuplan/render.h"

static const struct gpuplan_option gpus_options[] = {
    CLI_FORMAT_OPTION(GPUPLAN_RENDER_GPUS_FORMATS),
    CLI_CATALOG_OPTION,
    { .name = NULL },
};

static const struct gpuplan_option platforms_options[] = {
    CLI_FORMAT_OPTION(GPUPLAN_RENDER_PLATFORMS_FORMATS),
    CLI_CATALOG_OPTION,
    { .name = NULL },
};

static const struct gpuplan_option models_options[] = {
    CLI_FORMAT_OPTION(GPUPLAN_RENDER_MODELS_FORMATS),
    CLI_CATALOG_OPTION,
    { .name = NULL },
};

static int list(const struct cli_command *cmd,
                int argc,
                char **argv,
                enum gpuplan_status (*render)(const struct gpuplan_catalog *,
                                              enum gpuplan_format,
                                              struct gpuplan_buf *,
                                              struct gpuplan_error *))
{
    struct cli_common common = { GPUPLAN_FORMAT_TEXT, NULL };
    (void)gpuplan_options_init(cmd->groups[0].options, &common, NULL);
    struct gpuplan_argv args;
    void *const dests[] = { &common };
    const int rc = cli_parse(cmd, dests, argc, argv, &args);
    if (rc >= 0)
        return rc;
    struct cli_run run;
    cli_run_init(&run);
    enum gpuplan_status st = cli_run_load(&run, common.catalog_dir, NULL);
    if (st == GPUPLAN_OK)
        st = render(run.catalog, common.format, &run.out, &run.err);
    return cli_run_finish(&run, st);
}

static int cmd_gpus(int argc, char **argv)
{
    return list(&cli_cmd_gpus, argc, argv, gpuplan_render_gpus);
}

static int cmd_platforms(int argc, char **argv)
{
    return list(&cli_cmd_platforms, argc, argv, gpuplan_render_platforms);
}

static int cmd_models(int argc, char **argv)
{
    return list(&cli_cmd_models, argc, argv, gpuplan_render_models);
}

const struct cli_command cli_cmd_gpus = {
    .name = "gpus",
    .run = cmd_gpus,
    .summary = N_("list the GPU catalog with sources"),
    .usage = N_("gpus [OPTIONS]"),
    .description = N_("List the GPUs of the catalog: memory, bandwidth, dense TFLOPS, "
                      "interconnect, power, the purchase price and its date, the cloud rate at "
                      "each tier (hyperscaler, specialty, marketplace, 1-year commitment; the "
                      "median of those listed there, as a cost takes it), and the source and "
                      "date of every record."),
    .groups = { { N_("options"), gpus_options, 0 } },
};

const struct cli_command cli_cmd_platforms = {
    .name = "platforms",
    .run = cmd_platforms,
    .summary = N_("list the server platforms and parts prices"),
    .usage = N_("platforms [OPTIONS]"),
    .description = N_("List the servers as they are sold: the GPU counts each ships with, CPU, "
                      "base RAM and NVMe, scale-out network, power without GPUs, rack units and "
                      "the price without GPUs; then the dated parts prices (RAM per GiB, NVMe per "
                      "TB, NICs, fabric ports) that price capex beyond the base."),
    .groups = { { N_("options"), platforms_options, 0 } },
};

const struct cli_command cli_cmd_models = {
    .name = "models",
    .run = cmd_models,
    .summary = N_("list the model catalog with sources"),
    .usage = N_("models [OPTIONS]"),
    .description = N_("List the curated models of the catalog with their architecture family, "
                      "exact parameter count and source."),
    .groups = { { N_("options"), models_options, 0 } },
};
