/*
 * test_proposal.c - the customer proposal (render_proposal.c, propose.c):
 * the bill of materials adds up to the plan's capex with a price per line,
 * the memory bars show each plan's own total, the alternatives are one per
 * GPU type, the document is well formed and deterministic in both formats,
 * formats other than html, md and json (the charts alone) are refused, a result without a plan is
 * an error, a serving plan's latency-throughput curve is the planner's own steady state with the
 * targets drawn, --top caps the plans side by side, the Markdown links only the pictures written,
 * the re-planned first plan runs on a launch kind, and two threads rendering at once write the same
 * bytes (the renderer keeps no state).
 */
#include "test_common.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "gpuplan/catalog.h"
#include "gpuplan/plan.h"
#include "gpuplan/render.h"
#include "gpuplan/request.h"

static struct gpuplan_catalog *catalog;
static struct gpuplan_model model70; /* llama-3.1-70b */
static struct gpuplan_model model8;  /* llama-3.1-8b */

static int setup(void **state)
{
    (void)state;
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    gpuplan_model_init(&model70);
    gpuplan_model_init(&model8);
    if (gpuplan_catalog_load(&catalog, NULL, &err) != GPUPLAN_OK)
        return -1;
    if (gpuplan_model_load(&model70, "llama-3.1-70b", catalog, &err) != GPUPLAN_OK ||
        gpuplan_model_load(&model8, "llama-3.1-8b", catalog, &err) != GPUPLAN_OK)
        return -1;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    gpuplan_model_release(&model70);
    gpuplan_model_release(&model8);
    gpuplan_catalog_free(catalog);
    return 0;
}

/* QLoRA of Llama 3.1 70B on servers to buy: the example. */
static void qlora_on_prem(struct gpuplan_plan_request *req)
{
    gpuplan_plan_request_init(req);
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    assert_int_equal(gpuplan_job_set(&req->job, "method", "qlora", &err), GPUPLAN_OK);
    req->method_fixed = true;
    req->where = GPUPLAN_WHERE_ON_PREM;
}

static char *propose(const struct gpuplan_model *m,
                     const struct gpuplan_plan_request *req,
                     enum gpuplan_format format,
                     enum gpuplan_status want)
{
    const struct gpuplan_proposal_options opts = {
        .format = format, .lang = "en", .date = "2026-12-01", .version = "test", .command = NULL
    };
    struct gpuplan_buf out;
    gpuplan_buf_init(&out, 0);
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    const enum gpuplan_status st = gpuplan_propose(m, catalog, req, &opts, &out, &err);
    if (st != want)
        fprintf(stderr, "propose: %s (%s)\n", err.message, err.hint);
    assert_int_equal(st, want);
    if (st != GPUPLAN_OK) {
        assert_true(err.message[0] != '\0');
        gpuplan_buf_release(&out);
        return NULL;
    }
    char *s = strndup(out.data, out.len);
    gpuplan_buf_release(&out);
    assert_non_null(s);
    return s;
}

static size_t count(const char *s, const char *what)
{
    size_t n = 0;
    for (const char *p = strstr(s, what); p; p = strstr(p + 1, what))
        n++;
    return n;
}

/* The first plan of the same search, for the figures the document must carry. */
static struct gpuplan_plan_result *search(const struct gpuplan_model *m,
                                          const struct gpuplan_plan_request *req)
{
    struct gpuplan_plan_request wide = *req;
    wide.top_k = GPUPLAN_PLAN_MAX_TOP;
    struct gpuplan_plan_result *r = calloc(1, sizeof *r);
    assert_non_null(r);
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    assert_int_equal(gpuplan_plan_run(m, catalog, &wide, r, &err), GPUPLAN_OK);
    assert_true(r->n_top > 0);
    return r;
}

static void test_bom_adds_up(void **state)
{
    (void)state;
    struct gpuplan_plan_request req;
    qlora_on_prem(&req);
    /* full checkpointing fixed: a plan accelerate runs as planned, so the document is of the
     * search's first plan (without it the proposal plans again: "planned again ...") */
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    assert_int_equal(gpuplan_job_set(&req.job, "grad_ckpt", "full", &err), GPUPLAN_OK);
    req.grad_ckpt_fixed = true;
    char *md = propose(&model70, &req, GPUPLAN_FORMAT_MD, GPUPLAN_OK);
    assert_null(strstr(md, "planned again"));
    struct gpuplan_plan_result *r = search(&model70, &req);
    const struct gpuplan_plan *top = &r->top[0];
    assert_true(top->has_capex);
    /* the total of the bill of materials is the planner's capex of the recommended server */
    char total[96];
    char usd[48];
    snprintf(usd, sizeof usd, "%.0f", top->capex_usd);
    /* "$175,000" as the builder groups it: compare digits only */
    const char *line = strstr(md, "| **Total** |");
    assert_non_null(line);
    size_t k = 0;
    for (const char *p = line; *p && *p != '\n' && k + 1 < sizeof total; p++)
        if (*p >= '0' && *p <= '9')
            total[k++] = *p;
    total[k] = '\0';
    assert_string_equal(total, usd);
    /* every line of the bill names what it is, the GPU line its count */
    char gpu_line[128];
    snprintf(gpu_line, sizeof gpu_line, "| GPU | %s", top->gpu->name);
    assert_non_null(strstr(md, gpu_line));
    assert_non_null(strstr(md, "| Platform | "));
    assert_non_null(strstr(md, "| CPU | "));
    assert_non_null(strstr(md, "| RAM | "));
    assert_non_null(strstr(md, "| NVMe | "));
    assert_non_null(strstr(md, "| Network (NICs, ports, cables) | "));
    assert_non_null(strstr(md, "**Power:**"));
    assert_non_null(strstr(md, top->gpu->price_date));
    free(r);
    free(md);
}

static void test_html_document(void **state)
{
    (void)state;
    struct gpuplan_plan_request req;
    qlora_on_prem(&req);
    char *html = propose(&model70, &req, GPUPLAN_FORMAT_HTML, GPUPLAN_OK);
    assert_true(strncmp(html, "<!DOCTYPE html>", 15) == 0);
    assert_non_null(strstr(html, "<html lang=\"en\">"));
    assert_int_equal(count(html, "<section"), count(html, "</section>"));
    assert_int_equal(count(html, "<table"), count(html, "</table>"));
    assert_int_equal(count(html, "<svg"), count(html, "</svg>"));
    assert_non_null(strstr(html, "id=\"bom\""));
    assert_non_null(strstr(html, "id=\"alternatives\""));
    assert_non_null(strstr(html, "id=\"sources\""));
    assert_non_null(strstr(html, "id=\"chart-memory\""));
    assert_non_null(strstr(html, "id=\"chart-buy-rent\""));
    /* nothing loaded from outside the document */
    assert_null(strstr(html, "<script"));
    assert_null(strstr(html, "src=\"http"));
    assert_null(strstr(html, "href=\"http"));
    /* the bill of materials comes before the first section that starts a page */
    const char *first_break = strstr(html, "<section class=\"gp-section gp-break\"");
    assert_non_null(first_break);
    assert_true(strstr(html, "id=\"bom\"") < first_break);
    /* a launch configuration, collapsed */
    assert_non_null(strstr(html, "<details"));
    /* the same bytes again */
    char *again = propose(&model70, &req, GPUPLAN_FORMAT_HTML, GPUPLAN_OK);
    assert_string_equal(html, again);
    free(again);
    free(html);
}

static void test_alternatives_one_per_gpu(void **state)
{
    (void)state;
    struct gpuplan_plan_request req;
    qlora_on_prem(&req);
    char *md = propose(&model70, &req, GPUPLAN_FORMAT_MD, GPUPLAN_OK);
    const char *table = strstr(md, "| Plan | Precision |");
    assert_non_null(table);
    const char *end = strstr(table, "\n\n");
    assert_non_null(end);
    /* rows after the header and the alignment row: distinct GPU ids */
    char ids[8][48];
    size_t n = 0;
    const char *row = strchr(strchr(table, '\n') + 1, '\n') + 1;
    while (row < end && n < 8) {
        const char *x = strstr(row, "\xC3\x97 ");
        assert_non_null(x);
        x += 3;
        size_t len = strcspn(x, " *|");
        assert_true(len > 0 && len < sizeof ids[0]);
        memcpy(ids[n], x, len);
        ids[n][len] = '\0';
        for (size_t i = 0; i < n; i++)
            assert_string_not_equal(ids[i], ids[n]);
        n++;
        row = strchr(row, '\n') + 1;
    }
    assert_true(n >= 2);
    free(md);
}

static void test_memory_bars_are_the_plans(void **state)
{
    (void)state;
    struct gpuplan_plan_request req;
    qlora_on_prem(&req);
    char *html = propose(&model70, &req, GPUPLAN_FORMAT_HTML, GPUPLAN_OK);
    /* each row's memory per GPU (the plan's figure) heads its bar: "97.9 / 119.2 GiB" */
    const char *cell = html;
    size_t rows = 0;
    while ((cell = strstr(cell, "data-label=\"GiB per GPU\">")) != NULL) {
        cell += strlen("data-label=\"GiB per GPU\">");
        char want[32];
        const size_t n = strcspn(cell, "<");
        assert_true(n > 0 && n < 16);
        snprintf(want, sizeof want, ">%.*s / ", (int)n, cell);
        const char *chart = strstr(html, "id=\"chart-memory\"");
        assert_non_null(chart);
        assert_non_null(strstr(chart, want + 1));
        rows++;
    }
    assert_true(rows >= 2);
    free(html);
}

static void test_replanned_for_a_launch_kind(void **state)
{
    (void)state;
    /* The planner picks selective recompute here, which the Transformers-based kinds do not
     * have: the proposal plans again so that one runs it, and says so. */
    struct gpuplan_plan_request req;
    gpuplan_plan_request_init(&req);
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    assert_int_equal(gpuplan_job_set(&req.job, "method", "lora", &err), GPUPLAN_OK);
    assert_int_equal(gpuplan_job_set(&req.job, "tokens", "2B", &err), GPUPLAN_OK);
    req.method_fixed = true;
    snprintf(req.gpu_ids[0], sizeof req.gpu_ids[0], "h100-sxm");
    req.n_gpu_ids = 1;
    char *md = propose(&model8, &req, GPUPLAN_FORMAT_MD, GPUPLAN_OK);
    assert_non_null(strstr(md, "**Launch configuration: "));
    assert_null(strstr(md, "No launch configuration kind runs this plan"));
    struct gpuplan_plan_result *r = search(&model8, &req);
    if (r->top[0].job.grad_ckpt == GPUPLAN_CKPT_SELECTIVE)
        assert_non_null(strstr(md, "planned again so that accelerate runs the plan"));
    free(r);
    free(md);
}

static void test_refusals(void **state)
{
    (void)state;
    struct gpuplan_plan_request req;
    qlora_on_prem(&req);
    assert_null(propose(&model70, &req, GPUPLAN_FORMAT_CSV, GPUPLAN_ERR_USAGE));
    assert_null(propose(&model70, &req, GPUPLAN_FORMAT_TEXT, GPUPLAN_ERR_USAGE));
    /* no plan meets a budget of one dollar */
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    assert_int_equal(gpuplan_job_set(&req.job, "tokens", "1B", &err), GPUPLAN_OK);
    req.budget_usd = 1.0;
    assert_null(propose(&model70, &req, GPUPLAN_FORMAT_HTML, GPUPLAN_ERR_UNSUPPORTED));
    /* the renderer alone, on an empty result */
    struct gpuplan_plan_result *empty = calloc(1, sizeof *empty);
    assert_non_null(empty);
    const struct gpuplan_proposal_options opts = { .format = GPUPLAN_FORMAT_HTML, .lang = "en" };
    struct gpuplan_buf out;
    gpuplan_buf_init(&out, 0);
    assert_int_equal(gpuplan_render_proposal(&model70, catalog, empty, &opts, &out, &err),
                     GPUPLAN_ERR_UNSUPPORTED);
    assert_int_equal(out.len, 0);
    gpuplan_buf_release(&out);
    free(empty);
}

static void test_charts_json(void **state)
{
    (void)state;
    struct gpuplan_plan_request req;
    qlora_on_prem(&req);
    char *json = propose(&model70, &req, GPUPLAN_FORMAT_JSON, GPUPLAN_OK);
    /* standalone charts (their own style): the page inserts them as they are */
    assert_non_null(strstr(json, "\"memory\": \"<svg "));
    assert_non_null(strstr(json, "\"buy_rent\": \"<svg "));
    assert_non_null(strstr(json, "\"time_cost\": null")); /* no --tokens: no run time */
    assert_non_null(strstr(json, "<style>"));
    assert_non_null(strstr(json, "\"schema_version\": 1"));
    free(json);
}

/* Serving of Llama 3.1 8B at 4 requests/s within TTFT 1 s and TPOT 50 ms. */
static void serving_at_rate(struct gpuplan_plan_request *req)
{
    gpuplan_plan_request_init(req);
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    assert_int_equal(gpuplan_job_set(&req->job, "method", "infer", &err), GPUPLAN_OK);
    req->method_fixed = true;
    req->request_rate_per_s = 4.0;
    req->target_ttft_ms = 1000.0;
    req->target_tpot_ms = 50.0;
}

/* The curve is the planner's own steady state: the plan's operating point lies on it, the
 * points up to the concurrency limit meet the targets and those past it do not. */
static void test_serving_curve(void **state)
{
    (void)state;
    struct gpuplan_plan_request req;
    serving_at_rate(&req);
    struct gpuplan_plan_result *r = search(&model8, &req);
    const struct gpuplan_plan *p = &r->top[0];
    assert_true(p->is_serving);
    struct gpuplan_plan_curve_point pts[GPUPLAN_PLAN_CURVE_MAX];
    size_t n = 0;
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    assert_int_equal(gpuplan_plan_serving_curve(&model8, p, pts, GPUPLAN_PLAN_CURVE_MAX, &n, &err),
                     GPUPLAN_OK);
    assert_true(n >= 4);
    size_t operating = 0, limit = 0;
    for (size_t i = 0; i < n; i++) {
        if (i > 0)
            assert_true(pts[i].concurrency > pts[i - 1].concurrency);
        assert_true(pts[i].tokens_per_s_per_gpu > 0.0 && pts[i].tpot_s > 0.0 &&
                    pts[i].ttft_s > 0.0);
        const bool ok = pts[i].ttft_s <= 1.0 && pts[i].tpot_s <= 0.050;
        assert_true(pts[i].concurrency <= p->serving.concurrency_limit ? ok : !ok);
        if (pts[i].is_operating) {
            operating++;
            assert_int_equal(pts[i].concurrency, p->serving.concurrency);
            assert_true(fabs(pts[i].tpot_s - p->serving.tpot_s) <= 1e-12);
            assert_true(fabs(pts[i].ttft_s - p->serving.ttft_s) <= 1e-12);
        }
        if (pts[i].is_limit) {
            limit++;
            assert_int_equal(pts[i].concurrency, p->serving.concurrency_limit);
        }
    }
    assert_int_equal(operating, 1);
    assert_int_equal(limit, 1);
    /* a training plan has no such curve */
    struct gpuplan_plan_request train;
    qlora_on_prem(&train);
    struct gpuplan_plan_result *t = search(&model70, &train);
    assert_int_equal(
        gpuplan_plan_serving_curve(&model70, &t->top[0], pts, GPUPLAN_PLAN_CURVE_MAX, &n, &err),
        GPUPLAN_ERR_USAGE);
    assert_int_equal(n, 0);
    free(t);
    free(r);
    /* the document and the page draw it twice, with the targets */
    char *json = propose(&model8, &req, GPUPLAN_FORMAT_JSON, GPUPLAN_OK);
    assert_non_null(strstr(json, "\"tpot\": \"<svg "));
    assert_non_null(strstr(json, "\"ttft\": \"<svg "));
    assert_non_null(strstr(json, "TPOT target 50 ms"));
    assert_non_null(strstr(json, "TTFT target 1 s"));
    assert_non_null(strstr(json, "needed at the rate"));
    assert_non_null(strstr(json, "(planned)"));
    free(json);
    char *train_json = propose(&model70, &train, GPUPLAN_FORMAT_JSON, GPUPLAN_OK);
    assert_non_null(strstr(train_json, "\"tpot\": null"));
    free(train_json);
}

/* A sink that keeps the names and sizes of the files the Markdown links. */
struct sink {
    char names[8][96];
    size_t n;
    bool styled;
};

static enum gpuplan_status
keep_chart(void *ctx, const char *file, const char *svg, size_t len, struct gpuplan_error *err)
{
    (void)err;
    struct sink *s = ctx;
    if (s->n < 8)
        snprintf(s->names[s->n++], sizeof s->names[0], "%s", file);
    s->styled = len > 5 && strncmp(svg, "<svg ", 5) == 0 && strstr(svg, "<style>") != NULL;
    return GPUPLAN_OK;
}

static enum gpuplan_status
refuse_chart(void *ctx, const char *file, const char *svg, size_t len, struct gpuplan_error *err)
{
    (void)ctx, (void)svg, (void)len;
    return gpuplan_error_set(err, GPUPLAN_ERR_IO, file, "cannot write '%s'", file);
}

/* --top K: the recommendation and K - 1 other GPU types; the Markdown's pictures are files. */
static void test_top_and_md_files(void **state)
{
    (void)state;
    struct gpuplan_plan_request req;
    serving_at_rate(&req);
    struct gpuplan_proposal_options opts = {
        .format = GPUPLAN_FORMAT_MD, .lang = "en", .date = "2026-12-01", .max_plans = 2
    };
    struct gpuplan_buf out;
    gpuplan_buf_init(&out, 0);
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    assert_int_equal(gpuplan_propose(&model8, catalog, &req, &opts, &out, &err), GPUPLAN_OK);
    char *md = strndup(out.data, out.len);
    const char *alt = strstr(md, "## Alternatives");
    assert_non_null(alt);
    const char *end = strstr(alt + 1, "\n## ");
    size_t rows = 0;
    for (const char *q = strstr(alt, "\n| "); q && (!end || q < end); q = strstr(q + 1, "\n| "))
        rows++;
    assert_int_equal(rows, 2 + 2); /* header, rule, the recommendation and one alternative */
    assert_non_null(strstr(md, "--top K"));
    assert_null(strstr(md, ".svg)")); /* no sink: captions only, no link to a missing file */
    free(md);
    struct sink s = { .n = 0 };
    opts.chart_sink = keep_chart;
    opts.chart_ctx = &s;
    opts.md_prefix = "offer-";
    gpuplan_buf_reset(&out);
    assert_int_equal(gpuplan_propose(&model8, catalog, &req, &opts, &out, &err), GPUPLAN_OK);
    md = strndup(out.data, out.len);
    assert_true(s.n >= 3);
    assert_true(s.styled);
    for (size_t i = 0; i < s.n; i++) {
        char link[128];
        snprintf(link, sizeof link, "](%s)", s.names[i]);
        assert_non_null(strstr(md, link));
        assert_true(strncmp(s.names[i], "offer-", 6) == 0);
    }
    assert_non_null(strstr(md, "](offer-tpot.svg)"));
    free(md);
    opts.chart_sink = refuse_chart;
    gpuplan_buf_reset(&out);
    assert_int_equal(gpuplan_propose(&model8, catalog, &req, &opts, &out, &err), GPUPLAN_ERR_IO);
    assert_non_null(strstr(err.message, "offer-memory.svg")); /* the sink's own words */
    gpuplan_buf_release(&out);
}

struct thread_job {
    const struct gpuplan_plan_result *result;
    char *doc;
};

static void *render_thread(void *arg)
{
    struct thread_job *job = arg;
    const struct gpuplan_proposal_options opts = { .format = GPUPLAN_FORMAT_HTML,
                                                   .lang = "en",
                                                   .date = "2026-12-01" };
    struct gpuplan_buf out;
    gpuplan_buf_init(&out, 0);
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    for (int i = 0; i < 4; i++) {
        gpuplan_buf_reset(&out);
        if (gpuplan_render_proposal(&model70, catalog, job->result, &opts, &out, &err) !=
            GPUPLAN_OK)
            break;
    }
    job->doc = out.len ? strndup(out.data, out.len) : NULL;
    gpuplan_buf_release(&out);
    return NULL;
}

static void test_threads_share_nothing(void **state)
{
    (void)state;
    struct gpuplan_plan_request req;
    qlora_on_prem(&req);
    struct gpuplan_plan_result *r = search(&model70, &req);
    struct thread_job jobs[2] = { { r, NULL }, { r, NULL } };
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        assert_int_equal(pthread_create(&t[i], NULL, render_thread, &jobs[i]), 0);
    for (int i = 0; i < 2; i++)
        assert_int_equal(pthread_join(t[i], NULL), 0);
    assert_non_null(jobs[0].doc);
    assert_non_null(jobs[1].doc);
    assert_string_equal(jobs[0].doc, jobs[1].doc);
    free(jobs[0].doc);
    free(jobs[1].doc);
    free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bom_adds_up),
        cmocka_unit_test(test_html_document),
        cmocka_unit_test(test_alternatives_one_per_gpu),
        cmocka_unit_test(test_memory_bars_are_the_plans),
        cmocka_unit_test(test_replanned_for_a_launch_kind),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_charts_json),
        cmocka_unit_test(test_serving_curve),
        cmocka_unit_test(test_top_and_md_files),
        cmocka_unit_test(test_threads_share_nothing),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
