/*
 * bench_safetensors.c - parse a generated 100,000-tensor safetensors header
 * (a MoE-shaped state dict: 64 layers x 520 tensors, mostly routed experts)
 * N_RUNS times and print the median milliseconds per parse (a) for the
 * header parse and validation alone and (b) with the inventory build.
 * The machine may be shared: the median CPU time is printed too.
 *
 * Baseline, measured in the same run: jansson's json_loadb() of the same
 * header JSON (a DOM of it, no validation, no inventory), what a reader
 * built on the JSON library alone would pay; each figure is printed with its
 * ratio to it. Target (foundation issue, issue 19): (b) under 100 ms,
 * printed as met or NOT met. Prints figures only; not a pass/fail test.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "bench_common.h"
#include "formats/safetensors_internal.h"
#include "gpuplan/buf.h"
#include "gpuplan/model.h"

#define N_TENSORS 100000
#define N_RUNS    15
/* The foundation issue's bound for a 100k-tensor header with the inventory. */
#define TARGET_MS 100.0

static double clock_s(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Wall time, and this process's CPU time (close to wall time on an idle machine). */
static void now(double *wall_s, double *cpu_s)
{
    *wall_s = clock_s(CLOCK_MONOTONIC);
    *cpu_s = clock_s(CLOCK_PROCESS_CPUTIME_ID);
}

/* Header JSON of N_TENSORS tensors: per layer 4 attention + 2 norms + experts x 3. */
static void build_header(struct gpuplan_buf *json, uint64_t *data_bytes)
{
    static const char *const expert_parts[] = { "gate_proj", "up_proj", "down_proj" };
    uint64_t offset = 0;
    size_t n = 0;
    gpuplan_buf_puts(json, "{\"__metadata__\":{\"format\":\"pt\"}");
    for (int layer = 0; n < N_TENSORS; layer++) {
        for (int e = 0; e < 170 && n < N_TENSORS; e++) {
            for (int p = 0; p < 3 && n < N_TENSORS; p++, n++) {
                const uint64_t bytes = 2ULL * 768 * 2048;
                gpuplan_buf_printf(json,
                                   ",\"model.layers.%d.mlp.experts.%d.%s.weight\":{\"dtype\":"
                                   "\"BF16\",\"shape\":[768,2048],\"data_offsets\":[%llu,%llu]}",
                                   layer, e, expert_parts[p], (unsigned long long)offset,
                                   (unsigned long long)(offset + bytes));
                offset += bytes;
            }
        }
        for (int k = 0; k < 6 && n < N_TENSORS; k++, n++) {
            const uint64_t bytes = 2ULL * 2048;
            gpuplan_buf_printf(json,
                               ",\"model.layers.%d.post_attention_layernorm_%d.weight\":{"
                               "\"dtype\":\"BF16\",\"shape\":[2048],\"data_offsets\":[%llu,%llu]}",
                               layer, k, (unsigned long long)offset,
                               (unsigned long long)(offset + bytes));
            offset += bytes;
        }
    }
    gpuplan_buf_puts(json, "}");
    *data_bytes = offset;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median_ms(double *s, size_t n)
{
    qsort(s, n, sizeof *s, cmp_double);
    return (n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2) * 1e3;
}

int main(void)
{
    struct gpuplan_buf json;
    gpuplan_buf_init(&json, 256ULL * 1024 * 1024);
    uint64_t data_bytes = 0;
    build_header(&json, &data_bytes);
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    if (gpuplan_buf_status(&json, &err) != GPUPLAN_OK) {
        fprintf(stderr, "bench_safetensors: %s\n", err.message);
        return 1;
    }
    const size_t n = json.len;
    uint8_t *file = malloc(n + 8);
    if (!file)
        return 1;
    for (int i = 0; i < 8; i++)
        file[i] = (uint8_t)((uint64_t)n >> (8 * i));
    memcpy(file + 8, json.data, n);
    const uint64_t file_bytes = 8 + n + data_bytes;

    /* (a) header parse + validation; (b) parse + validation + inventory (finalized model). */
    double parse_s[N_RUNS], model_s[N_RUNS], parse_cpu_s[N_RUNS], model_cpu_s[N_RUNS];
    double dom_s[N_RUNS], dom_cpu_s[N_RUNS];
    size_t n_groups = 0;
    for (int run = 0; run < N_RUNS; run++) {
        double d0, e0, d1, e1;
        now(&d0, &e0);
        json_error_t jerr;
        json_t *dom = json_loadb((const char *)file + 8, n, 0, &jerr);
        now(&d1, &e1);
        if (!dom) {
            fprintf(stderr, "bench_safetensors: jansson: %s\n", jerr.text);
            return 1;
        }
        json_decref(dom);
        dom_s[run] = d1 - d0;
        dom_cpu_s[run] = e1 - e0;
        struct gpuplan_st_header h;
        double t0, c0, t1, c1;
        now(&t0, &c0);
        if (gpuplan_st_header_parse(file, n + 8, file_bytes, "bench", &h, &err) != GPUPLAN_OK) {
            fprintf(stderr, "bench_safetensors: %s: %s\n", err.where, err.message);
            return 1;
        }
        now(&t1, &c1);
        parse_s[run] = t1 - t0;
        parse_cpu_s[run] = c1 - c0;
        gpuplan_st_header_release(&h);
        struct gpuplan_model model;
        gpuplan_model_init(&model);
        now(&t0, &c0);
        if (gpuplan_model_from_safetensors(&model, file, n + 8, file_bytes, "bench", &err) !=
            GPUPLAN_OK) {
            fprintf(stderr, "bench_safetensors: %s\n", err.message);
            return 1;
        }
        now(&t1, &c1);
        model_s[run] = t1 - t0;
        model_cpu_s[run] = c1 - c0;
        n_groups = model.n_groups;
        gpuplan_model_release(&model);
    }
    bench_machine_line("bench_safetensors");
    printf("safetensors header: %d tensors, %zu bytes of JSON, %d runs\n", N_TENSORS, n, N_RUNS);
    const double dom_ms = median_ms(dom_s, N_RUNS);
    const double parse_ms = median_ms(parse_s, N_RUNS);
    const double model_ms = median_ms(model_s, N_RUNS);
    printf("  baseline: jansson json_loadb (DOM only): median %.1f ms (CPU %.1f ms)\n", dom_ms,
           median_ms(dom_cpu_s, N_RUNS));
    printf("  (a) parse+validate:   median %.1f ms per parse (CPU %.1f ms) | ratio to baseline "
           "%.2f\n",
           parse_ms, median_ms(parse_cpu_s, N_RUNS), parse_ms / dom_ms);
    printf("  (b) parse+inventory:  median %.1f ms per parse (CPU %.1f ms; %zu groups) | ratio to "
           "baseline %.2f\n",
           model_ms, median_ms(model_cpu_s, N_RUNS), n_groups, model_ms / dom_ms);

    /* On a shared machine wall time includes other processes' turns; CPU time does not. */
    const double model_cpu_ms = median_ms(model_cpu_s, N_RUNS);
    printf("  target (b) < %.0f ms: wall %s, CPU %s\n", TARGET_MS,
           model_ms < TARGET_MS ? "met" : "NOT met", model_cpu_ms < TARGET_MS ? "met" : "NOT met");
    free(file);
    gpuplan_buf_release(&json);
    return 0;
}
