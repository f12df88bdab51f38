/*
 * render_internal.h - helpers the renderers share (render_format.c).
 */
#ifndef GPUPLAN_RENDER_INTERNAL_H
#define GPUPLAN_RENDER_INTERNAL_H

/* `v` rounded to the nearest multiple of `step` (> 0): what a renderer shows, e.g. 0.01 h. */
double gpuplan_round_to(double v, double step);

#endif
