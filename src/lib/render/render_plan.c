/*
 * render_plan.c - `gpuplan recommend` output: a text table with each plan's
 * server, reasons and warnings, or JSON (schema in plan.h and
 * docs/planner.md; sorted keys, schema_version 1).
 *
 * Rounding happens only here: money to cents, times to 4 significant
 * figures in JSON (JSON_REAL_PRECISION). Unknown figures are JSON null.
 * Not here: the search (plan.c), launchers (emit.c).
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/dtype.h"
#include "gpuplan/plan.h"
#include "gpuplan/render.h"
#include "gpuplan/units.h"
#include "render/render_internal.h"
#include "util/json_internal.h"

#include "util/i18n_internal.h"

#define JSON_FLAGS (JSON_SORT_KEYS | JSON_INDENT(2) | JSON_REAL_PRECISION(10) | JSON_ENSURE_ASCII)

static json_t *real_or_null(bool known, double value)
{
    return known && isfinite(value) ? json_real(value) : json_null();
}

/* Round to 4 significant figures so JSON carries no false precision. */
static double sig4(double v)
{
    if (v == 0.0 || !isfinite(v))
        return v;
    const double scale = pow(10.0, 3.0 - floor(log10(fabs(v))));
    return round(v * scale) / scale;
}

static double cents(double usd)
{
    return round(usd * 100.0) / 100.0;
}

static json_t *strings(const char (*list)[GPUPLAN_PLAN_TEXT_MAX], size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(a, json_string(list[i]));
    return a;
}

static json_t *server_json(const struct gpuplan_plan_server *sv)
{
    json_t *o = json_object();
    json_object_set_new(o, "platform", json_string(sv->platform_id));
    json_object_set_new(o, "platform_name", json_string(sv->platform_name));
    json_object_set_new(o, "form_factor", json_string(sv->form_factor));
    json_object_set_new(o, "servers", json_integer(sv->n_servers));
    json_object_set_new(o, "cpu_cores", json_integer(sv->cpu_cores));
    json_object_set_new(o, "ram_bytes", json_integer((json_int_t)sv->ram_bytes));
    json_object_set_new(o, "nvme_bytes", json_integer((json_int_t)sv->nvme_bytes));
    json_object_set_new(o, "nvme_gb_per_s", json_real(sig4(sv->nvme_gb_per_s)));
    json_object_set_new(o, "interconnect", json_string(sv->interconnect));
    json_object_set_new(o, "network", json_string(sv->network));
    json_object_set_new(o, "power_w", json_real(sig4(sv->power_w)));
    json_object_set_new(o, "rack_power_w", json_real(sig4(sv->rack_power_w)));
    return o;
}

static json_t *plan_json(const struct gpuplan_plan *p)
{
    const struct gpuplan_job *j = &p->job;
    const bool infer = j->method == GPUPLAN_METHOD_INFER;
    json_t *o = json_object();
    json_object_set_new(o, "gpu", json_string(p->gpu ? p->gpu->id : ""));
    json_object_set_new(o, "gpus_per_node", json_integer(p->gpus_per_node));
    json_object_set_new(o, "nodes", json_integer(p->nodes));
    json_object_set_new(o, "method", json_string(gpuplan_method_name(j->method)));
    json_object_set_new(o, "precision", json_string(gpuplan_precision_name(j->precision)));
    json_object_set_new(o, "sharding", json_string(gpuplan_sharding_name(j->sharding)));
    json_object_set_new(o, "micro_batch", json_integer((json_int_t)j->micro_batch));
    json_object_set_new(o, "grad_accum", json_integer((json_int_t)j->grad_accum));
    json_object_set_new(o, "grad_ckpt", json_string(gpuplan_grad_ckpt_name(j->grad_ckpt)));
    json_object_set_new(o, "offload", json_string(gpuplan_offload_name(j->offload)));
    json_object_set_new(o, "tp", json_integer(j->tp));
    json_object_set_new(o, "pp", json_integer(j->pp));
    json_object_set_new(o, "memory_per_gpu_bytes",
                        json_integer((json_int_t)p->memory_per_gpu_bytes));
    json_object_set_new(o, "usable_bytes", json_integer((json_int_t)p->usable_bytes));
    json_object_set_new(o, "headroom_bytes", json_integer((json_int_t)p->headroom_bytes));
    json_object_set_new(o, "host_ram_needed_bytes",
                        json_integer((json_int_t)p->host_ram_needed_bytes));
    json_object_set_new(o, "fits", json_boolean(p->fits));
    /* training: the 80 % range of the device total and its verdict (null without one) */
    json_object_set_new(o, "verdict",
                        p->has_range ? json_string(gpuplan_fit_verdict_name(p->range_verdict))
                                     : json_null());
    json_object_set_new(o, "memory_per_gpu_low_bytes",
                        p->has_range ? json_integer((json_int_t)p->memory_low_bytes) : json_null());
    json_object_set_new(o, "memory_per_gpu_high_bytes",
                        p->has_range ? json_integer((json_int_t)p->memory_high_bytes)
                                     : json_null());
    json_object_set_new(o, "over_bytes",
                        p->has_range ? json_integer((json_int_t)p->range_over_bytes) : json_null());
    json_object_set_new(o, "tokens_per_s", json_real(sig4(p->tokens_per_s)));
    json_object_set_new(o, "mfu", json_real(sig4(p->mfu)));
    json_object_set_new(o, "bottleneck", json_string(p->bottleneck ? p->bottleneck : ""));
    json_object_set_new(o, "time_hours", real_or_null(p->has_time, sig4(p->time_hours)));
    json_object_set_new(o, "cost_usd",
                        real_or_null(p->has_time && p->has_cloud_rate, cents(p->cost_usd)));
    json_object_set_new(o, "cost_usd_per_hour",
                        real_or_null(p->has_cloud_rate, cents(p->cost_usd_per_hour)));
    json_object_set_new(o, "cost_per_mtok_usd",
                        real_or_null(p->has_cloud_rate && (!infer || p->cost_per_mtok_usd > 0),
                                     sig4(p->cost_per_mtok_usd)));
    json_object_set_new(o, "capex_usd", real_or_null(p->has_capex, cents(p->capex_usd)));
    json_object_set_new(o, "capex", p->has_capex ? gpuplan_capex_json(&p->capex) : json_null());
    json_object_set_new(o, "cloud_tier",
                        p->has_cloud_rate && p->cloud_tier[0] ? json_string(p->cloud_tier)
                                                              : json_null());
    json_object_set_new(o, "cloud_provider",
                        p->has_cloud_rate && p->cloud_tier[0] ? json_string(p->cloud_provider)
                                                              : json_null());
    json_object_set_new(o, "rate_fallback", json_boolean(p->has_cloud_rate && p->rate_fallback));
    json_object_set_new(o, "own_usd_per_hour",
                        real_or_null(p->has_own_cost, cents(p->own_usd_per_hour)));
    json_object_set_new(o, "own_cost_usd",
                        real_or_null(p->has_own_cost && p->has_time, cents(p->own_cost_usd)));
    json_object_set_new(o, "own_cost_per_mtok_usd",
                        real_or_null(p->has_own_cost && (!infer || p->own_cost_per_mtok_usd > 0),
                                     sig4(p->own_cost_per_mtok_usd)));
    json_object_set_new(o, "compromise", json_boolean(p->compromise));
    json_object_set_new(o, "maturity", json_string(p->needs_care ? "needs-care" : "standard"));
    json_object_set_new(o, "maturity_reason", json_string(p->maturity));
    json_object_set_new(o, "variants", json_string(p->variants));
    if (p->is_serving)
        json_object_set_new(o, "serving", render_plan_serving_json(&p->serving));
    json_object_set_new(o, "server", server_json(&p->server));
    json_object_set_new(o, "model", json_string(p->model_id));
    json_object_set_new(o, "model_family", json_string(p->model_family));
    json_object_set_new(o, "hub_id", json_string(p->hub_id));
    json_object_set_new(o, "job", gpuplan_job_options_json(j));
    json_object_set_new(o, "reasons", strings(p->reasons, p->n_reasons));
    json_object_set_new(o, "warnings", strings(p->warnings, p->n_warnings));
    return o;
}

static enum gpuplan_status render_json(const struct gpuplan_plan_result *r,
                                       const struct gpuplan_config *cfg,
                                       struct gpuplan_buf *out,
                                       struct gpuplan_error *err)
{
    json_t *root = json_object();
    if (!root)
        return gpuplan_error_set(err, GPUPLAN_ERR_NOMEM, NULL, "out of memory");
    json_object_set_new(root, "schema_version", json_integer(1));
    json_object_set_new(root, "model", json_string(r->model_id));
    json_object_set_new(root, "objective",
                        json_string(gpuplan_plan_objective_name(r->request.objective)));
    json_object_set_new(root, "where", json_string(gpuplan_plan_where_name(r->request.where)));
    json_object_set_new(root, "evaluated", json_integer((json_int_t)r->evaluated));
    json_object_set_new(root, "fitting", json_integer((json_int_t)r->fitting));
    json_object_set_new(root, "feasible", json_integer((json_int_t)r->feasible));
    json_t *rejected = json_object();
    json_object_set_new(rejected, "host_ram", json_integer((json_int_t)r->over_ram));
    json_object_set_new(rejected, "cpu_cores", json_integer((json_int_t)r->over_cores));
    json_object_set_new(rejected, "nvme", json_integer((json_int_t)r->over_nvme));
    json_object_set_new(rejected, "network_bound", json_integer((json_int_t)r->network_bound));
    json_object_set_new(root, "rejected", rejected);
    json_t *recs = json_array(), *front = json_array();
    for (size_t i = 0; i < r->n_top; i++)
        json_array_append_new(recs, plan_json(&r->top[i]));
    for (size_t i = 0; i < r->n_pareto; i++)
        json_array_append_new(front, plan_json(&r->pareto[i]));
    json_object_set_new(root, "recommendations", recs);
    json_object_set_new(root, "pareto", front);
    json_object_set_new(root, "notes", strings(r->notes, r->n_notes));
    json_object_set_new(root, "best_buy", r->has_best_buy ? plan_json(&r->best_buy) : json_null());
    json_object_set_new(root, "best_rent",
                        r->has_best_rent ? plan_json(&r->best_rent) : json_null());
    json_object_set_new(root, "too_long", json_integer((json_int_t)r->too_long));
    json_object_set_new(root, "needs_care_left_out", json_integer((json_int_t)r->needs_care));
    if (r->request.job.method != GPUPLAN_METHOD_INFER) {
        json_t *misses = json_array();
        for (size_t i = 0; i < r->n_misses; i++)
            json_array_append_new(misses, plan_json(&r->misses[i]));
        json_object_set_new(root, "nearest_misses", misses);
    }
    if (r->request.job.method == GPUPLAN_METHOD_INFER) {
        json_t *misses = json_array(), *targets = json_object();
        for (size_t i = 0; i < r->n_misses; i++)
            json_array_append_new(misses, plan_json(&r->misses[i]));
        json_object_set_new(root, "nearest_misses", misses);
        const struct gpuplan_plan_request *q = &r->request;
        json_object_set_new(targets, "input_tokens", json_integer((json_int_t)q->job.input_tokens));
        json_object_set_new(targets, "output_tokens",
                            json_integer((json_int_t)q->job.output_tokens));
        json_object_set_new(targets, "request_rate_per_s",
                            real_or_null(q->request_rate_per_s > 0, q->request_rate_per_s));
        json_object_set_new(
            targets, "concurrency",
            q->request_rate_per_s > 0 ? json_null() : json_integer((json_int_t)q->job.concurrency));
        json_object_set_new(targets, "ttft_ms",
                            real_or_null(q->target_ttft_ms > 0, q->target_ttft_ms));
        json_object_set_new(targets, "tpot_ms",
                            real_or_null(q->target_tpot_ms > 0, q->target_tpot_ms));
        json_object_set_new(root, "serving_targets", targets);
    }
    if (cfg)
        json_object_set_new(root, "config", gpuplan_config_json(cfg));
    return gpuplan_json_write(root, JSON_FLAGS, out, err);
}

static void money(struct gpuplan_buf *out, bool known, double usd)
{
    if (known)
        gpuplan_buf_printf(out, " %11.0f", usd);
    else
        gpuplan_buf_printf(out, " %11s", "-");
}

static void text_row(const struct gpuplan_plan *p, size_t rank, struct gpuplan_buf *out)
{
    const struct gpuplan_job *j = &p->job;
    char count[24], how[64];
    snprintf(count, sizeof count, "%ux%u", p->nodes, p->gpus_per_node);
    char mp[24] = "";
    if (j->tp > 1 || j->pp > 1)
        snprintf(mp, sizeof mp, " tp%u pp%u", j->tp, j->pp);
    snprintf(how, sizeof how, "%s %s %s%s mb%llu ckpt-%s off-%s", gpuplan_method_name(j->method),
             gpuplan_precision_name(j->precision), gpuplan_sharding_name(j->sharding), mp,
             (unsigned long long)j->micro_batch, gpuplan_grad_ckpt_name(j->grad_ckpt),
             gpuplan_offload_name(j->offload));
    gpuplan_buf_printf(out, "%3zu %-15s %-5s %-52s %7.1f %10.0f", rank, p->gpu ? p->gpu->id : "",
                       count, how, gpuplan_gib_from_bytes(p->memory_per_gpu_bytes),
                       p->tokens_per_s);
    if (p->has_time)
        gpuplan_buf_printf(out, " %9.1f", p->time_hours);
    else
        gpuplan_buf_printf(out, " %9s", "-");
    money(out, p->has_time && p->has_cloud_rate, p->cost_usd);
    money(out, p->has_cloud_rate, p->cost_usd_per_hour);
    money(out, p->has_capex, p->capex_usd);
    money(out, p->has_own_cost && p->has_time, p->own_cost_usd);
    gpuplan_buf_puts(out, "\n");
}

/* One line of the rent-or-buy comparison. */
static void side_line(const struct gpuplan_plan *p, bool buy, struct gpuplan_buf *out)
{
    const uint32_t n = p->gpus_per_node * p->nodes;
    const char *gpu = p->gpu ? p->gpu->id : "";
    const char *platform = p->server.platform_id[0] ? p->server.platform_id : "-";
    if (buy && p->has_time)
        gpuplan_buf_printf(out, GPUPLAN_TR("  buy:  %u x %s on %s (%ux%u), capex $%.0f, %.1f h\n"),
                           n, gpu, platform, p->nodes, p->gpus_per_node, p->capex_usd,
                           p->time_hours);
    else if (buy)
        gpuplan_buf_printf(out, GPUPLAN_TR("  buy:  %u x %s on %s (%ux%u), capex $%.0f\n"), n, gpu,
                           platform, p->nodes, p->gpus_per_node, p->capex_usd);
    else if (p->has_time)
        gpuplan_buf_printf(out, GPUPLAN_TR("  rent: %u x %s (%ux%u), %.1f h, $%.0f at $%.2f/h\n"),
                           n, gpu, p->nodes, p->gpus_per_node, p->time_hours, p->cost_usd,
                           p->cost_usd_per_hour);
    else
        gpuplan_buf_printf(out, GPUPLAN_TR("  rent: %u x %s (%ux%u), $%.2f/h\n"), n, gpu, p->nodes,
                           p->gpus_per_node, p->cost_usd_per_hour);
}

static const char *const table_head =
    GPUPLAN_N_("  # gpu             nodes x gpus / knobs"
               "                                        GiB/GPU   tokens/s"
               "   hours    cloud $    $/hour     capex $       own $\n");

static void text_details(const struct gpuplan_plan *p, size_t rank, struct gpuplan_buf *out)
{
    const struct gpuplan_plan_server *sv = &p->server;
    /* a serving plan's GPUs are its replicas' (the servers may hold more) */
    const uint32_t n_gpus = p->is_serving ? p->serving.replicas * p->serving.gpus_per_replica
                                          : p->gpus_per_node * p->nodes;
    gpuplan_buf_printf(out, GPUPLAN_TR("\n#%zu %u x %s on %s (%s), %u server%s\n"), rank, n_gpus,
                       p->gpu ? p->gpu->id : "",
                       sv->platform_id[0] ? sv->platform_id : GPUPLAN_TR("no platform"),
                       sv->form_factor, sv->n_servers, sv->n_servers == 1 ? "" : "s");
    gpuplan_buf_printf(
        out,
        GPUPLAN_TR("  server: %u CPU cores, %.0f GiB RAM, %.2f TB NVMe (%.0f GB/s), %.1f kW "
                   "(%.1f kW per rack)\n"),
        sv->cpu_cores, gpuplan_gib_from_bytes(sv->ram_bytes),
        (double)sv->nvme_bytes / (double)GPUPLAN_BYTES_PER_TB, sv->nvme_gb_per_s,
        sv->power_w / GPUPLAN_W_PER_KW, sv->rack_power_w / GPUPLAN_W_PER_KW);
    gpuplan_buf_printf(out, GPUPLAN_TR("  GPUs: %s; network: %s\n"), GPUPLAN_TR(sv->interconnect),
                       GPUPLAN_TR(sv->network));
    if (p->has_cloud_rate && p->cloud_tier[0])
        gpuplan_buf_printf(out,
                           GPUPLAN_TR("  cloud rate: %.2f USD/hour for the plan's GPUs, %s tier, "
                                      "%s%s\n"),
                           p->cost_usd_per_hour, GPUPLAN_TR(p->cloud_tier), p->cloud_provider,
                           p->rate_fallback ? GPUPLAN_TR(" (no rate at the asked tier: not ranked "
                                                         "by cost)")
                                            : "");
    if (p->maturity[0])
        gpuplan_buf_printf(out, GPUPLAN_TR("  stack: %s\n"), p->maturity);
    if (p->variants[0] && !p->is_serving)
        gpuplan_buf_printf(out, GPUPLAN_TR("  also: %s\n"), p->variants);
    if (p->is_serving)
        render_plan_serving_details(p, out);
    else if (p->has_own_cost && p->has_time)
        gpuplan_buf_printf(out,
                           GPUPLAN_TR("  own: %.0f USD per hour of use (TCO at the stated use), "
                                      "%.0f USD for this run\n"),
                           p->own_usd_per_hour, p->own_cost_usd);
    else if (p->has_own_cost)
        gpuplan_buf_printf(out,
                           GPUPLAN_TR("  own: %.2f USD per hour of use (TCO at the stated use)\n"),
                           p->own_usd_per_hour);
    for (size_t i = 0; i < p->n_reasons; i++)
        gpuplan_buf_printf(out, GPUPLAN_TR("  why: %s\n"), p->reasons[i]);
    for (size_t i = 0; i < p->n_warnings; i++)
        gpuplan_buf_printf(out, GPUPLAN_TR("  warning: %s\n"), p->warnings[i]);
}

/* A serving result: the load and targets, the plans (or the nearest misses), the front. */
static enum gpuplan_status render_serving_text(const struct gpuplan_plan_result *r,
                                               struct gpuplan_buf *out,
                                               struct gpuplan_error *err)
{
    render_plan_serving_header(r, out);
    const struct gpuplan_plan *plans = r->n_top ? r->top : r->misses;
    const size_t n = r->n_top ? r->n_top : r->n_misses;
    if (n) {
        if (!r->n_top)
            gpuplan_buf_puts(out, GPUPLAN_TR("nearest misses:\n"));
        gpuplan_buf_puts(out, render_plan_serving_table_head());
        for (size_t i = 0; i < n; i++)
            render_plan_serving_row(&plans[i], i + 1, out);
        if (r->n_top && (r->has_best_rent || r->has_best_buy)) {
            gpuplan_buf_puts(out, GPUPLAN_TR("\nrent or buy:\n"));
            if (r->has_best_rent)
                side_line(&r->best_rent, false, out);
            if (r->has_best_buy)
                side_line(&r->best_buy, true, out);
        }
        for (size_t i = 0; i < n; i++)
            text_details(&plans[i], i + 1, out);
    }
    if (r->n_pareto > 1) {
        gpuplan_buf_puts(out, GPUPLAN_TR("\nlatency vs cost (Pareto set):\n"));
        gpuplan_buf_puts(out, render_plan_serving_table_head());
        for (size_t i = 0; i < r->n_pareto; i++)
            render_plan_serving_row(&r->pareto[i], i + 1, out);
    }
    for (size_t i = 0; i < r->n_notes; i++)
        gpuplan_buf_printf(out, GPUPLAN_TR("%snote: %s\n"), i == 0 ? "\n" : "", r->notes[i]);
    return gpuplan_buf_status(out, err);
}

static enum gpuplan_status
render_text(const struct gpuplan_plan_result *r, struct gpuplan_buf *out, struct gpuplan_error *err)
{
    if (r->request.job.method == GPUPLAN_METHOD_INFER)
        return render_serving_text(r, out, err);
    gpuplan_buf_printf(
        out,
        GPUPLAN_TR(
            "%s: %llu candidates evaluated, %llu fit, %llu meet the constraints (objective %s, %s)\n\n"),
        r->model_id[0] ? r->model_id : GPUPLAN_TR("model"), (unsigned long long)r->evaluated,
        (unsigned long long)r->fitting, (unsigned long long)r->feasible,
        gpuplan_plan_objective_name(r->request.objective),
        gpuplan_plan_where_name(r->request.where));
    if (r->n_top) {
        gpuplan_buf_puts(out, GPUPLAN_TR(table_head));
        for (size_t i = 0; i < r->n_top; i++)
            text_row(&r->top[i], i + 1, out);
        if (r->has_best_rent || r->has_best_buy) {
            gpuplan_buf_puts(out, GPUPLAN_TR("\nrent or buy:\n"));
            if (r->has_best_rent)
                side_line(&r->best_rent, false, out);
            if (r->has_best_buy)
                side_line(&r->best_buy, true, out);
        }
        for (size_t i = 0; i < r->n_top; i++)
            text_details(&r->top[i], i + 1, out);
    } else if (r->n_misses) {
        gpuplan_buf_puts(out, GPUPLAN_TR("no plan meets the constraints; the nearest misses:\n"));
        gpuplan_buf_puts(out, GPUPLAN_TR(table_head));
        for (size_t i = 0; i < r->n_misses; i++)
            text_row(&r->misses[i], i + 1, out);
        for (size_t i = 0; i < r->n_misses; i++)
            text_details(&r->misses[i], i + 1, out);
    } else {
        gpuplan_buf_puts(out, GPUPLAN_TR("no plan meets the constraints\n"));
    }
    if (r->n_pareto) {
        gpuplan_buf_puts(out, GPUPLAN_TR("\ntime vs cost (Pareto set):\n"));
        gpuplan_buf_puts(out, GPUPLAN_TR(table_head));
        for (size_t i = 0; i < r->n_pareto; i++)
            text_row(&r->pareto[i], i + 1, out);
    }
    for (size_t i = 0; i < r->n_notes; i++)
        gpuplan_buf_printf(out, GPUPLAN_TR("%snote: %s\n"), i == 0 ? "\n" : "", r->notes[i]);
    return gpuplan_buf_status(out, err);
}

/* ---- CSV: every listed plan, one RFC 4180 row each ---------------------- */

static const char *const csv_head[] = {
    "list",        "rank",         "gpu",         "nodes",     "gpus_per_node",
    "method",      "precision",    "sharding",    "tp",        "pp",
    "ep",          "replicas",     "micro_batch", "grad_ckpt", "offload",
    "gib_per_gpu", "tokens_per_s", "time_hours",  "ttft_ms",   "tpot_ms",
    "cloud_usd",   "usd_per_hour", "capex_usd",   "own_usd",   "platform",
    "servers",
};
#define CSV_COLS (sizeof csv_head / sizeof csv_head[0])

/* `v` with `decimals` when known, else the empty cell (CSV's unknown, JSON's null). */
static void csv_num(char *dst, size_t size, bool known, int decimals, double v)
{
    if (known && isfinite(v))
        snprintf(dst, size, "%.*f", decimals, v);
    else
        dst[0] = '\0';
}

static void
csv_plan(const char *list, const struct gpuplan_plan *p, size_t rank, struct gpuplan_buf *out)
{
    const struct gpuplan_job *j = &p->job;
    const struct gpuplan_plan_serving *sv = &p->serving;
    char c[CSV_COLS][64];
    snprintf(c[0], sizeof c[0], "%s", list);
    snprintf(c[1], sizeof c[1], "%zu", rank);
    snprintf(c[2], sizeof c[2], "%s", p->gpu ? p->gpu->id : "");
    snprintf(c[3], sizeof c[3], "%u", p->nodes);
    snprintf(c[4], sizeof c[4], "%u", p->gpus_per_node);
    snprintf(c[5], sizeof c[5], "%s", gpuplan_method_name(j->method));
    snprintf(c[6], sizeof c[6], "%s", gpuplan_precision_name(j->precision));
    snprintf(c[7], sizeof c[7], "%s", gpuplan_sharding_name(j->sharding));
    snprintf(c[8], sizeof c[8], "%u", p->is_serving ? sv->tp : j->tp);
    snprintf(c[9], sizeof c[9], "%u", p->is_serving ? sv->pp : j->pp);
    snprintf(c[10], sizeof c[10], "%u", p->is_serving ? sv->ep : j->ep);
    snprintf(c[11], sizeof c[11], "%u", p->is_serving ? sv->replicas : 1u);
    snprintf(c[12], sizeof c[12], "%llu", (unsigned long long)j->micro_batch);
    snprintf(c[13], sizeof c[13], "%s", gpuplan_grad_ckpt_name(j->grad_ckpt));
    snprintf(c[14], sizeof c[14], "%s", gpuplan_offload_name(j->offload));
    csv_num(c[15], sizeof c[15], true, 2, gpuplan_gib_from_bytes(p->memory_per_gpu_bytes));
    csv_num(c[16], sizeof c[16], true, 1, p->tokens_per_s);
    csv_num(c[17], sizeof c[17], p->has_time, 2, p->time_hours);
    csv_num(c[18], sizeof c[18], p->is_serving, 1, sv->ttft_s * 1e3);
    csv_num(c[19], sizeof c[19], p->is_serving, 2, sv->tpot_s * 1e3);
    csv_num(c[20], sizeof c[20], p->has_time && p->has_cloud_rate, 2, p->cost_usd);
    csv_num(c[21], sizeof c[21], p->has_cloud_rate, 2, p->cost_usd_per_hour);
    csv_num(c[22], sizeof c[22], p->has_capex, 2, p->capex_usd);
    csv_num(c[23], sizeof c[23], p->has_own_cost && p->has_time, 2, p->own_cost_usd);
    snprintf(c[24], sizeof c[24], "%s", p->server.platform_id);
    snprintf(c[25], sizeof c[25], "%u", p->server.n_servers);
    const char *cells[CSV_COLS];
    for (size_t i = 0; i < CSV_COLS; i++)
        cells[i] = c[i];
    gpuplan_csv_row(out, cells, CSV_COLS);
}

/* The recommendations, the Pareto set and (serving) the nearest misses, in that order;
 * figures unrounded beyond the text table's precision, unknown ones empty. */
static enum gpuplan_status
render_csv(const struct gpuplan_plan_result *r, struct gpuplan_buf *out, struct gpuplan_error *err)
{
    gpuplan_csv_row(out, csv_head, CSV_COLS);
    for (size_t i = 0; i < r->n_top; i++)
        csv_plan("recommended", &r->top[i], i + 1, out);
    for (size_t i = 0; i < r->n_pareto; i++)
        csv_plan("pareto", &r->pareto[i], i + 1, out);
    for (size_t i = 0; i < r->n_misses; i++)
        csv_plan("nearest_miss", &r->misses[i], i + 1, out);
    return gpuplan_buf_status(out, err);
}

enum gpuplan_status gpuplan_render_plan_from(const struct gpuplan_plan_result *result,
                                             const struct gpuplan_config *config,
                                             enum gpuplan_format format,
                                             struct gpuplan_buf *out,
                                             struct gpuplan_error *err)
{
    if (gpuplan_format_check(format, GPUPLAN_RENDER_PLAN_FORMATS, err) != GPUPLAN_OK)
        return GPUPLAN_ERR_USAGE;
    if (format == GPUPLAN_FORMAT_JSON)
        return render_json(result, config, out, err);
    if (format == GPUPLAN_FORMAT_CSV)
        return render_csv(result, out, err);
    const enum gpuplan_status st = render_text(result, out, err);
    if (st == GPUPLAN_OK && config) {
        gpuplan_config_text(config, out);
        return gpuplan_buf_status(out, err);
    }
    return st;
}

enum gpuplan_status gpuplan_render_plan(const struct gpuplan_plan_result *result,
                                        enum gpuplan_format format,
                                        struct gpuplan_buf *out,
                                        struct gpuplan_error *err)
{
    return gpuplan_render_plan_from(result, NULL, format, out, err);
}
