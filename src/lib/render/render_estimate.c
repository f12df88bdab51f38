/*
 * render_estimate.c - `gpuplan estimate` as text and JSON.
 *
 * Formats a struct gpuplan_estimate (gpuplan_estimate_run: the memory
 * report and, with a GPU, its throughput and cloud cost; serving jobs
 * through render_serving.c); computes nothing.
 * Rounds only here (GiB with two decimals in text; JSON carries exact bytes).
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/cost.h"
#include "gpuplan/estimate.h"
#include "gpuplan/render.h"
#include "gpuplan/throughput.h"
#include "gpuplan/units.h"
#include "render/render_internal.h"
#include "util/json_internal.h"

#include "util/i18n_internal.h"

struct row {
    const char *name;
    uint64_t bytes;
};

static json_t *interval_json(const struct gpuplan_interval *iv);

static void rows_of(const struct gpuplan_memory_per_gpu *g, struct row rows[11])
{
    const struct row r[11] = {
        { GPUPLAN_N_("weights"), g->weights_bytes },
        { GPUPLAN_N_("gradients"), g->gradients_bytes },
        { GPUPLAN_N_("optimizer"), g->optimizer_bytes },
        { GPUPLAN_N_("activations"), g->activations_bytes },
        { GPUPLAN_N_("adapters"), g->adapters_bytes },
        { GPUPLAN_N_("kv_cache"), g->kv_cache_bytes },
        { GPUPLAN_N_("overhead"), g->overhead_bytes },
        { GPUPLAN_N_("cuda_context"), g->cuda_context_bytes },
        { GPUPLAN_N_("peak_allocated"), g->peak_allocated_bytes },
        { GPUPLAN_N_("peak_reserved"), g->peak_reserved_bytes },
        { GPUPLAN_N_("device_total"), g->device_total_bytes },
    };
    memcpy(rows, r, sizeof r);
}

/* `j` is resolved (gpuplan_estimate: the job as gpuplan_job_resolve completes it). */
static void job_line(const struct gpuplan_job *job, struct gpuplan_buf *out)
{
    const struct gpuplan_job j = *job;
    gpuplan_buf_printf(
        out, GPUPLAN_TR("job: %s, %s, %s%s, seq %llu x micro-batch %llu, ckpt %s, attention %s"),
        gpuplan_method_name(j.method), gpuplan_precision_name(j.precision),
        gpuplan_optimizer_name(j.optimizer), j.optim_in_bwd ? GPUPLAN_TR(" (in backward)") : "",
        (unsigned long long)j.seq_len, (unsigned long long)j.micro_batch,
        gpuplan_grad_ckpt_name(j.grad_ckpt), gpuplan_attention_name(j.attention));
    if (j.method != GPUPLAN_METHOD_FULL)
        gpuplan_buf_printf(out, GPUPLAN_TR(", lora r%u on %s"), j.lora_rank, j.lora_targets);
    if (j.method == GPUPLAN_METHOD_QLORA)
        gpuplan_buf_printf(out, GPUPLAN_TR(", base %s"), gpuplan_dtype_name(j.quant));
    gpuplan_buf_printf(
        out,
        GPUPLAN_TR("\nparallel: %u node(s) x %u GPU(s), sharding %s, tp %u, pp %u, offload %s\n"),
        j.nodes, j.gpus_per_node, gpuplan_sharding_name(j.sharding), j.tp, j.pp,
        gpuplan_offload_name(j.offload));
    if (j.cp > 1)
        gpuplan_buf_printf(out,
                           GPUPLAN_TR("context parallel: cp %u (each sequence split over %u ranks, "
                                      "%llu tokens each)\n"),
                           j.cp, j.cp, (unsigned long long)((j.seq_len + j.cp - 1) / j.cp));
    gpuplan_buf_printf(out, GPUPLAN_TR("stack: %s (its defaults for the options not given)\n"),
                       gpuplan_framework_name(j.stack));
}

/* "  range of QUANTITY: ..." naming the class the bounds come from. */
static void
interval_text(const char *quantity, const struct gpuplan_interval *iv, struct gpuplan_buf *out)
{
    if (strcmp(iv->class_name, iv->bounds_from) == 0)
        gpuplan_buf_printf(
            out,
            GPUPLAN_TR("  ranges (%s): 80 %% interval of the out-of-sample errors of "
                       "class %s (%u rows)\n"),
            quantity, iv->class_name, iv->n_used);
    else
        gpuplan_buf_printf(out,
                           GPUPLAN_TR("  ranges (%s): 80 %% interval of the out-of-sample errors; "
                                      "class %s has %u rows, the bounds are %s's (%u rows)\n"),
                           quantity, iv->class_name, iv->n_rows, iv->bounds_from, iv->n_used);
}

/* ---- throughput ------------------------------------------------------ */

static json_t *sig(double v)
{
    return json_real(isfinite(v) ? v : 0.0);
}

static enum gpuplan_status throughput_json_into(const struct gpuplan_throughput *t,
                                                const char *platform_id,
                                                struct json_t *obj,
                                                struct gpuplan_error *err)
{
    json_t *tp = json_object();
    json_t *time = json_object();
    if (!tp || !time) {
        json_decref(tp);
        json_decref(time);
        return gpuplan_error_set(err, GPUPLAN_ERR_NOMEM, NULL, "out of memory rendering JSON");
    }
    int bad = 0;
    bad |= json_object_set_new(tp, "tokens_per_s_per_gpu",
                               sig(gpuplan_round_to(t->tokens_per_s_per_gpu, 0.1)));
    bad |= json_object_set_new(tp, "tokens_per_s", sig(gpuplan_round_to(t->tokens_per_s, 0.1)));
    bad |= json_object_set_new(tp, "step_time_s", sig(t->step_time_s));
    bad |= json_object_set_new(tp, "mfu", sig(gpuplan_round_to(t->mfu, 0.0001)));
    bad |=
        json_object_set_new(tp, "bottleneck", json_string(gpuplan_bottleneck_name(t->bottleneck)));
    bad |= json_object_set_new(tp, "compute_s", sig(t->compute_s));
    bad |= json_object_set_new(tp, "memory_s", sig(t->memory_s));
    bad |= json_object_set_new(tp, "comm_s", sig(t->comm_s));
    bad |= json_object_set_new(tp, "comm_total_s", sig(t->comm_total_s));
    bad |= json_object_set_new(tp, "offload_s", sig(t->offload_s));
    bad |= json_object_set_new(tp, "flops_per_token", sig(t->flops_per_token));
    bad |= json_object_set_new(tp, "flops_forward_per_token", sig(t->flops_forward_per_token));
    bad |= json_object_set_new(tp, "flops_backward_per_token", sig(t->flops_backward_per_token));
    bad |= json_object_set_new(tp, "flops_recompute_per_token", sig(t->flops_recompute_per_token));
    bad |= json_object_set_new(tp, "flops_attention_per_token", sig(t->flops_attention_per_token));
    bad |= json_object_set_new(tp, "model_flops_per_token", sig(t->model_flops_per_token));
    bad |= json_object_set_new(tp, "peak_tflops", sig(t->peak_tflops));
    bad |= json_object_set_new(tp, "efficiency", sig(gpuplan_round_to(t->efficiency, 0.0001)));
    bad |=
        json_object_set_new(tp, "achieved_tflops", sig(gpuplan_round_to(t->achieved_tflops, 0.01)));
    bad |= json_object_set_new(tp, "tokens_per_step", sig(t->tokens_per_step));
    bad |= json_object_set_new(tp, "dp", json_integer(t->dp));
    bad |= json_object_set_new(tp, "tp", json_integer(t->tp));
    bad |= json_object_set_new(tp, "pp", json_integer(t->pp));
    /* the server whose network the collectives across nodes used; null: the stated assumption */
    bad |= json_object_set_new(tp, "network_platform",
                               platform_id[0] ? json_string(platform_id) : json_null());
    bad |= json_object_set_new(time, "train_hours",
                               t->has_train_time ? sig(gpuplan_round_to(t->train_hours, 0.01))
                                                 : json_null());
    bad |= json_object_set_new(time, "train_tokens",
                               t->has_train_time ? sig(t->train_tokens) : json_null());
    bad |= json_object_set_new(obj, "throughput", tp);
    bad |= json_object_set_new(obj, "time", time);
    if (bad)
        return gpuplan_error_set(err, GPUPLAN_ERR_NOMEM, NULL, "out of memory rendering JSON");
    return GPUPLAN_OK;
}

static void throughput_text(const struct gpuplan_throughput *t,
                            const struct gpuplan_estimate_ranges *rg,
                            struct gpuplan_buf *out)
{
    gpuplan_buf_puts(out, GPUPLAN_TR("throughput:\n"));
    if (rg->has_throughput)
        gpuplan_buf_printf(out,
                           GPUPLAN_TR("  tokens/s          %.0f per GPU (%.0f-%.0f), %.0f total\n"),
                           t->tokens_per_s_per_gpu, rg->tokens_per_s_per_gpu_low,
                           rg->tokens_per_s_per_gpu_high, t->tokens_per_s);
    else
        gpuplan_buf_printf(out, GPUPLAN_TR("  tokens/s          %.0f per GPU, %.0f total\n"),
                           t->tokens_per_s_per_gpu, t->tokens_per_s);
    gpuplan_buf_printf(
        out,
        GPUPLAN_TR("  step time         %.3f s (compute %.3f, memory %.3f, comm %.3f, "
                   "offload %.3f)\n"),
        t->step_time_s, t->compute_s, t->memory_s, t->comm_s, t->offload_s);
    if (rg->has_throughput)
        gpuplan_buf_printf(out, GPUPLAN_TR("  step time range   %.3f-%.3f s\n"),
                           rg->step_time_s_low, rg->step_time_s_high);
    gpuplan_buf_printf(
        out, GPUPLAN_TR("  MFU               %.1f %% (efficiency %.1f %% of %.0f TFLOPS)\n"),
        t->mfu * 100.0, t->efficiency * 100.0, t->peak_tflops);
    gpuplan_buf_printf(
        out, GPUPLAN_TR("  FLOPs per token   %.3g (forward %.3g, backward %.3g, recompute %.3g)\n"),
        t->flops_per_token, t->flops_forward_per_token, t->flops_backward_per_token,
        t->flops_recompute_per_token);
    gpuplan_buf_printf(out, GPUPLAN_TR("  bottleneck        %s\n"),
                       gpuplan_bottleneck_name(t->bottleneck));
    if (t->has_train_time && rg->has_train_time)
        gpuplan_buf_printf(
            out, GPUPLAN_TR("  time to train     %.1f h (%.1f-%.1f) for %.3g tokens\n"),
            t->train_hours, rg->train_hours_low, rg->train_hours_high, t->train_tokens);
    else if (t->has_train_time)
        gpuplan_buf_printf(out, GPUPLAN_TR("  time to train     %.1f h for %.3g tokens\n"),
                           t->train_hours, t->train_tokens);
    if (rg->has_throughput)
        interval_text(GPUPLAN_TR("throughput"), &rg->throughput, out);
}

void gpuplan_estimate_rate_label(const struct gpuplan_estimate *e, char *dst, size_t size)
{
    const struct gpuplan_estimate_cost *c = &e->cost;
    const char *date = e->gpu_cloud_date[0] ? e->gpu_cloud_date : GPUPLAN_TR("undated");
    (void)snprintf(dst, size, "%s %s, %s",
                   GPUPLAN_TR(gpuplan_cloud_tier_name((enum gpuplan_cloud_tier)c->tier)),
                   c->provider, date);
}

void gpuplan_estimate_rate_note(const struct gpuplan_estimate *e, struct gpuplan_buf *out)
{
    const struct gpuplan_estimate_cost *c = &e->cost;
    if (c->rate_fallback && c->usd_per_gpu_hour > 0)
        gpuplan_buf_printf(
            out,
            GPUPLAN_TR("note: %s has no %s rate in the catalog; the %s rate is "
                       "used instead\n"),
            e->gpu_id, GPUPLAN_TR(gpuplan_cloud_tier_name((enum gpuplan_cloud_tier)c->tier_asked)),
            GPUPLAN_TR(gpuplan_cloud_tier_name((enum gpuplan_cloud_tier)c->tier)));
}

static void time_text(const struct gpuplan_estimate *e, struct gpuplan_buf *out)
{
    const struct gpuplan_estimate_cost *c = &e->cost;
    char label[160];
    gpuplan_estimate_rate_label(e, label, sizeof label);
    gpuplan_buf_puts(out, "\n");
    if (!e->has_throughput) {
        gpuplan_buf_printf(out, GPUPLAN_TR("throughput: not estimated: %s\n"), e->throughput_error);
        return;
    }
    throughput_text(&e->throughput, &e->ranges, out);
    if (e->job.nodes > 1 && e->platform_id[0])
        gpuplan_buf_printf(out,
                           GPUPLAN_TR("  network           across servers: the NICs of %s, "
                                      "the server this GPU is sold in\n"),
                           e->platform_id);
    else if (e->job.nodes > 1)
        gpuplan_buf_puts(out, GPUPLAN_TR("  network           across servers: the time model's "
                                         "assumption, one 400 Gb/s NIC per GPU (several "
                                         "servers hold this GPU: gpuplan recommend prices "
                                         "each)\n"));
    if (!e->throughput.has_train_time) {
        gpuplan_buf_puts(
            out,
            GPUPLAN_TR("time to train: pass --tokens N (or --dataset-tokens N) [--epochs E]\n"));
        return;
    }
    if (c->has_cloud_usd) {
        gpuplan_buf_printf(
            out,
            GPUPLAN_TR("cost: %.2f USD cloud (%.1f GPU-hours at %.2f USD/GPU-hour, catalog "
                       "%s)\n"),
            c->cloud_usd, c->gpu_hours, c->usd_per_gpu_hour, label);
        gpuplan_estimate_rate_note(e, out);
    } else
        gpuplan_buf_printf(
            out, GPUPLAN_TR("cost: %.1f GPU-hours; no cloud rate for '%s' in the catalog\n"),
            c->gpu_hours, e->gpu_id);
}

/* Two decimals (cents, hundredths of an hour), or null when unknown. */
static json_t *hundredths_or_null(bool has, double v)
{
    return has && isfinite(v) ? json_real(round(v * 100.0) / 100.0) : json_null();
}

/* "throughput", "time" (train_hours null without a token count) and "cost" keys; serving:
 * "cost" only (its figures are the "serving" object's). */
static enum gpuplan_status
time_json(const struct gpuplan_estimate *e, json_t *root, struct gpuplan_error *err)
{
    const struct gpuplan_estimate_cost *c = &e->cost;
    if (!e->is_serving && !e->has_throughput) {
        json_object_set_new(root, "throughput_error", json_string(e->throughput_error));
        return GPUPLAN_OK;
    }
    const enum gpuplan_status st =
        e->is_serving ? GPUPLAN_OK
                      : throughput_json_into(&e->throughput, e->platform_id, root, err);
    if (st != GPUPLAN_OK)
        return st;
    const struct gpuplan_estimate_ranges *rg = &e->ranges;
    if (rg->has_throughput) {
        json_t *tp = json_object_get(root, "throughput");
        json_t *time = json_object_get(root, "time");
        json_object_set_new(tp, "tokens_per_s_per_gpu_low",
                            sig(gpuplan_round_to(rg->tokens_per_s_per_gpu_low, 0.1)));
        json_object_set_new(tp, "tokens_per_s_per_gpu_high",
                            sig(gpuplan_round_to(rg->tokens_per_s_per_gpu_high, 0.1)));
        json_object_set_new(tp, "step_time_s_low", sig(rg->step_time_s_low));
        json_object_set_new(tp, "step_time_s_high", sig(rg->step_time_s_high));
        json_object_set_new(tp, "interval", interval_json(&rg->throughput));
        json_object_set_new(time, "train_hours_low",
                            rg->has_train_time ? sig(gpuplan_round_to(rg->train_hours_low, 0.01))
                                               : json_null());
        json_object_set_new(time, "train_hours_high",
                            rg->has_train_time ? sig(gpuplan_round_to(rg->train_hours_high, 0.01))
                                               : json_null());
    }
    json_t *cost = json_object();
    const bool rated = c->usd_per_gpu_hour > 0;
    json_object_set_new(cost, "usd_per_gpu_hour",
                        rated ? json_real(c->usd_per_gpu_hour) : json_null());
    json_object_set_new(
        cost, "cloud_tier_asked",
        json_string(gpuplan_cloud_tier_name((enum gpuplan_cloud_tier)c->tier_asked)));
    json_object_set_new(cost, "cloud_tier",
                        rated
                            ? json_string(gpuplan_cloud_tier_name((enum gpuplan_cloud_tier)c->tier))
                            : json_null());
    json_object_set_new(cost, "cloud_provider", rated ? json_string(c->provider) : json_null());
    json_object_set_new(cost, "rate_date",
                        rated && e->gpu_cloud_date[0] ? json_string(e->gpu_cloud_date)
                                                      : json_null());
    json_object_set_new(cost, "rate_fallback", json_boolean(rated && c->rate_fallback));
    json_object_set_new(cost, "n_gpus", json_integer(c->n_gpus));
    json_object_set_new(cost, "gpu_hours", hundredths_or_null(c->has_gpu_hours, c->gpu_hours));
    json_object_set_new(cost, "cloud_usd", hundredths_or_null(c->has_cloud_usd, c->cloud_usd));
    if (e->is_serving)
        json_object_set_new(cost, "usd_per_million_output_tokens",
                            hundredths_or_null(c->has_usd_per_mtok, c->usd_per_mtok));
    json_object_set_new(root, "cost", cost);
    return GPUPLAN_OK;
}

/*
 * The verdict: from the device-total range when there is one (FITS: its top
 * fits; MAY NOT FIT: it straddles the usable memory; DOES NOT FIT: its
 * bottom does not fit), else from the estimate itself.
 */
static void verdict_text(const struct gpuplan_estimate *est, struct gpuplan_buf *out)
{
    const struct gpuplan_memory_estimate *e = &est->memory.est;
    const struct gpuplan_estimate_ranges *rg = &est->ranges;
    const double head_gib = (double)e->headroom_bytes / (double)GPUPLAN_BYTES_PER_GIB;
    const double usable_gib = gpuplan_gib_from_bytes(e->gpu_usable_bytes);
    if (!rg->has_verdict) {
        gpuplan_buf_printf(out, GPUPLAN_TR("\nverdict: %s on %s (%.2f GiB usable): %s %.2f GiB\n"),
                           e->fits ? GPUPLAN_TR("FITS") : GPUPLAN_TR("DOES NOT FIT"), est->gpu_id,
                           usable_gib, e->fits ? GPUPLAN_TR("headroom") : GPUPLAN_TR("short by"),
                           e->fits ? head_gib : -head_gib);
        return;
    }
    const double low_gib = gpuplan_gib_from_bytes(rg->device_total_low_bytes);
    const double high_gib = gpuplan_gib_from_bytes(rg->device_total_high_bytes);
    switch (rg->verdict) {
    case GPUPLAN_VERDICT_FITS:
        gpuplan_buf_printf(out,
                           GPUPLAN_TR("\nverdict: FITS on %s (%.2f GiB usable): headroom %.2f GiB, "
                                      "%.2f GiB at the top of the range\n"),
                           est->gpu_id, usable_gib, head_gib, usable_gib - high_gib);
        break;
    case GPUPLAN_VERDICT_MAY_NOT_FIT:
        gpuplan_buf_printf(out,
                           GPUPLAN_TR("\nverdict: MAY NOT FIT on %s (%.2f GiB usable): the device "
                                      "total range %.2f-%.2f GiB straddles it, the top is over by "
                                      "%.2f GiB (the estimate: %s %.2f GiB)\n"),
                           est->gpu_id, usable_gib, low_gib, high_gib,
                           (double)rg->over_bytes / (double)GPUPLAN_BYTES_PER_GIB,
                           e->fits ? GPUPLAN_TR("headroom") : GPUPLAN_TR("short by"),
                           e->fits ? head_gib : -head_gib);
        break;
    default:
        if (e->fits) /* a class whose every error is under: even the bottom is above the estimate */
            gpuplan_buf_printf(out,
                               GPUPLAN_TR("\nverdict: DOES NOT FIT on %s (%.2f GiB usable): the "
                                          "estimate fits (headroom %.2f GiB) but the bottom of its "
                                          "range is over by %.2f GiB\n"),
                               est->gpu_id, usable_gib, head_gib, low_gib - usable_gib);
        else
            gpuplan_buf_printf(
                out,
                GPUPLAN_TR("\nverdict: DOES NOT FIT on %s (%.2f GiB usable): short by "
                           "%.2f GiB, %.2f GiB at the bottom of the range\n"),
                est->gpu_id, usable_gib, -head_gib, low_gib - usable_gib);
        break;
    }
}

static void render_text(const struct gpuplan_estimate *est, struct gpuplan_buf *out)
{
    const struct gpuplan_memory_report *r = &est->memory;
    const struct gpuplan_memory_estimate *e = &r->est;
    gpuplan_buf_printf(out, GPUPLAN_TR("model: %s (%llu parameters)\n"), est->model_id,
                       (unsigned long long)est->n_params);
    if (est->is_serving)
        render_serving_job_text(est, out);
    else
        job_line(&est->job, out);
    gpuplan_buf_puts(out, GPUPLAN_TR("\nper GPU                  GiB\n"));
    struct row rows[11];
    rows_of(&e->per_gpu, rows);
    const struct gpuplan_estimate_ranges *rg = &est->ranges;
    const uint64_t lows[3] = { rg->peak_allocated_low_bytes, rg->peak_reserved_low_bytes,
                               rg->device_total_low_bytes };
    const uint64_t highs[3] = { rg->peak_allocated_high_bytes, rg->peak_reserved_high_bytes,
                                rg->device_total_high_bytes };
    for (size_t i = 0; i < 11; i++) {
        if (i == 8)
            gpuplan_buf_puts(out, "  --------------------------\n");
        const char *label = GPUPLAN_TR(rows[i].name);
        gpuplan_buf_printf(out, "  %-*s %9.2f", gpuplan_tr_width(label, 16), label,
                           gpuplan_gib_from_bytes(rows[i].bytes));
        if (i >= 8 && rg->has_memory)
            gpuplan_buf_printf(out, "  (%.2f-%.2f)", gpuplan_gib_from_bytes(lows[i - 8]),
                               gpuplan_gib_from_bytes(highs[i - 8]));
        gpuplan_buf_puts(out, "\n");
    }
    if (e->per_gpu.reserved_varlen_high_bytes > 0)
        gpuplan_buf_printf(
            out,
            GPUPLAN_TR("  reserved band    %9.2f-%.2f  (variable-length batches: the caching "
                       "allocator keeps blocks of every shape and grows towards the free memory; "
                       "it frees them and retries before it would fail, so the verdict reads the "
                       "largest shape)\n"),
            gpuplan_gib_from_bytes(e->per_gpu.peak_reserved_bytes),
            gpuplan_gib_from_bytes(e->per_gpu.reserved_varlen_high_bytes));
    if (e->per_gpu.load_peak_bytes > 0)
        gpuplan_buf_printf(
            out,
            GPUPLAN_TR("  load moment      %9.2f  (DeepSpeed moves the whole %s model to every GPU "
                       "before ZeRO-3 partitions it%s; a model built under deepspeed.zero.Init "
                       "arrives partitioned)\n"),
            gpuplan_gib_from_bytes(e->per_gpu.load_peak_bytes),
            est->job.precision == GPUPLAN_PRECISION_FP32 ? "fp32" : GPUPLAN_TR("16-bit"),
            e->per_gpu.load_peak_bytes >= e->per_gpu.peak_allocated_bytes ? GPUPLAN_TR(": the peak")
                                                                          : "");
    if (rg->has_memory) {
        interval_text(GPUPLAN_TR("allocated"), &rg->allocated, out);
        interval_text(GPUPLAN_TR("reserved, device total"), &rg->reserved, out);
    }
    gpuplan_buf_printf(out, GPUPLAN_TR("\nhost (per node)\n  ram              %9.2f\n"),
                       gpuplan_gib_from_bytes(e->host_ram_bytes));
    if (est->is_serving)
        render_serving_pool_text(est, out);
    if (!est->has_gpu) {
        gpuplan_buf_puts(out, GPUPLAN_TR("\nno --gpu given: no fit verdict\n"));
        return;
    }
    verdict_text(est, out);
    if (r->n_suggestions) {
        gpuplan_buf_puts(out, GPUPLAN_TR("suggestions:\n"));
        for (size_t i = 0; i < r->n_suggestions; i++)
            gpuplan_buf_printf(out, GPUPLAN_TR("  %-40s -%.1f GiB%s\n"), r->suggestions[i].change,
                               (double)r->suggestions[i].saving_bytes /
                                   (double)GPUPLAN_BYTES_PER_GIB,
                               r->suggestions[i].fits ? GPUPLAN_TR(" (fits)") : "");
    }
    const bool timed = est->is_serving ? est->serving.has_time : est->has_throughput;
    if (!e->fits && timed)
        gpuplan_buf_puts(out, GPUPLAN_TR("\nif it fitted (it does not; what it would do with "
                                         "the memory, not a run):\n"));
    if (est->is_serving)
        render_serving_time_text(est, out);
    else
        time_text(est, out);
}

/* `job` is resolved (as job_line). */
static json_t *job_json(const struct gpuplan_job *job)
{
    const struct gpuplan_job j = *job;
    json_t *o = json_object();
    json_object_set_new(o, "stack", json_string(gpuplan_framework_name(j.stack)));
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
    json_object_set_new(o, "cp", json_integer(j.cp));
    json_object_set_new(o, "gpus_per_node", json_integer(j.gpus_per_node));
    json_object_set_new(o, "nodes", json_integer(j.nodes));
    json_object_set_new(o, "input_tokens", json_integer((json_int_t)j.input_tokens));
    json_object_set_new(o, "output_tokens", json_integer((json_int_t)j.output_tokens));
    json_object_set_new(o, "concurrency", json_integer((json_int_t)j.concurrency));
    json_object_set_new(o, "ep", json_integer(j.ep));
    json_object_set_new(o, "engine", json_string(gpuplan_serving_engine_name(j.engine)));
    json_object_set_new(o, "engine_version", json_string(j.engine_version));
    json_object_set_new(o, "kv_dtype", json_string(gpuplan_serving_kv_dtype_name(j.kv_dtype)));
    char weights[32];
    json_object_set_new(
        o, "weights", json_string(gpuplan_weights_name(j.weights_dtype, weights, sizeof weights)));
    return o;
}

static json_t *bytes_json(uint64_t v)
{
    return json_integer(v > (uint64_t)INT64_MAX ? INT64_MAX : (json_int_t)v);
}

/* {class, bounds_from, n_rows, n_used, factor_low, factor_high}: measured / predicted. */
static json_t *interval_json(const struct gpuplan_interval *iv)
{
    json_t *o = json_object();
    json_object_set_new(o, "class", json_string(iv->class_name));
    json_object_set_new(o, "bounds_from", json_string(iv->bounds_from));
    json_object_set_new(o, "n_rows", json_integer(iv->n_rows));
    json_object_set_new(o, "n_used", json_integer(iv->n_used));
    json_object_set_new(o, "factor_low", json_real(gpuplan_round_to(iv->factor_low, 0.0001)));
    json_object_set_new(o, "factor_high", json_real(gpuplan_round_to(iv->factor_high, 0.0001)));
    return o;
}

static enum gpuplan_status render_json(const struct gpuplan_estimate *est,
                                       const struct gpuplan_config *cfg,
                                       bool check,
                                       struct gpuplan_buf *out,
                                       struct gpuplan_error *err)
{
    const struct gpuplan_memory_report *r = &est->memory;
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
    json_object_set_new(per_gpu, "load_peak_bytes", bytes_json(e->per_gpu.load_peak_bytes));
    json_object_set_new(per_gpu, "reserved_varlen_high_bytes",
                        bytes_json(e->per_gpu.reserved_varlen_high_bytes));
    const struct gpuplan_estimate_ranges *rg = &est->ranges;
    if (rg->has_memory) {
        json_object_set_new(per_gpu, "peak_allocated_low_bytes",
                            bytes_json(rg->peak_allocated_low_bytes));
        json_object_set_new(per_gpu, "peak_allocated_high_bytes",
                            bytes_json(rg->peak_allocated_high_bytes));
        json_object_set_new(per_gpu, "peak_reserved_low_bytes",
                            bytes_json(rg->peak_reserved_low_bytes));
        json_object_set_new(per_gpu, "peak_reserved_high_bytes",
                            bytes_json(rg->peak_reserved_high_bytes));
        json_object_set_new(per_gpu, "device_total_low_bytes",
                            bytes_json(rg->device_total_low_bytes));
        json_object_set_new(per_gpu, "device_total_high_bytes",
                            bytes_json(rg->device_total_high_bytes));
    }
    json_t *host = json_object();
    json_object_set_new(host, "ram_bytes", bytes_json(e->host_ram_bytes));
    json_t *memory = json_object();
    json_object_set_new(memory, "per_gpu", per_gpu);
    json_object_set_new(memory, "host", host);
    if (rg->has_memory) {
        json_t *iv = json_object();
        json_object_set_new(iv, "allocated", interval_json(&rg->allocated));
        json_object_set_new(iv, "reserved", interval_json(&rg->reserved));
        json_object_set_new(memory, "intervals", iv);
    }
    if (est->is_serving) {
        render_serving_memory_json(est, memory);
        json_object_set_new(root, "serving", render_serving_json(est));
    }
    json_object_set_new(root, "schema_version", json_integer(1));
    json_object_set_new(root, "model", json_string(est->model_id));
    json_object_set_new(root, "n_params", bytes_json(est->n_params));
    json_object_set_new(root, "job", job_json(&est->job));
    json_object_set_new(root, "job_options", gpuplan_job_options_json(&est->job));
    json_object_set_new(root, "memory", memory);
    json_object_set_new(root, "n_gpus", json_integer(e->n_gpus));
    json_t *sugg = json_array();
    if (est->has_gpu) {
        json_object_set_new(root, "gpu", json_string(est->gpu_id));
        json_object_set_new(root, "fits", json_boolean(e->fits));
        if (rg->has_verdict) {
            json_object_set_new(root, "verdict",
                                json_string(gpuplan_fit_verdict_name(rg->verdict)));
            json_object_set_new(root, "over_bytes", json_integer(rg->over_bytes));
        }
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
    if (cfg)
        json_object_set_new(root, "config", gpuplan_config_json(cfg));
    if (cfg && check)
        json_object_set_new(root, "changes", gpuplan_check_changes_json(est, cfg));
    /* A job that does not fit does not run: its throughput, time and cost go
     * under "if_fitted", never beside the verdict as if they were the run's. */
    json_t *timed = root;
    if (est->has_gpu && !e->fits) {
        timed = json_object();
        json_object_set_new(root, "if_fitted", timed);
    }
    if (est->has_gpu && time_json(est, timed, err) != GPUPLAN_OK) {
        json_decref(root);
        return GPUPLAN_ERR_NOMEM;
    }
    return gpuplan_json_write(root, JSON_INDENT(2) | JSON_SORT_KEYS | JSON_REAL_PRECISION(12), out,
                              err);
}

/*
 * The memory breakdown as one RFC 4180 table (scope,item,bytes,gib): the
 * eleven per-GPU rows, the 80 % ranges of the last three (training: *_low,
 * *_high), the load moment and the variable-length reserved band where they
 * exist, the host RAM per node and, with a GPU, its usable
 * bytes and the headroom (negative: short by). Figures only: the verdict and
 * the suggestions are the text and JSON reports'.
 */
static void render_csv(const struct gpuplan_estimate *est, struct gpuplan_buf *out)
{
    const struct gpuplan_memory_estimate *e = &est->memory.est;
    static const char *const head[] = { "scope", "item", "bytes", "gib" };
    gpuplan_csv_row(out, head, 4);
    struct row rows[11];
    rows_of(&e->per_gpu, rows);
    char bytes[32], gib[32];
    for (size_t i = 0; i < 11; i++) {
        snprintf(bytes, sizeof bytes, "%llu", (unsigned long long)rows[i].bytes);
        snprintf(gib, sizeof gib, "%.2f", gpuplan_gib_from_bytes(rows[i].bytes));
        const char *const cells[] = { "per_gpu", rows[i].name, bytes, gib };
        gpuplan_csv_row(out, cells, 4);
    }
    /* the 80 % ranges (training), the load moment and the variable-length band where there are */
    const struct gpuplan_estimate_ranges *rg = &est->ranges;
    const struct row extra[] = {
        { "peak_allocated_low", rg->peak_allocated_low_bytes },
        { "peak_allocated_high", rg->peak_allocated_high_bytes },
        { "peak_reserved_low", rg->peak_reserved_low_bytes },
        { "peak_reserved_high", rg->peak_reserved_high_bytes },
        { "device_total_low", rg->device_total_low_bytes },
        { "device_total_high", rg->device_total_high_bytes },
        { "load_peak", e->per_gpu.load_peak_bytes },
        { "reserved_varlen_high", e->per_gpu.reserved_varlen_high_bytes },
    };
    for (size_t i = 0; i < sizeof extra / sizeof extra[0]; i++) {
        if ((i < 6 && !rg->has_memory) || (i >= 6 && extra[i].bytes == 0))
            continue;
        snprintf(bytes, sizeof bytes, "%llu", (unsigned long long)extra[i].bytes);
        snprintf(gib, sizeof gib, "%.2f", gpuplan_gib_from_bytes(extra[i].bytes));
        const char *const cells[] = { "per_gpu", extra[i].name, bytes, gib };
        gpuplan_csv_row(out, cells, 4);
    }
    snprintf(bytes, sizeof bytes, "%llu", (unsigned long long)e->host_ram_bytes);
    snprintf(gib, sizeof gib, "%.2f", gpuplan_gib_from_bytes(e->host_ram_bytes));
    gpuplan_csv_row(out, (const char *const[]){ "host", "ram", bytes, gib }, 4);
    if (!est->has_gpu)
        return;
    snprintf(bytes, sizeof bytes, "%llu", (unsigned long long)e->gpu_usable_bytes);
    snprintf(gib, sizeof gib, "%.2f", gpuplan_gib_from_bytes(e->gpu_usable_bytes));
    gpuplan_csv_row(out, (const char *const[]){ "gpu", "usable", bytes, gib }, 4);
    snprintf(bytes, sizeof bytes, "%lld", (long long)e->headroom_bytes);
    snprintf(gib, sizeof gib, "%.2f", (double)e->headroom_bytes / (double)GPUPLAN_BYTES_PER_GIB);
    gpuplan_csv_row(out, (const char *const[]){ "gpu", "headroom", bytes, gib }, 4);
}

enum gpuplan_status gpuplan_render_estimate_from(const struct gpuplan_estimate *estimate,
                                                 const struct gpuplan_config *config,
                                                 bool check,
                                                 enum gpuplan_format format,
                                                 struct gpuplan_buf *out,
                                                 struct gpuplan_error *err)
{
    if (gpuplan_format_check(format,
                             check ? GPUPLAN_RENDER_CHECK_FORMATS : GPUPLAN_RENDER_ESTIMATE_FORMATS,
                             err) != GPUPLAN_OK)
        return GPUPLAN_ERR_USAGE;
    if (format == GPUPLAN_FORMAT_JSON)
        return render_json(estimate, config, check, out, err);
    if (format == GPUPLAN_FORMAT_CSV) {
        render_csv(estimate, out);
        return gpuplan_buf_status(out, err);
    }
    render_text(estimate, out);
    if (config)
        gpuplan_config_text(config, out);
    if (config && check)
        gpuplan_check_changes_text(estimate, config, out);
    return gpuplan_buf_status(out, err);
}

enum gpuplan_status gpuplan_render_estimate(const struct gpuplan_estimate *estimate,
                                            enum gpuplan_format format,
                                            struct gpuplan_buf *out,
                                            struct gpuplan_error *err)
{
    return gpuplan_render_estimate_from(estimate, NULL, false, format, out, err);
}
