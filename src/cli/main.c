/*
 * main.c - the gpuplan command table (git's commands[]) and entry point.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

static int cmd_version(int argc, char **argv);

static const struct cli_command commands[] = {
    { "version", cmd_version, "print the version" },
};

#define N_COMMANDS (sizeof commands / sizeof commands[0])

int cli_report(const struct gpuplan_error *err)
{
    if (err->where[0])
        fprintf(stderr, "gpuplan: error: %s: %s\n", err->where, err->message);
    else
        fprintf(stderr, "gpuplan: error: %s\n", err->message);
    if (err->hint[0])
        fprintf(stderr, "hint: %s\n", err->hint);
    return err->code == GPUPLAN_ERR_USAGE ? CLI_USAGE : CLI_RUN_ERROR;
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("gpuplan: error: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    if (cmd)
        fprintf(stderr, "try 'gpuplan %s --help'\n", cmd);
    else
        fputs("try 'gpuplan --help'\n", stderr);
    return CLI_USAGE;
}

int cli_write_buf(const struct gpuplan_buf *buf)
{
    if (fwrite(gpuplan_buf_str(buf), 1, buf->len, stdout) != buf->len || fflush(stdout) != 0) {
        perror("gpuplan: error: writing output");
        return CLI_RUN_ERROR;
    }
    return CLI_OK;
}

static int cmd_version(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    printf("gpuplan %s\n", GPUPLAN_VERSION);
    return CLI_OK;
}

static void print_help(FILE *out)
{
    fputs("usage: gpuplan COMMAND [OPTIONS]\n\n"
          "Plan GPU servers for fine-tuning and serving large language models.\n\n"
          "commands:\n",
          out);
    for (size_t i = 0; i < N_COMMANDS; i++)
        fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fputs("\nRun 'gpuplan COMMAND --help' for the options of a command.\n", out);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        print_help(stderr);
        return CLI_USAGE;
    }
    const char *name = argv[1];
    if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0 || strcmp(name, "help") == 0) {
        print_help(stdout);
        return CLI_OK;
    }
    if (strcmp(name, "--version") == 0 || strcmp(name, "-V") == 0)
        return cmd_version(argc - 1, argv + 1);
    for (size_t i = 0; i < N_COMMANDS; i++) {
        if (strcmp(commands[i].name, name) == 0)
            return commands[i].run(argc - 1, argv + 1);
    }
    return cli_usage_error(NULL, "unknown command '%s'", name);
}
