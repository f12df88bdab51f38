/*
 * args.c - the options every command shares (--format, --catalog, --help)
 * for the commands that take no job options. Strict: unknown options and
 * extra arguments are usage errors (exit 2).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/detect.h"

#include "cli.h"
#include "i18n.h"

/* Match "--name value" or "--name=value"; advances *i past a separate value. */
const char *cli_option_value(int argc, char **argv, int *i, const char *name, bool *matched)
{
    const char *arg = argv[*i];
    size_t n = strlen(name);
    *matched = false;
    if (strncmp(arg, name, n) != 0)
        return NULL;
    if (arg[n] == '=') {
        *matched = true;
        return arg + n + 1;
    }
    if (arg[n] != '\0')
        return NULL;
    *matched = true;
    if (*i + 1 >= argc)
        return NULL;
    (*i)++;
    return argv[*i];
}

int cli_parse_common(int argc,
                     char **argv,
                     const char *cmd,
                     const char *help,
                     unsigned formats,
                     struct cli_common *common,
                     const char **positional,
                     int n_positional)
{
    memset(common, 0, sizeof *common);
    common->format = GPUPLAN_FORMAT_TEXT;
    int seen = 0;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        bool matched = false;
        const char *value;
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            fputs(_(help), stdout);
            return CLI_OK;
        }
        value = cli_option_value(argc, argv, &i, "--format", &matched);
        if (matched) {
            struct gpuplan_error err;
            gpuplan_error_init(&err);
            if (!value)
                return cli_usage_error(cmd, "option '--format' needs a value");
            if (gpuplan_format_parse(value, formats, &common->format, &err))
                return cli_report(&err);
            continue;
        }
        value = cli_option_value(argc, argv, &i, "--catalog", &matched);
        if (matched) {
            if (!value)
                return cli_usage_error(cmd, "option '--catalog' needs a directory");
            common->catalog_dir = value;
            continue;
        }
        if (arg[0] == '-' && arg[1] != '\0')
            return cli_usage_error(cmd, "unknown option '%s'", arg);
        if (seen >= n_positional)
            return cli_usage_error(cmd, "unexpected argument '%s'", arg);
        positional[seen++] = arg;
    }
    if (seen < n_positional)
        return cli_usage_error(cmd, "missing MODEL argument");
    return -1;
}

enum gpuplan_status cli_local_gpu(const struct gpuplan_catalog *catalog,
                                  struct gpuplan_gpu *out,
                                  uint32_t *out_count,
                                  struct gpuplan_error *err)
{
    struct gpuplan_detect_options opts;
    gpuplan_detect_options_init(&opts);
    /* The same overrides 'gpuplan detect' honours (tests, unusual installs). */
    const char *nvml = getenv("GPUPLAN_NVML_LIBRARY");
    const char *sysfs = getenv("GPUPLAN_SYSFS_ROOT");
    if (nvml && *nvml)
        opts.nvml_path = nvml;
    if (sysfs && *sysfs)
        opts.sysfs_root = sysfs;
    return gpuplan_detect_local_gpu(&opts, catalog, out, out_count, err);
}

/* The Hugging Face cache as huggingface_hub finds it (constants.py: HF_HUB_CACHE). */
static const char *hf_hub_cache(char *buf, size_t size)
{
    const char *v = getenv("HF_HUB_CACHE");
    if (v && *v)
        return v;
    v = getenv("HF_HOME");
    int n;
    if (v && *v)
        n = snprintf(buf, size, "%s/hub", v);
    else if ((v = getenv("HOME")) != NULL && *v)
        n = snprintf(buf, size, "%s/.cache/huggingface/hub", v);
    else
        return NULL;
    return n > 0 && (size_t)n < size ? buf : NULL;
}

enum gpuplan_status cli_load_model(struct gpuplan_model *model,
                                   const char *name,
                                   const struct gpuplan_catalog *catalog,
                                   struct gpuplan_error *err)
{
    char hub[PATH_MAX];
    const enum gpuplan_status st =
        gpuplan_model_load_hub(model, name, catalog, hf_hub_cache(hub, sizeof hub), err);
    if (st == GPUPLAN_OK && model->resolved_note[0])
        fprintf(stderr, _("gpuplan: note: %s\n"), model->resolved_note);
    return st;
}
