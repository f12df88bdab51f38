/*
 * catalog_none.c - no compiled catalog: what tools/catalog_gen.c links
 * instead of the build/gen/catalog_data.c it writes (and the libFuzzer
 * builds, which parse the embedded JSON).
 */
#include "catalog/catalog_compiled_internal.h"

const struct gpuplan_compiled_catalog gpuplan_compiled_catalog = { .present = false };
