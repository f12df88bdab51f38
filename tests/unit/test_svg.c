/*
 * test_svg.c - the charts (src/lib/render/svg*.c): text widths, escaping,
 * nice ticks and their labels (tables); each sample chart of
 * chart_samples.h against its golden file under tests/golden/svg/
 * (GOLDEN_UPDATE=1 rewrites them; `make golden-update` does); every chart's
 * output well formed, self-contained, inside its viewBox and with no two
 * text boxes overlapping by the renderer's own metrics (the browser test,
 * tests/browser/test_charts.py, measures the real boxes); bad and hostile
 * input refused or escaped, never half-written.
 */
#include "test_common.h"

#include <math.h>
#include <stdbool.h>

#include "chart_samples.h"
#include "gpuplan/buf.h"
#include "render/svg_internal.h"
#include "util/utf8_internal.h"

#define GOLDEN_DIR "tests/golden/svg/"

/* ---- helpers ---- */

static void compare_golden(const char *name, const struct gpuplan_buf *got)
{
    char path[256];
    snprintf(path, sizeof path, GOLDEN_DIR "%s", name);
    const char *update = getenv("GOLDEN_UPDATE");
    if (update && strcmp(update, "1") == 0) {
        FILE *f = fopen(path, "wb");
        assert_non_null(f);
        assert_int_equal(fwrite(got->data, 1, got->len, f), got->len);
        assert_int_equal(fclose(f), 0);
        return;
    }
    size_t len = 0;
    uint8_t *want = read_file(path, &len);
    if (!want)
        fail_msg("no golden file %s (GOLDEN_UPDATE=1 %s writes it)", path, "build/tests/test_svg");
    if (len != got->len || memcmp(want, got->data, len) != 0) {
        size_t i = 0;
        while (i < len && i < got->len && want[i] == (uint8_t)got->data[i])
            i++;
        free(want);
        fail_msg("%s differs from the output at byte %zu (GOLDEN_UPDATE=1 rewrites it)", path, i);
    }
    free(want);
}

/* "&lt;" and friends back to bytes, in place. */
static void unescape(char *s)
{
    static const struct {
        const char *entity;
        char c;
    } map[] = { { "&lt;", '<' }, { "&gt;", '>' }, { "&amp;", '&' }, { "&quot;", '"' } };
    char *w = s;
    for (const char *r = s; *r;) {
        bool done = false;
        for (size_t i = 0; i < sizeof map / sizeof map[0] && !done; i++) {
            const size_t n = strlen(map[i].entity);
            if (strncmp(r, map[i].entity, n) == 0) {
                *w++ = map[i].c;
                r += n;
                done = true;
            }
        }
        if (!done)
            *w++ = *r++;
    }
    *w = 0;
}

static double attr_num(const char *tag, const char *name, double fallback)
{
    char key[32];
    snprintf(key, sizeof key, " %s=\"", name);
    const char *p = strstr(tag, key);
    return p ? strtod(p + strlen(key), NULL) : fallback;
}

/* Whether `word` ("nan", "inf") stands where a number would: not inside a word. */
static bool has_number_word(const char *svg, const char *word)
{
    for (const char *p = strstr(svg, word); p; p = strstr(p + 1, word)) {
        const char before = p > svg ? p[-1] : ' ';
        if (!((before >= 'a' && before <= 'z') || (before >= 'A' && before <= 'Z')))
            return true;
    }
    return false;
}

struct text_box {
    double x0, y0, x1, y1;
    char text[256];
};

/*
 * Well formed (every tag closed in order, no stray '<' or '&'), one <svg>
 * root with viewBox, width, title; no script, link or external reference;
 * valid UTF-8; every <text> inside the viewBox; no two text boxes (by
 * gpuplan_svg_text_width_px) overlapping. Returns the number of texts.
 */
static size_t check_svg(const char *svg)
{
    assert_int_equal(gpuplan_utf8_invalid_at((const uint8_t *)svg, strlen(svg)), strlen(svg));
    assert_true(strncmp(svg, "<svg xmlns=\"http://www.w3.org/2000/svg\"", 39) == 0);
    assert_non_null(strstr(svg, "<title"));
    assert_null(strstr(svg, "<script"));
    assert_null(strstr(svg, "href"));
    assert_null(strstr(svg, "url("));
    assert_false(has_number_word(svg, "nan"));
    assert_false(has_number_word(svg, "inf"));
    const double w = attr_num(svg, "width", -1), h = attr_num(svg, "height", -1);
    assert_true(w > 0 && h > 0);
    char viewbox[64];
    snprintf(viewbox, sizeof viewbox, "viewBox=\"0 0 %.0f %.0f\"", w, h);
    assert_non_null(strstr(svg, viewbox));

    char stack[32][16];
    size_t depth = 0, n_text = 0;
    static struct text_box boxes[4096];
    for (const char *p = svg; *p; p++) {
        if (*p == '&') {
            assert_true(strncmp(p, "&lt;", 4) == 0 || strncmp(p, "&gt;", 4) == 0 ||
                        strncmp(p, "&amp;", 5) == 0 || strncmp(p, "&quot;", 6) == 0);
            continue;
        }
        if (*p != '<')
            continue;
        const char *end = strchr(p, '>');
        assert_non_null(end);
        for (const char *q = p + 1; q < end; q++)
            assert_true(*q != '<');
        const bool closing = p[1] == '/', self = end[-1] == '/';
        char name[16] = { 0 };
        const char *n0 = p + 1 + closing;
        size_t len = strcspn(n0, " />");
        assert_true(len > 0 && len < sizeof name);
        memcpy(name, n0, len);
        if (closing) {
            assert_true(depth > 0);
            assert_string_equal(stack[--depth], name);
        } else if (!self) {
            assert_true(depth < 32);
            snprintf(stack[depth++], sizeof stack[0], "%s", name);
        }
        if (!closing && strcmp(name, "text") == 0) {
            char tag[512];
            const size_t tl =
                (size_t)(end - p) < sizeof tag - 1 ? (size_t)(end - p) : sizeof tag - 1;
            memcpy(tag, p, tl);
            tag[tl] = 0;
            const char *close = strstr(end, "</text>");
            assert_non_null(close);
            struct text_box *b = &boxes[n_text++];
            assert_true(n_text < sizeof boxes / sizeof boxes[0]);
            const size_t cl = (size_t)(close - end - 1);
            assert_true(cl < sizeof b->text);
            memcpy(b->text, end + 1, cl);
            b->text[cl] = 0;
            unescape(b->text);
            const bool is_title = strstr(tag, "class=\"title\"") != NULL;
            const double px = is_title ? 14 : GPUPLAN_SVG_FONT_PX;
            const double tw = gpuplan_svg_text_width_px(b->text, px);
            const double x = attr_num(tag, "x", 0), y = attr_num(tag, "y", 0);
            const char *anchor = strstr(tag, "text-anchor=\"");
            double x0 = x;
            if (anchor && strncmp(anchor + 13, "middle", 6) == 0)
                x0 = x - tw / 2;
            else if (anchor && strncmp(anchor + 13, "end", 3) == 0)
                x0 = x - tw;
            b->x0 = x0;
            b->x1 = x0 + tw;
            b->y0 = y - 0.929 * px;
            b->y1 = y + 0.236 * px;
            if (b->x0 < -0.05 || b->x1 > w + 0.05 || b->y0 < -0.05 || b->y1 > h + 0.05)
                fail_msg("text '%s' at %.1f..%.1f x %.1f..%.1f leaves the %.0f x %.0f chart",
                         b->text, b->x0, b->x1, b->y0, b->y1, w, h);
        }
    }
    assert_int_equal(depth, 0);
    /* Overlap by more than the rounding of the coordinates (0.05 px each side). */
    for (size_t i = 0; i < n_text; i++)
        for (size_t j = i + 1; j < n_text; j++) {
            const struct text_box *a = &boxes[i], *b = &boxes[j];
            if (a->x0 < b->x1 - 0.1 && b->x0 < a->x1 - 0.1 && a->y0 < b->y1 - 0.1 &&
                b->y0 < a->y1 - 0.1)
                fail_msg("labels '%s' and '%s' overlap", a->text, b->text);
        }
    return n_text;
}

/* ---- tables ---- */

static void test_text_width(void **state)
{
    (void)state;
    const struct {
        const char *text;
        double want_px; /* at 12 px: sum of the advance table (1/1000 em) x 12 / 1000 */
    } rows[] = {
        { "", 0 },
        { "0", 0.637 * 12 },
        { "10", 2 * 0.637 * 12 },
        { "iW", (0.278 + 0.989) * 12 },
        { "Ж", 1.078 * 12 },                      /* U+0416, Cyrillic table */
        { "ж", 0.901 * 12 },                      /* U+0436 */
        { "×", 1.094 * 12 },                      /* outside the tables: the widest */
        { "\xff", 1.094 * 12 },                   /* an invalid byte */
        { "a\tb", (0.613 + 0.318 + 0.635) * 12 }, /* a control: written as a space */
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const double got = gpuplan_svg_text_width_px(rows[i].text, 12);
        if (fabs(got - rows[i].want_px) > 1e-9)
            fail_msg("width of '%s': %.6f, want %.6f", rows[i].text, got, rows[i].want_px);
    }
    assert_true(gpuplan_svg_text_width_px(NULL, 12) == 0);
}

static void test_put_text(void **state)
{
    (void)state;
    const struct {
        const char *text;
        size_t max;
        const char *want;
    } rows[] = {
        { "8×H100 <fast> & \"cheap\"", 100, "8×H100 &lt;fast&gt; &amp; &quot;cheap&quot;" },
        { "a\x01"
          "b\x7f"
          "c\n",
          100, "a b c " },
        { "bad \xc3\x28 byte", 100, "bad \xEF\xBF\xBD( byte" },
        { "\xed\xa0\x80", 100, "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD" }, /* a surrogate */
        { "ab×cd", 3, "ab" }, /* cut before a character */
        { "ab×cd", 4, "ab×" },
        { "</text><script>x</script>", 100, "&lt;/text&gt;&lt;script&gt;x&lt;/script&gt;" },
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct gpuplan_buf b;
        gpuplan_buf_init(&b, 1024);
        gpuplan_svg_put_text(&b, rows[i].text, rows[i].max);
        assert_string_equal(gpuplan_buf_str(&b), rows[i].want);
        gpuplan_buf_release(&b);
    }
}

static void test_nice_ticks(void **state)
{
    (void)state;
    const struct {
        double lo, hi;
        unsigned target;
        double step;
        double first, last;
        size_t n;
    } rows[] = {
        { 0, 97, 6, 20, 0, 100, 6 },
        { 0, 79.1, 8, 10, 0, 80, 9 },
        { 0.13, 0.87, 5, 0.2, 0, 1, 6 },
        { 1234, 5678, 6, 1000, 1000, 6000, 6 },
        { 0, 1.3e6, 5, 5e5, 0, 1.5e6, 4 },
        { -35, 12, 5, 10, -40, 20, 7 },
        { 3, 3.0001, 3, 1e-4, 3, 3.0001, 2 }, /* 3.0001 - 3 rounds above 1e-4 */
        { 5, 5, 2, 1, 5, 6, 2 },              /* a flat range becomes [lo, lo + 1] */
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        double ticks[64];
        size_t n = 0;
        const double step =
            gpuplan_svg_nice_ticks(rows[i].lo, rows[i].hi, rows[i].target, ticks, 64, &n);
        if (fabs(step - rows[i].step) > 1e-9 * rows[i].step || n != rows[i].n ||
            fabs(ticks[0] - rows[i].first) > 1e-9 || fabs(ticks[n - 1] - rows[i].last) > 1e-6)
            fail_msg("row %zu: step %g n %zu %g..%g; want step %g n %zu %g..%g", i, step, n,
                     ticks[0], ticks[n - 1], rows[i].step, rows[i].n, rows[i].first, rows[i].last);
    }
}

static void test_format_tick(void **state)
{
    (void)state;
    const struct {
        double v, step, max_abs;
        const char *want;
    } rows[] = {
        { 0, 20, 100, "0" },
        { 2500, 500, 5000, "2,500" },
        { 0.25, 0.05, 1, "0.25" },
        { 1, 0.5, 3, "1.0" },
        { -40, 10, 40, "-40" },
        { 12500, 2500, 20000, "12.5k" },
        { 20000, 2500, 20000, "20k" },
        { 1.5e6, 5e5, 2e6, "1.5M" },
        { 0, 5e5, 2e6, "0" },
        { 3e9, 1e9, 5e9, "3G" },
        { 5e-5, 5e-5, 3.0001, "0.00005" },
        { -0.0, 0.1, 1, "0.0" },
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char got[32];
        gpuplan_svg_format_tick(got, sizeof got, rows[i].v, rows[i].step, rows[i].max_abs);
        if (strcmp(got, rows[i].want) != 0)
            fail_msg("tick %g (step %g, max %g): '%s', want '%s'", rows[i].v, rows[i].step,
                     rows[i].max_abs, got, rows[i].want);
    }
}

/* ---- the sample charts against their goldens ---- */

struct sample {
    const char *golden;
    int kind; /* 0 memory, 1 scatter, 2 cost, 3 tpot, 4 ttft */
    bool ru;
    size_t least_texts;
};
static const struct sample samples[] = {
    { "memory.svg", 0, false, 20 },         { "memory-ru.svg", 0, true, 20 },
    { "scatter.svg", 1, false, 16 },        { "scatter-ru.svg", 1, true, 16 },
    { "cost.svg", 2, false, 10 },           { "cost-ru.svg", 2, true, 10 },
    { "latency-tpot.svg", 3, false, 14 },   { "latency-ttft.svg", 4, false, 14 },
    { "latency-tpot-ru.svg", 3, true, 14 },
};

static enum gpuplan_status
render_sample(const struct sample *s, struct gpuplan_buf *out, struct gpuplan_error *err)
{
    switch (s->kind) {
    case 0:
        return sample_memory(out, s->ru, false, err);
    case 1:
        return sample_scatter(out, s->ru, false, err);
    case 2:
        return sample_cost(out, s->ru, false, err);
    default:
        return sample_latency(out, s->kind == 4, s->ru, false, err);
    }
}

static void test_samples(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof samples / sizeof samples[0]; i++) {
        struct gpuplan_buf a, b;
        struct gpuplan_error err;
        gpuplan_error_init(&err);
        gpuplan_buf_init(&a, GPUPLAN_BUF_DEFAULT_MAX_BYTES);
        gpuplan_buf_init(&b, GPUPLAN_BUF_DEFAULT_MAX_BYTES);
        if (render_sample(&samples[i], &a, &err) != GPUPLAN_OK)
            fail_msg("%s: %s", samples[i].golden, err.message);
        assert_int_equal(render_sample(&samples[i], &b, &err), GPUPLAN_OK);
        assert_int_equal(a.len, b.len); /* deterministic */
        assert_memory_equal(a.data, b.data, a.len);
        const size_t n_text = check_svg(gpuplan_buf_str(&a));
        if (n_text < samples[i].least_texts)
            fail_msg("%s has %zu texts; want >= %zu", samples[i].golden, n_text,
                     samples[i].least_texts);
        compare_golden(samples[i].golden, &a);
        gpuplan_buf_release(&a);
        gpuplan_buf_release(&b);
    }
}

/* What the samples must show: every part, the line, the whisker, the front, the marker, targets. */
static void test_sample_content(void **state)
{
    (void)state;
    struct gpuplan_buf b;
    struct gpuplan_error err;
    gpuplan_buf_init(&b, GPUPLAN_BUF_DEFAULT_MAX_BYTES);
    assert_int_equal(sample_memory(&b, false, false, &err), GPUPLAN_OK);
    const char *s = gpuplan_buf_str(&b);
    assert_non_null(strstr(s, "<title>weights: 32.9 GiB</title>"));
    assert_non_null(strstr(s, "H100 SXM 80GB: 55.4 / 79.1 GiB"));            /* the total given */
    assert_non_null(strstr(s, "L40S 48GB (does not fit): 46.7 / 44.4 GiB")); /* the parts' sum */
    assert_non_null(strstr(s, "<title>estimated peak: 55.4 GiB</title>"));
    assert_non_null(strstr(s, ">KV cache</text>")); /* in the legend: used by one bar */
    assert_non_null(strstr(s, "data-part=\"5\""));
    assert_non_null(strstr(s, "class=\"usable\""));
    assert_non_null(strstr(s, "class=\"range\""));
    assert_non_null(strstr(s, "id=\"mem-title\""));
    assert_non_null(strstr(s, "aria-labelledby=\"mem-title mem-desc\""));
    gpuplan_buf_reset(&b);
    assert_int_equal(sample_scatter(&b, false, false, &err), GPUPLAN_OK);
    s = gpuplan_buf_str(&b);
    assert_non_null(strstr(s, "class=\"front\""));
    assert_non_null(strstr(s, "fill=\"#D55E00\" stroke=\"#000\"")); /* the recommendation */
    assert_non_null(strstr(s, ">8×H200</text>"));                   /* labelled first */
    gpuplan_buf_reset(&b);
    assert_int_equal(sample_cost(&b, false, false, &err), GPUPLAN_OK);
    s = gpuplan_buf_str(&b);
    assert_non_null(strstr(s, ">break-even 14.9 months</text>"));
    assert_non_null(strstr(s, "stroke-dasharray=\"7 3\"")); /* the second line's dash */
    gpuplan_buf_reset(&b);
    assert_int_equal(sample_latency(&b, true, false, false, &err), GPUPLAN_OK);
    s = gpuplan_buf_str(&b);
    assert_non_null(strstr(s, ">TTFT target 2 s</text>"));
    assert_non_null(strstr(s, ">required 4,000 tokens/s</text>"));
    gpuplan_buf_release(&b);
}

/* ---- bad input ---- */

static void test_bad_input(void **state)
{
    (void)state;
    const double ok_y[] = { 1, 2, 3 };
    const double nan_y[] = { 1, NAN, 3 };
    const double zero_y[] = { 0, 2, 3 };
    const struct {
        const double *y;
        size_t n;
        bool log_y;
        const char *id;
        const char *title;
        double width;
        enum gpuplan_status want;
        const char *message_part;
    } rows[] = {
        { ok_y, 3, false, "ok", "t", 0, GPUPLAN_OK, NULL },
        { nan_y, 3, false, "ok", "t", 0, GPUPLAN_ERR_INVALID_INPUT, "not a finite number" },
        { zero_y, 3, true, "ok", "t", 0, GPUPLAN_ERR_INVALID_INPUT, "log axis" },
        { ok_y, 1, false, "ok", "t", 0, GPUPLAN_ERR_INVALID_INPUT, "'points' has 1 entries" },
        { ok_y, 3, false, "bad id", "t", 0, GPUPLAN_ERR_INVALID_INPUT, "chart id" },
        { ok_y, 3, false, "ok", NULL, 0, GPUPLAN_ERR_INVALID_INPUT, "no title" },
        { ok_y, 3, false, "ok", "t", 100, GPUPLAN_ERR_INVALID_INPUT, "width" },
        { ok_y, 3, false, "ok", "t", INFINITY, GPUPLAN_ERR_INVALID_INPUT, "width" },
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const struct gpuplan_svg_line line = { "l", rows[i].y, rows[i].n };
        const struct gpuplan_svg_cost_chart c = {
            .common = { .id = rows[i].id, .title = rows[i].title, .width_px = rows[i].width },
            .y = { .is_log = rows[i].log_y },
            .x_step = 1,
            .lines = &line,
            .n_lines = 1,
        };
        struct gpuplan_buf b;
        struct gpuplan_error err;
        gpuplan_error_init(&err);
        gpuplan_buf_init(&b, 1 << 20);
        const enum gpuplan_status st = gpuplan_svg_cost(&c, &b, &err);
        if (st != rows[i].want)
            fail_msg("row %zu: status %d, want %d (%s)", i, st, rows[i].want, err.message);
        if (rows[i].message_part) {
            assert_non_null(strstr(err.message, rows[i].message_part));
            assert_int_equal(b.len, 0); /* nothing written */
        }
        gpuplan_buf_release(&b);
    }

    /* Caps and the other charts' own checks. */
    struct gpuplan_svg_mem_bar bars[GPUPLAN_SVG_MAX_BARS + 1];
    memset(bars, 0, sizeof bars);
    for (size_t i = 0; i < sizeof bars / sizeof bars[0]; i++)
        bars[i].usable_gib = 10;
    struct gpuplan_svg_mem_chart m = { .common = { .title = "m" }, .bars = bars };
    struct gpuplan_buf b;
    struct gpuplan_error err;
    gpuplan_buf_init(&b, 1 << 20);
    m.n_bars = GPUPLAN_SVG_MAX_BARS + 1;
    assert_int_equal(gpuplan_svg_memory(&m, &b, &err), GPUPLAN_ERR_TOO_LARGE);
    m.n_bars = 0;
    assert_int_equal(gpuplan_svg_memory(&m, &b, &err), GPUPLAN_ERR_INVALID_INPUT);
    m.n_bars = 1;
    bars[0].part_gib[2] = -1;
    assert_int_equal(gpuplan_svg_memory(&m, &b, &err), GPUPLAN_ERR_INVALID_INPUT);
    bars[0].part_gib[2] = 1;
    bars[0].usable_gib = 0;
    assert_int_equal(gpuplan_svg_memory(&m, &b, &err), GPUPLAN_ERR_INVALID_INPUT);
    bars[0].usable_gib = 10;
    bars[0].has_range = true;
    bars[0].low_gib = 5;
    bars[0].high_gib = 4;
    assert_int_equal(gpuplan_svg_memory(&m, &b, &err), GPUPLAN_ERR_INVALID_INPUT);
    assert_int_equal(b.len, 0);
    bars[0].high_gib = 6;
    assert_int_equal(gpuplan_svg_memory(&m, &b, &err), GPUPLAN_OK); /* no id: aria-label */
    assert_non_null(strstr(gpuplan_buf_str(&b), "aria-label=\"m\""));
    check_svg(gpuplan_buf_str(&b));

    const struct gpuplan_svg_point p = { 1, 1, "p", false, false };
    struct gpuplan_svg_scatter sc = { .common = { .title = "s" }, .points = &p, .n_points = 0 };
    assert_int_equal(gpuplan_svg_scatter(&sc, &b, &err), GPUPLAN_ERR_INVALID_INPUT);
    sc.n_points = GPUPLAN_SVG_MAX_POINTS + 1;
    assert_int_equal(gpuplan_svg_scatter(&sc, &b, &err), GPUPLAN_ERR_TOO_LARGE);

    const double x[] = { 1 }, y[] = { 1 };
    const struct gpuplan_svg_curve curve = { "c", x, y, NULL, 1 };
    const struct gpuplan_svg_target t = { "t", NAN, false };
    const struct gpuplan_svg_latency_chart l = {
        .common = { .title = "l" }, .curves = &curve, .n_curves = 1, .targets = &t, .n_targets = 1
    };
    assert_int_equal(gpuplan_svg_latency(&l, &b, &err), GPUPLAN_ERR_INVALID_INPUT);
    gpuplan_buf_release(&b);

    /* A buffer too small: the buffer's status, never a crash. */
    gpuplan_buf_init(&b, 100);
    assert_int_equal(sample_memory(&b, false, false, &err), GPUPLAN_ERR_TOO_LARGE);
    gpuplan_buf_release(&b);
}

/* Hostile labels: markup, invalid UTF-8, controls, huge; the output stays well formed. */
static void test_hostile_labels(void **state)
{
    (void)state;
    static char huge[20000];
    memset(huge, 'W', sizeof huge - 1);
    const char *const labels[] = {
        "</text><script>alert(1)</script>",
        "\xff\xfe bad \xc0\xaf",
        "tab\there\nnew\x01line",
        huge,
        "&amp; &#x3c; ]]>",
        "",
        "Щ×—…",
    };
    const size_t n = sizeof labels / sizeof labels[0];
    struct gpuplan_svg_point pts[7];
    double xs[7], ys[7];
    for (size_t i = 0; i < n; i++) {
        pts[i] = (struct gpuplan_svg_point){ 1 + (double)i, 10 + (double)i, labels[i], i % 2 == 0,
                                             i == 3 };
        xs[i] = (double)i * 10;
        ys[i] = (double)(i * i);
    }
    struct gpuplan_buf b;
    struct gpuplan_error err;
    gpuplan_buf_init(&b, GPUPLAN_BUF_DEFAULT_MAX_BYTES);
    const struct gpuplan_svg_scatter sc = {
        .common = { .id = "h", .title = huge, .desc = labels[0], .show_title = true },
        .x = { .label = labels[1], .unit = labels[0] },
        .y = { .label = huge, .unit = labels[2] },
        .points = pts,
        .n_points = n,
        .draw_front = true,
        .pareto_label = labels[0],
        .other_label = huge,
        .highlight_label = labels[1],
    };
    assert_int_equal(gpuplan_svg_scatter(&sc, &b, &err), GPUPLAN_OK);
    check_svg(gpuplan_buf_str(&b));
    assert_true(b.len < 64 * 1024); /* labels are cut */
    gpuplan_buf_reset(&b);

    const struct gpuplan_svg_curve curve = { huge, xs, ys, labels, n };
    const struct gpuplan_svg_target targets[] = { { labels[0], 20, false }, { huge, 30, true } };
    const struct gpuplan_svg_latency_chart l = {
        .common = { .title = labels[0] },
        .x = { .unit = labels[2] },
        .curves = &curve,
        .n_curves = 1,
        .targets = targets,
        .n_targets = 2,
    };
    assert_int_equal(gpuplan_svg_latency(&l, &b, &err), GPUPLAN_OK);
    check_svg(gpuplan_buf_str(&b));
    gpuplan_buf_reset(&b);

    struct gpuplan_svg_mem_bar bar = { .label = huge, .usable_gib = 80, .part_gib = { 1e-9, 70 } };
    struct gpuplan_svg_mem_chart m = {
        .common = { .title = labels[1] },
        .bars = &bar,
        .n_bars = 1,
        .unit = labels[0],
        .axis_label = huge,
        .usable_label = labels[2],
    };
    for (size_t p = 0; p < GPUPLAN_SVG_MEM_PART_COUNT; p++)
        m.part_labels[p] = labels[p % n];
    assert_int_equal(gpuplan_svg_memory(&m, &b, &err), GPUPLAN_OK);
    check_svg(gpuplan_buf_str(&b));
    gpuplan_buf_release(&b);
}

/* 512 points in a crowd: every label placed or counted as left out, none overlapping. */
static void test_crowd(void **state)
{
    (void)state;
    static struct gpuplan_svg_point pts[GPUPLAN_SVG_MAX_POINTS];
    static char names[GPUPLAN_SVG_MAX_POINTS][24];
    uint64_t seed = 0x9E3779B97F4A7C15ull;
    for (size_t i = 0; i < GPUPLAN_SVG_MAX_POINTS; i++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        const double u = (double)(seed >> 11) / 9007199254740992.0;
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        const double v = (double)(seed >> 11) / 9007199254740992.0;
        snprintf(names[i], sizeof names[i], "%zu×GPU-%zu", i % 16 + 1, i);
        pts[i] = (struct gpuplan_svg_point){ 1 + 99 * u, 100 + 1e5 * v * v, names[i], i % 7 == 0,
                                             i == 5 };
    }
    struct gpuplan_buf b;
    struct gpuplan_error err;
    gpuplan_buf_init(&b, GPUPLAN_BUF_DEFAULT_MAX_BYTES);
    const struct gpuplan_svg_scatter sc = {
        .common = { .title = "crowd", .width_px = 390 },
        .x = { .label = "time", .unit = "h" },
        .y = { .label = "cost", .unit = "USD", .is_log = true },
        .points = pts,
        .n_points = GPUPLAN_SVG_MAX_POINTS,
        .draw_front = true,
        .pareto_label = "front",
    };
    assert_int_equal(gpuplan_svg_scatter(&sc, &b, &err), GPUPLAN_OK);
    const char *s = gpuplan_buf_str(&b);
    check_svg(s);
    const char *dropped = strstr(s, "data-dropped=\"");
    assert_non_null(dropped);
    assert_true(strtoul(dropped + 14, NULL, 10) > 0); /* a crowd cannot all be labelled */
    assert_non_null(strstr(s, ">6×GPU-5</text>"));    /* the highlight is labelled first */
    gpuplan_buf_release(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_text_width), cmocka_unit_test(test_put_text),
        cmocka_unit_test(test_nice_ticks), cmocka_unit_test(test_format_tick),
        cmocka_unit_test(test_samples),    cmocka_unit_test(test_sample_content),
        cmocka_unit_test(test_bad_input),  cmocka_unit_test(test_hostile_labels),
        cmocka_unit_test(test_crowd),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
