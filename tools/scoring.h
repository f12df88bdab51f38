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
 * same class).
 *
 * The 80 % interval is split-conformal (Vovk, Gammerman & Shafer 2005,
 * "Algorithmic Learning in a Random World"; Lei, G'Sell, Rinaldo, Tibshirani
 * & Wasserman 2018, "Distribution-free predictive inference for regression",
 * JASA 113:1094, section 2.2) on the out-of-sample residuals, with the source
 * family as the exchangeable unit (hierarchical conformal prediction: Lee,
 * Barber & Willett 2023, arXiv:2306.06342; the "CDF pooling" of Dunn,
 * Wasserman & Ramdas 2022, JASA 118:2491). Why families and not rows: the
 * residuals of one source share its bias (torchtitan's reserved figures are
 * all about +30 %, LIGER's all about -27 %), so rows are not exchangeable but
 * sources are, and a new user's job is a new source.
 *  - score of a row: s = |ln(predicted / measured)| = |ln(1 + e)|, the
 *    error as a ratio, symmetric in over- and under-prediction (a residual
 *    of -50 % and one of +100 % are the same factor 2);
 *  - each of the K families of the class weighs 1 (each of its n_k rows
 *    1 / n_k), the new row's family 1 at +infinity: q is the smallest s whose
 *    weighted count of scores <= s reaches (1 - alpha) (K + 1) (the
 *    ceil((n + 1)(1 - alpha))-th order statistic of split conformal, with
 *    families in place of rows). It exists only when K >= (1 - alpha) /
 *    alpha: 4 families for the 80 % interval, 9 for the 90 % one;
 *  - a class with fewer families pools into its parent (finest class that
 *    has enough); the interval is measured / predicted in [e^-q, e^q].
 * For the coverage figure the row's own source family is left out of the
 * computation of its interval (leave-one-source-out), so coverage is out of
 * sample too; the committed tables use every family.
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

/* The interval's nominal coverage, 1 - alpha (80 %; 90 % is printed beside it). */
#define SC_COVERAGE_80 0.80
#define SC_COVERAGE_90 0.90
/* Tolerance on the weighted counts (sums of 1 / n_k) against their target. */
#define SC_WEIGHT_EPS 1e-9
#define SC_LEVELS     4
#define SC_MAX_ROWS   1024
#define SC_KEY        96

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
    double q;          /* the conformal quantile of |ln(predicted / measured)| */
    double lo, hi;     /* signed error bounds: e^-q - 1, e^q - 1 */
    size_t n_class;    /* rows of the row's finest class (with the exclusion) */
    size_t n_used;     /* rows the bound was computed from */
    size_t n_families; /* their source families, K */
    int level;         /* the level it comes from */
    char from[SC_KEY]; /* that class */
};

/* The fewest families for which the quantile at `level` exists: K >= level / (1 - level). */
static inline size_t sc_min_families(double level)
{
    return (size_t)ceil(level / (1.0 - level) - SC_WEIGHT_EPS);
}

/* Conformal score of a signed error e = (predicted - measured) / measured. */
static inline double sc_score(double err)
{
    return fabs(log1p(err));
}

struct sc_scored {
    double score;
    double weight; /* 1 / rows of its family in the class */
};

static inline int sc_cmp_scored(const void *a, const void *b)
{
    return sc_cmp_double(&((const struct sc_scored *)a)->score,
                         &((const struct sc_scored *)b)->score);
}

/*
 * The family-weighted conformal quantile at coverage `level` of the rows
 * `take`s: false when the K families are too few for it (K + 1 < K / level).
 */
static inline bool sc_conformal_q(const struct sc_row *rows,
                                  size_t n,
                                  const bool *take,
                                  double level,
                                  double *q,
                                  size_t *n_used,
                                  size_t *n_families)
{
    static struct sc_scored v[SC_MAX_ROWS];
    static const char *fams[SC_MAX_ROWS];
    static size_t fam_rows[SC_MAX_ROWS], fam_of[SC_MAX_ROWS];
    size_t k = 0, n_fam = 0;
    for (size_t i = 0; i < n && k < SC_MAX_ROWS; i++) {
        if (!take[i])
            continue;
        size_t f = 0;
        while (f < n_fam && strcmp(fams[f], rows[i].family) != 0)
            f++;
        if (f == n_fam) {
            fams[n_fam] = rows[i].family;
            fam_rows[n_fam++] = 0;
        }
        fam_rows[f]++;
        fam_of[k] = f;
        v[k++].score = sc_score(rows[i].err_out);
    }
    *n_used = k;
    *n_families = n_fam;
    const double target = level * (double)(n_fam + 1);
    if (n_fam == 0 || target > (double)n_fam + SC_WEIGHT_EPS)
        return false;
    for (size_t i = 0; i < k; i++)
        v[i].weight = 1.0 / (double)fam_rows[fam_of[i]];
    qsort(v, k, sizeof v[0], sc_cmp_scored);
    double mass = 0.0;
    for (size_t i = 0; i < k; i++) {
        mass += v[i].weight;
        if (mass >= target - SC_WEIGHT_EPS) {
            *q = v[i].score;
            return true;
        }
    }
    *q = v[k - 1].score; /* unreachable: the mass reaches K >= target */
    return true;
}

/*
 * Interval for the class of member row `r` at `start_level`, at coverage
 * `level`, from the out-of-sample residuals of the rows of that class,
 * leaving out the rows of `skip_family` (NULL: none), pooling into the
 * coarser classes while a class has too few families for the quantile.
 * Returns false when not even all rows have enough.
 */
static inline bool sc_interval_from(const struct sc_row *rows,
                                    size_t n,
                                    const struct sc_row *r,
                                    int start_level,
                                    const char *skip_family,
                                    double level,
                                    struct sc_interval *out)
{
    static bool take[SC_MAX_ROWS];
    char want[SC_KEY], have[SC_KEY];
    out->n_class = 0;
    for (int lv = start_level; lv < SC_LEVELS; lv++) {
        sc_class(r, lv, want, sizeof want);
        size_t k = 0;
        for (size_t i = 0; i < n && i < SC_MAX_ROWS; i++) {
            sc_class(&rows[i], lv, have, sizeof have);
            take[i] = strcmp(have, want) == 0 &&
                      !(skip_family && strcmp(rows[i].family, skip_family) == 0);
            k += take[i];
        }
        if (lv == start_level)
            out->n_class = k;
        if (!sc_conformal_q(rows, n, take, level, &out->q, &out->n_used, &out->n_families))
            continue;
        out->lo = expm1(-out->q);
        out->hi = expm1(out->q);
        out->level = lv;
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
    return sc_interval_from(rows, n, r, 0, skip_family, SC_COVERAGE_80, out);
}

static inline bool sc_inside(const struct sc_row *r, const struct sc_interval *iv)
{
    return sc_score(r->err_out) <= iv->q;
}

struct sc_coverage {
    double rows;        /* share of the rows inside their interval */
    double families;    /* the mean over families of their rows' share (each source weighs 1) */
    size_t n_scored;    /* rows that got an interval */
    double median_span; /* median of factor_high - factor_low over the rows */
};

/*
 * Coverage at `level`: the share of rows whose error lies inside the
 * interval of its class computed without the row's source family
 * (`out_of_sample`), or with every row (in sample, for comparison).
 */
static inline struct sc_coverage
sc_coverage_at(const struct sc_row *rows, size_t n, double level, bool out_of_sample)
{
    static double span[SC_MAX_ROWS];
    static const char *fams[SC_MAX_ROWS];
    static size_t fam_in[SC_MAX_ROWS], fam_n[SC_MAX_ROWS];
    struct sc_coverage c = { NAN, NAN, 0, NAN };
    size_t inside = 0, n_fam = 0;
    for (size_t i = 0; i < n && i < SC_MAX_ROWS; i++) {
        struct sc_interval iv;
        if (!sc_interval_from(rows, n, &rows[i], 0, out_of_sample ? rows[i].family : NULL, level,
                              &iv))
            continue;
        const bool in = sc_inside(&rows[i], &iv);
        span[c.n_scored++] = exp(iv.q) - exp(-iv.q);
        inside += in;
        size_t f = 0;
        while (f < n_fam && strcmp(fams[f], rows[i].family) != 0)
            f++;
        if (f == n_fam) {
            fams[n_fam] = rows[i].family;
            fam_in[n_fam] = fam_n[n_fam] = 0;
            n_fam++;
        }
        fam_in[f] += in;
        fam_n[f]++;
    }
    if (!c.n_scored)
        return c;
    c.rows = (double)inside / (double)c.n_scored;
    double sum = 0.0;
    for (size_t f = 0; f < n_fam; f++)
        sum += (double)fam_in[f] / (double)fam_n[f];
    c.families = sum / (double)n_fam;
    qsort(span, c.n_scored, sizeof span[0], sc_cmp_double);
    c.median_span = sc_median(span, c.n_scored);
    return c;
}

/*
 * Print the coverage lines (the 80 % interval out of sample, per row and per
 * source family, in sample, and the nominal 90 % one) with the intervals'
 * median span; returns the 80 % out-of-sample coverage per row.
 */
static inline double sc_print_coverage(const char *what, const struct sc_row *rows, size_t n)
{
    const struct sc_coverage out = sc_coverage_at(rows, n, SC_COVERAGE_80, true);
    const struct sc_coverage in = sc_coverage_at(rows, n, SC_COVERAGE_80, false);
    const struct sc_coverage out90 = sc_coverage_at(rows, n, SC_COVERAGE_90, true);
    printf("\ncoverage (%s): %.1f %% of %zu rows inside their class's 80 %% interval computed "
           "without their own source family (out of sample; in sample %.1f %%); each source "
           "weighing 1: %.1f %%; the nominal 90 %% interval covers %.1f %% out of sample\n",
           what, 100.0 * out.rows, out.n_scored, 100.0 * in.rows, 100.0 * out.families,
           100.0 * out90.rows);
    printf("interval width (%s): median span of measured / predicted %.3f out of sample, %.3f "
           "with every source (the committed table)\n",
           what, out.median_span, in.median_span);
    return out.rows;
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
                            "quantity,level,class,n_rows,bounds_from,n_used,n_sources,score_q,"
                            "err_low,err_high,factor_low,factor_high,computed_at\n");
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
            struct sc_interval iv;
            if (!sc_interval_from(rows, n, &rows[i], level, NULL, SC_COVERAGE_80, &iv))
                continue;
            /* measured / predicted = 1 / (1 + e): [e^-q, e^q] */
            len += (size_t)snprintf(buf + len, size - len,
                                    "%s,%s,%s,%zu,%s,%zu,%zu,%.4f,%.4f,%.4f,%.4f,%.4f\n", quantity,
                                    level_names[level], key, iv.n_class, iv.from, iv.n_used,
                                    iv.n_families, iv.q, iv.lo, iv.hi, exp(-iv.q), exp(iv.q));
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
    printf("\n80 %% intervals per class (split-conformal on |ln(predicted / measured)| of the "
           "out-of-sample residuals, each source family weighing 1; a class with fewer than %zu "
           "source families pools into the next coarser class):\n",
           sc_min_families(SC_COVERAGE_80));
    printf("  %-34s %6s  %-30s %6s %7s  %8s %8s   %s\n", "class (stack|method|kind)", "rows",
           "bounds from", "used", "sources", "err_low", "err_high", "measured / predicted in");
    const char *p = strchr(table, '\n');
    while (p && p[1]) {
        const char *line = p + 1;
        p = strchr(line, '\n');
        char q[32], level[32], cls[SC_KEY], from[SC_KEY];
        size_t n_rows = 0, n_used = 0, n_src = 0;
        double score = 0, lo = 0, hi = 0, flo = 0, fhi = 0;
        if (sscanf(line, "%31[^,],%31[^,],%95[^,],%zu,%95[^,],%zu,%zu,%lf,%lf,%lf,%lf,%lf", q,
                   level, cls, &n_rows, from, &n_used, &n_src, &score, &lo, &hi, &flo, &fhi) != 12)
            continue;
        printf("  %-34s %6zu  %-30s %6zu %7zu  %+7.1f%% %+7.1f%%   [%.2f, %.2f]\n", cls, n_rows,
               from, n_used, n_src, 100.0 * lo, 100.0 * hi, flo, fhi);
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
