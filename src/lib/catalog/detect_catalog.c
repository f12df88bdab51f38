/*
 * detect_catalog.c - match detected GPUs to catalog GPU records.
 *
 * gpuplan_detect_run() fills catalog_id from the built-in name table only;
 * this file checks those ids against a loaded catalog (which a user may
 * extend with --catalog) and falls back, in order, to
 *   1. a catalog GPU whose name equals the detected name, ignoring case and
 *      anything not a letter or digit;
 *   2. the only catalog GPU of the same vendor with the same compute
 *      capability (NVIDIA) or gfx target (AMD) whose memory is within
 *      MEMORY_TOLERANCE of the detected total and whose fabric agrees with
 *      the NVLink state NVML saw. Ambiguity (H100 SXM and PCIe are both
 *      cc 9.0 with 80 GB) means no match rather than a guess.
 * It never prints or allocates; it only rewrites catalog_id.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/detect.h"

/*
 * Detected totals sit below the vendor figure (an "80 GB" H100 shows 79.6
 * GiB = 85.5 GB; ECC and reserved memory take more), and the catalog keeps
 * the vendor's decimal GB: 15 % covers GiB-vs-GB (7.4 %) plus reservations.
 */
#define MEMORY_TOLERANCE 0.15
#define NAME_KEY_MAX     GPUPLAN_DETECT_NAME_MAX

/* Lowercase letters and digits of `name`, e.g. "NVIDIA A100-SXM4-80GB" -> "nvidiaa100sxm480gb". */
static void name_key(const char *name, char *dst, size_t dst_size)
{
    size_t n = 0;
    for (const char *p = name; *p && n + 1 < dst_size; p++) {
        const char c = *p;
        if (c >= 'A' && c <= 'Z')
            dst[n++] = (char)(c - 'A' + 'a');
        else if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))
            dst[n++] = c;
    }
    dst[n] = '\0';
}

static const struct gpuplan_gpu *match_by_name(const struct gpuplan_catalog *catalog,
                                               const struct gpuplan_detected_gpu *gpu)
{
    char want[NAME_KEY_MAX], have[NAME_KEY_MAX];
    name_key(gpu->name, want, sizeof want);
    if (!want[0])
        return NULL;
    for (size_t i = 0; i < gpuplan_catalog_n_gpus(catalog); i++) {
        const struct gpuplan_gpu *g = gpuplan_catalog_gpu_at(catalog, i);
        if (!g || g->vendor != gpu->vendor)
            continue;
        name_key(g->name, have, sizeof have);
        if (strcmp(want, have) == 0)
            return g;
    }
    return NULL;
}

static bool same_chip(const struct gpuplan_gpu *g, const struct gpuplan_detected_gpu *gpu)
{
    if (gpu->compute_capability[0])
        return strcmp(g->compute_capability, gpu->compute_capability) == 0;
    if (gpu->gfx_target[0])
        return strcmp(g->gfx_target, gpu->gfx_target) == 0;
    return false;
}

/*
 * The GPU-to-GPU fabric must not contradict what NVML saw: a part without
 * NVLink is not an SXM record, and one with active links is not a PCIe-only
 * record. Unknown NVLink state (or AMD) constrains nothing.
 */
static bool same_fabric(const struct gpuplan_gpu *g, const struct gpuplan_detected_gpu *gpu)
{
    if (gpu->vendor != GPUPLAN_VENDOR_NVIDIA || !gpu->has_nvlink)
        return true;
    const bool has_links = gpu->nvlink_supported && gpu->nvlink_active_links > 0;
    return has_links ? g->link != GPUPLAN_LINK_PCIE : g->link == GPUPLAN_LINK_PCIE;
}

static const struct gpuplan_gpu *match_by_chip(const struct gpuplan_catalog *catalog,
                                               const struct gpuplan_detected_gpu *gpu)
{
    if (!gpu->has_memory)
        return NULL;
    const struct gpuplan_gpu *found = NULL;
    for (size_t i = 0; i < gpuplan_catalog_n_gpus(catalog); i++) {
        const struct gpuplan_gpu *g = gpuplan_catalog_gpu_at(catalog, i);
        if (!g || g->vendor != gpu->vendor || g->memory_bytes == 0 || !same_chip(g, gpu) ||
            !same_fabric(g, gpu))
            continue;
        const double ratio = (double)gpu->memory_total_bytes / (double)g->memory_bytes;
        if (fabs(ratio - 1.0) > MEMORY_TOLERANCE)
            continue;
        if (found)
            return NULL; /* ambiguous */
        found = g;
    }
    return found;
}

void gpuplan_detect_match_catalog(struct gpuplan_detect_result *result,
                                  const struct gpuplan_catalog *catalog)
{
    if (!result || !catalog)
        return;
    for (size_t i = 0; i < result->n_gpus; i++) {
        struct gpuplan_detected_gpu *gpu = &result->gpus[i];
        if (gpu->catalog_id[0] && gpuplan_catalog_find_gpu(catalog, gpu->catalog_id))
            continue;
        const struct gpuplan_gpu *g = match_by_name(catalog, gpu);
        if (!g)
            g = match_by_chip(catalog, gpu);
        gpu->catalog_id[0] = '\0';
        if (g) {
            const size_t len = strnlen(g->id, sizeof g->id);
            const size_t n = len < sizeof gpu->catalog_id - 1 ? len : sizeof gpu->catalog_id - 1;
            memcpy(gpu->catalog_id, g->id, n);
            gpu->catalog_id[n] = '\0';
        }
    }
}

enum gpuplan_status gpuplan_detect_local_gpu(const struct gpuplan_detect_options *opts,
                                             const struct gpuplan_catalog *catalog,
                                             struct gpuplan_gpu *out,
                                             uint32_t *out_count,
                                             struct gpuplan_error *err)
{
    struct gpuplan_detect_result *result = calloc(1, sizeof *result);
    if (!result)
        return gpuplan_error_set(err, GPUPLAN_ERR_NOMEM, NULL, "out of memory");
    enum gpuplan_status st = gpuplan_detect_run(opts, result, err);
    if (st != GPUPLAN_OK)
        goto out;
    gpuplan_detect_match_catalog(result, catalog);
    if (result->n_gpus == 0) {
        st = gpuplan_error_set(err, GPUPLAN_ERR_NOT_FOUND, NULL,
                               "'--gpu local': no GPUs found on this machine");
        gpuplan_error_hint(err, "run 'gpuplan detect' to see why, or pass a catalog id such as "
                                "'--gpu h100-sxm:8'");
        goto out;
    }
    const struct gpuplan_detected_gpu *first = &result->gpus[0];
    uint64_t smallest_bytes = 0;
    for (size_t i = 0; i < result->n_gpus; i++) {
        const struct gpuplan_detected_gpu *g = &result->gpus[i];
        if (!g->catalog_id[0]) {
            st = gpuplan_error_set(err, GPUPLAN_ERR_NOT_FOUND, NULL,
                                   "'--gpu local': GPU %u '%s' matches no catalog entry", g->index,
                                   g->name);
            gpuplan_error_hint(err, "add it to a gpus.json and pass --catalog DIR (see "
                                    "docs/catalog.md), or pass a catalog id with --gpu");
            goto out;
        }
        if (strcmp(g->catalog_id, first->catalog_id) != 0) {
            st = gpuplan_error_set(err, GPUPLAN_ERR_UNSUPPORTED, NULL,
                                   "'--gpu local': this machine mixes '%s' and '%s'",
                                   first->catalog_id, g->catalog_id);
            gpuplan_error_hint(err, "plan for one kind with --gpu ID:N");
            goto out;
        }
        if (g->has_memory && (smallest_bytes == 0 || g->memory_total_bytes < smallest_bytes))
            smallest_bytes = g->memory_total_bytes;
    }
    const struct gpuplan_gpu *record = gpuplan_catalog_find_gpu(catalog, first->catalog_id);
    if (!record) {
        st = gpuplan_error_set(err, GPUPLAN_ERR_INTERNAL, NULL, "catalog lost GPU '%s'",
                               first->catalog_id);
        goto out;
    }
    *out = *record;
    if (smallest_bytes)
        out->memory_visible_bytes = smallest_bytes;
    *out_count = (uint32_t)result->n_gpus;
out:
    free(result);
    return st;
}
