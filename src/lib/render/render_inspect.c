/*
 * render_inspect.c - text and JSON reports of a tensor inventory.
 * Numbers are exact integers from the inventory; only the human-readable
 * companions (GiB, "70.55 B") are rounded, here, at render time.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/model.h"
#include "gpuplan/render.h"
#include "gpuplan/units.h"
#include "util/json_internal.h"

#include "util/i18n_internal.h"

/* "70.55 B", "513.0 K": a rounded companion to the exact count. */
static const char *human_count(uint64_t n, char *dst, size_t dst_size)
{
    static const struct {
        double scale;
        const char *suffix;
    } steps[] = { { 1e12, "T" }, { 1e9, "B" }, { 1e6, "M" }, { 1e3, "K" } };
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
        if ((double)n >= steps[i].scale) {
            (void)snprintf(dst, dst_size, "%.2f %s", (double)n / steps[i].scale, steps[i].suffix);
            return dst;
        }
    }
    (void)snprintf(dst, dst_size, "%llu", (unsigned long long)n);
    return dst;
}

static void render_text(const struct gpuplan_model *m, struct gpuplan_buf *out)
{
    char num[48];
    char human[32];
    const struct gpuplan_arch *a = &m->arch;
    gpuplan_buf_printf(out, GPUPLAN_TR("model         %s\n"), m->id);
    gpuplan_buf_printf(out, GPUPLAN_TR("source        %s (%s)\n"), m->source, m->format);
    if (m->has_arch) {
        gpuplan_buf_printf(out, GPUPLAN_TR("architecture  %s, %u layers"), a->family, a->n_layers);
        if (a->n_encoder_layers)
            gpuplan_buf_printf(out, GPUPLAN_TR(" + %u encoder layers"), a->n_encoder_layers);
        gpuplan_buf_printf(out, GPUPLAN_TR(", hidden %llu, %llu heads (%llu kv, head_dim %llu)"),
                           (unsigned long long)a->hidden_size, (unsigned long long)a->n_heads,
                           (unsigned long long)a->n_kv_heads, (unsigned long long)a->head_dim);
        if (a->intermediate_size)
            gpuplan_buf_printf(out, GPUPLAN_TR(", mlp %llu"),
                               (unsigned long long)a->intermediate_size);
        gpuplan_buf_printf(out, GPUPLAN_TR(", vocab %llu\n"), (unsigned long long)a->vocab_size);
        if (a->is_moe)
            gpuplan_buf_printf(
                out,
                GPUPLAN_TR(
                    "experts       %u routed, top-%u, %u shared, expert mlp %llu, %u dense layers first\n"),
                a->n_experts, a->n_experts_per_token, a->n_shared_experts,
                (unsigned long long)a->moe_intermediate_size, a->n_dense_layers);
        if (a->is_mla)
            gpuplan_buf_printf(
                out,
                GPUPLAN_TR(
                    "attention     MLA: q_lora_rank %llu, kv_lora_rank %llu, rope dim %llu\n"),
                (unsigned long long)a->q_lora_rank, (unsigned long long)a->kv_lora_rank,
                (unsigned long long)a->qk_rope_head_dim);
        if (a->tied_embeddings)
            gpuplan_buf_puts(
                out, GPUPLAN_TR("embeddings    tied (lm_head shares the token embedding)\n"));
    }
    if (m->n_groups == 0) {
        gpuplan_buf_puts(
            out,
            GPUPLAN_TR("parameters    unknown: no tensor list (an index without its shards or a "
                       "config.json beside it)\n"));
    } else {
        gpuplan_format_count(num, sizeof num, m->n_params_total);
        gpuplan_buf_printf(out, GPUPLAN_TR("parameters    %s (%s)\n"), num,
                           human_count(m->n_params_total, human, sizeof human));
    }
    if (m->n_params_active != m->n_params_total) {
        gpuplan_format_count(num, sizeof num, m->n_params_active);
        gpuplan_buf_printf(out, GPUPLAN_TR("active        %s per token (%s)\n"), num,
                           human_count(m->n_params_active, human, sizeof human));
    }
    if (m->n_groups == 0) {
        gpuplan_format_count(num, sizeof num, m->index_total_size_bytes);
        gpuplan_buf_printf(
            out, GPUPLAN_TR("storage       %s bytes (%.2f GiB), the index's metadata.total_size\n"),
            num, gpuplan_gib_from_bytes(m->index_total_size_bytes));
        return;
    }
    gpuplan_buf_puts(out, GPUPLAN_TR("\nby role                    parameters   share\n"));
    for (int r = 0; r < GPUPLAN_ROLE_COUNT; r++) {
        uint64_t p = m->params_by_role[r];
        if (!p)
            continue;
        gpuplan_format_count(num, sizeof num, p);
        double share = m->n_params_total ? 100.0 * (double)p / (double)m->n_params_total : 0.0;
        gpuplan_buf_printf(out, "  %-16s %20s  %5.1f %%\n", gpuplan_role_name((enum gpuplan_role)r),
                           num, share);
    }
    gpuplan_buf_printf(out, GPUPLAN_TR("\nstorage (%s)           bytes         GiB\n"),
                       m->storage_from_file ? GPUPLAN_TR("from file headers")
                                            : GPUPLAN_TR("as the config's dtype"));
    for (int d = 0; d < GPUPLAN_DTYPE_COUNT; d++) {
        if (!m->params_by_dtype[d])
            continue;
        gpuplan_format_count(num, sizeof num, m->bytes_by_dtype[d]);
        gpuplan_buf_printf(out, "  %-12s %22s  %10.2f\n", gpuplan_dtype_name((enum gpuplan_dtype)d),
                           num, gpuplan_gib_from_bytes(m->bytes_by_dtype[d]));
    }
    gpuplan_format_count(num, sizeof num, m->storage_bytes);
    gpuplan_buf_printf(out, GPUPLAN_TR("  total        %22s  %10.2f\n"), num,
                       gpuplan_gib_from_bytes(m->storage_bytes));
    if (m->n_params_total)
        gpuplan_buf_printf(out, GPUPLAN_TR("  bits per weight %.3f\n"),
                           (double)m->storage_bytes * GPUPLAN_BITS_PER_BYTE /
                               (double)m->n_params_total);
    if (m->index_total_size_bytes) {
        gpuplan_format_count(num, sizeof num, m->index_total_size_bytes);
        gpuplan_buf_printf(out, GPUPLAN_TR("  index total_size %s bytes\n"), num);
    }
    if (m->gguf_file_type[0])
        gpuplan_buf_printf(out, GPUPLAN_TR("  gguf file type %s\n"), m->gguf_file_type);
}

static int set_u64(json_t *obj, const char *key, uint64_t v)
{
    return json_object_set_new(obj, key, json_integer((json_int_t)v));
}

static json_t *build_json(const struct gpuplan_model *m)
{
    json_t *root = json_object();
    json_t *model = json_object();
    json_t *arch = json_object();
    json_t *params = json_object();
    json_t *by_role = json_object();
    json_t *storage = json_object();
    json_t *by_dtype = json_object();
    if (!root || !model || !arch || !params || !by_role || !storage || !by_dtype) {
        json_decref(root);
        json_decref(model);
        json_decref(arch);
        json_decref(params);
        json_decref(by_role);
        json_decref(storage);
        json_decref(by_dtype);
        return NULL;
    }
    int bad = 0;
    bad |= json_object_set_new(root, "schema_version", json_integer(1));
    bad |= json_object_set_new(model, "id", json_string(m->id));
    bad |= json_object_set_new(model, "source", json_string(m->source));
    bad |= json_object_set_new(model, "format", json_string(m->format));
    bad |= json_object_set_new(root, "model", model);

    const struct gpuplan_arch *a = &m->arch;
    if (m->has_arch) {
        bad |= json_object_set_new(arch, "family", json_string(a->family));
        bad |= set_u64(arch, "layers", a->n_layers);
        bad |= set_u64(arch, "encoder_layers", a->n_encoder_layers);
        bad |= set_u64(arch, "hidden_size", a->hidden_size);
        bad |= set_u64(arch, "heads", a->n_heads);
        bad |= set_u64(arch, "kv_heads", a->n_kv_heads);
        bad |= set_u64(arch, "head_dim", a->head_dim);
        bad |= set_u64(arch, "intermediate_size", a->intermediate_size);
        bad |= set_u64(arch, "vocab_size", a->vocab_size);
        bad |= set_u64(arch, "max_position_embeddings", a->max_position_embeddings);
        bad |= set_u64(arch, "experts", a->n_experts);
        bad |= set_u64(arch, "experts_per_token", a->n_experts_per_token);
        bad |= set_u64(arch, "shared_experts", a->n_shared_experts);
        bad |= set_u64(arch, "moe_intermediate_size", a->moe_intermediate_size);
        bad |= set_u64(arch, "kv_lora_rank", a->kv_lora_rank);
        bad |= json_object_set_new(arch, "tied_embeddings", json_boolean(a->tied_embeddings));
        bad |= json_object_set_new(root, "architecture", arch);
    } else {
        json_decref(arch);
        bad |= json_object_set_new(root, "architecture", json_null());
    }

    if (m->n_groups == 0) {
        /* An index without shards or config: the count is unknown, not zero. */
        bad |= json_object_set_new(params, "total", json_null());
        bad |= json_object_set_new(params, "active", json_null());
    } else {
        bad |= set_u64(params, "total", m->n_params_total);
        bad |= set_u64(params, "active", m->n_params_active);
    }
    for (int r = 0; r < GPUPLAN_ROLE_COUNT; r++) {
        if (m->params_by_role[r])
            bad |= set_u64(by_role, gpuplan_role_name((enum gpuplan_role)r), m->params_by_role[r]);
    }
    bad |= json_object_set_new(params, "by_role", by_role);
    bad |= json_object_set_new(root, "parameters", params);

    bad |= set_u64(storage, "bytes", m->storage_bytes);
    bad |= json_object_set_new(storage, "from_file", json_boolean(m->storage_from_file));
    for (int d = 0; d < GPUPLAN_DTYPE_COUNT; d++) {
        if (!m->params_by_dtype[d])
            continue;
        json_t *entry = json_object();
        if (!entry) {
            bad = 1;
            continue;
        }
        bad |= set_u64(entry, "parameters", m->params_by_dtype[d]);
        bad |= set_u64(entry, "bytes", m->bytes_by_dtype[d]);
        bad |= json_object_set_new(by_dtype, gpuplan_dtype_name((enum gpuplan_dtype)d), entry);
    }
    bad |= json_object_set_new(storage, "by_dtype", by_dtype);
    double bpw = m->n_params_total
                     ? (double)m->storage_bytes * GPUPLAN_BITS_PER_BYTE / (double)m->n_params_total
                     : 0.0;
    bad |= json_object_set_new(storage, "bits_per_weight", json_real(bpw));
    if (m->file_bytes)
        bad |= set_u64(storage, "file_bytes", m->file_bytes);
    if (m->index_total_size_bytes)
        bad |= set_u64(storage, "index_total_size_bytes", m->index_total_size_bytes);
    if (m->gguf_file_type[0])
        bad |= json_object_set_new(storage, "gguf_file_type", json_string(m->gguf_file_type));
    bad |= json_object_set_new(root, "storage", storage);
    if (bad) {
        json_decref(root);
        return NULL;
    }
    return root;
}

enum gpuplan_status gpuplan_render_inspect(const struct gpuplan_model *model,
                                           enum gpuplan_format format,
                                           struct gpuplan_buf *out,
                                           struct gpuplan_error *err)
{
    if (gpuplan_format_check(format, GPUPLAN_RENDER_INSPECT_FORMATS, err) != GPUPLAN_OK)
        return GPUPLAN_ERR_USAGE;
    if (format == GPUPLAN_FORMAT_TEXT) {
        render_text(model, out);
        return gpuplan_buf_status(out, err);
    }
    json_t *root = build_json(model);
    if (!root)
        return gpuplan_error_set(err, GPUPLAN_ERR_NOMEM, NULL, "out of memory while building JSON");
    return gpuplan_json_write(root, JSON_INDENT(2) | JSON_SORT_KEYS | JSON_REAL_PRECISION(6), out,
                              err);
}
