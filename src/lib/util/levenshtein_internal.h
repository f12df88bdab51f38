/*
 * levenshtein.h - edit distance for "did you mean" suggestions
 * (library-internal; after git's help.c, own implementation).
 */
#ifndef GPUPLAN_LEVENSHTEIN_H
#define GPUPLAN_LEVENSHTEIN_H

#include <stddef.h>

/* Inputs longer than this are compared on their first GPUPLAN_LEVENSHTEIN_MAX_LEN bytes. */
#define GPUPLAN_LEVENSHTEIN_MAX_LEN 128

/*
 * Optimal-string-alignment distance between `a` and `b`, ASCII case-folded:
 * insertions, deletions, substitutions and swaps of adjacent characters
 * each cost 1 ("h100sxm" -> "h100-sxm" is 1, "hl00" -> "h100" is 1).
 */
size_t gpuplan_levenshtein(const char *a, const char *b);

#endif
