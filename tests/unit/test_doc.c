/*
 * test_doc.c - the document builder (src/lib/render/doc.c): a sample
 * proposal in HTML (English, Russian) and Markdown against its golden files
 * under tests/golden/svg/ (GOLDEN_UPDATE=1 rewrites them; the browser test
 * tests/browser/test_charts.py opens the HTML ones at 1280 and 390 px and
 * prints them); the HTML self-contained, balanced, escaped, every table
 * cell labelled for the phone layout; Markdown escaping and fences (table);
 * bad input refused and sticky.
 */
#include "test_common.h"

#include <stdbool.h>

#include "chart_samples.h"
#include "gpuplan/buf.h"
#include "render/doc_internal.h"
#include "render/svg_internal.h"

#define GOLDEN_DIR "tests/golden/svg/"

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
        fail_msg("no golden file %s (GOLDEN_UPDATE=1 build/tests/test_doc writes it)", path);
    if (len != got->len || memcmp(want, got->data, len) != 0) {
        size_t i = 0;
        while (i < len && i < got->len && want[i] == (uint8_t)got->data[i])
            i++;
        free(want);
        fail_msg("%s differs from the output at byte %zu (GOLDEN_UPDATE=1 rewrites it)", path, i);
    }
    free(want);
}

/* ---- the sample proposal ---- */

static const char ds_config[] =
    "{\n"
    "  \"train_micro_batch_size_per_gpu\": 2,\n"
    "  \"gradient_accumulation_steps\": 8,\n"
    "  \"bf16\": { \"enabled\": true },\n"
    "  \"zero_optimization\": { \"stage\": 3, \"overlap_comm\": true }\n"
    "}\n";
static const char torchrun[] =
    "torchrun --nnodes 1 --nproc-per-node 8 train.py --deepspeed ds_config.json \\\n"
    "    --model meta-llama/Llama-3.1-70B --lora-r 16 --seq-len 4096 # a long line that the "
    "phone layout must wrap rather than scroll: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n";

/* An SVG sample into `svg`, then a figure of it. */
static void put_figure(struct gpuplan_doc *doc,
                       struct gpuplan_buf *svg,
                       enum gpuplan_status st,
                       const char *id,
                       const char *caption,
                       const char *md_src)
{
    assert_int_equal(st, GPUPLAN_OK);
    const struct gpuplan_doc_figure fig = { id, caption, svg->data, svg->len, md_src };
    gpuplan_doc_figure(doc, &fig);
    gpuplan_buf_reset(svg);
}

static enum gpuplan_status build_sample(struct gpuplan_buf *out,
                                        enum gpuplan_doc_format format,
                                        bool ru,
                                        struct gpuplan_error *err)
{
    struct gpuplan_doc doc;
    const struct gpuplan_doc_head head = {
        .lang = ru ? "ru" : "en",
        .title = ru ? "Предложение по GPU-серверу: Llama 3.1 70B, дообучение LoRA"
                    : "GPU server proposal: Llama 3.1 70B, LoRA fine-tuning",
        .subtitle = ru ? "Для Example Corp. <тест & экранирование>"
                       : "Prepared for Example Corp. <escaping & test>",
        .date_label = ru ? "Дата" : "Date",
        .date = "2025-12-01",
        .footer = ru ? "Оценки gpuplan, а не предложения поставщиков."
                     : "Estimates from gpuplan, not vendor quotes.",
        .paper = GPUPLAN_DOC_PAPER_ANY,
    };
    gpuplan_doc_begin(&doc, out, format, &head);

    gpuplan_doc_section_begin(&doc, "summary", ru ? "Итог" : "Summary", GPUPLAN_DOC_KEEP);
    const struct gpuplan_doc_fact facts[] = {
        { ru ? "Модель" : "Model", "Llama 3.1 70B" },
        { ru ? "Метод" : "Method", "LoRA r=16, bf16, ZeRO-3" },
        { ru ? "Сервер" : "Recommended server", "8×H200 141GB, 1 node" },
        { ru ? "Время обучения" : "Time to train", ru ? "9,8 ч" : "9.8 h" },
        { ru ? "Стоимость в облаке" : "Cloud cost", "$2,650" },
        { ru ? "Окупаемость" : "Break-even", ru ? "14,9 мес." : "14.9 months" },
    };
    gpuplan_doc_facts(&doc, facts, sizeof facts / sizeof facts[0]);

    const struct gpuplan_doc_bom_row rows[] = {
        { "GPU", "NVIDIA H200 SXM 141GB", 8, true, 31000, 248000 },
        { ru ? "Платформа" : "Platform", "Supermicro SYS-821GE-TNHR", 1, true, 78000, 78000 },
        { "CPU", "2× Intel Xeon Platinum 8480+", 2, false, 0, 0 },
        { ru ? "Память" : "Memory", "DDR5-4800 RDIMM 64 GB", 32, true, 310, 9920 },
        { "NVMe", "U.2 7.68 TB", 4, true, 1150, 4600 },
        { ru ? "Сеть" : "Network", "NVIDIA ConnectX-7 400G", 4, true, 2200, 8800 },
    };
    const struct gpuplan_doc_bom bom = {
        .id = "bom",
        .caption = ru ? "Спецификация" : "Bill of materials",
        .item_header = ru ? "Позиция" : "Item",
        .detail_header = ru ? "Модель" : "Detail",
        .quantity_header = ru ? "Кол-во" : "Qty",
        .unit_header = ru ? "Цена" : "Unit price",
        .line_header = ru ? "Сумма" : "Line total",
        .total_label = ru ? "Итого" : "Total",
        .unpriced = ru ? "в составе платформы" : "with the platform",
        .rows = rows,
        .n_rows = sizeof rows / sizeof rows[0],
        .has_total = true,
        .total_usd = 349320,
    };
    gpuplan_doc_bom(&doc, &bom);
    gpuplan_doc_note(&doc, ru ? "Цены — из каталога gpuplan; НДС и доставка не включены."
                              : "Prices are gpuplan's catalog list prices; tax and shipping "
                                "are not included.");
    gpuplan_doc_section_end(&doc);

    gpuplan_doc_section_begin(&doc, "plans", ru ? "Варианты" : "Candidate plans",
                              GPUPLAN_DOC_BREAK_BEFORE);
    const struct gpuplan_doc_column cols[] = {
        { "GPU", GPUPLAN_DOC_LEFT, true },
        { ru ? "GPU на узел" : "GPUs per node", GPUPLAN_DOC_RIGHT, false },
        { ru ? "Узлы" : "Nodes", GPUPLAN_DOC_RIGHT, false },
        { ru ? "Шардирование" : "Sharding", GPUPLAN_DOC_LEFT, false },
        { ru ? "Микробатч" : "Micro-batch", GPUPLAN_DOC_RIGHT, false },
        { ru ? "Память на GPU, ГиБ" : "Memory per GPU, GiB", GPUPLAN_DOC_RIGHT, false },
        { ru ? "Время, ч" : "Time, h", GPUPLAN_DOC_RIGHT, false },
        { ru ? "Стоимость" : "Cloud cost", GPUPLAN_DOC_RIGHT, false },
        { ru ? "Примечание" : "Note", GPUPLAN_DOC_LEFT, false },
    };
    static const char *const cells_en[] = {
        "H200 SXM 141GB",
        "8",
        "1",
        "ZeRO-3",
        "2",
        "61.2",
        "9.8",
        "$2,650",
        "recommended",
        "H100 SXM 80GB",
        "8",
        "1",
        "ZeRO-3",
        "1",
        "57.1",
        "11.5",
        "$2,390",
        "",
        "H100 SXM 80GB",
        "8",
        "2",
        "ZeRO-3 + TP 2",
        "1",
        "38.4",
        "5.3",
        "$3,420",
        "two nodes: needs InfiniBand NDR between them",
        "A100 SXM 80GB",
        "8",
        "1",
        "ZeRO-3, activation checkpointing",
        "1",
        "71.0",
        "24.9",
        "$2,960",
        "",
        "L40S 48GB",
        "8",
        "1",
        "ZeRO-3, CPU offload of the optimizer",
        "1",
        "44.1",
        "47.2",
        "$2,050",
        "PCIe only: slower all-gather",
    };
    static const char *const cells_ru[] = {
        "H200 SXM 141GB",
        "8",
        "1",
        "ZeRO-3",
        "2",
        "61,2",
        "9,8",
        "$2,650",
        "рекомендуется",
        "H100 SXM 80GB",
        "8",
        "1",
        "ZeRO-3",
        "1",
        "57,1",
        "11,5",
        "$2,390",
        "",
        "H100 SXM 80GB",
        "8",
        "2",
        "ZeRO-3 + TP 2",
        "1",
        "38,4",
        "5,3",
        "$3,420",
        "два узла: нужен InfiniBand NDR между ними",
        "A100 SXM 80GB",
        "8",
        "1",
        "ZeRO-3, чекпоинтинг активаций",
        "1",
        "71,0",
        "24,9",
        "$2,960",
        "",
        "L40S 48GB",
        "8",
        "1",
        "ZeRO-3, выгрузка оптимизатора в ОЗУ",
        "1",
        "44,1",
        "47,2",
        "$2,050",
        "только PCIe: медленнее all-gather",
    };
    const struct gpuplan_doc_table plans = {
        .id = "plans-table",
        .caption = ru ? "Планы, которые помещаются" : "Plans that fit",
        .columns = cols,
        .n_columns = sizeof cols / sizeof cols[0],
        .cells = ru ? cells_ru : cells_en,
        .n_rows = 5,
        .highlight_row = 0,
    };
    gpuplan_doc_table(&doc, &plans);
    gpuplan_doc_section_end(&doc);

    gpuplan_doc_section_begin(&doc, "charts", ru ? "Графики" : "Charts", GPUPLAN_DOC_BREAK_BEFORE);
    struct gpuplan_buf svg;
    gpuplan_buf_init(&svg, GPUPLAN_BUF_DEFAULT_MAX_BYTES);
    put_figure(&doc, &svg, sample_memory(&svg, ru, true, err), "fig-memory",
               ru ? "Память на GPU по частям" : "Memory per GPU, by part", "memory.svg");
    put_figure(&doc, &svg, sample_scatter(&svg, ru, true, err), "fig-pareto",
               ru ? "Время и стоимость каждого плана" : "Time and cost of each plan",
               "scatter.svg");
    put_figure(&doc, &svg, sample_cost(&svg, ru, true, err), "fig-tco",
               ru ? "Свой сервер против облака" : "Own against cloud", "cost.svg");
    put_figure(&doc, &svg, sample_latency(&svg, false, ru, true, err), "fig-tpot",
               ru ? "TPOT при росте нагрузки" : "TPOT as load grows", "latency-tpot.svg");
    put_figure(&doc, &svg, sample_latency(&svg, true, ru, true, err), "fig-ttft",
               ru ? "TTFT при росте нагрузки" : "TTFT as load grows", NULL);
    gpuplan_buf_release(&svg);
    gpuplan_doc_section_end(&doc);

    gpuplan_doc_section_begin(&doc, "launch", ru ? "Конфигурация запуска" : "Launch configuration",
                              0);
    const struct gpuplan_doc_code ds = {
        .summary = "DeepSpeed",
        .filename = "ds_config.json",
        .language = "json",
        .text = ds_config,
        .len = sizeof ds_config - 1,
    };
    const struct gpuplan_doc_code tr = {
        .summary = "torchrun",
        .filename = "launch.sh",
        .language = "sh",
        .text = torchrun,
        .len = sizeof torchrun - 1,
        .is_open = true,
    };
    gpuplan_doc_code(&doc, &ds);
    gpuplan_doc_code(&doc, &tr);
    gpuplan_doc_section_end(&doc);
    return gpuplan_doc_end(&doc, err);
}

/* ---- checks ---- */

static size_t count(const char *s, const char *what)
{
    size_t n = 0;
    for (const char *p = strstr(s, what); p; p = strstr(p + 1, what))
        n++;
    return n;
}

/* Tags balanced (void elements aside, <svg> content too), no script, nothing fetched. */
static void check_html(const char *s, const char *lang)
{
    static const char *const void_tags[] = { "meta", "br", "hr", "img", "input", "link", NULL };
    char want[64];
    snprintf(want, sizeof want, "<!DOCTYPE html>\n<html lang=\"%s\">", lang);
    assert_true(strncmp(s, want, strlen(want)) == 0);
    assert_int_equal(count(s, "<style>"), 1);
    assert_int_equal(count(s, "<script"), 0);
    assert_int_equal(count(s, " src="), 0);
    assert_int_equal(count(s, "href"), 0);
    assert_int_equal(count(s, "url("), 0);
    assert_int_equal(count(s, "@import"), 0);
    assert_int_equal(count(s, "https:"), 0);
    /* The only http: is the SVG namespace, once per figure. */
    assert_int_equal(count(s, "http:"), count(s, "xmlns=\"http://www.w3.org/2000/svg\""));
    assert_non_null(strstr(s, "Content-Security-Policy"));
    assert_non_null(strstr(s, "@page"));
    assert_non_null(strstr(s, "@media print"));
    assert_non_null(strstr(s, "@media (max-width:640px)"));

    char stack[64][16];
    size_t depth = 0;
    bool in_style = false;
    for (const char *p = s; *p; p++) {
        if (in_style) {
            if (strncmp(p, "</style>", 8) == 0)
                in_style = false;
            else
                continue;
        }
        if (*p != '<')
            continue;
        if (strncmp(p, "<!DOCTYPE", 9) == 0)
            continue;
        const char *end = strchr(p, '>');
        assert_non_null(end);
        const bool closing = p[1] == '/', self = end[-1] == '/';
        char name[16] = { 0 };
        const char *n0 = p + 1 + closing;
        const size_t len = strcspn(n0, " />\n");
        assert_true(len > 0 && len < sizeof name);
        memcpy(name, n0, len);
        bool is_void = false;
        for (size_t i = 0; void_tags[i]; i++)
            is_void |= strcmp(void_tags[i], name) == 0;
        if (closing) {
            assert_true(depth > 0);
            if (strcmp(stack[depth - 1], name) != 0)
                fail_msg("</%s> closes <%s>", name, stack[depth - 1]);
            depth--;
        } else if (!self && !is_void) {
            assert_true(depth < 64);
            snprintf(stack[depth++], sizeof stack[0], "%s", name);
            if (strcmp(name, "style") == 0)
                in_style = true;
        }
        p = end;
    }
    assert_int_equal(depth, 0);
    /* Every body cell has its label for the phone's cards. */
    assert_int_equal(count(s, "<td"), count(s, "<td") - count(s, "<td>"));
    assert_int_equal(count(s, "<td"), count(s, " data-label=\""));
}

static void test_sample_documents(void **state)
{
    (void)state;
    const struct {
        const char *golden;
        enum gpuplan_doc_format format;
        bool ru;
    } rows[] = {
        { "doc-sample.html", GPUPLAN_DOC_HTML, false },
        { "doc-sample-ru.html", GPUPLAN_DOC_HTML, true },
        { "doc-sample.md", GPUPLAN_DOC_MD, false },
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct gpuplan_buf out, again;
        struct gpuplan_error err;
        gpuplan_error_init(&err);
        gpuplan_buf_init(&out, GPUPLAN_BUF_DEFAULT_MAX_BYTES);
        gpuplan_buf_init(&again, GPUPLAN_BUF_DEFAULT_MAX_BYTES);
        if (build_sample(&out, rows[i].format, rows[i].ru, &err) != GPUPLAN_OK)
            fail_msg("%s: %s", rows[i].golden, err.message);
        assert_int_equal(build_sample(&again, rows[i].format, rows[i].ru, &err), GPUPLAN_OK);
        assert_int_equal(out.len, again.len);
        assert_memory_equal(out.data, again.data, out.len);
        const char *s = gpuplan_buf_str(&out);
        if (rows[i].format == GPUPLAN_DOC_HTML) {
            check_html(s, rows[i].ru ? "ru" : "en");
            assert_int_equal(count(s, "<figure"), 5);
            assert_non_null(strstr(s, "<table class=\"gp-table gp-bom gp-keep\" id=\"bom\">"));
            assert_non_null(strstr(s, "<section class=\"gp-section gp-break\" id=\"plans\">"));
            assert_non_null(strstr(s, "<tr class=\"gp-hl\">"));
            assert_non_null(strstr(s, "<details class=\"gp-code\">"));
            assert_non_null(strstr(s, "<details class=\"gp-code\" open>"));
            assert_true(strstr(s, "&lt;escaping &amp; test&gt;") ||
                        strstr(s, "&lt;тест &amp; экранирование&gt;"));
            assert_non_null(strstr(s, "$349,320"));
            assert_null(strstr(s, "\"train_micro_batch_size_per_gpu\""));
            assert_non_null(strstr(s, "&quot;train_micro_batch_size_per_gpu&quot;"));
        } else {
            assert_true(strncmp(s,
                                "# GPU server proposal: Llama 3.1 70B, LoRA fine-tuning\n\n"
                                "Prepared for Example Corp. \\<escaping \\& test\\>\n\n"
                                "**Date:** 2025-12-01\n\n",
                                strlen("# GPU server proposal: Llama 3.1 70B, LoRA fine-tuning\n\n"
                                       "Prepared for Example Corp. \\<escaping \\& test\\>\n\n"
                                       "**Date:** 2025-12-01\n\n")) == 0);
            assert_non_null(strstr(s, "| Item | Detail | Qty | Unit price | Line total |\n"
                                      "| --- | --- | ---: | ---: | ---: |\n"));
            assert_non_null(strstr(s, "| **Total** |  |  |  | **\\$349,320** |\n"));
            assert_non_null(strstr(s, "```json\n{\n"));
            assert_non_null(strstr(s, "![Memory per GPU, by part](memory.svg)"));
            assert_null(strstr(s, "<svg"));
            assert_null(strstr(s, " <escaping")); /* escaped: " \\<escaping" */
        }
        compare_golden(rows[i].golden, &out);
        gpuplan_buf_release(&out);
        gpuplan_buf_release(&again);
    }
}

/* ---- escaping ---- */

static void test_markdown_escaping(void **state)
{
    (void)state;
    const struct {
        const char *text;
        const char *want; /* as a paragraph */
    } rows[] = {
        { "plain text", "plain text\n\n" },
        { "# not a heading", "\\# not a heading\n\n" },
        { "- not a list", "\\- not a list\n\n" },
        { "12. not a list", "12\\. not a list\n\n" },
        { "2025 is a year", "2025 is a year\n\n" },
        { "9.8 h", "9.8 h\n\n" },
        { "3) not a list", "3\\) not a list\n\n" },
        { "-5 degrees", "-5 degrees\n\n" },
        { "---", "\\---\n\n" },
        { "> not a quote", "\\> not a quote\n\n" },
        { "+", "\\+\n\n" },
        { "a | b *c* _d_ [e](f) `g` <h> & $i$",
          "a \\| b \\*c\\* \\_d\\_ \\[e\\](f) \\`g\\` \\<h\\> \\& "
          "\\$i\\$\n\n" },
        { "line\nbreak\ttab", "line break tab\n\n" },
        { "bad \xff byte", "bad \xEF\xBF\xBD byte\n\n" },
        { "8×H100 — 80 GB", "8×H100 — 80 GB\n\n" },
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct gpuplan_buf out;
        struct gpuplan_doc doc;
        struct gpuplan_error err;
        gpuplan_buf_init(&out, 1 << 16);
        const struct gpuplan_doc_head head = { .lang = "en", .title = "t" };
        assert_int_equal(gpuplan_doc_begin(&doc, &out, GPUPLAN_DOC_MD, &head), GPUPLAN_OK);
        const size_t start = out.len;
        gpuplan_doc_paragraph(&doc, rows[i].text);
        assert_string_equal(gpuplan_buf_str(&out) + start, rows[i].want);
        assert_int_equal(gpuplan_doc_end(&doc, &err), GPUPLAN_OK);
        gpuplan_buf_release(&out);
    }
}

static void test_code_fences(void **state)
{
    (void)state;
    const struct {
        const char *text;
        const char *fence;
    } rows[] = {
        { "plain\n", "```" },
        { "has ``` inside\n", "````" },
        { "has ````` five", "``````" },
        { "`one`", "```" },
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct gpuplan_buf out;
        struct gpuplan_doc doc;
        struct gpuplan_error err;
        gpuplan_buf_init(&out, 1 << 16);
        const struct gpuplan_doc_head head = { .lang = "en", .title = "t" };
        gpuplan_doc_begin(&doc, &out, GPUPLAN_DOC_MD, &head);
        const struct gpuplan_doc_code code = {
            .summary = "s", .language = "sh", .text = rows[i].text, .len = strlen(rows[i].text)
        };
        gpuplan_doc_code(&doc, &code);
        assert_int_equal(gpuplan_doc_end(&doc, &err), GPUPLAN_OK);
        char want[64];
        snprintf(want, sizeof want, "\n%ssh\n", rows[i].fence);
        assert_non_null(strstr(gpuplan_buf_str(&out), want));
        snprintf(want, sizeof want, "\n%s\n\n", rows[i].fence);
        assert_non_null(strstr(gpuplan_buf_str(&out), want));
        gpuplan_buf_release(&out);
    }
}

/* Hostile text in every HTML field comes out escaped and the page stays balanced. */
static void test_html_escaping(void **state)
{
    (void)state;
    const char *const evil = "</td></table><script>alert(1)</script>\"' &amp;\x01\xff";
    struct gpuplan_buf out;
    struct gpuplan_doc doc;
    struct gpuplan_error err;
    gpuplan_buf_init(&out, 1 << 20);
    const struct gpuplan_doc_head head = { .lang = "en",
                                           .title = evil,
                                           .subtitle = evil,
                                           .date_label = evil,
                                           .date = evil,
                                           .footer = evil };
    gpuplan_doc_begin(&doc, &out, GPUPLAN_DOC_HTML, &head);
    gpuplan_doc_section_begin(&doc, "s", evil, 0);
    gpuplan_doc_paragraph(&doc, evil);
    gpuplan_doc_note(&doc, evil);
    const struct gpuplan_doc_fact fact = { evil, evil };
    gpuplan_doc_facts(&doc, &fact, 1);
    const struct gpuplan_doc_column col = { evil, GPUPLAN_DOC_RIGHT, true };
    const char *const cells[] = { evil, NULL };
    const struct gpuplan_doc_table t = { .caption = evil,
                                         .columns = &col,
                                         .n_columns = 1,
                                         .cells = cells,
                                         .n_rows = 2,
                                         .footer = cells,
                                         .highlight_row = SIZE_MAX };
    gpuplan_doc_table(&doc, &t);
    const struct gpuplan_doc_code code = {
        .summary = evil, .filename = evil, .text = evil, .len = strlen(evil)
    };
    gpuplan_doc_code(&doc, &code);
    gpuplan_doc_section_end(&doc);
    assert_int_equal(gpuplan_doc_end(&doc, &err), GPUPLAN_OK);
    const char *s = gpuplan_buf_str(&out);
    check_html(s, "en");
    assert_int_equal(count(s, "alert(1)"), count(s, "&lt;script&gt;alert(1)&lt;/script&gt;"));
    assert_null(strstr(s, "\xff"));
    assert_null(strstr(s, "\x01"));
    gpuplan_buf_release(&out);
}

/* ---- bad input ---- */

static void test_bad_input(void **state)
{
    (void)state;
    struct gpuplan_buf out;
    struct gpuplan_doc doc;
    struct gpuplan_error err;
    gpuplan_buf_init(&out, 1 << 20);
    const struct gpuplan_doc_head ok = { .lang = "en", .title = "t" };
    const struct gpuplan_doc_head no_title = { .lang = "en" };
    const struct gpuplan_doc_head bad_lang = { .lang = "en\"><script>", .title = "t" };
    assert_int_equal(gpuplan_doc_begin(&doc, &out, GPUPLAN_DOC_HTML, &no_title),
                     GPUPLAN_ERR_INVALID_INPUT);
    assert_int_equal(gpuplan_doc_end(&doc, &err), GPUPLAN_ERR_INVALID_INPUT);
    assert_non_null(strstr(err.message, "no title"));
    assert_int_equal(out.len, 0);
    assert_int_equal(gpuplan_doc_begin(&doc, &out, GPUPLAN_DOC_HTML, &bad_lang),
                     GPUPLAN_ERR_INVALID_INPUT);
    assert_int_equal(out.len, 0);

    /* Each row: one bad call after a good start; the status, and nothing after it is written. */
    struct gpuplan_doc_column cols[GPUPLAN_DOC_MAX_COLUMNS + 1];
    memset(cols, 0, sizeof cols);
    const char *cells[GPUPLAN_DOC_MAX_COLUMNS + 1] = { 0 };
    for (int kind = 0; kind < 9; kind++) {
        gpuplan_buf_reset(&out);
        gpuplan_error_init(&err);
        assert_int_equal(gpuplan_doc_begin(&doc, &out, GPUPLAN_DOC_HTML, &ok), GPUPLAN_OK);
        enum gpuplan_status want = GPUPLAN_ERR_INVALID_INPUT;
        if (kind == 0) {
            gpuplan_doc_section_begin(&doc, NULL, "open", 0); /* never ended */
            want = GPUPLAN_ERR_INTERNAL;
        } else if (kind == 1) {
            gpuplan_doc_section_end(&doc);
            want = GPUPLAN_ERR_INTERNAL;
        } else if (kind == 2) {
            const struct gpuplan_doc_table t = { .columns = cols,
                                                 .n_columns = GPUPLAN_DOC_MAX_COLUMNS + 1,
                                                 .cells = cells,
                                                 .n_rows = 1 };
            gpuplan_doc_table(&doc, &t);
            want = GPUPLAN_ERR_TOO_LARGE;
        } else if (kind == 3) {
            const struct gpuplan_doc_figure f = { NULL, "c", "<b>x</b>", 8, NULL };
            gpuplan_doc_figure(&doc, &f);
        } else if (kind == 4) {
            const struct gpuplan_doc_figure f = { NULL, "c", "<svg x/>", 8, "../etc/passwd" };
            gpuplan_doc_figure(&doc, &f);
        } else if (kind == 5) {
            const struct gpuplan_doc_code c = {
                .summary = "s", .language = "a b", .text = "x", .len = 1
            };
            gpuplan_doc_code(&doc, &c);
        } else if (kind == 6) {
            gpuplan_doc_section_begin(&doc, "bad id!", "h", 0);
        } else if (kind == 7) {
            for (int i = 0; i < GPUPLAN_DOC_MAX_DEPTH + 1; i++)
                gpuplan_doc_section_begin(&doc, NULL, "deep", 0);
            want = GPUPLAN_ERR_TOO_LARGE;
        } else {
            const struct gpuplan_doc_bom b = { .rows = NULL, .n_rows = 0 };
            gpuplan_doc_bom(&doc, &b);
        }
        const size_t len = out.len;
        gpuplan_doc_paragraph(&doc, "after the failure");
        /* Kind 0 fails only at the end. */
        assert_int_equal(out.len, kind == 0 ? len + strlen("<p>after the failure</p>\n") : len);
        if (gpuplan_doc_end(&doc, &err) != want)
            fail_msg("kind %d: status %d, want %d (%s)", kind, doc.status, want, err.message);
        assert_true(err.message[0] != 0);
    }
    gpuplan_buf_release(&out);

    /* The buffer's own cap. */
    gpuplan_buf_init(&out, 256);
    assert_int_equal(gpuplan_doc_begin(&doc, &out, GPUPLAN_DOC_HTML, &ok), GPUPLAN_OK);
    assert_int_equal(gpuplan_doc_end(&doc, &err), GPUPLAN_ERR_TOO_LARGE);
    gpuplan_buf_release(&out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sample_documents), cmocka_unit_test(test_markdown_escaping),
        cmocka_unit_test(test_code_fences),      cmocka_unit_test(test_html_escaping),
        cmocka_unit_test(test_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
