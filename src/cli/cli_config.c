/*
 * cli_config.c - `--from [KIND:]FILE` (estimate, recommend) and the FILE of
 * `gpuplan check`: read the framework config files into a job
 * (gpuplan_config_read), following a file they name (accelerate's
 * deepspeed_config_file, TrainingArguments' or axolotl's deepspeed:)
 * relative to the first file's folder, as the library leaves reading to the
 * caller. Files are read bounded (GPUPLAN_CONFIG_MAX_BYTES).
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "gpuplan/plan.h"

enum gpuplan_status cli_from_add(void *dest,
                                 const struct gpuplan_option *opt,
                                 const char *text,
                                 struct gpuplan_error *err)
{
    struct cli_from *from = (struct cli_from *)((char *)dest + opt->offset);
    if (from->n >= CLI_MAX_FROM)
        return gpuplan_error_set(err, GPUPLAN_ERR_USAGE, NULL, "'--from' given more than %d times",
                                 CLI_MAX_FROM);
    from->paths[from->n++] = text;
    return GPUPLAN_OK;
}

/* "axolotl:train.yaml" names the kind; a plain path (even with a ':') detects it. */
static const char *split_kind(const char *arg, enum gpuplan_config_kind *kind)
{
    *kind = GPUPLAN_CONFIG_AUTO;
    const char *colon = strchr(arg, ':');
    if (!colon || colon == arg || (size_t)(colon - arg) >= 32)
        return arg;
    char name[32];
    (void)snprintf(name, sizeof name, "%.*s", (int)(colon - arg), arg);
    enum gpuplan_config_kind k;
    if (!gpuplan_config_kind_from_name(name, &k))
        return arg;
    *kind = k;
    return colon + 1;
}

static enum gpuplan_status read_one(struct gpuplan_config *cfg,
                                    const char *path,
                                    enum gpuplan_config_kind kind,
                                    struct gpuplan_error *err)
{
    uint8_t *bytes = NULL;
    size_t len = 0;
    enum gpuplan_status st = cli_read_file(path, GPUPLAN_CONFIG_MAX_BYTES, &bytes, &len, err);
    if (st == GPUPLAN_OK)
        st = gpuplan_config_read(cfg, bytes, len, path, kind, err);
    free(bytes);
    return st;
}

/* `ref` relative to the folder of `first` (unless absolute). */
static void resolve_ref(const char *first, const char *ref, char *out, size_t size)
{
    const char *slash = strrchr(first, '/');
    if (ref[0] == '/' || !slash)
        (void)snprintf(out, size, "%s", ref);
    else
        (void)snprintf(out, size, "%.*s/%s", (int)(slash - first), first, ref);
}

enum gpuplan_status
cli_config_load(const struct cli_from *from, struct gpuplan_config *cfg, struct gpuplan_error *err)
{
    char done[CLI_MAX_FROM][GPUPLAN_JOB_MAX_TEXT];
    size_t n_done = 0;
    const char *first = NULL;
    for (size_t i = 0; i < from->n; i++) {
        enum gpuplan_config_kind kind;
        const char *path = split_kind(from->paths[i], &kind);
        if (!first)
            first = path;
        enum gpuplan_status st = read_one(cfg, path, kind, err);
        if (st != GPUPLAN_OK)
            return st;
        /* A file named by the ones read (accelerate -> DeepSpeed JSON), once each. */
        while (cfg->referenced_path[0] && n_done < CLI_MAX_FROM) {
            bool seen = false;
            for (size_t d = 0; d < n_done; d++)
                seen = seen || strcmp(done[d], cfg->referenced_path) == 0;
            if (seen)
                break;
            (void)snprintf(done[n_done++], sizeof done[0], "%s", cfg->referenced_path);
            char ref[2 * GPUPLAN_JOB_MAX_TEXT];
            resolve_ref(first, cfg->referenced_path, ref, sizeof ref);
            st = read_one(cfg, ref, GPUPLAN_CONFIG_DEEPSPEED, err);
            if (st != GPUPLAN_OK)
                return st;
        }
    }
    return GPUPLAN_OK;
}

void cli_config_mark_fixed(const struct gpuplan_config *cfg, struct gpuplan_plan_request *req)
{
    static const char *const knobs[] = { "method",    "precision", "micro-batch",
                                         "grad-ckpt", "sharding",  "offload" };
    for (size_t k = 0; k < sizeof knobs / sizeof knobs[0]; k++) {
        for (size_t i = 0; i < cfg->n_notes; i++) {
            const struct gpuplan_config_note *n = &cfg->notes[i];
            if (strcmp(n->setting, knobs[k]) != 0 ||
                (n->kind != GPUPLAN_CONFIG_NOTE_MAPPED && n->kind != GPUPLAN_CONFIG_NOTE_DEFAULT))
                continue;
            gpuplan_plan_request_mark_fixed(req,
                                            gpuplan_options_find(gpuplan_job_options, knobs[k]));
            break;
        }
    }
}
