/*
 * main.c - the entry point: the global options (--help, --version, --lang)
 * and the dispatch to a command (commands.c).
 *
 * Global options may come before or after the command; --lang is taken out
 * of argv before the command sees it. Hidden commands serve the build:
 * help-man (the man page), help-md (docs/cli.md) and __complete (shell
 * completion), all generated from the same descriptions as --help.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

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
        cli_help_print_main(stderr);
        return CLI_USAGE;
    }
    const char *name = argv[1];
    if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0 || strcmp(name, "help") == 0) {
        cli_help_print_main(stdout);
        return fflush(stdout) == 0 ? CLI_OK : CLI_RUN_ERROR;
    }
    if (strcmp(name, "--version") == 0 || strcmp(name, "-V") == 0)
        return cmd_version(argc - 1, argv + 1);
    const struct cli_command *cmd = cli_find_command(name);
    if (cmd)
        return cmd->run(argc - 1, argv + 1);
    /* For the build and the shell, not listed by --help. */
    if (strcmp(name, "help-man") == 0)
        return cmd_help_man(argc - 1, argv + 1);
    if (strcmp(name, "help-md") == 0)
        return cmd_help_md(argc - 1, argv + 1);
    /* git's help.c: a misspelled command gets the closest one. */
    size_t n_commands = 0;
    const struct cli_command *const *all = cli_commands(&n_commands);
    const char *names[CLI_MAX_COMMANDS];
    size_t n_names = 0;
    for (size_t i = 0; i < n_commands && n_names < CLI_MAX_COMMANDS; i++)
        names[n_names++] = all[i]->name;
    const char *closest = gpuplan_suggest_closest(name, names, n_names);
    if (closest) {
        fprintf(stderr, _("gpuplan: error: unknown command '%s'\n"), name);
        fprintf(stderr, _("hint: did you mean 'gpuplan %s'?\n"), closest);
        return CLI_USAGE;
    }
    return cli_usage_error(NULL, "unknown command '%s'", name);
}
