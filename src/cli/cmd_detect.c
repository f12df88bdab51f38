/*
 * cmd_detect.c - `gpuplan detect`: the GPUs of this machine.
 *
 * The library takes the NVML path and sysfs root as options; this front-end
 * fills them from --nvml-library / --sysfs-root, else the environment
 * (GPUPLAN_NVML_LIBRARY, GPUPLAN_SYSFS_ROOT: for tests and odd installs),
 * else "libnvidia-ml.so.1" and "/sys", then matches the GPUs against the
 * catalog (embedded, plus --catalog DIR). No GPU is a result: exit 0.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "gpuplan/detect.h"
#include "i18n.h"

static void detect_help(void)
{
    fputs(_("usage: gpuplan detect [--format text|json] [--catalog DIR] [--nvml-library PATH]\n"
            "                      [--sysfs-root DIR]\n"
            "\n"
            "List this machine's GPUs: NVIDIA through NVML (loaded at run time),\n"
            "AMD through the amdgpu sysfs files. Each GPU is matched to a catalog id.\n"
            "\n"
            "options:\n"
            "  --format text|json   output format (default text)\n"
            "  --catalog DIR        extend the catalog the GPUs are matched against\n"
            "  --nvml-library PATH  NVML library to load (default $GPUPLAN_NVML_LIBRARY,\n"
            "                       else libnvidia-ml.so.1)\n"
            "  --sysfs-root DIR     sysfs root for AMD GPUs (default $GPUPLAN_SYSFS_ROOT,\n"
            "                       else /sys)\n"
            "  -h, --help           show this help\n"),
          stdout);
}

/* The value of "--name VALUE" or "--name=VALUE" at argv[*i]; NULL when argv[*i] is not it. */
static const char *option_value(int argc, char **argv, int *i, const char *name, bool *missing)
{
    const size_t len = strlen(name);
    const char *arg = argv[*i];
    if (strncmp(arg, name, len) != 0)
        return NULL;
    if (arg[len] == '=')
        return arg + len + 1;
    if (arg[len] != '\0')
        return NULL;
    if (*i + 1 >= argc) {
        *missing = true;
        return NULL;
    }
    *i += 1;
    return argv[*i];
}

static const char *env_or(const char *name, const char *fallback)
{
    const char *value = getenv(name);
    return value && value[0] ? value : fallback;
}

int cmd_detect(int argc, char **argv)
{
    enum gpuplan_format format = GPUPLAN_FORMAT_TEXT;
    const char *nvml_path = NULL;
    const char *sysfs_root = NULL;
    const char *catalog_dir = NULL;
    for (int i = 1; i < argc; i++) {
        bool missing = false;
        const char *value;
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            detect_help();
            return CLI_OK;
        }
        if ((value = option_value(argc, argv, &i, "--format", &missing)) != NULL) {
            struct gpuplan_error err;
            gpuplan_error_init(&err);
            if (gpuplan_format_parse(value, GPUPLAN_RENDER_DETECT_FORMATS, &format, &err) !=
                GPUPLAN_OK)
                return cli_report(&err);
        } else if ((value = option_value(argc, argv, &i, "--nvml-library", &missing)) != NULL) {
            nvml_path = value;
        } else if ((value = option_value(argc, argv, &i, "--sysfs-root", &missing)) != NULL) {
            sysfs_root = value;
        } else if ((value = option_value(argc, argv, &i, "--catalog", &missing)) != NULL) {
            catalog_dir = value;
        } else if (missing) {
            return cli_usage_error("detect", "option '%s' needs a value", argv[i]);
        } else {
            return cli_usage_error("detect", "unknown option '%s'", argv[i]);
        }
    }

    struct gpuplan_detect_options opts;
    gpuplan_detect_options_init(&opts);
    opts.nvml_path = nvml_path ? nvml_path : env_or("GPUPLAN_NVML_LIBRARY", opts.nvml_path);
    opts.sysfs_root = sysfs_root ? sysfs_root : env_or("GPUPLAN_SYSFS_ROOT", opts.sysfs_root);

    struct gpuplan_error err;
    gpuplan_error_init(&err);
    struct gpuplan_detect_result *result = calloc(1, sizeof *result);
    if (!result) {
        fputs(_("gpuplan: error: out of memory\n"), stderr);
        return CLI_RUN_ERROR;
    }
    struct gpuplan_buf out;
    gpuplan_buf_init(&out, GPUPLAN_BUF_DEFAULT_MAX_BYTES);
    struct gpuplan_catalog *catalog = NULL;
    int rc = CLI_OK;
    if (gpuplan_detect_run(&opts, result, &err) != GPUPLAN_OK) {
        rc = cli_report(&err);
        goto out;
    }
    if (gpuplan_catalog_load(&catalog, catalog_dir, &err) != GPUPLAN_OK) {
        rc = cli_report(&err);
        goto out;
    }
    gpuplan_detect_match_catalog(result, catalog);
    if (gpuplan_render_detect(result, format, &out, &err) != GPUPLAN_OK)
        rc = cli_report(&err);
    else
        rc = cli_write_buf(&out);
out:
    gpuplan_catalog_free(catalog);
    gpuplan_buf_release(&out);
    free(result);
    return rc;
}
