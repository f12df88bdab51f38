/*
 * memory_internal.h - the training memory model's entry for callers that
 * evaluate many jobs they have resolved themselves (the planner's search).
 */
#ifndef GPUPLAN_MEMORY_INTERNAL_H
#define GPUPLAN_MEMORY_INTERNAL_H

#include "gpuplan/estimate.h"

/*
 * gpuplan_memory_eval() of a job already passed through
 * gpuplan_job_resolve(): the same figures without the copy and the
 * resolution (the planner resolves each layout's job once).
 */
void gpuplan_memory_eval_resolved(const struct gpuplan_memory_profile *profile,
                                  const struct gpuplan_job *job,
                                  const struct gpuplan_gpu *gpu,
                                  struct gpuplan_memory_estimate *out);

/*
 * The part of a training job's memory estimate that does not depend on the
 * GPU (the categories and the step's peak, each in bytes per GPU as
 * doubles), and the part that does (CUDA context, fit, paged optimizer
 * states that stay resident, the conversion to whole bytes). The planner
 * evaluates the first once per (GPUs per node, nodes, knobs) and finishes
 * it on every GPU of that shape; gpuplan_memory_eval_resolved() is the two
 * in a row.
 */
struct gpuplan_memory_terms {
    uint64_t n_gpus, dp, shard;
    bool infer; /* a serving job: no training terms */
    double weights, grads, optim, act, adapters, kv, overhead, host;
    double allocated;  /* the peak allocation: the step's, or the load moment's when larger */
    double load;       /* the load moment (load_moment_bytes), 0 where the stack has none */
    bool varlen;       /* --packed no: the reserved band under variable-length batches */
    bool paged;        /* a paged (unified-memory) optimizer */
    double paged_host; /* its states, per GPU */
    bool offload;      /* an offload other than none */
    uint32_t gpus_per_node;
};
void gpuplan_memory_terms_eval(const struct gpuplan_memory_profile *profile,
                               const struct gpuplan_job *job,
                               struct gpuplan_memory_terms *terms);
/*
 * The estimate on `gpu`. Without `breakdown` only the device total, the
 * host RAM, the degrees and the fit verdict (usable, fits, headroom) are
 * filled, the rest left 0: what the planner's search reads of a candidate.
 */
void gpuplan_memory_terms_finish(const struct gpuplan_memory_terms *terms,
                                 const struct gpuplan_gpu *gpu,
                                 bool breakdown,
                                 struct gpuplan_memory_estimate *out);

#endif
