/*
 * test_catalog.c - the embedded catalog, user overrides, validation errors,
 * "did you mean", and the catalog renderers.
 */
#include "test_common.h"

#include <jansson.h>
#include <unistd.h>

#include "catalog/catalog_compiled_internal.h"
#include "gpuplan/gpuplan.h"
#include "gpuplan/render.h"

/* ---- helpers ------------------------------------------------------------- */

struct tmpdir {
    char path[256];
};

static void tmpdir_make(struct tmpdir *t)
{
    snprintf(t->path, sizeof t->path, "/tmp/gpuplan-catalog-XXXXXX");
    assert_non_null(mkdtemp(t->path));
}

static void tmpdir_write(const struct tmpdir *t, const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", t->path, name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, strlen(text), f), strlen(text));
    assert_int_equal(fclose(f), 0);
}

static void tmpdir_remove(const struct tmpdir *t)
{
    static const char *const names[] = { "gpus.json", "platforms.json", "models.json" };
    char path[512];
    for (size_t i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/%s", t->path, names[i]);
        (void)unlink(path);
    }
    (void)rmdir(t->path);
}

static struct gpuplan_catalog *load_embedded(void)
{
    struct gpuplan_catalog *c = NULL;
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    enum gpuplan_status st = gpuplan_catalog_load(&c, NULL, &err);
    if (st != GPUPLAN_OK)
        fail_msg("catalog load failed: %s: %s", err.where, err.message);
    return c;
}

/* A complete, valid user GPU record: id, memory_gb, platform and extra fields substituted. */
#define GPU_RECORD_ON(ID, MEMORY_GB, PLATFORM, EXTRA)                                             \
    "{\"id\":\"" ID "\",\"vendor\":\"nvidia\",\"name\":\"Test GPU\",\"architecture\":\"Hopper\"," \
    "\"memory\":\"80 GB HBM3\",\"memory_gb\":" MEMORY_GB ",\"memory_bandwidth_gb_per_s\":3350,"   \
    "\"bf16_tflops\":989,\"fp16_tflops\":989,\"fp8_tflops\":1979,\"fp4_tflops\":null,"            \
    "\"tf32_tflops\":494.5,\"interconnect\":\"nvswitch\",\"link_gb_per_s\":900,"                  \
    "\"max_gpus_per_link_domain\":8,\"pcie_gen\":5,\"tdp_w\":700,\"compute_capability\":\"9.0\"," \
    "\"form_factor\":\"sxm\",\"platforms\":[\"" PLATFORM "\"],\"source\":\"test\","               \
    "\"retrieved\":\"2026-12-01\"" EXTRA "}"
#define GPU_RECORD(ID, MEMORY_GB, EXTRA) GPU_RECORD_ON(ID, MEMORY_GB, "hgx-h100-8", EXTRA)

/* Load `gpus_json` as a user's gpus.json; returns the status, fills err. */
static enum gpuplan_status load_user_gpus(const char *gpus_json, struct gpuplan_error *err)
{
    struct tmpdir t;
    tmpdir_make(&t);
    tmpdir_write(&t, "gpus.json", gpus_json);
    struct gpuplan_catalog *c = NULL;
    gpuplan_error_init(err);
    enum gpuplan_status st = gpuplan_catalog_load(&c, t.path, err);
    gpuplan_catalog_free(c);
    tmpdir_remove(&t);
    return st;
}

/* ---- the embedded catalog ------------------------------------------------- */

static void test_required_ids_present(void **state)
{
    (void)state;
    static const char *const gpu_ids[] = {
        "b300",          "gb300",          "b200",      "a10",      "gb200",    "h200-sxm",
        "h200-nvl",      "h100-sxm",       "h100-pcie", "h100-nvl", "h20",      "a100-80gb-sxm",
        "a100-40gb-sxm", "a100-80gb-pcie", "l40s",      "l4",       "a10g",     "t4",
        "rtx-pro-6000",  "rtx-6000-ada",   "rtx-a6000", "rtx-5090", "rtx-4090", "rtx-3090",
        "v100-32gb",     "mi355x",         "mi325x",    "mi300x",   "mi250x",   "gaudi3",
        "rtx-a5000",
    };
    struct gpuplan_catalog *c = load_embedded();
    for (size_t i = 0; i < sizeof gpu_ids / sizeof gpu_ids[0]; i++) {
        if (!gpuplan_catalog_find_gpu(c, gpu_ids[i]))
            fail_msg("GPU '%s' missing from the catalog", gpu_ids[i]);
    }
    assert_int_equal(gpuplan_catalog_n_gpus(c), sizeof gpu_ids / sizeof gpu_ids[0]);
    static const char *const model_ids[] = { "llama-3.1-8b",  "llama-3.1-70b", "llama-3.1-405b",
                                             "qwen3-30b-a3b", "deepseek-v3",   "mixtral-8x7b" };
    for (size_t i = 0; i < sizeof model_ids / sizeof model_ids[0]; i++)
        assert_non_null(gpuplan_catalog_find_model(c, model_ids[i]));
    assert_non_null(gpuplan_catalog_find_platform(c, "hgx-h100-8"));
    assert_null(gpuplan_catalog_find_gpu(c, "h100"));
    gpuplan_catalog_free(c);
}

static void test_every_record_has_source_and_retrieved(void **state)
{
    (void)state;
    struct gpuplan_catalog *c = load_embedded();
    for (size_t i = 0; i < gpuplan_catalog_n_gpus(c); i++) {
        const struct gpuplan_gpu *g = gpuplan_catalog_gpu_at(c, i);
        assert_true(strlen(g->source) > 0);
        assert_int_equal(strlen(g->retrieved), 10);
        assert_true(g->memory_bytes > 0);
        assert_true(g->tdp_w > 0.0);
        /* every GPU runs on a platform of the catalog */
        assert_true(g->n_platforms >= 1);
        for (size_t k = 0; k < g->n_platforms; k++)
            assert_non_null(gpuplan_catalog_find_platform(c, g->platforms[k]));
    }
    for (size_t i = 0; i < gpuplan_catalog_n_platforms(c); i++) {
        const struct gpuplan_platform *p = gpuplan_catalog_platform_at(c, i);
        assert_true(strlen(p->source) > 0);
        assert_true(strlen(p->retrieved) >= 7);
        assert_true(p->n_gpu_counts >= 1);
        assert_int_equal(p->gpu_counts[p->n_gpu_counts - 1], p->max_gpus);
    }
    for (size_t i = 0; i < gpuplan_catalog_n_models(c); i++) {
        const struct gpuplan_catalog_model *m = gpuplan_catalog_model_at(c, i);
        assert_true(strlen(m->source) > 0);
        assert_true(strlen(m->retrieved) >= 7);
        assert_non_null(m->config_json);
        assert_int_equal(strlen(m->config_json), m->config_json_len);
    }
    assert_null(gpuplan_catalog_gpu_at(c, gpuplan_catalog_n_gpus(c)));
    assert_string_equal(gpuplan_catalog_date(c), "2026-12-01");
    gpuplan_catalog_free(c);
}

/* Issue 14: a purchase price with date and source for every GPU, dated rates with tier,
 * provider and source, platforms with a dated price, and the parts that price capex. */
static void test_every_price_is_sourced_and_dated(void **state)
{
    (void)state;
    struct gpuplan_catalog *c = load_embedded();
    size_t n_rated = 0;
    for (size_t i = 0; i < gpuplan_catalog_n_gpus(c); i++) {
        const struct gpuplan_gpu *g = gpuplan_catalog_gpu_at(c, i);
        if (!(g->price_usd > 0) || strlen(g->price_date) < 7 || !g->price_source[0])
            fail_msg("GPU '%s' has no dated, sourced purchase price", g->id);
        for (size_t k = 0; k < g->n_rates; k++) {
            const struct gpuplan_cloud_rate *r = &g->rates[k];
            assert_true(r->usd_per_gpu_hour > 0);
            assert_true((unsigned)r->tier < GPUPLAN_TIER_COUNT);
            assert_true(r->provider[0] && r->source[0] && strlen(r->date) >= 7);
        }
        n_rated += g->n_rates > 0;
        assert_true(g->devices_per_card >= 1);
    }
    assert_true(n_rated >= 23); /* 23 of 31 on 2026-12-01: see docs/catalog.md */
    for (size_t i = 0; i < gpuplan_catalog_n_platforms(c); i++) {
        const struct gpuplan_platform *p = gpuplan_catalog_platform_at(c, i);
        assert_true(p->base_price_usd > 0 && strlen(p->price_date) >= 7);
        assert_true(p->cpu[0]);
        assert_true(p->ram_base_bytes <= p->ram_max_bytes);
    }
    static const enum gpuplan_part_kind kinds[] = { GPUPLAN_PART_RAM, GPUPLAN_PART_NVME,
                                                    GPUPLAN_PART_NIC, GPUPLAN_PART_SWITCH_PORT };
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        const struct gpuplan_part *part = gpuplan_catalog_part(c, kinds[k]);
        assert_non_null(part);
        assert_true(part->usd_per_unit > 0 && part->source[0] && strlen(part->price_date) >= 7);
    }
    gpuplan_catalog_free(c);
}

/* The catalog errors issue 14 lists, fixed. */
static void test_issue14_fixes(void **state)
{
    (void)state;
    struct gpuplan_catalog *c = load_embedded();
    const struct gpuplan_gpu *g = gpuplan_catalog_find_gpu(c, "h100-pcie");
    assert_non_null(strstr(g->memory_literal, "HBM2e"));
    static const char *const fp8[] = { "h200-nvl", "h100-nvl", "rtx-5090", "rtx-6000-ada" };
    for (size_t i = 0; i < sizeof fp8 / sizeof fp8[0]; i++) {
        g = gpuplan_catalog_find_gpu(c, fp8[i]);
        assert_true(g->has_fp8 && g->fp8_tflops > 0);
    }
    assert_true(gpuplan_catalog_find_gpu(c, "rtx-6000-ada")->has_bf16);
    g = gpuplan_catalog_find_gpu(c, "b300");
    assert_int_equal(g->n_platforms, 1);
    assert_string_equal(g->platforms[0], "hgx-b300-8");
    g = gpuplan_catalog_find_gpu(c, "mi250x");
    assert_int_equal(g->devices_per_card, 2);
    assert_int_equal(g->memory_bytes, 64ULL * GPUPLAN_BYTES_PER_GB);
    /* Racks and 8-OAM boards are sold whole. */
    static const char *const whole[] = { "gb200-nvl72", "gb300-nvl72", "oam-amd-8", "oam-mi355x-8",
                                         "gaudi3-oam-8" };
    for (size_t i = 0; i < sizeof whole / sizeof whole[0]; i++) {
        const struct gpuplan_platform *p = gpuplan_catalog_find_platform(c, whole[i]);
        assert_non_null(p);
        assert_int_equal(p->n_gpu_counts, 1);
        assert_int_equal(p->gpu_counts[0], p->max_gpus);
    }
    assert_int_equal(gpuplan_catalog_find_platform(c, "gb200-nvl72")->max_gpus, 72);
    gpuplan_catalog_free(c);
}

/*
 * The time model (throughput.c intra_node_gb_per_s) carries a server's collectives over the
 * GPU-to-GPU fabric only while the server's GPUs fit in one link domain; past it they fall
 * back to PCIe. So every server a switched-fabric GPU (NVSwitch, Infinity Fabric, Gaudi's
 * RoCE) is sold in must fit its domain, and a superchip rack (GB200/GB300 NVL72) is one
 * domain of all its GPUs. Bridged cards (NVLink bridge pairs) are the exception by design.
 */
static void test_link_domains_hold_their_servers(void **state)
{
    (void)state;
    struct gpuplan_catalog *c = load_embedded();
    for (size_t i = 0; i < gpuplan_catalog_n_gpus(c); i++) {
        const struct gpuplan_gpu *g = gpuplan_catalog_gpu_at(c, i);
        const bool switched = g->link == GPUPLAN_LINK_NVSWITCH ||
                              g->link == GPUPLAN_LINK_INFINITY_FABRIC ||
                              g->link == GPUPLAN_LINK_ETHERNET;
        for (size_t k = 0; k < g->n_platforms; k++) {
            const struct gpuplan_platform *p = gpuplan_catalog_find_platform(c, g->platforms[k]);
            assert_non_null(p);
            if (switched && p->max_gpus > g->max_gpus_per_link_domain)
                fail_msg("'%s' in '%s': %u GPUs per server, link domain %u", g->id, p->id,
                         p->max_gpus, g->max_gpus_per_link_domain);
            if (strcmp(g->form_factor, "superchip") == 0 &&
                g->max_gpus_per_link_domain != p->max_gpus)
                fail_msg("'%s' in rack '%s': domain %u, rack %u GPUs", g->id, p->id,
                         g->max_gpus_per_link_domain, p->max_gpus);
        }
    }
    gpuplan_catalog_free(c);
}

/*
 * Scale-out bandwidth per GPU of the Blackwell servers (network / GPUs per server, Gb/s):
 * ConnectX-8 SuperNICs at 800 Gb/s per GPU in HGX B300 (DGX B300) and GB300 NVL72 (Azure ND
 * GB300 v6, NVIDIA 2025-10), ConnectX-7 at 400 Gb/s in HGX B200 (DGX B200 user guide) and
 * GB200 NVL72 (Azure ND GB200 v6: 4x 400 Gb/s per 4-GPU tray, 28.8 Tb/s per rack).
 */
static void test_blackwell_scaleout_per_gpu(void **state)
{
    (void)state;
    static const struct {
        const char *platform;
        double gbit_per_s_per_gpu;
    } rows[] = {
        { "hgx-b300-8", 800.0 },
        { "gb300-nvl72", 800.0 },
        { "hgx-b200-8", 400.0 },
        { "gb200-nvl72", 400.0 },
    };
    struct gpuplan_catalog *c = load_embedded();
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const struct gpuplan_platform *p = gpuplan_catalog_find_platform(c, rows[i].platform);
        assert_non_null(p);
        const double gbit_per_gpu = p->network_gb_per_s * GPUPLAN_BITS_PER_BYTE / p->max_gpus;
        assert_float_equal(gbit_per_gpu, rows[i].gbit_per_s_per_gpu, 1e-9);
        assert_int_equal(p->scaleout_nics, p->max_gpus); /* one NIC per GPU (rail design) */
    }
    gpuplan_catalog_free(c);
}

static void test_h100_sxm_figures(void **state)
{
    (void)state;
    struct gpuplan_catalog *c = load_embedded();
    const struct gpuplan_gpu *g = gpuplan_catalog_find_gpu(c, "h100-sxm");
    assert_non_null(g);
    assert_true(g->has_bf16);
    assert_float_equal(g->bf16_tflops, 989.0, 1e-9);
    assert_float_equal(g->memory_bandwidth_gb_per_s, 3350.0, 1e-9);
    assert_int_equal(g->memory_bytes, 80ULL * GPUPLAN_BYTES_PER_GB);
    assert_string_equal(g->memory_literal, "80 GB HBM3");
    assert_int_equal(g->link, GPUPLAN_LINK_NVSWITCH);
    assert_float_equal(g->link_gb_per_s, 900.0, 1e-9);
    assert_float_equal(gpuplan_gpu_peak_tflops(g, "bf16"), 989.0, 1e-9);
    assert_float_equal(gpuplan_gpu_peak_tflops(g, "fp8"), 1979.0, 1e-9);
    assert_float_equal(gpuplan_gpu_peak_tflops(g, "fp4"), 0.0, 0.0); /* Hopper: no FP4 */
    assert_float_equal(gpuplan_gpu_peak_tflops(g, "int3"), 0.0, 0.0);
    assert_false(g->has_fp4);

    /* Explicit "unsupported": T4 has no BF16, V100 no TF32. */
    const struct gpuplan_gpu *t4 = gpuplan_catalog_find_gpu(c, "t4");
    assert_false(t4->has_bf16);
    assert_float_equal(gpuplan_gpu_peak_tflops(t4, "fp16"), 65.0, 1e-9);
    assert_false(gpuplan_catalog_find_gpu(c, "v100-32gb")->has_tf32);
    /* nvidia-smi view kept next to the vendor figure */
    assert_int_equal(gpuplan_catalog_find_gpu(c, "l40s")->memory_visible_bytes,
                     46068ULL * GPUPLAN_BYTES_PER_MIB);
    gpuplan_catalog_free(c);
}

static void test_model_config_is_the_fixture(void **state)
{
    (void)state;
    static const struct {
        const char *id;
        const char *fixture;
    } rows[] = {
        { "llama-3.1-8b", "hf-configs/llama-3.1-8b.json" },
        { "deepseek-v3", "hf-configs/deepseek-v3.json" },
        { "t0p", "hf-configs/t0p.json" },
    };
    struct gpuplan_catalog *c = load_embedded();
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const struct gpuplan_catalog_model *m = gpuplan_catalog_find_model(c, rows[i].id);
        assert_non_null(m);
        json_t *embedded = json_loadb(m->config_json, m->config_json_len, 0, NULL);
        json_t *fixture = json_load_file(fixture_path(rows[i].fixture), 0, NULL);
        assert_non_null(embedded);
        if (!fixture)
            fail_msg("fixture %s missing (run the tests from the repository root)",
                     fixture_path(rows[i].fixture));
        assert_true(json_equal(embedded, fixture));
        json_decref(embedded);
        json_decref(fixture);
    }
    /* stored once, compact with sorted keys */
    const struct gpuplan_catalog_model *m = gpuplan_catalog_find_model(c, "llama-3.1-8b");
    assert_int_equal(strncmp(m->config_json, "{\"architectures\":[\"LlamaForCausalLM\"]", 37), 0);
    gpuplan_catalog_free(c);
}

/* ---- user overrides ------------------------------------------------------- */

static void test_user_dir_replaces_and_adds(void **state)
{
    (void)state;
    struct gpuplan_catalog *base = load_embedded();
    const size_t n_base = gpuplan_catalog_n_gpus(base);
    const size_t n_models = gpuplan_catalog_n_models(base);
    gpuplan_catalog_free(base);

    struct tmpdir t;
    tmpdir_make(&t);
    tmpdir_write(
        &t, "gpus.json",
        "{\"schema_version\":1,\"gpus\":[" GPU_RECORD(
            "h100-sxm", "80",
            ",\"price_usd\":12345,\"price_date\":\"2026-12\",\"price_source\":\"quote\","
            "\"cloud_rates\":[{\"tier\":\"commit-1y\",\"usd_per_gpu_hour\":1.5,"
            "\"provider\":\"my cloud\",\"date\":\"2026-12\",\"source\":\"contract\"}]") "," GPU_RECORD_ON("my-gpu",
                                                                                                          "96",
                                                                                                          "my-box",
                                                                                                          "") "]}");
    tmpdir_write(&t, "platforms.json",
                 "{\"schema_version\":1,\"platforms\":[{\"id\":\"my-box\",\"name\":\"My box\","
                 "\"form_factor\":\"workstation\",\"max_gpus\":2,\"gpu_counts\":[1,2],"
                 "\"base_price_usd\":4000,\"price_date\":\"2026-12\",\"base_power_w\":350,"
                 "\"cpu\":\"1x desktop CPU\",\"cpu_sockets\":1,"
                 "\"cpu_cores_max\":24,\"ram_base_gb\":64,\"ram_slots\":4,\"ram_max_gb\":256,"
                 "\"nvme_base_tb\":2,\"nvme_bays\":2,\"scaleout_nics\":1,\"nics_included\":true,"
                 "\"network\":\"1x 10 Gb/s\",\"network_gbit_per_s\":10,\"rack_units\":0,"
                 "\"source\":\"my invoice\",\"retrieved\":\"2026-12-01\"}]}");

    struct gpuplan_catalog *c = NULL;
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    enum gpuplan_status st = gpuplan_catalog_load(&c, t.path, &err);
    if (st != GPUPLAN_OK)
        fail_msg("%s: %s", err.where, err.message);
    assert_int_equal(gpuplan_catalog_n_gpus(c), n_base + 1);
    assert_int_equal(gpuplan_catalog_n_models(c), n_models);
    const struct gpuplan_gpu *h100 = gpuplan_catalog_find_gpu(c, "h100-sxm");
    assert_float_equal(h100->price_usd, 12345.0, 1e-9);
    assert_string_equal(h100->price_date, "2026-12");
    assert_string_equal(h100->source, "test");
    assert_int_equal(h100->n_rates, 1);
    assert_int_equal(h100->rates[0].tier, GPUPLAN_TIER_COMMIT_1Y);
    struct gpuplan_rate_choice choice;
    gpuplan_gpu_cloud_rate(h100, GPUPLAN_TIER_SPECIALTY, &choice);
    assert_true(choice.rate && choice.fallback); /* only the user's 1-year rate */
    const struct gpuplan_gpu *mine = gpuplan_catalog_find_gpu(c, "my-gpu");
    assert_non_null(mine);
    assert_int_equal(mine->memory_bytes, 96ULL * GPUPLAN_BYTES_PER_GB);
    const struct gpuplan_platform *box = gpuplan_catalog_find_platform(c, "my-box");
    assert_non_null(box);
    assert_float_equal(box->network_gb_per_s, 1.25, 1e-12); /* 10 Gb/s = 1.25 GB/s */
    assert_int_equal(box->ram_base_bytes, 64ULL * GPUPLAN_BYTES_PER_GB);
    assert_string_equal(box->cpu, "1x desktop CPU");
    assert_string_equal(gpuplan_catalog_date(c), "2026-12-01");
    gpuplan_catalog_free(c);
    tmpdir_remove(&t);
}

static void test_user_dir_errors(void **state)
{
    (void)state;
    struct gpuplan_catalog *c = NULL;
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    assert_int_equal(gpuplan_catalog_load(&c, "/nonexistent/gpuplan-dir", &err),
                     GPUPLAN_ERR_NOT_FOUND);
    assert_null(c);
    assert_non_null(strstr(err.message, "/nonexistent/gpuplan-dir"));

    struct tmpdir t;
    tmpdir_make(&t);
    gpuplan_error_init(&err);
    assert_int_equal(gpuplan_catalog_load(&c, t.path, &err), GPUPLAN_ERR_NOT_FOUND);
    assert_non_null(strstr(err.message, "no catalog files"));
    tmpdir_remove(&t);
}

/* Invalid user files: each names the file, the place and the reason. */
static void test_invalid_user_gpus(void **state)
{
    (void)state;
    static const struct {
        const char *json;
        enum gpuplan_status status;
        const char *where;   /* substring of err.where */
        const char *message; /* substring of err.message */
    } rows[] = {
        /* syntax error: line:col */
        { "{\"schema_version\":1,\n\"gpus\":[\n{\"id\": }]}", GPUPLAN_ERR_INVALID_INPUT,
          "gpus.json:3:", "invalid JSON" },
        /* wrong type: JSON path */
        { "{\"schema_version\":1,\"gpus\":[" GPU_RECORD("x", "\"80\"", "") "]}",
          GPUPLAN_ERR_INVALID_CONFIG, "gpus.json:$.gpus[0].memory_gb", "must be a number" },
        /* zero memory */
        { "{\"schema_version\":1,\"gpus\":[" GPU_RECORD("x", "0", "") "]}",
          GPUPLAN_ERR_INVALID_INPUT, "$.gpus[0].memory_gb", "must be > 0" },
        /* 1e20 GB: past 100 TB */
        { "{\"schema_version\":1,\"gpus\":[" GPU_RECORD("x", "1e20", "") "]}",
          GPUPLAN_ERR_INVALID_INPUT, "$.gpus[0].memory_gb", "<= 100000" },
        /* duplicate id in one file */
        { "{\"schema_version\":1,\"gpus\":[" GPU_RECORD("x", "80", "") "," GPU_RECORD("x", "80",
                                                                                      "") "]}",
          GPUPLAN_ERR_INVALID_INPUT, "$.gpus[1].id", "duplicate id 'x'" },
        /* unknown platform */
        { "{\"schema_version\":1,\"gpus\":[{\"id\":\"y\",\"vendor\":\"amd\",\"name\":\"n\","
          "\"architecture\":\"a\",\"memory\":\"1 GB\",\"memory_gb\":1,"
          "\"memory_bandwidth_gb_per_s\":1,\"interconnect\":\"pcie\",\"tdp_w\":1,"
          "\"form_factor\":\"pcie\",\"platforms\":[\"no-such-box\"],\"source\":\"s\","
          "\"retrieved\":\"2026-01\"}]}",
          GPUPLAN_ERR_INVALID_INPUT, "$.gpus[0].platforms[0]", "unknown platform 'no-such-box'" },
        /* unknown key (a typo) */
        { "{\"schema_version\":1,\"gpus\":[" GPU_RECORD("x", "80", ",\"tdp_watts\":1") "]}",
          GPUPLAN_ERR_INVALID_INPUT, "$.gpus[0]", "unknown key 'tdp_watts'" },
        /* unknown top-level key */
        { "{\"schema_version\":1,\"gpus\":[],\"extra\":1}", GPUPLAN_ERR_INVALID_INPUT,
          "gpus.json:$", "unknown key 'extra'" },
        /* bad date */
        { "{\"schema_version\":1,\"gpus\":[" GPU_RECORD("x", "80",
                                                        ",\"price_usd\":1,"
                                                        "\"price_date\":\"May 2026\"") "]}",
          GPUPLAN_ERR_INVALID_INPUT, "$.gpus[0].price_date", "YYYY-MM" },
        /* a price without its source */
        { "{\"schema_version\":1,\"gpus\":[" GPU_RECORD("x", "80",
                                                        ",\"price_usd\":1,"
                                                        "\"price_date\":\"2026-05\"") "]}",
          GPUPLAN_ERR_INVALID_CONFIG, "$.gpus[0].price_source", "is missing" },
        /* a rate without a tier, a date, a source; a tier that does not exist */
        { "{\"schema_version\":1,\"gpus\":[" GPU_RECORD(
              "x", "80",
              ",\"cloud_rates\":[{\"usd_per_gpu_hour\":2,\"provider\":\"p\",\"date\":"
              "\"2026-05\",\"source\":\"s\"}]") "]}",
          GPUPLAN_ERR_INVALID_CONFIG, "$.gpus[0].cloud_rates[0].tier", "is missing" },
        { "{\"schema_version\":1,\"gpus\":[" GPU_RECORD(
              "x", "80",
              ",\"cloud_rates\":[{\"tier\":\"specialty\",\"usd_per_gpu_hour\":2,"
              "\"provider\":\"p\",\"source\":\"s\"}]") "]}",
          GPUPLAN_ERR_INVALID_CONFIG, "$.gpus[0].cloud_rates[0].date", "is missing" },
        { "{\"schema_version\":1,\"gpus\":[" GPU_RECORD(
              "x", "80",
              ",\"cloud_rates\":[{\"tier\":\"specialty\",\"usd_per_gpu_hour\":2,"
              "\"provider\":\"p\",\"date\":\"2026-05\"}]") "]}",
          GPUPLAN_ERR_INVALID_CONFIG, "$.gpus[0].cloud_rates[0].source", "is missing" },
        { "{\"schema_version\":1,\"gpus\":[" GPU_RECORD(
              "x", "80",
              ",\"cloud_rates\":[{\"tier\":\"spot\",\"usd_per_gpu_hour\":2,"
              "\"provider\":\"p\",\"date\":\"2026-05\",\"source\":\"s\"}]") "]}",
          GPUPLAN_ERR_INVALID_INPUT, "$.gpus[0].cloud_rates[0].tier", "'commit-1y'" },
        { "{\"schema_version\":1,\"gpus\":[" GPU_RECORD(
              "x", "80",
              ",\"cloud_rates\":[{\"tier\":\"specialty\",\"usd_per_gpu_hour\":0,"
              "\"provider\":\"p\",\"date\":\"2026-05\",\"source\":\"s\"}]") "]}",
          GPUPLAN_ERR_INVALID_INPUT, "$.gpus[0].cloud_rates[0].usd_per_gpu_hour", "must be > 0" },
        /* the single rate of the old schema */
        { "{\"schema_version\":1,\"gpus\":[" GPU_RECORD("x", "80",
                                                        ",\"cloud_usd_per_hour\":2") "]}",
          GPUPLAN_ERR_INVALID_INPUT, "$.gpus[0].cloud_usd_per_hour", "no longer read" },
        /* unknown vendor */
        { "{\"schema_version\":1,\"gpus\":[{\"id\":\"z\",\"vendor\":\"acme\"}]}",
          GPUPLAN_ERR_INVALID_INPUT, "$.gpus[0].vendor", "must be one of 'nvidia'" },
        /* missing required field */
        { "{\"schema_version\":1,\"gpus\":[{\"id\":\"z\",\"vendor\":\"nvidia\",\"name\":\"n\","
          "\"architecture\":\"a\",\"memory\":\"1 GB\"}]}",
          GPUPLAN_ERR_INVALID_INPUT, "$.gpus[0].memory_gb", "is missing" },
        /* bad id */
        { "{\"schema_version\":1,\"gpus\":[{\"id\":\"H100 SXM\"}]}", GPUPLAN_ERR_INVALID_INPUT,
          "$.gpus[0].id", "must use only" },
        /* schema version */
        { "{\"schema_version\":2,\"gpus\":[]}", GPUPLAN_ERR_UNSUPPORTED, "schema_version",
          "this version reads 1" },
        /* gpus not an array */
        { "{\"schema_version\":1,\"gpus\":{}}", GPUPLAN_ERR_INVALID_INPUT, "$.gpus",
          "must be an array" },
        /* top level not an object */
        { "[1,2]", GPUPLAN_ERR_INVALID_INPUT, "gpus.json", "object" },
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct gpuplan_error err;
        const enum gpuplan_status st = load_user_gpus(rows[i].json, &err);
        if (st != rows[i].status || !strstr(err.where, rows[i].where) ||
            !strstr(err.message, rows[i].message))
            fail_msg("row %zu: status %d where '%s' message '%s'", i, (int)st, err.where,
                     err.message);
    }
}

/* ---- did you mean --------------------------------------------------------- */

static void test_did_you_mean(void **state)
{
    (void)state;
    static const struct {
        const char *query;
        const char *hint; /* substring of err.hint */
    } rows[] = {
        { "h100sxm", "did you mean 'h100-sxm'" },
        { "h100", "'h100-sxm', 'h100-nvl' or 'h100-pcie'" }, /* prefix matches, nearest first */
        { "H100-SXM", "'h100-sxm'" },
        { "mi300", "'mi300x'" },
        { "zzzzzzzzzzzz", "run 'gpuplan gpus'" },
        { "", "run 'gpuplan gpus'" },
    };
    struct gpuplan_catalog *c = load_embedded();
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const struct gpuplan_gpu *g = NULL;
        struct gpuplan_error err;
        gpuplan_error_init(&err);
        assert_int_equal(gpuplan_catalog_get_gpu(c, rows[i].query, &g, &err),
                         GPUPLAN_ERR_NOT_FOUND);
        assert_null(g);
        if (!strstr(err.hint, rows[i].hint))
            fail_msg("'%s': hint '%s'", rows[i].query, err.hint);
    }
    const struct gpuplan_gpu *g = NULL;
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    assert_int_equal(gpuplan_catalog_get_gpu(c, "h100-sxm", &g, &err), GPUPLAN_OK);
    assert_string_equal(g->id, "h100-sxm");
    assert_string_equal(err.message, ""); /* untouched on success */

    const struct gpuplan_catalog_model *m = NULL;
    assert_int_equal(gpuplan_catalog_get_model(c, "llama-3.1-8", &m, &err), GPUPLAN_ERR_NOT_FOUND);
    assert_string_equal(err.message, "unknown model 'llama-3.1-8'");
    assert_non_null(strstr(err.hint, "'llama-3.1-8b'"));
    assert_int_equal(gpuplan_catalog_get_model(c, "qwen3-8b", &m, &err), GPUPLAN_OK);
    gpuplan_catalog_free(c);
}

/* ---- renderers ------------------------------------------------------------ */

static void test_render_catalog(void **state)
{
    (void)state;
    struct gpuplan_catalog *c = load_embedded();
    struct gpuplan_buf b;
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    enum gpuplan_format f;
    assert_int_equal(gpuplan_format_parse("csv", GPUPLAN_RENDER_GPUS_FORMATS, &f, &err),
                     GPUPLAN_OK);
    assert_int_equal(f, GPUPLAN_FORMAT_CSV);
    assert_int_equal(gpuplan_format_parse("markdown", GPUPLAN_RENDER_GPUS_FORMATS, &f, &err),
                     GPUPLAN_OK);
    assert_int_equal(f, GPUPLAN_FORMAT_MD);
    assert_int_equal(gpuplan_format_parse("yaml", GPUPLAN_RENDER_GPUS_FORMATS, &f, &err),
                     GPUPLAN_ERR_USAGE);
    /* A format a renderer does not write is refused by name, with the ones it does. */
    assert_int_equal(gpuplan_format_parse("md", GPUPLAN_RENDER_PLAN_FORMATS, &f, &err),
                     GPUPLAN_ERR_USAGE);
    assert_string_equal(err.message, "'--format' is 'md'; must be one of text|json|csv");
    assert_int_equal(gpuplan_format_parse("csv", GPUPLAN_RENDER_CHECK_FORMATS, &f, &err),
                     GPUPLAN_ERR_USAGE);
    assert_string_equal(err.message, "'--format' is 'csv'; must be one of text|json");

    gpuplan_buf_init(&b, 0);
    assert_int_equal(gpuplan_render_gpus(c, GPUPLAN_FORMAT_JSON, &b, &err), GPUPLAN_OK);
    json_t *root = json_loads(gpuplan_buf_str(&b), 0, NULL);
    assert_non_null(root);
    assert_int_equal(json_integer_value(json_object_get(root, "schema_version")), 1);
    const json_t *list = json_object_get(root, "gpus");
    assert_int_equal(json_array_size(list), gpuplan_catalog_n_gpus(c));
    const json_t *first = json_array_get(list, 0);
    assert_non_null(json_object_get(first, "memory_bandwidth_gb_per_s"));
    assert_non_null(json_object_get(first, "source"));
    json_decref(root);

    /* deterministic: same bytes twice */
    char *again = strdup(gpuplan_buf_str(&b));
    gpuplan_buf_reset(&b);
    assert_int_equal(gpuplan_render_gpus(c, GPUPLAN_FORMAT_JSON, &b, &err), GPUPLAN_OK);
    assert_string_equal(again, gpuplan_buf_str(&b));
    free(again);

    static const struct {
        enum gpuplan_format format;
        const char *needle;
    } rows[] = {
        { GPUPLAN_FORMAT_TEXT, "h100-sxm  " },
        { GPUPLAN_FORMAT_CSV, "id,name,memory," },
        { GPUPLAN_FORMAT_MD, "| id | name |" },
        { GPUPLAN_FORMAT_HTML, "<td>h100-sxm</td>" },
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        gpuplan_buf_reset(&b);
        assert_int_equal(gpuplan_render_gpus(c, rows[i].format, &b, &err), GPUPLAN_OK);
        if (!strstr(gpuplan_buf_str(&b), rows[i].needle))
            fail_msg("format %d lacks '%s'", (int)rows[i].format, rows[i].needle);
    }
    gpuplan_buf_reset(&b);
    assert_int_equal(gpuplan_render_models(c, GPUPLAN_FORMAT_TEXT, &b, &err), GPUPLAN_OK);
    assert_non_null(strstr(gpuplan_buf_str(&b), "llama-3.1-70b"));
    gpuplan_buf_reset(&b);
    assert_int_equal(gpuplan_render_models(c, GPUPLAN_FORMAT_JSON, &b, &err), GPUPLAN_OK);
    root = json_loads(gpuplan_buf_str(&b), 0, NULL);
    assert_non_null(root);
    const json_t *model = json_array_get(json_object_get(root, "models"), 0);
    assert_true(json_is_object(json_object_get(model, "config")));
    json_decref(root);
    gpuplan_buf_release(&b);

    /* a too-small buffer fails cleanly */
    gpuplan_buf_init(&b, 64);
    assert_int_equal(gpuplan_render_gpus(c, GPUPLAN_FORMAT_TEXT, &b, &err), GPUPLAN_ERR_TOO_LARGE);
    gpuplan_buf_release(&b);
    gpuplan_catalog_free(c);
}

/* ---- the compiled catalog (catalog_compiled_internal.h) ------------------ */

/* Field `f` of records a and b equal (text fields by content); prints the difference. */
static bool field_equal(const struct catalog_field *f, const char *a, const char *b, const char *id)
{
    if (f->kind == CATALOG_TEXT) {
        const char *ta, *tb;
        memcpy(&ta, a + f->offset, sizeof ta);
        memcpy(&tb, b + f->offset, sizeof tb);
        if (ta && tb && strcmp(ta, tb) == 0)
            return true;
    } else if (memcmp(a + f->offset, b + f->offset, f->size) == 0) {
        return true;
    }
    fprintf(stderr, "compiled catalog: record '%s' field '%s' differs from the JSON's\n", id,
            f->name);
    return false;
}

/* Every field by the writer's table, then every byte but the text pointers. */
static void assert_records_equal(const struct catalog_struct *s,
                                 const void *compiled,
                                 const void *parsed,
                                 size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const char *a = (const char *)compiled + i * s->size;
        const char *b = (const char *)parsed + i * s->size;
        for (size_t k = 0; k < s->n_fields; k++)
            assert_true(field_equal(&s->fields[k], a, b, a));
        char *ca = malloc(s->size), *cb = malloc(s->size);
        assert_non_null(ca);
        assert_non_null(cb);
        memcpy(ca, a, s->size);
        memcpy(cb, b, s->size);
        for (size_t k = 0; k < s->n_fields; k++) {
            if (s->fields[k].kind == CATALOG_TEXT) {
                memset(ca + s->fields[k].offset, 0, s->fields[k].size);
                memset(cb + s->fields[k].offset, 0, s->fields[k].size);
            }
        }
        assert_memory_equal(ca, cb, s->size);
        free(ca);
        free(cb);
    }
}

/*
 * The catalog compiled at build time (tools/catalog_gen.c) is the one the
 * JSON files load into, record by record and field by field, in the same
 * order; the writer's tables cover every field of the structs (a field
 * added to a struct and not to catalog_fields.c fails here and stops the
 * generator); `--catalog DIR` still merges parsed records over it.
 */
static void test_compiled_catalog_is_the_json(void **state)
{
    (void)state;
    const struct catalog_struct *structs[] = {
        &gpuplan_catalog_platform_struct, &gpuplan_catalog_part_struct, &gpuplan_catalog_gpu_struct,
        &gpuplan_catalog_cloud_rate_struct, &gpuplan_catalog_model_struct
    };
    for (size_t i = 0; i < sizeof structs / sizeof structs[0]; i++) {
        char msg[256] = "";
        const bool covered = gpuplan_catalog_fields_check(structs[i], msg, sizeof msg);
        if (!covered)
            fprintf(stderr, "%s\n", msg);
        assert_true(covered);
    }
    /* the check finds a field missing from a table */
    struct catalog_field fewer[64];
    struct catalog_struct cut = gpuplan_catalog_gpu_struct;
    assert_true(cut.n_fields <= 64);
    memcpy(fewer, cut.fields, cut.n_fields * sizeof fewer[0]);
    memmove(&fewer[3], &fewer[4], (cut.n_fields - 4) * sizeof fewer[0]);
    cut.fields = fewer;
    cut.n_fields--;
    char msg[256] = "";
    assert_false(gpuplan_catalog_fields_check(&cut, msg, sizeof msg));
    assert_non_null(strstr(msg, "catalog_fields.c"));
    cut.n_fields--; /* the last field gone */
    memcpy(fewer, gpuplan_catalog_gpu_struct.fields, cut.n_fields * sizeof fewer[0]);
    assert_false(gpuplan_catalog_fields_check(&cut, msg, sizeof msg));

    const struct gpuplan_compiled_catalog *cc = &gpuplan_compiled_catalog;
    assert_true(cc->present);
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    struct gpuplan_catalog *json = NULL, *loaded = NULL;
    assert_int_equal(gpuplan_catalog_load_json(&json, NULL, 0, &err), GPUPLAN_OK);
    assert_int_equal(gpuplan_catalog_load(&loaded, NULL, &err), GPUPLAN_OK);
    assert_int_equal(cc->n_platforms, gpuplan_catalog_n_platforms(json));
    assert_int_equal(cc->n_parts, gpuplan_catalog_n_parts(json));
    assert_int_equal(cc->n_gpus, gpuplan_catalog_n_gpus(json));
    assert_int_equal(cc->n_models, gpuplan_catalog_n_models(json));
    assert_true(cc->n_gpus > 0 && cc->n_platforms > 0 && cc->n_models > 0);
    assert_records_equal(&gpuplan_catalog_platform_struct, cc->platforms,
                         gpuplan_catalog_platform_at(json, 0), cc->n_platforms);
    assert_true(cc->n_parts > 0);
    assert_records_equal(&gpuplan_catalog_part_struct, cc->parts, gpuplan_catalog_part_at(json, 0),
                         cc->n_parts);
    assert_records_equal(&gpuplan_catalog_gpu_struct, cc->gpus, gpuplan_catalog_gpu_at(json, 0),
                         cc->n_gpus);
    /* the compiled models' text is in a side table (the records hold no pointer) */
    struct gpuplan_catalog_model *models = calloc(cc->n_models, sizeof *models);
    assert_non_null(models);
    memcpy(models, cc->models, cc->n_models * sizeof *models);
    for (size_t i = 0; i < cc->n_models; i++) {
        assert_null(models[i].config_json);
        models[i].config_json = cc->model_configs[i];
    }
    assert_records_equal(&gpuplan_catalog_model_struct, models, gpuplan_catalog_model_at(json, 0),
                         cc->n_models);
    free(models);
    assert_records_equal(&gpuplan_catalog_model_struct, gpuplan_catalog_model_at(loaded, 0),
                         gpuplan_catalog_model_at(json, 0), cc->n_models);
    /* what a process loads is the compiled copy, with the same date */
    assert_records_equal(&gpuplan_catalog_gpu_struct, gpuplan_catalog_gpu_at(loaded, 0),
                         gpuplan_catalog_gpu_at(json, 0), cc->n_gpus);
    assert_string_equal(gpuplan_catalog_date(loaded), gpuplan_catalog_date(json));
    gpuplan_catalog_free(json);
    gpuplan_catalog_free(loaded);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_compiled_catalog_is_the_json),
        cmocka_unit_test(test_every_price_is_sourced_and_dated),
        cmocka_unit_test(test_issue14_fixes),
        cmocka_unit_test(test_required_ids_present),
        cmocka_unit_test(test_every_record_has_source_and_retrieved),
        cmocka_unit_test(test_h100_sxm_figures),
        cmocka_unit_test(test_link_domains_hold_their_servers),
        cmocka_unit_test(test_blackwell_scaleout_per_gpu),
        cmocka_unit_test(test_model_config_is_the_fixture),
        cmocka_unit_test(test_user_dir_replaces_and_adds),
        cmocka_unit_test(test_user_dir_errors),
        cmocka_unit_test(test_invalid_user_gpus),
        cmocka_unit_test(test_did_you_mean),
        cmocka_unit_test(test_render_catalog),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
