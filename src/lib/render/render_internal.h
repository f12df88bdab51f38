/*
 * render_internal.h - helpers the renderers share (render_format.c).
 */
#ifndef GPUPLAN_RENDER_INTERNAL_H
#define GPUPLAN_RENDER_INTERNAL_H

#include <stddef.h>

#include "gpuplan/buf.h"

struct gpuplan_estimate;
struct gpuplan_plan;
struct gpuplan_plan_result;
struct gpuplan_plan_serving;
struct json_t;

/* `v` rounded to the nearest multiple of `step` (> 0): what a renderer shows, e.g. 0.01 h. */
double gpuplan_round_to(double v, double step);

/* "$1,234,567": whole dollars, locale-independent, "-$12" below zero (tco, the proposal). */
void gpuplan_format_usd(char *dst, size_t size, double usd);

/* One RFC 4180 record: the cells joined by commas, quoted where they hold a comma, a quote or a
 * line break (quotes doubled), then CRLF (render_format.c). NULL cells are empty. */
void gpuplan_csv_row(struct gpuplan_buf *out, const char *const *cells, size_t n);

/* A capex object: {"total_usd", "lines": [{item, quantity, unit, unit_usd, usd, priced}],
 * "unpriced": [item names]} (render_tco.c; recommend's plans reuse it). */
struct gpuplan_capex;
struct json_t *gpuplan_capex_json(const struct gpuplan_capex *capex);

/* ---- serving (render_serving.c) ---- */

/* An infer estimate's job and engine lines. */
/* "specialty RunPod Secure Cloud, 2026-05": the tier, provider and date of an estimate's rate. */
void gpuplan_estimate_rate_label(const struct gpuplan_estimate *e, char *dst, size_t size);
/* "note: ... has no hyperscaler rate ..." when the rate is another tier's; nothing otherwise. */
void gpuplan_estimate_rate_note(const struct gpuplan_estimate *e, struct gpuplan_buf *out);
void render_serving_job_text(const struct gpuplan_estimate *e, struct gpuplan_buf *out);
/* "GPU KV cache: N tokens, max concurrency X at L tokens", the advice, the engine's log. */
void render_serving_pool_text(const struct gpuplan_estimate *e, struct gpuplan_buf *out);
/* The steady state at the load, the cost, the launch line and the benchmark. */
void render_serving_time_text(const struct gpuplan_estimate *e, struct gpuplan_buf *out);
/* memory.kv_capacity_tokens, memory.max_concurrency, ... into `memory`. */
void render_serving_memory_json(const struct gpuplan_estimate *e, struct json_t *memory);
/* The estimate's "serving" object (new reference). */
struct json_t *render_serving_json(const struct gpuplan_estimate *e);
/* A serving plan's "serving" object (new reference). */
struct json_t *render_plan_serving_json(const struct gpuplan_plan_serving *sv);
/* A serving result's header lines: the load, the targets, the counts. */
void render_plan_serving_header(const struct gpuplan_plan_result *r, struct gpuplan_buf *out);
/* The serving plan table's head (translated), one row, one plan's engine lines. */
const char *render_plan_serving_table_head(void);
void render_plan_serving_row(const struct gpuplan_plan *p, size_t rank, struct gpuplan_buf *out);
void render_plan_serving_details(const struct gpuplan_plan *p, struct gpuplan_buf *out);
#include <jansson.h>

struct gpuplan_buf;
struct gpuplan_config;
struct gpuplan_estimate;

struct gpuplan_job;
/* Every job option as the text gpuplan_job_set reads back, keys with '_' (a plan's "job",
 * an estimate's "job_options"): what `gpuplan emit` plans from (render_format.c). */
json_t *gpuplan_job_options_json(const struct gpuplan_job *job);

/* A config record as JSON: kind, stack, files, model, every note (render_config.c). */
json_t *gpuplan_config_json(const struct gpuplan_config *cfg);
/* Its unknown keys, defaults applied and inexpressible settings as text. */
void gpuplan_config_text(const struct gpuplan_config *cfg, struct gpuplan_buf *out);
/* `gpuplan check`: the estimate's suggestions in the file's vocabulary. */
json_t *gpuplan_check_changes_json(const struct gpuplan_estimate *est,
                                   const struct gpuplan_config *cfg);
void gpuplan_check_changes_text(const struct gpuplan_estimate *est,
                                const struct gpuplan_config *cfg,
                                struct gpuplan_buf *out);

#endif
