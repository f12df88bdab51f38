/*
 * main.c - the gpuplan command table (git's commands[]), the global options
 * (--help, --version, --lang) and the entry point.
 *
 * Global options may come before or after the command; --lang is taken out
 * of argv before the command sees it. Hidden commands serve the build:
 * help-man (the man page), help-md (docs/cli.md) and __complete (shell
 * completion), all generated from the same tables as --help (helpdoc.h).
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "helpdoc.h"
#include "i18n.h"

static int cmd_version(int argc, char **argv);

/* Summaries are N_() marked and translated where printed. */
static const struct cli_command commands[] = {
    { "inspect", cmd_inspect,
      N_("exact parameter inventory of a model (catalog, config, safetensors, GGUF)") },
    { "gpus", cmd_gpus, N_("list the GPU catalog with sources") },
    { "models", cmd_models, N_("list the model catalog with sources") },
    { "estimate", cmd_estimate, N_("memory per GPU and host to fine-tune or serve a model") },
    { "recommend", cmd_recommend, N_("search GPU servers for a job, rank, emit launch configs") },
    { "detect", cmd_detect, N_("list this machine's GPUs (NVML, amdgpu sysfs)") },
    { "tco", cmd_tco, N_("monthly cost of owning vs renting GPUs, and break-even") },
    { "serve", cmd_serve, N_("run the HTTP/JSON service and web page") },
    { "version", cmd_version, N_("print the version") },
};

#define N_COMMANDS (sizeof commands / sizeof commands[0])

/* For the build and the shell, not listed by --help. */
static const struct cli_command hidden_commands[] = {
    { "help-man", cmd_help_man, "print the man page (roff)" },
    { "help-md", cmd_help_md, "print docs/cli.md (Markdown)" },
    { "__complete", cmd_complete, "shell completion candidates" },
};

const char cli_description[] =
    N_("Plan GPU servers for fine-tuning and serving large language models.");

static const struct cli_global_option global_options[] = {
    { "-h, --help", NULL, N_("show this help and exit") },
    { "-V, --version", NULL, N_("print the version and the catalog date, and exit") },
    { "--lang", "en|ru",
      N_("language of messages (default: from LANGUAGE, LC_ALL, LC_MESSAGES, LANG)") },
};

#define N_GLOBAL_OPTIONS (sizeof global_options / sizeof global_options[0])

const struct cli_command *cli_commands(size_t *n_commands)
{
    *n_commands = N_COMMANDS;
    return commands;
}

const struct cli_global_option *cli_global_options(size_t *n_options)
{
    *n_options = N_GLOBAL_OPTIONS;
    return global_options;
}

/*
 * Library messages are English; a message the library builds with values
 * only translates when ru.po has that exact text (see docs/i18n.md).
 */
int cli_report(const struct gpuplan_error *err)
{
    if (err->where[0])
        fprintf(stderr, _("gpuplan: error: %s: %s\n"), err->where, _(err->message));
    else
        fprintf(stderr, _("gpuplan: error: %s\n"), _(err->message));
    if (err->hint[0])
        fprintf(stderr, _("hint: %s\n"), _(err->hint));
    return err->code == GPUPLAN_ERR_USAGE ? CLI_USAGE : CLI_RUN_ERROR;
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs(_("gpuplan: error: "), stderr);
    vfprintf(stderr, gettext(fmt), ap);
    fputc('\n', stderr);
    va_end(ap);
    if (cmd)
        fprintf(stderr, _("try 'gpuplan %s --help'\n"), cmd);
    else
        fputs(_("try 'gpuplan --help'\n"), stderr);
    return CLI_USAGE;
}

int cli_write_buf(const struct gpuplan_buf *buf)
{
    if (fwrite(gpuplan_buf_str(buf), 1, buf->len, stdout) != buf->len || fflush(stdout) != 0) {
        perror(_("gpuplan: error: writing output"));
        return CLI_RUN_ERROR;
    }
    return CLI_OK;
}

/* "gpuplan 0.1.0 (catalog 2026-11-29)": the version and the embedded catalog's date. */
static int cmd_version(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    struct gpuplan_catalog *catalog = NULL;
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    if (gpuplan_catalog_load(&catalog, NULL, &err) != GPUPLAN_OK)
        return cli_report(&err);
    printf("gpuplan %s (catalog %s)\n", GPUPLAN_VERSION, gpuplan_catalog_date(catalog));
    gpuplan_catalog_free(catalog);
    return fflush(stdout) == 0 ? CLI_OK : CLI_RUN_ERROR;
}

static void print_help(FILE *out)
{
    fprintf(out, _("usage: gpuplan [--lang en|ru] COMMAND [OPTIONS]\n\n%s\n\ncommands:\n"),
            _(cli_description));
    for (size_t i = 0; i < N_COMMANDS; i++)
        fprintf(out, "  %-10s %s\n", commands[i].name, _(commands[i].summary));
    fputs(_("\nglobal options:\n"), out);
    for (size_t i = 0; i < N_GLOBAL_OPTIONS; i++) {
        char left[64];
        snprintf(left, sizeof left, "%s%s%s", global_options[i].names,
                 global_options[i].arg ? " " : "",
                 global_options[i].arg ? global_options[i].arg : "");
        fprintf(out, "  %-18s %s\n", left, _(global_options[i].help));
    }
    fputs(_("\nRun 'gpuplan COMMAND --help' for the options of a command.\n"), out);
}

/*
 * Take "--lang X" / "--lang=X" out of argv (anywhere), compacting it.
 * Returns 0 and sets *lang (NULL when absent), or -1 when the value is missing.
 */
static int take_lang(int *argc, char **argv, const char **lang)
{
    int kept = 1, rc = 0;
    *lang = NULL;
    for (int i = 1; i < *argc; i++) {
        if (strcmp(argv[i], "--lang") == 0) {
            if (i + 1 >= *argc)
                rc = -1;
            else
                *lang = argv[++i];
        } else if (strncmp(argv[i], "--lang=", 7) == 0) {
            *lang = argv[i] + 7;
        } else {
            argv[kept++] = argv[i];
        }
    }
    argv[kept] = NULL;
    *argc = kept;
    return rc;
}

/*
 * Output for programs stays English whatever the language: `serve` (HTTP and
 * JSON) and --format json|csv. The library formats reasons and errors through
 * the same catalog as the CLI, so this is decided before any command runs.
 */
static bool wants_english(int argc, char **argv)
{
    bool serve = argc >= 2 && strcmp(argv[1], "serve") == 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
            serve = false; /* `serve --help` is for a person */
        const char *value = NULL;
        if (strcmp(argv[i], "--format") == 0 && i + 1 < argc)
            value = argv[i + 1];
        else if (strncmp(argv[i], "--format=", 9) == 0)
            value = argv[i] + 9;
        if (value && (strcmp(value, "json") == 0 || strcmp(value, "csv") == 0))
            return true;
    }
    return serve;
}

int main(int argc, char **argv)
{
    /* Completion words are the shell's, untouched (they may hold "--lang"). */
    if (argc >= 2 && strcmp(argv[1], "__complete") == 0)
        return cmd_complete(argc - 1, argv + 1);
    const char *lang = NULL;
    const int lang_rc = take_lang(&argc, argv, &lang);
    if (cli_i18n_init(lang) != 0)
        return cli_usage_error(NULL, "unknown language '%s'; must be one of %s", lang,
                               cli_i18n_languages);
    if (lang_rc != 0)
        return cli_usage_error(NULL, "option '--lang' needs a value (%s)", cli_i18n_languages);
    if (wants_english(argc, argv))
        cli_i18n_english();
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
    for (size_t i = 0; i < sizeof hidden_commands / sizeof hidden_commands[0]; i++) {
        if (strcmp(hidden_commands[i].name, name) == 0)
            return hidden_commands[i].run(argc - 1, argv + 1);
    }
    return cli_usage_error(NULL, "unknown command '%s'", name);
}
