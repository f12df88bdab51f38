/*
 * cmd_catalog.c - `gpuplan gpus` and `gpuplan models`: the catalog listings,
 * each row with its source.
 */
#include "cli.h"
#include "gpuplan/render.h"
#include "i18n.h"

static const char gpus_help[] =
    N_("usage: gpuplan gpus [--format text|json|csv|md] [--catalog DIR]\n"
       "\n"
       "List the GPUs of the catalog: memory, bandwidth, dense TFLOPS, interconnect, power,\n"
       "indicative prices, and the source and date of every record.\n"
       "\n"
       "options:\n"
       "  --format FORMAT     text (default), json, csv or md\n"
       "  --catalog DIR       read gpus.json, platforms.json, models.json from DIR over the\n"
       "                      embedded catalog\n"
       "  -h, --help          show this help\n");

static const char models_help[] =
    N_("usage: gpuplan models [--format text|json|csv|md] [--catalog DIR]\n"
       "\n"
       "List the curated models of the catalog with their architecture family, exact\n"
       "parameter count and source.\n"
       "\n"
       "options:\n"
       "  --format FORMAT     text (default), json, csv or md\n"
       "  --catalog DIR       read catalog files from DIR over the embedded catalog\n"
       "  -h, --help          show this help\n");

static int list(int argc,
                char **argv,
                const char *name,
                const char *help,
                unsigned formats,
                enum gpuplan_status (*render)(const struct gpuplan_catalog *,
                                              enum gpuplan_format,
                                              struct gpuplan_buf *,
                                              struct gpuplan_error *))
{
    struct cli_common common;
    int rc = cli_parse_common(argc, argv, name, help, formats, &common, NULL, 0);
    if (rc >= 0)
        return rc;
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    struct gpuplan_catalog *catalog = NULL;
    struct gpuplan_buf out;
    gpuplan_buf_init(&out, 0);
    int exit_code;
    if (gpuplan_catalog_load(&catalog, common.catalog_dir, &err) ||
        render(catalog, common.format, &out, &err))
        exit_code = cli_report(&err);
    else
        exit_code = cli_write_buf(&out);
    gpuplan_buf_release(&out);
    gpuplan_catalog_free(catalog);
    return exit_code;
}

int cmd_gpus(int argc, char **argv)
{
    return list(argc, argv, "gpus", gpus_help, GPUPLAN_RENDER_GPUS_FORMATS, gpuplan_render_gpus);
}

int cmd_models(int argc, char **argv)
{
    return list(argc, argv, "models", models_help, GPUPLAN_RENDER_MODELS_FORMATS,
                gpuplan_render_models);
}
