/*
 * job_argv.c - `gpuplan estimate`'s command line to a job (see job.h).
 *
 * Moved out of src/cli/cmd_estimate.c unchanged in behaviour so the fuzz
 * target tests/fuzz/targets/fuzz_cli_args.c runs the very parser the CLI
 * uses. Values are never interpreted here: every job option goes through
 * gpuplan_job_set(), the format through gpuplan_format_parse().
 */
#include <stdio.h>
#include <string.h>

#include "gpuplan/job.h"
#include "gpuplan/render.h"

static enum gpuplan_status problem(struct gpuplan_job_argv *out,
                                   enum gpuplan_argv_problem what,
                                   int index,
                                   const char *arg,
                                   struct gpuplan_error *err)
{
    out->problem = what;
    out->bad_index = index;
    switch (what) {
    case GPUPLAN_ARGV_UNEXPECTED_ARGUMENT:
        return gpuplan_error_set(err, GPUPLAN_ERR_USAGE, "", "unexpected argument '%s'", arg);
    case GPUPLAN_ARGV_UNKNOWN_OPTION:
        return gpuplan_error_set(err, GPUPLAN_ERR_USAGE, "", "unknown option '%s'", arg);
    case GPUPLAN_ARGV_MISSING_VALUE:
        return gpuplan_error_set(err, GPUPLAN_ERR_USAGE, "", "option '--%s' needs a value",
                                 out->bad_name);
    case GPUPLAN_ARGV_OK:
    case GPUPLAN_ARGV_BAD_VALUE:
        break;
    }
    return GPUPLAN_ERR_USAGE;
}

enum gpuplan_status gpuplan_job_parse_argv(struct gpuplan_job *job,
                                           int argc,
                                           char *const *argv,
                                           struct gpuplan_job_argv *out,
                                           struct gpuplan_error *err)
{
    memset(out, 0, sizeof *out);
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            out->help = true;
            return GPUPLAN_OK;
        }
        if (strncmp(arg, "--", 2) != 0) {
            if (out->positional)
                return problem(out, GPUPLAN_ARGV_UNEXPECTED_ARGUMENT, i, arg, err);
            out->positional = arg;
            continue;
        }
        const char *eq = strchr(arg + 2, '=');
        const size_t n = eq ? (size_t)(eq - arg - 2) : strlen(arg + 2);
        if (n >= sizeof out->bad_name)
            return problem(out, GPUPLAN_ARGV_UNKNOWN_OPTION, i, arg, err);
        char name[sizeof out->bad_name];
        memcpy(name, arg + 2, n);
        name[n] = '\0';
        const char *value = eq ? eq + 1 : NULL;
        if (!value) {
            if (i + 1 >= argc) {
                memcpy(out->bad_name, name, n + 1);
                return problem(out, GPUPLAN_ARGV_MISSING_VALUE, i, arg, err);
            }
            value = argv[++i];
        }
        enum gpuplan_status st = GPUPLAN_OK;
        if (strcmp(name, "format") == 0) {
            enum gpuplan_format format;
            st = gpuplan_format_parse(value, GPUPLAN_RENDER_ESTIMATE_FORMATS, &format, err);
            if (st == GPUPLAN_OK)
                out->format = value;
        } else if (strcmp(name, "catalog") == 0) {
            out->catalog_dir = value;
        } else {
            st = gpuplan_job_set(job, name, value, err);
        }
        if (st != GPUPLAN_OK) {
            out->problem = GPUPLAN_ARGV_BAD_VALUE;
            out->bad_index = i;
            return st;
        }
    }
    return GPUPLAN_OK;
}
