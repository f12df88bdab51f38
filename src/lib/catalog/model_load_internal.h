/*
 * model_load_internal.h - the model loader's cross-file internals:
 * model_load.c (files, directories, catalog records) and hub.c (Hugging Face
 * Hub ids). Both read the catalog, so they sit in the catalog layer.
 */
#ifndef GPUPLAN_MODEL_LOAD_INTERNAL_H
#define GPUPLAN_MODEL_LOAD_INTERNAL_H

#include <stdbool.h>

#include "gpuplan/catalog.h"
#include "gpuplan/model.h"

/* True for "ORG/NAME" with huggingface_hub's characters and no file extension. */
bool gpuplan_hub_id_valid(const char *id);

/* The inventory of a catalog record (its embedded config.json). */
enum gpuplan_status gpuplan_model_load_catalog_record(struct gpuplan_model *model,
                                                      const struct gpuplan_catalog_model *record,
                                                      struct gpuplan_error *err);

/* A Hugging Face cache snapshot directory, read as a model directory. */
enum gpuplan_status gpuplan_model_load_snapshot(struct gpuplan_model *model,
                                                const char *dir,
                                                struct gpuplan_error *err);

/* hub.c: resolve a Hub id through the catalog, then the cache (NULL: none). */
enum gpuplan_status gpuplan_model_load_hub_id(struct gpuplan_model *model,
                                              const char *id,
                                              const struct gpuplan_catalog *catalog,
                                              const char *hub_cache_dir,
                                              struct gpuplan_error *err);

#endif
