/*
 * propose.c - the proposal as one call (request.h): the planner's search
 * with the list wide enough to hold each GPU type's best plan, then the
 * proposal renderer. `gpuplan propose` and POST /v1/propose both call it.
 *
 * A proposal carries a launch configuration, so its recommendation must be
 * one an engine runs as planned. When none of the kinds the document offers
 * takes the first plan (say, selective recompute with Transformers), the
 * search runs again with the knobs the first kind would move fixed to its
 * nearest settings (gpuplan_emit_nearest), as `recommend --emit` does, and
 * a note says which; every figure is then the new plan's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/options.h"
#include "gpuplan/plan.h"
#include "gpuplan/render.h"
#include "gpuplan/request.h"
#include "util/i18n_internal.h"

/* Re-planning rounds: each fixes what the kind moves on the new first plan (DeepSpeed may move
 * sharding, then precision); recommend --emit allows the same four. */
#define PROPOSE_REPLAN_ROUNDS 4

/* The kinds the document offers a launch configuration of, for training and for serving. */
static const enum gpuplan_engine training_kinds[] = {
    GPUPLAN_ENGINE_ACCELERATE,    GPUPLAN_ENGINE_DEEPSPEED, GPUPLAN_ENGINE_TORCHRUN,
    GPUPLAN_ENGINE_TORCHTUNE,     GPUPLAN_ENGINE_AXOLOTL,   GPUPLAN_ENGINE_TRL,
    GPUPLAN_ENGINE_LLAMA_FACTORY,
};

static bool some_kind_runs(const struct gpuplan_plan *p)
{
    if (p->is_serving)
        return true; /* the serving kinds take every serving plan's launch line */
    for (size_t i = 0; i < sizeof training_kinds / sizeof training_kinds[0]; i++)
        if (gpuplan_emit_check(p, training_kinds[i], NULL) == GPUPLAN_OK)
            return true;
    return false;
}

/*
 * Fix in `req` the job knobs `moved` changes from `planned` (through the job's option table, as
 * the command line would), with a note per knob in `note`. False when none changed or one is a
 * knob the request had fixed.
 */
static bool fix_moved(struct gpuplan_plan_request *req,
                      const struct gpuplan_plan_request *asked,
                      const struct gpuplan_job *planned,
                      const struct gpuplan_job *moved,
                      char *note,
                      size_t note_size)
{
    bool changed = false;
    for (const struct gpuplan_option *opt = gpuplan_job_options; opt->name; opt++) {
        char a[64], b[64]; /* a knob's value: a choice or a count */
        gpuplan_option_format(opt, planned, a, sizeof a);
        gpuplan_option_format(opt, moved, b, sizeof b);
        if (strcmp(a, b) == 0 || !b[0])
            continue;
        /* a knob the customer fixed is not moved behind their back: marking it again changes
         * nothing then */
        struct gpuplan_plan_request probe = *asked;
        gpuplan_plan_request_mark_fixed(&probe, opt);
        if (opt->axis != GPUPLAN_AXIS_NONE && memcmp(&probe, asked, sizeof probe) == 0)
            return false;
        if (gpuplan_option_set(opt, &req->job, b, true, NULL) != GPUPLAN_OK)
            return false;
        gpuplan_plan_request_mark_fixed(req, opt);
        const size_t n = strlen(note);
        snprintf(note + n, note_size - n, "%s--%s %s (%s %s)", n ? ", " : "", opt->name, b,
                 GPUPLAN_TR("was"), a);
        changed = true;
    }
    return changed;
}

enum gpuplan_status gpuplan_propose(const struct gpuplan_model *model,
                                    const struct gpuplan_catalog *catalog,
                                    const struct gpuplan_plan_request *req,
                                    const struct gpuplan_proposal_options *opts,
                                    struct gpuplan_buf *out,
                                    struct gpuplan_error *err)
{
    if (gpuplan_format_check(opts->format, GPUPLAN_RENDER_PROPOSAL_FORMATS, err) != GPUPLAN_OK)
        return err->code;
    struct gpuplan_plan_request wide = *req;
    /* The alternatives are the best plan of each GPU type: the whole list is searched for them. */
    wide.top_k = GPUPLAN_PLAN_MAX_TOP;
    /* About 300 KB (plan.h): on the heap. */
    struct gpuplan_plan_result *result = calloc(1, sizeof *result);
    if (!result)
        return gpuplan_error_set(err, GPUPLAN_ERR_NOMEM, "", "out of memory");
    enum gpuplan_status st = gpuplan_plan_run(model, catalog, &wide, result, err);
    char note[GPUPLAN_PLAN_TEXT_MAX] = "";
    const enum gpuplan_engine kind = training_kinds[0];
    for (int round = 0; st == GPUPLAN_OK && round < PROPOSE_REPLAN_ROUNDS; round++) {
        if (result->n_top == 0 || some_kind_runs(&result->top[0]))
            break;
        struct gpuplan_job moved;
        struct gpuplan_plan_request again = wide;
        if (!gpuplan_emit_nearest(&result->top[0], kind, &moved) ||
            !fix_moved(&again, req, &result->top[0].job, &moved, note, sizeof note))
            break;
        struct gpuplan_plan_result *next = calloc(1, sizeof *next);
        if (!next) {
            st = gpuplan_error_set(err, GPUPLAN_ERR_NOMEM, "", "out of memory");
            break;
        }
        if (gpuplan_plan_run(model, catalog, &again, next, NULL) != GPUPLAN_OK ||
            next->n_top == 0) {
            free(next);
            break; /* keep the first search: the document says no kind runs it */
        }
        free(result);
        result = next;
        wide = again;
    }
    if (st == GPUPLAN_OK && note[0] && result->n_notes < GPUPLAN_PLAN_MAX_NOTES) {
        snprintf(result->notes[result->n_notes], GPUPLAN_PLAN_TEXT_MAX,
                 GPUPLAN_TR("planned again so that %s runs the plan as planned: %s"),
                 gpuplan_engine_name(kind), note);
        result->n_notes++;
    }
    struct gpuplan_proposal_options shown = *opts;
    if (shown.max_plans == 0)
        shown.max_plans = req->top_k; /* the customer's --top, before the search was widened */
    if (st == GPUPLAN_OK)
        st = gpuplan_render_proposal(model, catalog, result, &shown, out, err);
    free(result);
    return st;
}
