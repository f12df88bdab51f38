/*
 * cli.h - shared pieces of the gpuplan command-line front-end.
 * The CLI includes only include/gpuplan/ (the public API) and this header.
 */
#ifndef GPUPLAN_CLI_H
#define GPUPLAN_CLI_H

#include <stdio.h>

#include "gpuplan/gpuplan.h"

enum cli_exit { CLI_OK = 0, CLI_RUN_ERROR = 1, CLI_USAGE = 2 };

struct cli_command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
};

/* Print "gpuplan: error: MESSAGE" (+ where, hint) to stderr; return the exit code for the status. */
int cli_report(const struct gpuplan_error *err);
/* Print a usage error, "try 'gpuplan CMD --help'", return CLI_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Write a buffer to stdout; CLI_RUN_ERROR on failure. */
int cli_write_buf(const struct gpuplan_buf *buf);

#endif
