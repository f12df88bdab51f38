/*
 * job_internal.h - what the estimate layer's files share of job.c.
 */
#ifndef GPUPLAN_JOB_INTERNAL_H
#define GPUPLAN_JOB_INTERNAL_H

#include <stddef.h>

#include "gpuplan/model.h"

/*
 * The module names `model` gives its linear layers, as a PEFT target list
 * would spell them for its family ("c_attn, c_proj, c_fc" for GPT-2,
 * "q_proj, k_proj, ..." for Llama), comma separated, into `out`. Returns
 * how many names.
 */
size_t gpuplan_job_lora_module_names(const struct gpuplan_model *model, char *out, size_t size);

#endif
