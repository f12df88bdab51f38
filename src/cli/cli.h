/*
 * cli.h - shared pieces of the gpuplan command-line front-end.
 * The CLI includes only include/gpuplan/ (the public API) and this header.
 */
#ifndef GPUPLAN_CLI_H
#define GPUPLAN_CLI_H

#include <stdio.h>

#include <stdbool.h>

#include "gpuplan/gpuplan.h"
#include "gpuplan/render.h"

enum cli_exit { CLI_OK = 0, CLI_RUN_ERROR = 1, CLI_USAGE = 2 };

struct cli_command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
};

/* Print "gpuplan: error: MESSAGE" (+ where, hint) to stderr; return the exit code for the status.
 */
int cli_report(const struct gpuplan_error *err);
/* Print a usage error, "try 'gpuplan CMD --help'", return CLI_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Write a buffer to stdout; CLI_RUN_ERROR on failure. */
int cli_write_buf(const struct gpuplan_buf *buf);

/* Options shared by every command (args.c). */
struct cli_common {
    enum gpuplan_format format; /* --format, default text */
    const char *catalog_dir;    /* --catalog DIR, NULL for the embedded catalog */
};

/*
 * Parse --format (one of `formats`, a GPUPLAN_FORMAT_BIT set), --catalog,
 * --help and exactly `n_positional` arguments into
 * `positional`. Returns -1 to go on, or the exit code to return now (0 after
 * --help, 2 after a usage error, which it reports).
 */
int cli_parse_common(int argc,
                     char **argv,
                     const char *cmd,
                     const char *help,
                     unsigned formats,
                     struct cli_common *common,
                     const char **positional,
                     int n_positional);

/* "--name value" or "--name=value" at argv[*i]; *matched tells whether it was this option. */
const char *cli_option_value(int argc, char **argv, int *i, const char *name, bool *matched);

/*
 * Load MODEL as every command takes it (catalog id, path, or Hugging Face Hub
 * id resolved through the catalog and the local cache: $HF_HUB_CACHE, else
 * $HF_HOME/hub, else ~/.cache/huggingface/hub); prints how a Hub id was
 * resolved as a note on stderr.
 */
enum gpuplan_status cli_load_model(struct gpuplan_model *model,
                                   const char *name,
                                   const struct gpuplan_catalog *catalog,
                                   struct gpuplan_error *err);

/* `gpuplan estimate`: memory per GPU and host (cmd_estimate.c). */
int cmd_estimate(int argc, char **argv);
/* `gpuplan recommend`: the planner (cmd_recommend.c). */
int cmd_recommend(int argc, char **argv);

/*
 * `--gpu local`: detect this machine's GPUs (NVML or amdgpu sysfs; the
 * GPUPLAN_NVML_LIBRARY and GPUPLAN_SYSFS_ROOT overrides apply) as one catalog
 * GPU with the detected memory, and their count.
 */
enum gpuplan_status cli_local_gpu(const struct gpuplan_catalog *catalog,
                                  struct gpuplan_gpu *out,
                                  uint32_t *out_count,
                                  struct gpuplan_error *err);

int cmd_inspect(int argc, char **argv);
int cmd_gpus(int argc, char **argv);
int cmd_models(int argc, char **argv);

/* `gpuplan detect`: this machine's GPUs (cmd_detect.c). */
int cmd_detect(int argc, char **argv);

/* `gpuplan tco`: own vs rent, break-even (cmd_tco.c). */
int cmd_tco(int argc, char **argv);

/* `gpuplan serve`: the HTTP/JSON service (cmd_serve.c, src/server/). */
int cmd_serve(int argc, char **argv);

#endif
