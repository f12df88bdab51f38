/*
 * render_detect.c - text and JSON reports of `gpuplan detect`.
 *
 * JSON carries exact integers (bytes, counts) and null for every field the
 * driver did not report; only the text report rounds (GiB to 2 decimals,
 * watts to integers). Keys are sorted so the output is stable.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/detect.h"
#include "gpuplan/render.h"
#include "gpuplan/units.h"
#include "util/json_internal.h"

#include "util/i18n_internal.h"

static const char *vendor_token(enum gpuplan_vendor vendor)
{
    switch (vendor) {
    case GPUPLAN_VENDOR_NVIDIA:
        return "nvidia";
    case GPUPLAN_VENDOR_AMD:
        return "amd";
    case GPUPLAN_VENDOR_INTEL:
        return "intel";
    case GPUPLAN_VENDOR_COUNT:
        break;
    }
    return "unknown";
}

static const char *source_token(enum gpuplan_detect_source source)
{
    return source == GPUPLAN_DETECT_SOURCE_NVML ? "nvml" : "amdgpu_sysfs";
}

/* ---- text ---- */

/* Why NVML gave no devices, e.g. "libnvidia-ml.so.1 not found". */
static void nvml_reason(const struct gpuplan_detect_nvml *nvml, char *dst, size_t dst_size)
{
    switch (nvml->status) {
    case GPUPLAN_NVML_SKIPPED:
        (void)snprintf(dst, dst_size, GPUPLAN_TR("NVML not tried"));
        return;
    case GPUPLAN_NVML_NOT_FOUND:
        (void)snprintf(dst, dst_size, GPUPLAN_TR("%s not found"), nvml->library);
        return;
    case GPUPLAN_NVML_LOAD_FAILED:
        (void)snprintf(dst, dst_size, GPUPLAN_TR("%s could not be loaded: %s"), nvml->library,
                       nvml->message);
        return;
    case GPUPLAN_NVML_MISSING_SYMBOL:
    case GPUPLAN_NVML_INIT_FAILED:
    case GPUPLAN_NVML_COUNT_FAILED:
        (void)snprintf(dst, dst_size, "%s: %s", nvml->library, nvml->message);
        return;
    case GPUPLAN_NVML_OK:
        if (nvml->n_devices > 0)
            (void)snprintf(dst, dst_size, GPUPLAN_TR("NVML: %u devices, none accessible"),
                           nvml->n_devices);
        else
            (void)snprintf(dst, dst_size, GPUPLAN_TR("NVML reports no devices"));
        return;
    }
    (void)snprintf(dst, dst_size, GPUPLAN_TR("NVML state unknown"));
}

static void render_gpu_text(const struct gpuplan_detected_gpu *g, struct gpuplan_buf *out)
{
    gpuplan_buf_printf(out, GPUPLAN_TR("GPU %u: %s\n"), g->index, g->name);
    gpuplan_buf_printf(out, GPUPLAN_TR("  vendor        %s (%s)\n"), vendor_token(g->vendor),
                       source_token(g->source));
    gpuplan_buf_printf(out, GPUPLAN_TR("  catalog       %s\n"),
                       g->catalog_id[0] ? g->catalog_id : GPUPLAN_TR("no match"));
    if (g->has_memory)
        gpuplan_buf_printf(out, GPUPLAN_TR("  memory        %.2f GiB total, %.2f GiB free\n"),
                           gpuplan_gib_from_bytes(g->memory_total_bytes),
                           gpuplan_gib_from_bytes(g->memory_free_bytes));
    else
        gpuplan_buf_puts(out, GPUPLAN_TR("  memory        unknown\n"));
    if (g->compute_capability[0])
        gpuplan_buf_printf(out, GPUPLAN_TR("  compute       cc %s\n"), g->compute_capability);
    else if (g->gfx_target[0])
        gpuplan_buf_printf(out, GPUPLAN_TR("  compute       %s\n"), g->gfx_target);
    else
        gpuplan_buf_puts(out, GPUPLAN_TR("  compute       unknown\n"));
    if (g->vendor == GPUPLAN_VENDOR_NVIDIA) {
        if (!g->has_nvlink)
            gpuplan_buf_puts(out, GPUPLAN_TR("  nvlink        unknown\n"));
        else if (!g->nvlink_supported)
            gpuplan_buf_puts(out, GPUPLAN_TR("  nvlink        not supported\n"));
        else
            gpuplan_buf_printf(out, GPUPLAN_TR("  nvlink        %u active links\n"),
                               g->nvlink_active_links);
    }
    if (g->pcie_gen || g->pcie_width) {
        gpuplan_buf_puts(out, GPUPLAN_TR("  pcie          "));
        if (g->pcie_gen)
            gpuplan_buf_printf(out, GPUPLAN_TR("gen %u"), g->pcie_gen);
        else
            gpuplan_buf_puts(out, GPUPLAN_TR("gen unknown"));
        if (g->pcie_width)
            gpuplan_buf_printf(out, " x%u", g->pcie_width);
        gpuplan_buf_puts(out, "\n");
    } else {
        gpuplan_buf_puts(out, GPUPLAN_TR("  pcie          unknown\n"));
    }
    if (g->has_power_limit)
        gpuplan_buf_printf(out, GPUPLAN_TR("  power limit   %.0f W\n"), g->power_limit_w);
    else
        gpuplan_buf_puts(out, GPUPLAN_TR("  power limit   unknown\n"));
}

static void
render_notes_text(const struct gpuplan_detect_result *r, bool with_drivers, struct gpuplan_buf *out)
{
    const struct gpuplan_detect_nvml *nvml = &r->nvml;
    /* Without GPUs the "no GPUs found (...)" line already gave the drivers' state. */
    if (with_drivers && nvml->status == GPUPLAN_NVML_OK) {
        gpuplan_buf_puts(out, GPUPLAN_TR("driver: NVIDIA"));
        if (nvml->driver_version[0])
            gpuplan_buf_printf(out, " %s", nvml->driver_version);
        if (nvml->cuda_driver_version[0])
            gpuplan_buf_printf(out, GPUPLAN_TR(", CUDA %s"), nvml->cuda_driver_version);
        gpuplan_buf_puts(out, GPUPLAN_TR(" (NVML)\n"));
    } else if (with_drivers && nvml->status != GPUPLAN_NVML_SKIPPED) {
        char reason[600];
        nvml_reason(nvml, reason, sizeof reason);
        gpuplan_buf_printf(out, GPUPLAN_TR("note: no NVIDIA GPUs: %s\n"), reason);
    }
    if (with_drivers && r->amd.n_devices > 0)
        gpuplan_buf_printf(out, GPUPLAN_TR("driver: amdgpu (sysfs under %s)\n"), r->amd.sysfs_root);
    if (nvml->n_skipped > 0)
        gpuplan_buf_printf(
            out,
            GPUPLAN_TR("note: %u NVML device%s skipped (no permission, or over the limit of "
                       "%d)\n"),
            nvml->n_skipped, nvml->n_skipped == 1 ? "" : "s", GPUPLAN_DETECT_MAX_GPUS);
    if (nvml->n_missing_symbols > 0 && nvml->status != GPUPLAN_NVML_MISSING_SYMBOL) {
        gpuplan_buf_puts(out, GPUPLAN_TR("note: NVML lacks"));
        for (size_t i = 0; i < nvml->n_missing_symbols; i++)
            gpuplan_buf_printf(out, "%s %s", i ? "," : "", nvml->missing_symbols[i]);
        gpuplan_buf_puts(out, GPUPLAN_TR(" (older fallbacks used where they exist)\n"));
    }
}

static void render_text(const struct gpuplan_detect_result *r, struct gpuplan_buf *out)
{
    if (r->n_gpus == 0) {
        char reason[600];
        nvml_reason(&r->nvml, reason, sizeof reason);
        gpuplan_buf_printf(out, GPUPLAN_TR("no GPUs found (%s; %s)\n"), reason,
                           r->amd.scanned ? GPUPLAN_TR("no amdgpu devices")
                                          : GPUPLAN_TR("amdgpu not scanned"));
        render_notes_text(r, false, out);
        return;
    }
    gpuplan_buf_printf(out, GPUPLAN_TR("%zu GPU%s found\n"), r->n_gpus, r->n_gpus == 1 ? "" : "s");
    render_notes_text(r, true, out);
    for (size_t i = 0; i < r->n_gpus; i++) {
        gpuplan_buf_puts(out, "\n");
        render_gpu_text(&r->gpus[i], out);
    }
}

/* ---- JSON ---- */

/* Set obj[key] = value, taking ownership; false (and value freed) on failure. */
static bool put(json_t *obj, const char *key, json_t *value)
{
    return value && json_object_set_new(obj, key, value) == 0;
}

static json_t *string_or_null(const char *text)
{
    return text[0] ? json_string(text) : json_null();
}

static json_t *u64_or_null(bool known, uint64_t value)
{
    /* jansson integers are signed 64-bit; byte counts of real GPUs are far below 2^63. */
    return known && value <= (uint64_t)INT64_MAX ? json_integer((json_int_t)value) : json_null();
}

static json_t *gpu_json(const struct gpuplan_detected_gpu *g)
{
    json_t *o = json_object();
    if (!o)
        return NULL;
    char pci_id[16] = "";
    if (g->pci_device_id)
        (void)snprintf(pci_id, sizeof pci_id, "0x%04x", g->pci_device_id);
    const bool is_nvidia = g->vendor == GPUPLAN_VENDOR_NVIDIA;
    bool ok = put(o, "index", json_integer(g->index));
    ok = ok && put(o, "vendor", json_string(vendor_token(g->vendor)));
    ok = ok && put(o, "source", json_string(source_token(g->source)));
    ok = ok && put(o, "name", json_string(g->name));
    ok = ok && put(o, "uuid", string_or_null(g->uuid));
    ok = ok && put(o, "memory_total_bytes", u64_or_null(g->has_memory, g->memory_total_bytes));
    ok = ok && put(o, "memory_free_bytes", u64_or_null(g->has_memory, g->memory_free_bytes));
    ok = ok && put(o, "memory_reserved_bytes",
                   u64_or_null(g->has_memory_reserved, g->memory_reserved_bytes));
    ok = ok && put(o, "compute_capability", string_or_null(g->compute_capability));
    ok = ok && put(o, "gfx_target", string_or_null(g->gfx_target));
    ok = ok && put(o, "pci_device_id", string_or_null(pci_id));
    ok = ok && put(o, "nvlink_supported",
                   is_nvidia && g->has_nvlink ? json_boolean(g->nvlink_supported) : json_null());
    ok = ok && put(o, "nvlink_active_links",
                   u64_or_null(is_nvidia && g->has_nvlink, g->nvlink_active_links));
    ok = ok && put(o, "pcie_gen", u64_or_null(g->pcie_gen > 0, g->pcie_gen));
    ok = ok && put(o, "pcie_width", u64_or_null(g->pcie_width > 0, g->pcie_width));
    ok = ok &&
         put(o, "power_limit_w", g->has_power_limit ? json_real(g->power_limit_w) : json_null());
    ok = ok && put(o, "catalog_id", string_or_null(g->catalog_id));
    if (!ok) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static json_t *nvml_json(const struct gpuplan_detect_nvml *nvml)
{
    json_t *o = json_object();
    json_t *missing = json_array();
    if (!o || !missing) {
        json_decref(o);
        json_decref(missing);
        return NULL;
    }
    bool ok = true;
    for (size_t i = 0; ok && i < nvml->n_missing_symbols; i++)
        ok = json_array_append_new(missing, json_string(nvml->missing_symbols[i])) == 0;
    if (!ok) {
        json_decref(missing);
        json_decref(o);
        return NULL;
    }
    ok = put(o, "missing_symbols", missing);
    const bool tried = nvml->status != GPUPLAN_NVML_SKIPPED;
    ok = ok && put(o, "status", json_string(gpuplan_nvml_status_name(nvml->status)));
    ok = ok && put(o, "library", tried ? json_string(nvml->library) : json_null());
    ok = ok && put(o, "message", string_or_null(nvml->message));
    ok = ok &&
         put(o, "nvml_return", nvml->nvml_return ? json_integer(nvml->nvml_return) : json_null());
    ok = ok && put(o, "driver_version", string_or_null(nvml->driver_version));
    ok = ok && put(o, "cuda_driver_version", string_or_null(nvml->cuda_driver_version));
    ok = ok && put(o, "n_devices", json_integer(nvml->n_devices));
    ok = ok && put(o, "n_skipped", json_integer(nvml->n_skipped));
    if (!ok) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static json_t *amd_json(const struct gpuplan_detect_amd *amd)
{
    json_t *o = json_object();
    if (!o)
        return NULL;
    bool ok = put(o, "scanned", json_boolean(amd->scanned));
    ok = ok && put(o, "sysfs_root", amd->scanned ? json_string(amd->sysfs_root) : json_null());
    ok = ok && put(o, "n_devices", json_integer(amd->n_devices));
    ok = ok && put(o, "has_kfd", json_boolean(amd->has_kfd));
    if (!ok) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static json_t *build_json(const struct gpuplan_detect_result *r)
{
    json_t *root = json_object();
    json_t *driver = json_object();
    json_t *gpus = json_array();
    bool ok = root && driver && gpus;
    for (size_t i = 0; ok && i < r->n_gpus; i++)
        ok = json_array_append_new(gpus, gpu_json(&r->gpus[i])) == 0;
    ok = ok && put(driver, "nvml", nvml_json(&r->nvml));
    ok = ok && put(driver, "amdgpu", amd_json(&r->amd));
    if (!ok) {
        json_decref(root);
        json_decref(driver);
        json_decref(gpus);
        return NULL;
    }
    /* From here root owns driver and gpus, even when a set fails. */
    const bool is_set = json_object_set_new(root, "driver", driver) == 0;
    const bool has_gpus = json_object_set_new(root, "gpus", gpus) == 0;
    ok = is_set && has_gpus;
    ok = ok && put(root, "n_gpus", json_integer((json_int_t)r->n_gpus));
    ok = ok && put(root, "schema_version", json_integer(GPUPLAN_DETECT_SCHEMA_VERSION));
    if (!ok) {
        json_decref(root);
        return NULL;
    }
    return root;
}

enum gpuplan_status gpuplan_render_detect(const struct gpuplan_detect_result *result,
                                          enum gpuplan_format format,
                                          struct gpuplan_buf *out,
                                          struct gpuplan_error *err)
{
    if (gpuplan_format_check(format, GPUPLAN_RENDER_DETECT_FORMATS, err) != GPUPLAN_OK)
        return GPUPLAN_ERR_USAGE;
    if (format == GPUPLAN_FORMAT_TEXT) {
        render_text(result, out);
        return gpuplan_buf_status(out, err);
    }
    json_t *root = build_json(result);
    if (!root)
        return gpuplan_error_set(err, GPUPLAN_ERR_NOMEM, NULL, "out of memory while building JSON");
    return gpuplan_json_write(root, JSON_INDENT(2) | JSON_SORT_KEYS | JSON_REAL_PRECISION(10), out,
                              err);
}
