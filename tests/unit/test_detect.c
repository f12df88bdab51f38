/*
 * test_detect.c - GPU detection through the real dlopen path.
 *
 * The NVML stand-ins are built by the Makefile into $BUILD/stubs/ (BUILD is
 * set by scripts/run-tests.sh; without it, ../stubs next to this binary).
 * The stub picks its device table from NVML_STUB_SCENARIO (see
 * tests/stubs/nvml_stub.c). AMD is tested on a fake sysfs tree in a temp dir.
 */
#include "test_common.h"

#include <dlfcn.h>
#include <jansson.h>
#include <libgen.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpuplan/detect.h"
#include "gpuplan/render.h"
#include "gpuplan/units.h"

#define MIB (1024ULL * 1024ULL)

static const char *stub_path(const char *file)
{
    static char path[PATH_MAX];
    const char *build = getenv("BUILD");
    if (build && *build) {
        snprintf(path, sizeof path, "%s/stubs/%s", build, file);
        return path;
    }
    char exe[PATH_MAX];
    const ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return file;
    exe[n] = '\0';
    snprintf(path, sizeof path, "%s/../stubs/%s", dirname(exe), file);
    return path;
}

static struct gpuplan_detect_result *detect(const char *stub, const char *scenario)
{
    setenv("NVML_STUB_SCENARIO", scenario, 1);
    struct gpuplan_detect_options opts;
    gpuplan_detect_options_init(&opts);
    opts.nvml_path = stub ? stub_path(stub) : NULL;
    opts.sysfs_root = NULL;
    struct gpuplan_detect_result *r = calloc(1, sizeof *r);
    assert_non_null(r);
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    assert_int_equal(gpuplan_detect_run(&opts, r, &err), GPUPLAN_OK);
    return r;
}

static bool has_missing(const struct gpuplan_detect_nvml *nvml, const char *name)
{
    for (size_t i = 0; i < nvml->n_missing_symbols; i++) {
        if (strcmp(nvml->missing_symbols[i], name) == 0)
            return true;
    }
    return false;
}

/* The stub's init balance, read through our own handle on the same library. */
static int stub_init_count(const char *stub)
{
    void *lib = dlopen(stub_path(stub), RTLD_NOW | RTLD_LOCAL);
    assert_non_null(lib);
    void *address = dlsym(lib, "nvmlStubInitCount");
    assert_non_null(address);
    int (*count)(void);
    memcpy(&count, &address, sizeof address);
    const int n = count();
    dlclose(lib);
    return n;
}

static void test_match_name_table(void **state)
{
    (void)state;
    static const struct {
        enum gpuplan_vendor vendor;
        const char *name;
        const char *gfx;
        uint64_t memory_bytes;
        const char *want; /* NULL: no match */
    } rows[] = {
        { GPUPLAN_VENDOR_NVIDIA, "NVIDIA H100 80GB HBM3", NULL, 81559 * MIB, "h100-sxm" },
        { GPUPLAN_VENDOR_NVIDIA, "NVIDIA H100 80GB HBM3", NULL, 0, "h100-sxm" },
        { GPUPLAN_VENDOR_NVIDIA, "NVIDIA H100 PCIe", NULL, 81559 * MIB, "h100-pcie" },
        { GPUPLAN_VENDOR_NVIDIA, "NVIDIA H100 NVL", NULL, 95830 * MIB, "h100-nvl" },
        { GPUPLAN_VENDOR_NVIDIA, "NVIDIA H200", NULL, 143771 * MIB, "h200-sxm" },
        { GPUPLAN_VENDOR_NVIDIA, "NVIDIA H200 NVL", NULL, 143771 * MIB, "h200-nvl" },
        { GPUPLAN_VENDOR_NVIDIA, "NVIDIA A100-SXM4-80GB", NULL, 81920 * MIB, "a100-80gb-sxm" },
        { GPUPLAN_VENDOR_NVIDIA, "NVIDIA A100-SXM4-40GB", NULL, 40960 * MIB, "a100-40gb-sxm" },
        { GPUPLAN_VENDOR_NVIDIA, "NVIDIA A100 80GB PCIe", NULL, 81920 * MIB, "a100-80gb-pcie" },
        { GPUPLAN_VENDOR_NVIDIA, "NVIDIA A10", NULL, 23028 * MIB, "a10" },
        { GPUPLAN_VENDOR_NVIDIA, "NVIDIA A10G", NULL, 23028 * MIB, "a10g" },
        { GPUPLAN_VENDOR_NVIDIA, "NVIDIA L40S", NULL, 46068 * MIB, "l40s" },
        { GPUPLAN_VENDOR_NVIDIA, "NVIDIA L4", NULL, 23034 * MIB, "l4" },
        { GPUPLAN_VENDOR_NVIDIA, "NVIDIA L40", NULL, 46068 * MIB, NULL }, /* not an L4 or L40S */
        { GPUPLAN_VENDOR_NVIDIA, "NVIDIA GeForce RTX 4090", NULL, 24564 * MIB, "rtx-4090" },
        { GPUPLAN_VENDOR_NVIDIA, "NVIDIA B200", NULL, 183359 * MIB, "b200" },
        { GPUPLAN_VENDOR_NVIDIA, "NVIDIA GB200", NULL, 189471 * MIB, "gb200" },
        /* name says H100 but 40 GiB: no known part, so no guess */
        { GPUPLAN_VENDOR_NVIDIA, "NVIDIA H100 80GB HBM3", NULL, 40960 * MIB, NULL },
        { GPUPLAN_VENDOR_AMD, "H100", NULL, 81559 * MIB, NULL }, /* vendor must agree */
        { GPUPLAN_VENDOR_AMD, "AMD Instinct MI300X", "gfx942", 196592 * MIB, "mi300x" },
        { GPUPLAN_VENDOR_AMD, "AMD GPU [1002:74a5]", "gfx942", 262144 * MIB, "mi325x" },
        { GPUPLAN_VENDOR_AMD, "AMD GPU", "gfx942", 0, NULL }, /* AMD rules need memory */
        { GPUPLAN_VENDOR_AMD, "AMD GPU", "gfx90a", 65520 * MIB, "mi250x" },
        { GPUPLAN_VENDOR_NVIDIA, "", NULL, 0, NULL },
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const char *got = gpuplan_detect_match_name(rows[i].vendor, rows[i].name, rows[i].gfx,
                                                    rows[i].memory_bytes);
        if (rows[i].want == NULL) {
            if (got)
                fail_msg("row %zu '%s': want no match, got '%s'", i, rows[i].name, got);
        } else {
            if (!got || strcmp(got, rows[i].want) != 0)
                fail_msg("row %zu '%s': want '%s', got '%s'", i, rows[i].name, rows[i].want,
                         got ? got : "(none)");
        }
    }
}

static void test_nvml_two_devices(void **state)
{
    (void)state;
    struct gpuplan_detect_result *r = detect("libnvidia-ml.so.1", "two");
    assert_int_equal(r->nvml.status, GPUPLAN_NVML_OK);
    assert_string_equal(r->nvml.driver_version, "550.54.15");
    assert_string_equal(r->nvml.cuda_driver_version, "12.4");
    assert_int_equal(r->nvml.n_missing_symbols, 0);
    assert_int_equal(r->nvml.n_skipped, 0);
    assert_int_equal(r->n_gpus, 2);

    const struct gpuplan_detected_gpu *sxm = &r->gpus[0];
    assert_string_equal(sxm->name, "NVIDIA H100 80GB HBM3");
    assert_int_equal(sxm->vendor, GPUPLAN_VENDOR_NVIDIA);
    assert_true(sxm->has_memory);
    assert_int_equal(sxm->memory_total_bytes, 81559 * MIB);
    /* v2: free = total - reserved (512 MiB) - used (1024 MiB) */
    assert_int_equal(sxm->memory_free_bytes, (81559 - 512 - 1024) * MIB);
    assert_true(sxm->has_memory_reserved);
    assert_int_equal(sxm->memory_reserved_bytes, 512 * MIB);
    assert_string_equal(sxm->compute_capability, "9.0");
    assert_true(sxm->has_nvlink && sxm->nvlink_supported);
    assert_int_equal(sxm->nvlink_active_links, 18);
    assert_int_equal(sxm->pcie_gen, 5);
    assert_int_equal(sxm->pcie_width, 16);
    assert_true(sxm->has_power_limit);
    assert_true(sxm->power_limit_w == 700.0);
    assert_string_equal(sxm->catalog_id, "h100-sxm");
    assert_true(strncmp(sxm->uuid, "GPU-", 4) == 0);

    const struct gpuplan_detected_gpu *pcie = &r->gpus[1];
    assert_string_equal(pcie->name, "NVIDIA H100 PCIe");
    assert_true(pcie->has_nvlink);
    assert_false(pcie->nvlink_supported); /* NOT_SUPPORTED on link 0 */
    assert_int_equal(pcie->nvlink_active_links, 0);
    assert_true(pcie->power_limit_w == 350.0);
    assert_string_equal(pcie->catalog_id, "h100-pcie");
    free(r);
    assert_int_equal(stub_init_count("libnvidia-ml.so.1"), 0); /* nvmlShutdown was called */
}

static void test_nvml_without_v2_symbols(void **state)
{
    (void)state;
    struct gpuplan_detect_result *r = detect("libnvidia-ml-nov2.so.1", "two");
    assert_int_equal(r->nvml.status, GPUPLAN_NVML_OK);
    assert_int_equal(r->n_gpus, 2);
    assert_true(has_missing(&r->nvml, "nvmlInit_v2"));
    assert_true(has_missing(&r->nvml, "nvmlDeviceGetCount_v2"));
    assert_true(has_missing(&r->nvml, "nvmlDeviceGetHandleByIndex_v2"));
    assert_true(has_missing(&r->nvml, "nvmlDeviceGetMemoryInfo_v2"));
    assert_false(has_missing(&r->nvml, "nvmlDeviceGetMemoryInfo"));
    /* v1 memory: used includes reserved, and reserved itself is unknown */
    assert_true(r->gpus[0].has_memory);
    assert_int_equal(r->gpus[0].memory_total_bytes, 81559 * MIB);
    assert_int_equal(r->gpus[0].memory_free_bytes, (81559 - 512 - 1024) * MIB);
    assert_false(r->gpus[0].has_memory_reserved);
    assert_string_equal(r->nvml.cuda_driver_version, "");
    assert_string_equal(r->gpus[0].uuid, "");
    assert_string_equal(r->gpus[0].catalog_id, "h100-sxm");
    free(r);
}

static void test_nvml_missing_required_symbol(void **state)
{
    (void)state;
    struct gpuplan_detect_result *r = detect("libnvidia-ml-noreq.so.1", "two");
    assert_int_equal(r->nvml.status, GPUPLAN_NVML_MISSING_SYMBOL);
    assert_int_equal(r->n_gpus, 0);
    assert_non_null(strstr(r->nvml.message, "nvmlDeviceGetHandleByIndex"));
    free(r);
    assert_int_equal(stub_init_count("libnvidia-ml-noreq.so.1"), 0); /* never initialised */
}

static void test_nvml_init_and_count_failures(void **state)
{
    (void)state;
    struct gpuplan_detect_result *r = detect("libnvidia-ml.so.1", "init_fail");
    assert_int_equal(r->nvml.status, GPUPLAN_NVML_INIT_FAILED);
    assert_int_equal(r->nvml.nvml_return, 9);
    assert_string_equal(r->nvml.message, "nvmlInit failed: Driver Not Loaded");
    assert_int_equal(r->n_gpus, 0);
    free(r);

    r = detect("libnvidia-ml.so.1", "count_fail");
    assert_int_equal(r->nvml.status, GPUPLAN_NVML_COUNT_FAILED);
    assert_int_equal(r->nvml.nvml_return, 999);
    assert_int_equal(r->n_gpus, 0);
    free(r);
    assert_int_equal(stub_init_count("libnvidia-ml.so.1"), 0);
}

static void test_nvml_error_codes_leave_fields_unknown(void **state)
{
    (void)state;
    struct gpuplan_detect_result *r = detect("libnvidia-ml.so.1", "errors");
    assert_int_equal(r->nvml.status, GPUPLAN_NVML_OK);
    assert_int_equal(r->nvml.n_devices, 2);
    assert_int_equal(r->nvml.n_skipped, 1); /* device 0: NO_PERMISSION */
    assert_int_equal(r->n_gpus, 1);
    const struct gpuplan_detected_gpu *g = &r->gpus[0];
    assert_int_equal(g->index, 1);
    /* 96 bytes without NUL and non-ASCII: bounded and made printable */
    assert_true(strlen(g->name) <= 96);
    for (const char *p = g->name; *p; p++)
        assert_true(*p >= 0x20 && *p < 0x7f);
    assert_true(strncmp(g->name, "Bad ", 4) == 0);
    /* memory v2 rejected the struct version: the v1 fallback answered */
    assert_true(g->has_memory);
    assert_false(g->has_memory_reserved);
    assert_string_equal(g->compute_capability, "");
    assert_false(g->has_nvlink); /* GPU_IS_LOST: unknown, not "0 links" */
    assert_int_equal(g->pcie_gen, 0);
    assert_int_equal(g->pcie_width, 0);
    assert_false(g->has_power_limit);
    assert_string_equal(g->catalog_id, "");
    free(r);
}

static void test_nvml_more_devices_than_listed(void **state)
{
    (void)state;
    struct gpuplan_detect_result *r = detect("libnvidia-ml.so.1", "many");
    assert_int_equal(r->nvml.n_devices, 1000);
    assert_int_equal(r->n_gpus, GPUPLAN_DETECT_MAX_GPUS);
    assert_int_equal(r->nvml.n_skipped, 1000 - GPUPLAN_DETECT_MAX_GPUS);
    assert_string_equal(r->gpus[63].catalog_id, "h200-sxm");
    free(r);
}

static void test_nvml_not_loadable(void **state)
{
    (void)state;
    struct gpuplan_detect_result *r = calloc(1, sizeof *r);
    assert_non_null(r);
    struct gpuplan_detect_options opts = { "/nonexistent/libnvidia-ml.so.1", NULL };
    assert_int_equal(gpuplan_detect_run(&opts, r, NULL), GPUPLAN_OK);
    assert_int_equal(r->nvml.status, GPUPLAN_NVML_NOT_FOUND);
    assert_int_equal(r->n_gpus, 0);

    char dir[] = "/tmp/gpuplan-detect-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/libnvidia-ml.so.1", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("not an ELF file\n", f);
    fclose(f);
    opts.nvml_path = path;
    assert_int_equal(gpuplan_detect_run(&opts, r, NULL), GPUPLAN_OK);
    assert_int_equal(r->nvml.status, GPUPLAN_NVML_LOAD_FAILED);
    unlink(path);
    rmdir(dir);

    struct gpuplan_error err;
    gpuplan_error_init(&err);
    assert_int_equal(gpuplan_detect_run(NULL, r, &err), GPUPLAN_ERR_USAGE);
    free(r);
}

/* ---- AMD sysfs ---- */

static void put_file(const char *root, const char *rel, const char *text)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    for (char *p = path + strlen(root) + 1; *p; p++) {
        if (*p == '/') {
            *p = '\0';
            mkdir(path, 0755);
            *p = '/';
        }
    }
    if (!text) {
        mkdir(path, 0755);
        return;
    }
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void test_amd_sysfs(void **state)
{
    (void)state;
    char root[] = "/tmp/gpuplan-sysfs-XXXXXX";
    assert_non_null(mkdtemp(root));
    /* card0: an MI300X with every file; 192 GiB reported, 1 GiB used */
    put_file(root, "class/drm/card0/device/vendor", "0x1002\n");
    put_file(root, "class/drm/card0/device/device", "0x74a1\n");
    put_file(root, "class/drm/card0/device/product_name", "AMD Instinct MI300X\n");
    put_file(root, "class/drm/card0/device/mem_info_vram_total", "206158430208\n");
    put_file(root, "class/drm/card0/device/mem_info_vram_used", "1073741824\n");
    put_file(root, "class/drm/card0/device/max_link_speed", "32.0 GT/s PCIe\n");
    put_file(root, "class/drm/card0/device/max_link_width", "16\n");
    put_file(root, "class/drm/card0/device/hwmon/hwmon3/power1_cap", "750000000\n");
    put_file(root, "class/drm/card0/device/drm/renderD128", NULL);
    put_file(root, "class/drm/card0-DP-1/status", "disconnected\n"); /* a connector */
    /* card1: not AMD */
    put_file(root, "class/drm/card1/device/vendor", "0x10de\n");
    /* card2: AMD with garbage memory files and no render node */
    put_file(root, "class/drm/card2/device/vendor", "0x1002\n");
    put_file(root, "class/drm/card2/device/device", "0x740c\n");
    put_file(root, "class/drm/card2/device/mem_info_vram_total", "-5\n");
    put_file(root, "class/drm/card2/device/mem_info_vram_used", "lots\n");
    put_file(root, "class/drm/card2/device/max_link_speed", "Unknown\n");
    /* KFD: node 0 is the CPU, node 1 the MI300X */
    put_file(root, "class/kfd/kfd/topology/nodes/0/properties",
             "cpu_cores_count 96\nsimd_count 0\ngfx_target_version 0\ndrm_render_minor 0\n");
    put_file(root, "class/kfd/kfd/topology/nodes/1/properties",
             "cpu_cores_count 0\nsimd_count 1216\ngfx_target_version 90402\nvendor_id 4098\n"
             "drm_render_minor 128\n");

    struct gpuplan_detect_options opts = { NULL, root };
    struct gpuplan_detect_result *r = calloc(1, sizeof *r);
    assert_non_null(r);
    assert_int_equal(gpuplan_detect_run(&opts, r, NULL), GPUPLAN_OK);
    assert_true(r->amd.scanned);
    assert_true(r->amd.has_kfd);
    assert_int_equal(r->amd.n_devices, 2);
    assert_int_equal(r->n_gpus, 2);

    const struct gpuplan_detected_gpu *mi = &r->gpus[0];
    assert_int_equal(mi->vendor, GPUPLAN_VENDOR_AMD);
    assert_int_equal(mi->index, 0);
    assert_string_equal(mi->name, "AMD Instinct MI300X");
    assert_int_equal(mi->pci_device_id, 0x74a1);
    assert_int_equal(mi->memory_total_bytes, 206158430208ULL);
    assert_int_equal(mi->memory_free_bytes, 206158430208ULL - 1073741824ULL);
    assert_string_equal(mi->gfx_target, "gfx942");
    assert_int_equal(mi->pcie_gen, 5);
    assert_int_equal(mi->pcie_width, 16);
    assert_true(mi->has_power_limit && mi->power_limit_w == 750.0);
    assert_string_equal(mi->catalog_id, "mi300x");

    const struct gpuplan_detected_gpu *bad = &r->gpus[1];
    assert_int_equal(bad->index, 2);
    assert_string_equal(bad->name, "AMD GPU [1002:740c]");
    assert_false(bad->has_memory);
    assert_string_equal(bad->gfx_target, "");
    assert_int_equal(bad->pcie_gen, 0);
    assert_string_equal(bad->catalog_id, "");
    free(r);
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    assert_int_equal(system(cmd), 0);
}

/* ---- rendering and catalog ---- */

static void test_render(void **state)
{
    (void)state;
    struct gpuplan_detect_result *r = detect("libnvidia-ml.so.1", "two");
    struct gpuplan_buf out;
    gpuplan_buf_init(&out, GPUPLAN_BUF_DEFAULT_MAX_BYTES);
    assert_int_equal(gpuplan_render_detect(r, GPUPLAN_FORMAT_JSON, &out, NULL), GPUPLAN_OK);
    json_error_t jerr;
    json_t *root = json_loads(gpuplan_buf_str(&out), 0, &jerr);
    assert_non_null(root);
    assert_int_equal(json_integer_value(json_object_get(root, "schema_version")), 1);
    const json_t *gpus = json_object_get(root, "gpus");
    assert_int_equal(json_array_size(gpus), 2);
    const json_t *g0 = json_array_get(gpus, 0), *g1 = json_array_get(gpus, 1);
    assert_string_equal(json_string_value(json_object_get(g0, "catalog_id")), "h100-sxm");
    assert_string_equal(json_string_value(json_object_get(g0, "vendor")), "nvidia");
    assert_int_equal(json_integer_value(json_object_get(g0, "memory_total_bytes")), 81559 * MIB);
    assert_int_equal(json_integer_value(json_object_get(g0, "nvlink_active_links")), 18);
    assert_true(json_is_false(json_object_get(g1, "nvlink_supported")));
    assert_true(json_is_null(json_object_get(g0, "gfx_target")));
    const json_t *nvml = json_object_get(json_object_get(root, "driver"), "nvml");
    assert_string_equal(json_string_value(json_object_get(nvml, "driver_version")), "550.54.15");
    json_decref(root);
    free(r);

    /* unknown fields are null, and the mangled name is still valid JSON */
    r = detect("libnvidia-ml.so.1", "errors");
    gpuplan_buf_reset(&out);
    assert_int_equal(gpuplan_render_detect(r, GPUPLAN_FORMAT_JSON, &out, NULL), GPUPLAN_OK);
    root = json_loads(gpuplan_buf_str(&out), 0, &jerr);
    assert_non_null(root);
    const json_t *g = json_array_get(json_object_get(root, "gpus"), 0);
    assert_true(json_is_null(json_object_get(g, "nvlink_active_links")));
    assert_true(json_is_null(json_object_get(g, "power_limit_w")));
    assert_true(json_is_null(json_object_get(g, "catalog_id")));
    json_decref(root);
    free(r);

    /* no GPUs: the one-line answer */
    r = calloc(1, sizeof *r);
    assert_non_null(r);
    struct gpuplan_detect_options opts = { "/nonexistent/libnvidia-ml.so.1", "/nonexistent" };
    assert_int_equal(gpuplan_detect_run(&opts, r, NULL), GPUPLAN_OK);
    gpuplan_buf_reset(&out);
    assert_int_equal(gpuplan_render_detect(r, GPUPLAN_FORMAT_TEXT, &out, NULL), GPUPLAN_OK);
    assert_string_equal(gpuplan_buf_str(&out), "no GPUs found (/nonexistent/libnvidia-ml.so.1 not "
                                               "found; no amdgpu devices)\n");
    free(r);
    gpuplan_buf_release(&out);
}

static void test_match_catalog(void **state)
{
    (void)state;
    struct gpuplan_catalog *catalog = NULL;
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    if (gpuplan_catalog_load(&catalog, NULL, &err) != GPUPLAN_OK)
        fail_msg("embedded catalog: %s", err.message);
    struct gpuplan_detect_result *r = detect("libnvidia-ml.so.1", "two");
    /* a table id the catalog has stays */
    gpuplan_detect_match_catalog(r, catalog);
    assert_string_equal(r->gpus[0].catalog_id, "h100-sxm");
    assert_non_null(gpuplan_catalog_find_gpu(catalog, r->gpus[1].catalog_id));

    /* unknown name: the only catalog GPU with cc 7.5 near 15 GiB */
    struct gpuplan_detected_gpu *g = &r->gpus[0];
    snprintf(g->name, sizeof g->name, "Tesla Mystery");
    g->catalog_id[0] = '\0';
    snprintf(g->compute_capability, sizeof g->compute_capability, "7.5");
    g->memory_total_bytes = 15360 * MIB;
    g->has_nvlink = true;
    g->nvlink_supported = false;
    gpuplan_detect_match_catalog(r, catalog);
    assert_string_equal(g->catalog_id, "t4");

    /* a table id the catalog lacks, and an SXM record ruled out by "no NVLink": cleared */
    snprintf(g->name, sizeof g->name, "NVIDIA A100-PCIE-40GB");
    snprintf(g->catalog_id, sizeof g->catalog_id, "a100-40gb-pcie");
    snprintf(g->compute_capability, sizeof g->compute_capability, "8.0");
    g->memory_total_bytes = 40960 * MIB;
    gpuplan_detect_match_catalog(r, catalog);
    assert_string_equal(g->catalog_id, "");

    /* ambiguous (L40S and RTX 6000 Ada are both cc 8.9, 48 GB, PCIe): no guess */
    snprintf(g->name, sizeof g->name, "NVIDIA Unknown Ada");
    snprintf(g->compute_capability, sizeof g->compute_capability, "8.9");
    g->memory_total_bytes = 46068 * MIB;
    gpuplan_detect_match_catalog(r, catalog);
    assert_string_equal(g->catalog_id, "");
    free(r);
    gpuplan_catalog_free(catalog);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_match_name_table),
        cmocka_unit_test(test_nvml_two_devices),
        cmocka_unit_test(test_nvml_without_v2_symbols),
        cmocka_unit_test(test_nvml_missing_required_symbol),
        cmocka_unit_test(test_nvml_init_and_count_failures),
        cmocka_unit_test(test_nvml_error_codes_leave_fields_unknown),
        cmocka_unit_test(test_nvml_more_devices_than_listed),
        cmocka_unit_test(test_nvml_not_loadable),
        cmocka_unit_test(test_amd_sysfs),
        cmocka_unit_test(test_render),
        cmocka_unit_test(test_match_catalog),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
