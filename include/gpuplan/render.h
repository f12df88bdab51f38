/*
 * render.h - renderers: results and catalog listings into a caller's buffer.
 *
 * Renderers live in the library so the CLI and the HTTP service emit
 * byte-identical output. Each appends to `out` (see buf.h) and returns
 * GPUPLAN_OK or the buffer's sticky failure. Output is deterministic: no
 * locale, fixed number formats, JSON keys sorted.
 */
#ifndef GPUPLAN_RENDER_H
#define GPUPLAN_RENDER_H

#include "gpuplan/buf.h"
#include "gpuplan/catalog.h"
#include "gpuplan/error.h"

enum gpuplan_format {
    GPUPLAN_FORMAT_TEXT, /* aligned table for a terminal */
    GPUPLAN_FORMAT_JSON, /* {"schema_version":1, ...}, 2-space indent, sorted keys */
    GPUPLAN_FORMAT_CSV,  /* RFC 4180, header row first */
    GPUPLAN_FORMAT_MD,   /* GitHub-flavoured Markdown table */
    GPUPLAN_FORMAT_HTML  /* a <table> fragment */
};

/* "text", "json", "csv", "md" (or "markdown"), "html"; GPUPLAN_ERR_USAGE otherwise. */
enum gpuplan_status
gpuplan_format_parse(const char *name, enum gpuplan_format *out, struct gpuplan_error *err);

/*
 * The GPU catalog, one row per GPU with its source. JSON carries every field
 * with units in the key names: {"schema_version":1,"gpus":[...]}.
 */
enum gpuplan_status gpuplan_render_gpus(const struct gpuplan_catalog *catalog,
                                        enum gpuplan_format format,
                                        struct gpuplan_buf *out,
                                        struct gpuplan_error *err);

/* The model catalog; JSON: {"schema_version":1,"models":[...]} with each config object. */
enum gpuplan_status gpuplan_render_models(const struct gpuplan_catalog *catalog,
                                          enum gpuplan_format format,
                                          struct gpuplan_buf *out,
                                          struct gpuplan_error *err);

/* Other renderers are declared below. */

/* ---- time and money (render_tco.c) ---- */

struct gpuplan_cost_inputs;
struct gpuplan_tco;
struct gpuplan_throughput;
struct json_t;

/*
 * `gpuplan tco`: the inputs with their origin (catalog, assumption, user),
 * monthly own vs cloud, break-even, and the cumulative cost chart (text: a
 * character plot; HTML: a fragment with an inline SVG). JSON (sorted keys):
 * {"schema_version":1, "gpu", "n_gpus", "n_servers", "inputs":{KEY:{value,
 * unit, origin, note}}, "capex_usd", "monthly_usd":{"own","cloud",
 * "depreciation","energy","maintenance","colocation"}, "break_even_months"
 * (null: never within the period), "break_even_hours_per_day" (null: not
 * even at 24), "cumulative_usd":{"own":[...],"cloud":[...]}}.
 * CSV and MD fall back to text. GPUPLAN_ERR_NOMEM/TOO_LARGE from the buffer.
 */
enum gpuplan_status gpuplan_render_tco(const struct gpuplan_cost_inputs *in,
                                       const struct gpuplan_tco *tco,
                                       enum gpuplan_format format,
                                       struct gpuplan_buf *out,
                                       struct gpuplan_error *err);

/*
 * Add a throughput result to a jansson object `obj` as the keys
 * "throughput" {tokens_per_s_per_gpu, tokens_per_s, step_time_s, mfu,
 * bottleneck, compute_s, memory_s, comm_s, offload_s, flops_per_token,
 * efficiency, achieved_tflops, ...; for inference ttft_s,
 * decode_tokens_per_s, decode_tokens_per_s_per_seq, prefill_tokens_per_s}
 * and "time" {train_hours, train_tokens} (null when no --tokens).
 * Returns GPUPLAN_ERR_NOMEM when jansson fails.
 */
enum gpuplan_status gpuplan_render_throughput_json_into(const struct gpuplan_throughput *t,
                                                        struct json_t *obj,
                                                        struct gpuplan_error *err);

/* Append an aligned text block ("throughput:" ...) for a throughput result. */
void gpuplan_render_throughput_text(const struct gpuplan_throughput *t, struct gpuplan_buf *out);

/* ---- memory estimate (render_estimate.c) ---- */

struct gpuplan_model;
struct gpuplan_job;
struct gpuplan_memory_report;

/*
 * `gpuplan estimate`: the job, a per-GPU breakdown table, host RAM, the
 * verdict with headroom against usable memory, and suggestions. JSON (sorted
 * keys): {"schema_version":1, "model", "job":{...}, "gpu", "n_gpus",
 * "memory":{"per_gpu":{weights_bytes, gradients_bytes, optimizer_bytes,
 * activations_bytes, adapters_bytes, kv_cache_bytes, overhead_bytes,
 * cuda_context_bytes, peak_allocated_bytes, peak_reserved_bytes,
 * device_total_bytes}, "host":{"ram_bytes"}}, "fits" (absent without a GPU),
 * "headroom_bytes", "usable_bytes", "suggestions":[{change, saving_bytes,
 * fits}]}. With a GPU also "throughput" and "time" (as
 * gpuplan_render_throughput_json_into) and "cost":{cloud_usd, gpu_hours,
 * usd_per_gpu_hour, n_gpus[, usd_per_million_tokens]} (null when unknown), or
 * "throughput_error" when the time model cannot evaluate the job
 * (docs/formulas-time-cost.md). `gpu` may be NULL. CSV/MD/HTML fall back to text.
 */
enum gpuplan_status gpuplan_render_estimate(const struct gpuplan_model *model,
                                            const struct gpuplan_job *job,
                                            const struct gpuplan_gpu *gpu,
                                            const struct gpuplan_memory_report *report,
                                            enum gpuplan_format format,
                                            struct gpuplan_buf *out,
                                            struct gpuplan_error *err);

#endif
