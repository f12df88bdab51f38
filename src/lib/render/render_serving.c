/*
 * render_serving.c - serving figures as text and JSON, for `gpuplan
 * estimate --method infer` (render_estimate.c) and serving plans
 * (render_plan.c): the engine's settings, the KV pool as the engine prints
 * it ("GPU KV cache: N tokens, max concurrency X at L tokens"), refusals
 * and graph-capture advice, the engine's log, the steady state at the
 * load, the launch line and the benchmark that checks it.
 *
 * Computes nothing; rounds only here. Not here: the figures (serving*.c,
 * serving_estimate.c, plan_serve.c).
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gpuplan/dtype.h"
#include "gpuplan/estimate.h"
#include "gpuplan/plan.h"
#include "gpuplan/units.h"
#include "render/render_internal.h"

#include "util/i18n_internal.h"

static json_t *real(double v)
{
    return json_real(isfinite(v) ? v : 0.0);
}

/* Round to 4 significant figures so JSON carries no false precision. */
static double sig4(double v)
{
    if (v == 0.0 || !isfinite(v))
        return v;
    const double scale = pow(10.0, 3.0 - floor(log10(fabs(v))));
    return round(v * scale) / scale;
}

static json_t *bytes_json(uint64_t v)
{
    return json_integer(v > (uint64_t)INT64_MAX ? INT64_MAX : (json_int_t)v);
}

/* A weight format as --weights spells it ("auto": as stored). */
struct weights_text {
    char s[32];
};
static struct weights_text weights_name(enum gpuplan_dtype w)
{
    struct weights_text t = { { 0 } };
    (void)gpuplan_weights_name(w, t.s, sizeof t.s);
    return t;
}

static const char *fraction_flag(enum gpuplan_serving_engine engine)
{
    return engine == GPUPLAN_SERVING_SGLANG ? "mem_fraction_static" : "gpu_memory_utilization";
}

/* ---- estimate: text ------------------------------------------------------------ */

void render_serving_job_text(const struct gpuplan_estimate *e, struct gpuplan_buf *out)
{
    const struct gpuplan_estimate_serving *sv = &e->serving;
    const struct gpuplan_job *j = &e->job;
    gpuplan_buf_printf(out,
                       GPUPLAN_TR("job: infer, tp %u, pp %u, ep %u: %u replica(s) on %u GPU(s); "
                                  "weights %s, kv %s\n"),
                       j->tp, j->pp, j->ep, sv->replicas, j->gpus_per_node * j->nodes,
                       weights_name(j->weights_dtype).s,
                       gpuplan_serving_kv_dtype_name(j->kv_dtype));
    if (!sv->has_memory)
        return;
    const struct gpuplan_serving_memory *m = &sv->memory;
    gpuplan_buf_printf(out,
                       GPUPLAN_TR("engine: %s %s (%s): max_model_len %llu, max_num_seqs %u, "
                                  "max_num_batched_tokens %llu, %s %.3g, kv %s\n"),
                       gpuplan_serving_engine_name(m->engine), m->engine_version,
                       m->engine_generation, (unsigned long long)m->max_model_len, m->max_num_seqs,
                       (unsigned long long)m->max_num_batched_tokens, fraction_flag(m->engine),
                       m->memory_fraction, gpuplan_dtype_name(m->kv_element));
}

/* The pool line, the refusal or OOM advice, and the engine's own log. */
void render_serving_pool_text(const struct gpuplan_estimate *e, struct gpuplan_buf *out)
{
    const struct gpuplan_estimate_serving *sv = &e->serving;
    if (!sv->has_memory)
        return;
    const struct gpuplan_serving_memory *m = &sv->memory;
    gpuplan_buf_printf(out, "\n%s\n", m->summary);
    if (m->advice[0])
        gpuplan_buf_printf(out, GPUPLAN_TR("advice: %s\n"), m->advice);
    gpuplan_buf_printf(out, GPUPLAN_TR("\nengine log (as %s %s prints it):\n"),
                       gpuplan_serving_engine_name(m->engine), m->engine_version);
    for (size_t i = 0; i < m->n_log && i < GPUPLAN_SERVING_MAX_LOG_LINES; i++)
        gpuplan_buf_printf(out, "  %s\n", m->log[i]);
}

static void
step_text(const struct gpuplan_serving_step *s, const char *bound, struct gpuplan_buf *out)
{
    gpuplan_buf_printf(out,
                       GPUPLAN_TR("  decode step            %.2f ms, bound by %s: weights %.2f, "
                                  "KV %.2f, compute %.2f, all-reduce %.2f, per-layer %.2f, MoE "
                                  "%.2f, pipeline %.3f ms\n"),
                       s->step_s * 1e3, bound, s->weights_s * 1e3, s->kv_s * 1e3,
                       s->compute_s * 1e3, s->allreduce_s * 1e3, s->layer_overhead_s * 1e3,
                       s->moe_s * 1e3, s->pipeline_hop_s * 1e3);
}

/* The steady state, the cost, the launch line and the benchmark. */
void render_serving_time_text(const struct gpuplan_estimate *e, struct gpuplan_buf *out)
{
    const struct gpuplan_estimate_serving *sv = &e->serving;
    const struct gpuplan_estimate_cost *c = &e->cost;
    gpuplan_buf_printf(
        out,
        GPUPLAN_TR("\nserving %llu in / %llu out, %llu request(s) in flight (%llu "
                   "per replica):\n"),
        (unsigned long long)sv->load.input_tokens, (unsigned long long)sv->load.output_tokens,
        (unsigned long long)sv->concurrency, (unsigned long long)sv->load.concurrency);
    if (!sv->has_time) {
        gpuplan_buf_printf(out, GPUPLAN_TR("  not timed: %s\n"), sv->time_error);
    } else {
        const struct gpuplan_serving_steady *ss = &sv->steady;
        if (ss->capped_by_kv)
            gpuplan_buf_printf(out, GPUPLAN_TR("  the KV pool holds %llu of them per replica\n"),
                               (unsigned long long)ss->concurrency);
        gpuplan_buf_printf(out, GPUPLAN_TR("  time to first token    %.1f ms\n"), ss->ttft_s * 1e3);
        gpuplan_buf_printf(
            out, GPUPLAN_TR("  time per output token  %.2f ms (%.1f tokens/s per user)\n"),
            ss->tpot_s * 1e3, ss->tokens_per_s_per_user);
        gpuplan_buf_printf(out,
                           GPUPLAN_TR("  output                 %.1f tokens/s (%.1f per GPU), "
                                      "%.3g requests/s\n"),
                           sv->output_tokens_per_s, sv->output_tokens_per_s_per_gpu,
                           sv->output_tokens_per_s / (double)sv->load.output_tokens);
        step_text(&sv->decode_step, sv->step_bound ? sv->step_bound : "", out);
        char label[160];
        gpuplan_estimate_rate_label(e, label, sizeof label);
        if (c->has_usd_per_mtok) {
            gpuplan_buf_printf(out,
                               GPUPLAN_TR("cost: %.2f USD per million output tokens (%u GPU(s) at "
                                          "%.2f USD/GPU-hour, catalog %s)\n"),
                               c->usd_per_mtok, c->n_gpus, c->usd_per_gpu_hour, label);
            gpuplan_estimate_rate_note(e, out);
        }
    }
    gpuplan_buf_printf(out, GPUPLAN_TR("\nlaunch: %s\n"), sv->commands.launch);
    gpuplan_buf_printf(out, GPUPLAN_TR("verify: %s\n"), sv->commands.bench);
}

/* ---- estimate: JSON ------------------------------------------------------------ */

/* memory.kv_capacity_tokens, memory.max_concurrency and the rest of the engine's pool. */
void render_serving_memory_json(const struct gpuplan_estimate *e, json_t *memory)
{
    const struct gpuplan_estimate_serving *sv = &e->serving;
    const struct gpuplan_memory_estimate *est = &e->memory.est;
    json_object_set_new(memory, "max_model_len", json_integer((json_int_t)est->max_model_len));
    if (!sv->has_memory)
        return;
    const struct gpuplan_serving_memory *m = &sv->memory;
    json_object_set_new(memory, "kv_capacity_tokens",
                        json_integer((json_int_t)est->kv_capacity_tokens));
    json_object_set_new(memory, "max_concurrency", real(round(est->max_concurrency * 100) / 100));
    json_object_set_new(memory, "kv_pool_bytes", json_integer((json_int_t)m->kv_pool_bytes));
    json_object_set_new(memory, "kv_bytes_per_token", bytes_json(m->kv_bytes_per_token));
    json_object_set_new(memory, "kv_needed_bytes", bytes_json(m->kv_needed_bytes));
    json_object_set_new(memory, "block_size", json_integer(m->block_size));
    json_object_set_new(memory, "n_blocks", bytes_json(m->n_blocks));
    json_object_set_new(memory, "device_total_bytes", bytes_json(m->device_total_bytes));
    json_object_set_new(memory, "requested_bytes", bytes_json(m->requested_bytes));
    json_object_set_new(memory, "non_torch_bytes", bytes_json(m->non_torch_bytes));
    json_object_set_new(memory, "cuda_graph_bytes", bytes_json(m->cuda_graph_bytes));
    json_object_set_new(memory, "refuse_start", json_boolean(m->refuse_start));
    json_object_set_new(memory, "largest_max_model_len",
                        json_integer((json_int_t)m->largest_max_model_len));
    json_object_set_new(memory, "graph_capture_oom", json_boolean(m->graph_capture_oom));
    json_object_set_new(memory, "summary", json_string(m->summary));
    json_object_set_new(memory, "advice", json_string(m->advice));
    json_t *log = json_array();
    for (size_t i = 0; i < m->n_log && i < GPUPLAN_SERVING_MAX_LOG_LINES; i++)
        json_array_append_new(log, json_string(m->log[i]));
    json_object_set_new(memory, "engine_log", log);
}

static json_t *step_json(const struct gpuplan_serving_step *s)
{
    json_t *o = json_object();
    json_object_set_new(o, "step_s", real(sig4(s->step_s)));
    json_object_set_new(o, "weights_s", real(sig4(s->weights_s)));
    json_object_set_new(o, "kv_s", real(sig4(s->kv_s)));
    json_object_set_new(o, "compute_s", real(sig4(s->compute_s)));
    json_object_set_new(o, "allreduce_s", real(sig4(s->allreduce_s)));
    json_object_set_new(o, "layer_overhead_s", real(sig4(s->layer_overhead_s)));
    json_object_set_new(o, "moe_s", real(sig4(s->moe_s)));
    json_object_set_new(o, "pipeline_hop_s", real(sig4(s->pipeline_hop_s)));
    return o;
}

static json_t *commands_json(const struct gpuplan_serving_commands *c)
{
    json_t *o = json_object();
    json_object_set_new(o, "launch", json_string(c->launch));
    json_object_set_new(o, "bench", json_string(c->bench));
    json_object_set_new(o, "quantization", json_string(c->quantization));
    json_object_set_new(o, "needs_quantized_checkpoint",
                        json_boolean(c->needs_quantized_checkpoint));
    json_object_set_new(o, "num_prompts", json_integer((json_int_t)c->num_prompts));
    return o;
}

/* The "serving" object of an estimate. */
json_t *render_serving_json(const struct gpuplan_estimate *e)
{
    const struct gpuplan_estimate_serving *sv = &e->serving;
    const struct gpuplan_job *j = &e->job;
    json_t *o = json_object();
    json_object_set_new(o, "engine", json_string(gpuplan_serving_engine_name(j->engine)));
    json_object_set_new(o, "tp", json_integer(j->tp));
    json_object_set_new(o, "pp", json_integer(j->pp));
    json_object_set_new(o, "ep", json_integer(j->ep));
    json_object_set_new(o, "replicas", json_integer(sv->replicas));
    json_object_set_new(o, "weights", json_string(weights_name(j->weights_dtype).s));
    json_object_set_new(o, "kv_dtype", json_string(gpuplan_serving_kv_dtype_name(j->kv_dtype)));
    json_object_set_new(o, "enforce_eager", json_boolean(j->enforce_eager));
    if (!sv->has_memory)
        return o;
    const struct gpuplan_serving_memory *m = &sv->memory;
    json_object_set_new(o, "engine_version", json_string(m->engine_version));
    json_object_set_new(o, "engine_generation", json_string(m->engine_generation));
    json_object_set_new(o, "memory_fraction", real(m->memory_fraction));
    json_object_set_new(o, "max_model_len", json_integer((json_int_t)m->max_model_len));
    json_object_set_new(o, "max_num_seqs", json_integer(m->max_num_seqs));
    json_object_set_new(o, "max_num_batched_tokens",
                        json_integer((json_int_t)m->max_num_batched_tokens));
    json_object_set_new(o, "kv_element", json_string(gpuplan_dtype_name(m->kv_element)));
    json_t *load = json_object();
    json_object_set_new(load, "input_tokens", json_integer((json_int_t)sv->load.input_tokens));
    json_object_set_new(load, "output_tokens", json_integer((json_int_t)sv->load.output_tokens));
    json_object_set_new(load, "concurrency", json_integer((json_int_t)sv->concurrency));
    json_object_set_new(load, "concurrency_per_replica",
                        json_integer((json_int_t)sv->load.concurrency));
    json_object_set_new(o, "load", load);
    json_object_set_new(o, "has_time", json_boolean(sv->has_time));
    if (sv->has_time) {
        const struct gpuplan_serving_steady *ss = &sv->steady;
        json_object_set_new(o, "concurrency_run", json_integer((json_int_t)ss->concurrency));
        json_object_set_new(o, "capped_by_kv", json_boolean(ss->capped_by_kv));
        json_object_set_new(o, "ttft_s", real(sig4(ss->ttft_s)));
        json_object_set_new(o, "tpot_s", real(sig4(ss->tpot_s)));
        json_object_set_new(o, "tokens_per_s_per_user", real(sig4(ss->tokens_per_s_per_user)));
        json_object_set_new(o, "output_tokens_per_s", real(sig4(sv->output_tokens_per_s)));
        json_object_set_new(o, "output_tokens_per_s_per_gpu",
                            real(sig4(sv->output_tokens_per_s_per_gpu)));
        json_object_set_new(o, "requests_per_s",
                            real(sig4(sv->output_tokens_per_s / (double)sv->load.output_tokens)));
        json_object_set_new(o, "decode_step", step_json(&sv->decode_step));
        json_object_set_new(o, "step_bound", json_string(sv->step_bound ? sv->step_bound : ""));
    } else {
        json_object_set_new(o, "time_error", json_string(sv->time_error));
    }
    json_object_set_new(o, "commands", commands_json(&sv->commands));
    return o;
}

/* ---- plans ------------------------------------------------------------------------ */

/* A serving plan's "serving" object: everything a launcher needs, and the figures. */
json_t *render_plan_serving_json(const struct gpuplan_plan_serving *sv)
{
    json_t *o = json_object();
    json_object_set_new(o, "engine", json_string(gpuplan_serving_engine_name(sv->engine)));
    json_object_set_new(o, "engine_version", json_string(sv->engine_version));
    json_object_set_new(o, "model_ref", json_string(sv->model_ref));
    json_object_set_new(o, "tp", json_integer(sv->tp));
    json_object_set_new(o, "pp", json_integer(sv->pp));
    json_object_set_new(o, "ep", json_integer(sv->ep));
    json_object_set_new(o, "gpus_per_replica", json_integer(sv->gpus_per_replica));
    json_object_set_new(o, "replicas", json_integer(sv->replicas));
    json_object_set_new(o, "max_model_len", json_integer((json_int_t)sv->max_model_len));
    json_object_set_new(o, "max_num_seqs", json_integer(sv->max_num_seqs));
    json_object_set_new(o, "max_num_batched_tokens",
                        json_integer((json_int_t)sv->max_num_batched_tokens));
    json_object_set_new(o, "memory_fraction", real(sv->memory_fraction));
    json_object_set_new(o, "kv_dtype", json_string(gpuplan_serving_kv_dtype_name(sv->kv_dtype)));
    json_object_set_new(o, "kv_element", json_string(gpuplan_dtype_name(sv->kv_element)));
    json_object_set_new(o, "weights", json_string(weights_name(sv->weights_dtype).s));
    json_object_set_new(o, "enforce_eager", json_boolean(sv->enforce_eager));
    json_object_set_new(o, "kv_capacity_tokens", json_integer((json_int_t)sv->kv_capacity_tokens));
    json_object_set_new(o, "max_concurrency", real(round(sv->max_concurrency * 100) / 100));
    json_object_set_new(o, "weights_bytes", bytes_json(sv->weights_bytes));
    json_object_set_new(o, "input_tokens", json_integer((json_int_t)sv->input_tokens));
    json_object_set_new(o, "output_tokens", json_integer((json_int_t)sv->output_tokens));
    json_object_set_new(o, "request_rate_per_s", real(sig4(sv->request_rate_per_s)));
    json_object_set_new(o, "concurrency_per_replica", json_integer((json_int_t)sv->concurrency));
    json_object_set_new(o, "concurrency_limit_per_replica",
                        json_integer((json_int_t)sv->concurrency_limit));
    json_object_set_new(o, "ttft_s", real(sig4(sv->ttft_s)));
    json_object_set_new(o, "tpot_s", real(sig4(sv->tpot_s)));
    json_object_set_new(o, "output_tokens_per_s", real(sig4(sv->tokens_per_s)));
    json_object_set_new(o, "output_tokens_per_s_per_gpu", real(sig4(sv->tokens_per_s_per_gpu)));
    json_object_set_new(o, "tokens_per_s_per_user", real(sig4(sv->tokens_per_s_per_user)));
    json_object_set_new(o, "meets_targets", json_boolean(sv->meets_targets));
    if (!sv->meets_targets)
        json_object_set_new(o, "miss", json_string(sv->miss));
    json_t *d = json_null();
    if (sv->has_disagg) {
        d = json_object();
        json_object_set_new(d, "prefill_replicas", json_integer(sv->disagg_prefill_replicas));
        json_object_set_new(d, "decode_replicas", json_integer(sv->disagg_decode_replicas));
        json_object_set_new(d, "ttft_s", real(sig4(sv->disagg_ttft_s)));
        json_object_set_new(d, "tpot_s", real(sig4(sv->disagg_tpot_s)));
        json_object_set_new(d, "meets_targets", json_boolean(sv->disagg_meets_targets));
        json_object_set_new(d, "usd_per_hour", real(round(sv->disagg_usd_per_hour * 100) / 100));
        json_object_set_new(d, "saving", real(round(sv->disagg_saving * 1000) / 1000));
    }
    json_object_set_new(o, "disaggregated", d);
    json_object_set_new(o, "commands", commands_json(&sv->commands));
    return o;
}

/* The run's load and targets as the serving result's header. */
void render_plan_serving_header(const struct gpuplan_plan_result *r, struct gpuplan_buf *out)
{
    const struct gpuplan_plan_request *q = &r->request;
    const char *model = r->model_id[0] ? r->model_id : GPUPLAN_TR("model");
    gpuplan_buf_printf(out, GPUPLAN_TR("%s: serving %llu in / %llu out"), model,
                       (unsigned long long)q->job.input_tokens,
                       (unsigned long long)q->job.output_tokens);
    if (q->request_rate_per_s > 0)
        gpuplan_buf_printf(out, GPUPLAN_TR(" at %.3g requests/s"), q->request_rate_per_s);
    else
        gpuplan_buf_printf(out, GPUPLAN_TR(" with %llu requests in flight"),
                           (unsigned long long)q->job.concurrency);
    if (q->target_ttft_ms > 0)
        gpuplan_buf_printf(out, GPUPLAN_TR(", TTFT <= %.0f ms"), q->target_ttft_ms);
    if (q->target_tpot_ms > 0)
        gpuplan_buf_printf(out, GPUPLAN_TR(", TPOT <= %.1f ms"), q->target_tpot_ms);
    gpuplan_buf_printf(out, GPUPLAN_TR(" on %s\n"),
                       gpuplan_serving_engine_name((enum gpuplan_serving_engine)q->job.engine));
    gpuplan_buf_printf(out,
                       GPUPLAN_TR("%llu candidates evaluated, %llu start, %llu meet the targets "
                                  "(objective %s, %s)\n\n"),
                       (unsigned long long)r->evaluated, (unsigned long long)r->fitting,
                       (unsigned long long)r->feasible, gpuplan_plan_objective_name(q->objective),
                       gpuplan_plan_where_name(q->where));
}

static const char *const serving_head =
    GPUPLAN_N_("  # gpu             replicas x layout    weights  kv      TTFT ms  TPOT ms"
               "  tok/s/GPU  tok/s/user   $/Mtok    $/hour     capex $\n");

const char *render_plan_serving_table_head(void)
{
    return GPUPLAN_TR(serving_head);
}

void render_plan_serving_row(const struct gpuplan_plan *p, size_t rank, struct gpuplan_buf *out)
{
    const struct gpuplan_plan_serving *sv = &p->serving;
    char layout[32];
    if (sv->ep > 1)
        (void)snprintf(layout, sizeof layout, "%u x tp%u ep%u", sv->replicas, sv->tp, sv->ep);
    else if (sv->pp > 1)
        (void)snprintf(layout, sizeof layout, "%u x tp%u pp%u", sv->replicas, sv->tp, sv->pp);
    else
        (void)snprintf(layout, sizeof layout, "%u x tp%u", sv->replicas, sv->tp);
    gpuplan_buf_printf(out, "%3zu %-15s %-20s %-8s %-6s %8.0f %8.1f %10.0f %11.1f", rank,
                       p->gpu ? p->gpu->id : "", layout, weights_name(sv->weights_dtype).s,
                       gpuplan_serving_kv_dtype_name(sv->kv_dtype), sv->ttft_s * 1e3,
                       sv->tpot_s * 1e3, sv->tokens_per_s_per_gpu, sv->tokens_per_s_per_user);
    const bool own = p->has_own_cost && !p->has_cloud_rate;
    if (p->has_cloud_rate && p->cost_per_mtok_usd > 0)
        gpuplan_buf_printf(out, " %8.2f", p->cost_per_mtok_usd);
    else if (own && p->own_cost_per_mtok_usd > 0)
        gpuplan_buf_printf(out, " %7.2f*", p->own_cost_per_mtok_usd);
    else
        gpuplan_buf_printf(out, " %8s", "-");
    if (p->has_cloud_rate)
        gpuplan_buf_printf(out, " %9.2f", p->cost_usd_per_hour);
    else
        gpuplan_buf_printf(out, " %9s", "-");
    if (p->has_capex)
        gpuplan_buf_printf(out, " %11.0f\n", p->capex_usd);
    else
        gpuplan_buf_printf(out, " %11s\n", "-");
}

/* A serving plan's engine lines: the layout, the miss, the launch line and the benchmark. */
void render_plan_serving_details(const struct gpuplan_plan *p, struct gpuplan_buf *out)
{
    const struct gpuplan_plan_serving *sv = &p->serving;
    if (!sv->meets_targets)
        gpuplan_buf_printf(out, GPUPLAN_TR("  misses: %s\n"), sv->miss);
    if (p->has_own_cost)
        gpuplan_buf_printf(out,
                           GPUPLAN_TR("  own: %.2f USD per hour of use (TCO defaults), %.2f USD "
                                      "per million output tokens\n"),
                           p->own_usd_per_hour, p->own_cost_per_mtok_usd);
    gpuplan_buf_printf(out, GPUPLAN_TR("  launch: %s\n"), sv->commands.launch);
    gpuplan_buf_printf(out, GPUPLAN_TR("  verify: %s\n"), sv->commands.bench);
}
