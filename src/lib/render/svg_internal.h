/*
 * svg_internal.h - the charts of the proposal document and the web page, as
 * self-contained SVG (svg.c: text, axes, label placement, the x-y plot;
 * svg_chart.c: the four charts).
 *
 * Every chart is a pure function of plain arrays: it computes nothing about
 * plans or costs, reads no clock or locale, and writes the same bytes for the
 * same input (coordinates with one decimal, values with fixed formats), so
 * golden files stay stable and the CLI's HTML and the page (through the
 * server) show the same picture. The output is one <svg> element: a viewBox
 * with width and height (it scales down to its container), <title> and
 * <desc> for screen readers, a colour-blind-safe palette (Okabe and Ito) with
 * a second cue (dash or marker shape) for every series, text labels that do
 * not overlap (each is placed greedily among the boxes already used, or left
 * out and kept as the point's tooltip), no script, no external asset.
 * Every label is escaped (XML text), cut to GPUPLAN_SVG_MAX_LABEL_BYTES and
 * to the width it has. Labels and units come from the caller, translated:
 * the charts hold no words of their own.
 *
 * Errors: GPUPLAN_ERR_INVALID_INPUT for a value that is not finite, a
 * negative size, a value <= 0 on a log axis, nothing to draw;
 * GPUPLAN_ERR_TOO_LARGE for more items than the caps below; the buffer's
 * GPUPLAN_ERR_NOMEM/TOO_LARGE. Nothing is written on an input error.
 * docs/charts.md describes the pictures and the design decisions.
 */
#ifndef GPUPLAN_SVG_INTERNAL_H
#define GPUPLAN_SVG_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "gpuplan/buf.h"
#include "gpuplan/error.h"

#define GPUPLAN_SVG_DEFAULT_WIDTH_PX  640 /* fits A4 and Letter print width (186 mm = 703 px) */
#define GPUPLAN_SVG_DEFAULT_HEIGHT_PX 360
#define GPUPLAN_SVG_MIN_WIDTH_PX      240
#define GPUPLAN_SVG_MAX_WIDTH_PX      2000
#define GPUPLAN_SVG_MIN_HEIGHT_PX     160
#define GPUPLAN_SVG_MAX_HEIGHT_PX     2000
#define GPUPLAN_SVG_MAX_LABEL_BYTES                                                           \
    160                             /* longer labels are cut at a character, with an ellipsis \
                                     */
#define GPUPLAN_SVG_MAX_SERIES  8   /* lines or curves in one chart: the palette's size */
#define GPUPLAN_SVG_MAX_POINTS  512 /* points of one series, or of a scatter */
#define GPUPLAN_SVG_MAX_BARS    16  /* GPUs in one memory chart */
#define GPUPLAN_SVG_MAX_TARGETS 4   /* target lines in one latency chart */
#define GPUPLAN_SVG_FONT_PX     12  /* every label, tick and legend entry */

/* What every chart has. */
struct gpuplan_svg_common {
    const char *id;    /* the <svg>'s id, [A-Za-z0-9_-]{1,48}, or NULL (then aria-label) */
    const char *title; /* <title>, required: e.g. "Memory per GPU" */
    const char *desc;  /* <desc>: a sentence saying what it shows, or NULL */
    bool show_title;   /* also draw the title above the chart (for a standalone file) */
    bool omit_style;   /* no <style>: the host page has gpuplan_svg_css (doc.c's does) */
    double width_px;   /* 0: GPUPLAN_SVG_DEFAULT_WIDTH_PX */
    double height_px;  /* 0: the default (x-y charts; the memory chart's height follows its bars) */
};

/* An axis of an x-y chart. */
struct gpuplan_svg_axis {
    const char *label; /* e.g. "time to train"; NULL none */
    const char *unit;  /* e.g. "h"; shown as "time to train, h" and after values; NULL none */
    bool is_log;       /* log10 scale: every value must be > 0 */
    bool from_zero;    /* linear: the range starts at 0 (or ends there for negative data) */
    bool is_tight;     /* linear: the axis ends at the data (36 months), not at the next tick */
};

/* ---- stacked memory bar: one bar per GPU ---- */

enum gpuplan_svg_mem_part {
    GPUPLAN_SVG_MEM_WEIGHTS = 0,
    GPUPLAN_SVG_MEM_GRADIENTS,
    GPUPLAN_SVG_MEM_OPTIMIZER,
    GPUPLAN_SVG_MEM_ACTIVATIONS,
    GPUPLAN_SVG_MEM_ADAPTERS,
    GPUPLAN_SVG_MEM_KV_CACHE,
    GPUPLAN_SVG_MEM_OVERHEAD,
    GPUPLAN_SVG_MEM_CUDA_CONTEXT,
    GPUPLAN_SVG_MEM_PART_COUNT
};

struct gpuplan_svg_mem_bar {
    const char *label;                           /* e.g. "GPU 0: H100 SXM" */
    double part_gib[GPUPLAN_SVG_MEM_PART_COUNT]; /* >= 0, in GiB (2^30 bytes) */
    double usable_gib;                           /* > 0: the usable-memory line */
    bool has_total;           /* the peak is not the parts' sum (not all live at once) */
    double total_gib;         /* then: the figure the label shows, and a diamond under the bar */
    bool has_range;           /* draw the peak's low-high whisker under the bar */
    double low_gib, high_gib; /* 0 <= low <= high, when has_range */
};

struct gpuplan_svg_mem_chart {
    struct gpuplan_svg_common common;
    const char *part_labels[GPUPLAN_SVG_MEM_PART_COUNT]; /* legend, e.g. "weights"; NULL: "" */
    const char *usable_label;                            /* legend of the line: "usable memory" */
    const char *range_label;                             /* legend of the whisker: "peak range" */
    const char *total_label;                             /* legend of the diamond: "peak" */
    const char *axis_label;                              /* e.g. "memory per GPU" */
    const char *unit;                                    /* e.g. "GiB" */
    const struct gpuplan_svg_mem_bar *bars;              /* borrowed, n_bars of them */
    size_t n_bars;                                       /* 1..GPUPLAN_SVG_MAX_BARS */
};

/*
 * Horizontal bars, one per GPU: above each its label and "total / usable
 * UNIT" (total: total_gib, else the parts' sum), below the segments in part
 * order (each with its value when it fits, and a tooltip), a vertical line
 * at the usable memory, under the bar the whisker of the range and the
 * diamond of the total; the legend lists the parts that are not zero in any
 * bar and the marks that are drawn.
 */
enum gpuplan_status gpuplan_svg_memory(const struct gpuplan_svg_mem_chart *chart,
                                       struct gpuplan_buf *out,
                                       struct gpuplan_error *err);

/* ---- time vs cost scatter: one point per plan ---- */

struct gpuplan_svg_point {
    double x, y;       /* e.g. hours, USD */
    const char *label; /* drawn next to the point when there is room; always its tooltip */
    bool is_pareto;    /* on the Pareto front: filled marker, joined by the front line */
    bool is_highlight; /* the recommendation: larger marker, labelled first */
};

struct gpuplan_svg_scatter {
    struct gpuplan_svg_common common;
    struct gpuplan_svg_axis x, y;
    const struct gpuplan_svg_point *points; /* borrowed */
    size_t n_points;                        /* 1..GPUPLAN_SVG_MAX_POINTS */
    bool draw_front;                        /* a step line through the Pareto points by x */
    const char *pareto_label;               /* legend: "Pareto set"; NULL: no entry */
    const char *other_label;                /* legend: "other plans"; NULL: no entry */
    const char *highlight_label;            /* legend: "recommended"; NULL: no entry */
};

enum gpuplan_status gpuplan_svg_scatter(const struct gpuplan_svg_scatter *chart,
                                        struct gpuplan_buf *out,
                                        struct gpuplan_error *err);

/* ---- cumulative cost over months: own vs cloud ---- */

struct gpuplan_svg_line {
    const char *label; /* legend: "own", "cloud" */
    const double *y;   /* borrowed, n_points values at x = x_start + i * x_step */
    size_t n_points;   /* 2..GPUPLAN_SVG_MAX_POINTS */
};

struct gpuplan_svg_cost_chart {
    struct gpuplan_svg_common common;
    struct gpuplan_svg_axis x, y;         /* e.g. "months"; "cumulative cost", "USD" */
    double x_start, x_step;               /* e.g. 0 and 1 (months) */
    const struct gpuplan_svg_line *lines; /* borrowed */
    size_t n_lines;                       /* 1..GPUPLAN_SVG_MAX_SERIES */
    bool has_break_even;
    double break_even_x;          /* e.g. 14.2 (months) */
    const char *break_even_label; /* e.g. "break-even": drawn as "break-even 14.2 months" */
};

enum gpuplan_status gpuplan_svg_cost(const struct gpuplan_svg_cost_chart *chart,
                                     struct gpuplan_buf *out,
                                     struct gpuplan_error *err);

/* ---- latency vs throughput for serving ---- */

struct gpuplan_svg_curve {
    const char *label;               /* legend: e.g. "vLLM, 2 x H100" */
    const double *x, *y;             /* borrowed, n_points each: e.g. tokens/s per GPU, TPOT ms */
    const char *const *point_labels; /* NULL, or n_points labels (NULL entries: none): "c=16" */
    size_t n_points;                 /* 1..GPUPLAN_SVG_MAX_POINTS */
};

struct gpuplan_svg_target {
    const char *label; /* e.g. "TPOT target": drawn as "TPOT target 50 ms" */
    double value;      /* on the y axis, or on the x axis when is_vertical */
    bool is_vertical;  /* a required throughput rather than a latency limit */
};

struct gpuplan_svg_latency_chart {
    struct gpuplan_svg_common common;
    struct gpuplan_svg_axis x, y;
    const struct gpuplan_svg_curve *curves; /* borrowed */
    size_t n_curves;                        /* 1..GPUPLAN_SVG_MAX_SERIES */
    const struct gpuplan_svg_target *targets;
    size_t n_targets; /* 0..GPUPLAN_SVG_MAX_TARGETS */
};

enum gpuplan_status gpuplan_svg_latency(const struct gpuplan_svg_latency_chart *chart,
                                        struct gpuplan_buf *out,
                                        struct gpuplan_error *err);

/*
 * The charts' CSS (each <svg> carries it in a <style> unless omit_style):
 * the font the label widths are measured for, text colours, the halo that
 * keeps a label readable over a line. Scoped to svg.gpuplan-chart, so it
 * wins over a page's "svg text" rules. Static.
 */
extern const char gpuplan_svg_css[];

/* ---- pieces the charts (and tests) share: svg.c ---- */

/*
 * The width in px of `text` (UTF-8) at `font_px` in DejaVu Sans, an upper
 * bound for Verdana too: the advance widths of tools/font_widths.py, the
 * widest of the tables for any other character; invalid bytes count as U+FFFD.
 */
double gpuplan_svg_text_width_px(const char *text, double font_px);

/*
 * Append `text` as XML character data or an attribute value: < > & "
 * escaped, C0 controls and DEL as spaces, bytes that are not UTF-8 as
 * U+FFFD, at most `max_bytes` bytes of `text` read (cut at a character).
 */
void gpuplan_svg_put_text(struct gpuplan_buf *out, const char *text, size_t max_bytes);

/*
 * The same for `len` bytes of `text` (NUL bytes are U+FFFD), keeping line
 * feeds and tabs when `keep_lines` (a code block) and dropping carriage
 * returns then; the HTML of doc.c writes every string through it.
 */
void gpuplan_xml_put_span(struct gpuplan_buf *out, const char *text, size_t len, bool keep_lines);

/*
 * Nice ticks for [lo, hi] (lo < hi), linear: steps of 1, 2 or 5 x 10^k,
 * about `target` of them (>= 2), the first <= lo and the last >= hi
 * (Heckbert, "Nice numbers for graph labels", Graphics Gems, 1990). Fills
 * ticks[0..*n) (at most `cap`) and returns the step.
 */
double
gpuplan_svg_nice_ticks(double lo, double hi, unsigned target, double *ticks, size_t cap, size_t *n);

/*
 * A tick value as text, the same way on every tick of an axis whose largest
 * magnitude is `axis_max_abs`: below 10^4, grouped thousands and the decimals
 * `step` needs ("2,500", "0.25"); from 10^4, a k/M/G/T suffix (10^3..10^12)
 * with the decimals the step needs at that scale, trailing zeros dropped
 * ("12.5k", "40k").
 */
void gpuplan_svg_format_tick(char *dst, size_t size, double v, double step, double axis_max_abs);

#endif
