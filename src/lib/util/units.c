/*
 * units.c - unit conversions and strict number parsing (zstd's
 * readU32FromCharChecked spirit: whole string, range and overflow checked).
 */
#include "gpuplan/units.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

double gpuplan_gib_from_bytes(uint64_t bytes)
{
    return (double)bytes / (double)GPUPLAN_BYTES_PER_GIB;
}

double gpuplan_gb_from_bytes(uint64_t bytes)
{
    return (double)bytes / (double)GPUPLAN_BYTES_PER_GB;
}

/* 2^63: the first double past INT64_MAX (llround's range). */
#define GPUPLAN_TWO_POW_63 9223372036854775808.0

uint64_t gpuplan_bytes_from_double(double bytes)
{
    if (!(bytes > 0.0))
        return 0;
    if (bytes >= 18446744073709551615.0)
        return UINT64_MAX;
    if (bytes >= GPUPLAN_TWO_POW_63)
        return (uint64_t)llround(bytes); /* past INT64_MAX: as before, llround's own answer */
    /* llround() without the libm call (the planner converts 13 figures per candidate): the
     * truncation, plus one when the fraction, exact in a double, is at least a half (ties
     * away from zero, as llround) */
    const uint64_t whole = (uint64_t)bytes;
    return whole + (bytes - (double)whole >= 0.5 ? 1 : 0);
}

bool gpuplan_parse_double(const char *text, double *out)
{
    if (!text || !*text || isspace((unsigned char)*text))
        return false;
    errno = 0;
    char *end = NULL;
    double v = strtod(text, &end);
    if (errno || end == text || *end != '\0' || !isfinite(v))
        return false;
    *out = v;
    return true;
}

/* Parse a leading finite non-negative number; return the rest of the string. */
static const char *parse_number_prefix(const char *text, double *out)
{
    if (!text || !*text || !(isdigit((unsigned char)*text) || *text == '.'))
        return NULL;
    errno = 0;
    char *end = NULL;
    double v = strtod(text, &end);
    if (errno || end == text || !isfinite(v) || v < 0.0)
        return NULL;
    *out = v;
    return end;
}

static bool to_u64(double v, uint64_t *out)
{
    if (!(v >= 0.0) || v >= 18446744073709551615.0)
        return false;
    double r = nearbyint(v);
    if (fabs(r - v) > 1e-6 * (v > 1.0 ? v : 1.0))
        return false;
    *out = (uint64_t)r;
    return true;
}

bool gpuplan_parse_bytes(const char *text, uint64_t *out_bytes)
{
    static const struct {
        const char *suffix;
        double scale;
    } units[] = {
        { "", 1.0 },
        { "b", 1.0 },
        { "kb", (double)GPUPLAN_BYTES_PER_KB },
        { "mb", (double)GPUPLAN_BYTES_PER_MB },
        { "gb", (double)GPUPLAN_BYTES_PER_GB },
        { "tb", (double)GPUPLAN_BYTES_PER_TB },
        { "kib", (double)GPUPLAN_BYTES_PER_KIB },
        { "mib", (double)GPUPLAN_BYTES_PER_MIB },
        { "gib", (double)GPUPLAN_BYTES_PER_GIB },
        { "tib", (double)GPUPLAN_BYTES_PER_TIB },
    };
    double v;
    const char *rest = parse_number_prefix(text, &v);
    if (!rest)
        return false;
    while (*rest == ' ')
        rest++;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        if (strcasecmp(rest, units[i].suffix) == 0)
            return to_u64(v * units[i].scale, out_bytes);
    }
    return false;
}

bool gpuplan_parse_count(const char *text, uint64_t *out)
{
    double v;
    const char *rest = parse_number_prefix(text, &v);
    if (!rest)
        return false;
    double scale = 1.0;
    if (*rest) {
        if (rest[1] != '\0')
            return false;
        switch (*rest) {
        case 'k':
        case 'K':
            scale = 1e3;
            break;
        case 'M':
            scale = 1e6;
            break;
        case 'B':
        case 'G':
            scale = 1e9;
            break;
        case 'T':
            scale = 1e12;
            break;
        default:
            return false;
        }
    }
    return to_u64(v * scale, out);
}

void gpuplan_format_count(char *dst, size_t dst_size, uint64_t value)
{
    char digits[32];
    int n = snprintf(digits, sizeof digits, "%llu", (unsigned long long)value);
    char out[48];
    size_t o = 0;
    for (int i = 0; i < n; i++) {
        if (i > 0 && (n - i) % 3 == 0)
            out[o++] = ',';
        out[o++] = digits[i];
    }
    out[o] = '\0';
    (void)snprintf(dst, dst_size, "%s", out);
}

/* 17 significant digits always read back exactly (IEEE 754 binary64). */
#define DOUBLE_ROUND_TRIP_DIGITS 17

void gpuplan_format_double(char *dst, size_t dst_size, double value)
{
    for (int digits = 1; digits <= DOUBLE_ROUND_TRIP_DIGITS; digits++) {
        (void)snprintf(dst, dst_size, "%.*g", digits, value);
        double back = 0.0;
        if (gpuplan_parse_double(dst, &back) && back == value)
            return;
    }
}
