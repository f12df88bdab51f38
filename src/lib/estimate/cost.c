/*
 * cost.c - cloud run cost, cost of ownership and buy-vs-rent break-even.
 *
 * Formulas are in cost.h; the defaults and why each was chosen are in
 * docs/tco.md. Every default that is not a catalog figure is an assumption
 * named in its note, so the output shows it.
 */
#include "gpuplan/cost.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gpuplan/units.h"

#include "util/i18n_internal.h"

/*
 * Stated assumptions (docs/tco.md):
 * - platform price without GPUs when the catalog has no platform: an 8-way
 *   SXM/OAM server (baseboard, 2 CPUs, 2 TB RAM, NVMe, NICs) $50,000; a PCIe
 *   server or workstation $15,000. No sourced figure: pass --platform-price.
 * - platform power in use: 3,000 W for SXM/OAM servers, 1,000 W otherwise.
 * - GPU load 0.8 of TDP averaged over a training run.
 * - idle: GPUs at 10 % of TDP, platform at 50 % of its in-use power.
 * - PUE 1.4; energy $0.12/kWh; maintenance 10 % of capex a year.
 * - colocation (space, cooling, remote hands; energy billed apart)
 *   $100 per kW of in-use IT power per month.
 * - multi-server network without a catalog (data/parts.json prices it
 *   otherwise): $2,500 per GPU (a 400 Gb/s NIC, switch port, cable).
 * - depreciation 3 years; use 8 hours a day.
 */
#define ASSUME_PLATFORM_SXM_USD       50000.0
#define ASSUME_PLATFORM_PCIE_USD      15000.0
#define ASSUME_PLATFORM_SXM_W         3000.0
#define ASSUME_PLATFORM_PCIE_W        1000.0
#define ASSUME_GPU_LOAD               0.8
#define ASSUME_GPU_IDLE_FRACTION      0.10
#define ASSUME_PLATFORM_IDLE_FRACTION 0.50
#define ASSUME_PUE                    1.4
#define ASSUME_USD_PER_KWH            0.12
#define ASSUME_MAINTENANCE_PER_YEAR   0.10
#define ASSUME_COLO_USD_PER_KW_MONTH  100.0
#define ASSUME_NETWORK_USD_PER_GPU    2500.0
#define ASSUME_YEARS                  3 /* years */
#define ASSUME_HOURS_PER_DAY          8 /* hours */

/*
 * Each input's unit, JSON key (units in the name) and the range gpuplan_cost_inputs_set and
 * gpuplan_tco_compute allow: min..max, or above min when min_open.
 */
static const struct {
    const char *unit;
    const char *key;
    double min, max;
    bool min_open;
} input_table[GPUPLAN_COST_INPUT_COUNT] = {
    [GPUPLAN_COST_GPU_PRICE] = { GPUPLAN_N_("USD/GPU"), "gpu_price_usd", 0, 1e7 },
    [GPUPLAN_COST_PLATFORM_PRICE] = { GPUPLAN_N_("USD/server"), "platform_price_usd", 0, 1e8 },
    [GPUPLAN_COST_RAM_PRICE] = { GPUPLAN_N_("USD/GiB"), "ram_usd_per_gib", 0, 1e4 },
    [GPUPLAN_COST_NVME_PRICE] = { GPUPLAN_N_("USD/TB"), "nvme_usd_per_tb", 0, 1e6 },
    [GPUPLAN_COST_RAM_GIB] = { GPUPLAN_N_("GiB/server"), "ram_gib", 0, 1e6 },
    [GPUPLAN_COST_NVME_TB] = { GPUPLAN_N_("TB/server"), "nvme_tb", 0, 1e4 },
    [GPUPLAN_COST_NETWORK_PRICE] = { GPUPLAN_N_("USD/server"), "network_price_usd", 0, 1e8 },
    [GPUPLAN_COST_GPU_TDP] = { GPUPLAN_N_("W/GPU"), "gpu_tdp_w", 0, 1e5 },
    [GPUPLAN_COST_GPU_LOAD] = { GPUPLAN_N_("fraction of TDP"), "gpu_load", 0, 1.5 },
    [GPUPLAN_COST_PLATFORM_POWER] = { GPUPLAN_N_("W/server"), "platform_power_w", 0, 1e6 },
    [GPUPLAN_COST_IDLE_POWER] = { GPUPLAN_N_("W/server"), "idle_power_w", 0, 1e6 },
    [GPUPLAN_COST_PUE] = { GPUPLAN_N_("ratio"), "pue", 1, 5 },
    [GPUPLAN_COST_POWER_PRICE] = { GPUPLAN_N_("USD/kWh"), "power_price_usd_per_kwh", 0, 10 },
    [GPUPLAN_COST_MAINTENANCE] = { GPUPLAN_N_("fraction of capex/year"), "maintenance_per_year", 0,
                                   1 },
    [GPUPLAN_COST_COLOCATION] = { GPUPLAN_N_("USD/server/year"), "colocation_usd_per_year", 0,
                                  1e7 },
    [GPUPLAN_COST_YEARS] = { GPUPLAN_N_("years"), "years", 1, GPUPLAN_TCO_MAX_YEARS },
    /* above 0: the own cost per hour of use is the month's own cost over the hours used */
    [GPUPLAN_COST_HOURS_PER_DAY] = { GPUPLAN_N_("h/day"), "hours_per_day", 0, 24, true },
    [GPUPLAN_COST_CLOUD_PRICE] = { GPUPLAN_N_("USD/GPU-hour"), "cloud_usd_per_gpu_hour", 0, 1e4 },
};

/* The text of a number macro, for the defaults --help shows (STR(ASSUME_PUE) is "1.4"). */
#define STR_(x) #x
#define STR(x)  STR_(x)

/*
 * The option of each input (indexed by enum gpuplan_cost_input): a number
 * that overrides the catalog or the assumption; the range is checked by
 * gpuplan_cost_inputs_set, in the input's unit.
 */
#define INPUT(k, flag, arg_text, help_text, doc)                           \
    [k] = { .name = flag,                                                  \
            .kind = GPUPLAN_OPTION_REAL,                                   \
            .field = GPUPLAN_FIELD_DOUBLE,                                 \
            GPUPLAN_OPTION_AT(struct gpuplan_cost_overrides, value[k]),    \
            .set_offset = offsetof(struct gpuplan_cost_overrides, set[k]), \
            .arg = arg_text,                                               \
            .help = help_text,                                             \
            .default_doc = doc }

const struct gpuplan_option gpuplan_cost_options[GPUPLAN_COST_INPUT_COUNT + 1] = {
    INPUT(GPUPLAN_COST_GPU_PRICE,
          "gpu-price",
          "USD",
          GPUPLAN_N_("purchase price per GPU"),
          GPUPLAN_N_("catalog")),
    INPUT(GPUPLAN_COST_PLATFORM_PRICE,
          "platform-price",
          "USD",
          GPUPLAN_N_("server without GPUs"),
          GPUPLAN_N_("catalog or assumption")),
    INPUT(GPUPLAN_COST_RAM_PRICE,
          "ram-price",
          "USD_PER_GIB",
          GPUPLAN_N_("RAM beyond the platform's base, per GiB"),
          GPUPLAN_N_("catalog part")),
    INPUT(GPUPLAN_COST_NVME_PRICE,
          "nvme-price",
          "USD_PER_TB",
          GPUPLAN_N_("NVMe beyond the platform's base, per TB"),
          GPUPLAN_N_("catalog part")),
    INPUT(GPUPLAN_COST_RAM_GIB,
          "ram-gib",
          "GIB",
          GPUPLAN_N_("RAM per server"),
          GPUPLAN_N_("the platform's base")),
    INPUT(GPUPLAN_COST_NVME_TB,
          "nvme-tb",
          "TB",
          GPUPLAN_N_("NVMe per server"),
          GPUPLAN_N_("the platform's base")),
    INPUT(GPUPLAN_COST_NETWORK_PRICE,
          "network-price",
          "USD",
          GPUPLAN_N_("network per server"),
          GPUPLAN_N_("0 for one server; NICs and fabric ports")),
    INPUT(GPUPLAN_COST_GPU_TDP,
          "gpu-tdp",
          "W",
          GPUPLAN_N_("board power per GPU"),
          GPUPLAN_N_("catalog")),
    INPUT(GPUPLAN_COST_GPU_LOAD,
          "load",
          "F",
          GPUPLAN_N_("fraction of TDP drawn in use"),
          STR(ASSUME_GPU_LOAD)),
    INPUT(GPUPLAN_COST_PLATFORM_POWER,
          "platform-power",
          "W",
          GPUPLAN_N_("server power without GPUs, in use"),
          GPUPLAN_N_("3000 SXM / 1000")),
    INPUT(GPUPLAN_COST_IDLE_POWER,
          "idle-power",
          "W",
          GPUPLAN_N_("server power when not in use"),
          GPUPLAN_N_("idle GPUs and half the platform")),
    INPUT(GPUPLAN_COST_PUE, "pue", "F", GPUPLAN_N_("facility PUE"), STR(ASSUME_PUE)),
    INPUT(GPUPLAN_COST_POWER_PRICE,
          "power-price",
          "USD_PER_KWH",
          GPUPLAN_N_("electricity"),
          STR(ASSUME_USD_PER_KWH)),
    INPUT(GPUPLAN_COST_MAINTENANCE,
          "maintenance",
          "F",
          GPUPLAN_N_("fraction of capex per year"),
          STR(ASSUME_MAINTENANCE_PER_YEAR)),
    INPUT(GPUPLAN_COST_COLOCATION,
          "colocation",
          "USD",
          GPUPLAN_N_("per server per year"),
          GPUPLAN_N_("$100 per kW-month of IT load")),
    INPUT(GPUPLAN_COST_YEARS,
          "years",
          "Y",
          GPUPLAN_N_("depreciation period, 1..10"),
          STR(ASSUME_YEARS)),
    INPUT(GPUPLAN_COST_HOURS_PER_DAY,
          "hours-per-day",
          "H",
          GPUPLAN_N_("hours of use per day"),
          STR(ASSUME_HOURS_PER_DAY)),
    INPUT(GPUPLAN_COST_CLOUD_PRICE,
          "cloud-price",
          "USD",
          GPUPLAN_N_("cloud USD per GPU-hour"),
          GPUPLAN_N_("catalog, at --cloud-tier")),
    [GPUPLAN_COST_INPUT_COUNT] = { .name = NULL },
};

const char *gpuplan_cost_input_flag(enum gpuplan_cost_input input)
{
    return (unsigned)input < GPUPLAN_COST_INPUT_COUNT ? gpuplan_cost_options[input].name : "";
}

const char *gpuplan_cost_input_unit(enum gpuplan_cost_input input)
{
    return (unsigned)input < GPUPLAN_COST_INPUT_COUNT ? input_table[input].unit : "";
}

const char *gpuplan_cost_input_key(enum gpuplan_cost_input input)
{
    return (unsigned)input < GPUPLAN_COST_INPUT_COUNT ? input_table[input].key : "";
}

const char *gpuplan_cost_origin_name(enum gpuplan_cost_origin origin)
{
    switch (origin) {
    case GPUPLAN_COST_FROM_CATALOG:
        return GPUPLAN_N_("catalog");
    case GPUPLAN_COST_FROM_USER:
        return GPUPLAN_N_("user");
    case GPUPLAN_COST_FROM_ASSUMPTION:
    default:
        return GPUPLAN_N_("assumption");
    }
}

static void put(struct gpuplan_cost_inputs *in,
                enum gpuplan_cost_input i,
                double value,
                enum gpuplan_cost_origin origin,
                const char *note)
{
    in->v[i].value = value;
    in->v[i].origin = origin;
    snprintf(in->v[i].note, sizeof in->v[i].note, "%s", note);
}

static bool is_big_board(const char *form_factor)
{
    return strcmp(form_factor, "sxm") == 0 || strcmp(form_factor, "oam") == 0 ||
           strcmp(form_factor, "superchip") == 0;
}

/* The cloud rate at `tier` (catalog.h: another tier with a fallback flag when the GPU has none). */
static void put_rate(struct gpuplan_cost_inputs *in,
                     const struct gpuplan_catalog *catalog,
                     const struct gpuplan_gpu *gpu,
                     enum gpuplan_cloud_tier tier)
{
    char note[192];
    struct gpuplan_rate_choice choice;
    gpuplan_gpu_cloud_rate(gpu, tier, &choice);
    in->tier_asked = tier;
    in->tier = tier;
    if (!choice.rate) {
        put(in, GPUPLAN_COST_CLOUD_PRICE, 0, GPUPLAN_COST_FROM_ASSUMPTION,
            GPUPLAN_N_("no catalog cloud rate: pass --cloud-price"));
        return;
    }
    const struct gpuplan_cloud_rate *r = choice.rate;
    in->tier = r->tier;
    in->rate_fallback = choice.fallback;
    snprintf(in->rate_provider, sizeof in->rate_provider, "%s", r->provider);
    snprintf(in->rate_date, sizeof in->rate_date, "%s", r->date);
    if (choice.fallback)
        snprintf(note, sizeof note, "catalog %s: no %s rate; %s %.48s (%s)", gpu->id,
                 gpuplan_cloud_tier_name(tier), gpuplan_cloud_tier_name(r->tier), r->provider,
                 r->date);
    else
        snprintf(note, sizeof note, "catalog %s: %s %.64s (%s)", gpu->id,
                 gpuplan_cloud_tier_name(r->tier), r->provider, r->date);
    put(in, GPUPLAN_COST_CLOUD_PRICE, r->usd_per_gpu_hour, GPUPLAN_COST_FROM_CATALOG, note);
    in->stale[GPUPLAN_COST_CLOUD_PRICE] = gpuplan_catalog_price_is_stale(catalog, r->date);
}

/* RAM or NVMe beyond the base: the catalog part's price per unit, or unpriced. */
static void put_part_price(struct gpuplan_cost_inputs *in,
                           const struct gpuplan_catalog *catalog,
                           enum gpuplan_part_kind kind,
                           enum gpuplan_cost_input input)
{
    const struct gpuplan_part *part = gpuplan_catalog_part(catalog, kind);
    if (!part) {
        put(in, input, 0, GPUPLAN_COST_FROM_ASSUMPTION,
            kind == GPUPLAN_PART_RAM
                ? GPUPLAN_N_("unpriced: no catalog RAM part; pass --ram-price")
                : GPUPLAN_N_("unpriced: no catalog NVMe part; pass --nvme-price"));
        return;
    }
    char note[192];
    snprintf(note, sizeof note, "catalog part %s (%s)", part->id, part->price_date);
    put(in, input, part->usd_per_unit, GPUPLAN_COST_FROM_CATALOG, note);
    in->stale[input] = gpuplan_catalog_price_is_stale(catalog, part->price_date);
}

/*
 * The cluster network per server for 2+ servers: each scale-out NIC port
 * needs a fabric port (switch share, optics, cable), and a NIC when the
 * platform's price lacks it. Without the catalog's parts: the stated
 * $2,500-per-GPU assumption.
 */
static void put_network(struct gpuplan_cost_inputs *in,
                        const struct gpuplan_catalog *catalog,
                        const struct gpuplan_platform *platform,
                        uint32_t n_gpus)
{
    if (in->n_servers <= 1) {
        put(in, GPUPLAN_COST_NETWORK_PRICE, 0, GPUPLAN_COST_FROM_ASSUMPTION,
            GPUPLAN_N_("assumption: one server, no cluster network"));
        return;
    }
    const struct gpuplan_part *port = gpuplan_catalog_part(catalog, GPUPLAN_PART_SWITCH_PORT);
    const struct gpuplan_part *nic = gpuplan_catalog_part(catalog, GPUPLAN_PART_NIC);
    const uint32_t ports = platform ? platform->scaleout_nics : 0;
    const bool need_nic = platform && !platform->nics_included;
    if (!port || ports == 0 || (need_nic && !nic)) {
        const double usd = ASSUME_NETWORK_USD_PER_GPU * n_gpus / in->n_servers;
        put(in, GPUPLAN_COST_NETWORK_PRICE, usd, GPUPLAN_COST_FROM_ASSUMPTION,
            GPUPLAN_N_("assumption: $2,500 per GPU for a 400 Gb/s NIC, switch port and cable"));
        return;
    }
    const double per_port = port->usd_per_unit + (need_nic ? nic->usd_per_unit : 0.0);
    char note[192];
    if (need_nic)
        snprintf(note, sizeof note, "catalog parts: %u x (%s + %s) per server", ports, port->id,
                 nic->id);
    else
        snprintf(note, sizeof note, "catalog parts: %u x %s per server (NICs in the platform)",
                 ports, port->id);
    put(in, GPUPLAN_COST_NETWORK_PRICE, ports * per_port, GPUPLAN_COST_FROM_CATALOG, note);
    in->stale[GPUPLAN_COST_NETWORK_PRICE] =
        gpuplan_catalog_price_is_stale(catalog, port->price_date) ||
        (need_nic && gpuplan_catalog_price_is_stale(catalog, nic->price_date));
}

/* Platform price and what it includes (RAM and NVMe base), or the stated assumptions. */
static void put_platform(struct gpuplan_cost_inputs *in,
                         const struct gpuplan_catalog *catalog,
                         const struct gpuplan_gpu *gpu,
                         const struct gpuplan_platform *platform)
{
    char note[192];
    const bool big = is_big_board(gpu->form_factor);
    if (platform && platform->base_price_usd > 0) {
        snprintf(in->platform_id, sizeof in->platform_id, "%s", platform->id);
        snprintf(note, sizeof note, "catalog %s base_price_usd (%s)", platform->id,
                 platform->price_date);
        put(in, GPUPLAN_COST_PLATFORM_PRICE, platform->base_price_usd, GPUPLAN_COST_FROM_CATALOG,
            note);
        in->stale[GPUPLAN_COST_PLATFORM_PRICE] =
            gpuplan_catalog_price_is_stale(catalog, platform->price_date);
    } else {
        put(in, GPUPLAN_COST_PLATFORM_PRICE,
            big ? ASSUME_PLATFORM_SXM_USD : ASSUME_PLATFORM_PCIE_USD, GPUPLAN_COST_FROM_ASSUMPTION,
            big ? GPUPLAN_N_("assumption: 8-way SXM/OAM server without GPUs (no sourced figure)")
                : GPUPLAN_N_("assumption: PCIe server without GPUs (no sourced figure)"));
    }
    if (platform && platform->base_power_w > 0) {
        snprintf(note, sizeof note, "catalog %s base_power_w", platform->id);
        put(in, GPUPLAN_COST_PLATFORM_POWER, platform->base_power_w, GPUPLAN_COST_FROM_CATALOG,
            note);
    } else {
        put(in, GPUPLAN_COST_PLATFORM_POWER, big ? ASSUME_PLATFORM_SXM_W : ASSUME_PLATFORM_PCIE_W,
            GPUPLAN_COST_FROM_ASSUMPTION,
            GPUPLAN_N_("assumption: CPUs, RAM, fans, NICs, switches in use"));
    }
    in->ram_base_gib =
        platform ? (double)platform->ram_base_bytes / (double)GPUPLAN_BYTES_PER_GIB : 0.0;
    in->nvme_base_tb =
        platform ? (double)platform->nvme_base_bytes / (double)GPUPLAN_BYTES_PER_TB : 0.0;
    put(in, GPUPLAN_COST_RAM_GIB, in->ram_base_gib, GPUPLAN_COST_FROM_CATALOG,
        platform ? GPUPLAN_N_("the platform's base RAM") : GPUPLAN_N_("no platform: none counted"));
    put(in, GPUPLAN_COST_NVME_TB, in->nvme_base_tb, GPUPLAN_COST_FROM_CATALOG,
        platform ? GPUPLAN_N_("the platform's base NVMe")
                 : GPUPLAN_N_("no platform: none counted"));
    put_part_price(in, catalog, GPUPLAN_PART_RAM, GPUPLAN_COST_RAM_PRICE);
    put_part_price(in, catalog, GPUPLAN_PART_NVME, GPUPLAN_COST_NVME_PRICE);
}

enum gpuplan_status gpuplan_cost_inputs_init_ex(struct gpuplan_cost_inputs *in,
                                                const struct gpuplan_catalog *catalog,
                                                const struct gpuplan_gpu *gpu,
                                                uint32_t n_gpus,
                                                const struct gpuplan_platform *platform,
                                                enum gpuplan_cloud_tier tier,
                                                struct gpuplan_error *err)
{
    memset(in, 0, sizeof *in);
    if (n_gpus == 0)
        return gpuplan_error_set(err, GPUPLAN_ERR_USAGE, NULL, "GPU count is 0; must be >= 1");
    char note[192];
    in->n_gpus = n_gpus;
    snprintf(in->gpu_id, sizeof in->gpu_id, "%s", gpu->id);
    snprintf(in->catalog_date, sizeof in->catalog_date, "%s", gpuplan_catalog_date(catalog));
    /* Without a platform record: 8 GPUs per server (HGX/OAM boards and common PCIe servers). */
    const uint32_t per_server = platform && platform->max_gpus > 0 ? platform->max_gpus : 8;
    in->n_servers = (n_gpus + per_server - 1) / per_server;

    if (gpu->price_usd > 0) {
        snprintf(note, sizeof note, "catalog %s price_usd (%s)", gpu->id, gpu->price_date);
        put(in, GPUPLAN_COST_GPU_PRICE, gpu->price_usd, GPUPLAN_COST_FROM_CATALOG, note);
        in->stale[GPUPLAN_COST_GPU_PRICE] =
            gpuplan_catalog_price_is_stale(catalog, gpu->price_date);
    } else {
        put(in, GPUPLAN_COST_GPU_PRICE, 0, GPUPLAN_COST_FROM_ASSUMPTION,
            GPUPLAN_N_("no catalog price: pass --gpu-price"));
    }
    put_rate(in, catalog, gpu, tier);
    put_platform(in, catalog, gpu, platform);
    put_network(in, catalog, platform, n_gpus);
    snprintf(note, sizeof note, "catalog %s tdp_w", gpu->id);
    put(in, GPUPLAN_COST_GPU_TDP, gpu->tdp_w, GPUPLAN_COST_FROM_CATALOG, note);
    put(in, GPUPLAN_COST_GPU_LOAD, ASSUME_GPU_LOAD, GPUPLAN_COST_FROM_ASSUMPTION,
        GPUPLAN_N_("assumption: average board power while training"));
    const double idle = ASSUME_GPU_IDLE_FRACTION * gpu->tdp_w * per_server +
                        ASSUME_PLATFORM_IDLE_FRACTION * in->v[GPUPLAN_COST_PLATFORM_POWER].value;
    put(in, GPUPLAN_COST_IDLE_POWER, idle, GPUPLAN_COST_FROM_ASSUMPTION,
        GPUPLAN_N_("assumption: GPUs at 10 % of TDP, platform at 50 %, when not in use"));
    put(in, GPUPLAN_COST_PUE, ASSUME_PUE, GPUPLAN_COST_FROM_ASSUMPTION,
        GPUPLAN_N_("assumption: modern colocation facility"));
    put(in, GPUPLAN_COST_POWER_PRICE, ASSUME_USD_PER_KWH, GPUPLAN_COST_FROM_ASSUMPTION,
        GPUPLAN_N_("assumption: commercial electricity"));
    put(in, GPUPLAN_COST_MAINTENANCE, ASSUME_MAINTENANCE_PER_YEAR, GPUPLAN_COST_FROM_ASSUMPTION,
        GPUPLAN_N_("assumption: support contract and spares"));
    const double it_kw =
        (gpu->tdp_w * per_server * ASSUME_GPU_LOAD + in->v[GPUPLAN_COST_PLATFORM_POWER].value) /
        GPUPLAN_W_PER_KW;
    put(in, GPUPLAN_COST_COLOCATION, ASSUME_COLO_USD_PER_KW_MONTH * it_kw * GPUPLAN_MONTHS_PER_YEAR,
        GPUPLAN_COST_FROM_ASSUMPTION,
        GPUPLAN_N_("assumption: $100 per kW of IT load per month, energy billed apart"));
    put(in, GPUPLAN_COST_YEARS, ASSUME_YEARS, GPUPLAN_COST_FROM_ASSUMPTION,
        GPUPLAN_N_("assumption: straight-line depreciation"));
    put(in, GPUPLAN_COST_HOURS_PER_DAY, ASSUME_HOURS_PER_DAY, GPUPLAN_COST_FROM_ASSUMPTION,
        GPUPLAN_N_("assumption: one working day"));
    return GPUPLAN_OK;
}

enum gpuplan_status gpuplan_cost_inputs_init(struct gpuplan_cost_inputs *in,
                                             const struct gpuplan_gpu *gpu,
                                             uint32_t n_gpus,
                                             const struct gpuplan_platform *platform,
                                             struct gpuplan_error *err)
{
    return gpuplan_cost_inputs_init_ex(in, NULL, gpu, n_gpus, platform, GPUPLAN_TIER_DEFAULT, err);
}

const char *gpuplan_capex_item_name(enum gpuplan_capex_item item)
{
    static const char *const names[GPUPLAN_CAPEX_ITEM_COUNT] = { "gpus", "platform", "ram", "nvme",
                                                                 "network" };
    return (unsigned)item < GPUPLAN_CAPEX_ITEM_COUNT ? names[item] : "";
}

static void capex_line(struct gpuplan_capex *c,
                       enum gpuplan_capex_item item,
                       double quantity,
                       const char *unit,
                       double unit_usd)
{
    struct gpuplan_capex_line *l = &c->line[item];
    l->quantity = quantity;
    l->unit = unit;
    l->unit_usd = unit_usd;
    l->priced = !(quantity > 0.0) || unit_usd > 0.0;
    l->usd = l->priced ? quantity * unit_usd : 0.0;
    c->total_usd += l->usd;
    c->n_unpriced += l->priced ? 0u : 1u;
}

void gpuplan_capex_compute(const struct gpuplan_cost_inputs *in, struct gpuplan_capex *out)
{
    memset(out, 0, sizeof *out);
    const double servers = in->n_servers ? in->n_servers : 1;
    const double ram_extra = fmax(0.0, in->v[GPUPLAN_COST_RAM_GIB].value - in->ram_base_gib);
    const double nvme_extra = fmax(0.0, in->v[GPUPLAN_COST_NVME_TB].value - in->nvme_base_tb);
    /* Units are English (JSON); the text renderer translates them. */
    capex_line(out, GPUPLAN_CAPEX_GPUS, in->n_gpus, GPUPLAN_N_("GPU"),
               in->v[GPUPLAN_COST_GPU_PRICE].value);
    capex_line(out, GPUPLAN_CAPEX_PLATFORM, servers, GPUPLAN_N_("server"),
               in->v[GPUPLAN_COST_PLATFORM_PRICE].value);
    capex_line(out, GPUPLAN_CAPEX_RAM, servers * ram_extra, GPUPLAN_N_("GiB"),
               in->v[GPUPLAN_COST_RAM_PRICE].value);
    capex_line(out, GPUPLAN_CAPEX_NVME, servers * nvme_extra, GPUPLAN_N_("TB"),
               in->v[GPUPLAN_COST_NVME_PRICE].value);
    /* A network price is per server; 0 (one server, or none given) is no line to price. */
    const double network = in->v[GPUPLAN_COST_NETWORK_PRICE].value;
    capex_line(out, GPUPLAN_CAPEX_NETWORK, network > 0.0 ? servers : 0.0, GPUPLAN_N_("server"),
               network);
}

/* `value` within input's range (input_table). */
static bool in_range(enum gpuplan_cost_input input, double value)
{
    const double lo = input_table[input].min, hi = input_table[input].max;
    return isfinite(value) && value >= lo && value <= hi &&
           !(input_table[input].min_open && value <= lo);
}

enum gpuplan_status gpuplan_cost_inputs_set(struct gpuplan_cost_inputs *in,
                                            enum gpuplan_cost_input input,
                                            double value,
                                            struct gpuplan_error *err)
{
    if ((unsigned)input >= GPUPLAN_COST_INPUT_COUNT)
        return gpuplan_error_set(err, GPUPLAN_ERR_INTERNAL, NULL, "unknown cost input %d",
                                 (int)input);
    const double lo = input_table[input].min, hi = input_table[input].max;
    if (!in_range(input, value)) {
        if (input_table[input].min_open)
            gpuplan_error_set(err, GPUPLAN_ERR_USAGE, NULL,
                              "'--%s' is %g; must be more than %g and at most %g %s",
                              gpuplan_cost_options[input].name, value, lo, hi,
                              input_table[input].unit);
        else
            gpuplan_error_set(err, GPUPLAN_ERR_USAGE, NULL, "'--%s' is %g; must be in %g..%g %s",
                              gpuplan_cost_options[input].name, value, lo, hi,
                              input_table[input].unit);
        return GPUPLAN_ERR_USAGE;
    }
    put(in, input, value, GPUPLAN_COST_FROM_USER, "user");
    return GPUPLAN_OK;
}

double gpuplan_cost_cloud_run_usd(double hours, uint32_t n_gpus, double usd_per_gpu_hour)
{
    return hours * n_gpus * usd_per_gpu_hour;
}

double gpuplan_cost_usd_per_mtok(double usd_per_hour, double tokens_per_s)
{
    return usd_per_hour / (tokens_per_s * GPUPLAN_S_PER_HOUR) * GPUPLAN_TOKENS_PER_MILLION;
}

enum gpuplan_status gpuplan_tco_compute(const struct gpuplan_cost_inputs *in,
                                        struct gpuplan_tco *out,
                                        struct gpuplan_error *err)
{
    memset(out, 0, sizeof *out);
    for (int i = 0; i < GPUPLAN_COST_INPUT_COUNT; i++) {
        const double v = in->v[i].value;
        if (in_range((enum gpuplan_cost_input)i, v))
            continue;
        if (input_table[i].min_open)
            return gpuplan_error_set(err, GPUPLAN_ERR_USAGE, NULL,
                                     "'%s' is %g; must be more than %g and at most %g %s",
                                     gpuplan_cost_options[i].name, v, input_table[i].min,
                                     input_table[i].max, input_table[i].unit);
        return gpuplan_error_set(err, GPUPLAN_ERR_USAGE, NULL, "'%s' is %g; must be in %g..%g %s",
                                 gpuplan_cost_options[i].name, v, input_table[i].min,
                                 input_table[i].max, input_table[i].unit);
    }
    if (!(in->v[GPUPLAN_COST_GPU_PRICE].value > 0)) {
        gpuplan_error_set(err, GPUPLAN_ERR_USAGE, NULL, "no purchase price for GPU '%s'",
                          in->gpu_id);
        gpuplan_error_hint(err, "pass --gpu-price USD");
        return GPUPLAN_ERR_USAGE;
    }
    if (!(in->v[GPUPLAN_COST_CLOUD_PRICE].value > 0)) {
        gpuplan_error_set(err, GPUPLAN_ERR_USAGE, NULL, "no cloud rate for GPU '%s'", in->gpu_id);
        gpuplan_error_hint(err, "pass --cloud-price USD_PER_GPU_HOUR");
        return GPUPLAN_ERR_USAGE;
    }
    const double n = in->n_gpus, servers = in->n_servers ? in->n_servers : 1;
    double v[GPUPLAN_COST_INPUT_COUNT];
    for (int i = 0; i < GPUPLAN_COST_INPUT_COUNT; i++)
        v[i] = in->v[i].value;
    const double years = v[GPUPLAN_COST_YEARS];
    const double hours = v[GPUPLAN_COST_HOURS_PER_DAY];
    const double days = GPUPLAN_DAYS_PER_MONTH;
    const double kwh_price = v[GPUPLAN_COST_POWER_PRICE];

    gpuplan_capex_compute(in, &out->capex);
    out->capex_usd = out->capex.total_usd;
    out->power_in_use_kw = (n * v[GPUPLAN_COST_GPU_TDP] * v[GPUPLAN_COST_GPU_LOAD] +
                            servers * v[GPUPLAN_COST_PLATFORM_POWER]) *
                           v[GPUPLAN_COST_PUE] / GPUPLAN_W_PER_KW;
    out->power_idle_kw =
        servers * v[GPUPLAN_COST_IDLE_POWER] * v[GPUPLAN_COST_PUE] / GPUPLAN_W_PER_KW;
    out->months = years * GPUPLAN_MONTHS_PER_YEAR;
    out->monthly_depreciation_usd = out->capex_usd / out->months;
    out->monthly_energy_usd =
        (out->power_in_use_kw * hours + out->power_idle_kw * (GPUPLAN_HOURS_PER_DAY - hours)) *
        days * kwh_price;
    out->monthly_maintenance_usd =
        out->capex_usd * v[GPUPLAN_COST_MAINTENANCE] / GPUPLAN_MONTHS_PER_YEAR;
    out->monthly_colocation_usd = servers * v[GPUPLAN_COST_COLOCATION] / GPUPLAN_MONTHS_PER_YEAR;
    out->monthly_opex_usd =
        out->monthly_energy_usd + out->monthly_maintenance_usd + out->monthly_colocation_usd;
    out->monthly_own_usd = out->monthly_depreciation_usd + out->monthly_opex_usd;
    const double cloud_per_hour = n * v[GPUPLAN_COST_CLOUD_PRICE];
    out->monthly_cloud_usd = cloud_per_hour * hours * days;
    const double used_gpu_hours = n * hours * days;
    out->own_per_used_gpu_hour_usd = used_gpu_hours > 0 ? out->monthly_own_usd / used_gpu_hours : 0;

    /* capex + opex * m = cloud * m  =>  m = capex / (cloud - opex) */
    const double margin = out->monthly_cloud_usd - out->monthly_opex_usd;
    if (margin > 0) {
        const double m = out->capex_usd / margin;
        if (m <= out->months) {
            out->has_break_even_months = true;
            out->break_even_months = m;
        }
    }
    /*
     * Over the period M: capex + M (maint + colo) + M D (h P_use + (24 - h) P_idle) c
     *                  = M D h N rate
     *   => h = (capex + M (maint + colo) + M D 24 P_idle c) / (M D (N rate - (P_use - P_idle) c))
     */
    const double fixed =
        out->capex_usd +
        out->months * (out->monthly_maintenance_usd + out->monthly_colocation_usd) +
        out->months * days * GPUPLAN_HOURS_PER_DAY * out->power_idle_kw * kwh_price;
    const double per_hour =
        out->months * days *
        (cloud_per_hour - (out->power_in_use_kw - out->power_idle_kw) * kwh_price);
    if (per_hour > 0) {
        const double h = fixed / per_hour;
        if (h <= GPUPLAN_HOURS_PER_DAY) {
            out->has_break_even_hours_per_day = true;
            out->break_even_hours_per_day = h;
        }
    }
    const uint32_t n_months = (uint32_t)lround(out->months);
    out->n_points = n_months + 1;
    for (uint32_t m = 0; m <= n_months && m <= GPUPLAN_TCO_MAX_MONTHS; m++) {
        out->cumulative_own_usd[m] = out->capex_usd + out->monthly_opex_usd * m;
        out->cumulative_cloud_usd[m] = out->monthly_cloud_usd * m;
    }
    return GPUPLAN_OK;
}
