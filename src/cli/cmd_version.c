/*
 * cmd_version.c - `gpuplan version` (and `gpuplan --version`): the version
 * and the date of the embedded catalog.
 */
#include <stdio.h>

#include "cli.h"

/* "gpuplan 0.1.0 (catalog 2026-11-29)": the version and the embedded catalog's date. */
int cmd_version(int argc, char **argv)
{
    struct gpuplan_argv args;
    void *const dests[] = { NULL };
    const int rc = cli_parse(&cli_cmd_version, dests, argc, argv, &args);
    if (rc >= 0)
        return rc;
    struct gpuplan_catalog *catalog = NULL;
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    if (gpuplan_catalog_load(&catalog, NULL, &err) != GPUPLAN_OK)
        return cli_report(&err);
    printf("gpuplan %s (catalog %s)\n", GPUPLAN_VERSION, gpuplan_catalog_date(catalog));
    gpuplan_catalog_free(catalog);
    return fflush(stdout) == 0 ? CLI_OK : CLI_RUN_ERROR;
}

const struct cli_command cli_cmd_version = {
    .name = "version",
    .run = cmd_version,
    .summary = N_("print the version"),
    .usage = "version",
    .description = N_("Print the version and the date of the embedded catalog."),
};
