/*
 * cmd_inspect.c - `gpuplan inspect PATH|NAME`: the exact tensor inventory of
 * a model from a catalog name, a Hugging Face Hub id, config.json,
 * safetensors (single or sharded), GGUF, or a model directory.
 */
#include <string.h>

#include "cli.h"

static const struct gpuplan_option inspect_options[] = {
    CLI_FORMAT_OPTION(GPUPLAN_RENDER_INSPECT_FORMATS),
    CLI_CATALOG_OPTION,
    { .name = NULL },
};

static int cmd_inspect(int argc, char **argv);

const struct cli_command cli_cmd_inspect = {
    .name = "inspect",
    .run = cmd_inspect,
    .summary = N_("exact parameter inventory of a model (catalog, config, safetensors, GGUF)"),
    .usage = N_("inspect MODEL [OPTIONS]"),
    .description =
        N_("Print a model's architecture, exact parameter counts (total, active per token for "
           "MoE), a breakdown by role, and bytes by dtype on disk, read from headers only.\n\n"
           "MODEL is a catalog id (see 'gpuplan models'), a Hugging Face Hub id (ORG/NAME, "
           "resolved through the catalog's repositories, then the local Hugging Face cache: "
           "$HF_HUB_CACHE, else $HF_HOME/hub, else ~/.cache/huggingface/hub; never the "
           "network), or a path to a config.json, a *.safetensors file, a "
           "model.safetensors.index.json, a *.gguf file, or a directory holding config.json "
           "and weights."),
    .model_arg = "MODEL",
    .n_positional = 1,
    .groups = { { N_("options"), inspect_options, 0 } },
};

static int cmd_inspect(int argc, char **argv)
{
    struct cli_common common = { GPUPLAN_FORMAT_TEXT, NULL };
    (void)gpuplan_options_init(inspect_options, &common, NULL);
    struct gpuplan_argv args;
    void *const dests[] = { &common };
    const int rc = cli_parse(&cli_cmd_inspect, dests, argc, argv, &args);
    if (rc >= 0)
        return rc;
    if (args.n_positional == 0)
        return cli_missing_model(&cli_cmd_inspect);
    struct cli_run run;
    cli_run_init(&run);
    enum gpuplan_status st = cli_run_load(&run, common.catalog_dir, args.positional[0]);
    if (st == GPUPLAN_OK)
        st = gpuplan_render_inspect(&run.model, common.format, &run.out, &run.err);
    return cli_run_finish(&run, st);
}
