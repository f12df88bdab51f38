/*
 * cmd_detect.c - `gpuplan detect`: the GPUs of this machine.
 *
 * The library takes the NVML path and sysfs root as options; this front-end
 * fills them from --nvml-library / --sysfs-root, else the environment
 * (GPUPLAN_NVML_LIBRARY, GPUPLAN_SYSFS_ROOT: for tests and odd installs),
 * else "libnvidia-ml.so.1" and "/sys", then matches the GPUs against the
 * catalog (embedded, plus --catalog DIR). No GPU is a result: exit 0.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "gpuplan/detect.h"
#include "i18n.h"

/* What detect takes: --format, --catalog (cli_common first), and where to look for GPUs. */
struct detect_args {
    struct cli_common common; /* first, so CLI_FORMAT_OPTION's offsets (cli_common's) hold */
    const char *nvml_library; /* --nvml-library PATH */
    const char *sysfs_root;   /* --sysfs-root DIR */
};

static const struct gpuplan_option detect_options[] = {
    CLI_FORMAT_OPTION(GPUPLAN_RENDER_DETECT_FORMATS),
    { .name = "catalog",
      .kind = GPUPLAN_OPTION_TEXT,
      .field = GPUPLAN_FIELD_STRING,
      GPUPLAN_OPTION_AT(struct cli_common, catalog_dir),
      .set_offset = GPUPLAN_OPTION_NO_SET,
      .arg = "DIR",
      .help = N_("extend the catalog the GPUs are matched against"),
      .flags = GPUPLAN_OPTION_CLI_ONLY },
    { .name = "nvml-library",
      .kind = GPUPLAN_OPTION_TEXT,
      .field = GPUPLAN_FIELD_STRING,
      GPUPLAN_OPTION_AT(struct detect_args, nvml_library),
      .set_offset = GPUPLAN_OPTION_NO_SET,
      .arg = "PATH",
      .help = N_("NVML library to load"),
      .default_doc = N_("$GPUPLAN_NVML_LIBRARY, else libnvidia-ml.so.1"),
      .flags = GPUPLAN_OPTION_CLI_ONLY },
    { .name = "sysfs-root",
      .kind = GPUPLAN_OPTION_TEXT,
      .field = GPUPLAN_FIELD_STRING,
      GPUPLAN_OPTION_AT(struct detect_args, sysfs_root),
      .set_offset = GPUPLAN_OPTION_NO_SET,
      .arg = "DIR",
      .help = N_("sysfs root for AMD GPUs"),
      .default_doc = N_("$GPUPLAN_SYSFS_ROOT, else /sys"),
      .flags = GPUPLAN_OPTION_CLI_ONLY },
    { .name = NULL },
};

static int cmd_detect(int argc, char **argv);

const struct cli_command cli_cmd_detect = {
    .name = "detect",
    .run = cmd_detect,
    .summary = N_("list this machine's GPUs (NVML, amdgpu sysfs)"),
    .usage = N_("detect [OPTIONS]"),
    .description = N_("List this machine's GPUs: NVIDIA through NVML (loaded at run time), AMD "
                      "through the amdgpu sysfs files. Each GPU is matched to a catalog id."),
    .groups = { { N_("options"), detect_options, 0 } },
};

static const char *env_or(const char *name, const char *fallback)
{
    const char *value = getenv(name);
    return value && value[0] ? value : fallback;
}

static int cmd_detect(int argc, char **argv)
{
    struct detect_args a;
    memset(&a, 0, sizeof a);
    (void)gpuplan_options_init(detect_options, &a, NULL);
    struct gpuplan_argv args;
    void *const dests[] = { &a };
    const int parsed = cli_parse(&cli_cmd_detect, dests, argc, argv, &args);
    if (parsed >= 0)
        return parsed;
    const char *nvml_path = a.nvml_library, *sysfs_root = a.sysfs_root;
    const char *catalog_dir = a.common.catalog_dir;
    const enum gpuplan_format format = a.common.format;

    struct gpuplan_detect_options opts;
    gpuplan_detect_options_init(&opts);
    opts.nvml_path = nvml_path ? nvml_path : env_or("GPUPLAN_NVML_LIBRARY", opts.nvml_path);
    opts.sysfs_root = sysfs_root ? sysfs_root : env_or("GPUPLAN_SYSFS_ROOT", opts.sysfs_root);

    struct cli_run run;
    cli_run_init(&run);
    struct gpuplan_detect_result *result = calloc(1, sizeof *result);
    enum gpuplan_status st =
        result ? gpuplan_detect_run(&opts, result, &run.err)
               : gpuplan_error_set(&run.err, GPUPLAN_ERR_NOMEM, NULL, "out of memory");
    if (st == GPUPLAN_OK)
        st = cli_run_load(&run, catalog_dir, NULL);
    if (st == GPUPLAN_OK) {
        gpuplan_detect_match_catalog(result, run.catalog);
        st = gpuplan_render_detect(result, format, &run.out, &run.err);
    }
    free(result);
    return cli_run_finish(&run, st);
}
