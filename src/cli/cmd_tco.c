/*
 * cmd_tco.c - `gpuplan tco`: own vs rent for a GPU server.
 *
 * Every cost input of cost.h is a flag (--gpu-price, --power-price, ...),
 * parsed strictly (finite number, unit range checked by the library). The
 * catalog gives GPU price, cloud rate, TDP and the platform; the rest are the
 * stated assumptions of docs/tco.md, shown in the output.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "gpuplan/cost.h"
#include "gpuplan/render.h"
#include "i18n.h"

static const char tco_help[] =
    N_("usage: gpuplan tco --gpu ID:N [options]\n"
       "\n"
       "Monthly cost of owning vs renting N GPUs, break-even in months at your use,\n"
       "break-even hours per day over the depreciation period, and the cumulative cost.\n"
       "\n"
       "options:\n"
       "  --gpu ID:N              catalog GPU id and count (required), e.g. h100-sxm:8\n"
       "  --platform ID           catalog server platform (default: the GPU's first)\n"
       "  --hours-per-day H       hours of use per day (default 8)\n"
       "  --years Y               depreciation period, 1..10 (default 3)\n"
       "  --cloud-price USD       on-demand USD per GPU-hour (default: catalog)\n"
       "  --gpu-price USD         purchase price per GPU (default: catalog)\n"
       "  --platform-price USD    server without GPUs (default: catalog or assumption)\n"
       "  --ram-price USD         extra RAM per server (default 0)\n"
       "  --nvme-price USD        extra NVMe per server (default 0)\n"
       "  --network-price USD     network per server (default: 0 for one server)\n"
       "  --gpu-tdp W             board power per GPU (default: catalog)\n"
       "  --load F                fraction of TDP drawn in use (default 0.8)\n"
       "  --platform-power W      server power without GPUs, in use (default 3000 SXM / 1000)\n"
       "  --idle-power W          server power when not in use\n"
       "  --pue F                 facility PUE (default 1.4)\n"
       "  --power-price USD_PER_KWH  electricity (default 0.12)\n"
       "  --maintenance F         fraction of capex per year (default 0.10)\n"
       "  --colocation USD        per server per year (default $100 per kW-month of IT load)\n"
       "  --format text|json|html output format (default text)\n"
       "  --catalog DIR           add or replace catalog records from DIR\n"
       "  --help                  show this help\n");

struct tco_args {
    const char *gpu;
    const char *platform;
    const char *catalog_dir;
    enum gpuplan_format format;
    bool set[GPUPLAN_COST_INPUT_COUNT];
    double value[GPUPLAN_COST_INPUT_COUNT];
};

/* "--name value" or "--name=value"; returns the value or NULL when argv[*i] is another option. */
static const char *opt_value(int argc, char **argv, int *i, const char *name, bool *missing)
{
    const char *arg = argv[*i];
    const size_t n = strlen(name);
    *missing = false;
    if (strncmp(arg, "--", 2) != 0 || strncmp(arg + 2, name, n) != 0)
        return NULL;
    if (arg[2 + n] == '=')
        return arg + 3 + n;
    if (arg[2 + n] != 0)
        return NULL;
    if (*i + 1 >= argc) {
        *missing = true;
        return NULL;
    }
    return argv[++*i];
}

static int parse_args(int argc, char **argv, struct tco_args *a)
{
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(_(tco_help), stdout);
            return CLI_OK;
        }
        bool missing = false;
        const char *v = NULL;
        if ((v = opt_value(argc, argv, &i, "gpu", &missing))) {
            a->gpu = v;
            continue;
        }
        if (!missing && (v = opt_value(argc, argv, &i, "platform", &missing))) {
            a->platform = v;
            continue;
        }
        if (!missing && (v = opt_value(argc, argv, &i, "catalog", &missing))) {
            a->catalog_dir = v;
            continue;
        }
        if (!missing && (v = opt_value(argc, argv, &i, "format", &missing))) {
            if (gpuplan_format_parse(v, GPUPLAN_RENDER_TCO_FORMATS, &a->format, &err) != GPUPLAN_OK)
                return cli_report(&err);
            continue;
        }
        bool matched = false;
        for (int k = 0; k < GPUPLAN_COST_INPUT_COUNT && !missing && !matched; k++) {
            const char *flag = gpuplan_cost_input_flag((enum gpuplan_cost_input)k);
            if (!(v = opt_value(argc, argv, &i, flag, &missing)))
                continue;
            matched = true;
            if (!gpuplan_parse_double(v, &a->value[k]))
                return cli_usage_error("tco", "'--%s' needs a number, got '%s'", flag, v);
            a->set[k] = true;
        }
        if (missing)
            return cli_usage_error("tco", "option '%s' needs a value", argv[i]);
        if (!matched)
            return cli_usage_error("tco", "unknown option '%s'", argv[i]);
    }
    if (!a->gpu)
        return cli_usage_error("tco", "'--gpu ID:N' is required");
    return -1;
}

/* "h100-sxm:8" -> id and count (count 1 when absent). */
static int split_gpu(const char *text, char *id, size_t id_size, uint32_t *count)
{
    const char *colon = strchr(text, ':');
    const size_t len = colon ? (size_t)(colon - text) : strlen(text);
    if (len == 0 || len >= id_size)
        return cli_usage_error("tco", "'--gpu %s' is not ID:N", text);
    memcpy(id, text, len);
    id[len] = 0;
    *count = 1;
    if (colon) {
        uint64_t n = 0;
        if (!gpuplan_parse_count(colon + 1, &n) || n < 1 || n > 100000)
            return cli_usage_error("tco", "GPU count '%s' in '--gpu %s' must be 1..100000",
                                   colon + 1, text);
        *count = (uint32_t)n;
    }
    return -1;
}

int cmd_tco(int argc, char **argv)
{
    struct tco_args a;
    memset(&a, 0, sizeof a);
    a.format = GPUPLAN_FORMAT_TEXT;
    int rc = parse_args(argc, argv, &a);
    if (rc >= 0)
        return rc;
    char gpu_id[64];
    uint32_t n_gpus = 0;
    rc = split_gpu(a.gpu, gpu_id, sizeof gpu_id, &n_gpus);
    if (rc >= 0)
        return rc;

    struct gpuplan_error err;
    gpuplan_error_init(&err);
    struct gpuplan_catalog *catalog = NULL;
    struct gpuplan_buf out;
    gpuplan_buf_init(&out, GPUPLAN_BUF_DEFAULT_MAX_BYTES);
    rc = CLI_OK;
    if (gpuplan_catalog_load(&catalog, a.catalog_dir, &err) != GPUPLAN_OK) {
        rc = cli_report(&err);
        goto out;
    }
    const struct gpuplan_gpu *gpu = NULL;
    if (gpuplan_catalog_get_gpu(catalog, gpu_id, &gpu, &err) != GPUPLAN_OK) {
        rc = cli_report(&err);
        goto out;
    }
    const struct gpuplan_platform *platform = NULL;
    const char *platform_id =
        a.platform ? a.platform : (gpu->n_platforms ? gpu->platforms[0] : NULL);
    if (platform_id) {
        platform = gpuplan_catalog_find_platform(catalog, platform_id);
        if (!platform && a.platform) {
            rc = cli_usage_error("tco", "unknown platform '%s'", a.platform);
            goto out;
        }
    }
    struct gpuplan_cost_inputs in;
    if (gpuplan_cost_inputs_init(&in, gpu, n_gpus, platform, &err) != GPUPLAN_OK) {
        rc = cli_report(&err);
        goto out;
    }
    for (int k = 0; k < GPUPLAN_COST_INPUT_COUNT; k++) {
        if (a.set[k] && gpuplan_cost_inputs_set(&in, (enum gpuplan_cost_input)k, a.value[k],
                                                &err) != GPUPLAN_OK) {
            rc = cli_report(&err);
            goto out;
        }
    }
    struct gpuplan_tco *tco = malloc(sizeof *tco);
    if (!tco) {
        perror(_("gpuplan: error"));
        rc = CLI_RUN_ERROR;
        goto out;
    }
    if (gpuplan_tco_compute(&in, tco, &err) != GPUPLAN_OK ||
        gpuplan_render_tco(&in, tco, a.format, &out, &err) != GPUPLAN_OK)
        rc = cli_report(&err);
    else
        rc = cli_write_buf(&out);
    free(tco);
out:
    gpuplan_buf_release(&out);
    gpuplan_catalog_free(catalog);
    return rc;
}
