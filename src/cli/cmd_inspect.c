/*
 * cmd_inspect.c - `gpuplan inspect PATH|NAME`: the exact tensor inventory of
 * a model from a catalog name, config.json, safetensors (single or sharded),
 * GGUF, or a model directory.
 */
#include <string.h>

#include "cli.h"
#include "i18n.h"

static const char inspect_help[] =
    N_("usage: gpuplan inspect MODEL [--format text|json] [--catalog DIR]\n"
       "\n"
       "Print a model's architecture, exact parameter counts (total, active per token for\n"
       "MoE), a breakdown by role, and bytes by dtype on disk, read from headers only.\n"
       "\n"
       "MODEL is a catalog id (see 'gpuplan models'), a Hugging Face Hub id (ORG/NAME,\n"
       "resolved through the catalog's repositories, then the local Hugging Face cache:\n"
       "$HF_HUB_CACHE, else $HF_HOME/hub, else ~/.cache/huggingface/hub; never the\n"
       "network), or a path to a config.json, a *.safetensors file, a\n"
       "model.safetensors.index.json, a *.gguf file, or a directory holding config.json\n"
       "and weights.\n"
       "\n"
       "options:\n"
       "  --format text|json  output format (default text)\n"
       "  --catalog DIR       read gpus.json, platforms.json, models.json from DIR over the\n"
       "                      embedded catalog\n"
       "  -h, --help          show this help\n");

int cmd_inspect(int argc, char **argv)
{
    struct cli_common common;
    const char *model_arg = NULL;
    int rc = cli_parse_common(argc, argv, "inspect", inspect_help, GPUPLAN_RENDER_INSPECT_FORMATS,
                              &common, &model_arg, 1);
    if (rc >= 0)
        return rc;
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    struct gpuplan_catalog *catalog = NULL;
    struct gpuplan_model model;
    gpuplan_model_init(&model);
    struct gpuplan_buf out;
    gpuplan_buf_init(&out, 0);
    int exit_code = CLI_OK;
    if (gpuplan_catalog_load(&catalog, common.catalog_dir, &err) ||
        cli_load_model(&model, model_arg, catalog, &err) ||
        gpuplan_render_inspect(&model, common.format, &out, &err)) {
        exit_code = cli_report(&err);
        goto out;
    }
    exit_code = cli_write_buf(&out);
out:
    gpuplan_buf_release(&out);
    gpuplan_model_release(&model);
    gpuplan_catalog_free(catalog);
    return exit_code;
}
