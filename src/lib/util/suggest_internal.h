/*
 * suggest_internal.h - "did you mean": the one edit distance and the one
 * rule for what is close enough to suggest, used for unknown options,
 * choice values, request fields, LoRA target names, GPU and model ids
 * (after git's help.c; own implementation).
 *
 * A candidate is suggested for `word` when `word` starts it (2+ letters),
 * appears in it (3+ letters), or is within an edit distance of
 * max(2, letters / 3) of it; prefixes rank first, then substrings, then
 * the nearest by distance, then the order they were offered in. ASCII
 * letters compare case-folded.
 *
 *   struct gpuplan_suggest s;
 *   gpuplan_suggest_init(&s, word);
 *   for (...) gpuplan_suggest_add(&s, candidate);
 *   if (s.n) gpuplan_error_hint(err, "did you mean '%s'?", s.best[0].text);
 */
#ifndef GPUPLAN_SUGGEST_INTERNAL_H
#define GPUPLAN_SUGGEST_INTERNAL_H

#include <stddef.h>

/* Inputs longer than this are compared on their first GPUPLAN_SUGGEST_MAX_LEN bytes. */
#define GPUPLAN_SUGGEST_MAX_LEN 128
/* The best candidates kept: a hint names up to three ("'a', 'b' or 'c'"). */
#define GPUPLAN_SUGGEST_MAX 3
/* Candidate text kept per suggestion, NUL included (ids and option names are shorter). */
#define GPUPLAN_SUGGEST_TEXT_MAX 128

/*
 * Optimal-string-alignment distance between `a` and `b`, ASCII case-folded:
 * insertions, deletions, substitutions and swaps of adjacent characters
 * each cost 1 ("h100sxm" -> "h100-sxm" is 1, "hl00" -> "h100" is 1).
 */
size_t gpuplan_suggest_distance(const char *a, const char *b);

struct gpuplan_suggestion {
    char text[GPUPLAN_SUGGEST_TEXT_MAX]; /* the candidate, copied */
    int rank;                            /* 0 prefix, 1 substring, 2 edit distance */
    size_t distance;
    size_t order; /* the how-manyth candidate offered, the last tie-breaker */
};

struct gpuplan_suggest {
    const char *word; /* borrowed for the life of the struct */
    size_t n_offered;
    struct gpuplan_suggestion best[GPUPLAN_SUGGEST_MAX]; /* best first */
    size_t n;
};

void gpuplan_suggest_init(struct gpuplan_suggest *s, const char *word);
/* Consider `candidate` (copied when kept; NULL and "" are ignored). */
void gpuplan_suggest_add(struct gpuplan_suggest *s, const char *candidate);

#endif
