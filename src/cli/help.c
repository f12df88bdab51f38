/*
 * help.c - `--help` from the command descriptions (cli.h) and their option
 * tables, wrapped to the terminal: COLUMNS when set, else the width of the
 * terminal stdout is (ioctl TIOCGWINSZ), else 80 columns. No line is wider
 * than that (gpuplan_buf_wrap cuts a word longer than a line).
 *
 * Layout: "usage: gpuplan USAGE", the description's paragraphs, then each
 * group of options under its title: the option and its argument from
 * column 2, the help (and its default) from column HELP_COLUMN, or on the
 * next line when the option is wider; narrow terminals put every help on
 * its own line.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cli.h"

/* The width when stdout is no terminal and COLUMNS is unset (the VT100's 80 columns). */
#define DEFAULT_WIDTH 80
/* Column where option help starts (git's parse-options uses 26 for its usage lines). */
#define HELP_COLUMN 28
/* Below this width the help goes on its own line under the option, indented by NARROW_INDENT. */
#define NARROW_WIDTH  (HELP_COLUMN + 24)
#define NARROW_INDENT 8
/* The commands and global options of `gpuplan --help`: their help starts at these columns. */
#define COMMAND_COLUMN 13
#define GLOBAL_COLUMN  21
/* Option names and arguments are short: "--gpu-memory-utilization F" is 26 characters. */
#define LEFT_MAX 320

size_t cli_help_width(void)
{
    const char *columns = getenv("COLUMNS");
    if (columns && *columns) {
        char *end = NULL;
        const unsigned long n = strtoul(columns, &end, 10);
        if (*end == '\0' && n > 0 && n < 100000)
            return n;
    }
    struct winsize ws;
    if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
        return ws.ws_col;
    return DEFAULT_WIDTH;
}

/* Continuation lines of a usage line start under its first word ("usage: gpuplan "). */
static size_t usage_indent(size_t width)
{
    const size_t indent = strlen("usage: gpuplan ");
    return indent < width / 3 ? indent : width / 3;
}

/* One entry: `left` from column 2, `text` from `column` (or the next line), wrapped. */
static void
item(struct gpuplan_buf *b, const char *left, const char *text, size_t column, size_t width)
{
    if (width < column + NARROW_WIDTH - HELP_COLUMN)
        column = NARROW_INDENT;
    gpuplan_buf_puts(b, "  ");
    size_t col = gpuplan_buf_wrap(b, left, 2, 4, width);
    if (col + 1 > column || column == NARROW_INDENT) {
        gpuplan_buf_puts(b, "\n");
        col = 0;
    }
    for (; col < column; col++)
        gpuplan_buf_puts(b, " ");
    gpuplan_buf_wrap(b, text, column, column, width);
    gpuplan_buf_puts(b, "\n");
}

/* The help of `opt` with its default: "tokens per training sequence (default: 2048)". */
static void option_text(const struct gpuplan_option *opt, char *out, size_t size)
{
    const char *def = opt->default_doc ? _(opt->default_doc) : opt->default_value;
    if (def && opt->kind != GPUPLAN_OPTION_FLAG)
        (void)snprintf(out, size, _("%s (default: %s)"), _(opt->help), def);
    else
        (void)snprintf(out, size, "%s", _(opt->help));
}

static void help_text(const struct cli_command *cmd, struct gpuplan_buf *b, size_t width)
{
    char line[512];
    (void)snprintf(line, sizeof line, _("usage: gpuplan %s"), _(cmd->usage));
    gpuplan_buf_wrap(b, line, 0, usage_indent(width), width);
    gpuplan_buf_puts(b, "\n");
    if (cmd->description) {
        gpuplan_buf_puts(b, "\n");
        gpuplan_buf_wrap(b, _(cmd->description), 0, 0, width);
        gpuplan_buf_puts(b, "\n");
    }
    const char *title = NULL;
    for (size_t g = 0; g < CLI_MAX_GROUPS && cmd->groups[g].options; g++) {
        if (!title || strcmp(title, cmd->groups[g].title) != 0) {
            title = cmd->groups[g].title;
            char heading[256];
            (void)snprintf(heading, sizeof heading, "%s:", _(title));
            gpuplan_buf_puts(b, "\n");
            gpuplan_buf_wrap(b, heading, 0, 0, width);
            gpuplan_buf_puts(b, "\n");
        }
        for (const struct gpuplan_option *o = cmd->groups[g].options; o->name; o++) {
            if (!cli_lists_option(cmd, g, o))
                continue;
            char arg[256], left[LEFT_MAX], text[1024];
            gpuplan_option_arg(o, arg, sizeof arg);
            (void)snprintf(left, sizeof left, "--%s%s%s", o->name, arg[0] ? " " : "", arg);
            option_text(o, text, sizeof text);
            item(b, left, text, HELP_COLUMN, width);
        }
    }
    if (!title)
        gpuplan_buf_printf(b, "\n%s:\n", _("options"));
    item(b, "-h, --help", _("show this help and exit"), HELP_COLUMN, width);
}

static void write_out(const struct gpuplan_buf *b, FILE *out)
{
    if (gpuplan_buf_status(b, NULL) == GPUPLAN_OK)
        (void)fwrite(gpuplan_buf_str(b), 1, b->len, out);
}

void cli_help_print(const struct cli_command *cmd, FILE *out)
{
    struct gpuplan_buf b;
    gpuplan_buf_init(&b, 0);
    help_text(cmd, &b, cli_help_width());
    write_out(&b, out);
    gpuplan_buf_release(&b);
}

void cli_help_print_main(FILE *out)
{
    const size_t width = cli_help_width();
    struct gpuplan_buf b;
    gpuplan_buf_init(&b, 0);
    gpuplan_buf_wrap(&b, _("usage: gpuplan [--lang en|ru] COMMAND [OPTIONS]"), 0,
                     usage_indent(width), width);
    gpuplan_buf_puts(&b, "\n\n");
    gpuplan_buf_wrap(&b, _(cli_description), 0, 0, width);
    gpuplan_buf_printf(&b, "\n\n%s\n", _("commands:"));
    size_t n = 0;
    const struct cli_command *const *cmds = cli_commands(&n);
    for (size_t i = 0; i < n; i++)
        item(&b, cmds[i]->name, _(cmds[i]->summary), COMMAND_COLUMN, width);
    gpuplan_buf_printf(&b, "\n%s\n", _("global options:"));
    const struct cli_global_option *globals = cli_global_options(&n);
    for (size_t i = 0; i < n; i++) {
        char left[LEFT_MAX];
        (void)snprintf(left, sizeof left, "%s%s%s", globals[i].names, globals[i].arg ? " " : "",
                       globals[i].arg ? globals[i].arg : "");
        item(&b, left, _(globals[i].help), GLOBAL_COLUMN, width);
    }
    gpuplan_buf_puts(&b, "\n");
    gpuplan_buf_wrap(&b, _("Run 'gpuplan COMMAND --help' for the options of a command."), 0, 0,
                     width);
    gpuplan_buf_puts(&b, "\n");
    write_out(&b, out);
    gpuplan_buf_release(&b);
}
