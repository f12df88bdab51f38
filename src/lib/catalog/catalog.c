/*
 * catalog.c - GPUs, server platforms and curated models (see catalog.h).
 *
 * Loads data/platforms.json, data/parts.json, data/gpus.json and
 * data/models.json as compiled into the binary (their records, parsed at
 * build time by this loader: catalog_compiled_internal.h), then the same
 * files from a user's `--catalog DIR`, in that order, so a GPU's
 * `platforms` can name a platform the same directory adds.
 * Every record is validated strictly: required fields, types, ranges, known
 * enum words, dates, unique ids, and no unknown keys (a typo in a user's file
 * is an error, not a silently ignored field). Errors name the file and the
 * JSON path, e.g. "gpus.json:$.gpus[3].memory_gb".
 *
 * Not here: rendering (render_catalog.c), any arithmetic on the figures
 * beyond unit conversion at load (the estimate layer).
 */
#include "catalog/catalog_internal.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "catalog/catalog_compiled_internal.h"
#include "catalog/embedded_data_internal.h"
#include "gpuplan/units.h"
#include "util/json_internal.h"
#include "util/suggest_internal.h"

#include "util/i18n_internal.h"

/* Hard caps on what one file may hold (the embedded catalog has < 200 records). */
#define MAX_RECORDS_PER_FILE 4096
/* Largest plausible figures: 100 TB of memory per GPU (the brief's bound), 1 MW per device. */
#define MAX_MEMORY_GB          100000.0
#define MAX_BANDWIDTH_GB_PER_S 1.0e6
#define MAX_TFLOPS             1.0e6
#define MAX_POWER_W            1.0e6
#define MAX_PRICE_USD          1.0e9
/* $10,000 per GPU-hour: far above any listed rate (the priciest are ~$15). */
#define MAX_RATE_USD_PER_HOUR 1.0e4
/* Devices per card: the MI250X has 2 GCDs; 16 leaves room for future multi-die cards. */
#define MAX_DEVICES_PER_CARD 16
/* NVMe per server: 10 PB, far above any GPU server's bays. */
#define MAX_NVME_TB         1.0e4
#define MAX_GPUS_PER_DOMAIN 100000
#define MAX_CONFIG_BYTES    (1024ULL * 1024ULL)

struct gpuplan_catalog {
    struct gpuplan_gpu *gpus;
    size_t n_gpus;
    size_t cap_gpus;
    struct gpuplan_platform *platforms;
    size_t n_platforms;
    size_t cap_platforms;
    struct gpuplan_part *parts;
    size_t n_parts;
    size_t cap_parts;
    struct gpuplan_catalog_model *models;
    char **model_configs; /* owned text behind models[i].config_json */
    size_t n_models;
    size_t cap_models;
    char date[16];
};

/* Where a record or field is: file name plus JSON path. */
struct loc {
    const char *where; /* file, e.g. "gpus.json" */
    char path[160];    /* e.g. "$.gpus[3]", "$.gpus[3].cloud_rates[1]" */
};

static enum gpuplan_status fail(struct gpuplan_error *err,
                                enum gpuplan_status code,
                                const struct loc *at,
                                const char *key,
                                const char *fmt,
                                ...) __attribute__((format(printf, 5, 6)));

static enum gpuplan_status fail(struct gpuplan_error *err,
                                enum gpuplan_status code,
                                const struct loc *at,
                                const char *key,
                                const char *fmt,
                                ...)
{
    char where[GPUPLAN_ERROR_WHERE_MAX];
    char message[GPUPLAN_ERROR_MESSAGE_MAX];
    (void)snprintf(where, sizeof where, "%s:%s%s%s", at->where, at->path, key ? "." : "",
                   key ? key : "");
    va_list ap;
    va_start(ap, fmt);
    (void)vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    return gpuplan_error_set(err, code, where, "%s", message);
}

/* ---- field readers: thin checks over json_internal.h ------------------- */

static bool is_valid_id(const char *id)
{
    if (!*id)
        return false;
    for (const char *p = id; *p; p++) {
        const char c = *p;
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_'))
            return false;
    }
    return true;
}

static bool digits(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9')
            return false;
    return true;
}

/* "YYYY-MM" or "YYYY-MM-DD", month 01..12, day 01..31. */
static bool is_valid_date(const char *s)
{
    const size_t n = strlen(s);
    if ((n != 7 && n != 10) || !digits(s, 4) || s[4] != '-' || !digits(s + 5, 2))
        return false;
    const int month = (s[5] - '0') * 10 + (s[6] - '0');
    if (month < 1 || month > 12)
        return false;
    if (n == 7)
        return true;
    if (s[7] != '-' || !digits(s + 8, 2))
        return false;
    const int day = (s[8] - '0') * 10 + (s[9] - '0');
    return day >= 1 && day <= 31;
}

static enum gpuplan_status get_string(const json_t *obj,
                                      const struct loc *at,
                                      const char *key,
                                      bool required,
                                      char *out,
                                      size_t out_size,
                                      struct gpuplan_error *err)
{
    const enum gpuplan_status st =
        gpuplan_json_get_string(obj, key, at->where, at->path, required, out, out_size, err);
    if (st != GPUPLAN_OK)
        return st;
    if (required && !out[0])
        return fail(err, GPUPLAN_ERR_INVALID_INPUT, at, key, GPUPLAN_TR("'%s' is empty in '%s'"),
                    key, at->where);
    return GPUPLAN_OK;
}

static enum gpuplan_status get_date(const json_t *obj,
                                    const struct loc *at,
                                    const char *key,
                                    bool required,
                                    char *out,
                                    size_t out_size,
                                    struct gpuplan_error *err)
{
    const enum gpuplan_status st = get_string(obj, at, key, required, out, out_size, err);
    if (st != GPUPLAN_OK)
        return st;
    if (out[0] && !is_valid_date(out))
        return fail(err, GPUPLAN_ERR_INVALID_INPUT, at, key,
                    GPUPLAN_TR("'%s' is '%s' in '%s'; must be a date YYYY-MM or YYYY-MM-DD"), key,
                    out, at->where);
    return GPUPLAN_OK;
}

bool gpuplan_gpu_parse_compute_capability(const char *text, uint32_t *major, uint32_t *minor)
{
    const char *p = text;
    uint32_t ma = 0;
    size_t digits = 0;
    for (; *p >= '0' && *p <= '9' && digits < 2; p++, digits++)
        ma = ma * 10 + (uint32_t)(*p - '0');
    if (digits == 0 || ma == 0 || *p != '.' || p[1] < '0' || p[1] > '9' || p[2] != '\0')
        return false;
    *major = ma;
    *minor = (uint32_t)(p[1] - '0');
    return true;
}

/* The optional "compute_capability": kept as written and parsed once into cc_major, cc_minor. */
static enum gpuplan_status get_compute_capability(const json_t *rec,
                                                  const struct loc *at,
                                                  struct gpuplan_gpu *gpu,
                                                  struct gpuplan_error *err)
{
    const enum gpuplan_status st =
        get_string(rec, at, "compute_capability", false, gpu->compute_capability,
                   sizeof gpu->compute_capability, err);
    if (st != GPUPLAN_OK || !gpu->compute_capability[0])
        return st;
    if (!gpuplan_gpu_parse_compute_capability(gpu->compute_capability, &gpu->cc_major,
                                              &gpu->cc_minor))
        return fail(err, GPUPLAN_ERR_INVALID_INPUT, at, "compute_capability",
                    GPUPLAN_TR("'%s' is '%s' in '%s'; must be MAJOR.MINOR such as '9.0'"),
                    "compute_capability", gpu->compute_capability, at->where);
    return GPUPLAN_OK;
}

/*
 * Whether `key` is in `obj` (and not null); when not, *st is GPUPLAN_OK for
 * an optional key (it keeps its default) or the "is missing" error.
 */
static bool present_or(const json_t *obj,
                       const struct loc *at,
                       const char *key,
                       bool required,
                       enum gpuplan_status *st,
                       struct gpuplan_error *err)
{
    const json_t *v = json_object_get(obj, key);
    *st = GPUPLAN_OK;
    if (v && !json_is_null(v))
        return true;
    if (required)
        *st = fail(err, GPUPLAN_ERR_INVALID_INPUT, at, key, GPUPLAN_TR("'%s' is missing in '%s'"),
                   key, at->where);
    return false;
}

/*
 * A number in [min, max] (min exclusive when `positive`). A missing or null
 * optional key leaves *out and *present untouched (present may be NULL).
 */
static enum gpuplan_status get_number(const json_t *obj,
                                      const struct loc *at,
                                      const char *key,
                                      bool required,
                                      bool positive,
                                      double max,
                                      double *out,
                                      bool *present,
                                      struct gpuplan_error *err)
{
    enum gpuplan_status absent_st;
    if (!present_or(obj, at, key, required, &absent_st, err))
        return absent_st;
    double d = 0.0;
    const enum gpuplan_status st =
        gpuplan_json_get_double(obj, key, at->where, at->path, true, &d, err);
    if (st != GPUPLAN_OK)
        return st;
    if ((positive && !(d > 0.0)) || d < 0.0 || d > max)
        return fail(err, GPUPLAN_ERR_INVALID_INPUT, at, key,
                    GPUPLAN_TR("'%s' is %g in '%s'; must be %s 0 and <= %g"), key, d, at->where,
                    positive ? ">" : ">=", max);
    *out = d;
    if (present)
        *present = true;
    return GPUPLAN_OK;
}

static enum gpuplan_status get_count(const json_t *obj,
                                     const struct loc *at,
                                     const char *key,
                                     bool required,
                                     uint64_t min,
                                     uint64_t max,
                                     uint32_t *out,
                                     struct gpuplan_error *err)
{
    uint64_t v = 0;
    enum gpuplan_status absent_st;
    if (!present_or(obj, at, key, required, &absent_st, err))
        return absent_st;
    const enum gpuplan_status st =
        gpuplan_json_get_u64(obj, key, at->where, at->path, true, &v, err);
    if (st != GPUPLAN_OK)
        return st;
    if (v < min || v > max)
        return fail(err, GPUPLAN_ERR_INVALID_INPUT, at, key,
                    GPUPLAN_TR("'%s' is %llu in '%s'; must be %llu..%llu"), key,
                    (unsigned long long)v, at->where, (unsigned long long)min,
                    (unsigned long long)max);
    *out = (uint32_t)v;
    return GPUPLAN_OK;
}

/* Word `text` from `words[n]` (the index), or an error listing them. */
static enum gpuplan_status get_enum(const json_t *obj,
                                    const struct loc *at,
                                    const char *key,
                                    const char *const *words,
                                    size_t n_words,
                                    int *out,
                                    struct gpuplan_error *err)
{
    char text[48];
    const enum gpuplan_status st = get_string(obj, at, key, true, text, sizeof text, err);
    if (st != GPUPLAN_OK)
        return st;
    char allowed[256] = "";
    size_t used = 0;
    for (size_t i = 0; i < n_words; i++) {
        if (strcmp(text, words[i]) == 0) {
            *out = (int)i;
            return GPUPLAN_OK;
        }
        const int w =
            snprintf(allowed + used, sizeof allowed - used, "%s'%s'", i ? ", " : "", words[i]);
        if (w > 0 && (size_t)w < sizeof allowed - used)
            used += (size_t)w;
    }
    return fail(err, GPUPLAN_ERR_INVALID_INPUT, at, key,
                GPUPLAN_TR("'%s' is '%s' in '%s'; must be one of %s"), key, text, at->where,
                allowed);
}

/* Every key of `obj` must be in `keys` (NULL-terminated). */
static enum gpuplan_status check_keys(const json_t *obj,
                                      const struct loc *at,
                                      const char *const *keys,
                                      struct gpuplan_error *err)
{
    const char *key;
    const json_t *value;
    /* jansson's iterator takes a non-const object; iterating does not modify it. */
    json_object_foreach((json_t *)(uintptr_t)obj, key, value)
    {
        (void)value;
        bool known = false;
        for (size_t i = 0; keys[i] && !known; i++)
            known = strcmp(key, keys[i]) == 0;
        if (!known) {
            fail(err, GPUPLAN_ERR_INVALID_INPUT, at, NULL, GPUPLAN_TR("unknown key '%s' in '%s'"),
                 key, at->where);
            gpuplan_error_hint(err, "see docs/catalog.md for the fields of each record");
            return GPUPLAN_ERR_INVALID_INPUT;
        }
    }
    return GPUPLAN_OK;
}

/* ---- records ----------------------------------------------------------- */

static const char *const vendor_words[GPUPLAN_VENDOR_COUNT] = { "nvidia", "amd", "intel" };
static const char *const link_words[GPUPLAN_LINK_COUNT] = { "pcie", "nvlink-bridge", "nvswitch",
                                                            "infinity-fabric", "ethernet" };
static const char *const gpu_form_words[] = { "sxm", "oam", "pcie", "superchip" };
static const char *const platform_form_words[] = { "sxm", "oam", "pcie", "workstation",
                                                   "superchip" };

static const char *const gpu_keys[] = { "id",
                                        "vendor",
                                        "name",
                                        "architecture",
                                        "memory",
                                        "memory_gb",
                                        "memory_visible_mib",
                                        "devices_per_card",
                                        "memory_bandwidth_gb_per_s",
                                        "bf16_tflops",
                                        "fp16_tflops",
                                        "fp8_tflops",
                                        "fp4_tflops",
                                        "tf32_tflops",
                                        "interconnect",
                                        "link_gb_per_s",
                                        "max_gpus_per_link_domain",
                                        "pcie_gen",
                                        "tdp_w",
                                        "compute_capability",
                                        "gfx_target",
                                        "form_factor",
                                        "platforms",
                                        "price_usd",
                                        "price_date",
                                        "price_source",
                                        "price_notes",
                                        "cloud_rates",
                                        "source",
                                        "retrieved",
                                        "notes",
                                        NULL };

static const struct gpuplan_platform *find_platform(const struct gpuplan_catalog *catalog,
                                                    const char *id)
{
    for (size_t i = 0; i < catalog->n_platforms; i++)
        if (strcmp(catalog->platforms[i].id, id) == 0)
            return &catalog->platforms[i];
    return NULL;
}

static enum gpuplan_status parse_gpu_platforms(const json_t *rec,
                                               const struct loc *at,
                                               const struct gpuplan_catalog *catalog,
                                               struct gpuplan_gpu *gpu,
                                               struct gpuplan_error *err)
{
    const json_t *list = json_object_get(rec, "platforms");
    if (!list || json_is_null(list))
        return GPUPLAN_OK;
    if (!json_is_array(list))
        return fail(err, GPUPLAN_ERR_INVALID_INPUT, at, "platforms",
                    GPUPLAN_TR("'platforms' must be an array of platform ids in '%s'"), at->where);
    if (json_array_size(list) > GPUPLAN_CATALOG_MAX_PLATFORMS_PER_GPU)
        return fail(err, GPUPLAN_ERR_INVALID_INPUT, at, "platforms",
                    GPUPLAN_TR("'platforms' has %zu entries in '%s'; must be <= %d"),
                    json_array_size(list), at->where, GPUPLAN_CATALOG_MAX_PLATFORMS_PER_GPU);
    for (size_t i = 0; i < json_array_size(list); i++) {
        const json_t *item = json_array_get(list, i);
        char key[32];
        (void)snprintf(key, sizeof key, "platforms[%zu]", i);
        if (!json_is_string(item) || json_string_length(item) >= sizeof gpu->platforms[0])
            return fail(err, GPUPLAN_ERR_INVALID_INPUT, at, key,
                        GPUPLAN_TR("'%s' must be a platform id string in '%s'"), key, at->where);
        const char *id = json_string_value(item);
        if (!find_platform(catalog, id)) {
            fail(err, GPUPLAN_ERR_INVALID_INPUT, at, key,
                 GPUPLAN_TR("unknown platform '%s' in '%s'"), id, at->where);
            gpuplan_error_hint(err, "add it to platforms.json, or use a platform id of the "
                                    "catalog");
            return GPUPLAN_ERR_INVALID_INPUT;
        }
        (void)snprintf(gpu->platforms[i], sizeof gpu->platforms[i], "%s", id);
        gpu->n_platforms = i + 1;
    }
    return GPUPLAN_OK;
}

static enum gpuplan_status parse_gpu_memory(const json_t *rec,
                                            const struct loc *at,
                                            struct gpuplan_gpu *gpu,
                                            struct gpuplan_error *err)
{
    double memory_gb = 0.0;
    double visible_mib = 0.0;
    enum gpuplan_status st;
    if ((st = get_string(rec, at, "memory", true, gpu->memory_literal, sizeof gpu->memory_literal,
                         err)) != GPUPLAN_OK ||
        (st = get_number(rec, at, "memory_gb", true, true, MAX_MEMORY_GB, &memory_gb, NULL, err)) !=
            GPUPLAN_OK ||
        (st = get_number(rec, at, "memory_visible_mib", false, true,
                         MAX_MEMORY_GB * (double)GPUPLAN_BYTES_PER_GB /
                             (double)GPUPLAN_BYTES_PER_MIB,
                         &visible_mib, NULL, err)) != GPUPLAN_OK)
        return st;
    /* Vendor "GB" is 10^9 bytes (units.h); nvidia-smi's MiB is 2^20 bytes. */
    gpu->memory_bytes = gpuplan_bytes_from_double(memory_gb * (double)GPUPLAN_BYTES_PER_GB);
    gpu->memory_visible_bytes =
        gpuplan_bytes_from_double(visible_mib * (double)GPUPLAN_BYTES_PER_MIB);
    return get_number(rec, at, "memory_bandwidth_gb_per_s", true, true, MAX_BANDWIDTH_GB_PER_S,
                      &gpu->memory_bandwidth_gb_per_s, NULL, err);
}

static enum gpuplan_status parse_gpu_compute(const json_t *rec,
                                             const struct loc *at,
                                             struct gpuplan_gpu *gpu,
                                             struct gpuplan_error *err)
{
    bool has_fp16 = false;
    enum gpuplan_status st;
    if ((st = get_number(rec, at, "bf16_tflops", false, true, MAX_TFLOPS, &gpu->bf16_tflops,
                         &gpu->has_bf16, err)) != GPUPLAN_OK ||
        (st = get_number(rec, at, "fp16_tflops", false, true, MAX_TFLOPS, &gpu->fp16_tflops,
                         &has_fp16, err)) != GPUPLAN_OK ||
        (st = get_number(rec, at, "fp8_tflops", false, true, MAX_TFLOPS, &gpu->fp8_tflops,
                         &gpu->has_fp8, err)) != GPUPLAN_OK ||
        (st = get_number(rec, at, "fp4_tflops", false, true, MAX_TFLOPS, &gpu->fp4_tflops,
                         &gpu->has_fp4, err)) != GPUPLAN_OK ||
        (st = get_number(rec, at, "tf32_tflops", false, true, MAX_TFLOPS, &gpu->tf32_tflops,
                         &gpu->has_tf32, err)) != GPUPLAN_OK)
        return st;
    /* fp16 has no has_ flag in the struct: 0 means unknown (see catalog.h). */
    (void)has_fp16;
    return GPUPLAN_OK;
}

static enum gpuplan_status parse_gpu_link(const json_t *rec,
                                          const struct loc *at,
                                          struct gpuplan_gpu *gpu,
                                          struct gpuplan_error *err)
{
    int link = 0;
    enum gpuplan_status st;
    if ((st = get_enum(rec, at, "interconnect", link_words, GPUPLAN_LINK_COUNT, &link, err)) !=
            GPUPLAN_OK ||
        (st = get_number(rec, at, "link_gb_per_s", false, false, MAX_BANDWIDTH_GB_PER_S,
                         &gpu->link_gb_per_s, NULL, err)) != GPUPLAN_OK ||
        (st = get_count(rec, at, "max_gpus_per_link_domain", false, 1, MAX_GPUS_PER_DOMAIN,
                        &gpu->max_gpus_per_link_domain, err)) != GPUPLAN_OK ||
        (st = get_count(rec, at, "pcie_gen", false, 0, 10, &gpu->pcie_gen, err)) != GPUPLAN_OK)
        return st;
    gpu->link = (enum gpuplan_link)link;
    if (gpu->max_gpus_per_link_domain == 0)
        gpu->max_gpus_per_link_domain = 1;
    return GPUPLAN_OK;
}

/* Marked for translation: the text reports print them translated (GPUPLAN_TR), JSON as is. */
const char *const gpuplan_cloud_tier_names[GPUPLAN_TIER_COUNT + 1] = {
    GPUPLAN_N_("hyperscaler"), GPUPLAN_N_("specialty"), GPUPLAN_N_("marketplace"),
    GPUPLAN_N_("commit-1y"), NULL
};
static const char *const rate_keys[] = { "tier", "usd_per_gpu_hour", "provider",
                                         "date", "source",           "notes",
                                         NULL };

/* One entry of "cloud_rates": tier, rate, provider, date and source all required. */
static enum gpuplan_status parse_rate(const json_t *item,
                                      const struct loc *at,
                                      struct gpuplan_cloud_rate *r,
                                      struct gpuplan_error *err)
{
    int tier = 0;
    enum gpuplan_status st;
    memset(r, 0, sizeof *r);
    if (!json_is_object(item))
        return fail(err, GPUPLAN_ERR_INVALID_INPUT, at, NULL,
                    GPUPLAN_TR("a cloud rate must be an object in '%s'"), at->where);
    if ((st = check_keys(item, at, rate_keys, err)) != GPUPLAN_OK ||
        (st = get_enum(item, at, "tier", gpuplan_cloud_tier_names, GPUPLAN_TIER_COUNT, &tier,
                       err)) != GPUPLAN_OK ||
        (st = get_number(item, at, "usd_per_gpu_hour", true, true, MAX_RATE_USD_PER_HOUR,
                         &r->usd_per_gpu_hour, NULL, err)) != GPUPLAN_OK ||
        (st = get_string(item, at, "provider", true, r->provider, sizeof r->provider, err)) !=
            GPUPLAN_OK ||
        (st = get_date(item, at, "date", true, r->date, sizeof r->date, err)) != GPUPLAN_OK ||
        (st = get_string(item, at, "source", true, r->source, sizeof r->source, err)) !=
            GPUPLAN_OK ||
        (st = get_string(item, at, "notes", false, r->notes, sizeof r->notes, err)) != GPUPLAN_OK)
        return st;
    r->tier = (enum gpuplan_cloud_tier)tier;
    return GPUPLAN_OK;
}

static enum gpuplan_status parse_gpu_rates(const json_t *rec,
                                           const struct loc *at,
                                           struct gpuplan_gpu *gpu,
                                           struct gpuplan_error *err)
{
    const json_t *list = json_object_get(rec, "cloud_rates");
    if (!list || json_is_null(list))
        return GPUPLAN_OK;
    if (!json_is_array(list) || json_array_size(list) > GPUPLAN_CATALOG_MAX_RATES_PER_GPU)
        return fail(err, GPUPLAN_ERR_INVALID_INPUT, at, "cloud_rates",
                    GPUPLAN_TR("'cloud_rates' must be an array of at most %d rates in '%s'"),
                    GPUPLAN_CATALOG_MAX_RATES_PER_GPU, at->where);
    for (size_t i = 0; i < json_array_size(list); i++) {
        struct loc item_at = { .where = at->where };
        (void)snprintf(item_at.path, sizeof item_at.path, "%.120s.cloud_rates[%zu]", at->path, i);
        const enum gpuplan_status st =
            parse_rate(json_array_get(list, i), &item_at, &gpu->rates[i], err);
        if (st != GPUPLAN_OK)
            return st;
        gpu->n_rates = i + 1;
    }
    return GPUPLAN_OK;
}

/* A purchase price needs its date and source; a legacy single rate is an error with a hint. */
static enum gpuplan_status parse_gpu_money(const json_t *rec,
                                           const struct loc *at,
                                           struct gpuplan_gpu *gpu,
                                           struct gpuplan_error *err)
{
    bool has_price = false;
    enum gpuplan_status st;
    if ((st = get_number(rec, at, "price_usd", false, true, MAX_PRICE_USD, &gpu->price_usd,
                         &has_price, err)) != GPUPLAN_OK ||
        (st = get_date(rec, at, "price_date", has_price, gpu->price_date, sizeof gpu->price_date,
                       err)) != GPUPLAN_OK ||
        (st = get_string(rec, at, "price_source", has_price, gpu->price_source,
                         sizeof gpu->price_source, err)) != GPUPLAN_OK ||
        (st = get_string(rec, at, "price_notes", false, gpu->price_notes, sizeof gpu->price_notes,
                         err)) != GPUPLAN_OK)
        return st;
    return parse_gpu_rates(rec, at, gpu, err);
}

static enum gpuplan_status parse_gpu(const json_t *rec,
                                     const struct loc *at,
                                     const struct gpuplan_catalog *catalog,
                                     struct gpuplan_gpu *gpu,
                                     struct gpuplan_error *err)
{
    int vendor = 0;
    int form = 0;
    enum gpuplan_status st;
    memset(gpu, 0, sizeof *gpu);
    if (json_object_get(rec, "cloud_usd_per_hour")) {
        fail(err, GPUPLAN_ERR_INVALID_INPUT, at, "cloud_usd_per_hour",
             GPUPLAN_TR("'cloud_usd_per_hour' is no longer read in '%s'"), at->where);
        gpuplan_error_hint(err, "list rates as \"cloud_rates\": [{\"tier\": \"specialty\", "
                                "\"usd_per_gpu_hour\": 2.69, \"provider\": \"...\", \"date\": "
                                "\"2026-05\", \"source\": \"...\"}] (docs/catalog.md)");
        return GPUPLAN_ERR_INVALID_INPUT;
    }
    if ((st = check_keys(rec, at, gpu_keys, err)) != GPUPLAN_OK ||
        (st = get_enum(rec, at, "vendor", vendor_words, GPUPLAN_VENDOR_COUNT, &vendor, err)) !=
            GPUPLAN_OK ||
        (st = get_string(rec, at, "name", true, gpu->name, sizeof gpu->name, err)) != GPUPLAN_OK ||
        (st = get_string(rec, at, "architecture", true, gpu->architecture, sizeof gpu->architecture,
                         err)) != GPUPLAN_OK ||
        (st = parse_gpu_memory(rec, at, gpu, err)) != GPUPLAN_OK ||
        (st = get_count(rec, at, "devices_per_card", false, 1, MAX_DEVICES_PER_CARD,
                        &gpu->devices_per_card, err)) != GPUPLAN_OK ||
        (st = parse_gpu_compute(rec, at, gpu, err)) != GPUPLAN_OK ||
        (st = parse_gpu_link(rec, at, gpu, err)) != GPUPLAN_OK ||
        (st = get_number(rec, at, "tdp_w", true, true, MAX_POWER_W, &gpu->tdp_w, NULL, err)) !=
            GPUPLAN_OK ||
        (st = get_compute_capability(rec, at, gpu, err)) != GPUPLAN_OK ||
        (st = get_string(rec, at, "gfx_target", false, gpu->gfx_target, sizeof gpu->gfx_target,
                         err)) != GPUPLAN_OK ||
        (st = get_enum(rec, at, "form_factor", gpu_form_words,
                       sizeof gpu_form_words / sizeof gpu_form_words[0], &form, err)) !=
            GPUPLAN_OK ||
        (st = parse_gpu_platforms(rec, at, catalog, gpu, err)) != GPUPLAN_OK ||
        (st = parse_gpu_money(rec, at, gpu, err)) != GPUPLAN_OK ||
        (st = get_string(rec, at, "source", true, gpu->source, sizeof gpu->source, err)) !=
            GPUPLAN_OK ||
        (st = get_date(rec, at, "retrieved", true, gpu->retrieved, sizeof gpu->retrieved, err)) !=
            GPUPLAN_OK ||
        (st = get_string(rec, at, "notes", false, gpu->notes, sizeof gpu->notes, err)) !=
            GPUPLAN_OK)
        return st;
    gpu->vendor = (enum gpuplan_vendor)vendor;
    if (gpu->devices_per_card == 0)
        gpu->devices_per_card = 1;
    (void)snprintf(gpu->form_factor, sizeof gpu->form_factor, "%s", gpu_form_words[form]);
    return GPUPLAN_OK;
}

static const char *const platform_keys[] = { "id",
                                             "name",
                                             "form_factor",
                                             "max_gpus",
                                             "gpu_counts",
                                             "base_price_usd",
                                             "price_date",
                                             "base_power_w",
                                             "cpu",
                                             "cpu_sockets",
                                             "cpu_cores_max",
                                             "ram_base_gb",
                                             "ram_slots",
                                             "ram_max_gb",
                                             "nvme_base_tb",
                                             "nvme_bays",
                                             "network",
                                             "network_gbit_per_s",
                                             "scaleout_nics",
                                             "nics_included",
                                             "rack_units",
                                             "source",
                                             "retrieved",
                                             "notes",
                                             NULL };

static enum gpuplan_status parse_gpu_counts(const json_t *rec,
                                            const struct loc *at,
                                            struct gpuplan_platform *p,
                                            struct gpuplan_error *err)
{
    const json_t *list = json_object_get(rec, "gpu_counts");
    const size_t cap = sizeof p->gpu_counts / sizeof p->gpu_counts[0];
    if (!json_is_array(list) || json_array_size(list) == 0 || json_array_size(list) > cap)
        return fail(
            err, GPUPLAN_ERR_INVALID_INPUT, at, "gpu_counts",
            GPUPLAN_TR("'gpu_counts' must be an array of 1..%zu increasing GPU counts in '%s'"),
            cap, at->where);
    for (size_t i = 0; i < json_array_size(list); i++) {
        uint64_t n = 0;
        if (!gpuplan_json_as_u64(json_array_get(list, i), &n) || n < 1 || n > p->max_gpus ||
            (i > 0 && n <= p->gpu_counts[i - 1]))
            return fail(
                err, GPUPLAN_ERR_INVALID_INPUT, at, "gpu_counts",
                GPUPLAN_TR("'gpu_counts[%zu]' is invalid in '%s'; counts must increase within "
                           "1..%u (max_gpus)"),
                i, at->where, p->max_gpus);
        p->gpu_counts[i] = (uint32_t)n;
        p->n_gpu_counts = i + 1;
    }
    return GPUPLAN_OK;
}

static enum gpuplan_status parse_platform_hosts(const json_t *rec,
                                                const struct loc *at,
                                                struct gpuplan_platform *p,
                                                struct gpuplan_error *err)
{
    double ram_max_gb = 0.0;
    double ram_base_gb = 0.0;
    double nvme_base_tb = 0.0;
    double network_gbit_per_s = 0.0;
    enum gpuplan_status st;
    if ((st = get_string(rec, at, "cpu", true, p->cpu, sizeof p->cpu, err)) != GPUPLAN_OK ||
        (st = get_count(rec, at, "cpu_sockets", true, 0, 64, &p->cpu_sockets, err)) != GPUPLAN_OK ||
        (st = get_count(rec, at, "cpu_cores_max", true, 0, 100000, &p->cpu_cores_max, err)) !=
            GPUPLAN_OK ||
        (st = get_count(rec, at, "ram_slots", true, 0, 1024, &p->ram_slots, err)) != GPUPLAN_OK ||
        (st = get_number(rec, at, "ram_max_gb", true, true, MAX_MEMORY_GB, &ram_max_gb, NULL,
                         err)) != GPUPLAN_OK ||
        (st = get_number(rec, at, "ram_base_gb", true, false, MAX_MEMORY_GB, &ram_base_gb, NULL,
                         err)) != GPUPLAN_OK ||
        (st = get_count(rec, at, "nvme_bays", true, 0, 1024, &p->nvme_bays, err)) != GPUPLAN_OK ||
        (st = get_number(rec, at, "nvme_base_tb", true, false, MAX_NVME_TB, &nvme_base_tb, NULL,
                         err)) != GPUPLAN_OK ||
        (st = get_string(rec, at, "network", true, p->network, sizeof p->network, err)) !=
            GPUPLAN_OK ||
        (st = get_number(rec, at, "network_gbit_per_s", true, false, MAX_BANDWIDTH_GB_PER_S,
                         &network_gbit_per_s, NULL, err)) != GPUPLAN_OK ||
        (st = get_count(rec, at, "scaleout_nics", true, 0, 1024, &p->scaleout_nics, err)) !=
            GPUPLAN_OK ||
        (st = gpuplan_json_get_bool(rec, "nics_included", at->where, at->path, true,
                                    &p->nics_included, err)) != GPUPLAN_OK ||
        (st = get_count(rec, at, "rack_units", true, 0, 64, &p->rack_units, err)) != GPUPLAN_OK)
        return st;
    if (ram_base_gb > ram_max_gb)
        return fail(err, GPUPLAN_ERR_INVALID_INPUT, at, "ram_base_gb",
                    GPUPLAN_TR("'ram_base_gb' is %g in '%s'; must be <= ram_max_gb %g"),
                    ram_base_gb, at->where, ram_max_gb);
    p->ram_base_bytes = gpuplan_bytes_from_double(ram_base_gb * (double)GPUPLAN_BYTES_PER_GB);
    p->nvme_base_bytes = gpuplan_bytes_from_double(nvme_base_tb * (double)GPUPLAN_BYTES_PER_TB);
    p->ram_max_bytes = gpuplan_bytes_from_double(ram_max_gb * (double)GPUPLAN_BYTES_PER_GB);
    /* Network ports are quoted in bits per second; the struct holds bytes. */
    p->network_gb_per_s = network_gbit_per_s / GPUPLAN_BITS_PER_BYTE;
    return GPUPLAN_OK;
}

static enum gpuplan_status parse_platform(const json_t *rec,
                                          const struct loc *at,
                                          struct gpuplan_platform *p,
                                          struct gpuplan_error *err)
{
    int form = 0;
    enum gpuplan_status st;
    memset(p, 0, sizeof *p);
    if ((st = check_keys(rec, at, platform_keys, err)) != GPUPLAN_OK ||
        (st = get_string(rec, at, "name", true, p->name, sizeof p->name, err)) != GPUPLAN_OK ||
        (st = get_enum(rec, at, "form_factor", platform_form_words,
                       sizeof platform_form_words / sizeof platform_form_words[0], &form, err)) !=
            GPUPLAN_OK ||
        (st = get_count(rec, at, "max_gpus", true, 1, 1024, &p->max_gpus, err)) != GPUPLAN_OK ||
        (st = parse_gpu_counts(rec, at, p, err)) != GPUPLAN_OK ||
        (st = get_number(rec, at, "base_price_usd", true, false, MAX_PRICE_USD, &p->base_price_usd,
                         NULL, err)) != GPUPLAN_OK ||
        (st = get_date(rec, at, "price_date", p->base_price_usd > 0.0, p->price_date,
                       sizeof p->price_date, err)) != GPUPLAN_OK ||
        (st = get_number(rec, at, "base_power_w", true, true, MAX_POWER_W, &p->base_power_w, NULL,
                         err)) != GPUPLAN_OK ||
        (st = parse_platform_hosts(rec, at, p, err)) != GPUPLAN_OK ||
        (st = get_string(rec, at, "source", true, p->source, sizeof p->source, err)) !=
            GPUPLAN_OK ||
        (st = get_date(rec, at, "retrieved", true, p->retrieved, sizeof p->retrieved, err)) !=
            GPUPLAN_OK ||
        (st = get_string(rec, at, "notes", false, p->notes, sizeof p->notes, err)) != GPUPLAN_OK)
        return st;
    (void)snprintf(p->form_factor, sizeof p->form_factor, "%s", platform_form_words[form]);
    return GPUPLAN_OK;
}

static const char *const model_keys[] = {
    "id",     "name",   "hf_repo",   "family", "params_published",
    "config", "source", "retrieved", "notes",  NULL
};

/* The config object as compact JSON with sorted keys (malloc'd into *text). */
static enum gpuplan_status
dump_config(const json_t *rec, const struct loc *at, char **text, struct gpuplan_error *err)
{
    const json_t *config = json_object_get(rec, "config");
    if (!json_is_object(config))
        return fail(err, GPUPLAN_ERR_INVALID_INPUT, at, "config",
                    GPUPLAN_TR("'config' must be the model's config.json object in '%s'"),
                    at->where);
    *text = json_dumps(config, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENSURE_ASCII);
    if (!*text)
        return gpuplan_error_set(err, GPUPLAN_ERR_NOMEM, at->where, "out of memory");
    if (strlen(*text) > MAX_CONFIG_BYTES) {
        free(*text);
        *text = NULL;
        return fail(err, GPUPLAN_ERR_TOO_LARGE, at, "config",
                    GPUPLAN_TR("'config' is larger than %llu bytes in '%s'"),
                    (unsigned long long)MAX_CONFIG_BYTES, at->where);
    }
    return GPUPLAN_OK;
}

static enum gpuplan_status parse_model(const json_t *rec,
                                       const struct loc *at,
                                       struct gpuplan_catalog_model *m,
                                       char **config_text,
                                       struct gpuplan_error *err)
{
    enum gpuplan_status st;
    memset(m, 0, sizeof *m);
    if ((st = check_keys(rec, at, model_keys, err)) != GPUPLAN_OK ||
        (st = get_string(rec, at, "name", true, m->name, sizeof m->name, err)) != GPUPLAN_OK ||
        (st = get_string(rec, at, "hf_repo", true, m->hf_repo, sizeof m->hf_repo, err)) !=
            GPUPLAN_OK ||
        (st = get_string(rec, at, "family", true, m->family, sizeof m->family, err)) !=
            GPUPLAN_OK ||
        (st = gpuplan_json_get_u64(rec, "params_published", at->where, at->path, false,
                                   &m->params_published, err)) != GPUPLAN_OK ||
        (st = get_string(rec, at, "source", true, m->source, sizeof m->source, err)) !=
            GPUPLAN_OK ||
        (st = get_date(rec, at, "retrieved", true, m->retrieved, sizeof m->retrieved, err)) !=
            GPUPLAN_OK ||
        (st = get_string(rec, at, "notes", false, m->notes, sizeof m->notes, err)) != GPUPLAN_OK)
        return st;
    return dump_config(rec, at, config_text, err);
}

static const char *const part_kind_words[GPUPLAN_PART_KIND_COUNT] = { "ram", "nvme", "nic",
                                                                      "switch-port" };
static const char *const part_keys[] = { "id",        "kind",       "name",       "usd_per_unit",
                                         "unit",      "gbit_per_s", "price_date", "source",
                                         "retrieved", "notes",      NULL };

static enum gpuplan_status parse_part(const json_t *rec,
                                      const struct loc *at,
                                      struct gpuplan_part *p,
                                      struct gpuplan_error *err)
{
    int kind = 0;
    enum gpuplan_status st;
    memset(p, 0, sizeof *p);
    if ((st = check_keys(rec, at, part_keys, err)) != GPUPLAN_OK ||
        (st = get_enum(rec, at, "kind", part_kind_words, GPUPLAN_PART_KIND_COUNT, &kind, err)) !=
            GPUPLAN_OK ||
        (st = get_string(rec, at, "name", true, p->name, sizeof p->name, err)) != GPUPLAN_OK ||
        (st = get_number(rec, at, "usd_per_unit", true, true, MAX_PRICE_USD, &p->usd_per_unit, NULL,
                         err)) != GPUPLAN_OK ||
        (st = get_string(rec, at, "unit", true, p->unit, sizeof p->unit, err)) != GPUPLAN_OK ||
        (st = get_number(rec, at, "gbit_per_s", false, true, MAX_BANDWIDTH_GB_PER_S, &p->gbit_per_s,
                         NULL, err)) != GPUPLAN_OK ||
        (st = get_date(rec, at, "price_date", true, p->price_date, sizeof p->price_date, err)) !=
            GPUPLAN_OK ||
        (st = get_string(rec, at, "source", true, p->source, sizeof p->source, err)) !=
            GPUPLAN_OK ||
        (st = get_date(rec, at, "retrieved", true, p->retrieved, sizeof p->retrieved, err)) !=
            GPUPLAN_OK ||
        (st = get_string(rec, at, "notes", false, p->notes, sizeof p->notes, err)) != GPUPLAN_OK)
        return st;
    p->kind = (enum gpuplan_part_kind)kind;
    return GPUPLAN_OK;
}

/* ---- merging ----------------------------------------------------------- */

static bool grow(void **items, size_t *cap, size_t need, size_t item_size)
{
    if (need <= *cap)
        return true;
    size_t new_cap = *cap ? *cap * 2 : 32;
    while (new_cap < need)
        new_cap *= 2;
    void *grown = realloc(*items, new_cap * item_size);
    if (!grown)
        return false;
    *items = grown;
    *cap = new_cap;
    return true;
}

/*
 * A later file's record replaces the one with the same id (the char array
 * at `id_offset`), else it is appended: `--catalog DIR` overrides and extends.
 */
static enum gpuplan_status
upsert(void **items, size_t *n, size_t *cap, size_t item_size, size_t id_offset, const void *item)
{
    const char *id = (const char *)item + id_offset;
    for (size_t i = 0; i < *n; i++) {
        char *slot = (char *)*items + i * item_size;
        if (strcmp(slot + id_offset, id) == 0) {
            memcpy(slot, item, item_size);
            return GPUPLAN_OK;
        }
    }
    if (!grow(items, cap, *n + 1, item_size))
        return GPUPLAN_ERR_NOMEM;
    memcpy((char *)*items + (*n)++ * item_size, item, item_size);
    return GPUPLAN_OK;
}

static enum gpuplan_status put_gpu(struct gpuplan_catalog *c, const struct gpuplan_gpu *gpu)
{
    void *items = c->gpus;
    const enum gpuplan_status st = upsert(&items, &c->n_gpus, &c->cap_gpus, sizeof *gpu,
                                          offsetof(struct gpuplan_gpu, id), gpu);
    c->gpus = items;
    return st;
}

static enum gpuplan_status put_platform(struct gpuplan_catalog *c, const struct gpuplan_platform *p)
{
    void *items = c->platforms;
    const enum gpuplan_status st = upsert(&items, &c->n_platforms, &c->cap_platforms, sizeof *p,
                                          offsetof(struct gpuplan_platform, id), p);
    c->platforms = items;
    return st;
}

static enum gpuplan_status put_part(struct gpuplan_catalog *c, const struct gpuplan_part *p)
{
    void *items = c->parts;
    const enum gpuplan_status st =
        upsert(&items, &c->n_parts, &c->cap_parts, sizeof *p, offsetof(struct gpuplan_part, id), p);
    c->parts = items;
    return st;
}

/* Takes ownership of `config` (freed on failure too). */
static enum gpuplan_status
put_model(struct gpuplan_catalog *c, const struct gpuplan_catalog_model *m, char *config)
{
    size_t slot = c->n_models;
    for (size_t i = 0; i < c->n_models; i++)
        if (strcmp(c->models[i].id, m->id) == 0)
            slot = i;
    if (slot == c->n_models) {
        size_t cap_configs = c->cap_models;
        void *items = c->models;
        void *configs = c->model_configs;
        const bool ok = grow(&items, &c->cap_models, c->n_models + 1, sizeof *m) &&
                        grow(&configs, &cap_configs, c->n_models + 1, sizeof(char *));
        c->models = items;
        c->model_configs = configs;
        if (!ok || cap_configs != c->cap_models) {
            free(config);
            return GPUPLAN_ERR_NOMEM;
        }
        c->n_models++;
    } else {
        free(c->model_configs[slot]);
    }
    c->models[slot] = *m;
    c->model_configs[slot] = config;
    c->models[slot].config_json = config;
    c->models[slot].config_json_len = strlen(config);
    return GPUPLAN_OK;
}

enum record_kind { KIND_GPUS = 0, KIND_PLATFORMS, KIND_PARTS, KIND_MODELS, KIND_COUNT };

static const char *const kind_files[KIND_COUNT] = { "gpus.json", "platforms.json", "parts.json",
                                                    "models.json" };
static const char *const kind_keys[KIND_COUNT] = { "gpus", "platforms", "parts", "models" };

static enum gpuplan_status merge_record(struct gpuplan_catalog *c,
                                        enum record_kind kind,
                                        const json_t *rec,
                                        const struct loc *at,
                                        const char *id,
                                        struct gpuplan_error *err)
{
    enum gpuplan_status st;
    if (kind == KIND_GPUS) {
        struct gpuplan_gpu gpu;
        if ((st = parse_gpu(rec, at, c, &gpu, err)) != GPUPLAN_OK)
            return st;
        (void)snprintf(gpu.id, sizeof gpu.id, "%s", id);
        st = put_gpu(c, &gpu);
    } else if (kind == KIND_PLATFORMS) {
        struct gpuplan_platform p;
        if ((st = parse_platform(rec, at, &p, err)) != GPUPLAN_OK)
            return st;
        (void)snprintf(p.id, sizeof p.id, "%s", id);
        st = put_platform(c, &p);
    } else if (kind == KIND_PARTS) {
        struct gpuplan_part part;
        if ((st = parse_part(rec, at, &part, err)) != GPUPLAN_OK)
            return st;
        (void)snprintf(part.id, sizeof part.id, "%s", id);
        st = put_part(c, &part);
    } else {
        struct gpuplan_catalog_model m;
        char *config = NULL;
        if ((st = parse_model(rec, at, &m, &config, err)) != GPUPLAN_OK)
            return st;
        (void)snprintf(m.id, sizeof m.id, "%s", id);
        st = put_model(c, &m, config);
    }
    if (st != GPUPLAN_OK)
        return gpuplan_error_set(err, st, at->where, "out of memory loading the catalog");
    return GPUPLAN_OK;
}

/* The id of record i, checked for syntax and uniqueness within the file. */
static enum gpuplan_status record_id(const json_t *records,
                                     size_t i,
                                     const struct loc *at,
                                     size_t id_size,
                                     char *id,
                                     struct gpuplan_error *err)
{
    const json_t *rec = json_array_get(records, i);
    if (!json_is_object(rec))
        return fail(err, GPUPLAN_ERR_INVALID_INPUT, at, NULL,
                    GPUPLAN_TR("record must be an object in '%s'"), at->where);
    enum gpuplan_status st = get_string(rec, at, "id", true, id, id_size, err);
    if (st != GPUPLAN_OK)
        return st;
    if (!is_valid_id(id))
        return fail(err, GPUPLAN_ERR_INVALID_INPUT, at, "id",
                    GPUPLAN_TR("'id' is '%s' in '%s'; must use only a-z, 0-9, '-', '.', '_'"), id,
                    at->where);
    for (size_t j = 0; j < i; j++) {
        const json_t *other = json_object_get(json_array_get(records, j), "id");
        if (json_is_string(other) && strcmp(json_string_value(other), id) == 0)
            return fail(err, GPUPLAN_ERR_INVALID_INPUT, at, "id",
                        GPUPLAN_TR("duplicate id '%s' in '%s'; record %zu has it too"), id,
                        at->where, j);
    }
    return GPUPLAN_OK;
}

static enum gpuplan_status check_top_level(const json_t *root,
                                           enum record_kind kind,
                                           const char *where,
                                           const json_t **records,
                                           struct gpuplan_error *err)
{
    struct loc at = { .where = where, .path = "$" };
    const char *const keys[] = { "schema_version", kind_keys[kind], NULL };
    enum gpuplan_status st = check_keys(root, &at, keys, err);
    if (st != GPUPLAN_OK)
        return st;
    uint32_t version = 0;
    if ((st = get_count(root, &at, "schema_version", true, 0, UINT32_MAX, &version, err)) !=
        GPUPLAN_OK)
        return st;
    if (version != 1)
        return fail(err, GPUPLAN_ERR_UNSUPPORTED, &at, "schema_version",
                    GPUPLAN_TR("'schema_version' is %u in '%s'; this version reads 1"), version,
                    where);
    *records = json_object_get(root, kind_keys[kind]);
    if (!json_is_array(*records))
        return fail(err, GPUPLAN_ERR_INVALID_INPUT, &at, kind_keys[kind],
                    GPUPLAN_TR("'%s' must be an array of records in '%s'"), kind_keys[kind], where);
    if (json_array_size(*records) > MAX_RECORDS_PER_FILE)
        return fail(err, GPUPLAN_ERR_TOO_LARGE, &at, kind_keys[kind],
                    GPUPLAN_TR("'%s' has %zu records in '%s'; the limit is %d"), kind_keys[kind],
                    json_array_size(*records), where, MAX_RECORDS_PER_FILE);
    return GPUPLAN_OK;
}

static enum gpuplan_status merge_buffer(struct gpuplan_catalog *c,
                                        enum record_kind kind,
                                        const char *where,
                                        const uint8_t *data,
                                        size_t len,
                                        struct gpuplan_error *err)
{
    json_t *root = NULL;
    const json_t *records = NULL;
    enum gpuplan_status st = gpuplan_json_parse(data, len, where, true, &root, err);
    if (st != GPUPLAN_OK)
        return st;
    if ((st = check_top_level(root, kind, where, &records, err)) != GPUPLAN_OK)
        goto out;
    for (size_t i = 0; i < json_array_size(records); i++) {
        struct loc at = { .where = where };
        char id[64];
        (void)snprintf(at.path, sizeof at.path, "$.%s[%zu]", kind_keys[kind], i);
        const size_t id_size = kind == KIND_MODELS ? sizeof c->models[0].id : sizeof c->gpus[0].id;
        if ((st = record_id(records, i, &at, id_size, id, err)) != GPUPLAN_OK ||
            (st = merge_record(c, kind, json_array_get(records, i), &at, id, err)) != GPUPLAN_OK)
            goto out;
    }
out:
    json_decref(root);
    return st;
}

static void update_date(struct gpuplan_catalog *c)
{
    c->date[0] = '\0';
    for (size_t i = 0; i < c->n_gpus; i++)
        if (strcmp(c->gpus[i].retrieved, c->date) > 0)
            (void)snprintf(c->date, sizeof c->date, "%s", c->gpus[i].retrieved);
    for (size_t i = 0; i < c->n_platforms; i++)
        if (strcmp(c->platforms[i].retrieved, c->date) > 0)
            (void)snprintf(c->date, sizeof c->date, "%s", c->platforms[i].retrieved);
    for (size_t i = 0; i < c->n_parts; i++)
        if (strcmp(c->parts[i].retrieved, c->date) > 0)
            (void)snprintf(c->date, sizeof c->date, "%s", c->parts[i].retrieved);
    for (size_t i = 0; i < c->n_models; i++)
        if (strcmp(c->models[i].retrieved, c->date) > 0)
            (void)snprintf(c->date, sizeof c->date, "%s", c->models[i].retrieved);
}

static int kind_of_file(const char *name)
{
    for (int k = 0; k < KIND_COUNT; k++)
        if (strcmp(name, kind_files[k]) == 0)
            return k;
    return -1;
}

/* Platforms first, so GPUs can reference platforms added by the same set. */
static const enum record_kind load_order[KIND_COUNT] = { KIND_PLATFORMS, KIND_PARTS, KIND_GPUS,
                                                         KIND_MODELS };

/*
 * The compiled records of `kind` (catalog_compiled_internal.h) into an empty catalog: copies of
 * the read-only structs, the models' config text borrowed (model_configs NULL: not owned).
 */
/* `n` compiled records of `size` bytes into `*items` (grown as `grow` does), counted in `*count`.
 */
static bool
copy_records(void **items, size_t *cap, size_t *count, const void *src, size_t n, size_t size)
{
    if (!grow(items, cap, n, size))
        return false;
    memcpy(*items, src, n * size);
    *count = n;
    return true;
}

static enum gpuplan_status copy_compiled(struct gpuplan_catalog *c, enum record_kind kind)
{
    const struct gpuplan_compiled_catalog *cc = &gpuplan_compiled_catalog;
    void *items = NULL;
    bool ok = true;
    if (kind == KIND_PLATFORMS && cc->n_platforms) {
        items = c->platforms;
        ok = copy_records(&items, &c->cap_platforms, &c->n_platforms, cc->platforms,
                          cc->n_platforms, sizeof *c->platforms);
        c->platforms = items;
    } else if (kind == KIND_PARTS && cc->n_parts) {
        items = c->parts;
        ok = copy_records(&items, &c->cap_parts, &c->n_parts, cc->parts, cc->n_parts,
                          sizeof *c->parts);
        c->parts = items;
    } else if (kind == KIND_GPUS && cc->n_gpus) {
        items = c->gpus;
        ok = copy_records(&items, &c->cap_gpus, &c->n_gpus, cc->gpus, cc->n_gpus, sizeof *c->gpus);
        c->gpus = items;
    } else if (kind == KIND_MODELS && cc->n_models) {
        size_t cap_configs = c->cap_models;
        void *configs = c->model_configs;
        items = c->models;
        ok = grow(&items, &c->cap_models, cc->n_models, sizeof *c->models) &&
             grow(&configs, &cap_configs, cc->n_models, sizeof(char *));
        c->models = items;
        c->model_configs = configs;
        ok = ok && cap_configs == c->cap_models;
        if (ok) {
            memcpy(c->models, cc->models, cc->n_models * sizeof *c->models);
            for (size_t i = 0; i < cc->n_models; i++) {
                c->model_configs[i] = NULL;
                c->models[i].config_json = cc->model_configs[i];
            }
            c->n_models = cc->n_models;
        }
    }
    return ok ? GPUPLAN_OK : GPUPLAN_ERR_NOMEM;
}

static enum gpuplan_status load_buffers(struct gpuplan_catalog **out,
                                        const struct gpuplan_catalog_file *files,
                                        size_t n_files,
                                        bool use_compiled,
                                        struct gpuplan_error *err)
{
    enum gpuplan_status st = GPUPLAN_OK;
    struct gpuplan_catalog *c = calloc(1, sizeof *c);
    if (!c)
        return gpuplan_error_set(err, GPUPLAN_ERR_NOMEM, NULL, "out of memory loading the catalog");
    for (size_t f = 0; f < n_files; f++) {
        if (kind_of_file(files[f].name) < 0) {
            st = gpuplan_error_set(err, GPUPLAN_ERR_USAGE, files[f].name,
                                   "unknown catalog file '%s'", files[f].name);
            gpuplan_error_hint(err, "catalog files are gpus.json, platforms.json, parts.json, "
                                    "models.json");
            goto out;
        }
    }
    for (int k = 0; k < KIND_COUNT; k++) {
        const enum record_kind kind = load_order[k];
        if (use_compiled) {
            if ((st = copy_compiled(c, kind)) != GPUPLAN_OK) {
                st = gpuplan_error_set(err, st, NULL, "out of memory loading the catalog");
                goto out;
            }
        } else {
            const struct gpuplan_embedded_file *embedded = gpuplan_embedded_find(kind_files[kind]);
            if (!embedded) {
                st = gpuplan_error_set(err, GPUPLAN_ERR_INTERNAL, kind_files[kind],
                                       "embedded catalog file '%s' is missing", kind_files[kind]);
                goto out;
            }
            st = merge_buffer(c, kind, kind_files[kind], embedded->bytes, embedded->len, err);
            if (st != GPUPLAN_OK)
                goto out;
        }
        for (size_t f = 0; f < n_files; f++) {
            if (kind_of_file(files[f].name) != (int)kind)
                continue;
            st = merge_buffer(c, kind, files[f].where ? files[f].where : files[f].name,
                              files[f].data, files[f].len, err);
            if (st != GPUPLAN_OK)
                goto out;
        }
    }
    update_date(c);
out:
    if (st != GPUPLAN_OK) {
        gpuplan_catalog_free(c);
        return st;
    }
    *out = c;
    return GPUPLAN_OK;
}

enum gpuplan_status gpuplan_catalog_load_buffers(struct gpuplan_catalog **out,
                                                 const struct gpuplan_catalog_file *files,
                                                 size_t n_files,
                                                 struct gpuplan_error *err)
{
    return load_buffers(out, files, n_files, gpuplan_compiled_catalog.present, err);
}

enum gpuplan_status gpuplan_catalog_load_json(struct gpuplan_catalog **out,
                                              const struct gpuplan_catalog_file *files,
                                              size_t n_files,
                                              struct gpuplan_error *err)
{
    return load_buffers(out, files, n_files, false, err);
}

/* ---- reading a user's directory ------------------------------------------ */

static enum gpuplan_status read_whole_file(const char *path,
                                           uint8_t **data,
                                           size_t *len,
                                           bool *exists,
                                           struct gpuplan_error *err)
{
    *exists = false;
    FILE *f = fopen(path, "rb");
    if (!f) {
        if (errno == ENOENT)
            return GPUPLAN_OK;
        return gpuplan_error_set(err, GPUPLAN_ERR_IO, path, "cannot open '%s': %s", path,
                                 strerror(errno));
    }
    *exists = true;
    size_t cap = 64 * 1024;
    size_t used = 0;
    uint8_t *buf = malloc(cap);
    enum gpuplan_status st = GPUPLAN_OK;
    if (!buf) {
        st = gpuplan_error_set(err, GPUPLAN_ERR_NOMEM, path, "out of memory reading '%s'", path);
        goto out;
    }
    for (;;) {
        if (used == cap) {
            uint8_t *grown = cap > GPUPLAN_JSON_MAX_BYTES ? NULL : realloc(buf, cap * 2);
            if (!grown) {
                st = cap > GPUPLAN_JSON_MAX_BYTES
                         ? gpuplan_error_set(err, GPUPLAN_ERR_TOO_LARGE, path,
                                             "'%s' is larger than %llu bytes", path,
                                             (unsigned long long)GPUPLAN_JSON_MAX_BYTES)
                         : gpuplan_error_set(err, GPUPLAN_ERR_NOMEM, path,
                                             "out of memory reading '%s'", path);
                goto out;
            }
            buf = grown;
            cap *= 2;
        }
        const size_t n = fread(buf + used, 1, cap - used, f);
        used += n;
        if (n == 0)
            break;
    }
    if (ferror(f))
        st = gpuplan_error_set(err, GPUPLAN_ERR_IO, path, "cannot read '%s'", path);
out:
    (void)fclose(f);
    if (st != GPUPLAN_OK) {
        free(buf);
        return st;
    }
    *data = buf;
    *len = used;
    return GPUPLAN_OK;
}

enum gpuplan_status
gpuplan_catalog_load(struct gpuplan_catalog **out, const char *dir, struct gpuplan_error *err)
{
    if (!dir)
        return gpuplan_catalog_load_buffers(out, NULL, 0, err);
    struct stat st_dir;
    if (stat(dir, &st_dir) != 0 || !S_ISDIR(st_dir.st_mode)) {
        gpuplan_error_set(err, GPUPLAN_ERR_NOT_FOUND, dir, "catalog directory '%s' not found", dir);
        gpuplan_error_hint(err, "--catalog takes a directory holding gpus.json, platforms.json, "
                                "parts.json and/or models.json");
        return GPUPLAN_ERR_NOT_FOUND;
    }
    struct gpuplan_catalog_file files[KIND_COUNT];
    uint8_t *owned[KIND_COUNT] = { NULL };
    char paths[KIND_COUNT][GPUPLAN_ERROR_WHERE_MAX / 2];
    size_t n_files = 0;
    enum gpuplan_status st = GPUPLAN_OK;
    for (int k = 0; k < KIND_COUNT; k++) {
        bool exists = false;
        size_t len = 0;
        char *path = paths[n_files];
        const int w = snprintf(path, sizeof paths[0], "%s/%s", dir, kind_files[k]);
        if (w < 0 || (size_t)w >= sizeof paths[0]) {
            st = gpuplan_error_set(err, GPUPLAN_ERR_USAGE, NULL,
                                   "catalog directory path is "
                                   "too long");
            goto out;
        }
        if ((st = read_whole_file(path, &owned[n_files], &len, &exists, err)) != GPUPLAN_OK)
            goto out;
        if (!exists)
            continue;
        files[n_files] = (struct gpuplan_catalog_file){
            .name = kind_files[k], .where = path, .data = owned[n_files], .len = len
        };
        n_files++;
    }
    if (n_files == 0) {
        st = gpuplan_error_set(err, GPUPLAN_ERR_NOT_FOUND, dir, "no catalog files in '%s'", dir);
        gpuplan_error_hint(err, "put gpus.json, platforms.json, parts.json and/or models.json "
                                "there (see docs/catalog.md)");
        goto out;
    }
    st = gpuplan_catalog_load_buffers(out, files, n_files, err);
out:
    for (int k = 0; k < KIND_COUNT; k++)
        free(owned[k]);
    return st;
}

void gpuplan_catalog_free(struct gpuplan_catalog *catalog)
{
    if (!catalog)
        return;
    for (size_t i = 0; i < catalog->n_models; i++)
        free(catalog->model_configs[i]);
    free(catalog->model_configs);
    free(catalog->models);
    free(catalog->platforms);
    free(catalog->parts);
    free(catalog->gpus);
    free(catalog);
}

/* ---- lookups ----------------------------------------------------------- */

size_t gpuplan_catalog_n_gpus(const struct gpuplan_catalog *catalog)
{
    return catalog ? catalog->n_gpus : 0;
}

const struct gpuplan_gpu *gpuplan_catalog_gpu_at(const struct gpuplan_catalog *catalog, size_t i)
{
    return catalog && i < catalog->n_gpus ? &catalog->gpus[i] : NULL;
}

size_t gpuplan_catalog_n_platforms(const struct gpuplan_catalog *catalog)
{
    return catalog ? catalog->n_platforms : 0;
}

const struct gpuplan_platform *gpuplan_catalog_platform_at(const struct gpuplan_catalog *catalog,
                                                           size_t i)
{
    return catalog && i < catalog->n_platforms ? &catalog->platforms[i] : NULL;
}

size_t gpuplan_catalog_n_parts(const struct gpuplan_catalog *catalog)
{
    return catalog ? catalog->n_parts : 0;
}

const struct gpuplan_part *gpuplan_catalog_part_at(const struct gpuplan_catalog *catalog, size_t i)
{
    return catalog && i < catalog->n_parts ? &catalog->parts[i] : NULL;
}

const struct gpuplan_part *gpuplan_catalog_part(const struct gpuplan_catalog *catalog,
                                                enum gpuplan_part_kind kind)
{
    for (size_t i = 0; catalog && i < catalog->n_parts; i++)
        if (catalog->parts[i].kind == kind)
            return &catalog->parts[i];
    return NULL;
}

size_t gpuplan_catalog_n_models(const struct gpuplan_catalog *catalog)
{
    return catalog ? catalog->n_models : 0;
}

const struct gpuplan_catalog_model *gpuplan_catalog_model_at(const struct gpuplan_catalog *catalog,
                                                             size_t i)
{
    return catalog && i < catalog->n_models ? &catalog->models[i] : NULL;
}

const struct gpuplan_gpu *gpuplan_catalog_find_gpu(const struct gpuplan_catalog *catalog,
                                                   const char *id)
{
    for (size_t i = 0; catalog && id && i < catalog->n_gpus; i++)
        if (strcmp(catalog->gpus[i].id, id) == 0)
            return &catalog->gpus[i];
    return NULL;
}

const struct gpuplan_platform *gpuplan_catalog_find_platform(const struct gpuplan_catalog *catalog,
                                                             const char *id)
{
    return catalog && id ? find_platform(catalog, id) : NULL;
}

const struct gpuplan_platform *gpuplan_catalog_sole_platform(const struct gpuplan_catalog *catalog,
                                                             const struct gpuplan_gpu *gpu,
                                                             uint32_t gpus_per_node)
{
    const struct gpuplan_platform *found = NULL;
    for (size_t i = 0; catalog && gpu && i < gpu->n_platforms; i++) {
        const struct gpuplan_platform *p = find_platform(catalog, gpu->platforms[i]);
        if (!p || p->max_gpus < gpus_per_node)
            continue;
        if (found)
            return NULL; /* several: the caller does not choose a server for the user */
        found = p;
    }
    return found;
}

const struct gpuplan_catalog_model *
gpuplan_catalog_find_model(const struct gpuplan_catalog *catalog, const char *id)
{
    for (size_t i = 0; catalog && id && i < catalog->n_models; i++)
        if (strcmp(catalog->models[i].id, id) == 0)
            return &catalog->models[i];
    return NULL;
}

/* ---- "did you mean" ------------------------------------------------------ */

/* The nearest ids (suggest_internal.h: prefixes, substrings, then by edit distance). */
static void hint_suggestions(struct gpuplan_error *err,
                             const struct gpuplan_suggest *s,
                             const char *list_command)
{
    if (s->n == 0) {
        gpuplan_error_hint(err, "run '%s' to list the catalog", list_command);
        return;
    }
    if (s->n == 1)
        gpuplan_error_hint(err, "did you mean '%s'?", s->best[0].text);
    else if (s->n == 2)
        gpuplan_error_hint(err, "did you mean '%s' or '%s'?", s->best[0].text, s->best[1].text);
    else
        gpuplan_error_hint(err, "did you mean '%s', '%s' or '%s'?", s->best[0].text,
                           s->best[1].text, s->best[2].text);
}

/* "unknown GPU 'x'" / "unknown model 'x'" with the nearest ids as the hint. */
static enum gpuplan_status not_found(const struct gpuplan_catalog *catalog,
                                     bool gpus,
                                     const char *query,
                                     struct gpuplan_error *err)
{
    struct gpuplan_suggest s;
    gpuplan_suggest_init(&s, query);
    const size_t n = !catalog ? 0 : gpus ? catalog->n_gpus : catalog->n_models;
    for (size_t i = 0; i < n; i++)
        gpuplan_suggest_add(&s, gpus ? catalog->gpus[i].id : catalog->models[i].id);
    if (gpus)
        gpuplan_error_set(err, GPUPLAN_ERR_NOT_FOUND, NULL, "unknown GPU '%s'", query);
    else
        gpuplan_error_set(err, GPUPLAN_ERR_NOT_FOUND, NULL, "unknown model '%s'", query);
    hint_suggestions(err, &s, gpus ? "gpuplan gpus" : "gpuplan models");
    return GPUPLAN_ERR_NOT_FOUND;
}

enum gpuplan_status gpuplan_catalog_get_gpu(const struct gpuplan_catalog *catalog,
                                            const char *id,
                                            const struct gpuplan_gpu **out,
                                            struct gpuplan_error *err)
{
    const char *query = id ? id : "";
    const struct gpuplan_gpu *gpu = gpuplan_catalog_find_gpu(catalog, query);
    if (gpu) {
        *out = gpu;
        return GPUPLAN_OK;
    }
    return not_found(catalog, true, query, err);
}

enum gpuplan_status gpuplan_catalog_get_model(const struct gpuplan_catalog *catalog,
                                              const char *id,
                                              const struct gpuplan_catalog_model **out,
                                              struct gpuplan_error *err)
{
    const char *query = id ? id : "";
    const struct gpuplan_catalog_model *model = gpuplan_catalog_find_model(catalog, query);
    if (model) {
        *out = model;
        return GPUPLAN_OK;
    }
    return not_found(catalog, false, query, err);
}

double gpuplan_gpu_peak_tflops(const struct gpuplan_gpu *gpu, const char *precision)
{
    if (!gpu || !precision)
        return 0.0;
    if (strcmp(precision, "bf16") == 0)
        return gpu->has_bf16 ? gpu->bf16_tflops : 0.0;
    if (strcmp(precision, "fp16") == 0)
        return gpu->fp16_tflops;
    if (strcmp(precision, "fp8") == 0)
        return gpu->has_fp8 ? gpu->fp8_tflops : 0.0;
    if (strcmp(precision, "fp4") == 0)
        return gpu->has_fp4 ? gpu->fp4_tflops : 0.0;
    if (strcmp(precision, "tf32") == 0)
        return gpu->has_tf32 ? gpu->tf32_tflops : 0.0;
    return 0.0;
}

const char *gpuplan_catalog_date(const struct gpuplan_catalog *catalog)
{
    return catalog ? catalog->date : "";
}

/* ---- cloud tiers and price dates ----------------------------------------- */

const char *gpuplan_cloud_tier_name(enum gpuplan_cloud_tier tier)
{
    return (unsigned)tier < GPUPLAN_TIER_COUNT ? gpuplan_cloud_tier_names[tier] : "";
}

bool gpuplan_cloud_tier_parse(const char *name, enum gpuplan_cloud_tier *tier)
{
    for (int t = 0; name && t < GPUPLAN_TIER_COUNT; t++) {
        if (strcmp(name, gpuplan_cloud_tier_names[t]) == 0) {
            *tier = (enum gpuplan_cloud_tier)t;
            return true;
        }
    }
    return false;
}

/*
 * The tiers tried when the asked one has no rate, nearest in kind first:
 * on-demand tiers before the commitment, spot last (it can be interrupted).
 */
static const enum gpuplan_cloud_tier fallback_order[GPUPLAN_TIER_COUNT] = {
    GPUPLAN_TIER_SPECIALTY, GPUPLAN_TIER_HYPERSCALER, GPUPLAN_TIER_COMMIT_1Y,
    GPUPLAN_TIER_MARKETPLACE
};

/*
 * The median of the rates listed at `tier`, with an even count the upper of
 * the two middle ones: a price a named provider asks at that tier, so that
 * one source's promotional or partial-capacity price does not decide every
 * ranking (the lowest of a handful of listings is an outlier more often than
 * a market price). Ties keep the catalog's order. NULL when none is listed.
 */
static const struct gpuplan_cloud_rate *median_at(const struct gpuplan_gpu *gpu,
                                                  enum gpuplan_cloud_tier tier)
{
    const struct gpuplan_cloud_rate *at[GPUPLAN_CATALOG_MAX_RATES_PER_GPU];
    size_t n = 0;
    for (size_t i = 0; i < gpu->n_rates && i < GPUPLAN_CATALOG_MAX_RATES_PER_GPU; i++) {
        if (gpu->rates[i].tier != tier)
            continue;
        size_t k = n++; /* insertion sort by rate: at most 8 rates a GPU */
        while (k > 0 && at[k - 1]->usd_per_gpu_hour > gpu->rates[i].usd_per_gpu_hour) {
            at[k] = at[k - 1];
            k--;
        }
        at[k] = &gpu->rates[i];
    }
    return n ? at[n / 2] : NULL;
}

void gpuplan_gpu_cloud_rate(const struct gpuplan_gpu *gpu,
                            enum gpuplan_cloud_tier tier,
                            struct gpuplan_rate_choice *out)
{
    memset(out, 0, sizeof *out);
    out->asked = tier;
    if (!gpu)
        return;
    out->rate = median_at(gpu, tier);
    for (int k = 0; !out->rate && k < GPUPLAN_TIER_COUNT; k++) {
        if (fallback_order[k] == tier)
            continue;
        out->rate = median_at(gpu, fallback_order[k]);
        out->fallback = out->rate != NULL;
    }
}

/* YYYY-MM[-DD] -> year * 12 + month - 1; -1 when not a date. */
static int month_index(const char *date)
{
    if (!date || !is_valid_date(date))
        return -1;
    const int year =
        (date[0] - '0') * 1000 + (date[1] - '0') * 100 + (date[2] - '0') * 10 + (date[3] - '0');
    const int month = (date[5] - '0') * 10 + (date[6] - '0');
    return year * 12 + month - 1;
}

int gpuplan_date_months_between(const char *older, const char *newer)
{
    const int a = month_index(older), b = month_index(newer);
    return a < 0 || b < 0 ? -1 : b - a;
}

bool gpuplan_catalog_price_is_stale(const struct gpuplan_catalog *catalog, const char *date)
{
    const int months = gpuplan_date_months_between(date, gpuplan_catalog_date(catalog));
    return months > GPUPLAN_PRICE_STALE_MONTHS;
}
