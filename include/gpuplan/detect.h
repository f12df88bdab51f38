/*
 * detect.h - the GPUs of this machine (`gpuplan detect`).
 *
 * NVIDIA GPUs are read through NVML, loaded at run time with dlopen() from a
 * path the caller names (never a build dependency): versioned symbols first
 * (nvmlInit_v2, nvmlDeviceGetCount_v2, nvmlDeviceGetHandleByIndex_v2,
 * nvmlDeviceGetMemoryInfo_v2), the unversioned ones as fallbacks. AMD GPUs
 * are read from the amdgpu sysfs files under a caller-named root
 * (<root>/class/drm/cardN/device/...) and the KFD topology
 * (<root>/class/kfd/kfd/topology/nodes/N/properties) for the gfx target.
 * Neither library nor sysfs is required: a missing or broken driver is a
 * result ("libnvidia-ml.so.1 not found"), never an error or a crash. Every
 * NVML call that fails leaves its field unknown (`has_*` false).
 *
 * Deliberately not done: amdsmi/rocm_smi (their struct layouts change between
 * ROCm releases, see docs/detect.md), MIG instances, per-process usage.
 * The library never reads the environment: the CLI fills the options.
 *
 * Reference: docs/detect.md; docs/research/formats-and-engines.md §1.
 */
#ifndef GPUPLAN_DETECT_H
#define GPUPLAN_DETECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpuplan/catalog.h"
#include "gpuplan/error.h"

#define GPUPLAN_DETECT_MAX_GPUS       64 /* devices beyond this are counted, not listed */
#define GPUPLAN_DETECT_NAME_MAX       97 /* NVML_DEVICE_NAME_V2_BUFFER_SIZE (96) + NUL */
#define GPUPLAN_DETECT_MAX_SYMBOLS    24 /* optional NVML symbols we may report missing */
#define GPUPLAN_DETECT_DEFAULT_NVML   "libnvidia-ml.so.1"
#define GPUPLAN_DETECT_DEFAULT_SYSFS  "/sys"
#define GPUPLAN_DETECT_SCHEMA_VERSION 1

struct gpuplan_detect_options {
    const char *nvml_path;  /* dlopen() argument, e.g. "libnvidia-ml.so.1"; NULL skips NVML */
    const char *sysfs_root; /* e.g. "/sys"; NULL skips the AMD sysfs scan */
};

/* Defaults: GPUPLAN_DETECT_DEFAULT_NVML and GPUPLAN_DETECT_DEFAULT_SYSFS. */
void gpuplan_detect_options_init(struct gpuplan_detect_options *opts);

enum gpuplan_detect_source { GPUPLAN_DETECT_SOURCE_NVML = 0, GPUPLAN_DETECT_SOURCE_AMDGPU_SYSFS };

struct gpuplan_detected_gpu {
    enum gpuplan_vendor vendor;
    enum gpuplan_detect_source source;
    uint32_t index;                     /* NVML index, or N of /sys/class/drm/cardN */
    char name[GPUPLAN_DETECT_NAME_MAX]; /* e.g. "NVIDIA H100 80GB HBM3"; printable ASCII only */
    char uuid[GPUPLAN_DETECT_NAME_MAX]; /* e.g. "GPU-5c2e..."; empty when unknown */
    bool has_memory;
    uint64_t memory_total_bytes; /* e.g. 85520809984 (81559 MiB) for an H100 80GB */
    uint64_t memory_free_bytes;
    bool has_memory_reserved;       /* NVML memory v2 only */
    uint64_t memory_reserved_bytes; /* driver-reserved, not in total - free */
    char compute_capability[16];    /* NVIDIA, e.g. "9.0"; empty when unknown */
    char gfx_target[16];            /* AMD, e.g. "gfx942"; empty when unknown */
    uint32_t pci_vendor_id;         /* AMD sysfs, e.g. 0x1002; 0 when unknown */
    uint32_t pci_device_id;         /* AMD sysfs, e.g. 0x74a1; 0 when unknown */
    bool has_nvlink;                /* NVLink state known (not supported counts as 0) */
    bool nvlink_supported;          /* false: NVML said NOT_SUPPORTED (a PCIe part) */
    uint32_t nvlink_active_links;   /* e.g. 18 on an HGX H100 */
    uint32_t pcie_gen;              /* max of device and slot, e.g. 5; 0 unknown */
    uint32_t pcie_width;            /* lanes, e.g. 16; 0 unknown */
    bool has_power_limit;
    double power_limit_w; /* enforced limit, e.g. 700 */
    char catalog_id[48];  /* e.g. "h100-sxm"; empty when no match */
};

enum gpuplan_nvml_status {
    GPUPLAN_NVML_SKIPPED = 0,    /* no library path given */
    GPUPLAN_NVML_NOT_FOUND,      /* dlopen(): no such file */
    GPUPLAN_NVML_LOAD_FAILED,    /* dlopen() failed otherwise (bad ELF, missing dependency) */
    GPUPLAN_NVML_MISSING_SYMBOL, /* a required symbol (init, count, handle, shutdown) is absent */
    GPUPLAN_NVML_INIT_FAILED,    /* nvmlInit returned an error */
    GPUPLAN_NVML_COUNT_FAILED,   /* nvmlDeviceGetCount returned an error */
    GPUPLAN_NVML_OK
};

struct gpuplan_detect_nvml {
    enum gpuplan_nvml_status status;
    char library[256];            /* the path tried, e.g. "libnvidia-ml.so.1" */
    char message[256];            /* why not OK, e.g. "nvmlInit failed: Driver Not Loaded" */
    int nvml_return;              /* the failing nvmlReturn_t, 0 when none */
    char driver_version[81];      /* e.g. "550.54.15"; empty when unknown */
    char cuda_driver_version[16]; /* e.g. "12.4"; empty when unknown */
    uint32_t n_devices;           /* nvmlDeviceGetCount, including skipped ones */
    uint32_t n_skipped;           /* handles refused (NO_PERMISSION, ...) or beyond the max */
    const char *missing_symbols[GPUPLAN_DETECT_MAX_SYMBOLS]; /* static strings */
    size_t n_missing_symbols; /* optional symbols absent; fallbacks used where possible */
};

struct gpuplan_detect_amd {
    bool scanned;         /* false when no sysfs root was given */
    char sysfs_root[256]; /* e.g. "/sys" */
    uint32_t n_devices;   /* amdgpu cards found (vendor 0x1002) */
    bool has_kfd;         /* the KFD topology was readable */
};

struct gpuplan_detect_result {
    struct gpuplan_detected_gpu gpus[GPUPLAN_DETECT_MAX_GPUS];
    size_t n_gpus;
    struct gpuplan_detect_nvml nvml;
    struct gpuplan_detect_amd amd;
};

/*
 * Detect the GPUs: NVML first, then amdgpu sysfs. `result` is caller-owned
 * (about 24 KiB: allocate it, do not put it on a small stack) and is
 * overwritten. Catalog ids come from the built-in name table
 * (gpuplan_detect_match_name); call gpuplan_detect_match_catalog() to check
 * them against a loaded catalog. Returns GPUPLAN_OK whenever the arguments
 * are valid, with or without GPUs; GPUPLAN_ERR_USAGE for NULL arguments.
 * nvmlInit and nvmlShutdown are paired (NVML reference-counts them), so
 * other NVML users in the process are not disturbed.
 */
enum gpuplan_status gpuplan_detect_run(const struct gpuplan_detect_options *opts,
                                       struct gpuplan_detect_result *result,
                                       struct gpuplan_error *err);

/*
 * The catalog GPU id a device name (as NVML or sysfs reports it) maps to, by
 * a table of name patterns plus a memory-size window, e.g.
 * ("NVIDIA H100 80GB HBM3", 80 GiB) -> "h100-sxm", ("NVIDIA H200", 141 GB)
 * -> "h200-sxm", (AMD, "gfx942", 192 GB) -> "mi300x". `gfx_target` may be
 * NULL or empty; `memory_total_bytes` 0 means unknown, and then the name
 * patterns alone decide (AMD rules, which key on gfx target plus memory,
 * need the memory). Returns a static string, or NULL when nothing matches.
 */
const char *gpuplan_detect_match_name(enum gpuplan_vendor vendor,
                                      const char *name,
                                      const char *gfx_target,
                                      uint64_t memory_total_bytes);

/*
 * Re-match every detected GPU against `catalog`: keep the table id when the
 * catalog has it, else take the catalog GPU whose name equals the detected
 * name (ignoring case and punctuation), else clear catalog_id.
 * Defined in detect_catalog.c; needs the catalog loader.
 */
void gpuplan_detect_match_catalog(struct gpuplan_detect_result *result,
                                  const struct gpuplan_catalog *catalog);

/*
 * `--gpu local`: this machine's GPUs as one catalog GPU and a count. Runs
 * detection, matches against `catalog`, and requires every device to match
 * the same catalog id. `out` receives a copy of that catalog record whose
 * memory_visible_bytes is the smallest detected total (what the devices
 * really have), so the memory model judges the fit against these GPUs; the
 * other figures (bandwidth, TFLOPS, interconnect, prices) are the catalog's.
 * Errors: GPUPLAN_ERR_NOT_FOUND when no GPU is detected or one has no catalog
 * match (the hint says how to add it with --catalog); GPUPLAN_ERR_UNSUPPORTED
 * when the devices are of different kinds.
 */
enum gpuplan_status gpuplan_detect_local_gpu(const struct gpuplan_detect_options *opts,
                                             const struct gpuplan_catalog *catalog,
                                             struct gpuplan_gpu *out,
                                             uint32_t *out_count,
                                             struct gpuplan_error *err);

/* A stable token for the NVML status: "ok", "not_found", "missing_symbol", ... */
const char *gpuplan_nvml_status_name(enum gpuplan_nvml_status status);

#endif
