/*
 * cmd_recommend.c - `gpuplan recommend MODEL [options]`: search the catalog
 * for the servers that fine-tune or serve MODEL, rank them, and optionally
 * write the top plan's launch configuration (--emit).
 *
 * Three option tables: the planner's (gpuplan_plan_options), the job's
 * (gpuplan_job_options, whose --tp, --pp and --nodes the planner searches
 * and so refuses) and recommend's own below. A job option the user gives
 * for method, precision, micro-batch, checkpointing, sharding, offload or a
 * serving format fixes that knob; the rest are searched.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "gpuplan/plan.h"

/* What recommend takes beside the request: --emit ENGINE, --format, --catalog. */
struct recommend_args {
    struct cli_common common; /* first, so CLI_FORMAT_OPTION's offsets (cli_common's) hold */
    int engine;               /* enum gpuplan_engine */
    bool emit;                /* --emit given */
};

static const struct gpuplan_option emit_options[] = {
    { .name = "emit",
      .kind = GPUPLAN_OPTION_CHOICE,
      .field = GPUPLAN_FIELD_INT,
      GPUPLAN_OPTION_AT(struct recommend_args, engine),
      .set_offset = offsetof(struct recommend_args, emit),
      .help = N_("print the top plan's launch configuration"),
      .default_doc = N_("(none)"),
      .choices = gpuplan_engine_names,
      .flags = GPUPLAN_OPTION_CLI_ONLY },
    CLI_FORMAT_OPTION(GPUPLAN_RENDER_PLAN_FORMATS),
    CLI_CATALOG_OPTION,
    { .name = NULL },
};

static int cmd_recommend(int argc, char **argv);

const struct cli_command cli_cmd_recommend = {
    .name = "recommend",
    .run = cmd_recommend,
    .summary = N_("search GPU servers for a job, rank, emit launch configs"),
    .usage = N_("recommend MODEL [OPTIONS]"),
    .description =
        N_("Search every catalog GPU, server and layout for MODEL; rank by the objective."),
    .model_arg = "MODEL",
    .n_positional = 1,
    .groups = { { N_("planner options"), gpuplan_plan_options, 0 },
                { N_("job options (fixing one stops the planner from searching it)"),
                  gpuplan_job_options, GPUPLAN_OPTION_SEARCHED },
                { N_("options"), emit_options, 0 } },
};

/*
 * --gpu local: plan only for the GPUs of this machine: their catalog id, at
 * most their count, on one node. The search takes the catalog's figures for
 * that id (estimate --gpu local also uses the detected memory).
 */
static enum gpuplan_status restrict_to_local(const struct gpuplan_catalog *catalog,
                                             struct gpuplan_plan_request *req,
                                             struct gpuplan_error *err)
{
    if (req->n_gpu_ids != 1 || strcmp(req->gpu_ids[0], "local") != 0)
        return GPUPLAN_OK;
    struct gpuplan_gpu local;
    uint32_t count = 0;
    enum gpuplan_status st = cli_local_gpu(catalog, &local, &count, err);
    if (st != GPUPLAN_OK)
        return st;
    (void)snprintf(req->gpu_ids[0], sizeof req->gpu_ids[0], "%s", local.id);
    req->max_gpus = count;
    return GPUPLAN_OK;
}

static int cmd_recommend(int argc, char **argv)
{
    struct gpuplan_plan_request req;
    gpuplan_plan_request_init(&req);
    struct recommend_args rec;
    memset(&rec, 0, sizeof rec);
    (void)gpuplan_options_init(emit_options, &rec, NULL);
    struct gpuplan_argv args;
    void *const dests[] = { &req, &req.job, &rec };
    int rc = cli_parse(&cli_cmd_recommend, dests, argc, argv, &args);
    if (rc >= 0)
        return rc;
    if (args.n_positional == 0)
        return cli_missing_model(&cli_cmd_recommend);
    for (size_t i = 0; i < args.n_given; i++)
        gpuplan_plan_request_mark_fixed(&req, args.given[i]);
    struct cli_run run;
    cli_run_init(&run);
    struct gpuplan_plan_result *result = calloc(1, sizeof *result);
    enum gpuplan_status st =
        result ? cli_run_load(&run, rec.common.catalog_dir, args.positional[0])
               : gpuplan_error_set(&run.err, GPUPLAN_ERR_NOMEM, NULL, "out of memory");
    if (st == GPUPLAN_OK)
        st = restrict_to_local(run.catalog, &req, &run.err);
    if (st == GPUPLAN_OK)
        st = gpuplan_plan_run(&run.model, run.catalog, &req, result, &run.err);
    if (st == GPUPLAN_OK && rec.emit && result->n_top == 0)
        st = gpuplan_error_set(&run.err, GPUPLAN_ERR_UNSUPPORTED, "--emit",
                               "no plan meets the constraints; nothing to emit");
    if (st == GPUPLAN_OK && rec.emit)
        st = gpuplan_emit(&result->top[0], (enum gpuplan_engine)rec.engine, &run.out, &run.err);
    else if (st == GPUPLAN_OK)
        st = gpuplan_render_plan(result, rec.common.format, &run.out, &run.err);
    free(result);
    return cli_run_finish(&run, st);
}
