/*
 * nvml_stub.c - a stand-in libnvidia-ml.so.1 for the detect tests.
 *
 * Built by the Makefile with -shared -fPIC into $(BUILD)/stubs/:
 *   libnvidia-ml.so.1        every symbol gpuplan uses, _v2 variants included
 *   libnvidia-ml-nov2.so.1   -DSTUB_NO_V2: only the unversioned names (old drivers)
 *   libnvidia-ml-noreq.so.1  -DSTUB_NO_HANDLE: no nvmlDeviceGetHandleByIndex at all
 * The device table is chosen at nvmlInit time by the environment variable
 * NVML_STUB_SCENARIO (test code may read the environment; the library may not):
 *   two (default)  H100 SXM (18 NVLinks) + H100 PCIe (NVLink NOT_SUPPORTED)
 *   h200x8         eight "NVIDIA H200", 141 GB, 18 NVLinks each
 *   mixed          A100-SXM4-80GB (12 links) + GeForce RTX 4090
 *   init_fail      nvmlInit returns DRIVER_NOT_LOADED (9)
 *   count_fail     nvmlDeviceGetCount returns UNKNOWN (999)
 *   errors         device 0 NO_PERMISSION; device 1 answers every query with an
 *                  error, a 96-byte name with no NUL and non-ASCII bytes, and a
 *                  v2 memory query that rejects the struct version
 *   many           1000 devices (more than gpuplan lists)
 * Return codes and layouts follow nvml.h (go-nvml gen/nvml/nvml.h). Every
 * call checks that nvmlInit came first (UNINITIALIZED otherwise), so the
 * tests also prove the call order; nvmlStubInitCount() exposes the balance.
 */
#include <stdlib.h>
#include <string.h>

#define NVML_SUCCESS                         0
#define NVML_ERROR_UNINITIALIZED             1
#define NVML_ERROR_INVALID_ARGUMENT          2
#define NVML_ERROR_NOT_SUPPORTED             3
#define NVML_ERROR_NO_PERMISSION             4
#define NVML_ERROR_INSUFFICIENT_SIZE         7
#define NVML_ERROR_DRIVER_NOT_LOADED         9
#define NVML_ERROR_GPU_IS_LOST               15
#define NVML_ERROR_ARGUMENT_VERSION_MISMATCH 25
#define NVML_ERROR_UNKNOWN                   999

#define MIB       (1024ULL * 1024ULL)
#define MAX_LINKS 18 /* links a Hopper part has (NVLink 4, 18 links) */

#define EXPORT __attribute__((visibility("default")))

struct stub_device {
    const char *name;
    unsigned long long total_bytes, reserved_bytes, used_bytes;
    int cc_major, cc_minor;
    int n_links; /* -1: NVLink NOT_SUPPORTED */
    int n_active_links;
    unsigned int pcie_gen, pcie_width;
    unsigned int power_mw;
    int handle_error; /* returned by GetHandleByIndex, 0 = fine */
    int query_error;  /* returned by every per-device query, 0 = fine */
};

struct stub_memory_v1 {
    unsigned long long total, free, used;
};

struct stub_memory_v2 {
    unsigned int version;
    unsigned long long total, reserved, free, used;
};

/* 81,559 MiB: what an H100 80GB HBM3 reports; 143,771 MiB: an H200. */
static const struct stub_device two[] = {
    { "NVIDIA H100 80GB HBM3", 81559 * MIB, 512 * MIB, 1024 * MIB, 9, 0, 18, 18, 5, 16, 700000, 0,
      0 },
    { "NVIDIA H100 PCIe", 81559 * MIB, 512 * MIB, 0, 9, 0, -1, 0, 5, 16, 350000, 0, 0 },
};
static const struct stub_device h200[] = {
    { "NVIDIA H200", 143771 * MIB, 600 * MIB, 0, 9, 0, 18, 18, 5, 16, 700000, 0, 0 },
};
static const struct stub_device mixed[] = {
    { "NVIDIA A100-SXM4-80GB", 81920 * MIB, 0, 4096 * MIB, 8, 0, 12, 12, 4, 16, 400000, 0, 0 },
    { "NVIDIA GeForce RTX 4090", 24564 * MIB, 0, 300 * MIB, 8, 9, -1, 0, 4, 16, 450000, 0, 0 },
};
static const struct stub_device errors[] = {
    { "NVIDIA H100 80GB HBM3", 81559 * MIB, 0, 0, 9, 0, 18, 18, 5, 16, 700000,
      NVML_ERROR_NO_PERMISSION, 0 },
    { NULL, 81559 * MIB, 0, 0, 9, 0, 18, 18, 5, 16, 700000, 0, NVML_ERROR_GPU_IS_LOST },
};

struct scenario {
    const char *name;
    const struct stub_device *devices;
    unsigned int n_table;   /* entries in devices[] */
    unsigned int n_devices; /* reported count; index i uses devices[i % n_table] */
    int init_error;
    int count_error;
};

static const struct scenario scenarios[] = {
    { "two", two, 2, 2, 0, 0 },
    { "h200x8", h200, 1, 8, 0, 0 },
    { "mixed", mixed, 2, 2, 0, 0 },
    { "init_fail", two, 2, 2, NVML_ERROR_DRIVER_NOT_LOADED, 0 },
    { "count_fail", two, 2, 2, 0, NVML_ERROR_UNKNOWN },
    { "errors", errors, 2, 2, 0, 0 },
    { "many", h200, 1, 1000, 0, 0 },
};

static int init_count;
static const struct scenario *active;

static const struct scenario *pick_scenario(void)
{
    const char *name = getenv("NVML_STUB_SCENARIO");
    for (size_t i = 0; name && i < sizeof scenarios / sizeof scenarios[0]; i++) {
        if (strcmp(scenarios[i].name, name) == 0)
            return &scenarios[i];
    }
    return &scenarios[0];
}

/* A handle is a pointer into the device table, as NVML's are opaque pointers. */
static const struct stub_device *device_of(const void *handle)
{
    return (const struct stub_device *)handle;
}

EXPORT int nvmlStubInitCount(void);
int nvmlStubInitCount(void)
{
    return init_count;
}

static int stub_init(void)
{
    const struct scenario *s = pick_scenario();
    if (s->init_error)
        return s->init_error;
    active = s;
    init_count++;
    return NVML_SUCCESS;
}

EXPORT int nvmlShutdown(void);
int nvmlShutdown(void)
{
    if (init_count == 0)
        return NVML_ERROR_UNINITIALIZED;
    init_count--;
    return NVML_SUCCESS;
}

EXPORT const char *nvmlErrorString(int result);
const char *nvmlErrorString(int result)
{
    switch (result) {
    case NVML_SUCCESS:
        return "Success";
    case NVML_ERROR_UNINITIALIZED:
        return "Uninitialized";
    case NVML_ERROR_NOT_SUPPORTED:
        return "Not Supported";
    case NVML_ERROR_NO_PERMISSION:
        return "Insufficient Permissions";
    case NVML_ERROR_DRIVER_NOT_LOADED:
        return "Driver Not Loaded";
    case NVML_ERROR_GPU_IS_LOST:
        return "GPU is lost";
    default:
        return "Unknown Error";
    }
}

EXPORT int nvmlSystemGetDriverVersion(char *version, unsigned int length);
int nvmlSystemGetDriverVersion(char *version, unsigned int length)
{
    static const char text[] = "550.54.15";
    if (init_count == 0)
        return NVML_ERROR_UNINITIALIZED;
    if (length < sizeof text)
        return NVML_ERROR_INSUFFICIENT_SIZE;
    memcpy(version, text, sizeof text);
    return NVML_SUCCESS;
}

static int get_count(unsigned int *count)
{
    if (init_count == 0)
        return NVML_ERROR_UNINITIALIZED;
    if (active->count_error)
        return active->count_error;
    *count = active->n_devices;
    return NVML_SUCCESS;
}

__attribute__((unused)) static int get_handle(unsigned int index, void **device)
{
    if (init_count == 0)
        return NVML_ERROR_UNINITIALIZED;
    if (index >= active->n_devices)
        return NVML_ERROR_INVALID_ARGUMENT;
    const struct stub_device *d = &active->devices[index % active->n_table];
    if (d->handle_error)
        return d->handle_error;
    *device = (void *)(size_t)d; /* NVML handles are opaque, non-const pointers */
    return NVML_SUCCESS;
}

/* The common preamble of per-device queries. */
static int check_device(const void *handle)
{
    if (init_count == 0)
        return NVML_ERROR_UNINITIALIZED;
    if (!handle)
        return NVML_ERROR_INVALID_ARGUMENT;
    return device_of(handle)->query_error;
}

EXPORT int nvmlDeviceGetName(void *handle, char *name, unsigned int length);
int nvmlDeviceGetName(void *handle, char *name, unsigned int length)
{
    if (init_count == 0 || !handle)
        return NVML_ERROR_UNINITIALIZED;
    const struct stub_device *d = device_of(handle);
    if (!d->name) {
        /* Misbehaving driver: fill the whole buffer, no NUL, bytes that are not ASCII. */
        memset(name, 0xC3, length);
        if (length > 4)
            memcpy(name, "Bad ", 4);
        return NVML_SUCCESS;
    }
    const size_t n = strlen(d->name) + 1;
    if (length < n)
        return NVML_ERROR_INSUFFICIENT_SIZE;
    memcpy(name, d->name, n);
    return NVML_SUCCESS;
}

EXPORT int nvmlDeviceGetMemoryInfo(void *handle, struct stub_memory_v1 *memory);
int nvmlDeviceGetMemoryInfo(void *handle, struct stub_memory_v1 *memory)
{
    if (init_count == 0 || !handle)
        return NVML_ERROR_UNINITIALIZED;
    const struct stub_device *d = device_of(handle);
    /* v1 "used" includes the driver-reserved memory (nvml.h). */
    memory->total = d->total_bytes;
    memory->used = d->used_bytes + d->reserved_bytes;
    memory->free = d->total_bytes - memory->used;
    return NVML_SUCCESS;
}

EXPORT int nvmlDeviceGetCudaComputeCapability(void *handle, int *major, int *minor);
int nvmlDeviceGetCudaComputeCapability(void *handle, int *major, int *minor)
{
    const int rc = check_device(handle);
    if (rc)
        return rc;
    *major = device_of(handle)->cc_major;
    *minor = device_of(handle)->cc_minor;
    return NVML_SUCCESS;
}

EXPORT int nvmlDeviceGetNvLinkState(void *handle, unsigned int link, int *is_active);
int nvmlDeviceGetNvLinkState(void *handle, unsigned int link, int *is_active)
{
    const int rc = check_device(handle);
    if (rc)
        return rc;
    const struct stub_device *d = device_of(handle);
    if (d->n_links < 0)
        return NVML_ERROR_NOT_SUPPORTED;
    if (link >= MAX_LINKS)
        return NVML_ERROR_INVALID_ARGUMENT;
    *is_active = (int)link < d->n_active_links ? 1 : 0;
    return NVML_SUCCESS;
}

EXPORT int nvmlDeviceGetMaxPcieLinkGeneration(void *handle, unsigned int *gen);
int nvmlDeviceGetMaxPcieLinkGeneration(void *handle, unsigned int *gen)
{
    const int rc = check_device(handle);
    if (rc)
        return rc;
    *gen = device_of(handle)->pcie_gen;
    return NVML_SUCCESS;
}

EXPORT int nvmlDeviceGetMaxPcieLinkWidth(void *handle, unsigned int *width);
int nvmlDeviceGetMaxPcieLinkWidth(void *handle, unsigned int *width)
{
    const int rc = check_device(handle);
    if (rc)
        return rc;
    *width = device_of(handle)->pcie_width;
    return NVML_SUCCESS;
}

EXPORT int nvmlDeviceGetEnforcedPowerLimit(void *handle, unsigned int *milliwatts);
int nvmlDeviceGetEnforcedPowerLimit(void *handle, unsigned int *milliwatts)
{
    const int rc = check_device(handle);
    if (rc)
        return rc;
    *milliwatts = device_of(handle)->power_mw;
    return NVML_SUCCESS;
}

/* ---- unversioned entry points (old drivers) ---- */

EXPORT int nvmlInit(void);
int nvmlInit(void)
{
    return stub_init();
}

EXPORT int nvmlDeviceGetCount(unsigned int *count);
int nvmlDeviceGetCount(unsigned int *count)
{
    return get_count(count);
}

#ifndef STUB_NO_HANDLE
EXPORT int nvmlDeviceGetHandleByIndex(unsigned int index, void **device);
int nvmlDeviceGetHandleByIndex(unsigned int index, void **device)
{
    return get_handle(index, device);
}
#endif

/* ---- versioned entry points ---- */

#ifndef STUB_NO_V2
EXPORT int nvmlInit_v2(void);
int nvmlInit_v2(void)
{
    return stub_init();
}

EXPORT int nvmlDeviceGetCount_v2(unsigned int *count);
int nvmlDeviceGetCount_v2(unsigned int *count)
{
    return get_count(count);
}

#    ifndef STUB_NO_HANDLE
EXPORT int nvmlDeviceGetHandleByIndex_v2(unsigned int index, void **device);
int nvmlDeviceGetHandleByIndex_v2(unsigned int index, void **device)
{
    return get_handle(index, device);
}
#    endif

EXPORT int nvmlSystemGetCudaDriverVersion_v2(int *version);
int nvmlSystemGetCudaDriverVersion_v2(int *version)
{
    if (init_count == 0)
        return NVML_ERROR_UNINITIALIZED;
    *version = 12040; /* CUDA 12.4 */
    return NVML_SUCCESS;
}

EXPORT int nvmlDeviceGetUUID(void *handle, char *uuid, unsigned int length);
int nvmlDeviceGetUUID(void *handle, char *uuid, unsigned int length)
{
    static const char text[] = "GPU-00000000-1111-2222-3333-";
    const int rc = check_device(handle);
    if (rc)
        return rc;
    if (length < sizeof text + 12)
        return NVML_ERROR_INSUFFICIENT_SIZE;
    /* Distinct per table entry: the last 12 hex digits from the entry's name length. */
    memcpy(uuid, text, sizeof text - 1);
    const size_t tag = strlen(device_of(handle)->name);
    for (int i = 0; i < 12; i++)
        uuid[sizeof text - 1 + (size_t)i] = "0123456789abcdef"[(tag >> (4 * (11 - i))) & 0xF];
    uuid[sizeof text - 1 + 12] = '\0';
    return NVML_SUCCESS;
}

EXPORT int nvmlDeviceGetMemoryInfo_v2(void *handle, struct stub_memory_v2 *memory);
int nvmlDeviceGetMemoryInfo_v2(void *handle, struct stub_memory_v2 *memory)
{
    const int rc = check_device(handle);
    if (rc)
        return rc == NVML_ERROR_GPU_IS_LOST ? NVML_ERROR_ARGUMENT_VERSION_MISMATCH : rc;
    if (memory->version != (unsigned int)(sizeof(struct stub_memory_v2) | (2U << 24U)))
        return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    const struct stub_device *d = device_of(handle);
    memory->total = d->total_bytes;
    memory->reserved = d->reserved_bytes;
    memory->used = d->used_bytes;
    memory->free = d->total_bytes - d->reserved_bytes - d->used_bytes;
    return NVML_SUCCESS;
}
#endif
