/*
 * helpdoc.c - the man page (`gpuplan help-man`, roff) and docs/cli.md
 * (`gpuplan help-md`, Markdown), written from the same command
 * descriptions and option tables as --help (cli.h). Both are hidden
 * commands the build runs.
 *
 * Deliberately not a general roff or Markdown writer: it escapes what the
 * help texts contain (backslash, leading dot or quote, hyphen).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* One entry of a command's option list, as --help prints it. */
struct doc_option {
    char names[96];      /* e.g. "--seq-len", "-h, --help" */
    char arg[256];       /* e.g. "N", "" for a flag */
    char text[1024];     /* help and default */
    const char *section; /* the group's title, e.g. "options" */
};

/* `text` with each blank line (a paragraph break) as one '\n', the form roff and md write. */
static void paragraphs(const char *text, char *out, size_t size)
{
    size_t n = 0;
    for (const char *p = text; *p && n + 1 < size; p++) {
        if (p[0] == '\n' && p[1] == '\n')
            continue;
        out[n++] = *p;
    }
    out[n] = '\0';
}

/*
 * Call `emit` for every option `cmd` lists, in --help's order, then for
 * "-h, --help" (under the last group's title).
 */
static void each_option(const struct cli_command *cmd,
                        void (*emit)(FILE *out, const struct doc_option *o, bool new_section),
                        FILE *out)
{
    const char *section = NULL;
    for (size_t g = 0; g < CLI_MAX_GROUPS && cmd->groups[g].options; g++) {
        for (const struct gpuplan_option *o = cmd->groups[g].options; o->name; o++) {
            if (!cli_lists_option(cmd, g, o))
                continue;
            struct doc_option d;
            memset(&d, 0, sizeof d);
            (void)snprintf(d.names, sizeof d.names, "--%s", o->name);
            gpuplan_option_arg(o, d.arg, sizeof d.arg);
            const char *def = o->default_doc ? o->default_doc : o->default_value;
            if (def && o->kind != GPUPLAN_OPTION_FLAG)
                (void)snprintf(d.text, sizeof d.text, "%s (default: %s)", o->help, def);
            else
                (void)snprintf(d.text, sizeof d.text, "%s", o->help);
            d.section = cmd->groups[g].title;
            emit(out, &d, !section || strcmp(section, d.section) != 0);
            section = d.section;
        }
    }
    struct doc_option help = { "-h, --help", "", "show this help and exit", "options" };
    if (section)
        help.section = section;
    emit(out, &help, !section);
}

/* ---- roff ---- */

/* Escape for roff: backslash, hyphen; a leading '.' or '\'' gets "\&". */
static void roff_text(FILE *out, const char *s, bool line_start)
{
    for (; *s; s++) {
        if (line_start && (*s == '.' || *s == '\''))
            fputs("\\&", out);
        line_start = *s == '\n';
        if (*s == '\\')
            fputs("\\e", out);
        else if (*s == '-')
            fputs("\\-", out);
        else
            fputc(*s, out);
    }
}

/* "-h, --help" + "ARG" -> \fB\-h\fR, \fB\-\-help\fR \fIARG\fR */
static void roff_option_head(FILE *out, const char *names, const char *arg)
{
    char buf[128];
    snprintf(buf, sizeof buf, "%s", names);
    bool first = true;
    for (char *name = buf; *name;) {
        const size_t n = strcspn(name, ", ");
        const char saved = name[n];
        name[n] = '\0';
        if (n > 0) {
            fputs(first ? "\\fB" : ", \\fB", out);
            roff_text(out, name, false);
            fputs("\\fR", out);
            first = false;
        }
        if (!saved)
            break;
        name += n + 1;
    }
    if (arg && arg[0]) {
        fputs(" \\fI", out);
        roff_text(out, arg, false);
        fputs("\\fR", out);
    }
    fputc('\n', out);
}

static void roff_paragraphs(FILE *out, const char *text)
{
    fputs(".PP\n", out);
    for (const char *p = text; *p;) {
        const size_t n = strcspn(p, "\n");
        char para[2048];
        snprintf(para, sizeof para, "%.*s", (int)n, p);
        roff_text(out, para, true);
        fputc('\n', out);
        p += n;
        if (*p == '\n' && p[1])
            fputs(".PP\n", out);
        if (*p)
            p++;
    }
}

static void man_option(FILE *out, const struct doc_option *o, bool new_section)
{
    if (new_section && strcmp(o->section, "options") != 0) {
        fputs(".PP\n\\fI", out);
        roff_text(out, o->section, false);
        fputs(":\\fR\n", out);
    }
    fputs(".TP\n", out);
    roff_option_head(out, o->names, o->arg);
    roff_text(out, o->text, true);
    fputc('\n', out);
}

static void man_command(FILE *out, const struct cli_command *cmd)
{
    fprintf(out, ".SS \"gpuplan %s\"\n", cmd->name);
    roff_text(out, cmd->summary, true);
    fputs(".\n.PP\n.B gpuplan ", out);
    roff_text(out, cmd->usage, false);
    fputc('\n', out);
    if (cmd->description) {
        char text[2048];
        paragraphs(cmd->description, text, sizeof text);
        roff_paragraphs(out, text);
    }
    each_option(cmd, man_option, out);
}

static const char man_tail[] =
    ".SH ENVIRONMENT\n"
    ".TP\n.B LANGUAGE\n"
    "Colon-separated list of message languages (GNU gettext); overridden by \\fB\\-\\-lang\\fR.\n"
    ".TP\n.BR LC_ALL \", \" LC_MESSAGES \", \" LANG\n"
    "The locale whose language messages use. Numbers never follow the locale: the\n"
    "decimal separator is always a dot.\n"
    ".SH EXIT STATUS\n"
    ".TP\n.B 0\nsuccess (a plan that does not fit is a result, not an error)\n"
    ".TP\n.B 1\nthe run failed (unreadable or invalid input, unknown model or GPU)\n"
    ".TP\n.B 2\nusage error (unknown option, bad value)\n"
    ".SH FILES\n"
    ".TP\n.I PREFIX/share/locale/*/LC_MESSAGES/gpuplan.mo\nmessage catalogs\n"
    ".TP\n.I PREFIX/share/bash-completion/completions/gpuplan\nbash completion\n"
    ".TP\n.I PREFIX/share/zsh/site-functions/_gpuplan\nzsh completion\n"
    ".SH SEE ALSO\n"
    "The project documentation: docs/cli.md, docs/architecture.md, docs/http-api.md.\n";

/* "Plan GPU servers ... models." -> "plan GPU servers ... models" for the NAME line. */
static void man_name_line(FILE *out)
{
    char line[256];
    snprintf(line, sizeof line, "%s", cli_description);
    const size_t n = strlen(line);
    if (n && line[n - 1] == '.')
        line[n - 1] = '\0';
    if (line[0] >= 'A' && line[0] <= 'Z' && !(line[1] >= 'A' && line[1] <= 'Z'))
        line[0] = (char)(line[0] - 'A' + 'a');
    fputs("gpuplan \\- ", out);
    roff_text(out, line, false);
    fputc('\n', out);
}

/* The catalog date, for the man page's date; "" when the catalog does not load. */
static void catalog_date(char *out, size_t cap)
{
    struct gpuplan_catalog *catalog = NULL;
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    out[0] = '\0';
    if (gpuplan_catalog_load(&catalog, NULL, &err) == GPUPLAN_OK)
        snprintf(out, cap, "%s", gpuplan_catalog_date(catalog));
    gpuplan_catalog_free(catalog);
}

int cmd_help_man(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    cli_i18n_init("en"); /* the man page is English */
    size_t n_cmds = 0, n_globals = 0;
    const struct cli_command *const *cmds = cli_commands(&n_cmds);
    char date[32];
    catalog_date(date, sizeof date);
    FILE *out = stdout;
    fputs(".\\\" Generated by 'gpuplan help-man' from the option tables; do not edit.\n", out);
    fprintf(out, ".TH GPUPLAN 1 \"%s\" \"gpuplan %s\" \"User Commands\"\n", date, GPUPLAN_VERSION);
    fputs(".SH NAME\n", out);
    man_name_line(out);
    fputs(".SH SYNOPSIS\n.B gpuplan\n[\\fIGLOBAL OPTIONS\\fR] \\fICOMMAND\\fR "
          "[\\fIOPTIONS\\fR]\n.SH DESCRIPTION\n",
          out);
    roff_text(out, cli_description, true);
    fputs("\nEach command is listed below with its options; options take their value as\n"
          "\\fB\\-\\-name value\\fR or \\fB\\-\\-name=value\\fR.\n"
          ".SH GLOBAL OPTIONS\n"
          "These go before or after the command.\n",
          out);
    const struct cli_global_option *globals = cli_global_options(&n_globals);
    for (size_t i = 0; i < n_globals; i++) {
        fputs(".TP\n", out);
        roff_option_head(out, globals[i].names, globals[i].arg);
        roff_text(out, globals[i].help, true);
        fputc('\n', out);
    }
    fputs(".SH COMMANDS\n", out);
    for (size_t i = 0; i < n_cmds; i++)
        man_command(out, cmds[i]);
    fputs(man_tail, out);
    return fflush(out) == 0 ? CLI_OK : CLI_RUN_ERROR;
}

/* ---- Markdown ---- */

/* Prose for Markdown: '*' and '_' would start emphasis; '\n' ends a paragraph. */
static void md_text(FILE *out, const char *s)
{
    for (; *s; s++) {
        if (*s == '*' || *s == '_')
            fputc('\\', out);
        else if (*s == '\n')
            fputc('\n', out);
        fputc(*s, out);
    }
}

static void md_entry(FILE *out, const char *names, const char *arg, const char *text)
{
    fprintf(out, "- `%s%s%s`: ", names, arg && arg[0] ? " " : "", arg ? arg : "");
    md_text(out, text);
    fputc('\n', out);
}

static void md_option(FILE *out, const struct doc_option *o, bool new_section)
{
    if (new_section) {
        const char *s = o->section;
        fputc('\n', out);
        fputc(s[0] >= 'a' && s[0] <= 'z' ? s[0] - 'a' + 'A' : s[0], out);
        md_text(out, s[0] ? s + 1 : "");
        fputs(":\n\n", out);
    }
    md_entry(out, o->names, o->arg, o->text);
}

int cmd_help_md(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    cli_i18n_init("en");
    size_t n_cmds = 0, n_globals = 0;
    const struct cli_command *const *cmds = cli_commands(&n_cmds);
    FILE *out = stdout;
    fprintf(out,
            "# gpuplan command-line reference\n\n"
            "<!-- Generated by `make docs` (`gpuplan help-md`) from the option tables that\n"
            "     drive parsing and --help; do not edit. -->\n\n"
            "%s\n\n"
            "```\ngpuplan [GLOBAL OPTIONS] COMMAND [OPTIONS]\n```\n\n"
            "Options take their value as `--name value` or `--name=value`. Exit status: 0\n"
            "success, 1 the run failed, 2 usage error; `estimate` and `check` with a GPU: 3\n"
            "does not fit, 4 may not fit (the 80 %% range straddles the usable memory).\n\n"
            "## Global options\n\n",
            cli_description);
    const struct cli_global_option *globals = cli_global_options(&n_globals);
    for (size_t i = 0; i < n_globals; i++)
        md_entry(out, globals[i].names, globals[i].arg, globals[i].help);
    fputs("\n## Commands\n\n", out);
    for (size_t i = 0; i < n_cmds; i++)
        fprintf(out, "- [`%s`](#gpuplan-%s): %s\n", cmds[i]->name, cmds[i]->name, cmds[i]->summary);
    for (size_t i = 0; i < n_cmds; i++) {
        const struct cli_command *cmd = cmds[i];
        fprintf(out, "\n## gpuplan %s\n\n%s.\n\n```\ngpuplan %s\n```\n", cmd->name, cmd->summary,
                cmd->usage);
        if (cmd->description) {
            char text[2048];
            paragraphs(cmd->description, text, sizeof text);
            fputc('\n', out);
            md_text(out, text);
            fputc('\n', out);
        }
        each_option(cmd, md_option, out);
    }
    return fflush(out) == 0 ? CLI_OK : CLI_RUN_ERROR;
}
