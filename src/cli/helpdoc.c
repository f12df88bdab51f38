/*
 * helpdoc.c - read the commands' --help texts into one structure, and write
 * it as the man page (`gpuplan help-man`, roff) and as docs/cli.md
 * (`gpuplan help-md`). Both are hidden commands the build runs; see
 * helpdoc.h for the help-text layout this expects.
 *
 * Deliberately not a general roff or Markdown writer: it escapes what the
 * help texts contain (backslash, leading dot or quote, hyphen).
 */
#include "helpdoc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpuplan/job.h"
#include "i18n.h"

#define HELP_MAX_BYTES (256u * 1024u)

/* Append `text` (len bytes) to the NUL-terminated `dst` of size `cap`, truncating. */
static void append(char *dst, size_t cap, const char *text, size_t len)
{
    const size_t used = strlen(dst);
    if (used + 1 >= cap)
        return;
    if (len > cap - used - 1)
        len = cap - used - 1;
    memcpy(dst + used, text, len);
    dst[used + len] = '\0';
}

static void append_str(char *dst, size_t cap, const char *text)
{
    append(dst, cap, text, strlen(text));
}

/* Run `cmd --help` with stdout sent to a temporary file; malloc'd text or NULL. */
static char *capture_help(const struct cli_command *cmd)
{
    char name[32], flag[] = "--help";
    snprintf(name, sizeof name, "%s", cmd->name);
    char *argv[] = { name, flag, NULL };
    char *text = NULL;
    FILE *tmp = tmpfile();
    if (!tmp)
        return NULL;
    fflush(stdout);
    const int saved = dup(STDOUT_FILENO);
    if (saved < 0)
        goto out;
    if (dup2(fileno(tmp), STDOUT_FILENO) < 0) {
        close(saved);
        goto out;
    }
    cmd->run(2, argv);
    fflush(stdout);
    dup2(saved, STDOUT_FILENO);
    close(saved);
    struct stat st;
    if (fstat(fileno(tmp), &st) != 0 || st.st_size < 0 || (uint64_t)st.st_size > HELP_MAX_BYTES)
        goto out;
    const size_t size = (size_t)st.st_size;
    text = malloc(size + 1);
    if (!text)
        goto out;
    if (fseek(tmp, 0, SEEK_SET) != 0 || fread(text, 1, size, tmp) != size) {
        free(text);
        text = NULL;
        goto out;
    }
    text[size] = '\0';
out:
    fclose(tmp);
    return text;
}

static const char *skip_spaces(const char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    return s;
}

/* "  -h, --help   show this help" -> names "-h, --help", arg "", text "show this help". */
static void parse_option_line(const char *line, size_t len, struct helpdoc_option *opt)
{
    char buf[1024];
    if (len >= sizeof buf)
        len = sizeof buf - 1;
    memcpy(buf, line, len);
    buf[len] = '\0';
    memset(opt, 0, sizeof *opt);
    const char *p = skip_spaces(buf);
    /* Names: words starting with '-', one space apart. */
    while (*p == '-') {
        const size_t n = strcspn(p, " \t");
        if (opt->names[0])
            append_str(opt->names, sizeof opt->names, " ");
        append(opt->names, sizeof opt->names, p, n);
        if (!opt->long_name[0] && n > 2 && p[1] == '-') {
            size_t m = n - 2;
            if (p[n - 1] == ',')
                m--;
            append(opt->long_name, sizeof opt->long_name, p + 2, m);
        }
        p += n;
        if (p[0] == ' ' && p[1] == '-')
            p++;
        else
            break;
    }
    /* An argument is the next word when only one space separates it. */
    if (p[0] == ' ' && p[1] != ' ' && p[1] != '\0') {
        const size_t n = strcspn(p + 1, " \t");
        append(opt->arg, sizeof opt->arg, p + 1, n);
        p += 1 + n;
    }
    append_str(opt->text, sizeof opt->text, skip_spaces(p));
}

/*
 * An option the library's job table defines (same name and argument) takes
 * its argument, help and default from the table, which is what parsing uses.
 * A command may list fewer table options (recommend has no --nodes) or reuse
 * a name for its own option (recommend's --gpu ID,...): those keep the help's.
 */
static void use_job_table(struct helpdoc_option *opt)
{
    for (const struct gpuplan_job_option *o = gpuplan_job_options; o->name; o++) {
        if (strcmp(o->name, opt->long_name) != 0)
            continue;
        const char *arg = o->type == GPUPLAN_OPT_FLAG || !o->arg_name ? "" : o->arg_name;
        if (strcmp(arg, opt->arg) != 0)
            return;
        if (o->default_text && o->default_text[0])
            snprintf(opt->text, sizeof opt->text, "%s (default: %s)", o->help, o->default_text);
        else
            snprintf(opt->text, sizeof opt->text, "%s", o->help);
        return;
    }
}

enum parse_state { IN_USAGE, IN_DESCRIPTION, IN_SECTION };

static void parse_help(const char *text, struct helpdoc_command *doc)
{
    enum parse_state state = IN_DESCRIPTION;
    bool options_section = false, pending_break = false;
    char section[96] = "";
    struct helpdoc_option *last = NULL;
    for (const char *line = text; *line;) {
        const char *nl = strchr(line, '\n');
        const size_t len = nl ? (size_t)(nl - line) : strlen(line);
        const char *body = skip_spaces(line);
        const bool blank = (size_t)(body - line) >= len;
        const bool indented = body != line;
        if (!indented && len > 7 && strncmp(line, "usage: ", 7) == 0) {
            append(doc->usage, sizeof doc->usage, line + 7, len - 7);
            state = IN_USAGE;
        } else if (blank) {
            if (state == IN_USAGE)
                state = IN_DESCRIPTION;
            pending_break = doc->description[0] != '\0';
            last = NULL;
        } else if (state == IN_USAGE && indented) {
            append_str(doc->usage, sizeof doc->usage, " ");
            append(doc->usage, sizeof doc->usage, body, len - (size_t)(body - line));
        } else if (!indented && line[len - 1] == ':') {
            state = IN_SECTION;
            options_section = strstr(line, "options") && strstr(line, "options") < line + len;
            if (options_section) {
                section[0] = '\0';
                append(section, sizeof section, line, len - 1);
            } else {
                append(doc->extra, sizeof doc->extra, line, len);
                append_str(doc->extra, sizeof doc->extra, "\n");
            }
        } else if (state == IN_SECTION && options_section && *body == '-') {
            struct helpdoc_option parsed;
            parse_option_line(line, len, &parsed);
            snprintf(parsed.section, sizeof parsed.section, "%s", section);
            use_job_table(&parsed);
            last = NULL;
            if (doc->n_options < HELPDOC_MAX_OPTIONS) {
                last = &doc->options[doc->n_options++];
                *last = parsed;
            }
        } else if (state == IN_SECTION && options_section && last && indented) {
            append_str(last->text, sizeof last->text, " ");
            append(last->text, sizeof last->text, body, len - (size_t)(body - line));
        } else if (state == IN_SECTION) {
            append(doc->extra, sizeof doc->extra, line, len);
            append_str(doc->extra, sizeof doc->extra, "\n");
        } else {
            if (doc->description[0])
                append_str(doc->description, sizeof doc->description, pending_break ? "\n" : " ");
            append(doc->description, sizeof doc->description, body, len - (size_t)(body - line));
            pending_break = false;
        }
        line += len + (nl ? 1 : 0);
    }
}

int helpdoc_describe(const struct cli_command *cmd, struct helpdoc_command *out)
{
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "%s", cmd->name);
    out->summary = cmd->summary;
    char *text = capture_help(cmd);
    if (!text)
        return -1;
    parse_help(text, out);
    out->takes_model = strstr(out->usage, "MODEL") != NULL;
    free(text);
    return 0;
}

const struct helpdoc_option *helpdoc_find_option(const struct helpdoc_command *doc,
                                                 const char *long_name)
{
    for (size_t i = 0; i < doc->n_options; i++)
        if (strcmp(doc->options[i].long_name, long_name) == 0)
            return &doc->options[i];
    return NULL;
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

static void man_command(FILE *out, const struct helpdoc_command *doc)
{
    fprintf(out, ".SS \"gpuplan %s\"\n", doc->name);
    roff_text(out, doc->summary, true);
    fputs(".\n.PP\n.B gpuplan ", out);
    roff_text(out, doc->usage + (strncmp(doc->usage, "gpuplan ", 8) == 0 ? 8 : 0), false);
    fputc('\n', out);
    if (doc->description[0])
        roff_paragraphs(out, doc->description);
    for (size_t i = 0; i < doc->n_options; i++) {
        const char *section = doc->options[i].section;
        if (strcmp(section, "options") != 0 &&
            (i == 0 || strcmp(section, doc->options[i - 1].section) != 0)) {
            fputs(".PP\n\\fI", out);
            roff_text(out, section, false);
            fputs(":\\fR\n", out);
        }
        fputs(".TP\n", out);
        roff_option_head(out, doc->options[i].names, doc->options[i].arg);
        roff_text(out, doc->options[i].text, true);
        fputc('\n', out);
    }
    if (doc->extra[0]) {
        fputs(".PP\n.nf\n", out);
        roff_text(out, doc->extra, true);
        fputs(".fi\n", out);
    }
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

static int describe_all(struct helpdoc_command **docs_out, size_t *n_out)
{
    size_t n = 0;
    const struct cli_command *cmds = cli_commands(&n);
    struct helpdoc_command *docs = calloc(n ? n : 1, sizeof *docs);
    if (!docs)
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (helpdoc_describe(&cmds[i], &docs[i]) != 0) {
            fprintf(stderr, "gpuplan: error: cannot capture 'gpuplan %s --help'\n", cmds[i].name);
            free(docs);
            return -1;
        }
    }
    *docs_out = docs;
    *n_out = n;
    return 0;
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
    cli_i18n_init("en"); /* the man page is English; translated help would not parse */
    struct helpdoc_command *docs = NULL;
    size_t n_docs = 0, n_globals = 0;
    if (describe_all(&docs, &n_docs) != 0)
        return CLI_RUN_ERROR;
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
    for (size_t i = 0; i < n_docs; i++)
        man_command(out, &docs[i]);
    fputs(man_tail, out);
    free(docs);
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

static void md_option(FILE *out, const char *names, const char *arg, const char *text)
{
    fprintf(out, "- `%s%s%s`: ", names, arg && arg[0] ? " " : "", arg ? arg : "");
    md_text(out, text);
    fputc('\n', out);
}

int cmd_help_md(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    cli_i18n_init("en");
    struct helpdoc_command *docs = NULL;
    size_t n_docs = 0, n_globals = 0;
    if (describe_all(&docs, &n_docs) != 0)
        return CLI_RUN_ERROR;
    FILE *out = stdout;
    fprintf(out,
            "# gpuplan command-line reference\n\n"
            "<!-- Generated by `make docs` (`gpuplan help-md`) from the option tables that\n"
            "     drive parsing and --help; do not edit. -->\n\n"
            "%s\n\n"
            "```\ngpuplan [GLOBAL OPTIONS] COMMAND [OPTIONS]\n```\n\n"
            "Options take their value as `--name value` or `--name=value`. Exit status: 0\n"
            "success, 1 the run failed, 2 usage error.\n\n"
            "## Global options\n\n",
            cli_description);
    const struct cli_global_option *globals = cli_global_options(&n_globals);
    for (size_t i = 0; i < n_globals; i++)
        md_option(out, globals[i].names, globals[i].arg, globals[i].help);
    fputs("\n## Commands\n\n", out);
    for (size_t i = 0; i < n_docs; i++)
        fprintf(out, "- [`%s`](#gpuplan-%s): %s\n", docs[i].name, docs[i].name, docs[i].summary);
    for (size_t i = 0; i < n_docs; i++) {
        const struct helpdoc_command *doc = &docs[i];
        fprintf(out, "\n## gpuplan %s\n\n%s.\n\n```\n%s\n```\n", doc->name, doc->summary,
                doc->usage);
        if (doc->description[0]) {
            fputc('\n', out);
            md_text(out, doc->description);
            fputc('\n', out);
        }
        for (size_t j = 0; j < doc->n_options; j++) {
            const char *section = doc->options[j].section;
            if (j == 0 || strcmp(section, doc->options[j - 1].section) != 0) {
                fputc('\n', out);
                fputc(section[0] >= 'a' && section[0] <= 'z' ? section[0] - 'a' + 'A' : section[0],
                      out);
                md_text(out, section[0] ? section + 1 : "");
                fputs(":\n\n", out);
            }
            md_option(out, doc->options[j].names, doc->options[j].arg, doc->options[j].text);
        }
        if (doc->extra[0])
            fprintf(out, "\n```\n%s```\n", doc->extra);
    }
    free(docs);
    return fflush(out) == 0 ? CLI_OK : CLI_RUN_ERROR;
}
