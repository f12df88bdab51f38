/*
 * test_scoring.c - the interval statistics of tools/scoring.h (compiled into
 * the accuracy tools): the family-weighted split-conformal quantile, the
 * pooling of a class with too few source families into its parent, and the
 * leave-one-source-out coverage. Rows are made up here; every expected value
 * is worked out by hand in the comments.
 */
#include "test_common.h"

#include <math.h>

#include "../../tools/scoring.h"

/* A row of family `fam`, class stack|method|kind, whose predicted / measured is `ratio`. */
static struct sc_row
row(const char *fam, const char *stack, const char *method, const char *kind, double ratio)
{
    struct sc_row r;
    memset(&r, 0, sizeof r);
    snprintf(r.id, sizeof r.id, "%s-%s", fam, stack);
    snprintf(r.family, sizeof r.family, "%s", fam);
    snprintf(r.stack, sizeof r.stack, "%s", stack);
    snprintf(r.method, sizeof r.method, "%s", method);
    snprintf(r.kind, sizeof r.kind, "%s", kind);
    r.err_in = r.err_out = ratio - 1.0;
    return r;
}

static void test_min_families(void **state)
{
    (void)state;
    /* (1 - alpha)(K + 1) <= K: K >= 4 at 80 %, K >= 9 at 90 % */
    assert_int_equal(sc_min_families(SC_COVERAGE_80), 4);
    assert_int_equal(sc_min_families(SC_COVERAGE_90), 9);
    assert_true(fabs(sc_score(-0.5) - log(2.0)) < 1e-12);
    assert_true(fabs(sc_score(1.0) - log(2.0)) < 1e-12); /* -50 % and +100 %: one factor 2 */
}

/* Each family weighs 1 whatever its row count: a big family cannot drown the others. */
static void test_family_weights(void **state)
{
    (void)state;
    static struct sc_row rows[32];
    size_t n = 0;
    /* family A: 20 rows all at ratio 1.05; B..E one row each at 1.10, 1.20, 1.30, 1.40 */
    for (int i = 0; i < 20; i++)
        rows[n++] = row("A", "s", "full", "allocated", 1.05);
    const double single[] = { 1.10, 1.20, 1.30, 1.40 };
    const char *fam[] = { "B", "C", "D", "E" };
    for (size_t i = 0; i < 4; i++)
        rows[n++] = row(fam[i], "s", "full", "allocated", single[i]);
    static bool take[32];
    for (size_t i = 0; i < n; i++)
        take[i] = true;
    double q = 0;
    size_t used = 0, k = 0;
    /* K = 5: target 0.8 x 6 = 4.8 families; A (1) + B + C + D = 4 < 4.8, + E = 5: q = ln 1.4.
     * Row-weighted, the 0.8 x 25 = 20th of 24 would have been A's ln 1.05. */
    assert_true(sc_conformal_q(rows, n, take, SC_COVERAGE_80, &q, &used, &k));
    assert_int_equal(k, 5);
    assert_int_equal(used, 24);
    assert_true(fabs(q - log(1.40)) < 1e-12);
    /* 90 %: 9 families needed, 5 there: no quantile */
    assert_false(sc_conformal_q(rows, n, take, SC_COVERAGE_90, &q, &used, &k));
    /* without E: K = 4, target 4.0 = every family: the largest, ln 1.3 */
    take[n - 1] = false;
    assert_true(sc_conformal_q(rows, n, take, SC_COVERAGE_80, &q, &used, &k));
    assert_true(fabs(q - log(1.30)) < 1e-12);
    /* without D as well: K = 3 < 4 */
    take[n - 2] = false;
    assert_false(sc_conformal_q(rows, n, take, SC_COVERAGE_80, &q, &used, &k));
}

/* A class with too few families pools into its parent; leaving a family out can force that. */
static void test_pooling_and_leave_one_out(void **state)
{
    (void)state;
    static struct sc_row rows[16];
    size_t n = 0;
    /* stack "t": four families (ratios 1.1 .. 1.4); stack "u": two (0.5, 0.6); all one method */
    rows[n++] = row("F1", "t", "lora", "allocated", 1.1);
    rows[n++] = row("F2", "t", "lora", "allocated", 1.2);
    rows[n++] = row("F3", "t", "lora", "allocated", 1.3);
    rows[n++] = row("F4", "t", "lora", "allocated", 1.4);
    rows[n++] = row("F5", "u", "lora", "allocated", 0.5);
    rows[n++] = row("F6", "u", "lora", "allocated", 0.6);
    struct sc_interval iv;
    /* t|lora|allocated has K = 4: its own, q = ln 1.4, measured / predicted in [1/1.4, 1.4] */
    assert_true(sc_interval_for(rows, n, &rows[0], NULL, &iv));
    assert_string_equal(iv.from, "t|lora|allocated");
    assert_int_equal(iv.n_families, 4);
    assert_true(fabs(iv.hi - 0.4) < 1e-12 && fabs(iv.lo - (1.0 / 1.4 - 1.0)) < 1e-12);
    /* u|lora|allocated has K = 2: pooled into *|lora|allocated, K = 6, target 5.6: the 6th
     * smallest score; scores ln 1.1 .. ln 1.4, ln 2 (0.5), ln(1/0.6) = 0.51: q = ln 2 */
    assert_true(sc_interval_for(rows, n, &rows[4], NULL, &iv));
    assert_string_equal(iv.from, "*|lora|allocated");
    assert_int_equal(iv.level, 1);
    assert_true(fabs(iv.q - log(2.0)) < 1e-12);
    /* leaving F1 out, t's class has 3 families: the parent without F1 (K = 5, target 4.8: the
     * 5th of ln 1.2, 1.3, 1.4, 0.51, 0.69, which is ln 2) */
    assert_true(sc_interval_for(rows, n, &rows[0], "F1", &iv));
    assert_string_equal(iv.from, "*|lora|allocated");
    assert_int_equal(iv.n_families, 5);
    assert_true(fabs(iv.q - log(2.0)) < 1e-12);
    assert_true(sc_inside(&rows[0], &iv));
    /* out-of-sample coverage: every row of this made-up set is inside (the largest scores
     * belong to u's families, whose class always pools and keeps the other's) */
    const struct sc_coverage c = sc_coverage_at(rows, n, SC_COVERAGE_80, true);
    assert_int_equal(c.n_scored, n);
    assert_true(c.rows > 0.0 && c.rows <= 1.0);
    assert_true(c.families > 0.0 && c.families <= 1.0);
}

/* The one row far out of its class is outside the interval built without its family. */
static void test_outlier_family_not_covered(void **state)
{
    (void)state;
    static struct sc_row rows[8];
    size_t n = 0;
    const double r[] = { 1.02, 0.98, 1.03, 0.97, 1.01 };
    const char *fam[] = { "A", "B", "C", "D", "E" };
    for (size_t i = 0; i < 5; i++)
        rows[n++] = row(fam[i], "s", "full", "reserved", r[i]);
    rows[n++] = row("X", "s", "full", "reserved", 1.60);
    struct sc_interval iv;
    assert_true(sc_interval_for(rows, n, &rows[n - 1], "X", &iv));
    assert_false(sc_inside(&rows[n - 1], &iv));
    /* in sample (X in), K = 6, target 5.6: the 6th smallest score, X's own: inside */
    assert_true(sc_interval_for(rows, n, &rows[n - 1], NULL, &iv));
    assert_true(sc_inside(&rows[n - 1], &iv));
    const struct sc_coverage out = sc_coverage_at(rows, n, SC_COVERAGE_80, true);
    const struct sc_coverage in = sc_coverage_at(rows, n, SC_COVERAGE_80, false);
    assert_true(out.rows < in.rows);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_min_families),
        cmocka_unit_test(test_family_weights),
        cmocka_unit_test(test_pooling_and_leave_one_out),
        cmocka_unit_test(test_outlier_family_not_covered),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
