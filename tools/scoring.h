/*
 * scoring.h - shared scoring of tools/accuracy.c (memory) and
 * tools/accuracy_throughput.c (time): signed errors, per-class tables,
 * leave-one-source-out intervals, their coverage, and the generated interval
 * files under validation/ (docs/validation.md "Scoring", "Intervals").
 *
 * Signed error of a row: e = (predicted - measured) / measured. e < 0 is an
 * under-prediction (for memory the dangerous direction: the job was planned
 * to fit and does not). Absolute error: |e|.
 *
 * Source family (the leave-one-source-out unit): the source key (first word
 * of `source`) up to its first '-': TT-2405 and TT-2409 are one family
 * (torchtune's team), LIGER and LIGER-2 one harness, SWIFT-BENCH and
 * SWIFT-EX one team. A team's second document is not an independent source.
 *
 * Interval classes, finest first (level 0..3):
 *   stack|method|kind, *|method|kind, *|*|kind, *|*|*
 * (kind is the memory kind; "-" for throughput, where levels 2 and 3 are the
 * same class). A row's interval is the 10th..90th percentile (nearest rank)
 * of the signed errors of the rows of its finest class that has at least
 * SC_MIN_CLASS_ROWS rows; for the coverage figure the row's own source family
 * is left out of that computation, so coverage is out of sample too.
 *
 * Header-only (static inline) so each tool compiles it into itself.
 */
#ifndef GPUPLAN_TOOLS_SCORING_H
#define GPUPLAN_TOOLS_SCORING_H

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * A class needs this many rows, from at least this many source families,
 * before its own percentiles are used (else: back off to the next coarser
 * class). The families rule is what makes an interval a statement about a
 * new source: residuals of one source share that source's bias.
 */
#ifndef SC_MIN_CLASS_ROWS
#    define SC_MIN_CLASS_ROWS 10
#endif
#ifndef SC_MIN_CLASS_FAMILIES
#    define SC_MIN_CLASS_FAMILIES 3
#endif
#define SC_LEVELS   4
#define SC_MAX_ROWS 1024
#define SC_KEY      96

struct sc_row {
    char id[24];
    char family[32]; /* leave-one-source-out unit */
    char stack[24];  /* validation/README.md `stack`; "unknown" when empty */
    char method[8];  /* full | lora | qlora */
    char kind[12];   /* allocated | reserved | smi | unknown; "-" for throughput */
    bool is_new;     /* an NT- row: a source added after the model's mechanisms were chosen */
    double err_in;   /* signed error, in-sample constants */
    double err_out;  /* signed error, constants refitted without the row's source family */
};

static inline void sc_family(const char *source, char *out, size_t size)
{
    size_t n = strcspn(source, " -");
    if (n >= size)
        n = size - 1;
    memcpy(out, source, n);
    out[n] = '\0';
}

static inline int sc_cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Nearest-rank percentile (0..100) of a sorted array. */
static inline double sc_percentile(const double *v, size_t n, double pct)
{
    if (n == 0)
        return NAN;
    size_t k = (size_t)ceil(pct / 100.0 * (double)n);
    if (k < 1)
        k = 1;
    if (k > n)
        k = n;
    return v[k - 1];
}

static inline double sc_median(const double *v, size_t n)
{
    if (n == 0)
        return NAN;
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

struct sc_stats {
    size_t n, under, over;
    double median_abs, p90_abs, median_signed;
};

/* Statistics of the rows for which `take` is true (NULL: all), on err_out or err_in. */
static inline struct sc_stats
sc_stats_of(const struct sc_row *rows, size_t n, const bool *take, bool out_of_sample)
{
    static double a[SC_MAX_ROWS], s[SC_MAX_ROWS];
    struct sc_stats st = { 0, 0, 0, NAN, NAN, NAN };
    for (size_t i = 0; i < n && st.n < SC_MAX_ROWS; i++) {
        if (take && !take[i])
            continue;
        const double e = out_of_sample ? rows[i].err_out : rows[i].err_in;
        a[st.n] = fabs(e);
        s[st.n] = e;
        st.n++;
        st.under += e < 0;
        st.over += e > 0;
    }
    qsort(a, st.n, sizeof a[0], sc_cmp_double);
    qsort(s, st.n, sizeof s[0], sc_cmp_double);
    st.median_abs = sc_median(a, st.n);
    st.p90_abs = sc_percentile(a, st.n, 90.0);
    st.median_signed = sc_median(s, st.n);
    return st;
}

static inline void sc_print_stats(const char *label, struct sc_stats st)
{
    printf("  %-40s rows %3zu  median %6.1f %%  p90 %6.1f %%  under/over %3zu/%3zu  "
           "median signed %+6.1f %%\n",
           label, st.n, 100.0 * st.median_abs, 100.0 * st.p90_abs, st.under, st.over,
           100.0 * st.median_signed);
}

enum sc_group { SC_BY_STACK, SC_BY_METHOD, SC_BY_KIND, SC_BY_FAMILY };

static inline const char *sc_group_value(const struct sc_row *r, enum sc_group g)
{
    switch (g) {
    case SC_BY_STACK:
        return r->stack;
    case SC_BY_METHOD:
        return r->method;
    case SC_BY_KIND:
        return r->kind;
    case SC_BY_FAMILY:
    default:
        return r->family;
    }
}

/* One line per distinct value of the grouping, out-of-sample errors (in-sample median beside). */
static inline void
sc_print_table(const char *title, const struct sc_row *rows, size_t n, enum sc_group g)
{
    static bool take[SC_MAX_ROWS], done[SC_MAX_ROWS];
    printf("\n%s (out of sample; in-sample median in brackets):\n", title);
    memset(done, 0, sizeof done);
    for (size_t i = 0; i < n; i++) {
        if (done[i])
            continue;
        const char *v = sc_group_value(&rows[i], g);
        for (size_t j = 0; j < n; j++) {
            take[j] = strcmp(sc_group_value(&rows[j], g), v) == 0;
            done[j] = done[j] || take[j];
        }
        const struct sc_stats in = sc_stats_of(rows, n, take, false);
        const struct sc_stats out = sc_stats_of(rows, n, take, true);
        char label[SC_KEY];
        snprintf(label, sizeof label, "%s (%.1f %%)", v, 100.0 * in.median_abs);
        sc_print_stats(label, out);
    }
}

/* The class key of a row at a level (0 finest .. 3 all rows). */
static inline void sc_class(const struct sc_row *r, int level, char *out, size_t size)
{
    /* throughput rows have no kind ("-"): their levels 2 and 3 are one class */
    const bool no_kind = strcmp(r->kind, "-") == 0;
    snprintf(out, size, "%s|%s|%s", level < 1 ? r->stack : "*", level < 2 ? r->method : "*",
             level < 3 || no_kind ? r->kind : "*");
}

struct sc_interval {
    double lo, hi;     /* err percentiles 10 and 90 */
    size_t n_class;    /* rows of the row's finest class (with the exclusion) */
    size_t n_used;     /* rows the bounds were computed from */
    int level;         /* the level they come from */
    char from[SC_KEY]; /* that class */
};

/*
 * Interval for the class of member row `r` at `level`, from the
 * out-of-sample residuals of the rows of that class, leaving out the rows of
 * `skip_family` (NULL: none), backing off to coarser classes while a class
 * has fewer than SC_MIN_CLASS_ROWS rows. Returns false when not even all rows
 * reach it.
 */
static inline bool sc_interval_from(const struct sc_row *rows,
                                    size_t n,
                                    const struct sc_row *r,
                                    int start_level,
                                    const char *skip_family,
                                    double tail_pct,
                                    struct sc_interval *out)
{
    static double v[SC_MAX_ROWS];
    char want[SC_KEY], have[SC_KEY];
    out->n_class = 0;
    for (int level = start_level; level < SC_LEVELS; level++) {
        sc_class(r, level, want, sizeof want);
        size_t k = 0, n_fam = 0;
        static const char *fams[SC_MAX_ROWS];
        for (size_t i = 0; i < n; i++) {
            if (skip_family && strcmp(rows[i].family, skip_family) == 0)
                continue;
            sc_class(&rows[i], level, have, sizeof have);
            if (strcmp(have, want) != 0)
                continue;
            v[k++] = rows[i].err_out;
            bool seen = false;
            for (size_t j = 0; j < n_fam && !seen; j++)
                seen = strcmp(fams[j], rows[i].family) == 0;
            if (!seen)
                fams[n_fam++] = rows[i].family;
        }
        if (level == start_level)
            out->n_class = k;
        if (k < SC_MIN_CLASS_ROWS || (n_fam < SC_MIN_CLASS_FAMILIES && level < SC_LEVELS - 1))
            continue;
        qsort(v, k, sizeof v[0], sc_cmp_double);
        out->lo = sc_percentile(v, k, tail_pct);
        out->hi = sc_percentile(v, k, 100.0 - tail_pct);
        out->n_used = k;
        out->level = level;
        snprintf(out->from, sizeof out->from, "%s", want);
        return true;
    }
    return false;
}

static inline bool sc_interval_for(const struct sc_row *rows,
                                   size_t n,
                                   const struct sc_row *r,
                                   const char *skip_family,
                                   struct sc_interval *out)
{
    return sc_interval_from(rows, n, r, 0, skip_family, 10.0, out);
}

/*
 * Coverage: the share of rows whose signed error lies inside the interval
 * (percentiles tail_pct .. 100 - tail_pct; 10 = the 80 % interval) of its
 * class computed without the row's source family.
 */
static inline double
sc_coverage(const struct sc_row *rows, size_t n, double tail_pct, size_t *n_scored)
{
    size_t inside = 0, k = 0;
    for (size_t i = 0; i < n; i++) {
        struct sc_interval iv;
        if (!sc_interval_from(rows, n, &rows[i], 0, rows[i].family, tail_pct, &iv))
            continue;
        k++;
        inside += rows[i].err_out >= iv.lo && rows[i].err_out <= iv.hi;
    }
    *n_scored = k;
    return k ? (double)inside / (double)k : NAN;
}

/* Coverage of the intervals computed with every row (in sample, for comparison). */
static inline double sc_coverage_in_sample(const struct sc_row *rows, size_t n)
{
    size_t inside = 0, k = 0;
    for (size_t i = 0; i < n; i++) {
        struct sc_interval iv;
        if (!sc_interval_for(rows, n, &rows[i], NULL, &iv))
            continue;
        k++;
        inside += rows[i].err_out >= iv.lo && rows[i].err_out <= iv.hi;
    }
    return k ? (double)inside / (double)k : NAN;
}

/* Print the coverage lines (out of sample, nominal 90 % out of sample, in sample). */
static inline double sc_print_coverage(const char *what, const struct sc_row *rows, size_t n)
{
    size_t k = 0, k90 = 0;
    const double cov = sc_coverage(rows, n, 10.0, &k);
    const double cov90 = sc_coverage(rows, n, 5.0, &k90);
    printf("\ncoverage (%s): %.1f %% of %zu rows inside their class's 80 %% interval computed "
           "without their own source family (out of sample; in sample %.1f %%); the nominal 90 %% "
           "interval (p5..p95) covers %.1f %% out of sample\n",
           what, 100.0 * cov, k, 100.0 * sc_coverage_in_sample(rows, n), 100.0 * cov90);
    return cov;
}

/*
 * The interval table: every class present at every level, with the bounds
 * from all rows (out-of-sample residuals). Written as CSV lines without the
 * trailing computed_at field into `buf` (NUL-terminated); returns the length.
 */
static inline size_t
sc_interval_table(const char *quantity, const struct sc_row *rows, size_t n, char *buf, size_t size)
{
    size_t len = 0;
    len += (size_t)snprintf(buf + len, size - len,
                            "quantity,level,class,n_rows,bounds_from,n_used,err_p10,err_p90,"
                            "factor_low,factor_high,computed_at\n");
    static const char *const level_names[SC_LEVELS] = { "stack|method|kind", "method|kind", "kind",
                                                        "all" };
    static char seen[SC_MAX_ROWS][SC_KEY];
    for (int level = 0; level < SC_LEVELS; level++) {
        size_t n_seen = 0;
        for (size_t i = 0; i < n && len < size; i++) {
            char key[SC_KEY];
            sc_class(&rows[i], level, key, sizeof key);
            bool dup = false;
            for (size_t j = 0; j < n_seen && !dup; j++)
                dup = strcmp(seen[j], key) == 0;
            /* the same class at a coarser level (throughput: kind "-" = all): list once */
            for (int l = 0; l < level && !dup; l++) {
                char k2[SC_KEY];
                sc_class(&rows[i], l, k2, sizeof k2);
                dup = strcmp(k2, key) == 0;
            }
            if (dup)
                continue;
            snprintf(seen[n_seen++], SC_KEY, "%s", key);
            size_t n_rows = 0;
            for (size_t j = 0; j < n; j++) {
                char k2[SC_KEY];
                sc_class(&rows[j], level, k2, sizeof k2);
                n_rows += strcmp(k2, key) == 0;
            }
            struct sc_interval iv;
            if (!sc_interval_from(rows, n, &rows[i], level, NULL, 10.0, &iv))
                continue;
            len +=
                (size_t)snprintf(buf + len, size - len, "%s,%s,%s,%zu,%s,%zu,%.4f,%.4f,%.4f,%.4f\n",
                                 quantity, level_names[level], key, n_rows, iv.from, iv.n_used,
                                 iv.lo, iv.hi, 1.0 / (1.0 + iv.hi), 1.0 / (1.0 + iv.lo));
            if (len >= size) {
                len = size - 1;
                break;
            }
        }
    }
    return len;
}

/* Print the table (as the tool's report). */
static inline void sc_print_intervals(const char *table)
{
    printf("\n80 %% intervals per class (signed error p10..p90 from the out-of-sample residuals; "
           "a class with fewer than %d rows or %d source families backs off to the next coarser "
           "class):\n",
           SC_MIN_CLASS_ROWS, SC_MIN_CLASS_FAMILIES);
    printf("  %-34s %6s  %-30s %6s  %8s %8s   %s\n", "class (stack|method|kind)", "rows",
           "bounds from", "used", "err_p10", "err_p90", "measured / predicted in");
    const char *p = strchr(table, '\n');
    while (p && p[1]) {
        const char *line = p + 1;
        p = strchr(line, '\n');
        char q[32], level[32], cls[SC_KEY], from[SC_KEY];
        size_t n_rows = 0, n_used = 0;
        double lo = 0, hi = 0, flo = 0, fhi = 0;
        if (sscanf(line, "%31[^,],%31[^,],%95[^,],%zu,%95[^,],%zu,%lf,%lf,%lf,%lf", q, level, cls,
                   &n_rows, from, &n_used, &lo, &hi, &flo, &fhi) != 10)
            continue;
        printf("  %-34s %6zu  %-30s %6zu  %+7.1f%% %+7.1f%%   [%.2f, %.2f]\n", cls, n_rows, from,
               n_used, 100.0 * lo, 100.0 * hi, flo, fhi);
    }
}

/* Write the table with the computed_at stamp on every line. Returns false on error. */
static inline bool sc_write_intervals(const char *path, const char *table, const char *stamp)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return false;
    const char *p = table;
    bool first = true;
    while (*p) {
        const char *nl = strchr(p, '\n');
        const size_t n = nl ? (size_t)(nl - p) : strlen(p);
        /* the header already ends in computed_at */
        fprintf(f, "%.*s%s%s\r\n", (int)n, p, first ? "" : ",", first ? "" : stamp);
        first = false;
        p += n + (nl ? 1 : 0);
    }
    return fclose(f) == 0;
}

/*
 * Compare a committed interval file with `table`, ignoring each data line's
 * last field (computed_at). Prints the first difference. Returns true when equal.
 */
static inline bool sc_check_intervals(const char *path, const char *table)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        printf("intervals: cannot read %s\n", path);
        return false;
    }
    static char line[4096];
    const char *p = table;
    size_t lineno = 0;
    bool ok = true;
    while (ok && fgets(line, sizeof line, f)) {
        lineno++;
        line[strcspn(line, "\r\n")] = '\0';
        if (lineno > 1) {
            char *comma = strrchr(line, ',');
            if (comma)
                *comma = '\0';
        }
        const char *nl = strchr(p, '\n');
        const size_t n = nl ? (size_t)(nl - p) : strlen(p);
        if (!*p || strlen(line) != n || strncmp(line, p, n) != 0) {
            printf("intervals: %s line %zu differs from what the tool computes now:\n  file: %s\n"
                   "  now:  %.*s\n",
                   path, lineno, line, (int)n, p);
            ok = false;
        }
        p += n + (nl ? 1 : 0);
    }
    if (ok && *p) {
        printf("intervals: %s ends early (line %zu); the tool computes more classes\n", path,
               lineno + 1);
        ok = false;
    }
    fclose(f);
    return ok;
}

#endif
