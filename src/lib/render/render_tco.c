/*
 * render_tco.c - `gpuplan tco` output (text with a character chart, JSON,
 * HTML with the cumulative cost chart of svg_chart.c).
 *
 * Numbers are rounded here only: money to cents, hours and months to 0.01,
 * rates to 4 significant figures in JSON (JSON_REAL_PRECISION). Not here:
 * any arithmetic on the results (cost.c, throughput.c).
 */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/cost.h"
#include "gpuplan/render.h"
#include "gpuplan/units.h"
#include "render/render_internal.h"
#include "render/svg_internal.h"
#include "util/json_internal.h"

#include "util/i18n_internal.h"

#define JSON_FLAGS (JSON_SORT_KEYS | JSON_INDENT(2) | JSON_REAL_PRECISION(10) | JSON_ENSURE_ASCII)

#define CHART_ROWS 12
#define CHART_COLS 60

/* The catalog's notes read "catalog ID FIELD (DATE)": the word is translated, the id and the
 * field name (the catalog's own key) are not. */
#define CATALOG_NOTE_PREFIX "catalog "
/* "assumption" / "допущение" (18 bytes in UTF-8): a longer head before ": " is the note's text. */
#define ORIGIN_WORD_MAX_BYTES 24

/* An assumption's note says "assumption: WHY" (JSON keeps it whole); the origin column says the
 * first word already, so the text shows WHY (translated, the translation's own prefix cut). */
static const char *without_origin(const char *note)
{
    const char *colon = strstr(note, ": ");
    return colon && (size_t)(colon - note) <= ORIGIN_WORD_MAX_BYTES ? colon + 2 : note;
}

/* One line per input: flag (what to pass to change it), value, unit, origin, then what the input
 * is and where its value comes from; text only, so translated (JSON keeps the English). */
static void text_inputs(const struct gpuplan_cost_inputs *in, struct gpuplan_buf *out)
{
    gpuplan_buf_puts(out, GPUPLAN_TR("inputs:\n"));
    for (int i = 0; i < GPUPLAN_COST_INPUT_COUNT; i++) {
        const struct gpuplan_cost_value *v = &in->v[i];
        const char *unit = GPUPLAN_TR(gpuplan_cost_input_unit((enum gpuplan_cost_input)i));
        const char *origin = GPUPLAN_TR(gpuplan_cost_origin_name(v->origin));
        gpuplan_buf_printf(out, "  %-16s %12.6g %-*s %-*s %s",
                           gpuplan_cost_input_flag((enum gpuplan_cost_input)i), v->value,
                           gpuplan_tr_width(unit, 24), unit, gpuplan_tr_width(origin, 10), origin,
                           GPUPLAN_TR(gpuplan_cost_options[i].help));
        if (v->origin == GPUPLAN_COST_FROM_USER) {
            gpuplan_buf_puts(out, "\n");
            continue;
        }
        const size_t n = strlen(CATALOG_NOTE_PREFIX);
        if (strncmp(v->note, CATALOG_NOTE_PREFIX, n) == 0)
            gpuplan_buf_printf(out, ": %s %s\n", GPUPLAN_TR("catalog"), v->note + n);
        else
            gpuplan_buf_printf(out, ": %s\n", without_origin(GPUPLAN_TR(v->note)));
    }
}

static void text_chart(const struct gpuplan_tco *tco, struct gpuplan_buf *out)
{
    if (tco->n_points < 2)
        return;
    const uint32_t last = tco->n_points - 1;
    double top = 0;
    for (uint32_t m = 0; m <= last; m++)
        top = fmax(top, fmax(tco->cumulative_own_usd[m], tco->cumulative_cloud_usd[m]));
    if (!(top > 0))
        return;
    char grid[CHART_ROWS][CHART_COLS + 1];
    memset(grid, ' ', sizeof grid);
    for (int r = 0; r < CHART_ROWS; r++)
        grid[r][CHART_COLS] = 0;
    for (int col = 0; col < CHART_COLS; col++) {
        const uint32_t m = (uint32_t)lround((double)col * last / (CHART_COLS - 1));
        const int own = (int)lround(tco->cumulative_own_usd[m] / top * (CHART_ROWS - 1));
        const int cloud = (int)lround(tco->cumulative_cloud_usd[m] / top * (CHART_ROWS - 1));
        grid[CHART_ROWS - 1 - own][col] = 'o';
        grid[CHART_ROWS - 1 - cloud][col] = own == cloud ? '*' : 'c';
    }
    char label[32];
    gpuplan_buf_puts(out, GPUPLAN_TR("\ncumulative cost (o own, c cloud, * both):\n"));
    for (int r = 0; r < CHART_ROWS; r++) {
        label[0] = 0;
        if (r == 0 || r == CHART_ROWS - 1)
            gpuplan_format_usd(label, sizeof label, top * (CHART_ROWS - 1 - r) / (CHART_ROWS - 1));
        gpuplan_buf_printf(out, "%12s |%s\n", label, grid[r]);
    }
    gpuplan_buf_printf(out, "%12s +", "");
    for (int col = 0; col < CHART_COLS; col++)
        gpuplan_buf_puts(out, "-");
    gpuplan_buf_printf(out, GPUPLAN_TR("\n%12s  0%*s%u months\n"), "", CHART_COLS - 8, "", last);
}

/* "$30,000" style money with cents below $100 (unit prices such as $20.20/GiB). */
static void unit_usd(char *dst, size_t size, double usd)
{
    if (usd < 100.0)
        snprintf(dst, size, "$%.2f", usd);
    else
        gpuplan_format_usd(dst, size, usd);
}

/* `text` left-aligned in `width` characters (UTF-8 code points, so Russian lines up). */
static void put_padded(struct gpuplan_buf *out, const char *text, size_t width)
{
    size_t chars = 0;
    for (const char *p = text; *p; p++)
        chars += ((unsigned char)*p & 0xC0u) != 0x80u;
    gpuplan_buf_puts(out, text);
    for (; chars < width; chars++)
        gpuplan_buf_puts(out, " ");
}

/* The capex lines as the text names them (JSON keeps gpuplan_capex_item_name). */
static const char *const capex_item_text[GPUPLAN_CAPEX_ITEM_COUNT] = {
    GPUPLAN_N_("GPUs"), GPUPLAN_N_("platform"), GPUPLAN_N_("RAM"), GPUPLAN_N_("NVMe"),
    GPUPLAN_N_("network")
};

static void text_capex(const struct gpuplan_cost_inputs *in,
                       const struct gpuplan_tco *tco,
                       struct gpuplan_buf *out)
{
    char a[32], b[32];
    gpuplan_format_usd(a, sizeof a, tco->capex_usd);
    gpuplan_buf_printf(out, GPUPLAN_TR("\ncapex                 %14s\n"), a);
    for (int i = 0; i < GPUPLAN_CAPEX_ITEM_COUNT; i++) {
        const struct gpuplan_capex_line *l = &tco->capex.line[i];
        unit_usd(a, sizeof a, l->unit_usd);
        gpuplan_format_usd(b, sizeof b, l->usd);
        gpuplan_buf_puts(out, "  ");
        put_padded(out, GPUPLAN_TR(capex_item_text[i]), 10);
        gpuplan_buf_printf(out, " %10.6g ", l->quantity);
        put_padded(out, GPUPLAN_TR(l->unit), 6);
        gpuplan_buf_printf(out, " x %12s = %14s%s\n", a, b,
                           l->priced ? "" : GPUPLAN_TR("  UNPRICED"));
    }
    if (in->ram_base_gib > 0 || in->nvme_base_tb > 0)
        gpuplan_buf_printf(
            out,
            GPUPLAN_TR("  (the platform includes %.0f GiB of RAM and %.4g TB of NVMe "
                       "per server)\n"),
            in->ram_base_gib, in->nvme_base_tb);
    for (int i = 0; i < GPUPLAN_CAPEX_ITEM_COUNT; i++)
        if (!tco->capex.line[i].priced)
            gpuplan_buf_printf(out,
                               GPUPLAN_TR("warning: %s is unpriced (no catalog price): capex "
                                          "leaves it out; give its price\n"),
                               GPUPLAN_TR(capex_item_text[i]));
}

/* The rate's tier and provider, the fallback note, and every stale catalog price. */
static void text_rate_and_warnings(const struct gpuplan_cost_inputs *in, struct gpuplan_buf *out)
{
    const struct gpuplan_cost_value *rate = &in->v[GPUPLAN_COST_CLOUD_PRICE];
    if (rate->origin == GPUPLAN_COST_FROM_CATALOG)
        gpuplan_buf_printf(out, GPUPLAN_TR("cloud rate: $%.2f per GPU-hour, %s tier, %s (%s)\n"),
                           rate->value, GPUPLAN_TR(gpuplan_cloud_tier_name(in->tier)),
                           in->rate_provider, in->rate_date);
    else if (rate->origin == GPUPLAN_COST_FROM_USER)
        gpuplan_buf_printf(out, GPUPLAN_TR("cloud rate: $%.2f per GPU-hour (given)\n"),
                           rate->value);
    if (in->rate_fallback && rate->origin == GPUPLAN_COST_FROM_CATALOG)
        gpuplan_buf_printf(out,
                           GPUPLAN_TR("note: %s has no %s rate in the catalog; the %s rate is "
                                      "used instead\n"),
                           in->gpu_id, GPUPLAN_TR(gpuplan_cloud_tier_name(in->tier_asked)),
                           GPUPLAN_TR(gpuplan_cloud_tier_name(in->tier)));
    for (int i = 0; i < GPUPLAN_COST_INPUT_COUNT; i++)
        if (in->stale[i] && in->v[i].origin == GPUPLAN_COST_FROM_CATALOG)
            gpuplan_buf_printf(out,
                               GPUPLAN_TR("warning: --%s comes from a price older than %d "
                                          "months before the catalog's date (%s): %s\n"),
                               gpuplan_cost_input_flag((enum gpuplan_cost_input)i),
                               GPUPLAN_PRICE_STALE_MONTHS, in->catalog_date, in->v[i].note);
}

static void render_text(const struct gpuplan_cost_inputs *in,
                        const struct gpuplan_tco *tco,
                        struct gpuplan_buf *out)
{
    char a[32], b[32];
    gpuplan_buf_printf(
        out, GPUPLAN_TR("own vs rent: %u x %s in %u server%s, %.4g h/day, %.4g years\n\n"),
        in->n_gpus, in->gpu_id, in->n_servers, in->n_servers == 1 ? "" : "s",
        in->v[GPUPLAN_COST_HOURS_PER_DAY].value, in->v[GPUPLAN_COST_YEARS].value);
    text_rate_and_warnings(in, out);
    text_inputs(in, out);
    text_capex(in, tco, out);
    gpuplan_buf_printf(out, GPUPLAN_TR("power in use / idle   %11.2f kW / %.2f kW (incl. PUE)\n"),
                       tco->power_in_use_kw, tco->power_idle_kw);
    gpuplan_buf_puts(out, GPUPLAN_TR("\nper month             own           cloud\n"));
    gpuplan_format_usd(a, sizeof a, tco->monthly_own_usd);
    gpuplan_format_usd(b, sizeof b, tco->monthly_cloud_usd);
    gpuplan_buf_printf(out, GPUPLAN_TR("  total          %12s    %12s\n"), a, b);
    gpuplan_format_usd(a, sizeof a, tco->monthly_depreciation_usd);
    gpuplan_buf_printf(out, GPUPLAN_TR("  depreciation   %12s\n"), a);
    gpuplan_format_usd(a, sizeof a, tco->monthly_energy_usd);
    gpuplan_buf_printf(out, GPUPLAN_TR("  energy         %12s\n"), a);
    gpuplan_format_usd(a, sizeof a, tco->monthly_maintenance_usd);
    gpuplan_buf_printf(out, GPUPLAN_TR("  maintenance    %12s\n"), a);
    gpuplan_format_usd(a, sizeof a, tco->monthly_colocation_usd);
    gpuplan_buf_printf(out, GPUPLAN_TR("  colocation     %12s\n"), a);
    gpuplan_buf_printf(out, GPUPLAN_TR("  per used GPU-hour  $%.2f own vs $%.2f cloud\n\n"),
                       tco->own_per_used_gpu_hour_usd, in->v[GPUPLAN_COST_CLOUD_PRICE].value);
    if (tco->has_break_even_months)
        gpuplan_buf_printf(out, GPUPLAN_TR("break-even            %.1f months at %.4g h/day\n"),
                           tco->break_even_months, in->v[GPUPLAN_COST_HOURS_PER_DAY].value);
    else
        gpuplan_buf_printf(
            out, GPUPLAN_TR("break-even            never within %.0f months at %.4g h/day\n"),
            tco->months, in->v[GPUPLAN_COST_HOURS_PER_DAY].value);
    if (tco->has_break_even_hours_per_day)
        gpuplan_buf_printf(out, GPUPLAN_TR("owning pays off above %.1f h/day over %.0f months\n"),
                           tco->break_even_hours_per_day, tco->months);
    else
        gpuplan_buf_printf(
            out, GPUPLAN_TR("owning does not pay off over %.0f months even at 24 h/day\n"),
            tco->months);
    text_chart(tco, out);
}

static json_t *json_money(double usd)
{
    return json_real(gpuplan_round_to(usd, 0.01));
}

json_t *gpuplan_capex_json(const struct gpuplan_capex *capex)
{
    json_t *lines = json_array();
    json_t *unpriced = json_array();
    for (int i = 0; lines && unpriced && i < GPUPLAN_CAPEX_ITEM_COUNT; i++) {
        const struct gpuplan_capex_line *l = &capex->line[i];
        const char *item = gpuplan_capex_item_name((enum gpuplan_capex_item)i);
        json_array_append_new(lines,
                              json_pack("{s:s, s:f, s:s, s:f, s:o, s:b}", "item", item, "quantity",
                                        gpuplan_round_to(l->quantity, 0.001), "unit", l->unit,
                                        "unit_usd", gpuplan_round_to(l->unit_usd, 0.01), "usd",
                                        json_money(l->usd), "priced", l->priced));
        if (!l->priced)
            json_array_append_new(unpriced, json_string(item));
    }
    json_t *o = lines && unpriced
                    ? json_pack("{s:o, s:o, s:o}", "total_usd", json_money(capex->total_usd),
                                "lines", lines, "unpriced", unpriced)
                    : NULL;
    if (!o) {
        json_decref(lines);
        json_decref(unpriced);
    }
    return o;
}

static json_t *rate_json(const struct gpuplan_cost_inputs *in)
{
    const struct gpuplan_cost_value *rate = &in->v[GPUPLAN_COST_CLOUD_PRICE];
    const bool catalog = rate->origin == GPUPLAN_COST_FROM_CATALOG;
    return json_pack("{s:f, s:s, s:o, s:o, s:o, s:b}", "usd_per_gpu_hour", rate->value,
                     "tier_asked", gpuplan_cloud_tier_name(in->tier_asked), "tier",
                     catalog ? json_string(gpuplan_cloud_tier_name(in->tier)) : json_null(),
                     "provider", catalog ? json_string(in->rate_provider) : json_null(), "date",
                     catalog ? json_string(in->rate_date) : json_null(), "fallback",
                     catalog && in->rate_fallback);
}

static json_t *tco_json(const struct gpuplan_cost_inputs *in, const struct gpuplan_tco *tco)
{
    json_t *root = json_object();
    json_t *inputs = json_object();
    json_t *monthly = json_object();
    json_t *cum = json_object();
    json_t *own = json_array();
    json_t *cloud = json_array();
    if (!root || !inputs || !monthly || !cum || !own || !cloud) {
        json_decref(root);
        json_decref(inputs);
        json_decref(monthly);
        json_decref(cum);
        json_decref(own);
        json_decref(cloud);
        return NULL;
    }
    int bad = 0;
    bad |= json_object_set_new(root, "schema_version", json_integer(1));
    bad |= json_object_set_new(root, "gpu", json_string(in->gpu_id));
    bad |= json_object_set_new(root, "platform",
                               in->platform_id[0] ? json_string(in->platform_id) : json_null());
    bad |= json_object_set_new(root, "n_gpus", json_integer(in->n_gpus));
    bad |= json_object_set_new(root, "n_servers", json_integer(in->n_servers));
    for (int i = 0; i < GPUPLAN_COST_INPUT_COUNT; i++) {
        const struct gpuplan_cost_value *v = &in->v[i];
        json_t *item = json_pack("{s:f, s:s, s:s, s:s, s:b}", "value", v->value, "unit",
                                 gpuplan_cost_input_unit((enum gpuplan_cost_input)i), "origin",
                                 gpuplan_cost_origin_name(v->origin), "note", v->note, "stale",
                                 in->stale[i] && v->origin == GPUPLAN_COST_FROM_CATALOG);
        bad |=
            json_object_set_new(inputs, gpuplan_cost_input_key((enum gpuplan_cost_input)i), item);
    }
    bad |= json_object_set_new(root, "inputs", inputs);
    bad |= json_object_set_new(root, "capex_usd", json_money(tco->capex_usd));
    bad |= json_object_set_new(root, "capex", gpuplan_capex_json(&tco->capex));
    bad |= json_object_set_new(root, "cloud_rate", rate_json(in));
    bad |= json_object_set_new(root, "catalog_date", json_string(in->catalog_date));
    bad |= json_object_set_new(root, "power_in_use_kw",
                               json_real(gpuplan_round_to(tco->power_in_use_kw, 0.001)));
    bad |= json_object_set_new(root, "power_idle_kw",
                               json_real(gpuplan_round_to(tco->power_idle_kw, 0.001)));
    bad |= json_object_set_new(root, "months", json_real(tco->months));
    bad |= json_object_set_new(monthly, "own", json_money(tco->monthly_own_usd));
    bad |= json_object_set_new(monthly, "cloud", json_money(tco->monthly_cloud_usd));
    bad |= json_object_set_new(monthly, "depreciation", json_money(tco->monthly_depreciation_usd));
    bad |= json_object_set_new(monthly, "energy", json_money(tco->monthly_energy_usd));
    bad |= json_object_set_new(monthly, "maintenance", json_money(tco->monthly_maintenance_usd));
    bad |= json_object_set_new(monthly, "colocation", json_money(tco->monthly_colocation_usd));
    bad |= json_object_set_new(root, "monthly_usd", monthly);
    bad |= json_object_set_new(root, "own_per_used_gpu_hour_usd",
                               json_money(tco->own_per_used_gpu_hour_usd));
    bad |= json_object_set_new(root, "break_even_months",
                               tco->has_break_even_months
                                   ? json_real(gpuplan_round_to(tco->break_even_months, 0.01))
                                   : json_null());
    bad |=
        json_object_set_new(root, "break_even_hours_per_day",
                            tco->has_break_even_hours_per_day
                                ? json_real(gpuplan_round_to(tco->break_even_hours_per_day, 0.01))
                                : json_null());
    for (uint32_t m = 0; m < tco->n_points && m <= GPUPLAN_TCO_MAX_MONTHS; m++) {
        bad |= json_array_append_new(own, json_money(tco->cumulative_own_usd[m]));
        bad |= json_array_append_new(cloud, json_money(tco->cumulative_cloud_usd[m]));
    }
    bad |= json_object_set_new(cum, "own", own);
    bad |= json_object_set_new(cum, "cloud", cloud);
    bad |= json_object_set_new(root, "cumulative_usd", cum);
    if (bad) {
        json_decref(root);
        return NULL;
    }
    return root;
}

/* The tables, then the chart (svg_internal.h: the same picture the proposal shows). */
static enum gpuplan_status render_html(const struct gpuplan_cost_inputs *in,
                                       const struct gpuplan_tco *tco,
                                       struct gpuplan_buf *out,
                                       struct gpuplan_error *err)
{
    char a[32], b[32];
    gpuplan_buf_puts(out, "<section class=\"gpuplan-tco\">\n<h2>Own vs rent: ");
    gpuplan_buf_printf(out, "%u &times; ", in->n_gpus);
    gpuplan_buf_puts_html(out, in->gpu_id);
    gpuplan_buf_puts(out, "</h2>\n<table>\n<tr><th>input</th><th>value</th><th>unit</th>"
                          "<th>origin</th><th>note</th></tr>\n");
    for (int i = 0; i < GPUPLAN_COST_INPUT_COUNT; i++) {
        const struct gpuplan_cost_value *v = &in->v[i];
        gpuplan_buf_printf(out, "<tr><td>%s</td><td>%.6g</td><td>",
                           gpuplan_cost_input_flag((enum gpuplan_cost_input)i), v->value);
        gpuplan_buf_puts_html(out, gpuplan_cost_input_unit((enum gpuplan_cost_input)i));
        gpuplan_buf_printf(out, "</td><td>%s</td><td>", gpuplan_cost_origin_name(v->origin));
        gpuplan_buf_puts_html(out, v->note);
        gpuplan_buf_puts(out, "</td></tr>\n");
    }
    gpuplan_buf_puts(out, "</table>\n<table>\n");
    gpuplan_format_usd(a, sizeof a, tco->capex_usd);
    gpuplan_buf_printf(out, "<tr><th>capex</th><td>%s</td></tr>\n", a);
    for (int i = 0; i < GPUPLAN_CAPEX_ITEM_COUNT; i++) {
        const struct gpuplan_capex_line *l = &tco->capex.line[i];
        gpuplan_format_usd(a, sizeof a, l->usd);
        gpuplan_buf_printf(out, "<tr><th>capex: %s</th><td>%s%s</td></tr>\n",
                           gpuplan_capex_item_name((enum gpuplan_capex_item)i), a,
                           l->priced ? "" : " (unpriced)");
    }
    gpuplan_format_usd(a, sizeof a, tco->monthly_own_usd);
    gpuplan_format_usd(b, sizeof b, tco->monthly_cloud_usd);
    gpuplan_buf_printf(out, "<tr><th>per month, own</th><td>%s</td></tr>\n", a);
    gpuplan_buf_printf(out, "<tr><th>per month, cloud</th><td>%s</td></tr>\n", b);
    if (tco->has_break_even_months)
        gpuplan_buf_printf(out, "<tr><th>break-even</th><td>%.1f months</td></tr>\n",
                           tco->break_even_months);
    else
        gpuplan_buf_printf(out, "<tr><th>break-even</th><td>never within %.0f months</td></tr>\n",
                           tco->months);
    if (tco->has_break_even_hours_per_day)
        gpuplan_buf_printf(out, "<tr><th>break-even use</th><td>%.1f h/day</td></tr>\n",
                           tco->break_even_hours_per_day);
    else
        gpuplan_buf_puts(out, "<tr><th>break-even use</th><td>not even at 24 h/day</td></tr>\n");
    gpuplan_buf_puts(out, "</table>\n");

    double top = 0;
    for (uint32_t m = 0; m < tco->n_points; m++)
        top = fmax(top, fmax(tco->cumulative_own_usd[m], tco->cumulative_cloud_usd[m]));
    enum gpuplan_status st = GPUPLAN_OK;
    if (tco->n_points >= 2 && top > 0) {
        const uint32_t n =
            tco->n_points < GPUPLAN_TCO_MAX_MONTHS + 1 ? tco->n_points : GPUPLAN_TCO_MAX_MONTHS + 1;
        const struct gpuplan_svg_line lines[] = {
            { "own", tco->cumulative_own_usd, n },
            { "cloud", tco->cumulative_cloud_usd, n },
        };
        const struct gpuplan_svg_cost_chart chart = {
            .common = { .id = "tco-chart",
                        .title = "Cumulative cost: own vs cloud",
                        .desc = "Cumulative cost of owning the servers and of renting the same "
                                "GPUs in the cloud, month by month." },
            .x = { .unit = "months", .from_zero = true, .is_tight = true },
            .y = { .label = "cumulative cost", .unit = "USD", .from_zero = true },
            .x_start = 0,
            .x_step = 1,
            .lines = lines,
            .n_lines = 2,
            .has_break_even = tco->has_break_even_months,
            .break_even_x = tco->break_even_months,
            .break_even_label = "break-even",
        };
        st = gpuplan_svg_cost(&chart, out, err);
    }
    gpuplan_buf_puts(out, "</section>\n");
    return st;
}

enum gpuplan_status gpuplan_render_tco(const struct gpuplan_cost_inputs *in,
                                       const struct gpuplan_tco *tco,
                                       enum gpuplan_format format,
                                       struct gpuplan_buf *out,
                                       struct gpuplan_error *err)
{
    if (gpuplan_format_check(format, GPUPLAN_RENDER_TCO_FORMATS, err) != GPUPLAN_OK)
        return GPUPLAN_ERR_USAGE;
    if (format == GPUPLAN_FORMAT_JSON) {
        return gpuplan_json_write(tco_json(in, tco), JSON_FLAGS, out, err);
    } else if (format == GPUPLAN_FORMAT_HTML) {
        const enum gpuplan_status st = render_html(in, tco, out, err);
        if (st != GPUPLAN_OK)
            return st;
    } else {
        render_text(in, tco, out);
    }
    return gpuplan_buf_status(out, err);
}
