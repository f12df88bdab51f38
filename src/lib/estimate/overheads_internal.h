/*
 * overheads_internal.h - device memory outside the caching allocator that the
 * training memory model (memory_model.c) and the serving model (serving*.c)
 * both charge, computed in one place (docs/formulas.md "Overheads").
 */
#ifndef GPUPLAN_OVERHEADS_INTERNAL_H
#define GPUPLAN_OVERHEADS_INTERNAL_H

#include <stdint.h>

#include "gpuplan/catalog.h"

/*
 * The CUDA context of one process on `gpu`, bytes: 400 MiB before Ampere,
 * 500 MiB Ampere/Ada, 600 MiB Hopper and later, read from the compute
 * capability parsed at catalog load (cc_major). A GPU of another vendor gets
 * `other_vendor_mib` (no measurement backs a figure for it; each model names
 * its choice); NULL or an NVIDIA GPU without a compute capability, 500 MiB.
 */
double gpuplan_cuda_context_bytes(const struct gpuplan_gpu *gpu, uint64_t other_vendor_mib);

#endif
