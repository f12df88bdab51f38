/*
 * plan_server.c - what one server of a plan must hold (CPU cores, host RAM,
 * NVMe, power) and its whole-server spec, with the warnings the spec
 * raises (a platform that holds less, a rack that needs liquid cooling).
 *
 * Assumptions (docs/planner.md):
 * - CPU: 8 cores per GPU for data loading and the launcher (PyTorch
 *   DataLoader workers; NVIDIA's DGX H100 ships 112 cores for 8 GPUs = 14),
 *   8 more per GPU when the optimizer step runs on the CPU (DeepSpeed
 *   CPUAdam is multi-threaded and bound by cores x memory bandwidth), never
 *   below 16 (seed S11: 16+ cores).
 * - RAM: the memory model's host need + one 16-bit copy of the weights for
 *   loading the checkpoint (rank 0 loads, fsdp_cpu_ram_efficient_loading)
 *   + 10 % for the OS and page cache; floor 256 GB, 512 GB for 30B+ params
 *   when fine-tuning (seed S11); rounded up to a sold DIMM total.
 * - NVMe: 16-bit weights + the dataset (8 bytes per token: raw text and
 *   token ids) + two checkpoints (full fine-tune: 16-bit weights + fp32
 *   master + two fp32 moments = 14 B/param; adapters alike for LoRA) +
 *   offloaded state, + 20 %, in 3.84 TB drives at 7 GB/s (PCIe Gen4) or
 *   14 GB/s (Gen5) sequential read each.
 * - Power: GPUs at TDP + the platform's base power (1 kW without a
 *   platform record); a rack takes 42 U.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gpuplan/units.h"
#include "plan/plan_internal.h"

#define CORES_PER_GPU_DATA        8u
#define CORES_PER_GPU_CPU_ADAM    8u
#define CORES_MIN_S11             16u
#define CORES_SOLD_IN_STEPS_OF    8u /* CPUs sell in multiples of 8 cores */
#define RAM_MIN_S11_GIB           256u
#define RAM_MIN_S11_30B_GIB       512u
#define RAM_30B_PARAMS            30e9
#define RAM_SLACK                 0.10
#define WEIGHT_BYTES_16BIT        2.0 /* one bf16/fp16 copy of a parameter (loading, NVMe) */
#define DATASET_BYTES_PER_TOKEN   8.0
#define CKPT_FULL_BYTES_PER_PARAM 14.0
#define CKPTS_KEPT                2.0
#define NVME_SLACK                0.20
#define NVME_DRIVE_BYTES          3840000000000ULL
#define NVME_LARGEST_DRIVE_BYTES  30720000000000ULL /* 30.72 TB U.2/E3.S: Micron 9400, PM1733 */
#define NVME_GEN4_GB_PER_S        7.0
#define NVME_GEN5_GB_PER_S        14.0
#define RACK_UNITS                42u
#define RACK_KW_LIQUID            40.0 /* seed S12: 40+ kW racks need liquid cooling */
/* A server without a platform record: a PCIe server's base power (cost.c's assumption), and
 * the network the time model assumes between servers (throughput.c DEFAULT_INTER_NODE_GB_PER_S). */
#define BASE_POWER_NO_PLATFORM_W 1000.0
#define NETWORK_NO_PLATFORM      "400 Gb/s per GPU (assumption)"

/* ---- what one server must hold (server spec and the host-limit check) ---- */

static uint64_t round_up_ram(double bytes)
{
    static const uint32_t sizes_gib[] = { 32,   64,   128,  256,  384,  512,  768,
                                          1024, 1536, 2048, 3072, 4096, 6144, 8192 };
    for (size_t i = 0; i < sizeof sizes_gib / sizeof sizes_gib[0]; i++) {
        const uint64_t b = (uint64_t)sizes_gib[i] * GPUPLAN_BYTES_PER_GIB;
        if ((double)b >= bytes)
            return b;
    }
    return gpuplan_bytes_from_double(bytes);
}
static uint32_t round_cores(uint32_t cores)
{
    if (cores < CORES_MIN_S11)
        cores = CORES_MIN_S11;
    return (cores + CORES_SOLD_IN_STEPS_OF - 1u) / CORES_SOLD_IN_STEPS_OF * CORES_SOLD_IN_STEPS_OF;
}
/* Per server; formulas in the server-spec comment at the top of this file. */
void gpuplan_plan_host_need(const struct search *s,
                            const struct gpuplan_job *job,
                            uint32_t gpus_per_node,
                            uint32_t nodes,
                            const struct gpuplan_platform *pl,
                            const struct gpuplan_memory_estimate *m,
                            struct gpuplan_plan_host_need *h)
{
    const bool infer = job->method == GPUPLAN_METHOD_INFER;
    const bool cpu_adam =
        job->offload != GPUPLAN_OFFLOAD_NONE && job->offload != GPUPLAN_OFFLOAD_PARAMS;
    const double n_params = (double)s->mem.n_params;
    h->cores_data = round_cores(gpus_per_node * CORES_PER_GPU_DATA);
    h->cores_want =
        round_cores(gpus_per_node * (CORES_PER_GPU_DATA + (cpu_adam ? CORES_PER_GPU_CPU_ADAM : 0)));
    h->ram_bytes = ((double)m->host_ram_bytes + WEIGHT_BYTES_16BIT * n_params) * (1.0 + RAM_SLACK);
    double nvme = WEIGHT_BYTES_16BIT * n_params;
    if (!infer) {
        const double trained =
            job->method == GPUPLAN_METHOD_FULL ? n_params : (double)s->mem.lora_params;
        nvme += (double)job->tokens * DATASET_BYTES_PER_TOKEN +
                CKPTS_KEPT * CKPT_FULL_BYTES_PER_PARAM * trained / nodes;
        if (job->offload == GPUPLAN_OFFLOAD_NVME)
            nvme += CKPT_FULL_BYTES_PER_PARAM * trained / nodes;
    }
    h->nvme_bytes = nvme * (1.0 + NVME_SLACK);
    /* 3.84, 7.68, 15.36, 30.72 TB: the common U.2/E3.S capacities */
    h->drive_bytes = NVME_DRIVE_BYTES;
    while (pl && pl->nvme_bays && h->drive_bytes < NVME_LARGEST_DRIVE_BYTES &&
           h->nvme_bytes > (double)h->drive_bytes * pl->nvme_bays)
        h->drive_bytes *= 2;
    h->drives = (uint64_t)ceil(h->nvme_bytes / (double)h->drive_bytes);
    if (h->drives < 1)
        h->drives = 1;
}
/* The S11 floor of a fine-tuning server's RAM (none for serving). */
static double ram_floor_bytes(const struct search *s, const struct gpuplan_job *job)
{
    if (job->method == GPUPLAN_METHOD_INFER)
        return 0.0;
    const double n_params = (double)s->mem.n_params;
    return (double)(n_params >= RAM_30B_PARAMS ? RAM_MIN_S11_30B_GIB : RAM_MIN_S11_GIB) *
           (double)GPUPLAN_BYTES_PER_GIB;
}
uint64_t gpuplan_plan_server_ram_bytes(const struct search *s,
                                       const struct gpuplan_job *job,
                                       const struct gpuplan_platform *pl,
                                       const struct gpuplan_plan_host_need *h)
{
    const double floor_bytes = ram_floor_bytes(s, job);
    uint64_t ram = round_up_ram(h->ram_bytes > floor_bytes ? h->ram_bytes : floor_bytes);
    if (pl && pl->ram_max_bytes && ram > pl->ram_max_bytes)
        ram = pl->ram_max_bytes;
    return ram;
}
/* ---- materialising a plan: figures, server, reasons, warnings ---- */

const char *gpuplan_plan_link_words(enum gpuplan_link link)
{
    switch (link) {
    case GPUPLAN_LINK_NVSWITCH:
        return "NVLink via NVSwitch";
    case GPUPLAN_LINK_NVLINK_BRIDGE:
        return "NVLink bridge";
    case GPUPLAN_LINK_INFINITY_FABRIC:
        return "Infinity Fabric";
    case GPUPLAN_LINK_ETHERNET:
        return "on-die RoCE Ethernet";
    default:
        return "PCIe only (no GPU-to-GPU fabric)";
    }
}
bool gpuplan_plan_has_fabric(enum gpuplan_link link)
{
    return link != GPUPLAN_LINK_PCIE;
}
void gpuplan_plan_server_spec(const struct search *s,
                              struct gpuplan_plan *p,
                              const struct gpuplan_memory_estimate *m)
{
    struct gpuplan_plan_server *sv = &p->server;
    const struct gpuplan_platform *pl = p->platform;
    const struct gpuplan_job *job = &p->job;
    if (pl) {
        snprintf(sv->platform_id, sizeof sv->platform_id, "%s", pl->id);
        snprintf(sv->platform_name, sizeof sv->platform_name, "%s", pl->name);
        snprintf(sv->form_factor, sizeof sv->form_factor, "%s", pl->form_factor);
    } else {
        snprintf(sv->form_factor, sizeof sv->form_factor, "%s", p->gpu->form_factor);
    }
    sv->n_servers = p->nodes;

    struct gpuplan_plan_host_need h;
    gpuplan_plan_host_need(s, job, p->gpus_per_node, p->nodes, pl, m, &h);
    uint32_t cores = h.cores_want;
    if (pl && pl->cpu_cores_max && cores > pl->cpu_cores_max) {
        /* only the CPU Adam share can be over: the data-loading cores were checked */
        WARNING(p, "CPU: the plan wants %u cores per server; '%s' holds at most %u", cores, pl->id,
                pl->cpu_cores_max);
        cores = pl->cpu_cores_max;
    }
    sv->cpu_cores = cores;

    /* RAM: host need + one 16-bit copy of the weights for loading + 10 %; S11 floor. */
    const double floor_bytes = ram_floor_bytes(s, job);
    sv->ram_bytes = round_up_ram(h.ram_bytes > floor_bytes ? h.ram_bytes : floor_bytes);
    p->host_ram_needed_bytes = gpuplan_bytes_from_double(h.ram_bytes); /* before the S11 floor */
    if (pl && pl->ram_max_bytes && sv->ram_bytes > pl->ram_max_bytes) {
        /* the need itself fits (checked in the search); the rounding or the floor does not */
        if (h.ram_bytes <= floor_bytes)
            WARNING(
                p,
                "RAM: the fine-tuning floor of %.0f GiB (256 GiB, 512 GiB from 30B parameters) is "
                "above what '%s' holds: %.0f GiB",
                floor_bytes / (double)GPUPLAN_BYTES_PER_GIB, pl->id,
                gpuplan_gib_from_bytes(pl->ram_max_bytes));
        sv->ram_bytes = pl->ram_max_bytes;
    }

    /* NVMe: weights + dataset + two checkpoints (+ offloaded state) + 20 %. */
    sv->nvme_bytes = h.drives * h.drive_bytes;
    sv->nvme_gb_per_s =
        (double)h.drives * (p->gpu->pcie_gen >= 5 ? NVME_GEN5_GB_PER_S : NVME_GEN4_GB_PER_S);

    if (p->gpus_per_node == 1)
        snprintf(sv->interconnect, sizeof sv->interconnect, "%s",
                 GPUPLAN_N_("none needed (1 GPU per server)"));
    else if (gpuplan_plan_has_fabric(p->gpu->link))
        snprintf(sv->interconnect, sizeof sv->interconnect, "%s, %.0f GB/s per GPU",
                 gpuplan_plan_link_words(p->gpu->link), p->gpu->link_gb_per_s);
    else
        snprintf(sv->interconnect, sizeof sv->interconnect,
                 "PCIe Gen%u only (no GPU-to-GPU fabric)", p->gpu->pcie_gen);
    if (p->nodes > 1)
        snprintf(sv->network, sizeof sv->network, "%s", pl ? pl->network : NETWORK_NO_PLATFORM);
    else
        snprintf(sv->network, sizeof sv->network, "%s", GPUPLAN_N_("none (single server)"));

    double base_w = pl ? pl->base_power_w : BASE_POWER_NO_PLATFORM_W;
    /* A superchip rack (GB200/GB300 NVL72) is rented by compute trays: a plan on fewer GPUs
     * than the rack holds draws its trays' share of the rack's non-GPU power (CPUs, switch
     * trays, fans), not the whole rack's. */
    if (pl && strcmp(pl->form_factor, "superchip") == 0 && pl->max_gpus > p->gpus_per_node)
        base_w *= (double)p->gpus_per_node / (double)pl->max_gpus;
    sv->power_w = p->gpus_per_node * p->gpu->tdp_w + base_w;
    uint32_t per_rack = 1;
    if (pl && pl->rack_units)
        per_rack = RACK_UNITS / pl->rack_units;
    if (per_rack == 0)
        per_rack = 1;
    const uint32_t in_rack = p->nodes < per_rack ? p->nodes : per_rack;
    sv->rack_power_w = sv->power_w * in_rack;
    if (sv->rack_power_w >= RACK_KW_LIQUID * GPUPLAN_W_PER_KW)
        WARNING(p, "power: %.1f kW in one rack; racks above 40 kW need liquid cooling",
                sv->rack_power_w / GPUPLAN_W_PER_KW);
}
