/*
 * render_catalog.c - `gpuplan gpus` and `gpuplan models` listings (see render.h).
 *
 * Text, CSV, Markdown and HTML share one path: the rows are built as a table
 * of strings, then emitted in the chosen syntax. JSON is built with jansson
 * (sorted keys, 2-space indent, 10 significant digits for reals), so the
 * output is byte-stable. Numbers are rounded here only, with fixed formats.
 *
 * Not here: loading or validating the catalog (catalog.c).
 */
#include "gpuplan/catalog.h"
#include "gpuplan/render.h"
#include "render/render_internal.h"
#include "util/json_internal.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/units.h"

#include "util/i18n_internal.h"

/* One table cell: a catalog `source` or `notes` is at most 511 bytes (docs/catalog.md) + NUL. */
#define CELL_BYTES 512
/* Parameter-count display units (counts, not bytes). */
#define PARAMS_PER_BILLION 1e9
#define PARAMS_PER_MILLION 1e6
#define JSON_FLAGS         (JSON_SORT_KEYS | JSON_INDENT(2) | JSON_REAL_PRECISION(10) | JSON_ENSURE_ASCII)

/* ---- a table of strings ---------------------------------------------------- */

/* The widest listing (gpus) has 13 columns; room to spare. */
#define CSV_MAX_COLS 64

struct table {
    size_t n_cols;
    size_t n_rows; /* including the header row */
    char (*cells)[CELL_BYTES];
};

static bool table_init(struct table *t, size_t n_cols, size_t n_rows)
{
    t->n_cols = n_cols;
    t->n_rows = n_rows;
    t->cells = calloc(n_cols * n_rows, CELL_BYTES);
    return t->cells != NULL;
}

static char *cell(struct table *t, size_t row, size_t col)
{
    return t->cells[row * t->n_cols + col];
}

static void set_cell(struct table *t, size_t row, size_t col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void set_cell(struct table *t, size_t row, size_t col, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    (void)vsnprintf(cell(t, row, col), CELL_BYTES, fmt, ap);
    va_end(ap);
}

/* A figure with a fixed format, or "-" when unknown/unsupported. */
static void set_number(struct table *t, size_t row, size_t col, bool known, double value)
{
    if (!known)
        set_cell(t, row, col, "-");
    else if (value >= 100.0)
        set_cell(t, row, col, "%.0f", value);
    else
        set_cell(t, row, col, "%.3g", value);
}

/*
 * The source: whole in CSV and Markdown (files people keep and cite), and in
 * the terminal's table the first entry (up to ';' or ' '), as a short reference.
 */
static void
set_source(struct table *t, size_t row, size_t col, enum gpuplan_format format, const char *source)
{
    if (format != GPUPLAN_FORMAT_TEXT) {
        set_cell(t, row, col, "%s", source);
        return;
    }
    size_t n = strcspn(source, "; ");
    if (n > 48)
        n = 48;
    set_cell(t, row, col, "%.*s%s", (int)n, source, source[n] ? " ..." : "");
}

static void emit_text(const struct table *t, struct gpuplan_buf *out)
{
    size_t widths[32] = { 0 };
    for (size_t r = 0; r < t->n_rows; r++)
        for (size_t c = 0; c < t->n_cols && c < 32; c++) {
            const size_t n = strlen(t->cells[r * t->n_cols + c]);
            if (n > widths[c])
                widths[c] = n;
        }
    for (size_t r = 0; r < t->n_rows; r++) {
        for (size_t c = 0; c < t->n_cols; c++) {
            const char *text = t->cells[r * t->n_cols + c];
            if (c + 1 == t->n_cols)
                gpuplan_buf_printf(out, "%s\n", text);
            else
                gpuplan_buf_printf(out, "%-*s  ", (int)widths[c], text);
        }
    }
}

static void emit_csv(const struct table *t, struct gpuplan_buf *out)
{
    const char *row[CSV_MAX_COLS];
    const size_t n = t->n_cols < CSV_MAX_COLS ? t->n_cols : CSV_MAX_COLS;
    for (size_t r = 0; r < t->n_rows; r++) {
        for (size_t c = 0; c < n; c++)
            row[c] = t->cells[r * t->n_cols + c];
        gpuplan_csv_row(out, row, n);
    }
}

static void emit_md(const struct table *t, struct gpuplan_buf *out)
{
    for (size_t r = 0; r < t->n_rows; r++) {
        gpuplan_buf_puts(out, "|");
        for (size_t c = 0; c < t->n_cols; c++) {
            gpuplan_buf_puts(out, " ");
            for (const char *p = t->cells[r * t->n_cols + c]; *p; p++)
                gpuplan_buf_puts(out, *p == '|' ? "\\|" : (char[]){ *p, '\0' });
            gpuplan_buf_puts(out, " |");
        }
        gpuplan_buf_puts(out, "\n");
        if (r == 0) {
            gpuplan_buf_puts(out, "|");
            for (size_t c = 0; c < t->n_cols; c++)
                gpuplan_buf_puts(out, "---|");
            gpuplan_buf_puts(out, "\n");
        }
    }
}

static void emit_html(const struct table *t, const char *css_class, struct gpuplan_buf *out)
{
    gpuplan_buf_printf(out, "<table class=\"%s\">\n", css_class);
    for (size_t r = 0; r < t->n_rows; r++) {
        const char *tag = r == 0 ? "th" : "td";
        gpuplan_buf_puts(out, "<tr>");
        for (size_t c = 0; c < t->n_cols; c++) {
            gpuplan_buf_printf(out, "<%s>", tag);
            gpuplan_buf_puts_html(out, t->cells[r * t->n_cols + c]);
            gpuplan_buf_printf(out, "</%s>", tag);
        }
        gpuplan_buf_puts(out, "</tr>\n");
    }
    gpuplan_buf_puts(out, "</table>\n");
}

static void emit_table(const struct table *t,
                       enum gpuplan_format format,
                       const char *css_class,
                       struct gpuplan_buf *out)
{
    switch (format) {
    case GPUPLAN_FORMAT_CSV:
        emit_csv(t, out);
        break;
    case GPUPLAN_FORMAT_MD:
        emit_md(t, out);
        break;
    case GPUPLAN_FORMAT_HTML:
        emit_html(t, css_class, out);
        break;
    case GPUPLAN_FORMAT_TEXT:
    case GPUPLAN_FORMAT_JSON:
    default:
        emit_text(t, out);
        break;
    }
}

/* ---- JSON -------------------------------------------------------------- */

static const char *const vendor_names[GPUPLAN_VENDOR_COUNT] = { "nvidia", "amd", "intel" };
static const char *const link_names[GPUPLAN_LINK_COUNT] = { "pcie", "nvlink-bridge", "nvswitch",
                                                            "infinity-fabric", "ethernet" };

static json_t *real_or_null(bool known, double value)
{
    return known ? json_real(value) : json_null();
}

static json_t *string_or_null(const char *text)
{
    return text[0] ? json_string(text) : json_null();
}

static json_t *rates_json(const struct gpuplan_catalog *catalog, const struct gpuplan_gpu *g)
{
    json_t *list = json_array();
    for (size_t i = 0; list && i < g->n_rates; i++) {
        const struct gpuplan_cloud_rate *r = &g->rates[i];
        json_array_append_new(list, json_pack("{s:s, s:f, s:s, s:s, s:s, s:o, s:b}", "tier",
                                              gpuplan_cloud_tier_name(r->tier), "usd_per_gpu_hour",
                                              r->usd_per_gpu_hour, "provider", r->provider, "date",
                                              r->date, "source", r->source, "notes",
                                              string_or_null(r->notes), "stale",
                                              gpuplan_catalog_price_is_stale(catalog, r->date)));
    }
    return list;
}

static json_t *gpu_json(const struct gpuplan_catalog *catalog, const struct gpuplan_gpu *g)
{
    json_t *platforms = json_array();
    for (size_t i = 0; platforms && i < g->n_platforms; i++)
        json_array_append_new(platforms, json_string(g->platforms[i]));
    const double memory_gb = gpuplan_gb_from_bytes(g->memory_bytes);
    const double visible_mib = (double)g->memory_visible_bytes / (double)GPUPLAN_BYTES_PER_MIB;
    json_t *o = json_pack(
        "{s:s, s:s, s:s, s:s, s:s, s:f, s:I, s:o, s:o, s:I, s:f, s:o, s:o, s:o, s:o, s:o,"
        " s:s, s:f, s:I, s:I, s:f, s:o, s:o, s:s, s:o, s:s, s:s, s:o}",
        "id", g->id, "vendor", vendor_names[g->vendor], "name", g->name, "architecture",
        g->architecture, "memory", g->memory_literal, "memory_gb", memory_gb, "memory_bytes",
        (json_int_t)g->memory_bytes, "memory_visible_mib",
        real_or_null(g->memory_visible_bytes > 0, visible_mib), "memory_visible_bytes",
        g->memory_visible_bytes > 0 ? json_integer((json_int_t)g->memory_visible_bytes)
                                    : json_null(),
        "devices_per_card", (json_int_t)g->devices_per_card, "memory_bandwidth_gb_per_s",
        g->memory_bandwidth_gb_per_s, "bf16_tflops", real_or_null(g->has_bf16, g->bf16_tflops),
        "fp16_tflops", real_or_null(g->fp16_tflops > 0.0, g->fp16_tflops), "fp8_tflops",
        real_or_null(g->has_fp8, g->fp8_tflops), "fp4_tflops",
        real_or_null(g->has_fp4, g->fp4_tflops), "tf32_tflops",
        real_or_null(g->has_tf32, g->tf32_tflops), "interconnect", link_names[g->link],
        "link_gb_per_s", g->link_gb_per_s, "max_gpus_per_link_domain",
        (json_int_t)g->max_gpus_per_link_domain, "pcie_gen", (json_int_t)g->pcie_gen, "tdp_w",
        g->tdp_w, "compute_capability", string_or_null(g->compute_capability), "gfx_target",
        string_or_null(g->gfx_target), "form_factor", g->form_factor, "platforms", platforms,
        "source", g->source, "retrieved", g->retrieved, "notes", string_or_null(g->notes));
    if (!o)
        return NULL;
    const bool priced = g->price_usd > 0.0;
    json_object_set_new(o, "price_usd", real_or_null(priced, g->price_usd));
    json_object_set_new(o, "price_date", string_or_null(g->price_date));
    json_object_set_new(o, "price_source", string_or_null(g->price_source));
    json_object_set_new(o, "price_notes", string_or_null(g->price_notes));
    json_object_set_new(
        o, "price_stale",
        json_boolean(priced && gpuplan_catalog_price_is_stale(catalog, g->price_date)));
    json_object_set_new(o, "cloud_rates", rates_json(catalog, g));
    return o;
}

static json_t *model_json(const struct gpuplan_catalog_model *m)
{
    json_t *config = json_loadb(m->config_json, m->config_json_len, 0, NULL);
    return json_pack("{s:s, s:s, s:s, s:s, s:o, s:o, s:s, s:s, s:o}", "id", m->id, "name", m->name,
                     "hf_repo", m->hf_repo, "family", m->family, "params_published",
                     m->params_published ? json_integer((json_int_t)m->params_published)
                                         : json_null(),
                     "config", config ? config : json_null(), "source", m->source, "retrieved",
                     m->retrieved, "notes", string_or_null(m->notes));
}

static enum gpuplan_status
emit_json(json_t *root, struct gpuplan_buf *out, struct gpuplan_error *err)
{
    return gpuplan_json_write(root, JSON_FLAGS, out, err);
}

static enum gpuplan_status render_json_list(const struct gpuplan_catalog *catalog,
                                            bool gpus,
                                            struct gpuplan_buf *out,
                                            struct gpuplan_error *err)
{
    json_t *list = json_array();
    const size_t n = gpus ? gpuplan_catalog_n_gpus(catalog) : gpuplan_catalog_n_models(catalog);
    for (size_t i = 0; list && i < n; i++) {
        json_t *item = gpus ? gpu_json(catalog, gpuplan_catalog_gpu_at(catalog, i))
                            : model_json(gpuplan_catalog_model_at(catalog, i));
        if (!item || json_array_append_new(list, item) != 0) {
            json_decref(list);
            list = NULL;
        }
    }
    json_t *root = list ? json_pack("{s:i, s:s, s:o}", "schema_version", 1, "catalog_date",
                                    gpuplan_catalog_date(catalog), gpus ? "gpus" : "models", list)
                        : NULL;
    return emit_json(root, out, err);
}

/* ---- tables ------------------------------------------------------------ */

enum gpuplan_status gpuplan_render_gpus(const struct gpuplan_catalog *catalog,
                                        enum gpuplan_format format,
                                        struct gpuplan_buf *out,
                                        struct gpuplan_error *err)
{
    if (gpuplan_format_check(format, GPUPLAN_RENDER_GPUS_FORMATS, err) != GPUPLAN_OK)
        return GPUPLAN_ERR_USAGE;
    if (format == GPUPLAN_FORMAT_JSON)
        return render_json_list(catalog, true, out, err);
    static const char *const header[] = {
        "id",         "name",        "memory",    "mem_gb_per_s", "bf16_tflops", "fp8_tflops",
        "fp4_tflops", "link",        "tdp_w",     "usd",          "price_date",  "hyperscaler",
        "specialty",  "marketplace", "commit_1y", "source"
    };
    const size_t n_cols = sizeof header / sizeof header[0];
    const size_t n = gpuplan_catalog_n_gpus(catalog);
    struct table t;
    if (!table_init(&t, n_cols, n + 1))
        return gpuplan_error_set(err, GPUPLAN_ERR_NOMEM, NULL, "out of memory rendering GPUs");
    for (size_t c = 0; c < n_cols; c++)
        set_cell(&t, 0, c, "%s", header[c]);
    size_t n_stale = 0;
    for (size_t i = 0; i < n; i++) {
        const struct gpuplan_gpu *g = gpuplan_catalog_gpu_at(catalog, i);
        const size_t r = i + 1;
        set_cell(&t, r, 0, "%s", g->id);
        set_cell(&t, r, 1, "%s", g->name);
        set_cell(&t, r, 2, "%s", g->memory_literal);
        set_number(&t, r, 3, true, g->memory_bandwidth_gb_per_s);
        set_number(&t, r, 4, g->has_bf16, g->bf16_tflops);
        set_number(&t, r, 5, g->has_fp8, g->fp8_tflops);
        set_number(&t, r, 6, g->has_fp4, g->fp4_tflops);
        set_cell(&t, r, 7, "%s", link_names[g->link]);
        set_number(&t, r, 8, true, g->tdp_w);
        const bool stale =
            g->price_usd > 0.0 && gpuplan_catalog_price_is_stale(catalog, g->price_date);
        n_stale += stale;
        if (g->price_usd > 0.0)
            set_cell(&t, r, 9, "%.0f%s", g->price_usd, stale ? "*" : "");
        else
            set_cell(&t, r, 9, "-");
        set_cell(&t, r, 10, "%s", g->price_date[0] ? g->price_date : "-");
        for (int tier = 0; tier < GPUPLAN_TIER_COUNT; tier++) {
            /* The rate a cost at the tier takes (the median listed there; no fallback here). */
            struct gpuplan_rate_choice choice;
            gpuplan_gpu_cloud_rate(g, (enum gpuplan_cloud_tier)tier, &choice);
            if (!choice.rate || choice.fallback)
                set_cell(&t, r, 11 + (size_t)tier, "-");
            else if (format == GPUPLAN_FORMAT_TEXT)
                set_cell(&t, r, 11 + (size_t)tier, "%.2f", choice.rate->usd_per_gpu_hour);
            else
                set_cell(&t, r, 11 + (size_t)tier, "%.2f %s (%s)", choice.rate->usd_per_gpu_hour,
                         choice.rate->provider, choice.rate->date);
        }
        set_source(&t, r, 15, format, g->source);
    }
    emit_table(&t, format, "gpuplan-gpus", out);
    free(t.cells);
    if (format == GPUPLAN_FORMAT_TEXT) {
        gpuplan_buf_printf(
            out, GPUPLAN_TR("\nusd: purchase per GPU; rates: USD per GPU-hour at each tier, the "
                            "median listed there, as a cost takes it (--format md names "
                            "the providers)\n"));
        if (n_stale)
            gpuplan_buf_printf(out,
                               GPUPLAN_TR("* price older than %d months before the catalog's "
                                          "date (%s)\n"),
                               GPUPLAN_PRICE_STALE_MONTHS, gpuplan_catalog_date(catalog));
    }
    return gpuplan_buf_status(out, err);
}

/* "1,2,4": the GPU counts a platform is sold with. */
static void set_counts(struct table *t, size_t row, size_t col, const struct gpuplan_platform *p)
{
    char text[64] = "";
    size_t used = 0;
    for (size_t i = 0; i < p->n_gpu_counts && i < 8; i++) {
        const int w =
            snprintf(text + used, sizeof text - used, "%s%u", i ? "," : "", p->gpu_counts[i]);
        if (w > 0 && (size_t)w < sizeof text - used)
            used += (size_t)w;
    }
    set_cell(t, row, col, "%s", text);
}

static json_t *platform_json(const struct gpuplan_catalog *catalog,
                             const struct gpuplan_platform *p)
{
    json_t *counts = json_array();
    for (size_t i = 0; counts && i < p->n_gpu_counts && i < 8; i++)
        json_array_append_new(counts, json_integer(p->gpu_counts[i]));
    json_t *o = json_pack(
        "{s:s, s:s, s:s, s:I, s:o, s:f, s:o, s:f, s:s, s:I, s:I, s:f, s:I, s:f, s:f, s:I}", "id",
        p->id, "name", p->name, "form_factor", p->form_factor, "max_gpus", (json_int_t)p->max_gpus,
        "gpu_counts", counts, "base_price_usd", p->base_price_usd, "price_date",
        string_or_null(p->price_date), "base_power_w", p->base_power_w, "cpu", p->cpu,
        "cpu_sockets", (json_int_t)p->cpu_sockets, "cpu_cores_max", (json_int_t)p->cpu_cores_max,
        "ram_base_gb", gpuplan_gb_from_bytes(p->ram_base_bytes), "ram_slots",
        (json_int_t)p->ram_slots, "ram_max_gb", gpuplan_gb_from_bytes(p->ram_max_bytes),
        "nvme_base_tb", (double)p->nvme_base_bytes / (double)GPUPLAN_BYTES_PER_TB, "nvme_bays",
        (json_int_t)p->nvme_bays);
    if (!o)
        return NULL;
    json_object_set_new(o, "network", json_string(p->network));
    json_object_set_new(o, "network_gbit_per_s",
                        json_real(p->network_gb_per_s * GPUPLAN_BITS_PER_BYTE));
    json_object_set_new(o, "scaleout_nics", json_integer(p->scaleout_nics));
    json_object_set_new(o, "nics_included", json_boolean(p->nics_included));
    json_object_set_new(o, "rack_units", json_integer(p->rack_units));
    json_object_set_new(o, "price_stale",
                        json_boolean(gpuplan_catalog_price_is_stale(catalog, p->price_date)));
    json_object_set_new(o, "source", json_string(p->source));
    json_object_set_new(o, "retrieved", json_string(p->retrieved));
    json_object_set_new(o, "notes", string_or_null(p->notes));
    return o;
}

static json_t *part_json(const struct gpuplan_catalog *catalog, const struct gpuplan_part *p)
{
    static const char *const kinds[GPUPLAN_PART_KIND_COUNT] = { "ram", "nvme", "nic",
                                                                "switch-port" };
    return json_pack("{s:s, s:s, s:s, s:f, s:s, s:o, s:s, s:b, s:s, s:s, s:o}", "id", p->id, "kind",
                     kinds[p->kind], "name", p->name, "usd_per_unit", p->usd_per_unit, "unit",
                     p->unit, "gbit_per_s", real_or_null(p->gbit_per_s > 0, p->gbit_per_s),
                     "price_date", p->price_date, "price_stale",
                     gpuplan_catalog_price_is_stale(catalog, p->price_date), "source", p->source,
                     "retrieved", p->retrieved, "notes", string_or_null(p->notes));
}

enum gpuplan_status gpuplan_render_platforms(const struct gpuplan_catalog *catalog,
                                             enum gpuplan_format format,
                                             struct gpuplan_buf *out,
                                             struct gpuplan_error *err)
{
    if (gpuplan_format_check(format, GPUPLAN_RENDER_PLATFORMS_FORMATS, err) != GPUPLAN_OK)
        return GPUPLAN_ERR_USAGE;
    const size_t n = gpuplan_catalog_n_platforms(catalog);
    const size_t n_parts = gpuplan_catalog_n_parts(catalog);
    if (format == GPUPLAN_FORMAT_JSON) {
        json_t *list = json_array();
        json_t *parts = json_array();
        for (size_t i = 0; list && i < n; i++)
            json_array_append_new(list,
                                  platform_json(catalog, gpuplan_catalog_platform_at(catalog, i)));
        for (size_t i = 0; parts && i < n_parts; i++)
            json_array_append_new(parts, part_json(catalog, gpuplan_catalog_part_at(catalog, i)));
        json_t *root = list && parts ? json_pack("{s:i, s:s, s:o, s:o}", "schema_version", 1,
                                                 "catalog_date", gpuplan_catalog_date(catalog),
                                                 "platforms", list, "parts", parts)
                                     : NULL;
        if (!root) {
            json_decref(list);
            json_decref(parts);
        }
        return emit_json(root, out, err);
    }
    static const char *const header[] = { "id",      "name",    "gpu_counts", "cpu",
                                          "ram_gb",  "nvme_tb", "network",    "nics",
                                          "power_w", "rack_u",  "usd",        "price_date",
                                          "source" };
    const size_t n_cols = sizeof header / sizeof header[0];
    struct table t;
    if (!table_init(&t, n_cols, n + 1))
        return gpuplan_error_set(err, GPUPLAN_ERR_NOMEM, NULL, "out of memory rendering platforms");
    for (size_t c = 0; c < n_cols; c++)
        set_cell(&t, 0, c, "%s", header[c]);
    size_t n_stale = 0;
    for (size_t i = 0; i < n; i++) {
        const struct gpuplan_platform *p = gpuplan_catalog_platform_at(catalog, i);
        const size_t r = i + 1;
        const bool stale = gpuplan_catalog_price_is_stale(catalog, p->price_date);
        n_stale += stale;
        set_cell(&t, r, 0, "%s", p->id);
        set_cell(&t, r, 1, "%s", p->name);
        set_counts(&t, r, 2, p);
        set_cell(&t, r, 3, "%s", p->cpu);
        set_number(&t, r, 4, true, gpuplan_gb_from_bytes(p->ram_base_bytes));
        set_number(&t, r, 5, true, (double)p->nvme_base_bytes / (double)GPUPLAN_BYTES_PER_TB);
        set_cell(&t, r, 6, "%s", p->network);
        set_cell(&t, r, 7, "%u%s", p->scaleout_nics, p->nics_included ? "" : "+");
        set_number(&t, r, 8, true, p->base_power_w);
        set_cell(&t, r, 9, "%u", p->rack_units);
        set_cell(&t, r, 10, "%.0f%s", p->base_price_usd, stale ? "*" : "");
        set_cell(&t, r, 11, "%s", p->price_date[0] ? p->price_date : "-");
        set_source(&t, r, 12, format, p->source);
    }
    emit_table(&t, format, "gpuplan-platforms", out);
    free(t.cells);
    if (format == GPUPLAN_FORMAT_TEXT) {
        gpuplan_buf_printf(out, GPUPLAN_TR("\nusd: the server without GPUs (chassis, CPUs, base "
                                           "RAM and NVMe); nics: scale-out ports, '+' when the "
                                           "price lacks the NICs\n"));
        if (n_stale)
            gpuplan_buf_printf(out,
                               GPUPLAN_TR("* price older than %d months before the catalog's "
                                          "date (%s)\n"),
                               GPUPLAN_PRICE_STALE_MONTHS, gpuplan_catalog_date(catalog));
        gpuplan_buf_printf(out, GPUPLAN_TR("\nparts (capex beyond the platform's base):\n"));
        for (size_t i = 0; i < n_parts; i++) {
            const struct gpuplan_part *p = gpuplan_catalog_part_at(catalog, i);
            gpuplan_buf_printf(out, "  %-20s %10.2f USD/%-5s %s  %s\n", p->id, p->usd_per_unit,
                               p->unit, p->price_date, p->name);
        }
    }
    return gpuplan_buf_status(out, err);
}

/* "70.55B", "405.9B", "774M": published parameter counts for a table. */
static void set_params(struct table *t, size_t row, size_t col, uint64_t n_params)
{
    if (n_params == 0)
        set_cell(t, row, col, "-");
    else if (n_params >= 1000000000ULL)
        set_cell(t, row, col, "%.2fB", (double)n_params / PARAMS_PER_BILLION);
    else
        set_cell(t, row, col, "%.0fM", (double)n_params / PARAMS_PER_MILLION);
}

enum gpuplan_status gpuplan_render_models(const struct gpuplan_catalog *catalog,
                                          enum gpuplan_format format,
                                          struct gpuplan_buf *out,
                                          struct gpuplan_error *err)
{
    if (gpuplan_format_check(format, GPUPLAN_RENDER_MODELS_FORMATS, err) != GPUPLAN_OK)
        return GPUPLAN_ERR_USAGE;
    if (format == GPUPLAN_FORMAT_JSON)
        return render_json_list(catalog, false, out, err);
    static const char *const header[] = { "id",      "name",  "family", "params_published",
                                          "hf_repo", "source" };
    const size_t n_cols = sizeof header / sizeof header[0];
    const size_t n = gpuplan_catalog_n_models(catalog);
    struct table t;
    if (!table_init(&t, n_cols, n + 1))
        return gpuplan_error_set(err, GPUPLAN_ERR_NOMEM, NULL, "out of memory rendering models");
    for (size_t c = 0; c < n_cols; c++)
        set_cell(&t, 0, c, "%s", header[c]);
    for (size_t i = 0; i < n; i++) {
        const struct gpuplan_catalog_model *m = gpuplan_catalog_model_at(catalog, i);
        const size_t r = i + 1;
        set_cell(&t, r, 0, "%s", m->id);
        set_cell(&t, r, 1, "%s", m->name);
        set_cell(&t, r, 2, "%s", m->family);
        set_params(&t, r, 3, m->params_published);
        set_cell(&t, r, 4, "%s", m->hf_repo);
        set_source(&t, r, 5, format, m->source);
    }
    emit_table(&t, format, "gpuplan-models", out);
    free(t.cells);
    return gpuplan_buf_status(out, err);
}
