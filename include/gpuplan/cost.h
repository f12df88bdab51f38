/*
 * cost.h - cloud run cost, cost of ownership, buy-vs-rent break-even.
 *
 * Every input carries a value, a unit and where the value came from (the
 * catalog record, a stated assumption, or the user's flag), so renderers can
 * show each assumption next to the result. Defaults and their sources are in
 * docs/tco.md. Pure arithmetic; no prices are looked up here beyond the
 * catalog records the caller passes.
 *
 *   capex          = GPUs + servers * (platform + RAM beyond the platform's
 *                    base * $/GiB + NVMe beyond the base * $/TB + network),
 *                    network for 2+ servers = scale-out NICs * (fabric port
 *                    + the NIC when the platform price lacks it), prices
 *                    from data/parts.json (gpuplan_capex_compute)
 *   own per month  = capex / (12 * years)                       (straight-line)
 *                  + energy: (gpus * tdp * load + platform_w) * pue
 *                            * hours_per_day * days_per_month * $/kWh
 *                  + idle energy for the remaining hours (idle_w * pue)
 *                  + maintenance: capex * maintenance_fraction / 12
 *                  + colocation / 12
 *   cloud per month = gpus * cloud $/GPU-hour * hours_per_day * days_per_month
 *
 *   break-even months: first month m where capex + opex * m <= cloud * m,
 *   i.e. capex / (cloud - opex); none when cloud <= opex or past the period.
 *   break-even hours/day: the use at which owning and renting cost the same
 *   over the whole depreciation period.
 */
#ifndef GPUPLAN_COST_H
#define GPUPLAN_COST_H

#include <stdbool.h>
#include <stdint.h>

#include "gpuplan/catalog.h"
#include "gpuplan/error.h"
#include "gpuplan/options.h"

enum gpuplan_cost_input {
    GPUPLAN_COST_GPU_PRICE = 0,  /* USD per GPU */
    GPUPLAN_COST_PLATFORM_PRICE, /* USD per server: chassis, CPUs, base RAM and NVMe */
    GPUPLAN_COST_RAM_PRICE,      /* USD per GiB of RAM beyond the platform's base */
    GPUPLAN_COST_NVME_PRICE,     /* USD per TB of NVMe beyond the base */
    GPUPLAN_COST_RAM_GIB,        /* GiB of RAM per server wanted (the base when not given) */
    GPUPLAN_COST_NVME_TB,        /* TB of NVMe per server wanted (the base when not given) */
    GPUPLAN_COST_NETWORK_PRICE,  /* USD per server: NICs, switch ports, cables */
    GPUPLAN_COST_GPU_TDP,        /* W per GPU */
    GPUPLAN_COST_GPU_LOAD,       /* fraction of TDP drawn while in use */
    GPUPLAN_COST_PLATFORM_POWER, /* W per server (everything but GPUs) in use */
    GPUPLAN_COST_IDLE_POWER,     /* W per server while not in use (GPUs idle) */
    GPUPLAN_COST_PUE,            /* facility power usage effectiveness */
    GPUPLAN_COST_POWER_PRICE,    /* USD per kWh */
    GPUPLAN_COST_MAINTENANCE,    /* fraction of capex per year */
    GPUPLAN_COST_COLOCATION,     /* USD per server per year (space, cooling, remote hands) */
    GPUPLAN_COST_YEARS,          /* depreciation period */
    GPUPLAN_COST_HOURS_PER_DAY,  /* hours of use per day */
    GPUPLAN_COST_CLOUD_PRICE,    /* USD per GPU-hour at the chosen tier */
    GPUPLAN_COST_INPUT_COUNT
};

enum gpuplan_cost_origin {
    GPUPLAN_COST_FROM_CATALOG = 0, /* a catalog record's figure */
    GPUPLAN_COST_FROM_ASSUMPTION,  /* a stated default (docs/tco.md) */
    GPUPLAN_COST_FROM_USER,        /* a flag or request field */
};

struct gpuplan_cost_value {
    double value; /* in the unit of gpuplan_cost_input_unit() */
    enum gpuplan_cost_origin origin;
    char note[192]; /* e.g. "catalog h100-sxm price_usd (2026-05)" */
};

#define GPUPLAN_TCO_MAX_YEARS  10
#define GPUPLAN_TCO_MAX_MONTHS (GPUPLAN_TCO_MAX_YEARS * 12)

struct gpuplan_cost_inputs {
    uint32_t n_gpus;    /* e.g. 8 */
    uint32_t n_servers; /* ceil(n_gpus / GPUs per server), e.g. 1 */
    char gpu_id[48];
    char platform_id[48]; /* "" when none */
    struct gpuplan_cost_value v[GPUPLAN_COST_INPUT_COUNT];
    /* the cloud rate: the tier asked, the tier and provider of the catalog rate taken */
    enum gpuplan_cloud_tier tier_asked;
    enum gpuplan_cloud_tier tier;
    bool rate_fallback; /* no rate at tier_asked: `tier` is another (say so; never rank first) */
    char rate_provider[64]; /* "" without a catalog rate */
    char rate_date[16];
    /* what the platform price includes, per server */
    double ram_base_gib;
    double nvme_base_tb;
    /* the catalog figure behind v[i] is older than GPUPLAN_PRICE_STALE_MONTHS before
     * catalog_date (the catalog's date, "" without a catalog) */
    bool stale[GPUPLAN_COST_INPUT_COUNT];
    char catalog_date[16];
};

/* The inputs a user gave (`gpuplan tco` flags, POST /v1/tco fields), before the catalog's. */
struct gpuplan_cost_overrides {
    bool set[GPUPLAN_COST_INPUT_COUNT]; /* the input was given */
    double value[GPUPLAN_COST_INPUT_COUNT];
};

/*
 * One option per input (options.h), indexed by enum gpuplan_cost_input and
 * terminated by name NULL, filling a struct gpuplan_cost_overrides: the
 * number as given; its range is checked by gpuplan_cost_inputs_set() in the
 * input's unit.
 */
extern const struct gpuplan_option gpuplan_cost_options[];

/* Option name ("gpu-price"), unit ("USD/GPU") and the JSON key ("gpu_price_usd"). */
const char *gpuplan_cost_input_flag(enum gpuplan_cost_input input);
const char *gpuplan_cost_input_unit(enum gpuplan_cost_input input);
const char *gpuplan_cost_input_key(enum gpuplan_cost_input input);
const char *
gpuplan_cost_origin_name(enum gpuplan_cost_origin origin); /* "catalog", "assumption", "user" */

/*
 * Fill every input for `n_gpus` of `gpu` in `platform` (may be NULL: the
 * first platform of the GPU is the caller's job; without one the platform
 * figures are stated assumptions), the cloud rate at `tier`
 * (gpuplan_gpu_cloud_rate: another tier with rate_fallback set when the GPU
 * has none there) and the parts' prices from `catalog` (data/parts.json;
 * NULL: RAM and NVMe beyond the base are unpriced, the network is the stated
 * $2,500-per-GPU assumption). Stale flags count from the catalog's date.
 * Errors: GPUPLAN_ERR_USAGE for n_gpus 0. GPU price or cloud rate 0 in the
 * catalog stay 0 with a note saying so; gpuplan_tco_compute() then asks for
 * the flag.
 */
enum gpuplan_status gpuplan_cost_inputs_init_ex(struct gpuplan_cost_inputs *in,
                                                const struct gpuplan_catalog *catalog,
                                                const struct gpuplan_gpu *gpu,
                                                uint32_t n_gpus,
                                                const struct gpuplan_platform *platform,
                                                enum gpuplan_cloud_tier tier,
                                                struct gpuplan_error *err);

/* gpuplan_cost_inputs_init_ex() without a catalog, at GPUPLAN_TIER_DEFAULT. */
enum gpuplan_status gpuplan_cost_inputs_init(struct gpuplan_cost_inputs *in,
                                             const struct gpuplan_gpu *gpu,
                                             uint32_t n_gpus,
                                             const struct gpuplan_platform *platform,
                                             struct gpuplan_error *err);

/* The lines of capex, in this order. */
enum gpuplan_capex_item {
    GPUPLAN_CAPEX_GPUS = 0,
    GPUPLAN_CAPEX_PLATFORM, /* servers: chassis, CPUs, base RAM and NVMe */
    GPUPLAN_CAPEX_RAM,      /* RAM beyond the platform's base */
    GPUPLAN_CAPEX_NVME,     /* NVMe beyond the platform's base */
    GPUPLAN_CAPEX_NETWORK,  /* cluster network for 2+ servers */
    GPUPLAN_CAPEX_ITEM_COUNT
};

struct gpuplan_capex_line {
    double quantity;  /* in `unit`, all servers */
    const char *unit; /* static: "GPU", "server", "GiB", "TB" */
    double unit_usd;  /* USD per unit */
    double usd;       /* quantity * unit_usd; 0 when !priced */
    bool priced;      /* false: a quantity without a price (named as unpriced) */
};

struct gpuplan_capex {
    struct gpuplan_capex_line line[GPUPLAN_CAPEX_ITEM_COUNT];
    double total_usd;    /* the priced lines */
    uint32_t n_unpriced; /* lines with a quantity and no price */
};

/* "gpus", "platform", "ram", "nvme", "network" (JSON keys, not translated). */
const char *gpuplan_capex_item_name(enum gpuplan_capex_item item);

/* The capex lines of `in` (no range checks: gpuplan_tco_compute's). */
void gpuplan_capex_compute(const struct gpuplan_cost_inputs *in, struct gpuplan_capex *out);

/* Override one input from the user (validated: finite, in range). GPUPLAN_ERR_USAGE. */
enum gpuplan_status gpuplan_cost_inputs_set(struct gpuplan_cost_inputs *in,
                                            enum gpuplan_cost_input input,
                                            double value,
                                            struct gpuplan_error *err);

struct gpuplan_tco {
    struct gpuplan_capex capex; /* the lines behind capex_usd */
    double capex_usd;           /* GPUs + platform + RAM + NVMe + network */
    double power_in_use_kw;     /* at the wall, incl. PUE */
    double power_idle_kw;
    double months; /* depreciation period, 12 * years */
    double monthly_depreciation_usd;
    double monthly_energy_usd;
    double monthly_maintenance_usd;
    double monthly_colocation_usd;
    double monthly_opex_usd; /* energy + maintenance + colocation */
    double monthly_own_usd;  /* depreciation + opex */
    double monthly_cloud_usd;
    double own_per_used_gpu_hour_usd; /* monthly_own / GPU-hours used per month */
    bool has_break_even_months;       /* false: never within the period */
    double break_even_months;
    bool has_break_even_hours_per_day; /* false: not even at 24 h/day */
    double break_even_hours_per_day;
    uint32_t n_points; /* months 0..months */
    double cumulative_own_usd[GPUPLAN_TCO_MAX_MONTHS + 1];
    double cumulative_cloud_usd[GPUPLAN_TCO_MAX_MONTHS + 1];
};

/*
 * Compute the TCO table. Errors: GPUPLAN_ERR_USAGE when the GPU price or the
 * cloud rate is 0 (hint: --gpu-price / --cloud-price), or an input is out of
 * range (years 1..10, hours 0..24).
 */
enum gpuplan_status gpuplan_tco_compute(const struct gpuplan_cost_inputs *in,
                                        struct gpuplan_tco *out,
                                        struct gpuplan_error *err);

/* Cost of a cloud run: GPU-hours * USD per GPU-hour. */
double gpuplan_cost_cloud_run_usd(double hours, uint32_t n_gpus, double usd_per_gpu_hour);

/* Tokens in a million: the unit of a per-token price ("USD per million tokens"). */
#define GPUPLAN_TOKENS_PER_MILLION 1e6

/*
 * USD per million tokens of hardware that costs `usd_per_hour` (all its
 * GPUs) and processes `tokens_per_s` (> 0): usd_per_hour / (tokens_per_s *
 * 3600 s/h) * 1e6. The one formula behind the estimate's serving cost and
 * the planner's cost ranking and figures.
 */
double gpuplan_cost_usd_per_mtok(double usd_per_hour, double tokens_per_s);

#endif
