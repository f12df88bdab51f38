/*
 * catalog.h - GPUs, server platforms and curated models, with sources.
 *
 * The catalog is JSON (data/gpus.json, data/platforms.json, data/models.json)
 * compiled into the binary; `--catalog DIR` replaces or extends it with a
 * user's files (records with an existing id replace it, new ids are added).
 * It is loaded once, immutable afterwards, and shared read-only across
 * threads; every pointer a lookup returns is borrowed and valid until
 * gpuplan_catalog_free(). Every record carries `source` and `retrieved`.
 *
 * Figures keep the datasheet's literal (e.g. "141 GB") next to the converted
 * number; unknown figures are explicit (`has_fp8 = false`), never -1.
 */
#ifndef GPUPLAN_CATALOG_H
#define GPUPLAN_CATALOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpuplan/error.h"

#define GPUPLAN_CATALOG_MAX_PLATFORMS_PER_GPU 8

enum gpuplan_vendor {
    GPUPLAN_VENDOR_NVIDIA = 0,
    GPUPLAN_VENDOR_AMD,
    GPUPLAN_VENDOR_INTEL,
    GPUPLAN_VENDOR_COUNT
};

enum gpuplan_link {
    GPUPLAN_LINK_PCIE = 0,      /* no GPU-to-GPU fabric: traffic crosses PCIe (and the host) */
    GPUPLAN_LINK_NVLINK_BRIDGE, /* NVLink bridge between 2-4 cards */
    GPUPLAN_LINK_NVSWITCH,      /* NVLink through NVSwitch: all-to-all in the board */
    GPUPLAN_LINK_INFINITY_FABRIC,
    GPUPLAN_LINK_ETHERNET, /* Gaudi on-die RoCE */
    GPUPLAN_LINK_COUNT
};

struct gpuplan_gpu {
    char id[48]; /* e.g. "h100-sxm" */
    enum gpuplan_vendor vendor;
    char name[96];                    /* e.g. "NVIDIA H100 SXM5 80GB" */
    char architecture[32];            /* e.g. "Hopper" */
    uint64_t memory_bytes;            /* vendor figure, e.g. 80e9 for "80 GB" */
    uint64_t memory_visible_bytes;    /* what nvidia-smi shows; 0 when unknown */
    char memory_literal[32];          /* e.g. "80 GB HBM3" */
    double memory_bandwidth_gb_per_s; /* e.g. 3350 */
    double bf16_tflops;               /* dense; 0 with has_bf16 false */
    double fp16_tflops;               /* dense */
    double fp8_tflops;                /* dense; has_fp8 */
    double fp4_tflops;                /* dense; has_fp4 */
    double tf32_tflops;               /* dense; has_tf32 */
    bool has_bf16;
    bool has_fp8;
    bool has_fp4;
    bool has_tf32;
    enum gpuplan_link link;
    double link_gb_per_s;              /* bidirectional per GPU, e.g. 900 for NVLink 4 */
    uint32_t max_gpus_per_link_domain; /* e.g. 8 for HGX, 2 for an NVLink bridge pair */
    uint32_t pcie_gen;                 /* e.g. 5; 0 unknown */
    double tdp_w;                      /* e.g. 700 */
    char compute_capability[8];        /* NVIDIA, e.g. "9.0"; empty otherwise */
    uint32_t cc_major;                 /* compute_capability parsed at load: 9 for "9.0", 0 none */
    uint32_t cc_minor;                 /* 0 for "9.0", 9 for "8.9" */
    char gfx_target[16];               /* AMD, e.g. "gfx942" */
    char form_factor[16];              /* "sxm", "oam", "pcie", "superchip" */
    char platforms[GPUPLAN_CATALOG_MAX_PLATFORMS_PER_GPU][48]; /* platform ids */
    size_t n_platforms;
    double price_usd;          /* indicative purchase per GPU; 0 unknown */
    char price_date[16];       /* "2026-05" */
    double cloud_usd_per_hour; /* indicative on-demand per GPU-hour; 0 unknown */
    char cloud_date[16];
    char source[512];
    char retrieved[16]; /* "2026-11-29" */
    char notes[512];    /* disagreements between sources, kept */
};

struct gpuplan_platform {
    char id[48]; /* e.g. "hgx-h100-8" */
    char name[96];
    char form_factor[16];   /* "sxm", "oam", "pcie", "workstation" */
    uint32_t max_gpus;      /* e.g. 8 */
    uint32_t gpu_counts[8]; /* allowed GPU counts, e.g. {1,2,4,8} */
    size_t n_gpu_counts;
    double base_price_usd; /* chassis, CPUs, no GPUs, base RAM/NVMe */
    double base_power_w;   /* everything but the GPUs, at load */
    uint32_t cpu_sockets;
    uint32_t cpu_cores_max; /* per server */
    uint32_t ram_slots;
    uint64_t ram_max_bytes;
    uint32_t nvme_bays;
    char network[128];       /* e.g. "8x 400 Gb/s InfiniBand NDR" */
    double network_gb_per_s; /* per server, inter-node, GB/s (bytes): 400 for 8x 400 Gb/s */
    uint32_t rack_units;
    char source[512];
    char retrieved[16];
    char notes[512]; /* which figures are estimates */
};

struct gpuplan_catalog_model {
    char id[64];             /* e.g. "llama-3.1-70b" */
    char name[96];           /* e.g. "Meta Llama 3.1 70B" */
    char hf_repo[96];        /* e.g. "meta-llama/Llama-3.1-70B" */
    char family[32];         /* model_type */
    const char *config_json; /* borrowed; the config.json text */
    size_t config_json_len;
    uint64_t params_published; /* an official figure when one exists; 0 otherwise */
    char source[512];
    char retrieved[16];
    char notes[512]; /* e.g. config substitutions, kept explicit */
};

struct gpuplan_catalog;

/* Load the embedded catalog, then (when `dir` is not NULL) the user's files in it. */
enum gpuplan_status
gpuplan_catalog_load(struct gpuplan_catalog **out, const char *dir, struct gpuplan_error *err);
void gpuplan_catalog_free(struct gpuplan_catalog *catalog);

size_t gpuplan_catalog_n_gpus(const struct gpuplan_catalog *catalog);
const struct gpuplan_gpu *gpuplan_catalog_gpu_at(const struct gpuplan_catalog *catalog, size_t i);
size_t gpuplan_catalog_n_platforms(const struct gpuplan_catalog *catalog);
const struct gpuplan_platform *gpuplan_catalog_platform_at(const struct gpuplan_catalog *catalog,
                                                           size_t i);
size_t gpuplan_catalog_n_models(const struct gpuplan_catalog *catalog);
const struct gpuplan_catalog_model *gpuplan_catalog_model_at(const struct gpuplan_catalog *catalog,
                                                             size_t i);

/* Exact-id lookups; NULL when absent. */
const struct gpuplan_gpu *gpuplan_catalog_find_gpu(const struct gpuplan_catalog *catalog,
                                                   const char *id);
const struct gpuplan_platform *gpuplan_catalog_find_platform(const struct gpuplan_catalog *catalog,
                                                             const char *id);
const struct gpuplan_catalog_model *
gpuplan_catalog_find_model(const struct gpuplan_catalog *catalog, const char *id);

/*
 * Lookups that fail helpfully: GPUPLAN_ERR_NOT_FOUND with
 * "unknown GPU 'h100sxm'" and hint "did you mean 'h100-sxm'?" (edit distance).
 */
enum gpuplan_status gpuplan_catalog_get_gpu(const struct gpuplan_catalog *catalog,
                                            const char *id,
                                            const struct gpuplan_gpu **out,
                                            struct gpuplan_error *err);
enum gpuplan_status gpuplan_catalog_get_model(const struct gpuplan_catalog *catalog,
                                              const char *id,
                                              const struct gpuplan_catalog_model **out,
                                              struct gpuplan_error *err);

/* Dense peak for a compute precision name ("bf16", "fp16", "fp8", "fp4", "tf32"); 0 if absent. */
double gpuplan_gpu_peak_tflops(const struct gpuplan_gpu *gpu, const char *precision);

/*
 * "9.0" -> 9 and 0: a compute capability MAJOR.MINOR, each 1..2 digits (MINOR
 * one digit, as NVIDIA numbers them). The catalog parses every GPU's once at
 * load (cc_major, cc_minor); false on anything else.
 */
bool gpuplan_gpu_parse_compute_capability(const char *text, uint32_t *major, uint32_t *minor);

/* The catalog's date: the newest `retrieved` of all records, e.g. "2026-11-29". */
const char *gpuplan_catalog_date(const struct gpuplan_catalog *catalog);

#endif
