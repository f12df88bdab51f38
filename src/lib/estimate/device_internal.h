/*
 * device_internal.h - what the training models (memory_model.c,
 * throughput.c) and the serving model (serving*.c) both read of a GPU,
 * computed in one place: the CUDA context outside the caching allocator
 * (docs/formulas.md "Overheads") and the host link's bandwidth.
 */
#ifndef GPUPLAN_DEVICE_INTERNAL_H
#define GPUPLAN_DEVICE_INTERNAL_H

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

/*
 * PCIe x16 bandwidth per direction, GB/s: 8 GT/s x 16 lanes x 128/130 =
 * 15.75 at Gen3, doubling per generation (Gen4 when the catalog names none,
 * Gen7 at most). Implemented in throughput.c.
 */
double gpuplan_pcie_gb_per_s(const struct gpuplan_gpu *gpu);

#endif
