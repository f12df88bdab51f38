/*
 * bench_common.h - what every C benchmark prints besides its figures: the
 * machine it ran on (CPU model, cores, load average, time) and clocks.
 * Each benchmark also measures a baseline in the same run and prints its
 * figure as a ratio to it: the ratio carries from machine to machine and
 * through the load of a shared machine, the absolute figure does not.
 */
#ifndef GPUPLAN_BENCH_COMMON_H
#define GPUPLAN_BENCH_COMMON_H

#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static inline double bench_clock_s(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}
static inline double bench_now_s(void)
{
    return bench_clock_s(CLOCK_MONOTONIC);
}

/* "== machine: 2 CPUs (AMD EPYC), load average 1.05 0.61 0.26, 2026-12-01T22:41:01Z" */
static inline void bench_machine_line(const char *name)
{
    char model[128] = "unknown CPU";
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[512];
    while (f && fgets(line, sizeof line, f)) {
        const char *colon = strchr(line, ':');
        if (strncmp(line, "model name", 10) == 0 && colon) {
            (void)snprintf(model, sizeof model, "%s", colon + 2);
            model[strcspn(model, "\n")] = '\0';
            break;
        }
    }
    if (f)
        fclose(f);
    char load[64] = "?";
    f = fopen("/proc/loadavg", "r");
    double l1 = 0, l5 = 0, l15 = 0;
    if (f && fscanf(f, "%lf %lf %lf", &l1, &l5, &l15) == 3)
        (void)snprintf(load, sizeof load, "%.2f %.2f %.2f", l1, l5, l15);
    if (f)
        fclose(f);
    char when[32] = "";
    const time_t t = time(NULL);
    struct tm tm;
    if (gmtime_r(&t, &tm))
        (void)strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
    printf("== %s machine: %ld CPUs (%s), load average %s, %s\n", name,
           sysconf(_SC_NPROCESSORS_ONLN), model, load, when);
}

#endif
