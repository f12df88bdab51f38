/*
 * svg_draw_internal.h - the drawing kit of the charts (svg.c), shared by
 * svg_chart.c: a canvas that writes SVG into a buffer and remembers the box
 * of every text and marker drawn, so that later labels go where nothing is.
 * Coordinates are SVG user units (px at scale 1), y downwards.
 */
#ifndef GPUPLAN_SVG_DRAW_INTERNAL_H
#define GPUPLAN_SVG_DRAW_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "render/svg_internal.h"

/* Every text and marker of the biggest chart (512 points, 64 ticks, a legend) fits. */
#define SVG_MAX_BOXES 2048
/* Every line segment of the biggest chart (8 series of 512 points) fits. */
#define SVG_MAX_SEGMENTS 4200

struct svg_box {
    double x0, y0, x1, y1; /* x0 <= x1, y0 <= y1 */
};

/* What a used box holds: labels never overlap a text; they avoid marks and lines if they can. */
enum svg_box_kind { SVG_BOX_TEXT, SVG_BOX_MARK };

struct svg_segment {
    double x1, y1, x2, y2;
};

struct svg_canvas {
    struct gpuplan_buf *out;
    double w, h;        /* the viewBox */
    double top;         /* where the next block (legend, axis title) goes */
    struct svg_box lim; /* where placed labels may go */
    size_t n_boxes;     /* used boxes */
    struct svg_box boxes[SVG_MAX_BOXES];
    unsigned char box_kind[SVG_MAX_BOXES]; /* enum svg_box_kind */
    size_t n_segments;                     /* lines drawn in the plot */
    struct svg_segment segments[SVG_MAX_SEGMENTS];
};

enum svg_anchor { SVG_START, SVG_MIDDLE, SVG_END };
enum svg_shape { SVG_CIRCLE, SVG_SQUARE, SVG_UP, SVG_DIAMOND, SVG_DOWN };

/* A heap canvas (about 200 KiB of boxes and segments: never on a thread's stack); free() it. */
struct svg_canvas *svg_canvas_new(struct gpuplan_buf *out, double w, double h);

/* Whether `b` keeps `gap` from every used text box (and mark box, unless texts_only). */
bool svg_box_free(const struct svg_canvas *cv,
                  const struct svg_box *b,
                  double gap,
                  bool texts_only);
void svg_box_use(struct svg_canvas *cv, const struct svg_box *b, enum svg_box_kind kind);
/* Remember a line of the plot, for labels to avoid. */
void svg_segment_use(struct svg_canvas *cv, double x1, double y1, double x2, double y2);
bool svg_box_meets_segment(const struct svg_canvas *cv, const struct svg_box *b);
struct svg_box
svg_text_box(const char *text, double x, double y, enum svg_anchor anchor, double font_px);

void svg_num(struct gpuplan_buf *out, double v);
void svg_format_value(char *dst, size_t size, double v);
void svg_fit_text(char *dst, size_t size, const char *text, double max_px, double font_px);

/* The <svg> with title, desc, style and background; draws the title when asked (cv->top below). */
void svg_begin(struct svg_canvas *cv, const struct gpuplan_svg_common *c, const char *kind);
void svg_end(struct svg_canvas *cv);

void svg_put_text_at(struct svg_canvas *cv,
                     double x,
                     double y,
                     enum svg_anchor anchor,
                     const char *cls,
                     const char *text);
/* `text` fitted to the chart's width, drawn, its box used; the box. */
struct svg_box svg_text(struct svg_canvas *cv,
                        double x,
                        double y,
                        enum svg_anchor anchor,
                        const char *cls,
                        const char *text,
                        double font_px);
void svg_line(struct gpuplan_buf *out,
              double x1,
              double y1,
              double x2,
              double y2,
              const char *stroke,
              double width,
              const char *dash);
void svg_marker(struct svg_canvas *cv,
                enum svg_shape shape,
                double x,
                double y,
                double r,
                const char *fill,
                const char *stroke,
                const char *tip);

/* The palette (Okabe-Ito), a dash and a marker shape for series i. */
const char *svg_series_colour(size_t i);
const char *svg_series_dash(size_t i); /* NULL: solid */
enum svg_shape svg_series_shape(size_t i);

enum svg_legend_kind { SVG_LEGEND_SWATCH, SVG_LEGEND_LINE, SVG_LEGEND_MARKER };
struct svg_legend_entry {
    enum svg_legend_kind kind;
    const char *label; /* NULL or "": left out */
    const char *colour;
    const char *stroke; /* marker outline; NULL: colour */
    const char *dash;   /* line */
    double width;       /* line width; 0: 2.5 */
    bool has_marker;    /* line with a marker in the middle */
    enum svg_shape shape;
    double radius; /* marker; 0: 4.5 */
};
/* Entries in rows from cv->top, wrapped to the width; cv->top moves below them. */
void svg_legend(struct svg_canvas *cv, const struct svg_legend_entry *entries, size_t n);

struct svg_scale {
    bool is_log;
    double d0, d1; /* the domain (log10 of it on a log axis) */
    double p0, p1; /* the pixels it maps to */
};
double svg_scale_map(const struct svg_scale *s, double v);

#define SVG_MAX_TICKS 64
struct svg_axis_ticks {
    double ticks[SVG_MAX_TICKS];
    char labels[SVG_MAX_TICKS][32];
    size_t n;
};

struct svg_plot {
    double left, right, top, bottom; /* the plot rectangle */
    struct svg_scale x, y;
    struct svg_axis_ticks x_ticks, y_ticks;
};
/*
 * The axes of an x-y plot below cv->top over the data range [x_lo, x_hi] x
 * [y_lo, y_hi]: y axis title, ticks as dense as fits without overlap, grid,
 * axis lines, x axis title.
 */
void svg_plot_axes(struct svg_canvas *cv,
                   struct svg_plot *plot,
                   const struct gpuplan_svg_axis *xa,
                   const struct gpuplan_svg_axis *ya,
                   double x_lo,
                   double x_hi,
                   double y_lo,
                   double y_hi);

struct svg_label {
    char text[GPUPLAN_SVG_MAX_LABEL_BYTES + 8];
    bool is_placed, has_leader;
    double x, y;
    enum svg_anchor anchor;
    double leader_x1, leader_y1, leader_x2, leader_y2;
};
/*
 * Place `text` by the mark at (x, y) of radius r where nothing is (svg.c);
 * `must`: over other marks rather than not at all. Whether it was placed.
 */
bool svg_place_label(struct svg_canvas *cv,
                     struct svg_label *label,
                     const char *text,
                     double x,
                     double y,
                     double r,
                     bool must);
void svg_put_label(struct svg_canvas *cv, const struct svg_label *label);

enum gpuplan_status
svg_check_common(const struct gpuplan_svg_common *c, const char *what, struct gpuplan_error *err);
enum gpuplan_status svg_check_value(double v,
                                    const struct gpuplan_svg_axis *axis,
                                    const char *what,
                                    size_t series,
                                    size_t point,
                                    struct gpuplan_error *err);

#endif
