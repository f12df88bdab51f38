/*
 * doc.c - the proposal's document builder (doc_internal.h): one
 * self-contained HTML page with its print CSS, or Markdown of the same
 * structure.
 *
 * Layout decisions (docs/charts.md, "The document"): tables are real tables
 * at a desktop width and cards below 640 px (each cell shows its header from
 * data-label), so nothing scrolls sideways on a 390 px phone; print uses
 * @page margins that fit both A4 (210 x 297 mm) and Letter (216 x 279 mm),
 * keeps the bill of materials and each figure on one page, and shows code
 * blocks open. Not here: what the proposal says (the caller's sections).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/doc_internal.h"
#include "render/render_internal.h"
#include "render/svg_internal.h"
#include "util/i18n_internal.h"
#include "util/utf8_internal.h"

/*
 * Screen: a 1120 px column; print: 12 mm side margins leave 186 mm, the
 * width of A4 less margins and less than Letter's 192 mm, and 14 mm top and
 * bottom leave 251 mm of Letter's 279 mm height (A4 has more). Colours: text
 * #1b1f24 on white (16:1), muted #57606a (6.4:1), the accent the charts'
 * blue #0072b2 (5.2:1).
 */
const char gpuplan_doc_css[] =
    ":root{color-scheme:light}\n"
    "*{box-sizing:border-box}\n"
    "html{-webkit-text-size-adjust:100%;text-size-adjust:100%}\n"
    "body{margin:0;background:#fff;color:#1b1f24;"
    "font:15px/1.45 system-ui,-apple-system,\"Segoe UI\",\"DejaVu Sans\",sans-serif;"
    "-webkit-print-color-adjust:exact;print-color-adjust:exact}\n"
    ".gp-page{max-width:1120px;margin:0 auto;padding:24px 24px 40px}\n"
    ".gp-head{border-bottom:3px solid #0072b2;padding-bottom:8px;margin-bottom:12px}\n"
    "h1{font-size:1.6rem;line-height:1.2;margin:0 0 4px}\n"
    "h2{font-size:1.25rem;margin:1.3em 0 .5em}\n"
    "h3{font-size:1.05rem;margin:1.1em 0 .4em}\n"
    "h4{font-size:1rem;margin:1em 0 .3em}\n"
    ".gp-sub{margin:0;font-size:1.05rem}\n"
    ".gp-date{margin:4px 0 0;color:#57606a}\n"
    "p,li,dt,dd,th,td,caption,figcaption,summary{overflow-wrap:anywhere}\n"
    "p{margin:.4em 0 .7em}\n"
    ".gp-note{border-left:4px solid #e69f00;background:#fff8e6;padding:6px 10px}\n"
    ".gp-facts{display:grid;grid-template-columns:repeat(auto-fill,minmax(240px,1fr));"
    "gap:6px 20px;margin:.5em 0 1em}\n"
    ".gp-facts div{border-bottom:1px solid #d0d7de;padding:2px 0}\n"
    ".gp-facts dt{font-size:.85em;color:#57606a}\n"
    ".gp-facts dd{margin:0;font-weight:600}\n"
    "table.gp-table{width:100%;border-collapse:collapse;margin:.4em 0 1em;font-size:.95em}\n"
    ".gp-table caption{text-align:left;font-weight:600;padding:0 0 4px}\n"
    ".gp-table th,.gp-table td{border:1px solid #d0d7de;padding:5px 8px;text-align:left;"
    "vertical-align:top}\n"
    ".gp-table thead th{background:#f3f5f7;font-size:.9em}\n"
    ".gp-table .gp-num{text-align:right;font-variant-numeric:tabular-nums}\n"
    ".gp-table td.gp-num{white-space:nowrap}\n"
    ".gp-table tfoot td{font-weight:700;background:#f3f5f7}\n"
    ".gp-table tr.gp-hl td{background:#e8f1f8}\n"
    ".gp-keep{break-inside:avoid;page-break-inside:avoid}\n"
    ".gp-break{break-before:page;page-break-before:always}\n"
    ".gp-figure{margin:.6em 0 1.2em;break-inside:avoid;page-break-inside:avoid}\n"
    ".gp-figure svg{display:block;max-width:100%;height:auto}\n"
    ".gp-figure figcaption{color:#57606a;font-size:.9em;margin-top:4px}\n"
    ".gp-code{border:1px solid #d0d7de;border-radius:6px;padding:6px 10px;margin:.5em 0}\n"
    ".gp-code summary{cursor:pointer;font-weight:600}\n"
    ".gp-file{font-weight:400;color:#57606a;margin-left:.5em}\n"
    ".gp-code pre{margin:.5em 0 0;padding:8px;background:#f6f8fa;white-space:pre-wrap;"
    "overflow-wrap:anywhere;font:13px/1.4 \"DejaVu Sans Mono\",ui-monospace,monospace}\n"
    ".gp-foot{margin-top:2em;padding-top:6px;border-top:1px solid #d0d7de;color:#57606a;"
    "font-size:.85em}\n"
    "@media (min-width:900px),print{.gp-table:not(.gp-wide) th{min-width:5.5em}}\n"
    "@media (max-width:640px){\n"
    ".gp-page{padding:12px}\n"
    "h1{font-size:1.35rem}\n"
    ".gp-table,.gp-table caption,.gp-table tbody,.gp-table tfoot,.gp-table tr,.gp-table td"
    "{display:block;width:100%}\n"
    ".gp-table thead{position:absolute;width:1px;height:1px;overflow:hidden;"
    "clip:rect(0 0 0 0);white-space:nowrap}\n"
    ".gp-table tr{border:1px solid #d0d7de;border-radius:6px;margin:0 0 8px;padding:4px 8px}\n"
    ".gp-table td{border:0;padding:3px 0;display:grid;grid-template-columns:minmax(0,2fr) "
    "minmax(0,3fr);gap:8px}\n"
    ".gp-table td.gp-num{text-align:left}\n"
    ".gp-table td::before{content:attr(data-label);color:#57606a}\n"
    ".gp-table td.gp-key{display:block;font-weight:700;font-size:1.05em}\n"
    ".gp-table td.gp-key::before{content:none}\n"
    ".gp-table td:empty{display:none}\n"
    "}\n"
    "@media print{\n"
    "body{font-size:10pt}\n"
    ".gp-page{max-width:none;padding:0}\n"
    "h2,h3,h4{break-after:avoid;page-break-after:avoid}\n"
    ".gp-table tr{break-inside:avoid;page-break-inside:avoid}\n"
    ".gp-table thead{display:table-header-group}\n"
    ".gp-code{border:0;padding:0}\n"
    ".gp-code summary{list-style:none}\n"
    ".gp-code summary::-webkit-details-marker{display:none}\n"
    ".gp-code::details-content{content-visibility:visible;display:block}\n"
    "}\n";

/* ---- errors ---- */

static bool failed(const struct gpuplan_doc *doc)
{
    return doc->status != GPUPLAN_OK || doc->out->failed != GPUPLAN_OK;
}

/* `what`: a GPUPLAN_N_() message, translated here. */
static void fail(struct gpuplan_doc *doc, enum gpuplan_status code, const char *what)
{
    if (doc->status != GPUPLAN_OK)
        return;
    doc->status = gpuplan_error_set(&doc->err, code, "document", "%s", GPUPLAN_TR(what));
}

/* Whether `text` is a string the document takes: NULL or at most GPUPLAN_DOC_MAX_TEXT bytes. */
static bool text_ok(struct gpuplan_doc *doc, const char *text)
{
    if (text && strnlen(text, GPUPLAN_DOC_MAX_TEXT + 1) > GPUPLAN_DOC_MAX_TEXT) {
        fail(doc, GPUPLAN_ERR_TOO_LARGE, GPUPLAN_N_("a text of the document is longer than 1 MiB"));
        return false;
    }
    return true;
}

static bool id_ok(struct gpuplan_doc *doc, const char *id)
{
    if (!id || !id[0])
        return true;
    const size_t n = strlen(id);
    if (n <= 48 &&
        strspn(id, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-") == n)
        return true;
    fail(doc, GPUPLAN_ERR_INVALID_INPUT,
         GPUPLAN_N_("an id of the document is not 1 to 48 of A-Z a-z 0-9 _ -"));
    return false;
}

/* ---- escaping ---- */

static void html(struct gpuplan_doc *doc, const char *text)
{
    if (text)
        gpuplan_xml_put_span(doc->out, text, strlen(text), false);
}

/*
 * Whether the line s[0..len) starts a block where it stands (GitHub Flavored
 * Markdown 0.29, sections 4.2-4.3, 5.1-5.3): "# " (ATX heading), "> " (quote),
 * "- ", "+ ", "* " or "1. ", "1) " (list item), a line of '-' or '='
 * (thematic break, setext underline). Then its mark is escaped.
 */
static size_t block_mark_at(const unsigned char *s, size_t len)
{
    if (len == 0)
        return SIZE_MAX;
    const bool space_after = len == 1 || s[1] == ' ' || s[1] == '\t';
    if (s[0] == '#' || s[0] == '>')
        return 0;
    if ((s[0] == '-' || s[0] == '+') && space_after)
        return 0;
    if (s[0] == '-' || s[0] == '=') {
        size_t i = 0;
        while (i < len && (s[i] == s[0] || s[i] == ' '))
            i++;
        if (i == len)
            return 0;
    }
    size_t d = 0;
    while (d < len && d < 9 && s[d] >= '0' && s[d] <= '9')
        d++;
    if (d > 0 && d < len && (s[d] == '.' || s[d] == ')') &&
        (d + 1 == len || s[d + 1] == ' ' || s[d + 1] == '\t'))
        return d;
    return SIZE_MAX;
}

/*
 * Markdown text on one line: the characters that could start syntax inside
 * a line backslash-escaped (any ASCII punctuation may be, GFM 0.29 section
 * 2.4), and the mark of a block the line would start; line breaks and
 * controls as spaces; bytes that are not UTF-8 as U+FFFD.
 */
static void md(struct gpuplan_doc *doc, const char *text)
{
    if (!text)
        return;
    const unsigned char *s = (const unsigned char *)text;
    const size_t len = strlen(text);
    const size_t mark = block_mark_at(s, len);
    for (size_t i = 0; i < len;) {
        const size_t n = gpuplan_utf8_sequence_len(s + i, len - i);
        if (n == 0) {
            gpuplan_buf_puts(doc->out, "\xEF\xBF\xBD");
            i++;
            continue;
        }
        if (n > 1) {
            gpuplan_buf_append(doc->out, s + i, n);
            i += n;
            continue;
        }
        const char c = (char)s[i];
        if (s[i] < 0x20 || s[i] == 0x7f)
            gpuplan_buf_puts(doc->out, " ");
        else if (i == mark || strchr("\\`*_[]<>|~&$", c))
            gpuplan_buf_printf(doc->out, "\\%c", c);
        else
            gpuplan_buf_append(doc->out, &c, 1);
        i++;
    }
}

/* ---- the page ---- */

static bool lang_ok(const char *lang)
{
    const size_t n = lang ? strlen(lang) : 0;
    return n >= 2 && n <= 16 &&
           strspn(lang, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-") == n;
}

enum gpuplan_status gpuplan_doc_begin(struct gpuplan_doc *doc,
                                      struct gpuplan_buf *out,
                                      enum gpuplan_doc_format format,
                                      const struct gpuplan_doc_head *head)
{
    memset(doc, 0, sizeof *doc);
    doc->out = out;
    doc->format = format;
    gpuplan_error_init(&doc->err);
    if (!head || !head->title || !head->title[0]) {
        fail(doc, GPUPLAN_ERR_INVALID_INPUT, GPUPLAN_N_("the document has no title"));
        return doc->status;
    }
    if (!lang_ok(head->lang)) {
        fail(doc, GPUPLAN_ERR_INVALID_INPUT,
             GPUPLAN_N_("the document's language is not 2 to 16 of a-z A-Z -"));
        return doc->status;
    }
    if (!text_ok(doc, head->title) || !text_ok(doc, head->subtitle) ||
        !text_ok(doc, head->date_label) || !text_ok(doc, head->date) || !text_ok(doc, head->footer))
        return doc->status;
    doc->footer = head->footer;
    if (format == GPUPLAN_DOC_MD) {
        gpuplan_buf_puts(out, "# ");
        md(doc, head->title);
        gpuplan_buf_puts(out, "\n\n");
        if (head->subtitle) {
            md(doc, head->subtitle);
            gpuplan_buf_puts(out, "\n\n");
        }
        if (head->date) {
            if (head->date_label) {
                gpuplan_buf_puts(out, "**");
                md(doc, head->date_label);
                gpuplan_buf_puts(out, ":** ");
            }
            md(doc, head->date);
            gpuplan_buf_puts(out, "\n\n");
        }
        return doc->status;
    }
    gpuplan_buf_printf(out,
                       "<!DOCTYPE html>\n<html lang=\"%s\">\n<head>\n<meta charset=\"utf-8\">\n"
                       "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                       "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src "
                       "'none'; style-src 'unsafe-inline'\">\n<title>",
                       head->lang);
    html(doc, head->title);
    gpuplan_buf_puts(out, "</title>\n<style>\n");
    if (head->paper == GPUPLAN_DOC_PAPER_A4)
        gpuplan_buf_puts(out, "@page{size:A4;margin:14mm 12mm}\n");
    else if (head->paper == GPUPLAN_DOC_PAPER_LETTER)
        gpuplan_buf_puts(out, "@page{size:letter;margin:14mm 12mm}\n");
    else
        gpuplan_buf_puts(out, "@page{margin:14mm 12mm}\n");
    gpuplan_buf_puts(out, gpuplan_doc_css);
    gpuplan_buf_puts(out, gpuplan_svg_css);
    gpuplan_buf_puts(out, "\n</style>\n</head>\n<body>\n<div class=\"gp-page\">\n"
                          "<header class=\"gp-head\">\n<h1>");
    html(doc, head->title);
    gpuplan_buf_puts(out, "</h1>\n");
    if (head->subtitle) {
        gpuplan_buf_puts(out, "<p class=\"gp-sub\">");
        html(doc, head->subtitle);
        gpuplan_buf_puts(out, "</p>\n");
    }
    if (head->date) {
        gpuplan_buf_puts(out, "<p class=\"gp-date\">");
        if (head->date_label) {
            html(doc, head->date_label);
            gpuplan_buf_puts(out, ": ");
        }
        gpuplan_buf_puts(out, "<time>");
        html(doc, head->date);
        gpuplan_buf_puts(out, "</time></p>\n");
    }
    gpuplan_buf_puts(out, "</header>\n<main>\n");
    return doc->status;
}

void gpuplan_doc_section_begin(struct gpuplan_doc *doc,
                               const char *id,
                               const char *heading,
                               unsigned flags)
{
    if (failed(doc) || !id_ok(doc, id) || !text_ok(doc, heading))
        return;
    if (doc->depth >= GPUPLAN_DOC_MAX_DEPTH) {
        fail(doc, GPUPLAN_ERR_TOO_LARGE, GPUPLAN_N_("sections of the document nest deeper than 3"));
        return;
    }
    const unsigned level = doc->depth + 2;
    doc->depth++;
    struct gpuplan_buf *out = doc->out;
    if (doc->format == GPUPLAN_DOC_MD) {
        if (heading) {
            for (unsigned i = 0; i < level; i++)
                gpuplan_buf_puts(out, "#");
            gpuplan_buf_puts(out, " ");
            md(doc, heading);
            gpuplan_buf_puts(out, "\n\n");
        }
        return;
    }
    gpuplan_buf_printf(out, "<section class=\"gp-section%s%s\"",
                       flags & GPUPLAN_DOC_BREAK_BEFORE ? " gp-break" : "",
                       flags & GPUPLAN_DOC_KEEP ? " gp-keep" : "");
    if (id && id[0])
        gpuplan_buf_printf(out, " id=\"%s\"", id);
    gpuplan_buf_puts(out, ">\n");
    if (heading) {
        gpuplan_buf_printf(out, "<h%u>", level);
        html(doc, heading);
        gpuplan_buf_printf(out, "</h%u>\n", level);
    }
}

void gpuplan_doc_section_end(struct gpuplan_doc *doc)
{
    if (failed(doc))
        return;
    if (doc->depth == 0) {
        fail(doc, GPUPLAN_ERR_INTERNAL,
             GPUPLAN_N_("a section of the document ends that did not begin"));
        return;
    }
    doc->depth--;
    if (doc->format == GPUPLAN_DOC_HTML)
        gpuplan_buf_puts(doc->out, "</section>\n");
}

void gpuplan_doc_paragraph(struct gpuplan_doc *doc, const char *text)
{
    if (failed(doc) || !text || !text_ok(doc, text))
        return;
    if (doc->format == GPUPLAN_DOC_MD) {
        md(doc, text);
        gpuplan_buf_puts(doc->out, "\n\n");
        return;
    }
    gpuplan_buf_puts(doc->out, "<p>");
    html(doc, text);
    gpuplan_buf_puts(doc->out, "</p>\n");
}

void gpuplan_doc_note(struct gpuplan_doc *doc, const char *text)
{
    if (failed(doc) || !text || !text_ok(doc, text))
        return;
    if (doc->format == GPUPLAN_DOC_MD) {
        gpuplan_buf_puts(doc->out, "> ");
        md(doc, text);
        gpuplan_buf_puts(doc->out, "\n\n");
        return;
    }
    gpuplan_buf_puts(doc->out, "<p class=\"gp-note\">");
    html(doc, text);
    gpuplan_buf_puts(doc->out, "</p>\n");
}

void gpuplan_doc_facts(struct gpuplan_doc *doc, const struct gpuplan_doc_fact *facts, size_t n)
{
    if (failed(doc) || n == 0)
        return;
    if (!facts || n > GPUPLAN_DOC_MAX_FACTS) {
        fail(doc, facts ? GPUPLAN_ERR_TOO_LARGE : GPUPLAN_ERR_INVALID_INPUT,
             GPUPLAN_N_("a facts list of the document has more than 64 entries, or none given"));
        return;
    }
    for (size_t i = 0; i < n; i++)
        if (!text_ok(doc, facts[i].key) || !text_ok(doc, facts[i].value))
            return;
    struct gpuplan_buf *out = doc->out;
    if (doc->format == GPUPLAN_DOC_MD) {
        for (size_t i = 0; i < n; i++) {
            gpuplan_buf_puts(out, "- **");
            md(doc, facts[i].key);
            gpuplan_buf_puts(out, ":** ");
            md(doc, facts[i].value);
            gpuplan_buf_puts(out, "\n");
        }
        gpuplan_buf_puts(out, "\n");
        return;
    }
    gpuplan_buf_puts(out, "<dl class=\"gp-facts\">\n");
    for (size_t i = 0; i < n; i++) {
        gpuplan_buf_puts(out, "<div><dt>");
        html(doc, facts[i].key);
        gpuplan_buf_puts(out, "</dt><dd>");
        html(doc, facts[i].value);
        gpuplan_buf_puts(out, "</dd></div>\n");
    }
    gpuplan_buf_puts(out, "</dl>\n");
}

/* ---- tables ---- */

static bool table_ok(struct gpuplan_doc *doc, const struct gpuplan_doc_table *t)
{
    if (!t->columns || t->n_columns == 0 || t->n_columns > GPUPLAN_DOC_MAX_COLUMNS) {
        fail(doc,
             t->n_columns > GPUPLAN_DOC_MAX_COLUMNS ? GPUPLAN_ERR_TOO_LARGE
                                                    : GPUPLAN_ERR_INVALID_INPUT,
             GPUPLAN_N_("a table of the document has no columns or more than 16"));
        return false;
    }
    if (t->n_rows > GPUPLAN_DOC_MAX_ROWS || (t->n_rows > 0 && !t->cells)) {
        fail(doc,
             t->n_rows > GPUPLAN_DOC_MAX_ROWS ? GPUPLAN_ERR_TOO_LARGE : GPUPLAN_ERR_INVALID_INPUT,
             GPUPLAN_N_("a table of the document has more than 1000 rows, or rows without cells"));
        return false;
    }
    if (!id_ok(doc, t->id) || !text_ok(doc, t->caption))
        return false;
    for (size_t c = 0; c < t->n_columns; c++)
        if (!text_ok(doc, t->columns[c].header))
            return false;
    for (size_t i = 0; i < t->n_rows * t->n_columns; i++)
        if (!text_ok(doc, t->cells[i]))
            return false;
    for (size_t c = 0; t->footer && c < t->n_columns; c++)
        if (!text_ok(doc, t->footer[c]))
            return false;
    return true;
}

/* The first column that says it is the key, or SIZE_MAX. */
static size_t key_column(const struct gpuplan_doc_table *t)
{
    for (size_t c = 0; c < t->n_columns; c++)
        if (t->columns[c].is_key)
            return c;
    return SIZE_MAX;
}

static void html_row(struct gpuplan_doc *doc,
                     const struct gpuplan_doc_table *t,
                     const char *const *cells,
                     bool highlight)
{
    struct gpuplan_buf *out = doc->out;
    const size_t key = key_column(t);
    gpuplan_buf_puts(out, highlight ? "<tr class=\"gp-hl\">" : "<tr>");
    for (size_t c = 0; c < t->n_columns; c++) {
        const bool num = t->columns[c].align == GPUPLAN_DOC_RIGHT;
        gpuplan_buf_puts(out, "<td");
        if (num || c == key)
            gpuplan_buf_printf(out, " class=\"%s%s%s\"", num ? "gp-num" : "",
                               num && c == key ? " " : "", c == key ? "gp-key" : "");
        if (t->columns[c].header) {
            gpuplan_buf_puts(out, " data-label=\"");
            html(doc, t->columns[c].header);
            gpuplan_buf_puts(out, "\"");
        }
        gpuplan_buf_puts(out, ">");
        html(doc, cells[c]);
        gpuplan_buf_puts(out, "</td>");
    }
    gpuplan_buf_puts(out, "</tr>\n");
}

/*
 * Headers keep a least width (5.5em: "Nodes" in bold) so that a squeezed
 * column does not break a word, in tables of up to 10 columns: 10 x 5.5em
 * at 12.8 px is 704 px, within the 1072 px of a 1120 px column at 900 px
 * and the 703 px of print; wider tables let headers wrap anywhere.
 */
#define WIDE_COLUMNS 10

static void html_table(struct gpuplan_doc *doc, const struct gpuplan_doc_table *t, const char *cls)
{
    struct gpuplan_buf *out = doc->out;
    gpuplan_buf_printf(out, "<table class=\"gp-table%s%s%s%s\"", cls ? " " : "", cls ? cls : "",
                       t->n_columns > WIDE_COLUMNS ? " gp-wide" : "", t->keep ? " gp-keep" : "");
    if (t->id && t->id[0])
        gpuplan_buf_printf(out, " id=\"%s\"", t->id);
    gpuplan_buf_puts(out, ">\n");
    if (t->caption) {
        gpuplan_buf_puts(out, "<caption>");
        html(doc, t->caption);
        gpuplan_buf_puts(out, "</caption>\n");
    }
    gpuplan_buf_puts(out, "<thead><tr>");
    for (size_t c = 0; c < t->n_columns; c++) {
        gpuplan_buf_puts(out, t->columns[c].align == GPUPLAN_DOC_RIGHT
                                  ? "<th scope=\"col\" class=\"gp-num\">"
                                  : "<th scope=\"col\">");
        html(doc, t->columns[c].header);
        gpuplan_buf_puts(out, "</th>");
    }
    gpuplan_buf_puts(out, "</tr></thead>\n<tbody>\n");
    for (size_t r = 0; r < t->n_rows; r++)
        html_row(doc, t, t->cells + r * t->n_columns, r == t->highlight_row);
    gpuplan_buf_puts(out, "</tbody>\n");
    if (t->footer) {
        gpuplan_buf_puts(out, "<tfoot>\n");
        html_row(doc, t, t->footer, false);
        gpuplan_buf_puts(out, "</tfoot>\n");
    }
    gpuplan_buf_puts(out, "</table>\n");
}

static void md_cells(struct gpuplan_doc *doc, size_t n, const char *const *cells, bool bold)
{
    struct gpuplan_buf *out = doc->out;
    gpuplan_buf_puts(out, "|");
    for (size_t c = 0; c < n; c++) {
        const bool has = cells[c] && cells[c][0];
        gpuplan_buf_puts(out, bold && has ? " **" : " ");
        md(doc, cells[c]);
        gpuplan_buf_puts(out, bold && has ? "** |" : " |");
    }
    gpuplan_buf_puts(out, "\n");
}

static void md_table(struct gpuplan_doc *doc, const struct gpuplan_doc_table *t)
{
    struct gpuplan_buf *out = doc->out;
    if (t->caption) {
        gpuplan_buf_puts(out, "**");
        md(doc, t->caption);
        gpuplan_buf_puts(out, "**\n\n");
    }
    const char *headers[GPUPLAN_DOC_MAX_COLUMNS];
    for (size_t c = 0; c < t->n_columns; c++)
        headers[c] = t->columns[c].header;
    md_cells(doc, t->n_columns, headers, false);
    gpuplan_buf_puts(out, "|");
    for (size_t c = 0; c < t->n_columns; c++)
        gpuplan_buf_puts(out, t->columns[c].align == GPUPLAN_DOC_RIGHT ? " ---: |" : " --- |");
    gpuplan_buf_puts(out, "\n");
    for (size_t r = 0; r < t->n_rows; r++)
        md_cells(doc, t->n_columns, t->cells + r * t->n_columns, r == t->highlight_row);
    if (t->footer)
        md_cells(doc, t->n_columns, t->footer, true);
    gpuplan_buf_puts(out, "\n");
}

static void put_table(struct gpuplan_doc *doc, const struct gpuplan_doc_table *t, const char *cls)
{
    if (failed(doc) || !table_ok(doc, t))
        return;
    if (doc->format == GPUPLAN_DOC_MD)
        md_table(doc, t);
    else
        html_table(doc, t, cls);
}

void gpuplan_doc_table(struct gpuplan_doc *doc, const struct gpuplan_doc_table *table)
{
    put_table(doc, table, NULL);
}

#define BOM_COLUMNS 5

void gpuplan_doc_bom(struct gpuplan_doc *doc, const struct gpuplan_doc_bom *bom)
{
    if (failed(doc))
        return;
    if (!bom->rows || bom->n_rows == 0 || bom->n_rows > GPUPLAN_DOC_MAX_ROWS) {
        fail(doc,
             bom->n_rows > GPUPLAN_DOC_MAX_ROWS ? GPUPLAN_ERR_TOO_LARGE : GPUPLAN_ERR_INVALID_INPUT,
             GPUPLAN_N_("a bill of materials has no rows or more than 1000"));
        return;
    }
    /* Money: whole dollars (gpuplan_format_usd); 32 bytes hold any double's. */
    enum { CELL = 40 };
    char(*money)[3][CELL] = calloc(bom->n_rows + 1, sizeof *money);
    const char **cells = calloc((bom->n_rows + 1) * BOM_COLUMNS, sizeof *cells);
    if (!money || !cells) {
        free(money);
        free(cells);
        fail(doc, GPUPLAN_ERR_NOMEM, GPUPLAN_N_("out of memory for a bill of materials"));
        return;
    }
    for (size_t r = 0; r < bom->n_rows; r++) {
        const struct gpuplan_doc_bom_row *row = &bom->rows[r];
        snprintf(money[r][0], CELL, "%llu", (unsigned long long)row->quantity);
        if (row->has_price) {
            gpuplan_format_usd(money[r][1], CELL, row->unit_usd);
            gpuplan_format_usd(money[r][2], CELL, row->line_usd);
        }
        const char **c = cells + r * BOM_COLUMNS;
        c[0] = row->item;
        c[1] = row->detail;
        c[2] = money[r][0];
        c[3] = row->has_price ? money[r][1] : bom->unpriced;
        c[4] = row->has_price ? money[r][2] : bom->unpriced;
    }
    const char *footer[BOM_COLUMNS] = { bom->total_label, NULL, NULL, NULL, NULL };
    if (bom->has_total) {
        gpuplan_format_usd(money[bom->n_rows][2], CELL, bom->total_usd);
        footer[4] = money[bom->n_rows][2];
    }
    const struct gpuplan_doc_column columns[BOM_COLUMNS] = {
        { bom->item_header, GPUPLAN_DOC_LEFT, true },
        { bom->detail_header, GPUPLAN_DOC_LEFT, false },
        { bom->quantity_header, GPUPLAN_DOC_RIGHT, false },
        { bom->unit_header, GPUPLAN_DOC_RIGHT, false },
        { bom->line_header, GPUPLAN_DOC_RIGHT, false },
    };
    const struct gpuplan_doc_table t = {
        .id = bom->id,
        .caption = bom->caption,
        .columns = columns,
        .n_columns = BOM_COLUMNS,
        .cells = cells,
        .n_rows = bom->n_rows,
        .footer = bom->has_total || bom->total_label ? footer : NULL,
        .highlight_row = SIZE_MAX,
        .keep = true,
    };
    put_table(doc, &t, "gp-bom");
    free(cells);
    free(money);
}

/* ---- code and figures ---- */

/* The longest run of backticks in text[0..len). */
static size_t longest_backticks(const char *text, size_t len)
{
    size_t best = 0, run = 0;
    for (size_t i = 0; i < len; i++) {
        run = text[i] == '`' ? run + 1 : 0;
        if (run > best)
            best = run;
    }
    return best;
}

static bool word_ok(const char *s)
{
    const size_t n = s ? strlen(s) : 0;
    return n <= 32 &&
           strspn(s ? s : "",
                  "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+_-") == n;
}

void gpuplan_doc_code(struct gpuplan_doc *doc, const struct gpuplan_doc_code *code)
{
    if (failed(doc))
        return;
    if (!code->summary || !code->summary[0] || (code->len > 0 && !code->text) ||
        !word_ok(code->language)) {
        fail(doc, GPUPLAN_ERR_INVALID_INPUT,
             GPUPLAN_N_("a code block of the document has no summary or text, or a language not of "
                        "A-Z a-z 0-9 + _ -"));
        return;
    }
    if (code->len > GPUPLAN_DOC_MAX_TEXT) {
        fail(doc, GPUPLAN_ERR_TOO_LARGE,
             GPUPLAN_N_("a code block of the document is longer than 1 MiB"));
        return;
    }
    if (!text_ok(doc, code->summary) || !text_ok(doc, code->filename))
        return;
    struct gpuplan_buf *out = doc->out;
    const bool has_lang = code->language && code->language[0];
    if (doc->format == GPUPLAN_DOC_MD) {
        gpuplan_buf_puts(out, "**");
        md(doc, code->summary);
        gpuplan_buf_puts(out, "**");
        if (code->filename) {
            gpuplan_buf_puts(out, " (");
            md(doc, code->filename);
            gpuplan_buf_puts(out, ")");
        }
        gpuplan_buf_puts(out, "\n\n");
        size_t fence = longest_backticks(code->text, code->len) + 1;
        if (fence < 3)
            fence = 3;
        for (size_t i = 0; i < fence; i++)
            gpuplan_buf_puts(out, "`");
        gpuplan_buf_printf(out, "%s\n", has_lang ? code->language : "");
        /* Raw text (a fence takes no escapes); the writer keeps it UTF-8 with no controls. */
        struct gpuplan_buf *o = out;
        const unsigned char *s = (const unsigned char *)code->text;
        for (size_t i = 0; i < code->len;) {
            const size_t n = s[i] ? gpuplan_utf8_sequence_len(s + i, code->len - i) : 0;
            if (n == 0) {
                gpuplan_buf_puts(o, "\xEF\xBF\xBD");
                i++;
            } else if (n == 1 && s[i] == '\r') {
                i++;
            } else if (n == 1 && (s[i] < 0x20 || s[i] == 0x7f) && s[i] != '\n' && s[i] != '\t') {
                gpuplan_buf_puts(o, " ");
                i++;
            } else {
                gpuplan_buf_append(o, s + i, n);
                i += n;
            }
        }
        if (code->len > 0 && code->text[code->len - 1] != '\n')
            gpuplan_buf_puts(out, "\n");
        for (size_t i = 0; i < fence; i++)
            gpuplan_buf_puts(out, "`");
        gpuplan_buf_puts(out, "\n\n");
        return;
    }
    gpuplan_buf_puts(out, code->is_open ? "<details class=\"gp-code\" open>\n<summary>"
                                        : "<details class=\"gp-code\">\n<summary>");
    html(doc, code->summary);
    if (code->filename) {
        gpuplan_buf_puts(out, "<span class=\"gp-file\">");
        html(doc, code->filename);
        gpuplan_buf_puts(out, "</span>");
    }
    gpuplan_buf_puts(out, "</summary>\n<pre");
    if (has_lang)
        gpuplan_buf_printf(out, " class=\"gp-lang-%s\"", code->language);
    gpuplan_buf_puts(out, "><code>");
    gpuplan_xml_put_span(out, code->text ? code->text : "", code->len, true);
    gpuplan_buf_puts(out, "</code></pre>\n</details>\n");
}

static bool src_ok(const char *src)
{
    const size_t n = src ? strlen(src) : 0;
    return n >= 1 && n <= 128 &&
           strspn(src, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._/-") == n &&
           src[0] != '/' && !strstr(src, "..");
}

void gpuplan_doc_figure(struct gpuplan_doc *doc, const struct gpuplan_doc_figure *fig)
{
    if (failed(doc) || !id_ok(doc, fig->id) || !text_ok(doc, fig->caption))
        return;
    if (!fig->caption || !fig->caption[0] || !fig->svg || fig->svg_len < 5 ||
        memcmp(fig->svg, "<svg ", 5) != 0 || (fig->md_src && !src_ok(fig->md_src))) {
        fail(doc, GPUPLAN_ERR_INVALID_INPUT,
             GPUPLAN_N_(
                 "a figure of the document needs a caption and an SVG from gpuplan_svg_*, and its "
                 "Markdown file a relative path of A-Z a-z 0-9 . _ / -"));
        return;
    }
    if (fig->svg_len > GPUPLAN_DOC_MAX_TEXT) {
        fail(doc, GPUPLAN_ERR_TOO_LARGE,
             GPUPLAN_N_("a figure of the document is larger than 1 MiB"));
        return;
    }
    struct gpuplan_buf *out = doc->out;
    if (doc->format == GPUPLAN_DOC_MD) {
        if (fig->md_src) {
            gpuplan_buf_puts(out, "![");
            md(doc, fig->caption);
            gpuplan_buf_printf(out, "](%s)\n\n", fig->md_src);
        }
        gpuplan_buf_puts(out, "*");
        md(doc, fig->caption);
        gpuplan_buf_puts(out, "*\n\n");
        return;
    }
    gpuplan_buf_puts(out, "<figure class=\"gp-figure\"");
    if (fig->id && fig->id[0])
        gpuplan_buf_printf(out, " id=\"%s\"", fig->id);
    gpuplan_buf_puts(out, ">\n");
    gpuplan_buf_append(out, fig->svg, fig->svg_len);
    gpuplan_buf_puts(out, "<figcaption>");
    html(doc, fig->caption);
    gpuplan_buf_puts(out, "</figcaption>\n</figure>\n");
}

enum gpuplan_status gpuplan_doc_end(struct gpuplan_doc *doc, struct gpuplan_error *err)
{
    if (!failed(doc) && doc->depth != 0)
        fail(doc, GPUPLAN_ERR_INTERNAL, GPUPLAN_N_("a section of the document was not ended"));
    if (!failed(doc)) {
        struct gpuplan_buf *out = doc->out;
        if (doc->format == GPUPLAN_DOC_MD) {
            if (doc->footer) {
                gpuplan_buf_puts(out, "---\n\n");
                md(doc, doc->footer);
                gpuplan_buf_puts(out, "\n");
            }
        } else {
            gpuplan_buf_puts(out, "</main>\n");
            if (doc->footer) {
                gpuplan_buf_puts(out, "<footer class=\"gp-foot\">");
                html(doc, doc->footer);
                gpuplan_buf_puts(out, "</footer>\n");
            }
            gpuplan_buf_puts(out, "</div>\n</body>\n</html>\n");
        }
    }
    if (doc->status != GPUPLAN_OK) {
        if (err)
            *err = doc->err;
        return doc->status;
    }
    return gpuplan_buf_status(doc->out, err);
}
