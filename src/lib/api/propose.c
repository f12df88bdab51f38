/*
 * propose.c - the proposal as one call (request.h): the planner's search
 * with the list wide enough to hold each GPU type's best plan, then the
 * proposal renderer. `gpuplan propose` and POST /v1/propose both call it.
 */
#include <stdlib.h>

#include "gpuplan/plan.h"
#include "gpuplan/render.h"
#include "gpuplan/request.h"

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
    if (st == GPUPLAN_OK)
        st = gpuplan_render_proposal(model, catalog, result, opts, out, err);
    free(result);
    return st;
}
