/*
 * helpdoc.h - one description of the CLI for --help, the man page,
 * docs/cli.md and shell completion, so the four never disagree.
 *
 * Sources: the command table and the global options (main.c), each
 * command's own `--help` text (captured by running the command with --help),
 * and the library's option table gpuplan_job_options (include/gpuplan/job.h),
 * which also drives parsing: a listed option that the table defines takes
 * its argument, help and default from the table.
 *
 * A help text is read as: a "usage:" line (plus indented continuation
 * lines), description paragraphs, then sections headed "...:" (those naming
 * "options" hold options) whose option lines start with "  -" ("  --format FORMAT   what it does";
 * an indented line without a dash continues the description above).
 */
#ifndef GPUPLAN_HELPDOC_H
#define GPUPLAN_HELPDOC_H

#include <stdbool.h>
#include <stddef.h>

#include "cli.h"

/* An option every command accepts, handled by main() (--help, --version, --lang). */
struct cli_global_option {
    const char *names; /* e.g. "-V, --version" */
    const char *arg;   /* e.g. "en|ru", NULL for a flag */
    const char *help;  /* one line, N_() marked */
};

/* "Plan GPU servers for ..." (main.c), the first line of --help and the man page. */
extern const char cli_description[];

/* The visible commands (main.c); borrowed, static. */
const struct cli_command *cli_commands(size_t *n_commands);
/* The global options (main.c); borrowed, static. */
const struct cli_global_option *cli_global_options(size_t *n_options);

#define HELPDOC_MAX_OPTIONS 96

struct helpdoc_option {
    char names[96];     /* e.g. "-h, --help" */
    char long_name[48]; /* e.g. "help" (no dashes), "" when there is none */
    char arg[160];      /* e.g. "FORMAT", "" for a flag */
    char text[768];     /* description, continuation lines joined */
    char section[96];   /* its heading without ':', e.g. "options", "planner options" */
};

struct helpdoc_command {
    char name[32];       /* e.g. "estimate" */
    const char *summary; /* the command table's line (English) */
    char usage[512];     /* after "usage: ", lines joined */
    char description[2048];
    char extra[2048]; /* other sections, verbatim */
    struct helpdoc_option options[HELPDOC_MAX_OPTIONS];
    size_t n_options;
    bool takes_model; /* the usage names a MODEL argument */
};

/*
 * Describe one command: run it with --help (stdout captured), parse that
 * text, and take the job table's text for the job options it lists.
 * Returns 0, or -1 when the help could not be captured.
 */
int helpdoc_describe(const struct cli_command *cmd, struct helpdoc_command *out);

/* The option `long_name` (without dashes) of `doc`, or NULL. */
const struct helpdoc_option *helpdoc_find_option(const struct helpdoc_command *doc,
                                                 const char *long_name);

/* Hidden commands: the man page (roff), docs/cli.md (Markdown), completion. */
int cmd_help_man(int argc, char **argv);
int cmd_help_md(int argc, char **argv);
int cmd_complete(int argc, char **argv);

#endif
