/*
 * plan_serve_internal.h - the serving search (plan_serve.c), which
 * gpuplan_plan_run() dispatches to for a serving request (method infer).
 */
#ifndef GPUPLAN_PLAN_SERVE_INTERNAL_H
#define GPUPLAN_PLAN_SERVE_INTERNAL_H

#include "gpuplan/catalog.h"
#include "gpuplan/error.h"
#include "gpuplan/model.h"
#include "gpuplan/plan.h"

/*
 * Search GPU type x GPUs per replica (TP inside a server, PP across, EP for
 * MoE) x weight and KV format x replicas for `req` (checked by the caller):
 * the engine's start-up accounting per candidate, continuous batching in
 * steady state against the latency targets at the request rate or the
 * concurrency, ranked by the objective (cost: per million output tokens).
 * `out` as gpuplan_plan_run's; no plan is a result (nearest misses, notes).
 */
enum gpuplan_status gpuplan_plan_serve_run(const struct gpuplan_model *model,
                                           const struct gpuplan_catalog *catalog,
                                           const struct gpuplan_plan_request *req,
                                           struct gpuplan_plan_result *out,
                                           struct gpuplan_error *err);

#endif
