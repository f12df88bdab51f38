/*
 * report.c - what every command prints when something goes wrong, and its
 * output: "gpuplan: error: ..." with the hint, usage errors with the "try
 * 'gpuplan CMD --help'" line (exit 2), and writing a result to stdout; the
 * catalog and model every command loads (cli_run).
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "gpuplan/estimate.h"

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

void cli_run_init(struct cli_run *run)
{
    gpuplan_error_init(&run->err);
    run->catalog = NULL;
    gpuplan_model_init(&run->model);
    gpuplan_buf_init(&run->out, GPUPLAN_BUF_DEFAULT_MAX_BYTES);
}

/* The Hugging Face cache as huggingface_hub finds it (constants.py: HF_HUB_CACHE). */
static const char *hf_hub_cache(char *buf, size_t size)
{
    const char *v = getenv("HF_HUB_CACHE");
    if (v && *v)
        return v;
    v = getenv("HF_HOME");
    int n;
    if (v && *v)
        n = snprintf(buf, size, "%s/hub", v);
    else if ((v = getenv("HOME")) != NULL && *v)
        n = snprintf(buf, size, "%s/.cache/huggingface/hub", v);
    else
        return NULL;
    return n > 0 && (size_t)n < size ? buf : NULL;
}

static enum gpuplan_status load_model(struct gpuplan_model *model,
                                      const char *name,
                                      const struct gpuplan_catalog *catalog,
                                      struct gpuplan_error *err)
{
    char hub[PATH_MAX];
    const enum gpuplan_status st =
        gpuplan_model_load_hub(model, name, catalog, hf_hub_cache(hub, sizeof hub), err);
    if (st == GPUPLAN_OK && model->resolved_note[0])
        fprintf(stderr, _("gpuplan: note: %s\n"), model->resolved_note);
    return st;
}

enum gpuplan_status
cli_run_load(struct cli_run *run, const char *catalog_dir, const char *model_name)
{
    enum gpuplan_status st = gpuplan_catalog_load(&run->catalog, catalog_dir, &run->err);
    if (st == GPUPLAN_OK && model_name)
        st = load_model(&run->model, model_name, run->catalog, &run->err);
    return st;
}

void cli_run_release(struct cli_run *run)
{
    gpuplan_buf_release(&run->out);
    gpuplan_model_release(&run->model);
    gpuplan_catalog_free(run->catalog);
    run->catalog = NULL;
}

int cli_run_finish(struct cli_run *run, enum gpuplan_status st)
{
    const int rc = st == GPUPLAN_OK ? cli_write_buf(&run->out) : cli_report(&run->err);
    cli_run_release(run);
    return rc;
}

enum gpuplan_status cli_read_file(const char *path,
                                  size_t max_bytes,
                                  uint8_t **out,
                                  size_t *out_len,
                                  struct gpuplan_error *err)
{
    const bool is_stdin = strcmp(path, "-") == 0;
    FILE *f = is_stdin ? stdin : fopen(path, "rb");
    *out = NULL;
    *out_len = 0;
    if (!f)
        return gpuplan_error_set(err, errno == ENOENT ? GPUPLAN_ERR_NOT_FOUND : GPUPLAN_ERR_IO,
                                 path, "cannot open '%s': %s", path, strerror(errno));
    size_t cap = 4096, len = 0;
    uint8_t *buf = malloc(cap);
    enum gpuplan_status st =
        buf ? GPUPLAN_OK : gpuplan_error_set(err, GPUPLAN_ERR_NOMEM, path, "out of memory");
    while (st == GPUPLAN_OK) {
        if (len == cap) {
            if (cap > max_bytes) {
                st = gpuplan_error_set(err, GPUPLAN_ERR_TOO_LARGE, path,
                                       "'%s' is larger than %zu bytes", path, max_bytes);
                break;
            }
            uint8_t *grown = realloc(buf, cap * 2);
            if (!grown) {
                st = gpuplan_error_set(err, GPUPLAN_ERR_NOMEM, path, "out of memory");
                break;
            }
            buf = grown;
            cap *= 2;
        }
        const size_t n = fread(buf + len, 1, cap - len, f);
        len += n;
        if (n == 0) {
            if (ferror(f))
                st = gpuplan_error_set(err, GPUPLAN_ERR_IO, path, "cannot read '%s'", path);
            break;
        }
    }
    if (st == GPUPLAN_OK && len > max_bytes)
        st = gpuplan_error_set(err, GPUPLAN_ERR_TOO_LARGE, path, "'%s' is larger than %zu bytes",
                               path, max_bytes);
    if (!is_stdin)
        (void)fclose(f);
    if (st != GPUPLAN_OK) {
        free(buf);
        return st;
    }
    *out = buf;
    *out_len = len;
    return GPUPLAN_OK;
}

const struct gpuplan_platform *cli_network_platform(const struct gpuplan_catalog *catalog,
                                                    const struct gpuplan_job *job,
                                                    const struct gpuplan_gpu *gpu)
{
    return gpu && job->nodes > 1 ? gpuplan_catalog_sole_platform(catalog, gpu, job->gpus_per_node)
                                 : NULL;
}

int cli_fit_exit(int rc, const struct gpuplan_estimate *estimate)
{
    if (rc != CLI_OK || !estimate || !estimate->has_gpu)
        return rc;
    const struct gpuplan_estimate_ranges *rg = &estimate->ranges;
    if (!rg->has_verdict)
        return estimate->memory.est.fits ? CLI_OK : CLI_DOES_NOT_FIT;
    switch (rg->verdict) {
    case GPUPLAN_VERDICT_FITS:
        return CLI_OK;
    case GPUPLAN_VERDICT_MAY_NOT_FIT:
        return CLI_MAY_NOT_FIT;
    default:
        return CLI_DOES_NOT_FIT;
    }
}
