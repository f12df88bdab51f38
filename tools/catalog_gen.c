/*
 * catalog_gen.c - build-time tool: the embedded catalog (the data/ JSON files as
 * tools/embed.c embeds them) loaded with the library's own loader, written
 * as C initialisers of the loaded structs. Usage: catalog_gen OUT.c
 *
 * Each record is written field by field from the tables of
 * src/lib/catalog/catalog_fields.c; a struct with bytes in no field of its
 * table (a field added to the struct, not to the table) stops the build.
 * Doubles are written as hexadecimal floating constants (exact), strings
 * with octal escapes for anything but printable ASCII; a text field
 * (CATALOG_TEXT, a pointer) is NULL in the record and its address in a side
 * table, VAR_FIELD[i] (for models: gpuplan_compiled_catalog.model_configs).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/catalog_compiled_internal.h"

static void write_string(FILE *out, const char *s, size_t max)
{
    fputc('"', out);
    for (size_t i = 0; i < max && s[i]; i++) {
        const unsigned char ch = (unsigned char)s[i];
        if (ch >= 0x20 && ch < 0x7f && ch != '"' && ch != '\\' && ch != '?')
            fputc(ch, out);
        else
            fprintf(out, "\\%03o", ch);
        if (i % 100 == 99)
            fputs("\"\n    \"", out); /* short source lines */
    }
    fputc('"', out);
}

static void
write_field(FILE *out, const struct catalog_field *f, const char *rec, const char *text);

/* One element of a STRUCT_LIST: `{ .a = ..., .b = ..., }` by its table. */
static void write_element(FILE *out, const struct catalog_struct *s, const char *rec)
{
    fputs("{\n", out);
    for (size_t k = 0; k < s->n_fields; k++)
        write_field(out, &s->fields[k], rec, NULL);
    fputs("      }", out);
}

static void write_field(FILE *out, const struct catalog_field *f, const char *rec, const char *text)
{
    const char *p = rec + f->offset;
    fprintf(out, "      .%s = ", f->name);
    switch (f->kind) {
    case CATALOG_STR:
        write_string(out, p, f->size);
        break;
    case CATALOG_STR_LIST:
        fputs("{ ", out);
        for (size_t i = 0; i < f->count; i++) {
            write_string(out, p + i * (f->size / f->count), f->size / f->count);
            fputs(", ", out);
        }
        fputs("}", out);
        break;
    case CATALOG_U32: {
        uint32_t v;
        memcpy(&v, p, sizeof v);
        fprintf(out, "%" PRIu32 "u", v);
        break;
    }
    case CATALOG_U32_LIST:
        fputs("{ ", out);
        for (size_t i = 0; i < f->count; i++) {
            uint32_t v;
            memcpy(&v, p + i * sizeof v, sizeof v);
            fprintf(out, "%" PRIu32 "u, ", v);
        }
        fputs("}", out);
        break;
    case CATALOG_U64: {
        uint64_t v;
        memcpy(&v, p, sizeof v);
        fprintf(out, "%" PRIu64 "ull", v);
        break;
    }
    case CATALOG_SIZE: {
        size_t v;
        memcpy(&v, p, sizeof v);
        fprintf(out, "%zu", v);
        break;
    }
    case CATALOG_DOUBLE: {
        double v;
        memcpy(&v, p, sizeof v);
        fprintf(out, "%a", v);
        break;
    }
    case CATALOG_BOOL: {
        bool v;
        memcpy(&v, p, sizeof v);
        fputs(v ? "true" : "false", out);
        break;
    }
    case CATALOG_ENUM: {
        int v;
        memcpy(&v, p, sizeof v);
        fprintf(out, "%d", v);
        break;
    }
    case CATALOG_STRUCT_LIST:
        fputs("{\n", out);
        for (size_t i = 0; i < f->count; i++) {
            fputs("      ", out);
            write_element(out, f->sub, p + i * f->sub->size);
            fputs(",\n", out);
        }
        fputs("      }", out);
        break;
    case CATALOG_TEXT:
        (void)text; /* in the record: NULL; the text is in the struct's side table (below) */
        fputs("NULL", out);
        break;
    }
    fputs(",\n", out);
}

/* Records of one struct as `static const struct NAME VAR[]`; text fields name TEXTVAR_i. */
static void write_records(FILE *out,
                          const struct catalog_struct *s,
                          const char *var,
                          const void *records,
                          size_t n)
{
    /* static text first, so the records can point at it */
    for (size_t i = 0; i < n; i++) {
        const char *rec = (const char *)records + i * s->size;
        for (size_t k = 0; k < s->n_fields; k++) {
            if (s->fields[k].kind != CATALOG_TEXT)
                continue;
            const char *text;
            memcpy(&text, rec + s->fields[k].offset, sizeof text);
            fprintf(out, "static const char %s_%s_%zu[] =\n    ", var, s->fields[k].name, i);
            write_string(out, text ? text : "", SIZE_MAX);
            fputs(";\n", out);
        }
    }
    /* the texts' addresses in a table of their own, so that the records hold no pointer and
     * stay in .rodata: a pointer in each record would have the dynamic loader relocate, and
     * so fault in, every page of the array at every start */
    for (size_t k = 0; k < s->n_fields; k++) {
        if (s->fields[k].kind != CATALOG_TEXT)
            continue;
        fprintf(out, "static const char *const %s_%s[%zu] = {\n", var, s->fields[k].name,
                n ? n : 1);
        for (size_t i = 0; i < n; i++)
            fprintf(out, "    %s_%s_%zu,\n", var, s->fields[k].name, i);
        fputs("};\n", out);
    }
    fprintf(out, "static const struct %s %s[%zu] = {\n", s->name, var, n ? n : 1);
    for (size_t i = 0; i < n; i++) {
        const char *rec = (const char *)records + i * s->size;
        fputs("    {\n", out);
        for (size_t k = 0; k < s->n_fields; k++) {
            char name[96];
            (void)snprintf(name, sizeof name, "%s_%s_%zu", var, s->fields[k].name, i);
            write_field(out, &s->fields[k], rec, name);
        }
        fputs("    },\n", out);
    }
    fputs("};\n\n", out);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: catalog_gen OUT.c\n");
        return 2;
    }
    const struct catalog_struct *structs[] = { &gpuplan_catalog_platform_struct,
                                               &gpuplan_catalog_part_struct,
                                               &gpuplan_catalog_gpu_struct,
                                               &gpuplan_catalog_model_struct };
    for (size_t i = 0; i < sizeof structs / sizeof structs[0]; i++) {
        char msg[256];
        if (!gpuplan_catalog_fields_check(structs[i], msg, sizeof msg)) {
            fprintf(stderr, "catalog_gen: %s\n", msg);
            return 1;
        }
    }
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    struct gpuplan_catalog *c = NULL;
    if (gpuplan_catalog_load_json(&c, NULL, 0, &err) != GPUPLAN_OK) {
        fprintf(stderr, "catalog_gen: %s: %s\n", err.where, err.message);
        return 1;
    }
    const size_t n_platforms = gpuplan_catalog_n_platforms(c);
    const size_t n_parts = gpuplan_catalog_n_parts(c);
    const size_t n_gpus = gpuplan_catalog_n_gpus(c);
    const size_t n_models = gpuplan_catalog_n_models(c);
    struct gpuplan_platform *platforms = calloc(n_platforms + 1, sizeof *platforms);
    struct gpuplan_part *parts = calloc(n_parts + 1, sizeof *parts);
    struct gpuplan_gpu *gpus = calloc(n_gpus + 1, sizeof *gpus);
    struct gpuplan_catalog_model *models = calloc(n_models + 1, sizeof *models);
    if (!platforms || !parts || !gpus || !models) {
        fprintf(stderr, "catalog_gen: out of memory\n");
        return 1;
    }
    for (size_t i = 0; i < n_platforms; i++)
        platforms[i] = *gpuplan_catalog_platform_at(c, i);
    for (size_t i = 0; i < n_parts; i++)
        parts[i] = *gpuplan_catalog_part_at(c, i);
    for (size_t i = 0; i < n_gpus; i++)
        gpus[i] = *gpuplan_catalog_gpu_at(c, i);
    for (size_t i = 0; i < n_models; i++)
        models[i] = *gpuplan_catalog_model_at(c, i);

    const char *tmp_suffix = ".tmp";
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s%s", argv[1], tmp_suffix) >= (int)sizeof tmp) {
        fprintf(stderr, "catalog_gen: path too long\n");
        return 1;
    }
    FILE *out = fopen(tmp, "w");
    if (!out) {
        perror(tmp);
        return 1;
    }
    fprintf(out,
            "/* generated by tools/catalog_gen.c from the data/ JSON files (the library's loader); "
            "do not edit */\n");
    fprintf(out, "#include \"catalog/catalog_compiled_internal.h\"\n\n");
    write_records(out, &gpuplan_catalog_platform_struct, "platforms", platforms, n_platforms);
    write_records(out, &gpuplan_catalog_part_struct, "parts", parts, n_parts);
    write_records(out, &gpuplan_catalog_gpu_struct, "gpus", gpus, n_gpus);
    write_records(out, &gpuplan_catalog_model_struct, "models", models, n_models);
    fprintf(out,
            "const struct gpuplan_compiled_catalog gpuplan_compiled_catalog = {\n"
            "    .present = true,\n"
            "    .platforms = platforms,\n    .n_platforms = %zu,\n"
            "    .parts = parts,\n    .n_parts = %zu,\n"
            "    .gpus = gpus,\n    .n_gpus = %zu,\n"
            "    .models = models,\n    .model_configs = models_config_json,\n"
            "    .n_models = %zu,\n};\n",
            n_platforms, n_parts, n_gpus, n_models);
    free(platforms);
    free(parts);
    free(gpus);
    free(models);
    gpuplan_catalog_free(c);
    if (fclose(out) != 0 || rename(tmp, argv[1]) != 0) {
        perror(argv[1]);
        return 1;
    }
    return 0;
}
