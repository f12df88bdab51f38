/*
 * detect.c - local GPU detection: NVML through dlopen(), AMD through sysfs.
 *
 * NVML is used header-free: the few types and constants needed are restated
 * below from nvml.h as vendored in NVIDIA/go-nvml (gen/nvml/nvml.h, NVML API
 * v13; see docs/research/formats-and-engines.md §1.1). Every
 * symbol is looked up with dlsym() and checked before it is called; every
 * string the library writes is bounded and reduced to printable ASCII; any
 * NVML error leaves that field unknown. AMD GPUs are read from the amdgpu
 * sysfs files (kernel Documentation/gpu/amdgpu/driver-misc.rst) and the KFD
 * topology (properties "gfx_target_version", "drm_render_minor"), under a
 * caller-given root so tests can fake the tree.
 *
 * Not done here: amdsmi/rocm_smi (struct layouts vary by ROCm release), MIG,
 * per-process accounting. The catalog check is in detect_catalog.c.
 */
#include "gpuplan/detect.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/units.h"
#include "util/utf8_internal.h"

/*
 * NVML ABI, restated from nvml.h (go-nvml gen/nvml/nvml.h):
 * nvmlReturn_t is an int-sized enum, nvmlDevice_t an opaque pointer,
 * nvmlEnableState_t an int-sized enum (NVML_FEATURE_ENABLED = 1).
 */
enum {
    NVML_SUCCESS = 0,
    NVML_ERROR_INVALID_ARGUMENT = 2,
    NVML_ERROR_NOT_SUPPORTED = 3,
    NVML_FEATURE_ENABLED = 1,
};

#define NVML_NAME_BUFFER_BYTES           96 /* NVML_DEVICE_NAME_V2_BUFFER_SIZE */
#define NVML_UUID_BUFFER_BYTES           96 /* NVML_DEVICE_UUID_V2_BUFFER_SIZE */
#define NVML_DRIVER_VERSION_BUFFER_BYTES 80 /* NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE */
/*
 * NVML_NVLINK_MAX_LINKS grew from 12 to 18 to 36 across header versions; we
 * loop to the largest and stop at the first "no such link" answer.
 */
#define NVML_NVLINK_MAX_LINKS 36
#define NVML_ERROR_TEXT_MAX   64

struct nvml_memory_v1 {
    unsigned long long total; /* bytes */
    unsigned long long free;
    unsigned long long used; /* includes driver-reserved memory */
};

struct nvml_memory_v2 {
    unsigned int version; /* NVML_MEMORY_V2_VERSION */
    unsigned long long total;
    unsigned long long reserved;
    unsigned long long free;
    unsigned long long used;
};

/* nvml.h: #define NVML_STRUCT_VERSION(data, ver) (sizeof(nvml##data##_v##ver##_t) | (ver << 24U))
 */
#define NVML_MEMORY_V2_VERSION ((unsigned int)(sizeof(struct nvml_memory_v2) | (2U << 24U)))

/* NVML reports power in milliwatts (nvmlDeviceGetEnforcedPowerLimit). */
#define MILLIWATTS_PER_W 1000.0
/* The hwmon sysfs ABI reports power1_cap in microwatts. */
#define MICROWATTS_PER_W 1000000.0
/* Sanity bounds: anything outside is a broken driver, so "unknown". */
#define MAX_PLAUSIBLE_POWER_W  10000.0
#define MAX_PLAUSIBLE_PCIE_GEN 16
#define MAX_PLAUSIBLE_LANES    32

struct nvml_api {
    void *lib;
    int (*init)(void);
    int (*shutdown)(void);
    int (*get_count)(unsigned int *count);
    int (*get_handle)(unsigned int index, void **device);
    const char *(*error_string)(int result);
    int (*driver_version)(char *version, unsigned int length);
    int (*cuda_driver_version)(int *version);
    int (*get_name)(void *device, char *name, unsigned int length);
    int (*get_uuid)(void *device, char *uuid, unsigned int length);
    int (*memory_v2)(void *device, struct nvml_memory_v2 *memory);
    int (*memory_v1)(void *device, struct nvml_memory_v1 *memory);
    int (*compute_capability)(void *device, int *major, int *minor);
    int (*nvlink_state)(void *device, unsigned int link, int *is_active);
    int (*max_pcie_gen)(void *device, unsigned int *gen);
    int (*max_pcie_width)(void *device, unsigned int *width);
    int (*power_limit)(void *device, unsigned int *milliwatts);
};

/* One function pointer of struct nvml_api: its names, newest first. */
struct nvml_symbol {
    const char *names[2]; /* second: the unversioned fallback, or NULL */
    size_t offset;        /* offsetof(struct nvml_api, field) */
    bool is_required;
};

static const struct nvml_symbol nvml_symbols[] = {
    { { "nvmlInit_v2", "nvmlInit" }, offsetof(struct nvml_api, init), true },
    { { "nvmlShutdown", NULL }, offsetof(struct nvml_api, shutdown), true },
    { { "nvmlDeviceGetCount_v2", "nvmlDeviceGetCount" },
      offsetof(struct nvml_api, get_count),
      true },
    { { "nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex" },
      offsetof(struct nvml_api, get_handle),
      true },
    { { "nvmlErrorString", NULL }, offsetof(struct nvml_api, error_string), false },
    { { "nvmlSystemGetDriverVersion", NULL }, offsetof(struct nvml_api, driver_version), false },
    { { "nvmlSystemGetCudaDriverVersion_v2", "nvmlSystemGetCudaDriverVersion" },
      offsetof(struct nvml_api, cuda_driver_version),
      false },
    { { "nvmlDeviceGetName", NULL }, offsetof(struct nvml_api, get_name), false },
    { { "nvmlDeviceGetUUID", NULL }, offsetof(struct nvml_api, get_uuid), false },
    { { "nvmlDeviceGetMemoryInfo_v2", NULL }, offsetof(struct nvml_api, memory_v2), false },
    { { "nvmlDeviceGetMemoryInfo", NULL }, offsetof(struct nvml_api, memory_v1), false },
    { { "nvmlDeviceGetCudaComputeCapability", NULL },
      offsetof(struct nvml_api, compute_capability),
      false },
    { { "nvmlDeviceGetNvLinkState", NULL }, offsetof(struct nvml_api, nvlink_state), false },
    { { "nvmlDeviceGetMaxPcieLinkGeneration", NULL },
      offsetof(struct nvml_api, max_pcie_gen),
      false },
    { { "nvmlDeviceGetMaxPcieLinkWidth", NULL }, offsetof(struct nvml_api, max_pcie_width), false },
    { { "nvmlDeviceGetEnforcedPowerLimit", NULL }, offsetof(struct nvml_api, power_limit), false },
};

#define N_NVML_SYMBOLS (sizeof nvml_symbols / sizeof nvml_symbols[0])

_Static_assert(N_NVML_SYMBOLS <= GPUPLAN_DETECT_MAX_SYMBOLS, "missing_symbols[] too small");
_Static_assert(sizeof(int (*)(void)) == sizeof(void *), "dlsym needs data-sized code pointers");

void gpuplan_detect_options_init(struct gpuplan_detect_options *opts)
{
    opts->nvml_path = GPUPLAN_DETECT_DEFAULT_NVML;
    opts->sysfs_root = GPUPLAN_DETECT_DEFAULT_SYSFS;
}

const char *gpuplan_nvml_status_name(enum gpuplan_nvml_status status)
{
    switch (status) {
    case GPUPLAN_NVML_SKIPPED:
        return "skipped";
    case GPUPLAN_NVML_NOT_FOUND:
        return "not_found";
    case GPUPLAN_NVML_LOAD_FAILED:
        return "load_failed";
    case GPUPLAN_NVML_MISSING_SYMBOL:
        return "missing_symbol";
    case GPUPLAN_NVML_INIT_FAILED:
        return "init_failed";
    case GPUPLAN_NVML_COUNT_FAILED:
        return "count_failed";
    case GPUPLAN_NVML_OK:
        return "ok";
    }
    return "unknown";
}

/*
 * Copy at most `src_max` bytes of `src` (stopping at NUL) into dst, keeping
 * printable ASCII and whole valid UTF-8 sequences (the C library's own
 * messages, such as a translated dlerror(), are UTF-8 text), replacing every
 * other byte with '?', and trimming trailing blanks: driver and sysfs strings
 * are untrusted and end up in JSON (which must be UTF-8). A sequence cut by
 * the destination's size is dropped whole.
 */
static void copy_printable(char *dst, size_t dst_size, const char *src, size_t src_max)
{
    size_t n = 0;
    const size_t len = strnlen(src, src_max);
    for (size_t i = 0; i < len && n + 1 < dst_size;) {
        const unsigned char c = (unsigned char)src[i];
        if (c >= 0x20 && c < 0x7f) {
            dst[n++] = (char)c;
            i++;
            continue;
        }
        const size_t seq =
            c >= 0x80 ? gpuplan_utf8_sequence_len((const uint8_t *)src + i, len - i) : 0;
        if (seq == 0) {
            dst[n++] = '?';
            i++;
            continue;
        }
        if (n + seq + 1 > dst_size)
            break;
        memcpy(dst + n, src + i, seq);
        n += seq;
        i += seq;
    }
    while (n > 0 && dst[n - 1] == ' ')
        n--;
    dst[n] = '\0';
}

/* ---- NVML ---- */

static void nvml_error_text(const struct nvml_api *api, int result, char *dst, size_t dst_size)
{
    const char *text = api->error_string ? api->error_string(result) : NULL;
    if (text)
        copy_printable(dst, dst_size, text, NVML_ERROR_TEXT_MAX);
    else
        (void)snprintf(dst, dst_size, "NVML error %d", result);
}

static void note_missing(struct gpuplan_detect_nvml *nvml, const char *name)
{
    if (nvml->n_missing_symbols < GPUPLAN_DETECT_MAX_SYMBOLS)
        nvml->missing_symbols[nvml->n_missing_symbols++] = name;
}

/*
 * Resolve every symbol of nvml_symbols[], newest name first. A missing
 * optional symbol is noted; a missing required one fails with its name.
 */
static bool nvml_load_symbols(struct nvml_api *api, struct gpuplan_detect_nvml *nvml)
{
    for (size_t i = 0; i < N_NVML_SYMBOLS; i++) {
        const struct nvml_symbol *s = &nvml_symbols[i];
        void *address = dlsym(api->lib, s->names[0]);
        if (!address) {
            note_missing(nvml, s->names[0]);
            if (s->names[1])
                address = dlsym(api->lib, s->names[1]);
        }
        if (!address && s->is_required) {
            nvml->status = GPUPLAN_NVML_MISSING_SYMBOL;
            if (s->names[1])
                (void)snprintf(nvml->message, sizeof nvml->message,
                               "required NVML symbol '%s' (or '%s') not found", s->names[0],
                               s->names[1]);
            else
                (void)snprintf(nvml->message, sizeof nvml->message,
                               "required NVML symbol '%s' not found", s->names[0]);
            return false;
        }
        /* ISO C has no void* -> function pointer conversion; POSIX dlsym relies on this copy. */
        memcpy((char *)api + s->offset, &address, sizeof address);
    }
    return true;
}

static void nvml_read_driver(const struct nvml_api *api, struct gpuplan_detect_nvml *nvml)
{
    if (api->driver_version) {
        char version[NVML_DRIVER_VERSION_BUFFER_BYTES + 1] = { 0 };
        if (api->driver_version(version, NVML_DRIVER_VERSION_BUFFER_BYTES) == NVML_SUCCESS)
            copy_printable(nvml->driver_version, sizeof nvml->driver_version, version,
                           NVML_DRIVER_VERSION_BUFFER_BYTES);
    }
    int cuda = 0;
    /* nvml.h: major = v / 1000, minor = (v % 1000) / 10, e.g. 12040 -> "12.4" */
    if (api->cuda_driver_version && api->cuda_driver_version(&cuda) == NVML_SUCCESS && cuda > 0 &&
        cuda < 1000000)
        (void)snprintf(nvml->cuda_driver_version, sizeof nvml->cuda_driver_version, "%d.%d",
                       cuda / 1000, (cuda % 1000) / 10);
}

static void
nvml_read_memory(const struct nvml_api *api, void *device, struct gpuplan_detected_gpu *gpu)
{
    if (api->memory_v2) {
        struct nvml_memory_v2 m = { 0 };
        m.version = NVML_MEMORY_V2_VERSION;
        if (api->memory_v2(device, &m) == NVML_SUCCESS && m.total > 0 && m.free <= m.total) {
            gpu->has_memory = true;
            gpu->memory_total_bytes = m.total;
            gpu->memory_free_bytes = m.free;
            gpu->has_memory_reserved = m.reserved <= m.total;
            gpu->memory_reserved_bytes = gpu->has_memory_reserved ? m.reserved : 0;
            return;
        }
    }
    if (api->memory_v1) {
        struct nvml_memory_v1 m = { 0 };
        if (api->memory_v1(device, &m) == NVML_SUCCESS && m.total > 0 && m.free <= m.total) {
            gpu->has_memory = true;
            gpu->memory_total_bytes = m.total;
            gpu->memory_free_bytes = m.free;
        }
    }
}

/*
 * Count active NVLinks. A link counts only on SUCCESS with isActive == 1
 * (nvtop's rule). NOT_SUPPORTED on link 0 means no NVLink at all (PCIe parts:
 * known, 0 links); INVALID_ARGUMENT or NOT_SUPPORTED on a later link means
 * "no such link" and ends the loop; any other error makes the count unknown.
 */
static void
nvml_read_nvlink(const struct nvml_api *api, void *device, struct gpuplan_detected_gpu *gpu)
{
    if (!api->nvlink_state)
        return;
    uint32_t n_active = 0;
    for (unsigned int link = 0; link < NVML_NVLINK_MAX_LINKS; link++) {
        int is_active = 0;
        const int rc = api->nvlink_state(device, link, &is_active);
        if (rc == NVML_SUCCESS) {
            n_active += is_active == NVML_FEATURE_ENABLED;
            continue;
        }
        if (link == 0 && rc == NVML_ERROR_NOT_SUPPORTED) {
            gpu->has_nvlink = true;
            gpu->nvlink_supported = false;
            gpu->nvlink_active_links = 0;
            return;
        }
        if (link > 0 && (rc == NVML_ERROR_INVALID_ARGUMENT || rc == NVML_ERROR_NOT_SUPPORTED))
            break;
        return; /* unknown */
    }
    gpu->has_nvlink = true;
    gpu->nvlink_supported = true;
    gpu->nvlink_active_links = n_active;
}

static void nvml_read_device(const struct nvml_api *api,
                             void *device,
                             uint32_t index,
                             struct gpuplan_detected_gpu *gpu)
{
    memset(gpu, 0, sizeof *gpu);
    gpu->vendor = GPUPLAN_VENDOR_NVIDIA;
    gpu->source = GPUPLAN_DETECT_SOURCE_NVML;
    gpu->index = index;

    char text[NVML_NAME_BUFFER_BYTES + 1] = { 0 };
    if (api->get_name && api->get_name(device, text, NVML_NAME_BUFFER_BYTES) == NVML_SUCCESS)
        copy_printable(gpu->name, sizeof gpu->name, text, NVML_NAME_BUFFER_BYTES);
    if (!gpu->name[0])
        (void)snprintf(gpu->name, sizeof gpu->name, "NVIDIA GPU %u", index);

    memset(text, 0, sizeof text);
    if (api->get_uuid && api->get_uuid(device, text, NVML_UUID_BUFFER_BYTES) == NVML_SUCCESS)
        copy_printable(gpu->uuid, sizeof gpu->uuid, text, NVML_UUID_BUFFER_BYTES);

    nvml_read_memory(api, device, gpu);

    int major = -1, minor = -1;
    if (api->compute_capability &&
        api->compute_capability(device, &major, &minor) == NVML_SUCCESS && major >= 1 &&
        major <= 99 && minor >= 0 && minor <= 99)
        (void)snprintf(gpu->compute_capability, sizeof gpu->compute_capability, "%d.%d", major,
                       minor);

    nvml_read_nvlink(api, device, gpu);

    unsigned int value = 0;
    if (api->max_pcie_gen && api->max_pcie_gen(device, &value) == NVML_SUCCESS && value >= 1 &&
        value <= MAX_PLAUSIBLE_PCIE_GEN)
        gpu->pcie_gen = value;
    value = 0;
    if (api->max_pcie_width && api->max_pcie_width(device, &value) == NVML_SUCCESS && value >= 1 &&
        value <= MAX_PLAUSIBLE_LANES)
        gpu->pcie_width = value;
    value = 0;
    if (api->power_limit && api->power_limit(device, &value) == NVML_SUCCESS && value > 0) {
        const double watts = (double)value / MILLIWATTS_PER_W;
        if (watts <= MAX_PLAUSIBLE_POWER_W) {
            gpu->has_power_limit = true;
            gpu->power_limit_w = watts;
        }
    }
    const char *id = gpuplan_detect_match_name(gpu->vendor, gpu->name, NULL,
                                               gpu->has_memory ? gpu->memory_total_bytes : 0);
    if (id)
        (void)snprintf(gpu->catalog_id, sizeof gpu->catalog_id, "%s", id);
}

static void nvml_list_devices(const struct nvml_api *api, struct gpuplan_detect_result *result)
{
    struct gpuplan_detect_nvml *nvml = &result->nvml;
    unsigned int count = 0;
    const int rc = api->get_count(&count);
    if (rc != NVML_SUCCESS) {
        char text[NVML_ERROR_TEXT_MAX + 1];
        nvml_error_text(api, rc, text, sizeof text);
        nvml->status = GPUPLAN_NVML_COUNT_FAILED;
        nvml->nvml_return = rc;
        (void)snprintf(nvml->message, sizeof nvml->message, "nvmlDeviceGetCount failed: %s", text);
        return;
    }
    nvml->status = GPUPLAN_NVML_OK;
    nvml->n_devices = count;
    uint32_t n_listed = 0;
    for (unsigned int i = 0; i < count && result->n_gpus < GPUPLAN_DETECT_MAX_GPUS; i++) {
        void *device = NULL;
        /* NO_PERMISSION (and any other failure) skips that device only. */
        if (api->get_handle(i, &device) != NVML_SUCCESS || !device)
            continue;
        nvml_read_device(api, device, i, &result->gpus[result->n_gpus++]);
        n_listed++;
    }
    nvml->n_skipped = count - n_listed;
}

static void nvml_probe(const char *path, struct gpuplan_detect_result *result)
{
    struct gpuplan_detect_nvml *nvml = &result->nvml;
    copy_printable(nvml->library, sizeof nvml->library, path, sizeof nvml->library);
    struct nvml_api api;
    memset(&api, 0, sizeof api);

    (void)dlerror();
    api.lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!api.lib) {
        const char *why = dlerror();
        char text[sizeof nvml->message];
        copy_printable(text, sizeof text, why ? why : "dlopen failed", sizeof text);
        /* glibc's text for ENOENT; we never call setlocale, so it is not translated. */
        nvml->status =
            strstr(text, "No such file") ? GPUPLAN_NVML_NOT_FOUND : GPUPLAN_NVML_LOAD_FAILED;
        (void)snprintf(nvml->message, sizeof nvml->message, "%s", text);
        return;
    }
    if (!nvml_load_symbols(&api, nvml))
        goto out;

    const int rc = api.init();
    if (rc != NVML_SUCCESS) {
        char text[NVML_ERROR_TEXT_MAX + 1];
        nvml_error_text(&api, rc, text, sizeof text);
        nvml->status = GPUPLAN_NVML_INIT_FAILED;
        nvml->nvml_return = rc;
        (void)snprintf(nvml->message, sizeof nvml->message, "nvmlInit failed: %s", text);
        goto out;
    }
    nvml_read_driver(&api, nvml);
    nvml_list_devices(&api, result);
    (void)api.shutdown();
out:
    dlclose(api.lib);
}

/* ---- AMD through sysfs ---- */

#define AMD_PCI_VENDOR_ID  0x1002U
#define SYSFS_PATH_MAX     512
#define SYSFS_VALUE_MAX    128
#define MAX_DRM_CARDS      256
#define MAX_KFD_NODES      256
#define KFD_PROPERTIES_MAX 8192

/* Read a small sysfs file into dst (NUL-terminated, trailing whitespace trimmed). */
static bool read_sysfs(const char *path, char *dst, size_t dst_size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return false;
    const size_t n = fread(dst, 1, dst_size - 1, f);
    const bool ok = !ferror(f);
    (void)fclose(f);
    if (!ok)
        return false;
    dst[n] = '\0';
    size_t len = strlen(dst);
    while (len > 0 && (dst[len - 1] == '\n' || dst[len - 1] == ' ' || dst[len - 1] == '\t'))
        dst[--len] = '\0';
    return true;
}

/* Strict unsigned parse (base 10, or 16 with 0x when `base` is 0); no sign, no junk. */
static bool parse_u64(const char *text, int base, uint64_t *out)
{
    if (!text[0] || text[0] == '-' || text[0] == '+' || text[0] == ' ')
        return false;
    errno = 0;
    char *end = NULL;
    const unsigned long long v = strtoull(text, &end, base);
    if (errno != 0 || end == text || *end != '\0')
        return false;
    *out = v;
    return true;
}

static bool read_sysfs_u64(const char *path, int base, uint64_t *out)
{
    char value[SYSFS_VALUE_MAX];
    return read_sysfs(path, value, sizeof value) && parse_u64(value, base, out);
}

static bool join_path(char *dst, size_t dst_size, const char *a, const char *b)
{
    const int n = snprintf(dst, dst_size, "%s/%s", a, b);
    return n > 0 && (size_t)n < dst_size;
}

/*
 * PCIe generation from a link speed such as "32.0 GT/s PCIe": the per-lane
 * rates of PCIe 1.0..6.0 are 2.5, 5, 8, 16, 32, 64 GT/s (the table nvtop
 * uses for amdsmi's MT/s figures, research note §1.2).
 */
static uint32_t pcie_gen_from_speed(const char *text)
{
    static const double gt_per_s[] = { 2.5, 5.0, 8.0, 16.0, 32.0, 64.0 };
    char *end = NULL;
    const double speed = strtod(text, &end);
    if (end == text)
        return 0;
    for (size_t i = 0; i < sizeof gt_per_s / sizeof gt_per_s[0]; i++) {
        if (speed > gt_per_s[i] - 0.25 && speed < gt_per_s[i] + 0.25)
            return (uint32_t)i + 1;
    }
    return 0;
}

/* One KFD GPU node: its DRM render minor and gfx target version (e.g. 90402). */
struct kfd_node {
    uint64_t render_minor;
    uint64_t gfx_target_version;
};

/* Find `key` at a line start in a KFD properties text ("key value\n" lines, decimal). */
static bool kfd_property(const char *text, const char *key, uint64_t *out)
{
    const size_t key_len = strlen(key);
    for (const char *line = text; line && *line;) {
        const char *eol = strchr(line, '\n');
        const size_t len = eol ? (size_t)(eol - line) : strlen(line);
        if (len > key_len && len - key_len < SYSFS_VALUE_MAX && strncmp(line, key, key_len) == 0 &&
            line[key_len] == ' ') {
            char value[SYSFS_VALUE_MAX];
            memcpy(value, line + key_len + 1, len - key_len - 1);
            value[len - key_len - 1] = '\0';
            return parse_u64(value, 10, out);
        }
        line = eol ? eol + 1 : NULL;
    }
    return false;
}

static size_t kfd_scan(const char *root, struct kfd_node *nodes, size_t max_nodes, bool *has_kfd)
{
    char dir_path[SYSFS_PATH_MAX];
    if (!join_path(dir_path, sizeof dir_path, root, "class/kfd/kfd/topology/nodes"))
        return 0;
    DIR *dir = opendir(dir_path);
    if (!dir)
        return 0;
    *has_kfd = true;
    size_t n = 0;
    char *text = malloc(KFD_PROPERTIES_MAX);
    const struct dirent *entry;
    while (text && n < max_nodes && (entry = readdir(dir)) != NULL) {
        if (entry->d_name[0] == '.')
            continue;
        char path[SYSFS_PATH_MAX];
        const int len = snprintf(path, sizeof path, "%s/%s/properties", dir_path, entry->d_name);
        if (len <= 0 || (size_t)len >= sizeof path || !read_sysfs(path, text, KFD_PROPERTIES_MAX))
            continue;
        struct kfd_node node = { 0 };
        /* CPU nodes have gfx_target_version 0 and no render node. */
        if (kfd_property(text, "gfx_target_version", &node.gfx_target_version) &&
            node.gfx_target_version > 0 &&
            kfd_property(text, "drm_render_minor", &node.render_minor))
            nodes[n++] = node;
    }
    free(text);
    (void)closedir(dir);
    return n;
}

/*
 * gfx target name from KFD's gfx_target_version = major*10000 + minor*100 +
 * stepping, printed as "gfx%d%x%x" (90402 -> gfx942, 90010 -> gfx90a), as
 * ROCm's own tools derive it from the topology.
 */
static void gfx_target_name(uint64_t version, char *dst, size_t dst_size)
{
    const uint64_t major = version / 10000, minor = (version / 100) % 100, step = version % 100;
    if (major == 0 || major > 99 || minor > 15 || step > 15)
        return;
    (void)snprintf(dst, dst_size, "gfx%u%x%x", (unsigned)major, (unsigned)minor, (unsigned)step);
}

/* The render minor N of <device>/drm/renderDN, if any. */
static bool card_render_minor(const char *device_dir, uint64_t *minor)
{
    char drm_dir[SYSFS_PATH_MAX];
    if (!join_path(drm_dir, sizeof drm_dir, device_dir, "drm"))
        return false;
    DIR *dir = opendir(drm_dir);
    if (!dir)
        return false;
    bool found = false;
    const struct dirent *entry;
    while (!found && (entry = readdir(dir)) != NULL) {
        if (strncmp(entry->d_name, "renderD", 7) == 0)
            found = parse_u64(entry->d_name + 7, 10, minor);
    }
    (void)closedir(dir);
    return found;
}

/* power1_cap of the first <device>/hwmon/hwmonK that has one, in microwatts. */
static bool card_power_cap(const char *device_dir, uint64_t *microwatts)
{
    char hwmon_dir[SYSFS_PATH_MAX];
    if (!join_path(hwmon_dir, sizeof hwmon_dir, device_dir, "hwmon"))
        return false;
    DIR *dir = opendir(hwmon_dir);
    if (!dir)
        return false;
    bool found = false;
    const struct dirent *entry;
    while (!found && (entry = readdir(dir)) != NULL) {
        if (strncmp(entry->d_name, "hwmon", 5) != 0)
            continue;
        char path[SYSFS_PATH_MAX];
        const int len = snprintf(path, sizeof path, "%s/%s/power1_cap", hwmon_dir, entry->d_name);
        found = len > 0 && (size_t)len < sizeof path && read_sysfs_u64(path, 10, microwatts);
    }
    (void)closedir(dir);
    return found;
}

static void amd_read_memory(const char *device_dir, struct gpuplan_detected_gpu *gpu)
{
    char path[SYSFS_PATH_MAX];
    uint64_t total = 0, used = 0;
    /* amdgpu_vram_mgr.c DOC: mem_info_vram_total / _used are in bytes. */
    if (!join_path(path, sizeof path, device_dir, "mem_info_vram_total") ||
        !read_sysfs_u64(path, 10, &total) || total == 0)
        return;
    if (!join_path(path, sizeof path, device_dir, "mem_info_vram_used") ||
        !read_sysfs_u64(path, 10, &used) || used > total)
        return;
    gpu->has_memory = true;
    gpu->memory_total_bytes = total;
    gpu->memory_free_bytes = total - used;
}

static void amd_read_pcie(const char *device_dir, struct gpuplan_detected_gpu *gpu)
{
    char path[SYSFS_PATH_MAX];
    char value[SYSFS_VALUE_MAX];
    uint64_t width = 0;
    if (join_path(path, sizeof path, device_dir, "max_link_speed") &&
        read_sysfs(path, value, sizeof value))
        gpu->pcie_gen = pcie_gen_from_speed(value);
    if (join_path(path, sizeof path, device_dir, "max_link_width") &&
        read_sysfs_u64(path, 10, &width) && width >= 1 && width <= MAX_PLAUSIBLE_LANES)
        gpu->pcie_width = (uint32_t)width;
}

static void amd_read_card(const char *device_dir,
                          uint32_t card,
                          uint32_t device_id,
                          const struct kfd_node *nodes,
                          size_t n_nodes,
                          struct gpuplan_detected_gpu *gpu)
{
    memset(gpu, 0, sizeof *gpu);
    gpu->vendor = GPUPLAN_VENDOR_AMD;
    gpu->source = GPUPLAN_DETECT_SOURCE_AMDGPU_SYSFS;
    gpu->index = card;
    gpu->pci_vendor_id = AMD_PCI_VENDOR_ID;
    gpu->pci_device_id = device_id;

    char path[SYSFS_PATH_MAX];
    char value[GPUPLAN_DETECT_NAME_MAX];
    /* product_name comes from the board FRU on Instinct parts; often absent on others. */
    if (join_path(path, sizeof path, device_dir, "product_name") &&
        read_sysfs(path, value, sizeof value))
        copy_printable(gpu->name, sizeof gpu->name, value, sizeof value);
    if (!gpu->name[0])
        (void)snprintf(gpu->name, sizeof gpu->name, "AMD GPU [1002:%04x]", device_id);

    amd_read_memory(device_dir, gpu);
    amd_read_pcie(device_dir, gpu);

    uint64_t microwatts = 0;
    if (card_power_cap(device_dir, &microwatts) && microwatts > 0) {
        const double watts = (double)microwatts / MICROWATTS_PER_W;
        if (watts <= MAX_PLAUSIBLE_POWER_W) {
            gpu->has_power_limit = true;
            gpu->power_limit_w = watts;
        }
    }
    uint64_t minor = 0;
    if (card_render_minor(device_dir, &minor)) {
        for (size_t i = 0; i < n_nodes; i++) {
            if (nodes[i].render_minor == minor)
                gfx_target_name(nodes[i].gfx_target_version, gpu->gfx_target,
                                sizeof gpu->gfx_target);
        }
    }
    const char *id = gpuplan_detect_match_name(gpu->vendor, gpu->name, gpu->gfx_target,
                                               gpu->has_memory ? gpu->memory_total_bytes : 0);
    if (id)
        (void)snprintf(gpu->catalog_id, sizeof gpu->catalog_id, "%s", id);
}

static int compare_u32(const void *a, const void *b)
{
    const uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* The N of every "cardN" entry (not "card0-DP-1" connectors), sorted. */
static size_t drm_cards(const char *drm_dir, uint32_t *cards, size_t max_cards)
{
    DIR *dir = opendir(drm_dir);
    if (!dir)
        return 0;
    size_t n = 0;
    const struct dirent *entry;
    while (n < max_cards && (entry = readdir(dir)) != NULL) {
        uint64_t card = 0;
        if (strncmp(entry->d_name, "card", 4) == 0 && parse_u64(entry->d_name + 4, 10, &card) &&
            card <= UINT32_MAX)
            cards[n++] = (uint32_t)card;
    }
    (void)closedir(dir);
    qsort(cards, n, sizeof cards[0], compare_u32);
    return n;
}

static void amd_probe(const char *root, struct gpuplan_detect_result *result)
{
    struct gpuplan_detect_amd *amd = &result->amd;
    amd->scanned = true;
    copy_printable(amd->sysfs_root, sizeof amd->sysfs_root, root, sizeof amd->sysfs_root);

    char drm_dir[SYSFS_PATH_MAX];
    if (!join_path(drm_dir, sizeof drm_dir, root, "class/drm"))
        return;
    uint32_t *cards = malloc(MAX_DRM_CARDS * sizeof *cards);
    struct kfd_node *nodes = malloc(MAX_KFD_NODES * sizeof *nodes);
    if (!cards || !nodes)
        goto out;
    const size_t n_cards = drm_cards(drm_dir, cards, MAX_DRM_CARDS);
    const size_t n_nodes = n_cards ? kfd_scan(root, nodes, MAX_KFD_NODES, &amd->has_kfd) : 0;
    for (size_t i = 0; i < n_cards && result->n_gpus < GPUPLAN_DETECT_MAX_GPUS; i++) {
        char device_dir[SYSFS_PATH_MAX];
        char path[SYSFS_PATH_MAX];
        uint64_t vendor = 0, device_id = 0;
        const int len = snprintf(device_dir, sizeof device_dir, "%s/card%u/device", drm_dir,
                                 (unsigned)cards[i]);
        if (len <= 0 || (size_t)len >= sizeof device_dir)
            continue;
        if (!join_path(path, sizeof path, device_dir, "vendor") ||
            !read_sysfs_u64(path, 16, &vendor) || vendor != AMD_PCI_VENDOR_ID)
            continue;
        if (!join_path(path, sizeof path, device_dir, "device") ||
            !read_sysfs_u64(path, 16, &device_id) || device_id > UINT32_MAX)
            device_id = 0;
        amd_read_card(device_dir, cards[i], (uint32_t)device_id, nodes, n_nodes,
                      &result->gpus[result->n_gpus++]);
        amd->n_devices++;
    }
out:
    free(cards);
    free(nodes);
}

enum gpuplan_status gpuplan_detect_run(const struct gpuplan_detect_options *opts,
                                       struct gpuplan_detect_result *result,
                                       struct gpuplan_error *err)
{
    if (!opts || !result)
        return gpuplan_error_set(err, GPUPLAN_ERR_USAGE, NULL,
                                 "gpuplan_detect_run needs options and a result");
    memset(result, 0, sizeof *result);
    if (opts->nvml_path && opts->nvml_path[0])
        nvml_probe(opts->nvml_path, result);
    if (opts->sysfs_root && opts->sysfs_root[0])
        amd_probe(opts->sysfs_root, result);
    return GPUPLAN_OK;
}

/* ---- catalog id by name table ---- */

/*
 * A rule matches when every word of `all` is a word of the name (case-
 * insensitive, words split at anything not a letter or digit, so "L4" does
 * not match "L40S"), no word of `none` is, the gfx target equals `gfx` (when
 * set) and the memory lies in [min_gib, max_gib] (when known; AMD rules need
 * it). Windows are around what drivers report, which is below the marketing
 * figure: an "80 GB" H100 shows 81,559 MiB (79.6 GiB), an "141 GB" H200
 * 143,771 MiB (140.4 GiB), ECC lowers it further. Names: as nvidia-smi prints
 * them ("NVIDIA H100 80GB HBM3" is the SXM5 part, "NVIDIA A100-SXM4-80GB").
 * First match wins, so specific rows come before general ones.
 */
struct name_rule {
    enum gpuplan_vendor vendor;
    const char *all[3];
    const char *none[3];
    const char *gfx;
    double min_gib;
    double max_gib;
    const char *id;
};

static const struct name_rule name_rules[] = {
    { GPUPLAN_VENDOR_NVIDIA, { "h100", "nvl" }, { NULL }, NULL, 85, 100, "h100-nvl" },
    { GPUPLAN_VENDOR_NVIDIA, { "h100", "pcie" }, { NULL }, NULL, 70, 100, "h100-pcie" },
    { GPUPLAN_VENDOR_NVIDIA, { "h100" }, { "pcie", "nvl" }, NULL, 70, 90, "h100-sxm" },
    { GPUPLAN_VENDOR_NVIDIA, { "h200", "nvl" }, { NULL }, NULL, 130, 150, "h200-nvl" },
    { GPUPLAN_VENDOR_NVIDIA, { "h200" }, { "nvl" }, NULL, 130, 150, "h200-sxm" },
    { GPUPLAN_VENDOR_NVIDIA, { "h20" }, { NULL }, NULL, 85, 100, "h20" },
    { GPUPLAN_VENDOR_NVIDIA, { "a100", "pcie", "40gb" }, { NULL }, NULL, 35, 45, "a100-40gb-pcie" },
    { GPUPLAN_VENDOR_NVIDIA, { "a100", "40gb" }, { "pcie" }, NULL, 35, 45, "a100-40gb-sxm" },
    { GPUPLAN_VENDOR_NVIDIA, { "a100", "pcie" }, { "40gb" }, NULL, 70, 90, "a100-80gb-pcie" },
    { GPUPLAN_VENDOR_NVIDIA, { "a100", "pcie" }, { "80gb" }, NULL, 35, 45, "a100-40gb-pcie" },
    { GPUPLAN_VENDOR_NVIDIA, { "a100" }, { "pcie", "40gb" }, NULL, 70, 90, "a100-80gb-sxm" },
    { GPUPLAN_VENDOR_NVIDIA, { "a100" }, { "pcie", "80gb" }, NULL, 35, 45, "a100-40gb-sxm" },
    { GPUPLAN_VENDOR_NVIDIA, { "b300" }, { NULL }, NULL, 250, 300, "b300" },
    { GPUPLAN_VENDOR_NVIDIA, { "b200" }, { NULL }, NULL, 160, 200, "b200" },
    { GPUPLAN_VENDOR_NVIDIA, { "gb200" }, { NULL }, NULL, 160, 200, "gb200" },
    { GPUPLAN_VENDOR_NVIDIA, { "l40s" }, { NULL }, NULL, 40, 50, "l40s" },
    { GPUPLAN_VENDOR_NVIDIA, { "l4" }, { NULL }, NULL, 20, 25, "l4" },
    { GPUPLAN_VENDOR_NVIDIA, { "rtx", "pro", "6000" }, { NULL }, NULL, 90, 100, "rtx-pro-6000" },
    { GPUPLAN_VENDOR_NVIDIA, { "rtx", "6000", "ada" }, { NULL }, NULL, 40, 50, "rtx-6000-ada" },
    { GPUPLAN_VENDOR_NVIDIA, { "rtx", "5090" }, { NULL }, NULL, 28, 33, "rtx-5090" },
    { GPUPLAN_VENDOR_NVIDIA, { "rtx", "4090" }, { NULL }, NULL, 20, 25, "rtx-4090" },
    { GPUPLAN_VENDOR_NVIDIA, { "rtx", "3090" }, { NULL }, NULL, 20, 25, "rtx-3090" },
    { GPUPLAN_VENDOR_NVIDIA, { "rtx", "a6000" }, { NULL }, NULL, 44, 50, "rtx-a6000" },
    { GPUPLAN_VENDOR_NVIDIA, { "rtx", "a5000" }, { NULL }, NULL, 22, 25, "rtx-a5000" },
    { GPUPLAN_VENDOR_NVIDIA, { "a10g" }, { NULL }, NULL, 21, 25, "a10g" },
    { GPUPLAN_VENDOR_NVIDIA, { "a10" }, { NULL }, NULL, 21, 25, "a10" }, /* word "a10" only */
    { GPUPLAN_VENDOR_NVIDIA, { "t4" }, { NULL }, NULL, 14, 16, "t4" },
    { GPUPLAN_VENDOR_NVIDIA, { "v100" }, { NULL }, NULL, 28, 33, "v100-32gb" },
    /* AMD: gfx target (KFD) plus VRAM; gfx targets from the ROCm GPU spec table. */
    { GPUPLAN_VENDOR_AMD, { NULL }, { NULL }, "gfx950", 270, 300, "mi355x" },
    { GPUPLAN_VENDOR_AMD, { NULL }, { NULL }, "gfx942", 240, 270, "mi325x" },
    { GPUPLAN_VENDOR_AMD, { NULL }, { NULL }, "gfx942", 180, 200, "mi300x" },
    /* MI250X: each of its two GCDs is its own device with 64 GB. */
    { GPUPLAN_VENDOR_AMD, { NULL }, { NULL }, "gfx90a", 60, 66, "mi250x" },
};

#define N_NAME_RULES   (sizeof name_rules / sizeof name_rules[0])
#define MAX_NAME_WORDS 16
#define MAX_WORD_CHARS 32

/* Split a name into lowercase alphanumeric words; returns the count. */
static size_t split_words(const char *name, char words[MAX_NAME_WORDS][MAX_WORD_CHARS])
{
    size_t n = 0, len = 0;
    for (const char *p = name;; p++) {
        const unsigned char c = (unsigned char)*p;
        const bool is_alnum =
            (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
        if (is_alnum) {
            if (len + 1 < MAX_WORD_CHARS && n < MAX_NAME_WORDS)
                words[n][len++] = (char)((c >= 'A' && c <= 'Z') ? c - 'A' + 'a' : c);
            continue;
        }
        if (len > 0 && n < MAX_NAME_WORDS) {
            words[n][len] = '\0';
            n++;
        }
        len = 0;
        if (c == '\0')
            return n;
    }
}

static bool has_word(char words[MAX_NAME_WORDS][MAX_WORD_CHARS], size_t n_words, const char *word)
{
    for (size_t i = 0; i < n_words; i++) {
        if (strcmp(words[i], word) == 0)
            return true;
    }
    return false;
}

static bool rule_matches(const struct name_rule *rule,
                         char words[MAX_NAME_WORDS][MAX_WORD_CHARS],
                         size_t n_words,
                         const char *gfx_target,
                         uint64_t memory_total_bytes)
{
    for (size_t i = 0; i < 3 && rule->all[i]; i++) {
        if (!has_word(words, n_words, rule->all[i]))
            return false;
    }
    for (size_t i = 0; i < 3 && rule->none[i]; i++) {
        if (has_word(words, n_words, rule->none[i]))
            return false;
    }
    if (rule->gfx && (!gfx_target || strcmp(rule->gfx, gfx_target) != 0))
        return false;
    if (memory_total_bytes == 0)
        return rule->gfx == NULL; /* name-only rules may match without memory */
    const double gib = gpuplan_gib_from_bytes(memory_total_bytes);
    return gib >= rule->min_gib && gib <= rule->max_gib;
}

const char *gpuplan_detect_match_name(enum gpuplan_vendor vendor,
                                      const char *name,
                                      const char *gfx_target,
                                      uint64_t memory_total_bytes)
{
    char words[MAX_NAME_WORDS][MAX_WORD_CHARS];
    const size_t n_words = split_words(name ? name : "", words);
    for (size_t i = 0; i < N_NAME_RULES; i++) {
        const struct name_rule *rule = &name_rules[i];
        if (rule->vendor == vendor &&
            rule_matches(rule, words, n_words, gfx_target, memory_total_bytes))
            return rule->id;
    }
    return NULL;
}
