/*
 * inspect.h - render a model's tensor inventory (`gpuplan inspect`).
 *
 * Text: architecture, parameter totals, a by-role breakdown, bytes by dtype
 * and bits per weight. JSON (the contract other tools rely on):
 * parameters.{total, active, by_role}, architecture.{family, layers,
 * hidden_size, heads, kv_heads, head_dim, intermediate_size, vocab_size,
 * experts, experts_per_token}, storage.{bytes, by_dtype, bits_per_weight}.
 */
#ifndef GPUPLAN_INSPECT_H
#define GPUPLAN_INSPECT_H

#include <stdbool.h>

#include "gpuplan/buf.h"
#include "gpuplan/model.h"

/* `json` selects JSON (schema_version 1, sorted keys) over the text report. */
enum gpuplan_status gpuplan_render_inspect(const struct gpuplan_model *model,
                                           bool json,
                                           struct gpuplan_buf *out,
                                           struct gpuplan_error *err);

/* "70,553,706,496": thousands separators, locale-independent. */
void gpuplan_format_count(char *dst, size_t dst_size, uint64_t value);

#endif
