/*
 * serving_commands.c - the verify artifact of a serving prediction: the
 * engine launch line the figures assume and the engine's own benchmark at
 * the predicted load (issue 17 item 6).
 *
 * Flag names are the engines' (vLLM `vllm serve` EngineArgs and `vllm
 * bench serve`; SGLang `python -m sglang.launch_server` ServerArgs and
 * `python -m sglang.bench_serving`). Every flag the accounting depends on
 * is written with the value used, defaults included, so the engine starts
 * with the budget, batch limits and layout the prediction describes.
 * The benchmark is a closed loop at the replica's concurrency on random
 * prompts of exactly the load's lengths: vLLM `--random-range-ratio 0`
 * (fixed lengths) and `--ignore-eos`; SGLang `--random-range-ratio 1`
 * (fixed: it draws from [ratio x len, len]) and its default of ignoring EOS.
 *
 * Not here: the figures (serving_memory.c, serving_time.c), rendering.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "gpuplan/serving.h"

/*
 * Requests the benchmark sends: ten per concurrency slot, at least ten, so
 * the ramp-up and the drain at the ends are a small share of the run (the
 * concurrency x 10 of published sweeps, e.g. the InferenceX and SGLang
 * benchmark scripts); an assumption, not a measured need.
 */
#define BENCH_PROMPTS_PER_SLOT 10u
#define BENCH_MIN_PROMPTS      10u

/* Append to a fixed line; text past its end is cut (the lines are far shorter). */
static void add(char *line, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(char *line, const char *fmt, ...)
{
    const size_t len = strlen(line);
    if (len + 1 >= GPUPLAN_SERVING_COMMAND_MAX)
        return;
    va_list ap;
    va_start(ap, fmt);
    (void)vsnprintf(line + len, GPUPLAN_SERVING_COMMAND_MAX - len, fmt, ap);
    va_end(ap);
}

/* The engine's --quantization for a loaded weight format (online fp8 only: checkpoints in
 * AWQ/GPTQ/MXFP4/NVFP4 are detected from their config, and forcing the method there picks a
 * slower kernel, e.g. awq instead of awq_marlin). */
static void
quantization_of(enum gpuplan_dtype w, bool stored_fp8, struct gpuplan_serving_commands *o)
{
    o->quantization[0] = '\0';
    o->needs_quantized_checkpoint = false;
    switch (w) {
    case GPUPLAN_DTYPE_UNKNOWN:
    case GPUPLAN_DTYPE_BF16:
    case GPUPLAN_DTYPE_F16:
    case GPUPLAN_DTYPE_F32:
        return;
    case GPUPLAN_DTYPE_F8_E4M3:
    case GPUPLAN_DTYPE_F8_E5M2:
        if (!stored_fp8)
            (void)snprintf(o->quantization, sizeof o->quantization, "fp8");
        return;
    default:
        o->needs_quantized_checkpoint = true;
        return;
    }
}

/*
 * The KV cache dtype as a flag. FP8 has its own value (vLLM `--kv-cache-dtype fp8`,
 * SGLang `fp8_e4m3`); a 16- or 32-bit cache follows the model dtype in both engines
 * (`auto`), so an explicit one is `--dtype` (which also sets the activations').
 */
static void
kv_flag(enum gpuplan_serving_engine engine, enum gpuplan_serving_kv_dtype kv, char *line)
{
    switch (kv) {
    case GPUPLAN_SERVING_KV_FP8:
        add(line, " --kv-cache-dtype %s", engine == GPUPLAN_SERVING_SGLANG ? "fp8_e4m3" : "fp8");
        return;
    case GPUPLAN_SERVING_KV_BF16:
        add(line, " --dtype bfloat16");
        return;
    case GPUPLAN_SERVING_KV_FP16:
        add(line, " --dtype float16");
        return;
    case GPUPLAN_SERVING_KV_FP32:
        add(line, " --dtype float32");
        return;
    default:
        return; /* auto: the engine's default, not written */
    }
}

static void vllm_lines(const char *model,
                       const struct gpuplan_serving_request *req,
                       const struct gpuplan_serving_memory *m,
                       const struct gpuplan_serving_load *load,
                       struct gpuplan_serving_commands *o)
{
    add(o->launch, "vllm serve %s --tensor-parallel-size %u", model, m->tp);
    if (m->pp > 1)
        add(o->launch, " --pipeline-parallel-size %u", m->pp);
    if (m->ep > 1)
        add(o->launch, " --enable-expert-parallel");
    add(o->launch,
        " --max-model-len %llu --max-num-seqs %u --max-num-batched-tokens %llu "
        "--gpu-memory-utilization %.2f",
        (unsigned long long)m->max_model_len, m->max_num_seqs,
        (unsigned long long)m->max_num_batched_tokens, m->memory_fraction);
    kv_flag(GPUPLAN_SERVING_VLLM, req->kv_dtype, o->launch);
    if (o->quantization[0])
        add(o->launch, " --quantization %s", o->quantization);
    if (req->enforce_eager)
        add(o->launch, " --enforce-eager");
    add(o->bench,
        "vllm bench serve --backend vllm --model %s --dataset-name random "
        "--random-input-len %llu --random-output-len %llu --random-range-ratio 0 "
        "--ignore-eos --max-concurrency %llu --num-prompts %llu",
        model, (unsigned long long)load->input_tokens, (unsigned long long)load->output_tokens,
        (unsigned long long)load->concurrency, (unsigned long long)o->num_prompts);
}

static void sglang_lines(const char *model,
                         const struct gpuplan_serving_request *req,
                         const struct gpuplan_serving_memory *m,
                         const struct gpuplan_serving_load *load,
                         struct gpuplan_serving_commands *o)
{
    add(o->launch, "python -m sglang.launch_server --model-path %s --tp %u", model, m->tp);
    if (m->pp > 1)
        add(o->launch, " --pp-size %u", m->pp);
    if (m->ep > 1)
        add(o->launch, " --ep-size %u", m->ep);
    add(o->launch,
        " --context-length %llu --max-running-requests %u --chunked-prefill-size "
        "%llu --mem-fraction-static %.3f",
        (unsigned long long)m->max_model_len, m->max_num_seqs,
        (unsigned long long)m->max_num_batched_tokens, m->memory_fraction);
    kv_flag(GPUPLAN_SERVING_SGLANG, req->kv_dtype, o->launch);
    if (o->quantization[0])
        add(o->launch, " --quantization %s", o->quantization);
    if (req->enforce_eager)
        add(o->launch, " --disable-cuda-graph");
    add(o->bench,
        "python -m sglang.bench_serving --backend sglang --dataset-name random "
        "--random-input-len %llu --random-output-len %llu --random-range-ratio 1 "
        "--max-concurrency %llu --num-prompts %llu",
        (unsigned long long)load->input_tokens, (unsigned long long)load->output_tokens,
        (unsigned long long)load->concurrency, (unsigned long long)o->num_prompts);
}

void gpuplan_serving_commands(const char *model_ref,
                              const struct gpuplan_serving_request *req,
                              const struct gpuplan_serving_memory *mem,
                              const struct gpuplan_serving_load *load,
                              bool stored_fp8,
                              struct gpuplan_serving_commands *out)
{
    memset(out, 0, sizeof *out);
    const char *model = model_ref && model_ref[0] ? model_ref : "MODEL";
    const uint64_t c = load->concurrency ? load->concurrency : 1;
    out->num_prompts = c * BENCH_PROMPTS_PER_SLOT;
    if (out->num_prompts < BENCH_MIN_PROMPTS)
        out->num_prompts = BENCH_MIN_PROMPTS;
    quantization_of(req->weights_dtype, stored_fp8, out);
    if (mem->engine == GPUPLAN_SERVING_SGLANG)
        sglang_lines(model, req, mem, load, out);
    else
        vllm_lines(model, req, mem, load, out);
}
