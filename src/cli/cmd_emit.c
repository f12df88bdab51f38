/*
 * cmd_emit.c - `gpuplan emit KIND [PLAN.json]`: the launch file of one plan
 * of a `recommend --format json` document (a file, or standard input), as
 * `recommend --emit KIND` writes it for the top plan.
 *
 * The document is read bounded (GPUPLAN_PLAN_JSON_MAX_BYTES) and parsed by
 * the library's plan reader (gpuplan_plan_read_json, every error with its
 * JSON path); the GPU is looked up in the catalog (--catalog applies). A
 * plan the engine cannot run as planned is refused with the reason and the
 * kinds that can (gpuplan_emit_check); re-planning is recommend's.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "gpuplan/plan.h"
#include "gpuplan/request.h"

struct emit_args {
    struct cli_common common; /* first: CLI_CATALOG_OPTION's offsets are cli_common's */
    uint32_t plan_index;      /* --plan N, 1-based */
};

static const struct gpuplan_option emit_cmd_options[] = {
    { .name = "plan",
      .kind = GPUPLAN_OPTION_COUNT,
      .field = GPUPLAN_FIELD_U32,
      GPUPLAN_OPTION_AT(struct emit_args, plan_index),
      .set_offset = GPUPLAN_OPTION_NO_SET,
      .arg = "N",
      .help = N_("which recommendation of the document (1 = the top plan)"),
      .default_value = "1",
      .count_min = 1,
      .count_max = GPUPLAN_PLAN_MAX_TOP,
      .flags = GPUPLAN_OPTION_CLI_ONLY },
    CLI_CATALOG_OPTION,
    { .name = NULL },
};

static int cmd_emit(int argc, char **argv);

const struct cli_command cli_cmd_emit = {
    .name = "emit",
    .run = cmd_emit,
    .summary = N_("write a plan's launch file for an engine (from recommend's JSON)"),
    .usage = N_("emit KIND [PLAN.json] [OPTIONS]"),
    .description =
        N_("Write the launch file of one plan of a 'gpuplan recommend --format json' document "
           "(PLAN.json, or standard input when absent or '-') for KIND: deepspeed, accelerate, "
           "torchrun, slurm, axolotl, llama-factory, torchtune, trl, vllm, sglang, k8s, skypilot. "
           "Every value comes from the plan; a plan the engine cannot run as planned is refused "
           "with the reason and the kinds that can ('recommend --emit KIND' plans again "
           "instead)."),
    .model_arg = NULL,
    .n_positional = 2,
    .groups = { { N_("options"), emit_cmd_options, 0 } },
};

static int cmd_emit(int argc, char **argv)
{
    struct emit_args ea;
    memset(&ea, 0, sizeof ea);
    (void)gpuplan_options_init(emit_cmd_options, &ea, NULL);
    struct gpuplan_argv args;
    void *const dests[] = { &ea };
    int rc = cli_parse(&cli_cmd_emit, dests, argc, argv, &args);
    if (rc >= 0)
        return rc;
    if (args.n_positional == 0)
        return cli_usage_error("emit", "missing KIND argument");
    enum gpuplan_engine engine;
    struct gpuplan_error perr;
    gpuplan_error_init(&perr);
    if (gpuplan_engine_parse(args.positional[0], &engine, &perr) != GPUPLAN_OK)
        return cli_report(&perr);
    const char *path = args.n_positional > 1 ? args.positional[1] : "-";
    struct cli_run run;
    cli_run_init(&run);
    uint8_t *bytes = NULL;
    size_t len = 0;
    struct gpuplan_plan *plan = calloc(1, sizeof *plan);
    enum gpuplan_status st =
        plan ? cli_run_load(&run, ea.common.catalog_dir, NULL)
             : gpuplan_error_set(&run.err, GPUPLAN_ERR_NOMEM, NULL, "out of memory");
    if (st == GPUPLAN_OK)
        st = cli_read_file(path, GPUPLAN_PLAN_JSON_MAX_BYTES, &bytes, &len, &run.err);
    if (st == GPUPLAN_OK)
        st = gpuplan_plan_read_json(bytes, len, strcmp(path, "-") == 0 ? "stdin" : path,
                                    ea.plan_index, run.catalog, plan, &run.err);
    if (st == GPUPLAN_OK)
        st = gpuplan_emit(plan, engine, &run.out, &run.err);
    free(bytes);
    free(plan);
    return cli_run_finish(&run, st);
}
