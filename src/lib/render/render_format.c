/*
 * render_format.c - output format names, and the check every renderer makes
 * that it writes the format asked for (render.h); the money format the
 * renderers share (render_internal.h).
 */
#include "gpuplan/job.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gpuplan/render.h"
#include "render/render_internal.h"

const char *const gpuplan_format_names[] = {
    "text", "json", "csv", "md", "html", "markdown", NULL
};
const int gpuplan_format_values[] = { GPUPLAN_FORMAT_TEXT, GPUPLAN_FORMAT_JSON, GPUPLAN_FORMAT_CSV,
                                      GPUPLAN_FORMAT_MD,   GPUPLAN_FORMAT_HTML, GPUPLAN_FORMAT_MD };

const char *gpuplan_format_name(enum gpuplan_format format)
{
    return (unsigned)format < GPUPLAN_FORMAT_COUNT ? gpuplan_format_names[format] : "unknown";
}

/* "text|json": the allowed formats in enum order. */
static void allowed_names(unsigned allowed, char *out, size_t size)
{
    size_t used = 0;
    out[0] = '\0';
    for (int f = 0; f < GPUPLAN_FORMAT_COUNT; f++) {
        if (!(allowed & GPUPLAN_FORMAT_BIT(f)))
            continue;
        const int n =
            snprintf(out + used, size - used, "%s%s", used ? "|" : "", gpuplan_format_names[f]);
        if (n < 0 || (size_t)n >= size - used)
            return;
        used += (size_t)n;
    }
}

static enum gpuplan_status refuse(const char *name, unsigned allowed, struct gpuplan_error *err)
{
    char names[64];
    allowed_names(allowed, names, sizeof names);
    return gpuplan_error_set(err, GPUPLAN_ERR_USAGE, NULL, "'--format' is '%s'; must be one of %s",
                             name, names);
}

enum gpuplan_status gpuplan_format_parse(const char *name,
                                         unsigned allowed,
                                         enum gpuplan_format *out,
                                         struct gpuplan_error *err)
{
    for (size_t i = 0; name && gpuplan_format_names[i]; i++) {
        const int f = gpuplan_format_values[i];
        if (strcmp(name, gpuplan_format_names[i]) == 0 && (allowed & GPUPLAN_FORMAT_BIT(f))) {
            *out = (enum gpuplan_format)f;
            return GPUPLAN_OK;
        }
    }
    return refuse(name ? name : "", allowed, err);
}

enum gpuplan_status
gpuplan_format_check(enum gpuplan_format format, unsigned allowed, struct gpuplan_error *err)
{
    if ((unsigned)format < GPUPLAN_FORMAT_COUNT && (allowed & GPUPLAN_FORMAT_BIT(format)))
        return GPUPLAN_OK;
    return refuse(gpuplan_format_name(format), allowed, err);
}

double gpuplan_round_to(double v, double step)
{
    return round(v / step) * step;
}

json_t *gpuplan_job_options_json(const struct gpuplan_job *j)
{
    json_t *o = json_object();
    for (const struct gpuplan_option *opt = gpuplan_job_options; opt->name; opt++) {
        char value[GPUPLAN_JOB_MAX_TEXT], key[64];
        gpuplan_job_format(j, opt, value, sizeof value);
        if (!value[0])
            continue;
        (void)snprintf(key, sizeof key, "%s", opt->name);
        for (char *c = key; *c; c++)
            *c = *c == '-' ? '_' : *c;
        json_object_set_new(o, key, json_string(value));
    }
    return o;
}

void gpuplan_format_usd(char *dst, size_t size, double usd)
{
    char digits[32];
    snprintf(digits, sizeof digits, "%.0f", fabs(round(usd)));
    const size_t n = strlen(digits);
    size_t j = 0;
    if (size == 0)
        return;
    if (usd <= -0.5 && j + 1 < size)
        dst[j++] = '-';
    if (j + 1 < size)
        dst[j++] = '$';
    for (size_t i = 0; i < n && j + 1 < size; i++) {
        if (i > 0 && (n - i) % 3 == 0 && j + 2 < size)
            dst[j++] = ',';
        dst[j++] = digits[i];
    }
    dst[j] = 0;
}

void gpuplan_csv_row(struct gpuplan_buf *out, const char *const *cells, size_t n)
{
    for (size_t c = 0; c < n; c++) {
        const char *text = cells[c] ? cells[c] : "";
        if (c)
            gpuplan_buf_puts(out, ",");
        if (strpbrk(text, ",\"\r\n") == NULL) {
            gpuplan_buf_puts(out, text);
            continue;
        }
        gpuplan_buf_puts(out, "\"");
        for (const char *q = text; *q; q++)
            gpuplan_buf_puts(out, *q == '"' ? "\"\"" : (char[]){ *q, '\0' });
        gpuplan_buf_puts(out, "\"");
    }
    gpuplan_buf_puts(out, "\r\n");
}
