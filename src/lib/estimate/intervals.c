/*
 * intervals.c - the ranges on an estimate's figures and the three-way fit
 * verdict (estimate.h).
 *
 * The intervals are validation/intervals-{memory,throughput}.csv, compiled
 * in (tools/embed.c): for each class stack|method|kind, the split-conformal
 * 80 % interval of the out-of-sample predictions of `make accuracy` (each
 * source family's rows predicted with the constants refitted without it),
 * with the source family as the exchangeable unit and a class of fewer than
 * 4 families pooled into its parent (tools/scoring.h; Lei et al. 2018,
 * Lee, Barber & Willett 2023), as measured / predicted factors
 * [e^-q, e^q]. Nothing here is fitted: the table is `make intervals`'
 * output and `make check` fails while it is stale.
 *
 * Not here: how the intervals are computed (tools/scoring.h), rendering.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/embedded_data_internal.h"
#include "gpuplan/estimate.h"
#include "gpuplan/units.h"

/* Columns of the interval files (tools/scoring.h sc_write_intervals). */
enum {
    COL_QUANTITY = 0,
    COL_LEVEL,
    COL_CLASS,
    COL_N_ROWS,
    COL_BOUNDS_FROM,
    COL_N_USED,
    COL_N_SOURCES,
    COL_SCORE_Q,
    COL_ERR_LOW,
    COL_ERR_HIGH,
    COL_FACTOR_LOW,
    COL_FACTOR_HIGH,
    COL_COUNT_MIN = COL_FACTOR_HIGH + 1
};
#define MAX_FIELD 64
#define MAX_COLS  16

/* Split one CSV line (no quoting in these files) into fields; returns the count. */
static size_t split_line(const char *line, size_t len, char fields[MAX_COLS][MAX_FIELD])
{
    size_t n = 0, k = 0;
    for (size_t i = 0; i <= len && n < MAX_COLS; i++) {
        if (i == len || line[i] == ',') {
            fields[n][k] = '\0';
            n++;
            k = 0;
        } else if (k + 1 < MAX_FIELD) {
            fields[n][k++] = line[i];
        }
    }
    return n;
}

/* The row of `file` for `quantity` and `cls`, into `out` (true when found). */
static bool find_row(const struct gpuplan_embedded_file *file,
                     const char *quantity,
                     const char *cls,
                     struct gpuplan_interval *out)
{
    const char *p = (const char *)file->bytes;
    const char *end = p + file->len;
    char f[MAX_COLS][MAX_FIELD];
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
        const size_t n = split_line(p, len, f);
        p = nl ? nl + 1 : end;
        if (n < COL_COUNT_MIN || strcmp(f[COL_QUANTITY], quantity) != 0 ||
            strcmp(f[COL_CLASS], cls) != 0)
            continue;
        char *e1 = NULL, *e2 = NULL;
        const double lo = strtod(f[COL_FACTOR_LOW], &e1);
        const double hi = strtod(f[COL_FACTOR_HIGH], &e2);
        if (*e1 || *e2 || !isfinite(lo) || !isfinite(hi) || lo <= 0.0 || hi < lo)
            continue; /* a malformed row is no interval */
        out->has = true;
        (void)snprintf(out->bounds_from, sizeof out->bounds_from, "%s", f[COL_BOUNDS_FROM]);
        out->n_rows = (uint32_t)strtoul(f[COL_N_ROWS], NULL, 10);
        out->n_used = (uint32_t)strtoul(f[COL_N_USED], NULL, 10);
        out->factor_low = lo;
        out->factor_high = hi;
        return true;
    }
    return false;
}

bool gpuplan_interval_find(const char *quantity,
                           const char *stack,
                           const char *method,
                           const char *kind,
                           struct gpuplan_interval *out)
{
    memset(out, 0, sizeof *out);
    (void)snprintf(out->class_name, sizeof out->class_name, "%s|%s|%s", stack, method, kind);
    const struct gpuplan_embedded_file *file = gpuplan_embedded_find(
        strcmp(quantity, "memory") == 0 ? "intervals-memory.csv" : "intervals-throughput.csv");
    if (!file)
        return false;
    char cls[3][64];
    (void)snprintf(cls[0], sizeof cls[0], "*|%s|%s", method, kind);
    (void)snprintf(cls[1], sizeof cls[1], "*|*|%s", kind);
    (void)snprintf(cls[2], sizeof cls[2], "*|*|*");
    if (find_row(file, quantity, out->class_name, out))
        return true;
    /* A class the validation rows do not have: the coarser classes, as the scorer backs off. */
    for (size_t i = 0; i < 3; i++) {
        if (find_row(file, quantity, cls[i], out)) {
            out->n_rows = 0;
            return true;
        }
    }
    return false;
}

const char *gpuplan_fit_verdict_label(enum gpuplan_fit_verdict v)
{
    static const char *const labels[GPUPLAN_VERDICT_COUNT] = { "FITS", "MAY NOT FIT",
                                                               "DOES NOT FIT" };
    return (unsigned)v < GPUPLAN_VERDICT_COUNT ? labels[v] : "?";
}

const char *gpuplan_fit_verdict_name(enum gpuplan_fit_verdict v)
{
    static const char *const names[GPUPLAN_VERDICT_COUNT] = { "fits", "may-not-fit",
                                                              "does-not-fit" };
    return (unsigned)v < GPUPLAN_VERDICT_COUNT ? names[v] : "?";
}

static uint64_t scaled(uint64_t bytes, double factor)
{
    return gpuplan_bytes_from_double((double)bytes * factor);
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

void gpuplan_memory_ranges_fill(const struct gpuplan_memory_estimate *m,
                                const struct gpuplan_interval *allocated,
                                const struct gpuplan_interval *reserved,
                                struct gpuplan_estimate_ranges *out)
{
    const struct gpuplan_memory_per_gpu *g = &m->per_gpu;
    out->allocated = *allocated;
    out->reserved = *reserved;
    out->has_memory = true;
    out->peak_allocated_low_bytes = scaled(g->peak_allocated_bytes, allocated->factor_low);
    out->peak_allocated_high_bytes = scaled(g->peak_allocated_bytes, allocated->factor_high);
    out->peak_reserved_low_bytes = scaled(g->peak_reserved_bytes, reserved->factor_low);
    out->peak_reserved_high_bytes = scaled(g->peak_reserved_bytes, reserved->factor_high);
    /* the allocator reserves at least what it allocated */
    if (out->peak_reserved_low_bytes < out->peak_allocated_low_bytes)
        out->peak_reserved_low_bytes = out->peak_allocated_low_bytes;
    if (out->peak_reserved_high_bytes < out->peak_allocated_high_bytes)
        out->peak_reserved_high_bytes = out->peak_allocated_high_bytes;
    /* context, NCCL buffers and managed memory lie outside the allocator: not scaled */
    const uint64_t outside = g->device_total_bytes > g->peak_reserved_bytes
                                 ? g->device_total_bytes - g->peak_reserved_bytes
                                 : 0;
    out->device_total_low_bytes = sat_add(out->peak_reserved_low_bytes, outside);
    out->device_total_high_bytes = sat_add(out->peak_reserved_high_bytes, outside);
    out->has_verdict = false;
    out->over_bytes = 0;
    if (!m->has_gpu)
        return;
    out->has_verdict = true;
    const uint64_t usable = m->gpu_usable_bytes;
    if (out->device_total_high_bytes <= usable) {
        out->verdict = GPUPLAN_VERDICT_FITS;
    } else if (out->device_total_low_bytes > usable) {
        out->verdict = GPUPLAN_VERDICT_DOES_NOT_FIT;
    } else {
        out->verdict = GPUPLAN_VERDICT_MAY_NOT_FIT;
        const uint64_t over = out->device_total_high_bytes - usable;
        out->over_bytes = over > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)over;
    }
}

void gpuplan_estimate_ranges_fill(const struct gpuplan_estimate *e,
                                  struct gpuplan_estimate_ranges *out)
{
    memset(out, 0, sizeof *out);
    if (e->is_serving)
        return; /* the serving figures are scored by tools/accuracy_serving.c, no intervals yet */
    const char *stack = gpuplan_framework_name(e->job.stack);
    const char *method = gpuplan_method_name(e->job.method);
    struct gpuplan_interval allocated, reserved;
    if (gpuplan_interval_find("memory", stack, method, "allocated", &allocated) &&
        gpuplan_interval_find("memory", stack, method, "reserved", &reserved))
        gpuplan_memory_ranges_fill(&e->memory.est, &allocated, &reserved, out);
    if (e->has_throughput &&
        gpuplan_interval_find("throughput", stack, method, "-", &out->throughput)) {
        const struct gpuplan_throughput *t = &e->throughput;
        const struct gpuplan_interval *iv = &out->throughput;
        out->has_throughput = true;
        out->tokens_per_s_per_gpu_low = t->tokens_per_s_per_gpu * iv->factor_low;
        out->tokens_per_s_per_gpu_high = t->tokens_per_s_per_gpu * iv->factor_high;
        out->step_time_s_low = t->step_time_s / iv->factor_high;
        out->step_time_s_high = t->step_time_s / iv->factor_low;
        if (t->has_train_time) {
            out->has_train_time = true;
            out->train_hours_low = t->train_hours / iv->factor_high;
            out->train_hours_high = t->train_hours / iv->factor_low;
        }
    }
}
