/*
 * gpuplan.h - the public API of libgpuplan, in one include.
 *
 * Layers, bottom-up: util (error, buf, units) -> formats (dtype) -> catalog
 * -> model (tensor inventory) -> estimate -> plan -> render. See
 * docs/architecture.md.
 */
#ifndef GPUPLAN_GPUPLAN_H
#define GPUPLAN_GPUPLAN_H

#define GPUPLAN_VERSION "0.1.0"

#include "gpuplan/buf.h"
#include "gpuplan/catalog.h"
#include "gpuplan/dtype.h"
#include "gpuplan/error.h"
#include "gpuplan/model.h"
#include "gpuplan/units.h"

#endif
