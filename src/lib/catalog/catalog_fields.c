/*
 * catalog_fields.c - the fields of the catalog's records as the build-time
 * writer (tools/catalog_gen.c) writes them and test_catalog.c compares them
 * (catalog_compiled_internal.h). A new field of struct gpuplan_gpu,
 * gpuplan_cloud_rate, gpuplan_platform, gpuplan_part or
 * gpuplan_catalog_model is one line here (GPU(...), RATE(...), ...), in
 * declaration order.
 */
#include <stdio.h>

#include "catalog/catalog_compiled_internal.h"
#include "catalog/catalog_internal.h"

#define MEMBER(type, member) (((type *)0)->member)
#define CATALOG_FIELD_SUB(type, member, kind, count, sub)             \
    {                                                                 \
#        member, offsetof(type, member), sizeof MEMBER(type, member), \
            __alignof__(MEMBER(type, member)), kind, count, sub       \
    }
#define CATALOG_FIELD(type, member, kind, count) CATALOG_FIELD_SUB(type, member, kind, count, NULL)
#define N_OF(a)                                  (sizeof(a) / sizeof((a)[0]))

#define GPU(m, kind)      CATALOG_FIELD(struct gpuplan_gpu, m, kind, 1)
#define PLATFORM(m, kind) CATALOG_FIELD(struct gpuplan_platform, m, kind, 1)
#define MODEL(m, kind)    CATALOG_FIELD(struct gpuplan_catalog_model, m, kind, 1)
#define RATE(m, kind)     CATALOG_FIELD(struct gpuplan_cloud_rate, m, kind, 1)
#define PART(m, kind)     CATALOG_FIELD(struct gpuplan_part, m, kind, 1)

static const struct catalog_field cloud_rate_fields[] = {
    RATE(tier, CATALOG_ENUM),    RATE(usd_per_gpu_hour, CATALOG_DOUBLE),
    RATE(provider, CATALOG_STR), RATE(date, CATALOG_STR),
    RATE(source, CATALOG_STR),   RATE(notes, CATALOG_STR),
};
const struct catalog_struct gpuplan_catalog_cloud_rate_struct = {
    "gpuplan_cloud_rate", cloud_rate_fields, N_OF(cloud_rate_fields),
    sizeof(struct gpuplan_cloud_rate), __alignof__(struct gpuplan_cloud_rate)
};

static const struct catalog_field gpu_fields[] = {
    GPU(id, CATALOG_STR),
    GPU(vendor, CATALOG_ENUM),
    GPU(name, CATALOG_STR),
    GPU(architecture, CATALOG_STR),
    GPU(memory_bytes, CATALOG_U64),
    GPU(memory_visible_bytes, CATALOG_U64),
    GPU(devices_per_card, CATALOG_U32),
    GPU(memory_literal, CATALOG_STR),
    GPU(memory_bandwidth_gb_per_s, CATALOG_DOUBLE),
    GPU(bf16_tflops, CATALOG_DOUBLE),
    GPU(fp16_tflops, CATALOG_DOUBLE),
    GPU(fp8_tflops, CATALOG_DOUBLE),
    GPU(fp4_tflops, CATALOG_DOUBLE),
    GPU(tf32_tflops, CATALOG_DOUBLE),
    GPU(has_bf16, CATALOG_BOOL),
    GPU(has_fp8, CATALOG_BOOL),
    GPU(has_fp4, CATALOG_BOOL),
    GPU(has_tf32, CATALOG_BOOL),
    GPU(link, CATALOG_ENUM),
    GPU(link_gb_per_s, CATALOG_DOUBLE),
    GPU(max_gpus_per_link_domain, CATALOG_U32),
    GPU(pcie_gen, CATALOG_U32),
    GPU(tdp_w, CATALOG_DOUBLE),
    GPU(compute_capability, CATALOG_STR),
    GPU(cc_major, CATALOG_U32),
    GPU(cc_minor, CATALOG_U32),
    GPU(gfx_target, CATALOG_STR),
    GPU(form_factor, CATALOG_STR),
    CATALOG_FIELD(struct gpuplan_gpu,
                  platforms,
                  CATALOG_STR_LIST,
                  GPUPLAN_CATALOG_MAX_PLATFORMS_PER_GPU),
    GPU(n_platforms, CATALOG_SIZE),
    GPU(price_usd, CATALOG_DOUBLE),
    GPU(price_date, CATALOG_STR),
    GPU(price_source, CATALOG_STR),
    GPU(price_notes, CATALOG_STR),
    CATALOG_FIELD_SUB(struct gpuplan_gpu,
                      rates,
                      CATALOG_STRUCT_LIST,
                      GPUPLAN_CATALOG_MAX_RATES_PER_GPU,
                      &gpuplan_catalog_cloud_rate_struct),
    GPU(n_rates, CATALOG_SIZE),
    GPU(source, CATALOG_STR),
    GPU(retrieved, CATALOG_STR),
    GPU(notes, CATALOG_STR),
};

static const struct catalog_field platform_fields[] = {
    PLATFORM(id, CATALOG_STR),
    PLATFORM(name, CATALOG_STR),
    PLATFORM(form_factor, CATALOG_STR),
    PLATFORM(max_gpus, CATALOG_U32),
    CATALOG_FIELD(struct gpuplan_platform,
                  gpu_counts,
                  CATALOG_U32_LIST,
                  N_OF(MEMBER(struct gpuplan_platform, gpu_counts))),
    PLATFORM(n_gpu_counts, CATALOG_SIZE),
    PLATFORM(base_price_usd, CATALOG_DOUBLE),
    PLATFORM(price_date, CATALOG_STR),
    PLATFORM(base_power_w, CATALOG_DOUBLE),
    PLATFORM(cpu, CATALOG_STR),
    PLATFORM(cpu_sockets, CATALOG_U32),
    PLATFORM(cpu_cores_max, CATALOG_U32),
    PLATFORM(ram_base_bytes, CATALOG_U64),
    PLATFORM(ram_slots, CATALOG_U32),
    PLATFORM(ram_max_bytes, CATALOG_U64),
    PLATFORM(nvme_base_bytes, CATALOG_U64),
    PLATFORM(nvme_bays, CATALOG_U32),
    PLATFORM(network, CATALOG_STR),
    PLATFORM(network_gb_per_s, CATALOG_DOUBLE),
    PLATFORM(scaleout_nics, CATALOG_U32),
    PLATFORM(nics_included, CATALOG_BOOL),
    PLATFORM(rack_units, CATALOG_U32),
    PLATFORM(source, CATALOG_STR),
    PLATFORM(retrieved, CATALOG_STR),
    PLATFORM(notes, CATALOG_STR),
};

static const struct catalog_field part_fields[] = {
    PART(id, CATALOG_STR),         PART(kind, CATALOG_ENUM),
    PART(name, CATALOG_STR),       PART(usd_per_unit, CATALOG_DOUBLE),
    PART(unit, CATALOG_STR),       PART(gbit_per_s, CATALOG_DOUBLE),
    PART(price_date, CATALOG_STR), PART(source, CATALOG_STR),
    PART(retrieved, CATALOG_STR),  PART(notes, CATALOG_STR),
};

static const struct catalog_field model_fields[] = {
    MODEL(id, CATALOG_STR),
    MODEL(name, CATALOG_STR),
    MODEL(hf_repo, CATALOG_STR),
    MODEL(family, CATALOG_STR),
    MODEL(config_json, CATALOG_TEXT),
    MODEL(config_json_len, CATALOG_SIZE),
    MODEL(params_published, CATALOG_U64),
    MODEL(source, CATALOG_STR),
    MODEL(retrieved, CATALOG_STR),
    MODEL(notes, CATALOG_STR),
};

const struct catalog_struct gpuplan_catalog_gpu_struct = { "gpuplan_gpu", gpu_fields,
                                                           N_OF(gpu_fields),
                                                           sizeof(struct gpuplan_gpu),
                                                           __alignof__(struct gpuplan_gpu) };
const struct catalog_struct gpuplan_catalog_platform_struct = {
    "gpuplan_platform", platform_fields, N_OF(platform_fields), sizeof(struct gpuplan_platform),
    __alignof__(struct gpuplan_platform)
};
const struct catalog_struct gpuplan_catalog_part_struct = { "gpuplan_part", part_fields,
                                                            N_OF(part_fields),
                                                            sizeof(struct gpuplan_part),
                                                            __alignof__(struct gpuplan_part) };
const struct catalog_struct gpuplan_catalog_model_struct = {
    "gpuplan_catalog_model", model_fields, N_OF(model_fields), sizeof(struct gpuplan_catalog_model),
    __alignof__(struct gpuplan_catalog_model)
};

static size_t align_up(size_t n, size_t align)
{
    return align ? (n + align - 1) / align * align : n;
}

bool gpuplan_catalog_fields_check(const struct catalog_struct *s, char *msg, size_t msg_size)
{
    size_t end = 0;
    for (size_t i = 0; i < s->n_fields; i++) {
        const struct catalog_field *f = &s->fields[i];
        const size_t want = align_up(end, f->align);
        if (f->offset != want) {
            (void)snprintf(msg, msg_size,
                           "struct %s: bytes %zu..%zu (before '%s') are in no field of its table "
                           "in src/lib/catalog/catalog_fields.c: add the new field there",
                           s->name, end, f->offset, f->name);
            return false;
        }
        if (f->kind == CATALOG_STRUCT_LIST &&
            (!f->sub || f->sub->size * f->count != f->size ||
             !gpuplan_catalog_fields_check(f->sub, msg, msg_size))) {
            if (!f->sub || f->sub->size * f->count != f->size)
                (void)snprintf(msg, msg_size, "struct %s: '%s' is no list of its element table",
                               s->name, f->name);
            return false;
        }
        end = f->offset + f->size;
    }
    if (align_up(end, s->align) != s->size) {
        (void)snprintf(msg, msg_size,
                       "struct %s: bytes %zu..%zu (after '%s') are in no field of its table in "
                       "src/lib/catalog/catalog_fields.c: add the new field there",
                       s->name, end, s->size, s->n_fields ? s->fields[s->n_fields - 1].name : "");
        return false;
    }
    return true;
}
