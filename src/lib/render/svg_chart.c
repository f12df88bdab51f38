/*
 * svg_chart.c - the four charts of svg_internal.h: memory per GPU (stacked
 * bars with the usable line and the peak's range), time vs cost (a scatter
 * with the Pareto front), cumulative own vs cloud cost (lines with the
 * break-even), latency vs throughput (curves with target lines).
 *
 * Each checks all of its input before it writes a byte, then draws with the
 * kit of svg.c. What a chart shows, and why so: docs/charts.md.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/svg_draw_internal.h"

#define FONT_PX    ((double)GPUPLAN_SVG_FONT_PX)
#define ASCENT_PX  (0.929 * FONT_PX) /* DejaVu Sans, as in svg.c */
#define DESCENT_PX (0.236 * FONT_PX)
#define PAD_PX     8.0
#define TIP_BYTES  (3 * GPUPLAN_SVG_MAX_LABEL_BYTES + 64)

static double chart_width(const struct gpuplan_svg_common *c)
{
    return c->width_px > 0 ? c->width_px : GPUPLAN_SVG_DEFAULT_WIDTH_PX;
}

static double chart_height(const struct gpuplan_svg_common *c)
{
    return c->height_px > 0 ? c->height_px : GPUPLAN_SVG_DEFAULT_HEIGHT_PX;
}

/* `n` entries of the input field `field` ("bars", "points"): least..most. */
static enum gpuplan_status count_check(size_t n,
                                       size_t least,
                                       size_t most,
                                       const char *what,
                                       const char *field,
                                       struct gpuplan_error *err)
{
    if (n < least || n > most)
        return gpuplan_error_set(err, n > most ? GPUPLAN_ERR_TOO_LARGE : GPUPLAN_ERR_INVALID_INPUT,
                                 what, "'%s' has %zu entries; must be %zu to %zu", field, n, least,
                                 most);
    return GPUPLAN_OK;
}

/* "label: 12.3 h, 4,560 USD" for a tooltip (the units are the caller's). */
static void point_tip(char *dst,
                      size_t size,
                      const char *label,
                      double x,
                      double y,
                      const struct gpuplan_svg_axis *xa,
                      const struct gpuplan_svg_axis *ya)
{
    char xs[48], ys[48];
    svg_format_value(xs, sizeof xs, x);
    svg_format_value(ys, sizeof ys, y);
    const bool has_label = label && label[0];
    snprintf(dst, size, "%.*s%s%s%s%s, %s%s%s", GPUPLAN_SVG_MAX_LABEL_BYTES, has_label ? label : "",
             has_label ? ": " : "", xs, xa->unit ? " " : "", xa->unit ? xa->unit : "", ys,
             ya->unit ? " " : "", ya->unit ? ya->unit : "");
}

/* Labels may go anywhere inside the chart right of the y axis and above the x axis. */
static void set_label_limits(struct svg_canvas *cv, const struct svg_plot *plot)
{
    cv->lim = (struct svg_box){ plot->left + 1, 1, cv->w - 1, plot->bottom - 1 };
}

/* The polyline of n points (x, y mapped by plot). */
static void put_polyline(struct svg_canvas *cv,
                         const struct svg_plot *plot,
                         const double *x,
                         double x_start,
                         double x_step,
                         const double *y,
                         size_t n,
                         const char *colour,
                         const char *dash)
{
    struct gpuplan_buf *out = cv->out;
    gpuplan_buf_puts(out, "<polyline fill=\"none\" stroke-linejoin=\"round\" points=\"");
    double px = 0, py = 0;
    for (size_t i = 0; i < n; i++) {
        const double xv = x ? x[i] : x_start + x_step * (double)i;
        const double sx = svg_scale_map(&plot->x, xv), sy = svg_scale_map(&plot->y, y[i]);
        if (i) {
            gpuplan_buf_puts(out, " ");
            svg_segment_use(cv, px, py, sx, sy);
        }
        svg_num(out, sx);
        gpuplan_buf_puts(out, ",");
        svg_num(out, sy);
        px = sx;
        py = sy;
    }
    gpuplan_buf_printf(out, "\" stroke=\"%s\" stroke-width=\"2.5\"", colour);
    if (dash)
        gpuplan_buf_printf(out, " stroke-dasharray=\"%s\"", dash);
    gpuplan_buf_puts(out, "/>\n");
}

/*
 * Draw `text` at the first of the candidate positions (x, baseline, anchor)
 * inside the limits that keeps clear of every text and mark and, if one
 * does, of every line; false when none is free.
 */
struct line_spot {
    double x, y;
    enum svg_anchor anchor;
};
static bool
place_at_spots(struct svg_canvas *cv, const char *text, const struct line_spot *spots, size_t n)
{
    char fitted[GPUPLAN_SVG_MAX_LABEL_BYTES + 8];
    svg_fit_text(fitted, sizeof fitted, text, cv->w / 2, FONT_PX);
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < n; i++) {
            const struct svg_box b =
                svg_text_box(fitted, spots[i].x, spots[i].y, spots[i].anchor, FONT_PX);
            if (b.x0 < cv->lim.x0 || b.x1 > cv->lim.x1 || b.y0 < cv->lim.y0 || b.y1 > cv->lim.y1 ||
                !svg_box_free(cv, &b, 2, false) || (pass == 0 && svg_box_meets_segment(cv, &b)))
                continue;
            svg_box_use(cv, &b, SVG_BOX_TEXT);
            svg_put_text_at(cv, spots[i].x, spots[i].y, spots[i].anchor, "halo", fitted);
            return true;
        }
    }
    return false;
}

/* Place and draw labels[0..n), counting those with no room. */
static void put_labels(struct svg_canvas *cv, const struct svg_label *labels, size_t n)
{
    size_t dropped = 0, wanted = 0;
    for (size_t i = 0; i < n; i++) {
        wanted += labels[i].text[0] != 0;
        dropped += labels[i].text[0] != 0 && !labels[i].is_placed;
    }
    if (!wanted)
        return;
    gpuplan_buf_printf(cv->out, "<g class=\"labels\" data-dropped=\"%zu\">\n", dropped);
    for (size_t i = 0; i < n; i++)
        svg_put_label(cv, &labels[i]);
    gpuplan_buf_puts(cv->out, "</g>\n");
}

/* ---- memory per GPU ---- */

/*
 * Part colours: Okabe-Ito (svg.c) in the order a reader compares them
 * (weights, the largest, in the darkest); CUDA context grey as the fixed
 * cost. Value text on a segment is white on blue (contrast 5.2:1), black on
 * the others (4.1 to 15.9:1 against white's 1.3 to 3.9), WCAG 2.1 1.4.3.
 */
static const char *const part_colour[GPUPLAN_SVG_MEM_PART_COUNT] = {
    "#0072B2", "#56B4E9", "#E69F00", "#009E73", "#CC79A7", "#D55E00", "#F0E442", "#999999",
};
static const bool part_dark[GPUPLAN_SVG_MEM_PART_COUNT] = { true };

#define BAR_PX     22.0
#define ROW_GAP_PX 12.0

static enum gpuplan_status mem_check(const struct gpuplan_svg_mem_chart *c,
                                     struct gpuplan_error *err)
{
    const char *what = "memory chart";
    enum gpuplan_status st = svg_check_common(&c->common, what, err);
    if (st == GPUPLAN_OK)
        st = count_check(c->bars ? c->n_bars : 0, 1, GPUPLAN_SVG_MAX_BARS, what, "bars", err);
    for (size_t b = 0; st == GPUPLAN_OK && b < c->n_bars; b++) {
        const struct gpuplan_svg_mem_bar *bar = &c->bars[b];
        for (size_t p = 0; st == GPUPLAN_OK && p < GPUPLAN_SVG_MEM_PART_COUNT; p++) {
            st = svg_check_value(bar->part_gib[p], NULL, what, b, p, err);
            if (st == GPUPLAN_OK && bar->part_gib[p] < 0)
                st = gpuplan_error_set(err, GPUPLAN_ERR_INVALID_INPUT, what,
                                       "part %zu of bar %zu is %g GiB; must be >= 0", p, b,
                                       bar->part_gib[p]);
        }
        if (st == GPUPLAN_OK && !(isfinite(bar->usable_gib) && bar->usable_gib > 0))
            st = gpuplan_error_set(err, GPUPLAN_ERR_INVALID_INPUT, what,
                                   "usable memory of bar %zu is %g GiB; must be > 0", b,
                                   bar->usable_gib);
        if (st == GPUPLAN_OK && bar->has_total &&
            !(isfinite(bar->total_gib) && bar->total_gib >= 0))
            st = gpuplan_error_set(err, GPUPLAN_ERR_INVALID_INPUT, what,
                                   "total of bar %zu is %g GiB; must be >= 0", b, bar->total_gib);
        if (st == GPUPLAN_OK && bar->has_range &&
            !(isfinite(bar->low_gib) && isfinite(bar->high_gib) && bar->low_gib >= 0 &&
              bar->high_gib >= bar->low_gib))
            st = gpuplan_error_set(err, GPUPLAN_ERR_INVALID_INPUT, what,
                                   "range of bar %zu is %g to %g GiB; must be 0 <= low <= high", b,
                                   bar->low_gib, bar->high_gib);
    }
    return st;
}

/* What the bar's label shows: the caller's total, else the parts' sum. */
static double parts_sum(const struct gpuplan_svg_mem_bar *bar)
{
    double total = 0;
    for (size_t p = 0; p < GPUPLAN_SVG_MEM_PART_COUNT; p++)
        total += bar->part_gib[p];
    return total;
}

static double bar_total(const struct gpuplan_svg_mem_bar *bar)
{
    return bar->has_total ? bar->total_gib : parts_sum(bar);
}

static void mem_legend(struct svg_canvas *cv, const struct gpuplan_svg_mem_chart *c)
{
    struct svg_legend_entry e[GPUPLAN_SVG_MEM_PART_COUNT + 3];
    size_t n = 0;
    bool any_range = false, any_total = false;
    for (size_t p = 0; p < GPUPLAN_SVG_MEM_PART_COUNT; p++) {
        bool used = false;
        for (size_t b = 0; b < c->n_bars; b++)
            used |= c->bars[b].part_gib[p] > 0;
        if (used)
            e[n++] = (struct svg_legend_entry){ .kind = SVG_LEGEND_SWATCH,
                                                .label = c->part_labels[p],
                                                .colour = part_colour[p] };
    }
    for (size_t b = 0; b < c->n_bars; b++) {
        any_range |= c->bars[b].has_range;
        any_total |= c->bars[b].has_total;
    }
    e[n++] = (struct svg_legend_entry){
        .kind = SVG_LEGEND_LINE, .label = c->usable_label, .colour = "#000", .width = 2.5
    };
    if (any_range)
        e[n++] = (struct svg_legend_entry){
            .kind = SVG_LEGEND_LINE, .label = c->range_label, .colour = "#000", .width = 1.5
        };
    if (any_total)
        e[n++] = (struct svg_legend_entry){ .kind = SVG_LEGEND_MARKER,
                                            .label = c->total_label,
                                            .colour = "#000",
                                            .shape = SVG_DIAMOND,
                                            .radius = 4 };
    svg_legend(cv, e, n);
}

/* One bar's segments, each with its tooltip and, when it fits, its value. */
static void mem_segments(struct svg_canvas *cv,
                         const struct gpuplan_svg_mem_chart *c,
                         const struct gpuplan_svg_mem_bar *bar,
                         const struct svg_scale *xs,
                         double y)
{
    struct gpuplan_buf *out = cv->out;
    double acc = 0;
    for (size_t p = 0; p < GPUPLAN_SVG_MEM_PART_COUNT; p++) {
        const double v = bar->part_gib[p];
        if (!(v > 0))
            continue;
        const double x0 = svg_scale_map(xs, acc), x1 = svg_scale_map(xs, acc + v);
        const double w = fmax(0.5, x1 - x0);
        char value[48], tip[TIP_BYTES];
        snprintf(value, sizeof value, "%.1f", v);
        snprintf(tip, sizeof tip, "%.*s: %s %s", GPUPLAN_SVG_MAX_LABEL_BYTES,
                 c->part_labels[p] ? c->part_labels[p] : "", value, c->unit ? c->unit : "");
        gpuplan_buf_printf(out, "<rect class=\"part\" data-part=\"%zu\" x=\"", p);
        svg_num(out, x0);
        gpuplan_buf_puts(out, "\" y=\"");
        svg_num(out, y);
        gpuplan_buf_puts(out, "\" width=\"");
        svg_num(out, w);
        gpuplan_buf_printf(out,
                           "\" height=\"%.0f\" fill=\"%s\" stroke=\"#fff\" stroke-width=\"1\">"
                           "<title>",
                           BAR_PX, part_colour[p]);
        gpuplan_svg_put_text(out, tip, sizeof tip);
        gpuplan_buf_puts(out, "</title></rect>\n");
        const double tw = gpuplan_svg_text_width_px(value, FONT_PX);
        if (tw + 6 <= w) {
            const double base = y + BAR_PX / 2 + (ASCENT_PX - DESCENT_PX) / 2;
            const struct svg_box box =
                svg_text_box(value, (x0 + x1) / 2, base, SVG_MIDDLE, FONT_PX);
            svg_box_use(cv, &box, SVG_BOX_TEXT);
            svg_put_text_at(cv, (x0 + x1) / 2, base, SVG_MIDDLE, part_dark[p] ? "on-dark" : NULL,
                            value);
        }
        acc += v;
    }
}

/* A black line with a white edge, so that it shows on every segment colour. */
static void
edged_line(struct gpuplan_buf *out, double x1, double y1, double x2, double y2, double width)
{
    svg_line(out, x1, y1, x2, y2, "#fff", width + 2.5, NULL);
    svg_line(out, x1, y1, x2, y2, "#000", width, NULL);
}

static void mem_marks(struct svg_canvas *cv,
                      const struct gpuplan_svg_mem_chart *c,
                      const struct gpuplan_svg_mem_bar *bar,
                      const struct svg_scale *xs,
                      double y)
{
    struct gpuplan_buf *out = cv->out;
    if (bar->has_range) {
        const double lo = svg_scale_map(xs, bar->low_gib), hi = svg_scale_map(xs, bar->high_gib);
        /* Just under the bar, clear of the values written on it. */
        const double mid = y + BAR_PX + 4;
        gpuplan_buf_puts(out, "<g class=\"range\">\n");
        edged_line(out, lo, mid, hi, mid, 1.5);
        edged_line(out, lo, mid - 3.5, lo, mid + 3.5, 1.5);
        edged_line(out, hi, mid - 3.5, hi, mid + 3.5, 1.5);
        gpuplan_buf_puts(out, "</g>\n");
    }
    if (bar->has_total) {
        const double tx = svg_scale_map(xs, bar->total_gib);
        char tip[TIP_BYTES];
        snprintf(tip, sizeof tip, "%.*s: %.1f %s", GPUPLAN_SVG_MAX_LABEL_BYTES,
                 c->total_label ? c->total_label : "", bar->total_gib, c->unit ? c->unit : "");
        svg_marker(cv, SVG_DIAMOND, tx, y + BAR_PX + 4, 3.5, "#000", "#fff", tip);
    }
    const double ux = svg_scale_map(xs, bar->usable_gib);
    gpuplan_buf_puts(out, "<g class=\"usable\">\n");
    edged_line(out, ux, y - 3, ux, y + BAR_PX + 3, 2.5);
    gpuplan_buf_puts(out, "</g>\n");
}

enum gpuplan_status gpuplan_svg_memory(const struct gpuplan_svg_mem_chart *c,
                                       struct gpuplan_buf *out,
                                       struct gpuplan_error *err)
{
    enum gpuplan_status st = mem_check(c, err);
    if (st != GPUPLAN_OK)
        return st;
    const double w = chart_width(&c->common);
    struct svg_canvas *cv = svg_canvas_new(out, w, 0);
    if (!cv)
        return gpuplan_error_set(err, GPUPLAN_ERR_NOMEM, "memory chart", "out of memory");

    /* The height follows the bars: a first pass on a scratch canvas measures the legend. */
    struct gpuplan_buf scratch;
    gpuplan_buf_init(&scratch, 64 * 1024);
    cv->out = &scratch;
    svg_begin(cv, &c->common, "memory");
    mem_legend(cv, c);
    const double rows_top = cv->top;
    gpuplan_buf_release(&scratch);
    const double line_h = ASCENT_PX + DESCENT_PX;
    const double row_h = line_h + 4 + BAR_PX + ROW_GAP_PX;
    const bool has_title = (c->axis_label && c->axis_label[0]) || (c->unit && c->unit[0]);
    cv->h = ceil(rows_top + (double)c->n_bars * row_h + 4 + line_h + (has_title ? line_h + 4 : 0) +
                 PAD_PX);
    cv->n_boxes = 0;
    cv->out = out;

    svg_begin(cv, &c->common, "memory");
    mem_legend(cv, c);

    double top = 0;
    for (size_t b = 0; b < c->n_bars; b++) {
        const struct gpuplan_svg_mem_bar *bar = &c->bars[b];
        top = fmax(top, fmax(fmax(parts_sum(bar), bar_total(bar)), bar->usable_gib));
        if (bar->has_range)
            top = fmax(top, bar->high_gib);
    }
    struct svg_axis_ticks ticks;
    struct svg_scale xs = { .p0 = PAD_PX };
    /* Ticks as dense as fit: the same rule as the x-y charts' x axis. */
    for (unsigned target = 8; target >= 2; target--) {
        const double step =
            gpuplan_svg_nice_ticks(0, top, target, ticks.ticks, SVG_MAX_TICKS, &ticks.n);
        const double max_abs = ticks.ticks[ticks.n - 1];
        for (size_t i = 0; i < ticks.n; i++)
            gpuplan_svg_format_tick(ticks.labels[i], sizeof ticks.labels[i], ticks.ticks[i], step,
                                    max_abs);
        xs.d0 = 0;
        xs.d1 = max_abs;
        xs.p1 = w - PAD_PX - gpuplan_svg_text_width_px(ticks.labels[ticks.n - 1], FONT_PX) / 2;
        xs.p0 = PAD_PX + gpuplan_svg_text_width_px(ticks.labels[0], FONT_PX) / 2;
        bool fits = true;
        for (size_t i = 1; i < ticks.n; i++) {
            const double gap =
                svg_scale_map(&xs, ticks.ticks[i]) - svg_scale_map(&xs, ticks.ticks[i - 1]);
            const double need = (gpuplan_svg_text_width_px(ticks.labels[i], FONT_PX) +
                                 gpuplan_svg_text_width_px(ticks.labels[i - 1], FONT_PX)) /
                                    2 +
                                10;
            fits &= gap >= need;
        }
        if (fits)
            break;
    }

    const double axis_y = rows_top + (double)c->n_bars * row_h;
    gpuplan_buf_puts(out, "<g class=\"axes\">\n");
    for (size_t i = 0; i < ticks.n; i++) {
        const double x = svg_scale_map(&xs, ticks.ticks[i]);
        svg_line(out, x, rows_top, x, axis_y, "#e3e6ea", 1, NULL);
        svg_text(cv, x, axis_y + 4 + ASCENT_PX, SVG_MIDDLE, "tick", ticks.labels[i], FONT_PX);
    }
    svg_line(out, xs.p0, axis_y, xs.p1, axis_y, "#444", 1, NULL);
    char title[2 * GPUPLAN_SVG_MAX_LABEL_BYTES + 8];
    const bool has_label = c->axis_label && c->axis_label[0], has_unit = c->unit && c->unit[0];
    snprintf(title, sizeof title, "%s%s%s", has_label ? c->axis_label : "",
             has_label && has_unit ? ", " : "", has_unit ? c->unit : "");
    if (title[0])
        svg_text(cv, (xs.p0 + xs.p1) / 2, axis_y + 4 + line_h + 4 + ASCENT_PX, SVG_MIDDLE, NULL,
                 title, FONT_PX);
    gpuplan_buf_puts(out, "</g>\n");

    for (size_t b = 0; b < c->n_bars; b++) {
        const struct gpuplan_svg_mem_bar *bar = &c->bars[b];
        const double row_y = rows_top + (double)b * row_h;
        const double bar_y = row_y + line_h + 4;
        char total[48], usable[48], text[GPUPLAN_SVG_MAX_LABEL_BYTES + 128];
        snprintf(total, sizeof total, "%.1f", bar_total(bar));
        snprintf(usable, sizeof usable, "%.1f", bar->usable_gib);
        const bool has_bar_label = bar->label && bar->label[0];
        snprintf(text, sizeof text, "%.*s%s%s / %s%s%s", GPUPLAN_SVG_MAX_LABEL_BYTES,
                 has_bar_label ? bar->label : "", has_bar_label ? ": " : "", total, usable,
                 has_unit ? " " : "", has_unit ? c->unit : "");
        gpuplan_buf_printf(out, "<g class=\"bar\" data-bar=\"%zu\">\n", b);
        svg_text(cv, PAD_PX, row_y + ASCENT_PX, SVG_START, NULL, text, FONT_PX);
        mem_segments(cv, c, bar, &xs, bar_y);
        mem_marks(cv, c, bar, &xs, bar_y);
        gpuplan_buf_puts(out, "</g>\n");
    }
    svg_end(cv);
    free(cv);
    return gpuplan_buf_status(out, err);
}

/* ---- time vs cost ---- */

static enum gpuplan_status scatter_check(const struct gpuplan_svg_scatter *c,
                                         struct gpuplan_error *err)
{
    const char *what = "scatter chart";
    enum gpuplan_status st = svg_check_common(&c->common, what, err);
    if (st == GPUPLAN_OK)
        st = count_check(c->points ? c->n_points : 0, 1, GPUPLAN_SVG_MAX_POINTS, what, "points",
                         err);
    for (size_t i = 0; st == GPUPLAN_OK && i < c->n_points; i++) {
        st = svg_check_value(c->points[i].x, &c->x, what, 0, i, err);
        if (st == GPUPLAN_OK)
            st = svg_check_value(c->points[i].y, &c->y, what, 0, i, err);
    }
    return st;
}

/* The Pareto points' indices sorted by x, then y (insertion sort: n <= 512). */
static size_t front_order(const struct gpuplan_svg_scatter *c, size_t *idx)
{
    size_t n = 0;
    for (size_t i = 0; i < c->n_points; i++) {
        if (!c->points[i].is_pareto)
            continue;
        size_t j = n++;
        while (j > 0 && (c->points[idx[j - 1]].x > c->points[i].x ||
                         (c->points[idx[j - 1]].x == c->points[i].x &&
                          c->points[idx[j - 1]].y > c->points[i].y))) {
            idx[j] = idx[j - 1];
            j--;
        }
        idx[j] = i;
    }
    return n;
}

/*
 * The front as a staircase: right along the cost of one plan, then down to
 * the next, so the region above and to the right of the line (slower and
 * dearer) is what the front dominates.
 */
static void scatter_front(struct svg_canvas *cv,
                          const struct svg_plot *plot,
                          const struct gpuplan_svg_scatter *c,
                          const size_t *idx,
                          size_t n)
{
    if (n < 2)
        return;
    struct gpuplan_buf *out = cv->out;
    double px = 0, py = 0;
    gpuplan_buf_puts(out, "<path class=\"front\" fill=\"none\" stroke=\"#0072B2\" "
                          "stroke-width=\"1.5\" stroke-dasharray=\"5 3\" d=\"M");
    for (size_t k = 0; k < n; k++) {
        const struct gpuplan_svg_point *p = &c->points[idx[k]];
        const double x = svg_scale_map(&plot->x, p->x), y = svg_scale_map(&plot->y, p->y);
        if (k) {
            svg_segment_use(cv, px, py, x, py);
            svg_segment_use(cv, x, py, x, y);
            gpuplan_buf_puts(out, " H");
            svg_num(out, x);
            gpuplan_buf_puts(out, " V");
            svg_num(out, y);
        } else {
            svg_num(out, x);
            gpuplan_buf_puts(out, " ");
            svg_num(out, y);
        }
        px = x;
        py = y;
    }
    gpuplan_buf_puts(out, "\"/>\n");
}

/* Points under, Pareto points over them, the highlight on top; marks and tooltips. */
static void scatter_marks(struct svg_canvas *cv,
                          const struct svg_plot *plot,
                          const struct gpuplan_svg_scatter *c)
{
    char tip[TIP_BYTES];
    for (int layer = 0; layer < 3; layer++) {
        for (size_t i = 0; i < c->n_points; i++) {
            const struct gpuplan_svg_point *p = &c->points[i];
            const int l = p->is_highlight ? 2 : p->is_pareto ? 1 : 0;
            if (l != layer)
                continue;
            point_tip(tip, sizeof tip, p->label, p->x, p->y, &c->x, &c->y);
            const double x = svg_scale_map(&plot->x, p->x), y = svg_scale_map(&plot->y, p->y);
            if (layer == 2)
                svg_marker(cv, SVG_DIAMOND, x, y, 6.5, "#D55E00", "#000", tip);
            else if (layer == 1)
                svg_marker(cv, SVG_CIRCLE, x, y, 5, "#0072B2", "#0072B2", tip);
            else
                svg_marker(cv, SVG_CIRCLE, x, y, 4, "#fff", "#555", tip);
        }
    }
}

enum gpuplan_status gpuplan_svg_scatter(const struct gpuplan_svg_scatter *c,
                                        struct gpuplan_buf *out,
                                        struct gpuplan_error *err)
{
    enum gpuplan_status st = scatter_check(c, err);
    if (st != GPUPLAN_OK)
        return st;
    struct svg_canvas *cv = svg_canvas_new(out, chart_width(&c->common), chart_height(&c->common));
    struct svg_label *labels = calloc(c->n_points, sizeof *labels);
    size_t *idx = calloc(c->n_points, sizeof *idx);
    struct svg_plot *plot = calloc(1, sizeof *plot);
    if (!cv || !labels || !idx || !plot) {
        st = gpuplan_error_set(err, GPUPLAN_ERR_NOMEM, "scatter chart", "out of memory");
        goto out;
    }
    svg_begin(cv, &c->common, "scatter");
    bool any_other = false, any_highlight = false;
    for (size_t i = 0; i < c->n_points; i++) {
        any_highlight |= c->points[i].is_highlight;
        any_other |= !c->points[i].is_highlight && !c->points[i].is_pareto;
    }
    const struct svg_legend_entry legend[] = {
        { .kind = c->draw_front ? SVG_LEGEND_LINE : SVG_LEGEND_MARKER,
          .label = c->pareto_label,
          .colour = "#0072B2",
          .dash = "5 3",
          .width = 1.5,
          .has_marker = true,
          .radius = 5 },
        { .kind = SVG_LEGEND_MARKER,
          .label = any_other ? c->other_label : NULL,
          .colour = "#fff",
          .stroke = "#555",
          .radius = 4 },
        { .kind = SVG_LEGEND_MARKER,
          .label = any_highlight ? c->highlight_label : NULL,
          .colour = "#D55E00",
          .stroke = "#000",
          .shape = SVG_DIAMOND,
          .radius = 5.5 },
    };
    svg_legend(cv, legend, sizeof legend / sizeof legend[0]);

    double x_lo = INFINITY, x_hi = -INFINITY, y_lo = INFINITY, y_hi = -INFINITY;
    for (size_t i = 0; i < c->n_points; i++) {
        x_lo = fmin(x_lo, c->points[i].x);
        x_hi = fmax(x_hi, c->points[i].x);
        y_lo = fmin(y_lo, c->points[i].y);
        y_hi = fmax(y_hi, c->points[i].y);
    }
    svg_plot_axes(cv, plot, &c->x, &c->y, x_lo, x_hi, y_lo, y_hi);
    set_label_limits(cv, plot);
    if (c->draw_front)
        scatter_front(cv, plot, c, idx, front_order(c, idx));
    gpuplan_buf_puts(out, "<g class=\"points\">\n");
    scatter_marks(cv, plot, c);
    gpuplan_buf_puts(out, "</g>\n");
    /* Labels in order of interest: the recommendation, the front, the rest. */
    for (int layer = 2; layer >= 0; layer--) {
        for (size_t i = 0; i < c->n_points; i++) {
            const struct gpuplan_svg_point *p = &c->points[i];
            const int l = p->is_highlight ? 2 : p->is_pareto ? 1 : 0;
            if (l != layer || !p->label || !p->label[0])
                continue;
            svg_place_label(cv, &labels[i], p->label, svg_scale_map(&plot->x, p->x),
                            svg_scale_map(&plot->y, p->y), layer == 2 ? 7.5 : 5.5, layer == 2);
        }
    }
    put_labels(cv, labels, c->n_points);
    svg_end(cv);
    st = gpuplan_buf_status(out, err);
out:
    free(plot);
    free(idx);
    free(labels);
    free(cv);
    return st;
}

/* ---- cumulative cost ---- */

static enum gpuplan_status cost_check(const struct gpuplan_svg_cost_chart *c,
                                      struct gpuplan_error *err)
{
    const char *what = "cost chart";
    enum gpuplan_status st = svg_check_common(&c->common, what, err);
    if (st == GPUPLAN_OK)
        st = count_check(c->lines ? c->n_lines : 0, 1, GPUPLAN_SVG_MAX_SERIES, what, "lines", err);
    if (st == GPUPLAN_OK && !(isfinite(c->x_start) && isfinite(c->x_step) && c->x_step > 0))
        st = gpuplan_error_set(err, GPUPLAN_ERR_INVALID_INPUT, what,
                               "x start %g and step %g must be finite, the step > 0", c->x_start,
                               c->x_step);
    for (size_t s = 0; st == GPUPLAN_OK && s < c->n_lines; s++) {
        const struct gpuplan_svg_line *line = &c->lines[s];
        st = count_check(line->y ? line->n_points : 0, 2, GPUPLAN_SVG_MAX_POINTS, what, "points",
                         err);
        for (size_t i = 0; st == GPUPLAN_OK && i < line->n_points; i++)
            st = svg_check_value(line->y[i], &c->y, what, s, i, err);
        if (st == GPUPLAN_OK && c->x.is_log)
            st = svg_check_value(c->x_start, &c->x, what, s, 0, err);
    }
    if (st == GPUPLAN_OK && c->has_break_even)
        st = svg_check_value(c->break_even_x, &c->x, what, 0, 0, err);
    return st;
}

/* Series 0 at x (linear between its points); NAN outside it. */
static double line_at(const struct gpuplan_svg_line *line, double x_start, double x_step, double x)
{
    const double t = (x - x_start) / x_step;
    if (!(t >= 0) || t > (double)(line->n_points - 1))
        return NAN;
    const size_t i = (size_t)floor(t);
    if (i + 1 >= line->n_points)
        return line->y[line->n_points - 1];
    return line->y[i] + (line->y[i + 1] - line->y[i]) * (t - (double)i);
}

static void cost_break_even(struct svg_canvas *cv,
                            const struct svg_plot *plot,
                            const struct gpuplan_svg_cost_chart *c)
{
    const double bx = svg_scale_map(&plot->x, c->break_even_x);
    if (bx < plot->left - 0.05 || bx > plot->right + 0.05)
        return;
    char value[48], text[GPUPLAN_SVG_MAX_LABEL_BYTES + 96];
    snprintf(value, sizeof value, "%.1f", c->break_even_x);
    const bool has_label = c->break_even_label && c->break_even_label[0];
    const bool has_unit = c->x.unit && c->x.unit[0];
    snprintf(text, sizeof text, "%.*s%s%s%s%s", GPUPLAN_SVG_MAX_LABEL_BYTES,
             has_label ? c->break_even_label : "", has_label ? " " : "", value, has_unit ? " " : "",
             has_unit ? c->x.unit : "");
    gpuplan_buf_puts(cv->out, "<g class=\"break-even\">\n");
    svg_line(cv->out, bx, plot->top, bx, plot->bottom, "#000", 1.5, "2 3");
    svg_segment_use(cv, bx, plot->top, bx, plot->bottom);
    const double yv = line_at(&c->lines[0], c->x_start, c->x_step, c->break_even_x);
    double by = plot->top;
    if (isfinite(yv)) {
        by = svg_scale_map(&plot->y, yv);
        svg_marker(cv, SVG_CIRCLE, bx, by, 4.5, "#fff", "#000", text);
    }
    const double base = plot->top + ASCENT_PX + 2;
    const struct line_spot spots[] = {
        { bx + 5, base, SVG_START },
        { bx - 5, base, SVG_END },
        { bx + 7, by - 6 - DESCENT_PX, SVG_START },
        { bx - 7, by - 6 - DESCENT_PX, SVG_END },
        { bx + 7, by + 6 + ASCENT_PX, SVG_START },
        { bx - 7, by + 6 + ASCENT_PX, SVG_END },
    };
    place_at_spots(cv, text, spots, sizeof spots / sizeof spots[0]);
    gpuplan_buf_puts(cv->out, "</g>\n");
}

enum gpuplan_status gpuplan_svg_cost(const struct gpuplan_svg_cost_chart *c,
                                     struct gpuplan_buf *out,
                                     struct gpuplan_error *err)
{
    enum gpuplan_status st = cost_check(c, err);
    if (st != GPUPLAN_OK)
        return st;
    struct svg_canvas *cv = svg_canvas_new(out, chart_width(&c->common), chart_height(&c->common));
    struct svg_plot *plot = calloc(1, sizeof *plot);
    if (!cv || !plot) {
        st = gpuplan_error_set(err, GPUPLAN_ERR_NOMEM, "cost chart", "out of memory");
        goto out;
    }
    svg_begin(cv, &c->common, "cost");
    struct svg_legend_entry legend[GPUPLAN_SVG_MAX_SERIES];
    size_t n_points = 0;
    double y_lo = INFINITY, y_hi = -INFINITY;
    for (size_t s = 0; s < c->n_lines; s++) {
        legend[s] = (struct svg_legend_entry){ .kind = SVG_LEGEND_LINE,
                                               .label = c->lines[s].label,
                                               .colour = svg_series_colour(s),
                                               .dash = svg_series_dash(s) };
        if (c->lines[s].n_points > n_points)
            n_points = c->lines[s].n_points;
        for (size_t i = 0; i < c->lines[s].n_points; i++) {
            y_lo = fmin(y_lo, c->lines[s].y[i]);
            y_hi = fmax(y_hi, c->lines[s].y[i]);
        }
    }
    svg_legend(cv, legend, c->n_lines);
    double x_lo = c->x_start, x_hi = c->x_start + c->x_step * (double)(n_points - 1);
    if (c->has_break_even) {
        x_lo = fmin(x_lo, c->break_even_x);
        x_hi = fmax(x_hi, c->break_even_x);
    }
    svg_plot_axes(cv, plot, &c->x, &c->y, x_lo, x_hi, y_lo, y_hi);
    set_label_limits(cv, plot);
    gpuplan_buf_puts(out, "<g class=\"lines\">\n");
    for (size_t s = 0; s < c->n_lines; s++)
        put_polyline(cv, plot, NULL, c->x_start, c->x_step, c->lines[s].y, c->lines[s].n_points,
                     svg_series_colour(s), svg_series_dash(s));
    gpuplan_buf_puts(out, "</g>\n");
    if (c->has_break_even)
        cost_break_even(cv, plot, c);
    svg_end(cv);
    st = gpuplan_buf_status(out, err);
out:
    free(plot);
    free(cv);
    return st;
}

/* ---- latency vs throughput ---- */

static enum gpuplan_status latency_check(const struct gpuplan_svg_latency_chart *c,
                                         struct gpuplan_error *err)
{
    const char *what = "latency chart";
    enum gpuplan_status st = svg_check_common(&c->common, what, err);
    if (st == GPUPLAN_OK)
        st = count_check(c->curves ? c->n_curves : 0, 1, GPUPLAN_SVG_MAX_SERIES, what, "curves",
                         err);
    if (st == GPUPLAN_OK)
        st = count_check(c->targets ? c->n_targets : 0, 0, GPUPLAN_SVG_MAX_TARGETS, what, "targets",
                         err);
    for (size_t s = 0; st == GPUPLAN_OK && s < c->n_curves; s++) {
        const struct gpuplan_svg_curve *curve = &c->curves[s];
        st = count_check(curve->x && curve->y ? curve->n_points : 0, 1, GPUPLAN_SVG_MAX_POINTS,
                         what, "points", err);
        for (size_t i = 0; st == GPUPLAN_OK && i < curve->n_points; i++) {
            st = svg_check_value(curve->x[i], &c->x, what, s, i, err);
            if (st == GPUPLAN_OK)
                st = svg_check_value(curve->y[i], &c->y, what, s, i, err);
        }
    }
    for (size_t t = 0; st == GPUPLAN_OK && t < c->n_targets; t++)
        st = svg_check_value(c->targets[t].value, c->targets[t].is_vertical ? &c->x : &c->y, what,
                             t, 0, err);
    return st;
}

/* "TPOT target 50 ms": the label, the value, the axis unit. */
static void target_text(char *dst,
                        size_t size,
                        const struct gpuplan_svg_target *t,
                        const struct gpuplan_svg_axis *axis)
{
    char value[48];
    svg_format_value(value, sizeof value, t->value);
    const bool has_label = t->label && t->label[0], has_unit = axis->unit && axis->unit[0];
    snprintf(dst, size, "%.*s%s%s%s%s", GPUPLAN_SVG_MAX_LABEL_BYTES, has_label ? t->label : "",
             has_label ? " " : "", value, has_unit ? " " : "", has_unit ? axis->unit : "");
}

static void latency_targets(struct svg_canvas *cv,
                            const struct svg_plot *plot,
                            const struct gpuplan_svg_latency_chart *c)
{
    if (!c->n_targets)
        return;
    gpuplan_buf_puts(cv->out, "<g class=\"targets\">\n");
    for (size_t t = 0; t < c->n_targets; t++) {
        const struct gpuplan_svg_target *target = &c->targets[t];
        char text[GPUPLAN_SVG_MAX_LABEL_BYTES + 96];
        target_text(text, sizeof text, target, target->is_vertical ? &c->x : &c->y);
        if (target->is_vertical) {
            const double x = svg_scale_map(&plot->x, target->value);
            svg_line(cv->out, x, plot->top, x, plot->bottom, "#000", 1.5, "6 4");
            svg_segment_use(cv, x, plot->top, x, plot->bottom);
            const double base = plot->top + ASCENT_PX + 2;
            const struct line_spot spots[] = {
                { x + 5, base, SVG_START },
                { x - 5, base, SVG_END },
                { x + 5, base + ASCENT_PX + DESCENT_PX + 4, SVG_START },
                { x - 5, base + ASCENT_PX + DESCENT_PX + 4, SVG_END },
                { x + 5, plot->bottom - DESCENT_PX - 4, SVG_START },
                { x - 5, plot->bottom - DESCENT_PX - 4, SVG_END },
            };
            place_at_spots(cv, text, spots, sizeof spots / sizeof spots[0]);
        } else {
            const double y = svg_scale_map(&plot->y, target->value);
            svg_line(cv->out, plot->left, y, plot->right, y, "#000", 1.5, "6 4");
            svg_segment_use(cv, plot->left, y, plot->right, y);
            const double above = y - 4 - DESCENT_PX, below = y + 4 + ASCENT_PX;
            const double mid = (plot->left + plot->right) / 2;
            const struct line_spot spots[] = {
                { plot->right - 4, above, SVG_END },  { plot->right - 4, below, SVG_END },
                { plot->left + 4, above, SVG_START }, { plot->left + 4, below, SVG_START },
                { mid, above, SVG_MIDDLE },           { mid, below, SVG_MIDDLE },
            };
            place_at_spots(cv, text, spots, sizeof spots / sizeof spots[0]);
        }
    }
    gpuplan_buf_puts(cv->out, "</g>\n");
}

enum gpuplan_status gpuplan_svg_latency(const struct gpuplan_svg_latency_chart *c,
                                        struct gpuplan_buf *out,
                                        struct gpuplan_error *err)
{
    enum gpuplan_status st = latency_check(c, err);
    if (st != GPUPLAN_OK)
        return st;
    size_t n_all = 0;
    for (size_t s = 0; s < c->n_curves; s++)
        n_all += c->curves[s].n_points;
    struct svg_canvas *cv = svg_canvas_new(out, chart_width(&c->common), chart_height(&c->common));
    struct svg_label *labels = calloc(n_all, sizeof *labels);
    struct svg_plot *plot = calloc(1, sizeof *plot);
    if (!cv || !labels || !plot) {
        st = gpuplan_error_set(err, GPUPLAN_ERR_NOMEM, "latency chart", "out of memory");
        goto out;
    }
    svg_begin(cv, &c->common, "latency");
    struct svg_legend_entry legend[GPUPLAN_SVG_MAX_SERIES];
    double x_lo = INFINITY, x_hi = -INFINITY, y_lo = INFINITY, y_hi = -INFINITY;
    for (size_t s = 0; s < c->n_curves; s++) {
        const struct gpuplan_svg_curve *curve = &c->curves[s];
        legend[s] = (struct svg_legend_entry){ .kind = SVG_LEGEND_LINE,
                                               .label = curve->label,
                                               .colour = svg_series_colour(s),
                                               .dash = svg_series_dash(s),
                                               .has_marker = true,
                                               .shape = svg_series_shape(s) };
        for (size_t i = 0; i < curve->n_points; i++) {
            x_lo = fmin(x_lo, curve->x[i]);
            x_hi = fmax(x_hi, curve->x[i]);
            y_lo = fmin(y_lo, curve->y[i]);
            y_hi = fmax(y_hi, curve->y[i]);
        }
    }
    for (size_t t = 0; t < c->n_targets; t++) {
        const double v = c->targets[t].value;
        if (c->targets[t].is_vertical) {
            x_lo = fmin(x_lo, v);
            x_hi = fmax(x_hi, v);
        } else {
            y_lo = fmin(y_lo, v);
            y_hi = fmax(y_hi, v);
        }
    }
    svg_legend(cv, legend, c->n_curves);
    svg_plot_axes(cv, plot, &c->x, &c->y, x_lo, x_hi, y_lo, y_hi);
    set_label_limits(cv, plot);
    gpuplan_buf_puts(out, "<g class=\"curves\">\n");
    char tip[TIP_BYTES];
    for (size_t s = 0; s < c->n_curves; s++) {
        const struct gpuplan_svg_curve *curve = &c->curves[s];
        if (curve->n_points > 1)
            put_polyline(cv, plot, curve->x, 0, 0, curve->y, curve->n_points, svg_series_colour(s),
                         svg_series_dash(s));
        for (size_t i = 0; i < curve->n_points; i++) {
            const char *pl = curve->point_labels ? curve->point_labels[i] : NULL;
            char name[2 * GPUPLAN_SVG_MAX_LABEL_BYTES + 8];
            snprintf(name, sizeof name, "%.*s%s%.*s", GPUPLAN_SVG_MAX_LABEL_BYTES,
                     curve->label ? curve->label : "", pl && pl[0] ? " " : "",
                     GPUPLAN_SVG_MAX_LABEL_BYTES, pl ? pl : "");
            point_tip(tip, sizeof tip, name, curve->x[i], curve->y[i], &c->x, &c->y);
            svg_marker(cv, svg_series_shape(s), svg_scale_map(&plot->x, curve->x[i]),
                       svg_scale_map(&plot->y, curve->y[i]), 4, svg_series_colour(s),
                       svg_series_colour(s), tip);
        }
    }
    gpuplan_buf_puts(out, "</g>\n");
    latency_targets(cv, plot, c);
    size_t k = 0;
    for (size_t s = 0; s < c->n_curves; s++) {
        const struct gpuplan_svg_curve *curve = &c->curves[s];
        for (size_t i = 0; i < curve->n_points; i++, k++) {
            const char *pl = curve->point_labels ? curve->point_labels[i] : NULL;
            if (pl && pl[0])
                svg_place_label(cv, &labels[k], pl, svg_scale_map(&plot->x, curve->x[i]),
                                svg_scale_map(&plot->y, curve->y[i]), 5, false);
        }
    }
    put_labels(cv, labels, n_all);
    svg_end(cv);
    st = gpuplan_buf_status(out, err);
out:
    free(plot);
    free(labels);
    free(cv);
    return st;
}
