/*
 * render_estimate.c - `gpuplan estimate` as text and JSON.
 *
 * Rounds only here (GiB with two decimals in text; JSON carries exact bytes).
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/estimate.h"
#include "gpuplan/render.h"
#include "gpuplan/units.h"

struct row {
    const char *name;
    uint64_t bytes;
};

static void rows_of(const struct gpuplan_memory_per_gpu *g, struct row rows[11])
{
    const struct row r[11] = {
        { "weights", g->weights_bytes },
        { "gradients", g->gradients_bytes },
        { "optimizer", g->optimizer_bytes },
        { "activations", g->activations_bytes },
        { "adapters", g->adapters_bytes },
        { "kv_cache", g->kv_cache_bytes },
        { "overhead", g->overhead_bytes },
        { "cuda_context", g->cuda_context_bytes },
        { "peak_allocated", g->peak_allocated_bytes },
        { "peak_reserved", g->peak_reserved_bytes },
        { "device_total", g->device_total_bytes },
    };
    memcpy(rows, r, sizeof r);
}

static void job_line(const struct gpuplan_job *job, struct gpuplan_buf *out)
{
    struct gpuplan_job j;
    gpuplan_job_resolve(job, &j);
    if (j.method == GPUPLAN_METHOD_INFER) {
        gpuplan_buf_printf(
            out, "job: infer, weights %s, kv %s, context %llu, batch %llu, tp %u, pp %u\n",
            gpuplan_dtype_name(j.weights_dtype), gpuplan_dtype_name(j.kv_dtype),
            (unsigned long long)j.context_len, (unsigned long long)j.batch, j.tp, j.pp);
        return;
    }
    gpuplan_buf_printf(out, "job: %s, %s, %s%s, seq %llu x micro-batch %llu, ckpt %s, attention %s",
                       gpuplan_method_name(j.method), gpuplan_precision_name(j.precision),
                       gpuplan_optimizer_name(j.optimizer), j.optim_in_bwd ? " (in backward)" : "",
                       (unsigned long long)j.seq_len, (unsigned long long)j.micro_batch,
                       gpuplan_grad_ckpt_name(j.grad_ckpt), gpuplan_attention_name(j.attention));
    if (j.method != GPUPLAN_METHOD_FULL)
        gpuplan_buf_printf(out, ", lora r%u on %s", j.lora_rank, j.lora_targets);
    if (j.method == GPUPLAN_METHOD_QLORA)
        gpuplan_buf_printf(out, ", base %s", gpuplan_dtype_name(j.quant));
    gpuplan_buf_printf(
        out, "\nparallel: %u GPU(s) x %u node(s), sharding %s, tp %u, pp %u, offload %s\n",
        j.gpus_per_node, j.nodes, gpuplan_sharding_name(j.sharding), j.tp, j.pp,
        gpuplan_offload_name(j.offload));
}

static void render_text(const struct gpuplan_model *model,
                        const struct gpuplan_job *job,
                        const struct gpuplan_gpu *gpu,
                        const struct gpuplan_memory_report *r,
                        struct gpuplan_buf *out)
{
    const struct gpuplan_memory_estimate *e = &r->est;
    gpuplan_buf_printf(out, "model: %s (%llu parameters)\n", model->id,
                       (unsigned long long)model->n_params_total);
    job_line(job, out);
    gpuplan_buf_puts(out, "\nper GPU                  GiB\n");
    struct row rows[11];
    rows_of(&e->per_gpu, rows);
    for (size_t i = 0; i < 11; i++) {
        if (i == 8)
            gpuplan_buf_puts(out, "  --------------------------\n");
        gpuplan_buf_printf(out, "  %-16s %9.2f\n", rows[i].name,
                           gpuplan_gib_from_bytes(rows[i].bytes));
    }
    gpuplan_buf_printf(out, "\nhost (per node)\n  %-16s %9.2f\n", "ram",
                       gpuplan_gib_from_bytes(e->host_ram_bytes));
    if (job->method == GPUPLAN_METHOD_INFER && e->kv_bytes_per_seq)
        gpuplan_buf_printf(out,
                           "\nKV cache per sequence: %.2f GiB; max concurrent sequences: %llu\n",
                           gpuplan_gib_from_bytes(e->kv_bytes_per_seq),
                           (unsigned long long)e->max_concurrent_seqs);
    if (!gpu) {
        gpuplan_buf_puts(out, "\nno --gpu given: no fit verdict\n");
        return;
    }
    const double head_gib = (double)e->headroom_bytes / (double)GPUPLAN_BYTES_PER_GIB;
    gpuplan_buf_printf(out, "\nverdict: %s on %s (%.2f GiB usable): %s %.2f GiB\n",
                       e->fits ? "FITS" : "DOES NOT FIT", gpu->id,
                       gpuplan_gib_from_bytes(e->gpu_usable_bytes),
                       e->fits ? "headroom" : "short by", e->fits ? head_gib : -head_gib);
    if (r->n_suggestions) {
        gpuplan_buf_puts(out, "suggestions:\n");
        for (size_t i = 0; i < r->n_suggestions; i++)
            gpuplan_buf_printf(out, "  %-40s -%.1f GiB%s\n", r->suggestions[i].change,
                               (double)r->suggestions[i].saving_bytes /
                                   (double)GPUPLAN_BYTES_PER_GIB,
                               r->suggestions[i].fits ? " (fits)" : "");
    }
}

static json_t *job_json(const struct gpuplan_job *job)
{
    struct gpuplan_job j;
    gpuplan_job_resolve(job, &j);
    json_t *o = json_object();
    json_object_set_new(o, "method", json_string(gpuplan_method_name(j.method)));
    json_object_set_new(o, "precision", json_string(gpuplan_precision_name(j.precision)));
    json_object_set_new(o, "optimizer", json_string(gpuplan_optimizer_name(j.optimizer)));
    json_object_set_new(o, "optim_in_bwd", json_boolean(j.optim_in_bwd));
    json_object_set_new(o, "grad_ckpt", json_string(gpuplan_grad_ckpt_name(j.grad_ckpt)));
    json_object_set_new(o, "attention", json_string(gpuplan_attention_name(j.attention)));
    json_object_set_new(o, "seq_len", json_integer((json_int_t)j.seq_len));
    json_object_set_new(o, "micro_batch", json_integer((json_int_t)j.micro_batch));
    json_object_set_new(o, "lora_rank", json_integer((json_int_t)j.lora_rank));
    json_object_set_new(o, "lora_targets", json_string(j.lora_targets));
    json_object_set_new(o, "quant", json_string(gpuplan_dtype_name(j.quant)));
    json_object_set_new(o, "sharding", json_string(gpuplan_sharding_name(j.sharding)));
    json_object_set_new(o, "offload", json_string(gpuplan_offload_name(j.offload)));
    json_object_set_new(o, "tp", json_integer(j.tp));
    json_object_set_new(o, "pp", json_integer(j.pp));
    json_object_set_new(o, "gpus_per_node", json_integer(j.gpus_per_node));
    json_object_set_new(o, "nodes", json_integer(j.nodes));
    json_object_set_new(o, "context", json_integer((json_int_t)j.context_len));
    json_object_set_new(o, "batch", json_integer((json_int_t)j.batch));
    json_object_set_new(o, "kv_dtype", json_string(gpuplan_dtype_name(j.kv_dtype)));
    json_object_set_new(o, "weights", json_string(gpuplan_dtype_name(j.weights_dtype)));
    return o;
}

static json_t *bytes_json(uint64_t v)
{
    return json_integer(v > (uint64_t)INT64_MAX ? INT64_MAX : (json_int_t)v);
}

static enum gpuplan_status render_json(const struct gpuplan_model *model,
                                       const struct gpuplan_job *job,
                                       const struct gpuplan_gpu *gpu,
                                       const struct gpuplan_memory_report *r,
                                       struct gpuplan_buf *out,
                                       struct gpuplan_error *err)
{
    const struct gpuplan_memory_estimate *e = &r->est;
    json_t *root = json_object();
    json_t *per_gpu = json_object();
    struct row rows[11];
    rows_of(&e->per_gpu, rows);
    for (size_t i = 0; i < 11; i++) {
        char key[48];
        snprintf(key, sizeof key, "%s_bytes", rows[i].name);
        json_object_set_new(per_gpu, key, bytes_json(rows[i].bytes));
    }
    json_t *host = json_object();
    json_object_set_new(host, "ram_bytes", bytes_json(e->host_ram_bytes));
    json_t *memory = json_object();
    json_object_set_new(memory, "per_gpu", per_gpu);
    json_object_set_new(memory, "host", host);
    if (job->method == GPUPLAN_METHOD_INFER) {
        json_object_set_new(memory, "kv_bytes_per_seq", bytes_json(e->kv_bytes_per_seq));
        if (gpu)
            json_object_set_new(memory, "max_concurrent_seqs", bytes_json(e->max_concurrent_seqs));
    }
    json_object_set_new(root, "schema_version", json_integer(1));
    json_object_set_new(root, "model", json_string(model->id));
    json_object_set_new(root, "n_params", bytes_json(model->n_params_total));
    json_object_set_new(root, "job", job_json(job));
    json_object_set_new(root, "memory", memory);
    json_object_set_new(root, "n_gpus", json_integer(e->n_gpus));
    json_t *sugg = json_array();
    if (gpu) {
        json_object_set_new(root, "gpu", json_string(gpu->id));
        json_object_set_new(root, "fits", json_boolean(e->fits));
        json_object_set_new(root, "usable_bytes", bytes_json(e->gpu_usable_bytes));
        json_object_set_new(root, "headroom_bytes", json_integer(e->headroom_bytes));
        for (size_t i = 0; i < r->n_suggestions; i++) {
            json_t *s = json_object();
            json_object_set_new(s, "change", json_string(r->suggestions[i].change));
            json_object_set_new(s, "saving_bytes", json_integer(r->suggestions[i].saving_bytes));
            json_object_set_new(s, "fits", json_boolean(r->suggestions[i].fits));
            json_array_append_new(sugg, s);
        }
    }
    json_object_set_new(root, "suggestions", sugg);
    char *text = json_dumps(root, JSON_INDENT(2) | JSON_SORT_KEYS);
    json_decref(root);
    if (!text)
        return gpuplan_error_set(err, GPUPLAN_ERR_NOMEM, NULL, "out of memory rendering JSON");
    gpuplan_buf_puts(out, text);
    gpuplan_buf_puts(out, "\n");
    free(text);
    return gpuplan_buf_status(out, err);
}

enum gpuplan_status gpuplan_render_estimate(const struct gpuplan_model *model,
                                            const struct gpuplan_job *job,
                                            const struct gpuplan_gpu *gpu,
                                            const struct gpuplan_memory_report *report,
                                            enum gpuplan_format format,
                                            struct gpuplan_buf *out,
                                            struct gpuplan_error *err)
{
    if (format == GPUPLAN_FORMAT_JSON)
        return render_json(model, job, gpu, report, out, err);
    render_text(model, job, gpu, report, out);
    return gpuplan_buf_status(out, err);
}
