/*
 * chart_samples.h - the sample charts test_svg.c compares with its golden
 * files (tests/golden/svg/) and test_doc.c puts in its sample document.
 *
 * The numbers are illustrative, shaped like the planner's output (a 70B LoRA
 * job on three GPU types, a Pareto set, own vs cloud over five years, a vLLM
 * and an SGLang sweep); they are not estimates and no test reads them as such.
 */
#ifndef GPUPLAN_CHART_SAMPLES_H
#define GPUPLAN_CHART_SAMPLES_H

#include <stdbool.h>
#include <stddef.h>

#include "render/svg_internal.h"

static const char *const sample_parts_en[GPUPLAN_SVG_MEM_PART_COUNT] = {
    "weights",  "gradients", "optimizer", "activations",
    "adapters", "KV cache",  "overhead",  "CUDA context",
};
static const char *const sample_parts_ru[GPUPLAN_SVG_MEM_PART_COUNT] = {
    "веса",     "градиенты", "оптимизатор", "активации",
    "адаптеры", "KV-кэш",    "накладные",   "контекст CUDA",
};

static inline enum gpuplan_status
sample_memory(struct gpuplan_buf *out, bool ru, bool embedded, struct gpuplan_error *err)
{
    const struct gpuplan_svg_mem_bar bars[] = {
        { .label = "H100 SXM 80GB",
          .part_gib = { 32.9, 0.4, 1.2, 18.6, 0.4, 0, 3.1, 0.5 },
          .usable_gib = 79.1,
          .has_total = true,
          .total_gib = 55.4,
          .has_range = true,
          .low_gib = 52.0,
          .high_gib = 63.5 },
        { .label = ru ? "L40S 48GB (не помещается)" : "L40S 48GB (does not fit)",
          .part_gib = { 32.9, 0.4, 1.2, 9.3, 0.4, 0, 2.0, 0.5 },
          .usable_gib = 44.4,
          .has_range = true,
          .low_gib = 42.1,
          .high_gib = 51.8 },
        { .label = ru ? "A100 80GB, инференс" : "A100 80GB, serving",
          .part_gib = { 16.5, 0, 0, 0.8, 0, 52.0, 1.2, 0.6 },
          .usable_gib = 79.1 },
    };
    struct gpuplan_svg_mem_chart c = {
        .common = { .omit_style = embedded,
                    .id = ru ? "mem-ru" : "mem",
                    .title = ru ? "Память на GPU" : "Memory per GPU",
                    .desc = ru ? "Пик памяти каждого GPU по частям против доступной памяти."
                               : "Peak memory of each GPU by part against its usable memory." },
        .usable_label = ru ? "доступная память" : "usable memory",
        .range_label = ru ? "диапазон пика" : "peak range",
        .total_label = ru ? "оценка пика" : "estimated peak",
        .axis_label = ru ? "память на GPU" : "memory per GPU",
        .unit = ru ? "ГиБ" : "GiB",
        .bars = bars,
        .n_bars = sizeof bars / sizeof bars[0],
    };
    for (size_t p = 0; p < GPUPLAN_SVG_MEM_PART_COUNT; p++)
        c.part_labels[p] = ru ? sample_parts_ru[p] : sample_parts_en[p];
    return gpuplan_svg_memory(&c, out, err);
}

static inline enum gpuplan_status
sample_scatter(struct gpuplan_buf *out, bool ru, bool embedded, struct gpuplan_error *err)
{
    const struct gpuplan_svg_point points[] = {
        { 9.8, 2650, "8×H200", true, true },
        { 11.5, 2390, "8×H100 SXM", true, false },
        { 12.1, 2460, "8×H100 NVL", false, false },
        { 19.6, 2210, "4×H200", true, false },
        { 22.4, 2130, "4×H100 SXM", true, false },
        { 23.0, 2290, "4×H100 PCIe", false, false },
        { 24.9, 2960, "8×A100 80GB", false, false },
        { 38.5, 1980, "2×H200", true, false },
        { 44.0, 2710, "4×A100 80GB", false, false },
        { 47.2, 2050, "8×L40S", false, false },
        { 5.3, 3420, "16×H100 SXM (2 nodes)", true, false },
        { 5.9, 3900, "16×A100 80GB (2 nodes)", false, false },
        { 88.0, 1940, "4×L40S", true, false },
        { 93.5, 2480, "2×A100 80GB", false, false },
    };
    const struct gpuplan_svg_scatter c = {
        .common = { .omit_style = embedded,
                    .id = ru ? "pareto-ru" : "pareto",
                    .title = ru ? "Время и стоимость" : "Time vs cost",
                    .desc = ru ? "Время обучения и облачная стоимость каждого плана."
                               : "Time to train and cloud cost of each plan." },
        .x = { .label = ru ? "время обучения" : "time to train",
               .unit = ru ? "ч" : "h",
               .is_log = true },
        .y = { .label = ru ? "стоимость" : "cost", .unit = "USD", .is_log = true },
        .points = points,
        .n_points = sizeof points / sizeof points[0],
        .draw_front = true,
        .pareto_label = ru ? "множество Парето" : "Pareto set",
        .other_label = ru ? "другие планы" : "other plans",
        .highlight_label = ru ? "рекомендация" : "recommended",
    };
    return gpuplan_svg_scatter(&c, out, err);
}

#define SAMPLE_MONTHS 61
static inline enum gpuplan_status
sample_cost(struct gpuplan_buf *out, bool ru, bool embedded, struct gpuplan_error *err)
{
    double own[SAMPLE_MONTHS], cloud[SAMPLE_MONTHS];
    for (int m = 0; m < SAMPLE_MONTHS; m++) {
        own[m] = 280000.0 + 5200.0 * m;
        cloud[m] = 24000.0 * m;
    }
    const struct gpuplan_svg_line lines[] = {
        { ru ? "свой сервер" : "own", own, SAMPLE_MONTHS },
        { ru ? "облако" : "cloud", cloud, SAMPLE_MONTHS },
    };
    const struct gpuplan_svg_cost_chart c = {
        .common = { .omit_style = embedded,
                    .id = ru ? "tco-ru" : "tco",
                    .title = ru ? "Накопленная стоимость" : "Cumulative cost",
                    .desc = ru ? "Свой сервер против аренды по месяцам."
                               : "Owning against renting, month by month." },
        .x = { .unit = ru ? "мес." : "months", .from_zero = true, .is_tight = true },
        .y = { .label = ru ? "накопленная стоимость" : "cumulative cost",
               .unit = "USD",
               .from_zero = true },
        .x_start = 0,
        .x_step = 1,
        .lines = lines,
        .n_lines = 2,
        .has_break_even = true,
        .break_even_x = 280000.0 / (24000.0 - 5200.0),
        .break_even_label = ru ? "окупаемость" : "break-even",
    };
    return gpuplan_svg_cost(&c, out, err);
}

static inline enum gpuplan_status sample_latency(struct gpuplan_buf *out,
                                                 bool ttft,
                                                 bool ru,
                                                 bool embedded,
                                                 struct gpuplan_error *err)
{
    static const double vllm_x[] = { 420, 1650, 3100, 5200, 7400, 8600 };
    static const double vllm_tpot[] = { 9.5, 11.8, 15.2, 22.6, 38.0, 61.4 };
    static const double vllm_ttft[] = { 0.09, 0.15, 0.31, 0.74, 1.62, 3.35 };
    static const double sgl_x[] = { 450, 1780, 3350, 5700, 8100, 9400 };
    static const double sgl_tpot[] = { 9.1, 11.2, 14.1, 20.9, 35.2, 57.8 };
    static const double sgl_ttft[] = { 0.08, 0.14, 0.28, 0.66, 1.45, 3.02 };
    static const char *const conc[] = { "c=1", "c=4", "c=8", "c=16", "c=32", "c=64" };
    const struct gpuplan_svg_curve curves[] = {
        { "vLLM, 1×H100", vllm_x, ttft ? vllm_ttft : vllm_tpot, conc, 6 },
        { "SGLang, 1×H100", sgl_x, ttft ? sgl_ttft : sgl_tpot, conc, 6 },
    };
    const struct gpuplan_svg_target tpot_targets[] = {
        { ru ? "цель TPOT" : "TPOT target", 50, false },
    };
    const struct gpuplan_svg_target ttft_targets[] = {
        { ru ? "цель TTFT" : "TTFT target", 2, false },
        { ru ? "нужно" : "required", 4000, true },
    };
    const struct gpuplan_svg_latency_chart c = {
        .common = { .omit_style = embedded,
                    .id = ttft ? (ru ? "ttft-ru" : "ttft") : (ru ? "tpot-ru" : "tpot"),
                    .title = ttft ? (ru ? "TTFT и пропускная способность"
                                        : "Time to first token vs throughput")
                                  : (ru ? "TPOT и пропускная способность"
                                        : "Time per output token vs throughput"),
                    .desc = ru ? "Задержка против пропускной способности на GPU при росте "
                                 "числа одновременных запросов."
                               : "Latency against throughput per GPU as concurrency grows." },
        .x = { .label = ru ? "пропускная способность на GPU" : "throughput per GPU",
               .unit = ru ? "ток/с" : "tokens/s",
               .from_zero = true },
        .y = { .label = ttft ? "TTFT" : "TPOT",
               .unit = ttft ? (ru ? "с" : "s") : (ru ? "мс" : "ms"),
               .from_zero = !ttft,
               .is_log = ttft },
        .curves = curves,
        .n_curves = 2,
        .targets = ttft ? ttft_targets : tpot_targets,
        .n_targets = ttft ? 2 : 1,
    };
    return gpuplan_svg_latency(&c, out, err);
}

#endif
