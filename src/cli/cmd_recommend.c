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
    struct cli_from from;     /* --from FILE */
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
    CLI_FROM_OPTION(struct recommend_args, from),
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
    .description = N_("Search every catalog GPU, server and layout for MODEL; rank by the "
                      "objective. Exit status 0 with a plan, 3 when no plan meets the constraints "
                      "(the nearest misses and the changes that would help are printed)."),
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

static bool option_given(const struct gpuplan_argv *args, const char *name)
{
    for (size_t i = 0; i < args->n_given; i++) {
        if (strcmp(args->given[i]->name, name) == 0)
            return true;
    }
    return false;
}

/*
 * gpuplan_emit_nearest moved some knobs: fix them in the request through the
 * job's option table, as the command line would, with a note for each;
 * false when a moved knob is one the user gave.
 */
static bool fix_moved(struct gpuplan_plan_request *req,
                      enum gpuplan_engine engine,
                      const struct gpuplan_job *planned,
                      const struct gpuplan_job *moved,
                      const struct gpuplan_argv *args)
{
    bool changed = false;
    for (const struct gpuplan_option *opt = gpuplan_job_options; opt->name; opt++) {
        char a[GPUPLAN_JOB_MAX_TEXT], b[GPUPLAN_JOB_MAX_TEXT];
        gpuplan_option_format(opt, planned, a, sizeof a);
        gpuplan_option_format(opt, moved, b, sizeof b);
        if (strcmp(a, b) == 0 || !b[0])
            continue;
        if (option_given(args, opt->name) ||
            gpuplan_option_set(opt, &req->job, b, true, NULL) != GPUPLAN_OK)
            return false;
        gpuplan_plan_request_mark_fixed(req, opt);
        fprintf(stderr, _("gpuplan: note: --emit %s: planned again with --%s %s (was %s)\n"),
                gpuplan_engine_name(engine), opt->name, b, a);
        changed = true;
    }
    return changed;
}

/*
 * --emit: the first plan of the list the engine runs as planned; when none,
 * plan again with the knobs it would move fixed (a note says which), unless
 * the user fixed them; else the engine's refusal.
 */
static enum gpuplan_status emit_top(struct cli_run *run,
                                    const struct gpuplan_argv *args,
                                    struct gpuplan_plan_request *req,
                                    enum gpuplan_engine engine,
                                    struct gpuplan_plan_result *result)
{
    if (result->n_top == 0)
        return gpuplan_error_set(&run->err, GPUPLAN_ERR_UNSUPPORTED, "--emit",
                                 "no plan meets the constraints; nothing to emit");
    /* Each round fixes the knobs the engine moves on the list's first plan; the plan found
     * then may need another (DeepSpeed: zero3, then a precision it has). */
    for (int round = 0; round < 4; round++) {
        for (size_t i = 0; i < result->n_top; i++) {
            if (gpuplan_emit_check(&result->top[i], engine, NULL) != GPUPLAN_OK)
                continue;
            if (i > 0)
                fprintf(stderr,
                        _("gpuplan: note: --emit %s: writing plan #%zu (it cannot run #1 as "
                          "planned)\n"),
                        gpuplan_engine_name(engine), i + 1);
            return gpuplan_emit(&result->top[i], engine, &run->out, &run->err);
        }
        struct gpuplan_job moved;
        if (!gpuplan_emit_nearest(&result->top[0], engine, &moved) ||
            !fix_moved(req, engine, &result->top[0].job, &moved, args))
            break;
        const enum gpuplan_status st =
            gpuplan_plan_run(&run->model, run->catalog, req, result, &run->err);
        if (st != GPUPLAN_OK)
            return st;
        if (result->n_top == 0)
            return gpuplan_error_set(&run->err, GPUPLAN_ERR_UNSUPPORTED, "--emit",
                                     "planned again for %s: no plan meets the constraints",
                                     gpuplan_engine_name(engine));
    }
    return gpuplan_emit(&result->top[0], engine, &run->out, &run->err);
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
    struct gpuplan_config cfg;
    gpuplan_config_init(&cfg);
    const char *model = args.n_positional ? args.positional[0] : NULL;
    if (rec.from.n) {
        /* the files' job, their knobs fixed, then the command line again on top */
        struct gpuplan_error err;
        gpuplan_error_init(&err);
        if (cli_config_load(&rec.from, &cfg, &err) != GPUPLAN_OK) {
            gpuplan_config_release(&cfg);
            return cli_report(&err);
        }
        req.job = cfg.job;
        cli_config_mark_fixed(&cfg, &req);
        struct recommend_args scratch = rec;
        scratch.from.n = 0;
        struct gpuplan_argv again;
        void *const again_dests[] = { &req, &req.job, &scratch };
        (void)cli_parse(&cli_cmd_recommend, again_dests, argc, argv, &again);
        if (!model && cfg.model_id[0])
            model = cfg.model_id;
    }
    if (!model) {
        gpuplan_config_release(&cfg);
        return cli_missing_model(&cli_cmd_recommend);
    }
    for (size_t i = 0; i < args.n_given; i++)
        gpuplan_plan_request_mark_fixed(&req, args.given[i]);
    struct cli_run run;
    cli_run_init(&run);
    struct gpuplan_plan_result *result = calloc(1, sizeof *result);
    enum gpuplan_status st =
        result ? cli_run_load(&run, rec.common.catalog_dir, model)
               : gpuplan_error_set(&run.err, GPUPLAN_ERR_NOMEM, NULL, "out of memory");
    if (st == GPUPLAN_OK)
        st = restrict_to_local(run.catalog, &req, &run.err);
    if (st == GPUPLAN_OK)
        st = gpuplan_plan_run(&run.model, run.catalog, &req, result, &run.err);
    if (st == GPUPLAN_OK && rec.emit)
        st = emit_top(&run, &args, &req, (enum gpuplan_engine)rec.engine, result);
    else if (st == GPUPLAN_OK)
        st = gpuplan_render_plan_from(result, rec.from.n ? &cfg : NULL, rec.common.format, &run.out,
                                      &run.err);
    const bool none = st == GPUPLAN_OK && !rec.emit && result && result->n_top == 0;
    free(result);
    gpuplan_config_release(&cfg);
    const int rc_run = cli_run_finish(&run, st);
    /* no plan meets the constraints: printed, and said by the exit status (as `check`) */
    return rc_run == CLI_OK && none ? CLI_DOES_NOT_FIT : rc_run;
}
