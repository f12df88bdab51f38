/*
 * units.h - unit constants and checked integer arithmetic.
 *
 * Names carry units: _bytes, _gib (2^30 bytes), _gb (10^9 bytes), _tflops,
 * _gb_per_s, _usd, _s, _hours, _w. Every conversion goes through these
 * constants so that no bare 1e9 or 1024 appears in model code.
 */
#ifndef GPUPLAN_UNITS_H
#define GPUPLAN_UNITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GPUPLAN_BYTES_PER_KIB   1024ULL
#define GPUPLAN_BYTES_PER_MIB   (1024ULL * 1024ULL)
#define GPUPLAN_BYTES_PER_GIB   (1024ULL * 1024ULL * 1024ULL)
#define GPUPLAN_BYTES_PER_TIB   (1024ULL * 1024ULL * 1024ULL * 1024ULL)
#define GPUPLAN_BYTES_PER_KB    1000ULL
#define GPUPLAN_BYTES_PER_MB    1000000ULL
#define GPUPLAN_BYTES_PER_GB    1000000000ULL
#define GPUPLAN_BYTES_PER_TB    1000000000000ULL
#define GPUPLAN_FLOPS_PER_TFLOP 1e12
#define GPUPLAN_S_PER_HOUR      3600.0
#define GPUPLAN_HOURS_PER_DAY   24.0
#define GPUPLAN_DAYS_PER_MONTH  (365.25 / 12.0)
#define GPUPLAN_MONTHS_PER_YEAR 12.0
#define GPUPLAN_W_PER_KW        1000.0
#define GPUPLAN_BITS_PER_BYTE   8

double gpuplan_gib_from_bytes(uint64_t bytes);
double gpuplan_gb_from_bytes(uint64_t bytes);
/* Rounds to nearest, saturates at UINT64_MAX, maps negatives and NaN to 0. */
uint64_t gpuplan_bytes_from_double(double bytes);

/* Checked arithmetic: return false (and leave *out unspecified) on overflow. */
static inline bool gpuplan_add_u64(uint64_t a, uint64_t b, uint64_t *out)
{
    return !__builtin_add_overflow(a, b, out);
}

static inline bool gpuplan_mul_u64(uint64_t a, uint64_t b, uint64_t *out)
{
    return !__builtin_mul_overflow(a, b, out);
}

/*
 * Parse a byte size such as "80GB", "80 GiB", "141GB", "512MiB", "1.5TB" or a
 * plain integer. Returns false on any syntax error, negative or overflowing
 * value. Accepts B, KB, MB, GB, TB (powers of 1000) and KiB, MiB, GiB, TiB.
 */
bool gpuplan_parse_bytes(const char *text, uint64_t *out_bytes);

/*
 * Parse a count such as "70e9", "70B", "8k", "1M", "2048" into an integer.
 * Suffixes k/K=1e3, M=1e6, B/G=1e9, T=1e12. Exact for integers below 2^53.
 */
bool gpuplan_parse_count(const char *text, uint64_t *out);

/* Parse a finite double with no trailing junk. */
bool gpuplan_parse_double(const char *text, double *out);

/* The shortest "%.*g" text of `value` that gpuplan_parse_double reads back exactly. */
void gpuplan_format_double(char *dst, size_t dst_size, double value);

/* "70,553,706,496": `value` with thousands separators, locale-independent. */
void gpuplan_format_count(char *dst, size_t dst_size, uint64_t value);

#endif
