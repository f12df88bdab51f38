/*
 * doc_internal.h - a document builder for the customer proposal (doc.c):
 * one self-contained HTML page, or Markdown of the same structure.
 *
 * HTML: one <style> and nothing else from outside (no font, script or
 * image; a Content-Security-Policy that says so), `lang` on <html>, a
 * header with title and date, sections, key-value facts, tables that fit a
 * 1280 px window and turn into cards on a phone (every cell carries its
 * column's header; no sideways scroll), a bill of materials kept whole on
 * the first page, collapsible code blocks (<details>, printed open),
 * figures holding an SVG of svg_internal.h (made with omit_style: the
 * page's <style> has gpuplan_svg_css), print CSS for A4 and Letter
 * (@page margins; page breaks before the sections that ask for one).
 * Markdown (GitHub flavour): headings, paragraphs, tables, fenced code,
 * figures as an image link or their caption.
 *
 * Every string is the caller's, translated (labels, headings, the date:
 * the library reads no clock); every one is escaped here, for HTML or for
 * Markdown. A figure's SVG is copied as it is (it must come from a
 * gpuplan_svg_* function: it is checked to start with "<svg ").
 *
 * Calls append to the caller's buffer; a failure (bad input, a cap, the
 * buffer's own) is sticky: later calls do nothing and gpuplan_doc_end
 * returns it, with `err` filled.
 */
#ifndef GPUPLAN_DOC_INTERNAL_H
#define GPUPLAN_DOC_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpuplan/buf.h"
#include "gpuplan/error.h"

#define GPUPLAN_DOC_MAX_DEPTH   3          /* sections inside sections */
#define GPUPLAN_DOC_MAX_COLUMNS 16         /* columns of a table */
#define GPUPLAN_DOC_MAX_ROWS    1000       /* rows of a table */
#define GPUPLAN_DOC_MAX_FACTS   64         /* entries of a facts list */
#define GPUPLAN_DOC_MAX_TEXT    (1u << 20) /* bytes of one string (a code block: 1 MiB) */

enum gpuplan_doc_format { GPUPLAN_DOC_HTML, GPUPLAN_DOC_MD };

/* Paper: ANY sets no @page size (the printer's; content fits A4 and Letter), or one of them. */
enum gpuplan_doc_paper { GPUPLAN_DOC_PAPER_ANY, GPUPLAN_DOC_PAPER_A4, GPUPLAN_DOC_PAPER_LETTER };

struct gpuplan_doc_head {
    const char *lang;       /* "en", "ru": <html lang>; [a-zA-Z-]{2,16} */
    const char *title;      /* <title> and <h1>, required */
    const char *subtitle;   /* under the title, or NULL */
    const char *date_label; /* e.g. "Date" */
    const char *date;       /* e.g. "2025-12-01" (the caller's clock), or NULL: no date line */
    const char *footer;     /* e.g. "Estimates, not quotes. gpuplan 0.4", or NULL */
    enum gpuplan_doc_paper paper;
};

/* The builder's state; fill with gpuplan_doc_begin. */
struct gpuplan_doc {
    struct gpuplan_buf *out;
    enum gpuplan_doc_format format;
    const char *footer; /* borrowed from the head */
    unsigned depth;     /* sections open */
    enum gpuplan_status status;
    struct gpuplan_error err;
};

/* Section flags. */
#define GPUPLAN_DOC_BREAK_BEFORE 1u /* printed from the top of a new page */
#define GPUPLAN_DOC_KEEP         2u /* kept on one page when it fits */

/* A table column. */
enum gpuplan_doc_align { GPUPLAN_DOC_LEFT, GPUPLAN_DOC_RIGHT };
struct gpuplan_doc_column {
    const char *header; /* e.g. "GPU"; also each cell's label on a phone */
    enum gpuplan_doc_align align;
    bool is_key; /* the card's title on a phone (one per table, the first that says so) */
};

struct gpuplan_doc_table {
    const char *id;      /* [A-Za-z0-9_-]{1,48}, or NULL */
    const char *caption; /* or NULL */
    const struct gpuplan_doc_column *columns;
    size_t n_columns;          /* 1..GPUPLAN_DOC_MAX_COLUMNS */
    const char *const *cells;  /* row-major, n_rows x n_columns; a NULL cell is empty */
    size_t n_rows;             /* 0..GPUPLAN_DOC_MAX_ROWS */
    const char *const *footer; /* NULL, or n_columns cells: a totals row */
    size_t highlight_row;      /* a row to mark (the recommendation), or SIZE_MAX: none */
    bool keep;                 /* keep on one page in print */
};

/* One line of a bill of materials; money in USD, formatted as whole dollars. */
struct gpuplan_doc_bom_row {
    const char *item;   /* e.g. "GPU" */
    const char *detail; /* e.g. "NVIDIA H100 SXM 80GB" */
    uint64_t quantity;  /* e.g. 8 */
    bool has_price;     /* false: the caller's `unpriced` text instead of the prices */
    double unit_usd;    /* e.g. 30000 */
    double line_usd;    /* the caller's line total (quantity x unit, or a quote) */
};

struct gpuplan_doc_bom {
    const char *id, *caption;
    const char *item_header, *detail_header, *quantity_header, *unit_header, *line_header;
    const char *total_label; /* e.g. "Total" */
    const char *unpriced;    /* e.g. "on request" */
    const struct gpuplan_doc_bom_row *rows;
    size_t n_rows; /* 1..GPUPLAN_DOC_MAX_ROWS */
    bool has_total;
    double total_usd; /* the caller's total: formatted, never summed here */
};

struct gpuplan_doc_code {
    const char *summary;  /* e.g. "Launch configuration: DeepSpeed"; required */
    const char *filename; /* e.g. "ds_config.json", or NULL */
    const char *language; /* Markdown's info string and a class: "json", "yaml", "sh"; or NULL */
    const char *text;     /* the code; `len` bytes */
    size_t len;
    bool is_open; /* open on screen (print always shows it) */
};

struct gpuplan_doc_figure {
    const char *id;      /* [A-Za-z0-9_-]{1,48}, or NULL */
    const char *caption; /* required: also the Markdown's alt text */
    const char *svg;     /* from a gpuplan_svg_* function; `svg_len` bytes */
    size_t svg_len;
    const char *md_src; /* Markdown: the image file to link ("memory.svg"), or NULL: caption only */
};

struct gpuplan_doc_fact {
    const char *key, *value; /* e.g. "Model", "Llama 3.1 70B" */
};

/*
 * Start the document in `out`: HTML's head with the style and the header,
 * or Markdown's title lines. Returns the sticky status (bad head: lang,
 * title).
 */
enum gpuplan_status gpuplan_doc_begin(struct gpuplan_doc *doc,
                                      struct gpuplan_buf *out,
                                      enum gpuplan_doc_format format,
                                      const struct gpuplan_doc_head *head);

/* A section with its heading (h2, then h3, h4 inside), `id` as a table's; GPUPLAN_DOC_* flags. */
void gpuplan_doc_section_begin(struct gpuplan_doc *doc,
                               const char *id,
                               const char *heading,
                               unsigned flags);
void gpuplan_doc_section_end(struct gpuplan_doc *doc);

void gpuplan_doc_paragraph(struct gpuplan_doc *doc, const char *text);
/* A remark set apart (an assumption, a warning). */
void gpuplan_doc_note(struct gpuplan_doc *doc, const char *text);
void gpuplan_doc_facts(struct gpuplan_doc *doc, const struct gpuplan_doc_fact *facts, size_t n);
void gpuplan_doc_table(struct gpuplan_doc *doc, const struct gpuplan_doc_table *table);
/* The bill of materials: a table of item, detail, quantity, unit price, line total; the total. */
void gpuplan_doc_bom(struct gpuplan_doc *doc, const struct gpuplan_doc_bom *bom);
void gpuplan_doc_code(struct gpuplan_doc *doc, const struct gpuplan_doc_code *code);
void gpuplan_doc_figure(struct gpuplan_doc *doc, const struct gpuplan_doc_figure *figure);

/*
 * Close the sections left open (an error: each begin needs its end), the
 * footer and the page. GPUPLAN_OK, or the first failure with `err` filled.
 */
enum gpuplan_status gpuplan_doc_end(struct gpuplan_doc *doc, struct gpuplan_error *err);

/* The document's CSS (one <style>'s text): for a page that shows the same tables. Static. */
extern const char gpuplan_doc_css[];

#endif
