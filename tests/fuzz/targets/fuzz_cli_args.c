/*
 * fuzz_cli_args.c - libFuzzer target: a command line (arguments separated by
 * NUL bytes) through the job option table, then the estimators.
 *
 * The arguments go through gpuplan_options_parse_argv() over
 * gpuplan_job_options, the parser and table `gpuplan estimate` uses
 * ("--name=value" or "--name value"). A job that parses is then estimated
 * (memory and throughput) for a catalog model picked by the input, on the GPU the job names, and
 * rendered as JSON and text: enormous --seq-len, --micro-batch, --batch, --context or
 * --tp must come back as errors or finite numbers, never overflow or crash.
 * The catalog and models are loaded once (not per input), as a server would.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/estimate.h"
#include "gpuplan/gpuplan.h"
#include "gpuplan/job.h"
#include "gpuplan/render.h"
#include "gpuplan/throughput.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_ARGS     64
#define MAX_ARG_TEXT 4096

/* Catalog models the inputs choose between: dense GQA, MoE, small-expert MoE, MLA, soft-capped. */
static const char *const model_ids[] = { "llama-3.1-8b", "mixtral-8x7b", "qwen3-30b-a3b",
                                         "deepseek-v3", "gemma-2-9b" };
#define N_MODELS (sizeof model_ids / sizeof model_ids[0])

static struct gpuplan_catalog *catalog;
static struct gpuplan_model models[N_MODELS];
static bool model_ok[N_MODELS];

static void load_once(void)
{
    static bool done;
    if (done)
        return;
    done = true;
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    if (gpuplan_catalog_load(&catalog, NULL, &err) != GPUPLAN_OK)
        __builtin_trap(); /* the embedded catalog must always load */
    for (size_t i = 0; i < N_MODELS; i++) {
        gpuplan_model_init(&models[i]);
        const struct gpuplan_catalog_model *cm = gpuplan_catalog_find_model(catalog, model_ids[i]);
        model_ok[i] =
            cm && cm->config_json &&
            gpuplan_model_from_hf_config(&models[i], (const uint8_t *)cm->config_json,
                                         cm->config_json_len, model_ids[i], &err) == GPUPLAN_OK;
    }
}

/*
 * Apply argv with the CLI's own parser over the job's option table (what
 * `gpuplan estimate` reads; its --format and --catalog are the CLI's and
 * count as unknown options here); false when it refuses.
 */
static bool apply_args(struct gpuplan_job *job, int argc, char **argv)
{
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    struct gpuplan_argv args;
    const struct gpuplan_option_group groups[] = { { gpuplan_job_options, job, 0 } };
    const enum gpuplan_status st =
        gpuplan_options_parse_argv(groups, 1, 1, argc, argv, &args, &err);
    if (st != GPUPLAN_OK) {
        /* A refusal names the problem, points inside argv and is NUL-terminated. */
        if (err.code != st || !err.message[0] || !memchr(err.message, 0, sizeof err.message) ||
            args.problem == GPUPLAN_ARGV_OK || args.bad_index < 1 || args.bad_index >= argc)
            __builtin_trap();
        return false;
    }
    return !args.help;
}

static void estimate(const struct gpuplan_model *model, const struct gpuplan_job *job)
{
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    const struct gpuplan_gpu *gpu = NULL;
    if (job->gpu_id[0] && gpuplan_catalog_get_gpu(catalog, job->gpu_id, &gpu, &err) != GPUPLAN_OK)
        gpu = NULL;
    struct gpuplan_estimate *estimate = calloc(1, sizeof *estimate);
    if (!estimate)
        return;
    struct gpuplan_buf out;
    gpuplan_buf_init(&out, 0);
    if (gpuplan_estimate_run(model, job, gpu, estimate, &err) == GPUPLAN_OK) {
        (void)gpuplan_render_estimate(estimate, GPUPLAN_FORMAT_JSON, &out, &err);
        gpuplan_buf_reset(&out);
        (void)gpuplan_render_estimate(estimate, GPUPLAN_FORMAT_TEXT, &out, &err);
    }
    gpuplan_buf_release(&out);
    free(estimate);
    if (gpu) {
        struct gpuplan_throughput t;
        const struct gpuplan_platform *platform =
            gpu->n_platforms ? gpuplan_catalog_find_platform(catalog, gpu->platforms[0]) : NULL;
        (void)gpuplan_throughput_estimate(model, job, gpu, platform, &t, &err);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    load_once();
    if (size == 0)
        return 0;
    const size_t which = data[0] % N_MODELS;
    data++;
    size--;
    /* argv[0] is the command, then the NUL-separated arguments, each copied so ASan sees its
     * exact end. */
    static char command[] = "estimate";
    char *argv[MAX_ARGS + 1];
    argv[0] = command;
    int argc = 1;
    size_t start = 0;
    for (size_t i = 0; i <= size && argc <= MAX_ARGS; i++) {
        if (i < size && data[i] != 0)
            continue;
        const size_t n = i - start;
        if (n <= MAX_ARG_TEXT) {
            argv[argc] = malloc(n + 1);
            if (!argv[argc])
                break;
            memcpy(argv[argc], data + start, n);
            argv[argc][n] = '\0';
            argc++;
        }
        start = i + 1;
    }
    struct gpuplan_job job;
    gpuplan_job_init(&job);
    if (apply_args(&job, argc, argv) && model_ok[which])
        estimate(&models[which], &job);
    for (int i = 1; i < argc; i++)
        free(argv[i]);
    return 0;
}
