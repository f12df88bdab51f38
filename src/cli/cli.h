/*
 * cli.h - shared pieces of the gpuplan command-line front-end.
 * The CLI includes only include/gpuplan/ (the public API), its own headers
 * and the server's interface (server.h, for `gpuplan serve`).
 *
 * Each command is described once (struct cli_command, in its cmd_*.c): its
 * usage, description and option tables. Parsing (cli_parse), --help
 * (help.c), the man page and docs/cli.md (helpdoc.c) and shell completion
 * (complete.c) all read that description; the table of commands is
 * commands.c.
 */
#ifndef GPUPLAN_CLI_H
#define GPUPLAN_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "gpuplan/config.h"
#include "gpuplan/gpuplan.h"
#include "gpuplan/options.h"
#include "gpuplan/render.h"
#include "i18n.h"

/*
 * Exit codes: 0 ok (a job that fits), 1 run failed, 2 usage error, 3 does not fit, 4 may not fit
 * (estimate, check: the device-total range straddles the usable memory).
 */
enum cli_exit {
    CLI_OK = 0,
    CLI_RUN_ERROR = 1,
    CLI_USAGE = 2,
    CLI_DOES_NOT_FIT = 3,
    CLI_MAY_NOT_FIT = 4
};

/*
 * The exit status of an estimate that ran (rc CLI_OK): the range verdict
 * (CLI_OK, CLI_MAY_NOT_FIT, CLI_DOES_NOT_FIT), the point verdict where there
 * is no range (serving), CLI_OK without a GPU; rc itself when it is not CLI_OK.
 */
int cli_fit_exit(int rc, const struct gpuplan_estimate *estimate);

/*
 * The server whose network an estimate across nodes uses: the one `gpu` is
 * sold in (gpuplan_catalog_sole_platform), or NULL on one node, without a GPU
 * or where several servers hold it.
 */
const struct gpuplan_platform *cli_network_platform(const struct gpuplan_catalog *catalog,
                                                    const struct gpuplan_job *job,
                                                    const struct gpuplan_gpu *gpu);

/* One section of a command's options: a table, the title --help gives it. */
struct cli_group {
    const char *title;                    /* e.g. "options", "planner options"; N_() marked */
    const struct gpuplan_option *options; /* NULL ends a command's groups */
    unsigned refuse;                      /* options with these flags are refused, not listed */
};

#define CLI_MAX_GROUPS 4
/* The commands commands.c lists (a bound for the CLI's own arrays of their names). */
#define CLI_MAX_COMMANDS 32

struct cli_command {
    const char *name; /* e.g. "estimate" */
    int (*run)(int argc, char **argv);
    const char *summary;     /* one line for `gpuplan --help`; N_() marked */
    const char *usage;       /* after "gpuplan ", e.g. "estimate MODEL [OPTIONS]" */
    const char *description; /* paragraphs separated by a blank line; N_() marked; or NULL */
    const char *model_arg;   /* the positional argument that names a model ("MODEL"), or NULL */
    size_t n_positional;     /* positional arguments the command takes */
    struct cli_group groups[CLI_MAX_GROUPS + 1]; /* the first with options NULL ends them */
};

/* An option every command accepts, handled by main() (--help, --version, --lang). */
struct cli_global_option {
    const char *names; /* e.g. "-V, --version" */
    const char *arg;   /* e.g. "en|ru", NULL for a flag */
    const char *help;  /* one line, N_() marked */
};

/* The visible commands and the global options (commands.c); borrowed, static. */
const struct cli_command *const *cli_commands(size_t *n_commands);
const struct cli_command *cli_find_command(const char *name);
const struct cli_global_option *cli_global_options(size_t *n_options);
/* "Plan GPU servers for ..." (commands.c), the first line of --help and the man page. */
extern const char cli_description[];

/* The options every command that prints a result shares (--format, --catalog). */
struct cli_common {
    enum gpuplan_format format; /* --format, default text */
    const char *catalog_dir;    /* --catalog DIR, NULL for the embedded catalog */
};

/* --format over the formats `formats` (a GPUPLAN_FORMAT_BIT set, render.h) of the command. */
#define CLI_FORMAT_OPTION(formats)                                                             \
    {                                                                                          \
        .name = "format", .kind = GPUPLAN_OPTION_CHOICE, .field = GPUPLAN_FIELD_INT,           \
        GPUPLAN_OPTION_AT(struct cli_common, format), .set_offset = GPUPLAN_OPTION_NO_SET,     \
        .help = N_("output format"), .default_value = "text", .choices = gpuplan_format_names, \
        .choice_values = gpuplan_format_values, .choice_mask = (formats),                      \
        .flags = GPUPLAN_OPTION_CLI_ONLY                                                       \
    }
/* --catalog DIR. */
#define CLI_CATALOG_OPTION                                                                        \
    {                                                                                             \
        .name = "catalog", .kind = GPUPLAN_OPTION_TEXT, .field = GPUPLAN_FIELD_STRING,            \
        GPUPLAN_OPTION_AT(struct cli_common, catalog_dir), .set_offset = GPUPLAN_OPTION_NO_SET,   \
        .arg = "DIR",                                                                             \
        .help = N_(                                                                               \
            "read gpus.json, platforms.json, parts.json, models.json from DIR over the embedded " \
            "catalog"),                                                                           \
        .flags = GPUPLAN_OPTION_CLI_ONLY                                                          \
    }

/*
 * Parse argv for `cmd` (argv[0] is the command's name): the options of its
 * groups into dests[i] for groups[i], and its positional arguments into
 * args->positional. Prints --help, or the error of a bad command line, and
 * returns the exit code then (0, 2); returns -1 to go on. A missing
 * positional argument is the command's to report (cli_missing_model).
 */
int cli_parse(const struct cli_command *cmd,
              void *const dests[],
              int argc,
              char **argv,
              struct gpuplan_argv *args);

/*
 * Whether group `g` of `cmd` lists `opt` in --help, the man page and
 * completion: not refused by the group, and not named by an earlier group
 * (whose option the parser takes instead, e.g. recommend's --gpu ID,...).
 */
bool cli_lists_option(const struct cli_command *cmd, size_t g, const struct gpuplan_option *opt);

/* The usage error "missing MODEL argument" for `cmd`. */
int cli_missing_model(const struct cli_command *cmd);

/* Print `cmd`'s --help to `out`, wrapped to cli_help_width() (help.c). */
void cli_help_print(const struct cli_command *cmd, FILE *out);
/* `gpuplan --help`: the commands and the global options (help.c). */
void cli_help_print_main(FILE *out);
/*
 * The width --help wraps to: COLUMNS when it is set to a number, else the
 * terminal's width (ioctl TIOCGWINSZ) when stdout is one, else 80.
 */
size_t cli_help_width(void);

/*
 * What a command that prints a result holds while it runs (report.c): the
 * error, the catalog, the model and the output. cli_run_finish reports the
 * error or writes the output, releases everything and gives the exit code.
 */
struct cli_run {
    struct gpuplan_error err;
    struct gpuplan_catalog *catalog; /* NULL until cli_run_load */
    struct gpuplan_model model;
    struct gpuplan_buf out;
};
void cli_run_init(struct cli_run *run);
/*
 * The catalog (embedded, plus `catalog_dir` when not NULL) and, when
 * `model_name`, the model as every command takes it: a catalog id, a path, or
 * a Hugging Face Hub id resolved through the catalog and the local cache
 * ($HF_HUB_CACHE, else $HF_HOME/hub, else ~/.cache/huggingface/hub); how a
 * Hub id was resolved is printed as a note on stderr.
 */
enum gpuplan_status
cli_run_load(struct cli_run *run, const char *catalog_dir, const char *model_name);
/* `st` GPUPLAN_OK: write run->out; else report run->err. Releases `run`; the exit code. */
int cli_run_finish(struct cli_run *run, enum gpuplan_status st);
/* Release `run` only (when the command reported something else itself). */
void cli_run_release(struct cli_run *run);

/*
 * Read `path` ("-": standard input) whole, at most `max_bytes`, into *out
 * (malloc'd, the caller frees; not NUL-terminated). GPUPLAN_ERR_NOT_FOUND,
 * GPUPLAN_ERR_IO, GPUPLAN_ERR_TOO_LARGE, GPUPLAN_ERR_NOMEM with the path.
 */
enum gpuplan_status cli_read_file(const char *path,
                                  size_t max_bytes,
                                  uint8_t **out,
                                  size_t *out_len,
                                  struct gpuplan_error *err);

/* ---- config files as input (cli_config.c) ---- */

#define CLI_MAX_FROM 8

/* The --from arguments, in order ("[KIND:]FILE", borrowed from argv). */
struct cli_from {
    const char *paths[CLI_MAX_FROM];
    size_t n;
};

/* The setter of a --from option whose destination is a struct cli_from (at opt->offset). */
enum gpuplan_status cli_from_add(void *dest,
                                 const struct gpuplan_option *opt,
                                 const char *text,
                                 struct gpuplan_error *err);

/* --from [KIND:]FILE for a command's struct `type` with a struct cli_from member `member`. */
#define CLI_FROM_OPTION(type, member)                                                          \
    {                                                                                          \
        .name = "from", .kind = GPUPLAN_OPTION_TEXT, .field = GPUPLAN_FIELD_NONE,              \
        GPUPLAN_OPTION_AT(type, member), .set_offset = GPUPLAN_OPTION_NO_SET,                  \
        .arg = "[KIND:]FILE", .parse = cli_from_add,                                           \
        .help = N_("read the job from a training config (DeepSpeed, accelerate, axolotl, "     \
                   "LLaMA-Factory, torchtune, TRL, PEFT; repeatable); options given override " \
                   "it"),                                                                      \
        .flags = GPUPLAN_OPTION_CLI_ONLY                                                       \
    }

/*
 * Read every --from file into `cfg` (fresh from gpuplan_config_init), and
 * each file they name, relative to the first file's folder.
 */
enum gpuplan_status
cli_config_load(const struct cli_from *from, struct gpuplan_config *cfg, struct gpuplan_error *err);

struct gpuplan_plan_request;
/* recommend --from: the knobs the files set (or their framework's defaults) are not searched. */
void cli_config_mark_fixed(const struct gpuplan_config *cfg, struct gpuplan_plan_request *req);

/* Print "gpuplan: error: MESSAGE" (+ where, hint) to stderr; return the exit code for the status.
 */
int cli_report(const struct gpuplan_error *err);
/* Print a usage error, "try 'gpuplan CMD --help'", return CLI_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Write a buffer to stdout; CLI_RUN_ERROR on failure. */
int cli_write_buf(const struct gpuplan_buf *buf);

/*
 * `--gpu local`: detect this machine's GPUs (NVML or amdgpu sysfs; the
 * GPUPLAN_NVML_LIBRARY and GPUPLAN_SYSFS_ROOT overrides apply) as one catalog
 * GPU with the detected memory, and their count.
 */
enum gpuplan_status cli_local_gpu(const struct gpuplan_catalog *catalog,
                                  struct gpuplan_gpu *out,
                                  uint32_t *out_count,
                                  struct gpuplan_error *err);

/* The commands (cmd_*.c). */
extern const struct cli_command cli_cmd_inspect;
extern const struct cli_command cli_cmd_gpus;
extern const struct cli_command cli_cmd_models;
extern const struct cli_command cli_cmd_platforms;
extern const struct cli_command cli_cmd_estimate;
extern const struct cli_command cli_cmd_recommend;
extern const struct cli_command cli_cmd_propose;
extern const struct cli_command cli_cmd_detect;
extern const struct cli_command cli_cmd_tco;
extern const struct cli_command cli_cmd_serve;
extern const struct cli_command cli_cmd_version;
extern const struct cli_command cli_cmd_emit;
extern const struct cli_command cli_cmd_check;

/* `gpuplan version`, also `gpuplan --version` (cmd_version.c). */
int cmd_version(int argc, char **argv);

/* Hidden commands of the build and the shell: the man page, docs/cli.md, completion. */
int cmd_help_man(int argc, char **argv);
int cmd_help_md(int argc, char **argv);
int cmd_complete(int argc, char **argv);

/* ---- HTML to PDF through headless Chromium (pdf.c) ---- */

/* Longest wait for Chromium to print a document (a large proposal takes 1 to 3 s). */
#define CLI_PDF_TIMEOUT_S 120.0

struct cli_pdf_options {
    const char *chromium; /* the program; NULL: "chromium" in PATH, then /usr/bin/chromium */
    double timeout_s;     /* 0: CLI_PDF_TIMEOUT_S */
    const char *tmp_dir;  /* where the private directory goes; NULL: $TMPDIR, else /tmp */
};

/*
 * Print `len` bytes of HTML (a self-contained document: doc_internal.h's) to
 * a PDF at `out_path`, through Debian's headless Chromium: the document and a
 * throwaway profile in a private temporary directory, removed afterwards;
 * the output checked to start with "%PDF-" before it is written. The
 * program is GPUPLAN_CHROMIUM when set, else found as cli_pdf_options says.
 * Errors: GPUPLAN_ERR_NOT_FOUND (no Chromium: the hint says how to install
 * it), GPUPLAN_ERR_IO (it failed, timed out or wrote no PDF: its last log
 * line in the hint; or a file could not be written), GPUPLAN_ERR_USAGE (no
 * out_path). Not thread-safe with other children of the process (it waits
 * for its own pid only, but kills Chromium's whole process group).
 */
enum gpuplan_status
cli_html_to_pdf(const char *html, size_t len, const char *out_path, struct gpuplan_error *err);
/* The same with explicit options (tests; `opt` may be NULL). */
enum gpuplan_status cli_html_to_pdf_with(const struct cli_pdf_options *opt,
                                         const char *html,
                                         size_t len,
                                         const char *out_path,
                                         struct gpuplan_error *err);

#endif
