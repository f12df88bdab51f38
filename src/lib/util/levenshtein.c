/*
 * levenshtein.c - optimal-string-alignment edit distance (see levenshtein.h).
 *
 * Three rows of the dynamic-programming table on the stack; inputs are capped
 * at GPUPLAN_LEVENSHTEIN_MAX_LEN bytes, so the cost is bounded and nothing is
 * allocated. Reference: Damerau (1964); the restricted ("optimal string
 * alignment") variant counts an adjacent swap once and never edits a
 * substring twice.
 */
#include "util/levenshtein_internal.h"

#include <string.h>

static char fold(char c)
{
    return (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
}

static size_t min3(size_t x, size_t y, size_t z)
{
    size_t m = x < y ? x : y;
    return m < z ? m : z;
}

size_t gpuplan_levenshtein(const char *a, const char *b)
{
    size_t row_prev2[GPUPLAN_LEVENSHTEIN_MAX_LEN + 1];
    size_t row_prev[GPUPLAN_LEVENSHTEIN_MAX_LEN + 1];
    size_t row[GPUPLAN_LEVENSHTEIN_MAX_LEN + 1];
    size_t n_a = strnlen(a, GPUPLAN_LEVENSHTEIN_MAX_LEN);
    size_t n_b = strnlen(b, GPUPLAN_LEVENSHTEIN_MAX_LEN);

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
