/*
 * report.c - what every command prints when something goes wrong, and its
 * output: "gpuplan: error: ..." with the hint, usage errors with the "try
 * 'gpuplan CMD --help'" line (exit 2), and writing a result to stdout.
 */
#include <stdarg.h>
#include <stdio.h>

#include "cli.h"

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
