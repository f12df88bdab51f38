/*
 * commands.c - the table of gpuplan's commands (git's commands[]) and the
 * global options. Each command is described in its own cmd_*.c; main(),
 * --help, the man page and completion all read this one list.
 */
#include <string.h>

#include "cli.h"

static const struct cli_command *const commands[] = {
    &cli_cmd_inspect, &cli_cmd_gpus,      &cli_cmd_platforms, &cli_cmd_models, &cli_cmd_estimate,
    &cli_cmd_check,   &cli_cmd_recommend, &cli_cmd_propose,   &cli_cmd_emit,   &cli_cmd_detect,
    &cli_cmd_tco,     &cli_cmd_serve,     &cli_cmd_version,
};

#define N_COMMANDS (sizeof commands / sizeof commands[0])

const char cli_description[] =
    N_("Plan GPU servers for fine-tuning and serving large language models.");

static const struct cli_global_option global_options[] = {
    { "-h, --help", NULL, N_("show this help and exit") },
    { "-V, --version", NULL, N_("print the version and the catalog date, and exit") },
    { "--lang", "en|ru",
      N_("language of messages (default: from LANGUAGE, LC_ALL, LC_MESSAGES, LANG)") },
};

#define N_GLOBAL_OPTIONS (sizeof global_options / sizeof global_options[0])

const struct cli_command *const *cli_commands(size_t *n_commands)
{
    *n_commands = N_COMMANDS;
    return commands;
}

const struct cli_command *cli_find_command(const char *name)
{
    for (size_t i = 0; i < N_COMMANDS; i++) {
        if (strcmp(commands[i]->name, name) == 0)
            return commands[i];
    }
    return NULL;
}

const struct cli_global_option *cli_global_options(size_t *n_options)
{
    *n_options = N_GLOBAL_OPTIONS;
    return global_options;
}
