/*
 * svg.c - the kit every chart is drawn with (svg_draw_internal.h): text
 * widths and escaping, nice ticks, the canvas with its used boxes and the
 * greedy label placement, markers, the legend, the axes of an x-y plot. The
 * four charts are svg_chart.c.
 *
 * Not here: anything about plans, estimates or money beyond formatting the
 * caller's numbers. Contracts and errors: svg_internal.h; the design (palette,
 * tick rule, label placement): docs/charts.md.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/svg_draw_internal.h"
#include "util/utf8_internal.h"

/*
 * Advance widths of DejaVu Sans Book (fonts-dejavu-core 2.37-6, Debian 12),
 * in 1/1000 em, rounded up: `python3 tools/font_widths.py
 * /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf`. DejaVu derives from
 * Bitstream Vera, whose widths match Verdana's (digits 0.637 em in both), the
 * next font the charts ask for; the usual sans-serif fallbacks (Arial,
 * Helvetica, Liberation Sans) are narrower, so these are upper bounds.
 */
static const uint16_t ascii_milli_em[95] = {
    318, 401, 460, 838, 637, 951, 780, 275, 391, 391, 500, 838, 318, 361,  318, 337, 637, 637, 637,
    637, 637, 637, 637, 637, 637, 637, 337, 337, 838, 838, 838, 531, 1000, 685, 687, 699, 771, 632,
    576, 775, 752, 295, 295, 656, 558, 863, 749, 788, 604, 788, 695, 635,  611, 732, 685, 989, 686,
    611, 686, 391, 337, 391, 838, 500, 500, 613, 635, 550, 635, 616, 353,  635, 634, 278, 278, 580,
    278, 975, 634, 612, 635, 635, 412, 521, 393, 634, 592, 818, 592, 592,  525, 637, 337, 637, 838
};
static const uint16_t cyrillic_milli_em[96] = {
    632, 632, 787, 610, 699, 635, 295,  295, 295,  1094, 1045, 787, 710, 749, 610,  752,
    685, 687, 687, 610, 782, 632, 1078, 642, 749,  749,  710,  752, 863, 752, 788,  752,
    604, 699, 611, 610, 861, 686, 777,  686, 1070, 1094, 833,  883, 687, 699, 1080, 695,
    613, 617, 590, 526, 692, 616, 901,  532, 650,  650,  605,  640, 755, 654, 612,  654,
    635, 550, 583, 592, 855, 592, 681,  591, 916,  942,  707,  790, 590, 549, 842,  602,
    616, 616, 625, 526, 549, 521, 278,  278, 278,  903,  899,  652, 605, 650, 592,  654
};
/* The widest of Latin-1, Latin Extended-A, Cyrillic, U+2010..U+2026 (tools/font_widths.py). */
#define OTHER_MILLI_EM 1094

/* DejaVu Sans 'hhea': ascender 1901, descender -483 of 2048 units per em. */
#define ASCENT_EM  0.929
#define DESCENT_EM 0.236

#define FONT_PX      ((double)GPUPLAN_SVG_FONT_PX)
#define TITLE_PX     14.0
#define PAD_PX       8.0  /* the chart's margin */
#define LABEL_GAP_PX 2.0  /* the least room between two text boxes */
#define TICK_GAP_PX  10.0 /* the least room between two x tick labels */
#define TICK_LEN_PX  4.0

/* ---- text ---- */

/* The code point of the sequence at s (length n > 0), or U+FFFD for an invalid byte. */
static uint32_t decode(const unsigned char *s, size_t n)
{
    if (n == 1)
        return s[0];
    uint32_t cp = s[0] & (0x7f >> n);
    for (size_t i = 1; i < n; i++)
        cp = (cp << 6) | (s[i] & 0x3f);
    return cp;
}

static double char_milli_em(uint32_t cp)
{
    if (cp >= 0x20 && cp < 0x7f)
        return ascii_milli_em[cp - 0x20];
    if (cp >= 0x400 && cp < 0x460)
        return cyrillic_milli_em[cp - 0x400];
    if (cp < 0x20 || cp == 0x7f)
        return ascii_milli_em[0]; /* written as a space */
    return OTHER_MILLI_EM;
}

double gpuplan_svg_text_width_px(const char *text, double font_px)
{
    if (!text)
        return 0;
    const unsigned char *s = (const unsigned char *)text;
    const size_t len = strlen(text);
    double milli = 0;
    for (size_t i = 0; i < len;) {
        const size_t n = gpuplan_utf8_sequence_len(s + i, len - i);
        milli += n ? char_milli_em(decode(s + i, n)) : OTHER_MILLI_EM;
        i += n ? n : 1;
    }
    return milli * font_px / 1000.0;
}

void gpuplan_xml_put_span(struct gpuplan_buf *out, const char *text, size_t len, bool keep_lines)
{
    const unsigned char *s = (const unsigned char *)text;
    for (size_t i = 0; i < len;) {
        const size_t n = s[i] ? gpuplan_utf8_sequence_len(s + i, len - i) : 0;
        if (n == 0) {
            gpuplan_buf_puts(out, "\xEF\xBF\xBD");
            i++;
            continue;
        }
        if (n == 1) {
            const char c = (char)s[i];
            if (c == '<')
                gpuplan_buf_puts(out, "&lt;");
            else if (c == '>')
                gpuplan_buf_puts(out, "&gt;");
            else if (c == '&')
                gpuplan_buf_puts(out, "&amp;");
            else if (c == '"')
                gpuplan_buf_puts(out, "&quot;");
            else if (keep_lines && (c == '\n' || c == '\t'))
                gpuplan_buf_append(out, &c, 1);
            else if (keep_lines && c == '\r')
                ; /* CR LF: the LF stays */
            else if (s[i] < 0x20 || s[i] == 0x7f)
                gpuplan_buf_puts(out, " ");
            else
                gpuplan_buf_append(out, &c, 1);
        } else {
            gpuplan_buf_append(out, s + i, n);
        }
        i += n;
    }
}

void gpuplan_svg_put_text(struct gpuplan_buf *out, const char *text, size_t max_bytes)
{
    if (!text)
        return;
    const unsigned char *s = (const unsigned char *)text;
    const size_t all = strlen(text);
    size_t len = all < max_bytes ? all : max_bytes;
    /* Cut at a character: drop a sequence that max_bytes split. */
    if (len < all) {
        size_t start = len;
        while (start > 0 && (s[start] & 0xc0) == 0x80 && len - start < 4)
            start--;
        if (gpuplan_utf8_sequence_len(s + start, all - start) > len - start)
            len = start;
    }
    gpuplan_xml_put_span(out, text, len, false);
}

/*
 * Copy `text` into dst (size > 4) cut to GPUPLAN_SVG_MAX_LABEL_BYTES and so
 * that it is at most `max_px` wide at `font_px`: whole characters, then an
 * ellipsis when something was cut. Invalid bytes are kept (the writer
 * replaces them) but counted as one wide character each.
 */
void svg_fit_text(char *dst, size_t size, const char *text, double max_px, double font_px)
{
    dst[0] = 0;
    if (!text)
        return;
    const unsigned char *s = (const unsigned char *)text;
    size_t len = strlen(text);
    if (len > GPUPLAN_SVG_MAX_LABEL_BYTES)
        len = GPUPLAN_SVG_MAX_LABEL_BYTES;
    const double ellipsis_px = OTHER_MILLI_EM * font_px / 1000.0;
    const size_t room = size - 4; /* the ellipsis (3 bytes) and the NUL */
    double px = 0;
    size_t used = 0, fit_with_ellipsis = 0;
    bool cut = len < strlen(text);
    for (size_t i = 0; i < len;) {
        size_t n = gpuplan_utf8_sequence_len(s + i, len - i);
        const double w = (n ? char_milli_em(decode(s + i, n)) : OTHER_MILLI_EM) * font_px / 1000.0;
        if (n == 0)
            n = 1;
        if (px + w > max_px || used + n > room) {
            cut = true;
            break;
        }
        px += w;
        used += n;
        if (px + ellipsis_px <= max_px)
            fit_with_ellipsis = used;
        i += n;
    }
    if (!cut) {
        memcpy(dst, text, used);
        dst[used] = 0;
        return;
    }
    memcpy(dst, text, fit_with_ellipsis);
    /* No space before the ellipsis: "H100 SXM…", not "H100 …". */
    while (fit_with_ellipsis > 0 && dst[fit_with_ellipsis - 1] == ' ')
        fit_with_ellipsis--;
    memcpy(dst + fit_with_ellipsis, "\xE2\x80\xA6", 3);
    dst[fit_with_ellipsis + 3] = 0;
}

/* ---- numbers ---- */

/* A coordinate: one decimal, never "-0.0". */
void svg_num(struct gpuplan_buf *out, double v)
{
    double r = round(v * 10.0) / 10.0;
    if (r == 0)
        r = 0; /* -0.0 */
    gpuplan_buf_printf(out, "%.1f", r);
}

/* "12,345" from a whole number's digits. */
static void group_thousands(char *dst, size_t size, const char *digits)
{
    const bool negative = digits[0] == '-';
    const char *d = negative ? digits + 1 : digits;
    const char *dot = strchr(d, '.');
    const size_t n_int = dot ? (size_t)(dot - d) : strlen(d);
    size_t j = 0;
    if (negative && j + 1 < size)
        dst[j++] = '-';
    for (size_t i = 0; i < n_int && j + 1 < size; i++) {
        if (i > 0 && (n_int - i) % 3 == 0 && j + 2 < size)
            dst[j++] = ',';
        dst[j++] = d[i];
    }
    for (const char *p = dot; p && *p && j + 1 < size; p++)
        dst[j++] = *p;
    dst[j] = 0;
}

/* Decimals a multiple of `step` needs (0..6). */
static int step_decimals(double step)
{
    int d = 0;
    while (d < 6 && fabs(step * pow(10, d) - round(step * pow(10, d))) > 1e-6 * step * pow(10, d))
        d++;
    return d;
}

static void strip_zeros(char *s)
{
    char *dot = strchr(s, '.');
    if (!dot)
        return;
    char *end = s + strlen(s);
    while (end > dot + 1 && end[-1] == '0')
        end--;
    if (end == dot + 1)
        end = dot;
    *end = 0;
}

void gpuplan_svg_format_tick(char *dst, size_t size, double v, double step, double axis_max_abs)
{
    static const char suffix[] = { 'k', 'M', 'G', 'T' };
    char raw[64];
    if (fabs(v) < 0.5 * step * 1e-6)
        v = 0;
    if (axis_max_abs >= 1e4) {
        int k = (int)floor(log10(axis_max_abs) / 3.0);
        if (k > 4)
            k = 4;
        if (k < 1)
            k = 1;
        const double scale = pow(1000.0, k);
        snprintf(raw, sizeof raw, "%.*f", step_decimals(step / scale), v / scale);
        strip_zeros(raw);
        if (strcmp(raw, "-0") == 0)
            snprintf(raw, sizeof raw, "0");
        if (strcmp(raw, "0") == 0)
            snprintf(dst, size, "0");
        else
            snprintf(dst, size, "%s%c", raw, suffix[k - 1]);
        return;
    }
    snprintf(raw, sizeof raw, "%.*f", step_decimals(step), v);
    if (strcmp(raw, "-0") == 0 || (raw[0] == '-' && strspn(raw + 1, "0.") == strlen(raw + 1)))
        memmove(raw, raw + 1, strlen(raw));
    group_thousands(dst, size, raw);
}

/* A value in a label or tooltip: "12,345", "123", "12.3", "1.23", "2", "0.0123". */
void svg_format_value(char *dst, size_t size, double v)
{
    char raw[64];
    const double a = fabs(v);
    if (a >= 100 || a == 0)
        snprintf(raw, sizeof raw, "%.0f", v);
    else if (a >= 10)
        snprintf(raw, sizeof raw, "%.1f", v);
    else if (a >= 1)
        snprintf(raw, sizeof raw, "%.2f", v);
    else
        snprintf(raw, sizeof raw, "%.3g", v);
    strip_zeros(raw);
    if (strcmp(raw, "-0") == 0)
        snprintf(raw, sizeof raw, "0");
    group_thousands(dst, size, raw);
}

/* The nice number near x > 0: 1, 2 or 5 x 10^k (rounded, or the next one up). */
static double nice_number(double x, bool round_it)
{
    const double e = floor(log10(x));
    const double f = x / pow(10, e);
    double nf;
    if (round_it)
        nf = f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10;
    else
        nf = f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10;
    return nf * pow(10, e);
}

double
gpuplan_svg_nice_ticks(double lo, double hi, unsigned target, double *ticks, size_t cap, size_t *n)
{
    if (target < 2)
        target = 2;
    if (!(hi > lo))
        hi = lo + 1;
    const double step = nice_number(nice_number(hi - lo, false) / (target - 1), true);
    const double first = floor(lo / step + 1e-9);
    const double last = ceil(hi / step - 1e-9);
    *n = 0;
    for (double k = first; k <= last && *n < cap; k++) {
        double v = k * step;
        if (fabs(v) < step * 1e-9)
            v = 0;
        ticks[(*n)++] = v;
    }
    return step;
}

/* ---- the canvas: output, used boxes, placement ---- */

struct svg_canvas *svg_canvas_new(struct gpuplan_buf *out, double w, double h)
{
    struct svg_canvas *cv = calloc(1, sizeof *cv);
    if (!cv)
        return NULL;
    cv->out = out;
    cv->w = w;
    cv->h = h;
    return cv;
}

static bool boxes_overlap(const struct svg_box *a, const struct svg_box *b, double gap)
{
    return a->x0 < b->x1 + gap && b->x0 < a->x1 + gap && a->y0 < b->y1 + gap && b->y0 < a->y1 + gap;
}

bool svg_box_free(const struct svg_canvas *cv, const struct svg_box *b, double gap, bool texts_only)
{
    for (size_t i = 0; i < cv->n_boxes; i++)
        if ((!texts_only || cv->box_kind[i] == SVG_BOX_TEXT) &&
            boxes_overlap(&cv->boxes[i], b, gap))
            return false;
    return true;
}

void svg_box_use(struct svg_canvas *cv, const struct svg_box *b, enum svg_box_kind kind)
{
    if (cv->n_boxes < SVG_MAX_BOXES) {
        cv->box_kind[cv->n_boxes] = (unsigned char)kind;
        cv->boxes[cv->n_boxes++] = *b;
    }
}

void svg_segment_use(struct svg_canvas *cv, double x1, double y1, double x2, double y2)
{
    if (cv->n_segments < SVG_MAX_SEGMENTS)
        cv->segments[cv->n_segments++] = (struct svg_segment){ x1, y1, x2, y2 };
}

/* Whether the segment meets the box (Liang and Barsky's clipping: some t in [0, 1] is inside). */
static bool segment_meets_box(const struct svg_segment *s, const struct svg_box *b)
{
    const double dx = s->x2 - s->x1, dy = s->y2 - s->y1;
    const double p[4] = { -dx, dx, -dy, dy };
    const double q[4] = { s->x1 - b->x0, b->x1 - s->x1, s->y1 - b->y0, b->y1 - s->y1 };
    double t0 = 0, t1 = 1;
    for (int i = 0; i < 4; i++) {
        if (p[i] == 0) {
            if (q[i] < 0)
                return false;
            continue;
        }
        const double t = q[i] / p[i];
        if (p[i] < 0)
            t0 = fmax(t0, t);
        else
            t1 = fmin(t1, t);
        if (t0 > t1)
            return false;
    }
    return true;
}

bool svg_box_meets_segment(const struct svg_canvas *cv, const struct svg_box *b)
{
    for (size_t i = 0; i < cv->n_segments; i++)
        if (segment_meets_box(&cv->segments[i], b))
            return true;
    return false;
}

/* The box of `text` drawn at (x, baseline y) with `anchor` at `font_px`. */
struct svg_box svg_text_box(const char *text, double x, double y, enum svg_anchor anchor, double px)
{
    const double w = gpuplan_svg_text_width_px(text, px);
    const double x0 = anchor == SVG_START ? x : anchor == SVG_MIDDLE ? x - w / 2 : x - w;
    return (struct svg_box){ x0, y - ASCENT_EM * px, x0 + w, y + DESCENT_EM * px };
}

static const char *anchor_name(enum svg_anchor anchor)
{
    return anchor == SVG_START ? "start" : anchor == SVG_MIDDLE ? "middle" : "end";
}

/* <text> of already fitted `text`; `cls` a class ("tick", "label") or NULL. */
void svg_put_text_at(struct svg_canvas *cv,
                     double x,
                     double y,
                     enum svg_anchor anchor,
                     const char *cls,
                     const char *text)
{
    struct gpuplan_buf *out = cv->out;
    gpuplan_buf_puts(out, "<text x=\"");
    svg_num(out, x);
    gpuplan_buf_puts(out, "\" y=\"");
    svg_num(out, y);
    gpuplan_buf_puts(out, "\"");
    if (anchor != SVG_START)
        gpuplan_buf_printf(out, " text-anchor=\"%s\"", anchor_name(anchor));
    if (cls)
        gpuplan_buf_printf(out, " class=\"%s\"", cls);
    gpuplan_buf_puts(out, ">");
    gpuplan_svg_put_text(out, text, GPUPLAN_SVG_MAX_LABEL_BYTES + 4);
    gpuplan_buf_puts(out, "</text>\n");
}

/* Draw `text` (fitted to the chart's width) and mark its box used. */
struct svg_box svg_text(struct svg_canvas *cv,
                        double x,
                        double y,
                        enum svg_anchor anchor,
                        const char *cls,
                        const char *text,
                        double px)
{
    char fitted[GPUPLAN_SVG_MAX_LABEL_BYTES + 8];
    svg_fit_text(fitted, sizeof fitted, text, cv->w - 2 * PAD_PX, px);
    const struct svg_box b = svg_text_box(fitted, x, y, anchor, px);
    svg_box_use(cv, &b, SVG_BOX_TEXT);
    svg_put_text_at(cv, x, y, anchor, cls, fitted);
    return b;
}

const char gpuplan_svg_css[] =
    "svg.gpuplan-chart text{font-family:\"DejaVu Sans\",Verdana,sans-serif;font-size:12px;"
    "fill:#1b1f24}"
    "svg.gpuplan-chart text.title{font-size:14px}"
    "svg.gpuplan-chart text.tick{fill:#444}"
    "svg.gpuplan-chart text.on-dark{fill:#fff}"
    "svg.gpuplan-chart text.halo{paint-order:stroke;stroke:#fff;stroke-width:3px;"
    "stroke-linejoin:round}";

/*
 * Open the <svg>: size, viewBox, role, title, desc and the style every
 * chart shares (the font the widths above are for, the halo that keeps a
 * label readable over a line), then a white background.
 */
void svg_begin(struct svg_canvas *cv, const struct gpuplan_svg_common *c, const char *kind)
{
    struct gpuplan_buf *out = cv->out;
    const bool has_id = c->id && c->id[0];
    gpuplan_buf_puts(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"gpuplan-chart\"");
    if (has_id)
        gpuplan_buf_printf(out, " id=\"%s\"", c->id);
    gpuplan_buf_printf(
        out,
        " data-chart=\"%s\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
        "role=\"img\"",
        kind, cv->w, cv->h, cv->w, cv->h);
    if (has_id) {
        gpuplan_buf_printf(out, " aria-labelledby=\"%s-title", c->id);
        if (c->desc && c->desc[0])
            gpuplan_buf_printf(out, " %s-desc", c->id);
        gpuplan_buf_puts(out, "\"");
    } else {
        gpuplan_buf_puts(out, " aria-label=\"");
        gpuplan_svg_put_text(out, c->title, GPUPLAN_SVG_MAX_LABEL_BYTES);
        gpuplan_buf_puts(out, "\"");
    }
    gpuplan_buf_puts(out, ">\n<title");
    if (has_id)
        gpuplan_buf_printf(out, " id=\"%s-title\"", c->id);
    gpuplan_buf_puts(out, ">");
    gpuplan_svg_put_text(out, c->title, GPUPLAN_SVG_MAX_LABEL_BYTES);
    gpuplan_buf_puts(out, "</title>\n");
    if (c->desc && c->desc[0]) {
        gpuplan_buf_puts(out, "<desc");
        if (has_id)
            gpuplan_buf_printf(out, " id=\"%s-desc\"", c->id);
        gpuplan_buf_puts(out, ">");
        gpuplan_svg_put_text(out, c->desc, 4 * GPUPLAN_SVG_MAX_LABEL_BYTES);
        gpuplan_buf_puts(out, "</desc>\n");
    }
    if (!c->omit_style)
        gpuplan_buf_printf(out, "<style>%s</style>\n", gpuplan_svg_css);
    gpuplan_buf_printf(out, "<rect width=\"%.0f\" height=\"%.0f\" fill=\"#fff\"/>\n", cv->w, cv->h);
    cv->top = PAD_PX;
    if (c->show_title && c->title) {
        svg_text(cv, PAD_PX, cv->top + ASCENT_EM * TITLE_PX, SVG_START, "title", c->title,
                 TITLE_PX);
        cv->top += (ASCENT_EM + DESCENT_EM) * TITLE_PX + 6;
    }
}

void svg_end(struct svg_canvas *cv)
{
    gpuplan_buf_puts(cv->out, "</svg>\n");
}

/* ---- palette and marks ---- */

/*
 * Okabe and Ito, "Color Universal Design" (2008), as in Wong, "Points of
 * view: Color blindness", Nature Methods 8:441 (2011): distinguishable with
 * every common colour-vision deficiency. Lines take the colours with at
 * least 3:1 contrast on white first (WCAG 2.1 1.4.11: blue 5.2, vermillion
 * 3.9, bluish green 3.4, reddish purple 3.1, black 21); orange and sky blue
 * (2.3) come last, and every series also has its own dash and marker shape.
 */
static const char *const series_colour[GPUPLAN_SVG_MAX_SERIES] = {
    "#0072B2", "#D55E00", "#009E73", "#CC79A7", "#000000", "#E69F00", "#56B4E9", "#999999",
};
static const char *const series_dash[GPUPLAN_SVG_MAX_SERIES] = {
    NULL, "7 3", "2 3", "9 3 2 3", "4 4", "12 4", "2 6", "6 2 2 2",
};

const char *svg_series_colour(size_t i)
{
    return series_colour[i % GPUPLAN_SVG_MAX_SERIES];
}

const char *svg_series_dash(size_t i)
{
    return series_dash[i % GPUPLAN_SVG_MAX_SERIES];
}

/* A marker centred on (x, y) of radius r; its <title> is `tip` (or none); the box is used. */
void svg_marker(struct svg_canvas *cv,
                enum svg_shape shape,
                double x,
                double y,
                double r,
                const char *fill,
                const char *stroke,
                const char *tip)
{
    struct gpuplan_buf *out = cv->out;
    if (shape == SVG_CIRCLE) {
        gpuplan_buf_puts(out, "<circle cx=\"");
        svg_num(out, x);
        gpuplan_buf_puts(out, "\" cy=\"");
        svg_num(out, y);
        gpuplan_buf_puts(out, "\" r=\"");
        svg_num(out, r);
        gpuplan_buf_puts(out, "\"");
    } else {
        /* Unit outlines: square, diamond, triangle up, triangle down. */
        static const double square[] = { -0.85, -0.85, 0.85, -0.85, 0.85, 0.85, -0.85, 0.85 };
        static const double diamond[] = { 0, -1.2, 1.2, 0, 0, 1.2, -1.2, 0 };
        static const double up[] = { 0, -1.15, 1.1, 0.8, -1.1, 0.8 };
        static const double down[] = { 0, 1.15, 1.1, -0.8, -1.1, -0.8 };
        const double *pts = shape == SVG_SQUARE    ? square
                            : shape == SVG_DIAMOND ? diamond
                            : shape == SVG_UP      ? up
                                                   : down;
        const size_t n = shape == SVG_SQUARE || shape == SVG_DIAMOND ? 4 : 3;
        gpuplan_buf_puts(out, "<path d=\"");
        for (size_t i = 0; i < n; i++) {
            gpuplan_buf_puts(out, i ? " L" : "M");
            svg_num(out, x + r * pts[2 * i]);
            gpuplan_buf_puts(out, " ");
            svg_num(out, y + r * pts[2 * i + 1]);
        }
        gpuplan_buf_puts(out, " Z\"");
    }
    gpuplan_buf_printf(out, " fill=\"%s\" stroke=\"%s\" stroke-width=\"1.5\"", fill, stroke);
    if (tip && tip[0]) {
        gpuplan_buf_puts(out, "><title>");
        gpuplan_svg_put_text(out, tip, 3 * GPUPLAN_SVG_MAX_LABEL_BYTES);
        gpuplan_buf_puts(out, shape == SVG_CIRCLE ? "</title></circle>\n" : "</title></path>\n");
    } else {
        gpuplan_buf_puts(out, "/>\n");
    }
    const double rr = r * 1.2 + 1;
    const struct svg_box b = { x - rr, y - rr, x + rr, y + rr };
    svg_box_use(cv, &b, SVG_BOX_MARK);
}

enum svg_shape svg_series_shape(size_t i)
{
    static const enum svg_shape shapes[] = { SVG_CIRCLE, SVG_SQUARE, SVG_UP, SVG_DIAMOND,
                                             SVG_DOWN };
    return shapes[i % (sizeof shapes / sizeof shapes[0])];
}

void svg_line(struct gpuplan_buf *out,
              double x1,
              double y1,
              double x2,
              double y2,
              const char *stroke,
              double width,
              const char *dash)
{
    gpuplan_buf_puts(out, "<line x1=\"");
    svg_num(out, x1);
    gpuplan_buf_puts(out, "\" y1=\"");
    svg_num(out, y1);
    gpuplan_buf_puts(out, "\" x2=\"");
    svg_num(out, x2);
    gpuplan_buf_puts(out, "\" y2=\"");
    svg_num(out, y2);
    gpuplan_buf_printf(out, "\" stroke=\"%s\" stroke-width=\"%.1f\"", stroke, width);
    if (dash)
        gpuplan_buf_printf(out, " stroke-dasharray=\"%s\"", dash);
    gpuplan_buf_puts(out, "/>\n");
}

/* ---- legend: entries in rows from cv->top, wrapped to the width ---- */

#define SWATCH_PX      12.0
#define LINE_SWATCH_PX 26.0

void svg_legend(struct svg_canvas *cv, const struct svg_legend_entry *entries, size_t n)
{
    struct gpuplan_buf *out = cv->out;
    const double row_h = (ASCENT_EM + DESCENT_EM) * FONT_PX + 6;
    double x = PAD_PX, y = cv->top;
    bool any = false;
    for (size_t i = 0; i < n; i++) {
        const struct svg_legend_entry *e = &entries[i];
        if (!e->label || !e->label[0])
            continue;
        const double sw = e->kind == SVG_LEGEND_LINE ? LINE_SWATCH_PX : SWATCH_PX;
        char fitted[GPUPLAN_SVG_MAX_LABEL_BYTES + 8];
        svg_fit_text(fitted, sizeof fitted, e->label, cv->w - 2 * PAD_PX - sw - 4, FONT_PX);
        const double item_w = sw + 4 + gpuplan_svg_text_width_px(fitted, FONT_PX);
        if (x > PAD_PX && x + item_w > cv->w - PAD_PX) {
            x = PAD_PX;
            y += row_h;
        }
        if (!any)
            gpuplan_buf_puts(out, "<g class=\"legend\">\n");
        any = true;
        const double mid = y + row_h / 2 - 3;
        if (e->kind == SVG_LEGEND_LINE) {
            svg_line(out, x, mid, x + sw, mid, e->colour, e->width > 0 ? e->width : 2.5, e->dash);
            if (e->has_marker)
                svg_marker(cv, e->shape, x + sw / 2, mid, 4, e->colour, e->colour, NULL);
        } else if (e->kind == SVG_LEGEND_MARKER) {
            svg_marker(cv, e->shape, x + sw / 2, mid, e->radius > 0 ? e->radius : 4.5, e->colour,
                       e->stroke ? e->stroke : e->colour, NULL);
        } else {
            gpuplan_buf_puts(out, "<rect x=\"");
            svg_num(out, x);
            gpuplan_buf_puts(out, "\" y=\"");
            svg_num(out, mid - SWATCH_PX / 2);
            gpuplan_buf_printf(out, "\" width=\"%.0f\" height=\"%.0f\" fill=\"%s\"/>\n", SWATCH_PX,
                               SWATCH_PX, e->colour);
        }
        const double base = mid + (ASCENT_EM - DESCENT_EM) * FONT_PX / 2;
        const struct svg_box b = svg_text_box(fitted, x + sw + 4, base, SVG_START, FONT_PX);
        svg_box_use(cv, &b, SVG_BOX_TEXT);
        svg_put_text_at(cv, x + sw + 4, base, SVG_START, NULL, fitted);
        x += item_w + 14;
    }
    if (any) {
        gpuplan_buf_puts(out, "</g>\n");
        cv->top = y + row_h + 4;
    }
}

/* ---- axes ---- */

double svg_scale_map(const struct svg_scale *s, double v)
{
    const double d = s->is_log ? log10(v) : v;
    if (!(s->d1 > s->d0))
        return s->p0;
    return s->p0 + (d - s->d0) / (s->d1 - s->d0) * (s->p1 - s->p0);
}

/* The 1-2-5 value at or below (down) or above (up) v > 0. */
static double log_bound(double v, bool up)
{
    static const double mant[] = { 1, 2, 5, 10 };
    const double e = floor(log10(v));
    const double p = pow(10, e);
    if (up) {
        for (size_t i = 0; i < 4; i++)
            if (mant[i] * p >= v * (1 - 1e-12))
                return mant[i] * p;
        return 10 * p;
    }
    for (size_t i = 4; i-- > 0;)
        if (mant[i] * p <= v * (1 + 1e-12))
            return mant[i] * p;
    return p;
}

/*
 * Log ticks in [lo, hi] at density `level`: 0 every 1-2-5 value, 1 every
 * power of ten, 2.. every level-th power of ten.
 */
static size_t log_ticks(double lo, double hi, unsigned level, double *ticks, size_t cap)
{
    static const double mant[] = { 1, 2, 5 };
    size_t n = 0;
    const int e0 = (int)floor(log10(lo)), e1 = (int)ceil(log10(hi));
    for (int e = e0; e <= e1 && n < cap; e++) {
        const double p = pow(10, e);
        for (size_t i = 0; i < (level == 0 ? 3u : 1u) && n < cap; i++) {
            const double v = mant[i] * p;
            if (level > 0 && (unsigned)(e - e0) % level != 0)
                continue;
            if (v >= lo * (1 - 1e-12) && v <= hi * (1 + 1e-12))
                ticks[n++] = v;
        }
    }
    return n;
}

static void label_ticks(struct svg_axis_ticks *t, double step, bool is_log)
{
    double max_abs = 0;
    for (size_t i = 0; i < t->n; i++)
        max_abs = fmax(max_abs, fabs(t->ticks[i]));
    for (size_t i = 0; i < t->n; i++)
        gpuplan_svg_format_tick(t->labels[i], sizeof t->labels[i], t->ticks[i],
                                is_log ? fmin(t->ticks[i], 1.0) : step, max_abs);
}

/*
 * Ticks for the data range [lo, hi]: linear, about `target` of them; log, at
 * density `level` (0: 1-2-5 values within 1-2-5 bounds; 1 and more: powers
 * of ten within decade bounds). Sets the scale's domain to the outer ticks,
 * or (tight, linear) to [lo, hi] itself.
 */
static void make_ticks(struct svg_scale *s,
                       double lo,
                       double hi,
                       unsigned target,
                       unsigned level,
                       bool tight,
                       struct svg_axis_ticks *t)
{
    if (s->is_log) {
        double a = log_bound(lo, false), b = log_bound(hi, true);
        if (level > 0) {
            a = pow(10, floor(log10(lo) + 1e-12));
            b = pow(10, ceil(log10(hi) - 1e-12));
        }
        if (!(b > a))
            b = level > 0 ? a * 10 : log_bound(a * 1.5, true);
        t->n = log_ticks(a, b, level, t->ticks, SVG_MAX_TICKS);
        s->d0 = log10(a);
        s->d1 = log10(b);
        label_ticks(t, 1, true);
        return;
    }
    const double step = gpuplan_svg_nice_ticks(lo, hi, target, t->ticks, SVG_MAX_TICKS, &t->n);
    s->d0 = t->ticks[0];
    s->d1 = t->ticks[t->n - 1];
    if (tight) {
        /* The data's own ends; the ticks inside them (a nice range has at least two there). */
        size_t kept = 0;
        for (size_t i = 0; i < t->n; i++)
            if (t->ticks[i] >= lo - step * 1e-9 && t->ticks[i] <= hi + step * 1e-9)
                t->ticks[kept++] = t->ticks[i];
        if (kept >= 2) {
            t->n = kept;
            s->d0 = lo;
            s->d1 = hi;
        }
    }
    label_ticks(t, step, false);
}

/* Whether neighbouring x tick labels keep TICK_GAP_PX apart and inside the chart. */
static bool
x_ticks_fit(const struct svg_canvas *cv, const struct svg_scale *s, const struct svg_axis_ticks *t)
{
    double prev_end = -1e9;
    for (size_t i = 0; i < t->n; i++) {
        const double x = svg_scale_map(s, t->ticks[i]);
        const double w = gpuplan_svg_text_width_px(t->labels[i], FONT_PX);
        if (x - w / 2 < prev_end + TICK_GAP_PX || x - w / 2 < 1 || x + w / 2 > cv->w - 1)
            return false;
        prev_end = x + w / 2;
    }
    return true;
}

static bool y_ticks_fit(const struct svg_scale *s, const struct svg_axis_ticks *t)
{
    const double h = (ASCENT_EM + DESCENT_EM) * FONT_PX + LABEL_GAP_PX;
    for (size_t i = 1; i < t->n; i++)
        if (fabs(svg_scale_map(s, t->ticks[i]) - svg_scale_map(s, t->ticks[i - 1])) < h)
            return false;
    return true;
}

/* The densest ticks that fit: linear targets from `start` down to 2, log levels 0..6. */
static void fit_ticks(const struct svg_canvas *cv,
                      struct svg_scale *s,
                      double lo,
                      double hi,
                      unsigned start,
                      bool is_x,
                      bool tight,
                      struct svg_axis_ticks *t)
{
    for (unsigned k = 0; k < 8; k++) {
        const unsigned target = start > k + 2 ? start - k : 2;
        make_ticks(s, lo, hi, target, k, tight, t);
        if (is_x ? x_ticks_fit(cv, s, t) : y_ticks_fit(s, t))
            return;
    }
}

/* "time to train, h" (label, unit), or just one of them. */
static void axis_title(char *dst, size_t size, const struct gpuplan_svg_axis *a)
{
    const bool has_label = a->label && a->label[0], has_unit = a->unit && a->unit[0];
    snprintf(dst, size, "%s%s%s", has_label ? a->label : "", has_label && has_unit ? ", " : "",
             has_unit ? a->unit : "");
}

/* The range of the data on one axis, widened for 0 and a flat range. */
static void data_range(const struct gpuplan_svg_axis *a, double *lo, double *hi)
{
    if (a->is_log) {
        if (*hi <= *lo)
            *hi = *lo * 2;
        return;
    }
    if (a->from_zero) {
        *lo = fmin(*lo, 0);
        *hi = fmax(*hi, 0);
    }
    if (*hi <= *lo) {
        const double pad = *lo == 0 ? 1 : fabs(*lo) * 0.1;
        *lo -= pad;
        *hi += pad;
    }
}

/*
 * Lay out an x-y plot below cv->top: the y axis title, the ticks of both axes
 * (as dense as fits), the grid, the axes and the x axis title; fills
 * plot->x/y scales and the plot rectangle.
 */
void svg_plot_axes(struct svg_canvas *cv,
                   struct svg_plot *plot,
                   const struct gpuplan_svg_axis *xa,
                   const struct gpuplan_svg_axis *ya,
                   double x_lo,
                   double x_hi,
                   double y_lo,
                   double y_hi)
{
    struct gpuplan_buf *out = cv->out;
    const double line_h = (ASCENT_EM + DESCENT_EM) * FONT_PX;
    char title[2 * GPUPLAN_SVG_MAX_LABEL_BYTES + 8];
    data_range(xa, &x_lo, &x_hi);
    data_range(ya, &y_lo, &y_hi);

    axis_title(title, sizeof title, ya);
    if (title[0]) {
        svg_text(cv, PAD_PX, cv->top + ASCENT_EM * FONT_PX, SVG_START, NULL, title, FONT_PX);
        cv->top += line_h + 4;
    }
    plot->top = cv->top + ASCENT_EM * FONT_PX / 2; /* room for the top tick label */
    axis_title(title, sizeof title, xa);
    plot->bottom = cv->h - PAD_PX - line_h - TICK_LEN_PX - 2 - (title[0] ? line_h + 4 : 0);
    if (plot->bottom < plot->top + 40)
        plot->bottom = plot->top + 40;

    struct svg_axis_ticks *yt = &plot->y_ticks, *xt = &plot->x_ticks;
    plot->y.is_log = ya->is_log;
    plot->y.p0 = plot->bottom;
    plot->y.p1 = plot->top;
    fit_ticks(cv, &plot->y, y_lo, y_hi, (unsigned)fmin(8, fmax(2, (plot->bottom - plot->top) / 40)),
              false, ya->is_tight, yt);
    double widest = 0;
    for (size_t i = 0; i < yt->n; i++)
        widest = fmax(widest, gpuplan_svg_text_width_px(yt->labels[i], FONT_PX));
    plot->left = PAD_PX + widest + TICK_LEN_PX + 4;
    plot->right = cv->w - PAD_PX - 12;
    plot->x.is_log = xa->is_log;
    for (int pass = 0; pass < 2; pass++) {
        plot->x.p0 = plot->left;
        plot->x.p1 = plot->right;
        const double span = plot->right - plot->left;
        fit_ticks(cv, &plot->x, x_lo, x_hi, (unsigned)fmin(10, fmax(2, span / 70)), true,
                  xa->is_tight, xt);
        const double last_w = gpuplan_svg_text_width_px(xt->labels[xt->n - 1], FONT_PX);
        const double right = cv->w - PAD_PX - last_w / 2;
        if (right >= plot->right)
            break;
        plot->right = right;
    }

    gpuplan_buf_puts(out, "<g class=\"axes\">\n");
    for (size_t i = 0; i < yt->n; i++) {
        const double y = svg_scale_map(&plot->y, yt->ticks[i]);
        svg_line(out, plot->left, y, plot->right, y, "#e3e6ea", 1, NULL);
        svg_text(cv, plot->left - TICK_LEN_PX - 3, y + (ASCENT_EM - DESCENT_EM) * FONT_PX / 2,
                 SVG_END, "tick", yt->labels[i], FONT_PX);
    }
    for (size_t i = 0; i < xt->n; i++) {
        const double x = svg_scale_map(&plot->x, xt->ticks[i]);
        svg_line(out, x, plot->top, x, plot->bottom, "#e3e6ea", 1, NULL);
        svg_line(out, x, plot->bottom, x, plot->bottom + TICK_LEN_PX, "#444", 1, NULL);
        svg_text(cv, x, plot->bottom + TICK_LEN_PX + 2 + ASCENT_EM * FONT_PX, SVG_MIDDLE, "tick",
                 xt->labels[i], FONT_PX);
    }
    svg_line(out, plot->left, plot->bottom, plot->right, plot->bottom, "#444", 1, NULL);
    svg_line(out, plot->left, plot->top, plot->left, plot->bottom, "#444", 1, NULL);
    if (title[0])
        svg_text(cv, (plot->left + plot->right) / 2, cv->h - PAD_PX - DESCENT_EM * FONT_PX,
                 SVG_MIDDLE, NULL, title, FONT_PX);
    gpuplan_buf_puts(out, "</g>\n");
}

/* ---- labels placed greedily ---- */

/*
 * Place `text` near the mark at (x, y) of radius r: the first of the eight
 * positions around it (right, left, above, below, then the corners), then
 * the same farther out with a leader line, whose box is inside the limits
 * and keeps LABEL_GAP_PX from every text; tried first where it also misses
 * every mark and line, then every mark, then (`must`) only the texts.
 * Returns whether it was placed (and its box used).
 */
bool svg_place_label(struct svg_canvas *cv,
                     struct svg_label *label,
                     const char *text,
                     double x,
                     double y,
                     double r,
                     bool must)
{
    static const struct {
        double dx, dy; /* unit direction */
        enum svg_anchor anchor;
    } pos[] = {
        { 1, 0, SVG_START },     { -1, 0, SVG_END },       { 0, -1, SVG_MIDDLE },
        { 0, 1, SVG_MIDDLE },    { 0.7, -0.7, SVG_START }, { 0.7, 0.7, SVG_START },
        { -0.7, -0.7, SVG_END }, { -0.7, 0.7, SVG_END },
    };
    svg_fit_text(label->text, sizeof label->text, text, cv->w / 2, FONT_PX);
    if (!label->text[0])
        return false;
    for (int pass = 0; pass < (must ? 3 : 2); pass++) {
        for (int ring = 0; ring < 2; ring++) {
            const double d = r + 4 + ring * 14;
            for (size_t i = 0; i < sizeof pos / sizeof pos[0]; i++) {
                const double ax = x + pos[i].dx * d;
                /* The baseline so that the box's edge (or middle) sits at distance d. */
                double base;
                if (pos[i].dy < 0)
                    base = y + pos[i].dy * d - DESCENT_EM * FONT_PX;
                else if (pos[i].dy > 0)
                    base = y + pos[i].dy * d + ASCENT_EM * FONT_PX;
                else
                    base = y + (ASCENT_EM - DESCENT_EM) * FONT_PX / 2;
                const struct svg_box b =
                    svg_text_box(label->text, ax, base, pos[i].anchor, FONT_PX);
                if (b.x0 < cv->lim.x0 || b.x1 > cv->lim.x1 || b.y0 < cv->lim.y0 ||
                    b.y1 > cv->lim.y1)
                    continue;
                if (!svg_box_free(cv, &b, LABEL_GAP_PX, pass == 2) ||
                    (pass == 0 && svg_box_meets_segment(cv, &b)))
                    continue;
                svg_box_use(cv, &b, SVG_BOX_TEXT);
                label->x = ax;
                label->y = base;
                label->anchor = pos[i].anchor;
                label->has_leader = ring > 0;
                label->leader_x1 = x + pos[i].dx * (r + 1);
                label->leader_y1 = y + pos[i].dy * (r + 1);
                label->leader_x2 = x + pos[i].dx * (d - 2);
                label->leader_y2 = y + pos[i].dy * (d - 2);
                label->is_placed = true;
                return true;
            }
        }
    }
    return false;
}

void svg_put_label(struct svg_canvas *cv, const struct svg_label *label)
{
    if (!label->is_placed)
        return;
    if (label->has_leader)
        svg_line(cv->out, label->leader_x1, label->leader_y1, label->leader_x2, label->leader_y2,
                 "#777", 1, NULL);
    svg_put_text_at(cv, label->x, label->y, label->anchor, "halo", label->text);
}

/* ---- checks shared by the charts ---- */

enum gpuplan_status
svg_check_common(const struct gpuplan_svg_common *c, const char *what, struct gpuplan_error *err)
{
    if (!c->title || !c->title[0])
        return gpuplan_error_set(err, GPUPLAN_ERR_INVALID_INPUT, what, "the chart has no title");
    if (c->id && c->id[0]) {
        const size_t n = strlen(c->id);
        if (n > 48 || strspn(c->id, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                    "0123456789_-") != n)
            return gpuplan_error_set(err, GPUPLAN_ERR_INVALID_INPUT, what,
                                     "chart id '%.64s' must be 1 to 48 of A-Z a-z 0-9 _ -", c->id);
    }
    if (!isfinite(c->width_px) || (c->width_px != 0 && (c->width_px < GPUPLAN_SVG_MIN_WIDTH_PX ||
                                                        c->width_px > GPUPLAN_SVG_MAX_WIDTH_PX)))
        return gpuplan_error_set(err, GPUPLAN_ERR_INVALID_INPUT, what,
                                 "chart width %g px is out of range; must be %d to %d", c->width_px,
                                 GPUPLAN_SVG_MIN_WIDTH_PX, GPUPLAN_SVG_MAX_WIDTH_PX);
    if (!isfinite(c->height_px) ||
        (c->height_px != 0 &&
         (c->height_px < GPUPLAN_SVG_MIN_HEIGHT_PX || c->height_px > GPUPLAN_SVG_MAX_HEIGHT_PX)))
        return gpuplan_error_set(err, GPUPLAN_ERR_INVALID_INPUT, what,
                                 "chart height %g px is out of range; must be %d to %d",
                                 c->height_px, GPUPLAN_SVG_MIN_HEIGHT_PX,
                                 GPUPLAN_SVG_MAX_HEIGHT_PX);
    return GPUPLAN_OK;
}

enum gpuplan_status svg_check_value(double v,
                                    const struct gpuplan_svg_axis *axis,
                                    const char *what,
                                    size_t series,
                                    size_t point,
                                    struct gpuplan_error *err)
{
    if (!isfinite(v))
        return gpuplan_error_set(err, GPUPLAN_ERR_INVALID_INPUT, what,
                                 "value %zu of series %zu is not a finite number", point, series);
    if (axis && axis->is_log && !(v > 0))
        return gpuplan_error_set(err, GPUPLAN_ERR_INVALID_INPUT, what,
                                 "value %zu of series %zu is %g; a log axis needs values > 0",
                                 point, series, v);
    return GPUPLAN_OK;
}
