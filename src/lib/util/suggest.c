/*
 * suggest.c - the edit distance and the closeness rule behind every "did
 * you mean" (see suggest_internal.h).
 *
 * The distance keeps three rows of the dynamic-programming table on the
 * stack; inputs are capped at GPUPLAN_SUGGEST_MAX_LEN bytes, so the cost is
 * bounded and nothing is allocated. Reference: Damerau (1964); the
 * restricted ("optimal string alignment") variant counts an adjacent swap
 * once and never edits a substring twice. The cut-off, a third of the word
 * but at least two edits, is the similarity cut git's help.c applies to
 * mistyped commands.
 */
#include "gpuplan/options.h"
#include "util/suggest_internal.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* Edits always allowed, however short the word ("lr" may still mean "tp"). */
#define MIN_EDITS 2
/* One edit per this many letters of the word beyond MIN_EDITS. */
#define LETTERS_PER_EDIT 3
/* Shortest word that counts as a prefix of a candidate, and as a substring of one. */
#define MIN_PREFIX_LEN    2
#define MIN_SUBSTRING_LEN 3

enum { RANK_PREFIX = 0, RANK_SUBSTRING, RANK_NEAR, RANK_NONE };

static char fold(char c)
{
    return (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
}

static size_t min3(size_t x, size_t y, size_t z)
{
    size_t m = x < y ? x : y;
    return m < z ? m : z;
}

size_t gpuplan_suggest_distance(const char *a, const char *b)
{
    size_t row_prev2[GPUPLAN_SUGGEST_MAX_LEN + 1];
    size_t row_prev[GPUPLAN_SUGGEST_MAX_LEN + 1];
    size_t row[GPUPLAN_SUGGEST_MAX_LEN + 1];
    size_t n_a = strnlen(a, GPUPLAN_SUGGEST_MAX_LEN);
    size_t n_b = strnlen(b, GPUPLAN_SUGGEST_MAX_LEN);

    for (size_t j = 0; j <= n_b; j++) {
        row_prev[j] = j;
        row_prev2[j] = j;
    }
    for (size_t i = 1; i <= n_a; i++) {
        row[0] = i;
        for (size_t j = 1; j <= n_b; j++) {
            const size_t cost = fold(a[i - 1]) == fold(b[j - 1]) ? 0 : 1;
            row[j] = min3(row_prev[j] + 1, row[j - 1] + 1, row_prev[j - 1] + cost);
            if (i > 1 && j > 1 && fold(a[i - 1]) == fold(b[j - 2]) &&
                fold(a[i - 2]) == fold(b[j - 1]) && row_prev2[j - 2] + 1 < row[j])
                row[j] = row_prev2[j - 2] + 1;
        }
        memcpy(row_prev2, row_prev, (n_b + 1) * sizeof row[0]);
        memcpy(row_prev, row, (n_b + 1) * sizeof row[0]);
    }
    return row_prev[n_b];
}

static bool has_prefix_folded(const char *text, const char *prefix)
{
    for (; *prefix; prefix++, text++)
        if (!*text || fold(*text) != fold(*prefix))
            return false;
    return true;
}

static bool contains_folded(const char *text, const char *needle)
{
    for (; *text; text++)
        if (has_prefix_folded(text, needle))
            return true;
    return false;
}

static bool better(const struct gpuplan_suggestion *a, const struct gpuplan_suggestion *b)
{
    if (a->rank != b->rank)
        return a->rank < b->rank;
    if (a->distance != b->distance)
        return a->distance < b->distance;
    return a->order < b->order;
}

void gpuplan_suggest_init(struct gpuplan_suggest *s, const char *word)
{
    memset(s, 0, sizeof *s);
    s->word = word ? word : "";
}

void gpuplan_suggest_add(struct gpuplan_suggest *s, const char *candidate)
{
    const size_t order = s->n_offered++;
    const size_t len = strlen(s->word);
    if (!candidate || !candidate[0] || len == 0)
        return;
    struct gpuplan_suggestion c = { .rank = RANK_NONE, .order = order };
    c.distance = gpuplan_suggest_distance(s->word, candidate);
    const size_t max_edits =
        len / LETTERS_PER_EDIT > MIN_EDITS ? len / LETTERS_PER_EDIT : MIN_EDITS;
    if (len >= MIN_PREFIX_LEN && has_prefix_folded(candidate, s->word))
        c.rank = RANK_PREFIX;
    else if (len >= MIN_SUBSTRING_LEN && contains_folded(candidate, s->word))
        c.rank = RANK_SUBSTRING;
    else if (c.distance <= max_edits)
        c.rank = RANK_NEAR;
    if (c.rank == RANK_NONE)
        return;
    size_t pos = s->n;
    while (pos > 0 && better(&c, &s->best[pos - 1]))
        pos--;
    if (pos >= GPUPLAN_SUGGEST_MAX)
        return;
    const size_t kept = s->n < GPUPLAN_SUGGEST_MAX ? s->n : GPUPLAN_SUGGEST_MAX - 1;
    memmove(&s->best[pos + 1], &s->best[pos], (kept - pos) * sizeof s->best[0]);
    (void)snprintf(c.text, sizeof c.text, "%s", candidate);
    s->best[pos] = c;
    if (s->n < GPUPLAN_SUGGEST_MAX)
        s->n++;
}

const char *gpuplan_suggest_closest(const char *word, const char *const *candidates, size_t n)
{
    if (!word || !candidates)
        return NULL;
    struct gpuplan_suggest s;
    gpuplan_suggest_init(&s, word);
    for (size_t i = 0; i < n; i++)
        gpuplan_suggest_add(&s, candidates[i]);
    for (size_t i = 0; s.n && i < n; i++)
        if (candidates[i] && strcmp(candidates[i], s.best[0].text) == 0)
            return candidates[i];
    return NULL;
}
