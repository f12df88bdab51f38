/*
 * cmd_propose.c - `gpuplan propose MODEL [options]`: the customer proposal
 * for the job (the recommend search, then the document of render.h's
 * gpuplan_render_proposal through request.h's gpuplan_propose), as
 * self-contained HTML, Markdown, or a PDF printed by headless Chromium
 * (pdf.c). The language is --lang's (or the locale's); the date is today's
 * in UTC, or SOURCE_DATE_EPOCH's (reproducible output, reproducible-builds.org
 * spec) when that is set.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "gpuplan/plan.h"
#include "gpuplan/request.h"

/* The document formats: html and md are render.h's; pdf prints the html. */
enum propose_format { PROPOSE_HTML, PROPOSE_MD, PROPOSE_PDF };
static const char *const propose_format_names[] = { "html", "md", "pdf", "markdown", NULL };
static const int propose_format_values[] = { PROPOSE_HTML, PROPOSE_MD, PROPOSE_PDF, PROPOSE_MD };

/* Longest reproducing command line kept in the document. */
#define PROPOSE_COMMAND_MAX 2048

struct propose_args {
    int format;              /* enum propose_format */
    const char *output;      /* -o / --output FILE, or NULL: stdout */
    const char *catalog_dir; /* --catalog DIR */
    struct cli_from from;    /* --from FILE */
};

static const struct gpuplan_option propose_options[] = {
    { .name = "format",
      .kind = GPUPLAN_OPTION_CHOICE,
      .field = GPUPLAN_FIELD_INT,
      GPUPLAN_OPTION_AT(struct propose_args, format),
      .set_offset = GPUPLAN_OPTION_NO_SET,
      .help = N_("document format (md: with -o FILE, its pictures as SVG files beside it; pdf: "
                 "printed by headless Chromium, needs -o FILE)"),
      .default_value = "html",
      .choices = propose_format_names,
      .choice_values = propose_format_values,
      .flags = GPUPLAN_OPTION_CLI_ONLY },
    { .name = "output",
      .kind = GPUPLAN_OPTION_TEXT,
      .field = GPUPLAN_FIELD_STRING,
      GPUPLAN_OPTION_AT(struct propose_args, output),
      .set_offset = GPUPLAN_OPTION_NO_SET,
      .arg = "FILE",
      .help = N_("write the document to FILE (also -o FILE); default: standard output"),
      .flags = GPUPLAN_OPTION_CLI_ONLY },
    CLI_FROM_OPTION(struct propose_args, from),
    { .name = "catalog",
      .kind = GPUPLAN_OPTION_TEXT,
      .field = GPUPLAN_FIELD_STRING,
      GPUPLAN_OPTION_AT(struct propose_args, catalog_dir),
      .set_offset = GPUPLAN_OPTION_NO_SET,
      .arg = "DIR",
      .help = N_("read gpus.json, platforms.json, parts.json, models.json from DIR over the "
                 "embedded catalog"),
      .flags = GPUPLAN_OPTION_CLI_ONLY },
    { .name = NULL },
};

static int cmd_propose(int argc, char **argv);

const struct cli_command cli_cmd_propose = {
    .name = "propose",
    .run = cmd_propose,
    .summary = N_("the customer proposal for a job: HTML, Markdown or PDF"),
    .usage = N_("propose MODEL [OPTIONS]"),
    .description = N_("Search as recommend does, then write the document a vendor hands the "
                      "customer: the job, the recommended server as a bill of materials with "
                      "prices and dates, the alternatives, memory, time, cost and buy-or-rent "
                      "charts, the risks, the launch configuration and the sources."),
    .model_arg = "MODEL",
    .n_positional = 1,
    .groups = { { N_("planner options"), gpuplan_plan_options, 0 },
                { N_("job options (fixing one stops the planner from searching it)"),
                  gpuplan_job_options, GPUPLAN_OPTION_SEARCHED },
                { N_("options"), propose_options, 0 } },
};

/* The date shown: SOURCE_DATE_EPOCH when set (reproducible output), else now; UTC. */
static void today(char *out, size_t size)
{
    time_t t = time(NULL);
    const char *epoch = getenv("SOURCE_DATE_EPOCH");
    if (epoch && *epoch) {
        char *end = NULL;
        const long long v = strtoll(epoch, &end, 10);
        if (end && *end == '\0' && v >= 0)
            t = (time_t)v;
    }
    struct tm tm;
    if (!gmtime_r(&t, &tm) || strftime(out, size, "%Y-%m-%d", &tm) == 0)
        snprintf(out, size, "?");
}

/* Append `word` to `out`, single-quoted for a POSIX shell unless it is plain. */
static void put_shell_word(char *out, size_t size, const char *word)
{
    size_t n = strlen(out);
    const bool plain =
        word[0] && strspn(word, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                                "-_.,:/=+@%") == strlen(word);
    if (plain) {
        snprintf(out + n, size - n, " %s", word);
        return;
    }
    snprintf(out + n, size - n, " '");
    for (const char *p = word; *p; p++) {
        n = strlen(out);
        if (*p == '\'')
            snprintf(out + n, size - n, "'\\''");
        else
            snprintf(out + n, size - n, "%c", *p);
    }
    n = strlen(out);
    snprintf(out + n, size - n, "'");
}

/*
 * The command that reproduces the document: gpuplan propose and the
 * arguments, without the output file and the format (it is the same
 * document in any of them).
 */
static void reproducing_command(int argc, char **argv, const char *lang, char *out, size_t size)
{
    snprintf(out, size, "gpuplan");
    if (lang && strcmp(lang, "en") != 0) {
        put_shell_word(out, size, "--lang");
        put_shell_word(out, size, lang);
    }
    put_shell_word(out, size, "propose");
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--output") == 0 || strcmp(argv[i], "--format") == 0) {
            i++;
            continue;
        }
        if (strncmp(argv[i], "--output=", 9) == 0 || strncmp(argv[i], "--format=", 9) == 0)
            continue;
        put_shell_word(out, size, argv[i]);
    }
}

/* The Markdown's pictures: SVG files beside -o FILE, named FILE's stem + "-memory.svg" etc. */
struct chart_files {
    char dir[4096]; /* FILE's directory with its '/', or "" */
    char stem[72];  /* "proposal-", or "" when FILE's stem is not a plain file name */
    struct gpuplan_error *err;
};

#define CHART_STEM_MAX 64 /* render.h: md_prefix at most 64 bytes */

static void chart_files_init(struct chart_files *cf, const char *output)
{
    memset(cf, 0, sizeof *cf);
    const char *slash = strrchr(output, '/');
    const char *base = slash ? slash + 1 : output;
    const size_t dir_len = (size_t)(base - output);
    if (dir_len < sizeof cf->dir)
        memcpy(cf->dir, output, dir_len);
    const char *dot = strrchr(base, '.');
    const size_t stem_len = dot && dot > base ? (size_t)(dot - base) : strlen(base);
    if (stem_len >= 1 && stem_len <= CHART_STEM_MAX &&
        strspn(base, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") >=
            stem_len) {
        memcpy(cf->stem, base, stem_len);
        cf->stem[stem_len] = '-';
    }
}

static enum gpuplan_status
write_chart(void *ctx, const char *file, const char *svg, size_t len, struct gpuplan_error *err)
{
    struct chart_files *cf = ctx;
    char path[sizeof cf->dir + 192];
    snprintf(path, sizeof path, "%s%s", cf->dir, file);
    FILE *f = fopen(path, "wb");
    bool ok = f && fwrite(svg, 1, len, f) == len;
    const int saved = errno;
    if (f && fclose(f) != 0)
        ok = false;
    if (ok)
        return GPUPLAN_OK;
    gpuplan_error_set(err, GPUPLAN_ERR_IO, path, "cannot write the picture '%s': %s", path,
                      strerror(saved ? saved : errno));
    gpuplan_error_hint(err, "%s",
                       _("the Markdown's pictures are written beside -o FILE: check that its "
                         "folder is writable"));
    return GPUPLAN_ERR_IO;
}

static int cmd_propose(int argc, char **argv)
{
    /* -o FILE is --output FILE (the option tables have long names only). */
    char **args_v = calloc((size_t)argc + 1, sizeof *args_v);
    if (!args_v)
        return cli_usage_error("propose", "out of memory");
    static char long_output[] = "--output";
    for (int i = 0; i < argc; i++)
        args_v[i] = strcmp(argv[i], "-o") == 0 && i > 0 ? long_output : argv[i];
    struct gpuplan_plan_request req;
    gpuplan_plan_request_init(&req);
    struct propose_args pa;
    memset(&pa, 0, sizeof pa);
    (void)gpuplan_options_init(propose_options, &pa, NULL);
    struct gpuplan_argv args;
    void *const dests[] = { &req, &req.job, &pa };
    int rc = cli_parse(&cli_cmd_propose, dests, argc, args_v, &args);
    if (rc >= 0) {
        free(args_v);
        return rc;
    }
    struct gpuplan_config cfg;
    gpuplan_config_init(&cfg);
    const char *model = args.n_positional ? args.positional[0] : NULL;
    if (pa.from.n) {
        struct gpuplan_error err;
        gpuplan_error_init(&err);
        if (cli_config_load(&pa.from, &cfg, &err) != GPUPLAN_OK) {
            gpuplan_config_release(&cfg);
            free(args_v);
            return cli_report(&err);
        }
        req.job = cfg.job;
        cli_config_mark_fixed(&cfg, &req);
        struct propose_args scratch = pa;
        scratch.from.n = 0;
        struct gpuplan_argv again;
        void *const again_dests[] = { &req, &req.job, &scratch };
        (void)cli_parse(&cli_cmd_propose, again_dests, argc, args_v, &again);
        if (!model && cfg.model_id[0])
            model = cfg.model_id;
    }
    if (!model) {
        gpuplan_config_release(&cfg);
        free(args_v);
        return cli_missing_model(&cli_cmd_propose);
    }
    if (pa.format == PROPOSE_PDF && (!pa.output || !pa.output[0])) {
        gpuplan_config_release(&cfg);
        free(args_v);
        return cli_usage_error("propose", "'--format pdf' needs '-o FILE' (a PDF is not written "
                                          "to a terminal)");
    }
    for (size_t i = 0; i < args.n_given; i++)
        gpuplan_plan_request_mark_fixed(&req, args.given[i]);

    char date[32];
    today(date, sizeof date);
    const char *lang = cli_i18n_language();
    char *command = malloc(PROPOSE_COMMAND_MAX);
    if (command)
        reproducing_command(argc, args_v, lang, command, PROPOSE_COMMAND_MAX);
    struct gpuplan_proposal_options opts = {
        .format = pa.format == PROPOSE_MD ? GPUPLAN_FORMAT_MD : GPUPLAN_FORMAT_HTML,
        .lang = lang,
        .date = date,
        .version = GPUPLAN_VERSION,
        .command = command,
    };
    struct cli_run run;
    cli_run_init(&run);
    struct chart_files files;
    const bool md_to_file = pa.format == PROPOSE_MD && pa.output && strcmp(pa.output, "-") != 0;
    if (md_to_file) {
        chart_files_init(&files, pa.output);
        opts.chart_sink = write_chart;
        opts.chart_ctx = &files;
        opts.md_prefix = files.stem;
    }
    enum gpuplan_status st = cli_run_load(&run, pa.catalog_dir, model);
    if (st == GPUPLAN_OK)
        st = gpuplan_propose(&run.model, run.catalog, &req, &opts, &run.out, &run.err);
    if (st == GPUPLAN_OK)
        st = gpuplan_buf_status(&run.out, &run.err);
    free(command);
    gpuplan_config_release(&cfg);
    free(args_v);
    if (st != GPUPLAN_OK)
        return cli_run_finish(&run, st);
    if (pa.format == PROPOSE_PDF) {
        st = cli_html_to_pdf(run.out.data, run.out.len, pa.output, &run.err);
        rc = st == GPUPLAN_OK ? CLI_OK : cli_report(&run.err);
        cli_run_release(&run);
        return rc;
    }
    if (!pa.output || strcmp(pa.output, "-") == 0)
        return cli_run_finish(&run, st);
    FILE *f = fopen(pa.output, "wb");
    bool ok = f && fwrite(run.out.data, 1, run.out.len, f) == run.out.len;
    const int saved = errno;
    if (f && fclose(f) != 0)
        ok = false;
    rc = CLI_OK;
    if (!ok) {
        gpuplan_error_set(&run.err, GPUPLAN_ERR_IO, pa.output, "cannot write '%s': %s", pa.output,
                          strerror(saved ? saved : errno));
        rc = cli_report(&run.err);
    }
    cli_run_release(&run);
    return rc;
}
