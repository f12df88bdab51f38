/*
 * catalog_compiled_internal.h - the embedded catalog compiled at build
 * time (library-internal).
 *
 * the data/ JSON files stay the source: tools/catalog_gen.c loads them with this
 * library's own loader (gpuplan_catalog_load_json) and writes the loaded
 * records as C initialisers into build/gen/catalog_data.c, so a process
 * copies read-only structs instead of parsing JSON at start-up. What the
 * writer writes is the field tables below; test_catalog.c checks that the
 * compiled catalog equals the JSON-parsed one field by field and byte by
 * byte. A field added to struct gpuplan_gpu, gpuplan_cloud_rate,
 * gpuplan_platform, gpuplan_part or gpuplan_catalog_model goes into its table in catalog_fields.c
 * (one CATALOG_FIELD line); until it does, the generator stops the build
 * (gpuplan_catalog_fields_check finds bytes of the struct in no field) and
 * the unit test fails (docs/architecture.md, "The compiled catalog").
 */
#ifndef GPUPLAN_CATALOG_COMPILED_INTERNAL_H
#define GPUPLAN_CATALOG_COMPILED_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "catalog/catalog_internal.h"
#include "gpuplan/catalog.h"

struct gpuplan_compiled_catalog {
    bool present; /* false in the generator itself (tools/catalog_none.c): parse the JSON */
    const struct gpuplan_platform *platforms;
    size_t n_platforms;
    const struct gpuplan_part *parts;
    size_t n_parts;
    const struct gpuplan_gpu *gpus;
    size_t n_gpus;
    const struct gpuplan_catalog_model *models; /* config_json NULL: model_configs[i] */
    const char *const *model_configs;           /* static text; no pointer in the records */
    size_t n_models;
};

/* build/gen/catalog_data.c (or tools/catalog_none.c in the generator). */
extern const struct gpuplan_compiled_catalog gpuplan_compiled_catalog;

/* How a field is written as C and compared. */
enum catalog_field_kind {
    CATALOG_STR = 0,  /* char[N], NUL-terminated */
    CATALOG_STR_LIST, /* char[count][N] */
    CATALOG_U32,
    CATALOG_U32_LIST, /* uint32_t[count] */
    CATALOG_U64,
    CATALOG_SIZE,
    CATALOG_DOUBLE, /* written as a hexadecimal floating constant: exact */
    CATALOG_BOOL,
    CATALOG_ENUM,       /* an enum, stored as int */
    CATALOG_TEXT,       /* const char *, NUL-terminated static text */
    CATALOG_STRUCT_LIST /* struct X[count], each written by `sub`'s table */
};

struct catalog_struct;

struct catalog_field {
    const char *name;
    size_t offset, size, align;
    enum catalog_field_kind kind;
    size_t count;                     /* elements of a list; 1 otherwise */
    const struct catalog_struct *sub; /* STRUCT_LIST: the element's table */
};

/* One record type: its fields in declaration order, and the struct's size and alignment. */
struct catalog_struct {
    const char *name; /* "gpuplan_gpu" */
    const struct catalog_field *fields;
    size_t n_fields;
    size_t size, align;
};

extern const struct catalog_struct gpuplan_catalog_gpu_struct;
extern const struct catalog_struct gpuplan_catalog_platform_struct;
extern const struct catalog_struct gpuplan_catalog_part_struct;
extern const struct catalog_struct gpuplan_catalog_cloud_rate_struct;
extern const struct catalog_struct gpuplan_catalog_model_struct;

/*
 * The table covers every byte of the struct but the padding its fields'
 * alignments require: each field starts where the previous one ends,
 * rounded up to its alignment, and the struct ends where the last one
 * does, rounded up to the struct's; the same for the element tables of
 * STRUCT_LIST fields. Otherwise writes which bytes no field covers into
 * msg and returns false.
 */
bool gpuplan_catalog_fields_check(const struct catalog_struct *s, char *msg, size_t msg_size);

/*
 * The catalog loaded from the embedded JSON files (and `files`), never from
 * the compiled data: what the generator writes and the unit test compares.
 */
enum gpuplan_status gpuplan_catalog_load_json(struct gpuplan_catalog **out,
                                              const struct gpuplan_catalog_file *files,
                                              size_t n_files,
                                              struct gpuplan_error *err);

#endif
