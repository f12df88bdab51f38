/*
 * catalog.h - GPUs, server platforms and curated models, with sources.
 *
 * The catalog is JSON (data/gpus.json, data/platforms.json, data/parts.json,
 * data/models.json) compiled into the binary; `--catalog DIR` replaces or extends it with a
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
/* Cloud rates one GPU record may list: 4 tiers x 2 providers. */
#define GPUPLAN_CATALOG_MAX_RATES_PER_GPU 8
/* A price older than this, counted from the catalog's date, is flagged as stale. */
#define GPUPLAN_PRICE_STALE_MONTHS 12

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

/*
 * Where a cloud rate comes from (docs/catalog.md): hyperscaler on demand
 * (AWS, Google Cloud, Azure, Oracle), specialty or neocloud on demand
 * (Lambda, CoreWeave, RunPod Secure, Nebius, Crusoe, ...), marketplace or
 * spot (Vast.ai, RunPod community and spot, interruptible), and a 1-year
 * commitment. The default is specialty on demand.
 */
enum gpuplan_cloud_tier {
    GPUPLAN_TIER_HYPERSCALER = 0,
    GPUPLAN_TIER_SPECIALTY,
    GPUPLAN_TIER_MARKETPLACE,
    GPUPLAN_TIER_COMMIT_1Y,
    GPUPLAN_TIER_COUNT
};
#define GPUPLAN_TIER_DEFAULT GPUPLAN_TIER_SPECIALTY

/* One provider's rate for one GPU at one tier. */
struct gpuplan_cloud_rate {
    enum gpuplan_cloud_tier tier;
    double usd_per_gpu_hour; /* > 0, e.g. 2.69 */
    char provider[64];       /* e.g. "RunPod Secure Cloud" */
    char date[16];           /* of the price, e.g. "2026-05" */
    char source[256];
    char notes[256]; /* derivation, disagreements */
};

struct gpuplan_gpu {
    char id[48]; /* e.g. "h100-sxm" */
    enum gpuplan_vendor vendor;
    char name[96];                    /* e.g. "NVIDIA H100 SXM5 80GB" */
    char architecture[32];            /* e.g. "Hopper" */
    uint64_t memory_bytes;            /* vendor figure, e.g. 80e9 for "80 GB" */
    uint64_t memory_visible_bytes;    /* what nvidia-smi shows; 0 when unknown */
    uint32_t devices_per_card;        /* devices the OS sees per card: 2 for an MI250X; else 1 */
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
    double price_usd;    /* indicative purchase per GPU (per device); 0 unknown */
    char price_date[16]; /* "2026-05" */
    char price_source[256];
    char price_notes[256]; /* "ESTIMATE: ..." with its derivation, disagreements */
    struct gpuplan_cloud_rate rates[GPUPLAN_CATALOG_MAX_RATES_PER_GPU]; /* cloud_rates */
    size_t n_rates;
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
    char price_date[16];   /* of base_price_usd, e.g. "2026-05" */
    double base_power_w;   /* everything but the GPUs, at load */
    char cpu[64];          /* e.g. "2x Intel Xeon Platinum 8480C (56 cores)" */
    uint32_t cpu_sockets;
    uint32_t cpu_cores_max;  /* per server */
    uint64_t ram_base_bytes; /* RAM in base_price_usd (vendor GB: 10^9 bytes) */
    uint32_t ram_slots;
    uint64_t ram_max_bytes;
    uint64_t nvme_base_bytes; /* NVMe in base_price_usd (vendor TB: 10^12 bytes) */
    uint32_t nvme_bays;
    char network[128];       /* e.g. "8x 400 Gb/s InfiniBand NDR" */
    double network_gb_per_s; /* per server, inter-node, GB/s (bytes): 400 for 8x 400 Gb/s */
    uint32_t scaleout_nics;  /* cluster NIC ports per server, e.g. 8 */
    bool nics_included;      /* base_price_usd includes those NICs */
    uint32_t rack_units;
    char source[512];
    char retrieved[16];
    char notes[512]; /* which figures are estimates */
};

/* What a part record prices (data/parts.json). */
enum gpuplan_part_kind {
    GPUPLAN_PART_RAM = 0,     /* USD per GiB of server RAM */
    GPUPLAN_PART_NVME,        /* USD per TB of NVMe */
    GPUPLAN_PART_NIC,         /* USD per scale-out NIC */
    GPUPLAN_PART_SWITCH_PORT, /* USD per fabric port: switch share, optics, cable */
    GPUPLAN_PART_KIND_COUNT
};

struct gpuplan_part {
    char id[48]; /* e.g. "ram-ddr5-rdimm" */
    enum gpuplan_part_kind kind;
    char name[96];
    double usd_per_unit; /* > 0 */
    char unit[16];       /* "GiB", "TB", "NIC", "port" */
    double gbit_per_s;   /* NIC and port speed; 0 for RAM and NVMe */
    char price_date[16];
    char source[512];
    char retrieved[16];
    char notes[512];
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
size_t gpuplan_catalog_n_parts(const struct gpuplan_catalog *catalog);
const struct gpuplan_part *gpuplan_catalog_part_at(const struct gpuplan_catalog *catalog, size_t i);
/* The first part of `kind` in file order (the catalog's price for it); NULL when none. */
const struct gpuplan_part *gpuplan_catalog_part(const struct gpuplan_catalog *catalog,
                                                enum gpuplan_part_kind kind);
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
 * The platform `gpu` is sold in with `gpus_per_node` GPUs per server, when
 * exactly one of its platforms holds that many (B200, B300, GB200 and GB300
 * list one each); NULL when none or several do (then callers keep the time
 * model's stated network assumption rather than pick a server).
 */
const struct gpuplan_platform *gpuplan_catalog_sole_platform(const struct gpuplan_catalog *catalog,
                                                             const struct gpuplan_gpu *gpu,
                                                             uint32_t gpus_per_node);

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

/* "hyperscaler", "specialty", "marketplace", "commit-1y"; "" out of range. */
const char *gpuplan_cloud_tier_name(enum gpuplan_cloud_tier tier);
/* The tier of a name above (exact); false otherwise. */
bool gpuplan_cloud_tier_parse(const char *name, enum gpuplan_cloud_tier *tier);
/* The tier names, NULL-terminated, in enum order (an option's choices). */
extern const char *const gpuplan_cloud_tier_names[];

/*
 * The rate a plan at `tier` pays for `gpu`: the median of those listed at that
 * tier (with an even count the upper middle one: a named provider's price,
 * never one source's outlier); when the GPU has none there, the median at the
 * first tier of the fallback
 * order that has one (specialty, hyperscaler, commit-1y, marketplace, the
 * asked tier left out) with `fallback` true. rate NULL: no rate at all.
 */
struct gpuplan_rate_choice {
    const struct gpuplan_cloud_rate *rate; /* borrowed from the GPU record */
    enum gpuplan_cloud_tier asked;
    bool fallback; /* rate is at another tier than `asked` */
};
void gpuplan_gpu_cloud_rate(const struct gpuplan_gpu *gpu,
                            enum gpuplan_cloud_tier tier,
                            struct gpuplan_rate_choice *out);

/*
 * Whole months from `older` to `newer` (YYYY-MM or YYYY-MM-DD; days are
 * ignored): 12 from "2025-05" to "2026-05". -1 when either is no date.
 */
int gpuplan_date_months_between(const char *older, const char *newer);

/*
 * Whether a price dated `date` is older than GPUPLAN_PRICE_STALE_MONTHS
 * counted back from the catalog's date (never today's clock, so outputs
 * stay reproducible). False for an empty or malformed date.
 */
bool gpuplan_catalog_price_is_stale(const struct gpuplan_catalog *catalog, const char *date);

#endif
