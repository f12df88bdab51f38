/*
 * args.c - a command line through its command's option tables
 * (gpuplan_options_parse_argv), the errors of a bad one, and --gpu local.
 *
 * Usage errors (an unknown option, a missing value, an extra argument) end
 * with "try 'gpuplan CMD --help'" and exit 2; a value an option refuses is
 * reported with the option's own message and hint (exit 2 too).
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/detect.h"

#include "cli.h"

/* "gpuplan: error: unknown option '--x'", the hint when there is one, then the try line. */
static int unknown_option(const char *cmd, const char *arg, const struct gpuplan_error *err)
{
    fputs(_("gpuplan: error: "), stderr);
    fprintf(stderr, _("unknown option '%s'"), arg);
    fputc('\n', stderr);
    if (err->hint[0])
        fprintf(stderr, _("hint: %s\n"), _(err->hint));
    fprintf(stderr, _("try 'gpuplan %s --help'\n"), cmd);
    return CLI_USAGE;
}

int cli_parse(const struct cli_command *cmd,
              void *const dests[],
              int argc,
              char **argv,
              struct gpuplan_argv *args)
{
    struct gpuplan_option_group groups[CLI_MAX_GROUPS];
    size_t n_groups = 0;
    for (; n_groups < CLI_MAX_GROUPS && cmd->groups[n_groups].options; n_groups++) {
        groups[n_groups].options = cmd->groups[n_groups].options;
        groups[n_groups].dest = dests[n_groups];
        groups[n_groups].refuse = cmd->groups[n_groups].refuse;
    }
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    if (gpuplan_options_parse_argv(groups, n_groups, cmd->n_positional, argc, argv, args, &err) ==
        GPUPLAN_OK) {
        if (!args->help)
            return -1;
        cli_help_print(cmd, stdout);
        return fflush(stdout) == 0 ? CLI_OK : CLI_RUN_ERROR;
    }
    const char *arg = argv[args->bad_index];
    switch (args->problem) {
    case GPUPLAN_ARGV_UNEXPECTED_ARGUMENT:
        return cli_usage_error(cmd->name, "unexpected argument '%s'", arg);
    case GPUPLAN_ARGV_UNKNOWN_OPTION:
        return unknown_option(cmd->name, arg, &err);
    case GPUPLAN_ARGV_MISSING_VALUE:
        return cli_usage_error(cmd->name, "option '--%s' needs a value", args->bad_name);
    case GPUPLAN_ARGV_REFUSED:
        /* the only refusal: the planner searches --tp, --pp, --nodes (and --ep for serving);
         * it does not plan --cp or --vpp, which estimate evaluates */
        if (strcmp(args->bad_name, "cp") == 0 || strcmp(args->bad_name, "vpp") == 0)
            return cli_usage_error(cmd->name,
                                   "'--%s' is not planned: the planner searches data, tensor and "
                                   "pipeline parallelism; 'gpuplan estimate --%s N' evaluates a "
                                   "layout with it",
                                   args->bad_name, args->bad_name);
        return cli_usage_error(cmd->name, "'--%s' is searched by the planner; use --max-gpus",
                               args->bad_name);
    case GPUPLAN_ARGV_OK:
    case GPUPLAN_ARGV_BAD_VALUE:
        break;
    }
    return cli_report(&err);
}

bool cli_lists_option(const struct cli_command *cmd, size_t g, const struct gpuplan_option *opt)
{
    if (opt->flags & cmd->groups[g].refuse)
        return false;
    for (size_t e = 0; e < g; e++) {
        if (gpuplan_options_find(cmd->groups[e].options, opt->name))
            return false;
    }
    return true;
}

int cli_missing_model(const struct cli_command *cmd)
{
    return cli_usage_error(cmd->name, "missing MODEL argument");
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
