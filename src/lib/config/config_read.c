/*
 * config_read.c - the one entry point for framework config files:
 * gpuplan_config_read() (detect, map, merge) and the derivation of the job
 * from what the files said.
 *
 * A read parses the bytes into a tree (config_tree.c), picks the kind (from
 * the content: each kind has keys no other kind uses; the file name breaks
 * ties), and runs that kind's reader, which appends notes: MAPPED for every
 * key that set a job option (with its text value, as gpuplan_job_set takes
 * it), IGNORED/UNKNOWN for the rest, NOT_EXPRESSIBLE where the job has no
 * way to say it. Then the job is rebuilt from scratch: gpuplan_job_init(),
 * the stack's defaults for every option no file set (DEFAULT notes with the
 * framework file they come from), the files' settings in order (a later
 * file wins), and last the precision recipe, which depends on several facts
 * at once (see derive_precision). Rebuilding on every read is what makes
 * merging a second file exact.
 *
 * Not here: key tables of each framework (config_<kind>.c), the tree.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "config/config_internal.h"
#include "gpuplan/units.h"

static const char *const kind_names[] = {
    "auto", "deepspeed", "accelerate", "axolotl", "llama-factory", "torchtune", "trl", "peft",
};
static const char *const stack_names[] = {
    "unknown",       "hf-trainer", "trl",       "axolotl",
    "llama-factory", "torchtune",  "deepspeed", "accelerate",
};
static const char *const note_kind_names[] = {
    "mapped", "default", "unknown", "ignored", "not-expressible",
};

const char *gpuplan_config_kind_name(enum gpuplan_config_kind kind)
{
    return (unsigned)kind < GPUPLAN_CONFIG_KIND_COUNT ? kind_names[kind] : "?";
}

bool gpuplan_config_kind_from_name(const char *name, enum gpuplan_config_kind *out)
{
    for (unsigned i = 0; name && i < GPUPLAN_CONFIG_KIND_COUNT; i++) {
        if (strcasecmp(name, kind_names[i]) == 0) {
            *out = (enum gpuplan_config_kind)i;
            return true;
        }
    }
    return false;
}

const char *gpuplan_config_stack_name(enum gpuplan_config_stack stack)
{
    return (unsigned)stack < GPUPLAN_STACK_COUNT ? stack_names[stack] : "?";
}

const char *gpuplan_config_note_kind_name(enum gpuplan_config_note_kind kind)
{
    return (unsigned)kind < GPUPLAN_CONFIG_NOTE_KIND_COUNT ? note_kind_names[kind] : "?";
}

void gpuplan_config_init(struct gpuplan_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    gpuplan_job_init(&cfg->job);
}

void gpuplan_config_release(struct gpuplan_config *cfg)
{
    if (!cfg)
        return;
    free(cfg->notes);
    cfg->notes = NULL;
    cfg->n_notes = 0;
    cfg->n_notes_dropped = 0;
}

size_t gpuplan_config_count_notes(const struct gpuplan_config *cfg,
                                  enum gpuplan_config_note_kind kind)
{
    size_t n = 0;
    for (size_t i = 0; i < cfg->n_notes; i++)
        n += cfg->notes[i].kind == kind;
    return n;
}

bool gpuplan_config_key_is_documented(enum gpuplan_config_kind kind, const char *key)
{
    const struct cfg_key_list *list = cfg_documented_keys(kind);
    if (!list || !key)
        return false;
    size_t lo = 0, hi = list->n_keys;
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        const int c = strcmp(list->keys[mid], key);
        if (c == 0)
            return true;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return false;
}

/* ---- small helpers shared by the readers ---- */

void cfg_copy(char *dst, size_t dst_size, const char *src)
{
    if (!dst_size)
        return;
    size_t n = src ? strlen(src) : 0;
    if (n >= dst_size) {
        n = dst_size - 1;
        while (n > 0 && ((unsigned char)src[n] & 0xC0U) == 0x80U)
            n--; /* do not cut a UTF-8 sequence */
    }
    if (n)
        memcpy(dst, src, n);
    dst[n] = '\0';
}

void cfg_join(char *out, size_t out_size, const char *prefix, const char *key)
{
    if (prefix && prefix[0])
        (void)snprintf(out, out_size, "%s.%s", prefix, key);
    else
        (void)snprintf(out, out_size, "%s", key);
}

void cfg_where(const struct cfg_ctx *c,
               const struct cfg_node *n,
               const char *key,
               char *out,
               size_t out_size)
{
    if (!n)
        (void)snprintf(out, out_size, "%s", c->name);
    else if (c->tree->is_json && c->json_prefix)
        (void)snprintf(out, out_size, "%s:$.%s.%s", c->name, c->json_prefix, key ? key : "");
    else if (c->tree->is_json)
        (void)snprintf(out, out_size, "%s:$.%s", c->name, key ? key : "");
    else
        (void)snprintf(out, out_size, "%s:%u:%u", c->name, n->line, n->col);
}

static struct gpuplan_config_note *note_slot(struct gpuplan_config *cfg, enum gpuplan_status *st)
{
    if (cfg->n_notes >= GPUPLAN_CONFIG_MAX_NOTES) {
        cfg->n_notes_dropped++;
        return NULL;
    }
    /* Capacity is max(16, the next power of two): grow when n_notes reaches it. */
    const size_t n = cfg->n_notes;
    if (n == 0 || (n >= 16 && (n & (n - 1)) == 0)) {
        const size_t cap = n ? n * 2 : 16;
        struct gpuplan_config_note *grown = realloc(cfg->notes, cap * sizeof *grown);
        if (!grown) {
            *st = GPUPLAN_ERR_NOMEM;
            return NULL;
        }
        cfg->notes = grown;
    }
    struct gpuplan_config_note *note = &cfg->notes[cfg->n_notes++];
    memset(note, 0, sizeof *note);
    return note;
}

static void note_append(struct gpuplan_config *cfg,
                        enum gpuplan_status *st,
                        enum gpuplan_config_note_kind kind,
                        const char *key,
                        const char *where,
                        const char *setting,
                        const char *value,
                        const char *detail,
                        bool is_derived)
{
    struct gpuplan_config_note *n = note_slot(cfg, st);
    if (!n)
        return;
    n->kind = kind;
    cfg_copy(n->key, sizeof n->key, key);
    cfg_copy(n->where, sizeof n->where, where);
    cfg_copy(n->setting, sizeof n->setting, setting);
    cfg_copy(n->value, sizeof n->value, value);
    cfg_copy(n->detail, sizeof n->detail, detail);
    n->is_derived = is_derived;
}

void cfg_note(struct cfg_ctx *c,
              enum gpuplan_config_note_kind kind,
              const char *key,
              const struct cfg_node *at,
              const char *setting,
              const char *value,
              const char *detail_fmt,
              ...)
{
    char where[GPUPLAN_CONFIG_WHERE_MAX];
    char detail[GPUPLAN_CONFIG_DETAIL_MAX];
    cfg_where(c, at, key, where, sizeof where);
    detail[0] = '\0';
    if (detail_fmt) {
        va_list ap;
        va_start(ap, detail_fmt);
        (void)vsnprintf(detail, sizeof detail, detail_fmt, ap);
        va_end(ap);
    }
    note_append(c->cfg, &c->st, kind, key, at ? where : "", setting, value, detail, false);
}

enum gpuplan_status
cfg_bad_value(struct cfg_ctx *c, const char *key, const struct cfg_node *at, const char *what)
{
    const char *text = at ? cfg_as_text(c, at) : NULL;
    gpuplan_error_set(c->err, GPUPLAN_ERR_INVALID_INPUT, NULL,
                      "'%s' is '%.64s' in '%s'; must be %s", key,
                      text ? text
                           : (at && at->type == CFG_MAP   ? "a mapping"
                              : at && at->type == CFG_SEQ ? "a list"
                                                          : "null"),
                      c->name, what);
    if (c->err) {
        cfg_where(c, at, key, c->err->where, sizeof c->err->where);
        c->err->code = GPUPLAN_ERR_INVALID_INPUT;
    }
    return GPUPLAN_ERR_INVALID_INPUT;
}

enum gpuplan_status cfg_set(struct cfg_ctx *c,
                            const char *key,
                            const struct cfg_node *at,
                            const char *setting,
                            const char *value,
                            const char *detail)
{
    /* Check the value now, so a bad one fails with the file's position. */
    struct gpuplan_job scratch;
    gpuplan_job_init(&scratch);
    struct gpuplan_error job_err;
    gpuplan_error_init(&job_err);
    if (gpuplan_job_set(&scratch, setting, value, &job_err) != GPUPLAN_OK) {
        gpuplan_error_set(c->err, GPUPLAN_ERR_INVALID_INPUT, NULL, "'%s' in '%s': %s", key, c->name,
                          job_err.message);
        if (job_err.hint[0])
            gpuplan_error_hint(c->err, "%s", job_err.hint);
        if (c->err) {
            cfg_where(c, at, key, c->err->where, sizeof c->err->where);
            c->err->code = GPUPLAN_ERR_INVALID_INPUT;
        }
        return GPUPLAN_ERR_INVALID_INPUT;
    }
    cfg_note(c, GPUPLAN_CONFIG_NOTE_MAPPED, key, at, setting, value, "%s", detail ? detail : "");
    return c->st;
}

enum gpuplan_status cfg_set_default(struct cfg_ctx *c,
                                    const char *key,
                                    const char *setting,
                                    const char *value,
                                    const char *source)
{
    note_append(c->cfg, &c->st, GPUPLAN_CONFIG_NOTE_DEFAULT, key, "", setting, value, source,
                false);
    return c->st;
}

const char *cfg_mapped(const struct gpuplan_config *cfg, const char *setting)
{
    const char *found = NULL;
    for (size_t i = 0; i < cfg->n_notes; i++) {
        const struct gpuplan_config_note *n = &cfg->notes[i];
        if (n->is_derived || !n->setting[0] || strcmp(n->setting, setting) != 0)
            continue;
        if (n->kind == GPUPLAN_CONFIG_NOTE_MAPPED || n->kind == GPUPLAN_CONFIG_NOTE_DEFAULT)
            found = n->value;
    }
    return found;
}

void cfg_other_key(struct cfg_ctx *c, const char *key, const struct cfg_node *at)
{
    if (gpuplan_config_key_is_documented(c->kind, key))
        cfg_note(c, GPUPLAN_CONFIG_NOTE_IGNORED, key, at, NULL, NULL,
                 "documented by %s; no effect on memory or time", kind_names[c->kind]);
    else
        cfg_note(c, GPUPLAN_CONFIG_NOTE_UNKNOWN, key, at, NULL, NULL,
                 "not a key %s documents at the version gpuplan cites (a typo, or another version)",
                 kind_names[c->kind]);
}

void cfg_set_mixed(struct cfg_ctx *c, const char *key, const struct cfg_node *at, const char *mixed)
{
    struct gpuplan_config_precision *p = &c->cfg->precision;
    cfg_copy(p->mixed, sizeof p->mixed, mixed);
    cfg_copy(p->key, sizeof p->key, key);
    cfg_where(c, at, key, p->where, sizeof p->where);
}

void cfg_set_param_dtype(struct cfg_ctx *c,
                         const char *key,
                         const struct cfg_node *at,
                         const char *dtype)
{
    cfg_copy(c->cfg->precision.param_dtype, sizeof c->cfg->precision.param_dtype, dtype);
    cfg_note(c, GPUPLAN_CONFIG_NOTE_MAPPED, key, at, NULL, dtype,
             "weights loaded in %s (decides the precision recipe)", dtype);
}

/* ---- scalar getters (PyYAML's YAML 1.1 resolver for plain scalars) ---- */

bool cfg_is_null(const struct cfg_ctx *c, const struct cfg_node *n)
{
    (void)c;
    return !n || n->type == CFG_NULL;
}

bool cfg_is_auto(const struct cfg_ctx *c, const struct cfg_node *n)
{
    return n && n->type == CFG_SCALAR && strcmp(cfg_text(c->tree, n), "auto") == 0;
}

const char *cfg_as_text(const struct cfg_ctx *c, const struct cfg_node *n)
{
    if (!n || n->type == CFG_MAP || n->type == CFG_SEQ || n->type == CFG_NULL)
        return NULL;
    return cfg_text(c->tree, n);
}

bool cfg_as_bool(const struct cfg_ctx *c, const struct cfg_node *n, bool *out)
{
    if (!n)
        return false;
    if (n->type == CFG_BOOL) {
        *out = n->bool_value;
        return true;
    }
    if (n->type != CFG_SCALAR)
        return false;
    static const char *const yes[] = { "true", "yes", "on" };
    static const char *const no[] = { "false", "no", "off" };
    const char *t = cfg_text(c->tree, n);
    for (size_t i = 0; i < 3; i++) {
        if (strcasecmp(t, yes[i]) == 0) {
            *out = true;
            return true;
        }
        if (strcasecmp(t, no[i]) == 0) {
            *out = false;
            return true;
        }
    }
    return false;
}

bool cfg_as_double(const struct cfg_ctx *c, const struct cfg_node *n, double *out)
{
    if (!n || (n->type != CFG_NUMBER && (n->type != CFG_SCALAR || n->quoted)))
        return false;
    return gpuplan_parse_double(cfg_text(c->tree, n), out);
}

bool cfg_as_u64(const struct cfg_ctx *c, const struct cfg_node *n, uint64_t *out)
{
    if (!n || (n->type != CFG_NUMBER && (n->type != CFG_SCALAR || n->quoted)))
        return false;
    const char *t = cfg_text(c->tree, n);
    if (!t[0])
        return false;
    bool digits = true;
    for (const char *p = t; *p; p++)
        digits = digits && *p >= '0' && *p <= '9';
    if (digits && n->text_len <= 19) {
        uint64_t v = 0;
        for (const char *p = t; *p; p++)
            v = v * 10U + (uint64_t)(*p - '0');
        *out = v;
        return true;
    }
    /* 1e9, 5e8, 2048.0: integral reals, as DeepSpeed configs write bucket sizes. */
    double d = 0.0;
    if (!gpuplan_parse_double(t, &d) || d < 0.0 || d > 9.0e18 || d != (double)(uint64_t)d)
        return false;
    *out = (uint64_t)d;
    return true;
}

enum gpuplan_status cfg_count(struct cfg_ctx *c,
                              const char *key,
                              const struct cfg_node *at,
                              uint64_t lo,
                              uint64_t hi,
                              uint64_t *out)
{
    uint64_t v = 0;
    if (!cfg_as_u64(c, at, &v) || v < lo || v > hi) {
        char what[96];
        (void)snprintf(what, sizeof what, "an integer in %llu..%llu", (unsigned long long)lo,
                       (unsigned long long)hi);
        return cfg_bad_value(c, key, at, what);
    }
    *out = v;
    return GPUPLAN_OK;
}

enum gpuplan_status cfg_set_count(struct cfg_ctx *c,
                                  const char *key,
                                  const struct cfg_node *at,
                                  const char *setting,
                                  uint64_t *layout_out)
{
    if (cfg_is_auto(c, at)) {
        cfg_note(c, GPUPLAN_CONFIG_NOTE_IGNORED, key, at, NULL, "auto",
                 "\"auto\": filled in by the HF Trainer / accelerate integration from its own "
                 "arguments");
        return GPUPLAN_OK;
    }
    if (cfg_is_null(c, at)) {
        cfg_note(c, GPUPLAN_CONFIG_NOTE_IGNORED, key, at, NULL, NULL, "null: not set");
        return GPUPLAN_OK;
    }
    uint64_t v = 0;
    enum gpuplan_status st = cfg_count(c, key, at, 1, 1ULL << 40, &v);
    if (st != GPUPLAN_OK)
        return st;
    if (layout_out)
        *layout_out = v;
    char text[32];
    (void)snprintf(text, sizeof text, "%llu", (unsigned long long)v);
    return cfg_set(c, key, at, setting, text, NULL);
}

enum gpuplan_status
cfg_bool(struct cfg_ctx *c, const char *key, const struct cfg_node *at, bool *out, bool *is_auto)
{
    if (is_auto)
        *is_auto = false;
    if (is_auto && cfg_is_auto(c, at)) {
        *is_auto = true;
        *out = false;
        return GPUPLAN_OK;
    }
    if (cfg_is_null(c, at)) {
        *out = false;
        return GPUPLAN_OK;
    }
    if (!cfg_as_bool(c, at, out))
        return cfg_bad_value(c, key, at, "true or false");
    return GPUPLAN_OK;
}

/* ---- shared vocabularies ---- */

/* A name a config file may use and the option text it maps to. */
struct alias {
    const char *name, *value;
};

/* The value of `name` in `rows` (ASCII case-insensitive when `any_case`); false when absent. */
static bool alias_find(const struct alias *rows,
                       size_t n_rows,
                       bool any_case,
                       const char *name,
                       const char **value)
{
    for (size_t i = 0; name && i < n_rows; i++) {
        if ((any_case ? strcasecmp(name, rows[i].name) : strcmp(name, rows[i].name)) == 0) {
            *value = rows[i].value;
            return true;
        }
    }
    return false;
}

bool cfg_dtype_name(const char *name, const char **dtype)
{
    static const struct alias rows[] = {
        { "bf16", "bf16" },          { "bfloat16", "bf16" },      { "torch.bfloat16", "bf16" },
        { "fp16", "fp16" },          { "float16", "fp16" },       { "half", "fp16" },
        { "torch.float16", "fp16" }, { "fp32", "fp32" },          { "float32", "fp32" },
        { "float", "fp32" },         { "torch.float32", "fp32" },
    };
    return alias_find(rows, sizeof rows / sizeof rows[0], true, name, dtype);
}

/*
 * TrainingArguments `optim` names (transformers training_args.py
 * OptimizerNames) that gpuplan models; axolotl and LLaMA-Factory pass the
 * same names. Fused/apex/any-precision AdamW keep AdamW's two fp32 moments.
 */
bool cfg_hf_optimizer(const char *name, const char **value)
{
    static const struct alias rows[] = {
        { "adamw_torch", "adamw" },
        { "adamw_torch_fused", "adamw" },
        { "adamw_torch_xla", "adamw" },
        { "adamw_torch_npu_fused", "adamw" },
        { "adamw_apex_fused", "adamw" },
        { "adamw_hf", "adamw" },
        { "adamw_anyprecision", "adamw" },
        { "adamw_bnb_8bit", "adamw-8bit" },
        { "adamw_8bit", "adamw-8bit" },
        { "paged_adamw_32bit", "paged-adamw" },
        { "paged_adamw_8bit", "paged-adamw-8bit" },
        { "sgd", "sgd" },
        { "adafactor", "adafactor" },
        { "lion_32bit", "lion" },
        /* torch.optim / bitsandbytes / torchao class names (torchtune, DeepSpeed "type") */
        { "torch.optim.AdamW", "adamw" },
        { "torch.optim.Adam", "adamw" },
        { "torch.optim.SGD", "sgd" },
        { "bitsandbytes.optim.AdamW8bit", "adamw-8bit" },
        { "bitsandbytes.optim.PagedAdamW", "paged-adamw" },
        { "bitsandbytes.optim.PagedAdamW32bit", "paged-adamw" },
        { "bitsandbytes.optim.PagedAdamW8bit", "paged-adamw-8bit" },
        { "bitsandbytes.optim.Lion", "lion" },
        { "Adam", "adamw" },
        { "AdamW", "adamw" },
        { "Lion", "lion" },
    };
    return alias_find(rows, sizeof rows / sizeof rows[0], false, name, value);
}

/* transformers attn_implementation values (and LLaMA-Factory's flash_attn). */
bool cfg_hf_attention(const char *name, const char **value)
{
    static const struct alias rows[] = {
        { "eager", "eager" },
        { "sdpa", "sdpa" },
        { "flash_attention_2", "flash" },
        { "flash_attention_3", "flash" },
        { "fa2", "flash" },
        { "fa3", "flash" },
        { "disabled", "eager" },
    };
    if (alias_find(rows, sizeof rows / sizeof rows[0], false, name, value))
        return true;
    if (name && strncmp(name, "kernels-community/", 18) == 0 && strstr(name, "flash")) {
        *value = "flash";
        return true;
    }
    return false;
}

/* Is one PEFT module name accepted by --lora-targets? */
static bool target_ok(const char *module)
{
    struct gpuplan_job scratch;
    gpuplan_job_init(&scratch);
    return gpuplan_job_set(&scratch, "lora-targets", module, NULL) == GPUPLAN_OK;
}

static void add_target(char *list, size_t size, const char *module)
{
    const size_t used = strlen(list);
    if (used + strlen(module) + 2 < size)
        (void)snprintf(list + used, size - used, "%s%s", used ? "," : "", module);
}

enum gpuplan_status cfg_lora_targets(struct cfg_ctx *c, const char *key, const struct cfg_node *at)
{
    char list[GPUPLAN_CONFIG_VALUE_MAX] = "";
    char rejected[GPUPLAN_CONFIG_VALUE_MAX] = "";
    if (cfg_is_null(c, at)) {
        cfg_note(c, GPUPLAN_CONFIG_NOTE_IGNORED, key, at, NULL, NULL,
                 "null: the architecture's default targets");
        return GPUPLAN_OK;
    }
    if (at->type == CFG_SCALAR) {
        const char *t = cfg_text(c->tree, at);
        if (strcmp(t, "all-linear") == 0 || strcmp(t, "all") == 0)
            return cfg_set(c, key, at, "lora-targets", "all-linear", NULL);
        /* A comma list (LLaMA-Factory lora_target) or one module name. */
        char word[64];
        const char *p = t;
        while (*p) {
            const size_t len = strcspn(p, ",");
            size_t b = 0, e = len;
            while (b < e && p[b] == ' ')
                b++;
            while (e > b && p[e - 1] == ' ')
                e--;
            (void)snprintf(word, sizeof word, "%.*s", (int)(e - b < 63 ? e - b : 63), p + b);
            if (word[0])
                add_target(target_ok(word) ? list : rejected, sizeof list, word);
            p += len;
            if (*p)
                p++;
        }
    } else if (at->type == CFG_SEQ) {
        for (uint32_t i = at->first; i != CFG_NONE; i = c->tree->nodes[i].next) {
            const char *m = cfg_as_text(c, &c->tree->nodes[i]);
            if (!m)
                return cfg_bad_value(c, key, at, "a list of module names");
            add_target(target_ok(m) ? list : rejected, sizeof list, m);
        }
    } else {
        return cfg_bad_value(c, key, at, "a module name or a list of module names");
    }
    if (rejected[0])
        cfg_note(c, GPUPLAN_CONFIG_NOTE_NOT_EXPRESSIBLE, key, at, NULL, rejected,
                 "LoRA on modules gpuplan has no role for (embeddings, lm_head, regexes): not "
                 "counted");
    if (!list[0])
        return GPUPLAN_OK;
    return cfg_set(c, key, at, "lora-targets", list, NULL);
}

/* ---- kind detection ---- */

struct kind_clue {
    enum gpuplan_config_kind kind;
    const char *key; /* a top-level key only this kind uses */
};

static const struct kind_clue clues[] = {
    { GPUPLAN_CONFIG_DEEPSPEED, "zero_optimization" },
    { GPUPLAN_CONFIG_DEEPSPEED, "train_micro_batch_size_per_gpu" },
    { GPUPLAN_CONFIG_DEEPSPEED, "train_batch_size" },
    { GPUPLAN_CONFIG_DEEPSPEED, "zero_allow_untested_optimizer" },
    { GPUPLAN_CONFIG_DEEPSPEED, "steps_per_print" },
    { GPUPLAN_CONFIG_DEEPSPEED, "wall_clock_breakdown" },
    { GPUPLAN_CONFIG_DEEPSPEED, "gradient_clipping" },
    { GPUPLAN_CONFIG_ACCELERATE, "distributed_type" },
    { GPUPLAN_CONFIG_ACCELERATE, "compute_environment" },
    { GPUPLAN_CONFIG_ACCELERATE, "num_machines" },
    { GPUPLAN_CONFIG_ACCELERATE, "machine_rank" },
    { GPUPLAN_CONFIG_ACCELERATE, "main_training_function" },
    { GPUPLAN_CONFIG_ACCELERATE, "deepspeed_config" },
    { GPUPLAN_CONFIG_ACCELERATE, "rdzv_backend" },
    { GPUPLAN_CONFIG_AXOLOTL, "base_model" },
    { GPUPLAN_CONFIG_AXOLOTL, "sequence_len" },
    { GPUPLAN_CONFIG_AXOLOTL, "micro_batch_size" },
    { GPUPLAN_CONFIG_AXOLOTL, "adapter" },
    { GPUPLAN_CONFIG_AXOLOTL, "lora_target_linear" },
    { GPUPLAN_CONFIG_AXOLOTL, "sample_packing" },
    { GPUPLAN_CONFIG_AXOLOTL, "num_epochs" },
    { GPUPLAN_CONFIG_AXOLOTL, "dataset_prepared_path" },
    { GPUPLAN_CONFIG_LLAMA_FACTORY, "finetuning_type" },
    { GPUPLAN_CONFIG_LLAMA_FACTORY, "cutoff_len" },
    { GPUPLAN_CONFIG_LLAMA_FACTORY, "template" },
    { GPUPLAN_CONFIG_LLAMA_FACTORY, "lora_target" },
    { GPUPLAN_CONFIG_LLAMA_FACTORY, "stage" },
    { GPUPLAN_CONFIG_LLAMA_FACTORY, "quantization_bit" },
    { GPUPLAN_CONFIG_LLAMA_FACTORY, "lora_rank" },
    { GPUPLAN_CONFIG_TORCHTUNE, "checkpointer" },
    { GPUPLAN_CONFIG_TORCHTUNE, "tokenizer" },
    { GPUPLAN_CONFIG_TORCHTUNE, "enable_activation_checkpointing" },
    { GPUPLAN_CONFIG_TORCHTUNE, "batch_size" },
    { GPUPLAN_CONFIG_TORCHTUNE, "max_steps_per_epoch" },
    { GPUPLAN_CONFIG_TORCHTUNE, "metric_logger" },
    { GPUPLAN_CONFIG_TRL, "per_device_train_batch_size" },
    { GPUPLAN_CONFIG_TRL, "model_name_or_path" },
    { GPUPLAN_CONFIG_TRL, "max_length" },
    { GPUPLAN_CONFIG_TRL, "dataset_name" },
    { GPUPLAN_CONFIG_TRL, "output_dir" },
    { GPUPLAN_CONFIG_TRL, "use_peft" },
    { GPUPLAN_CONFIG_TRL, "packing" },
    { GPUPLAN_CONFIG_TRL, "sft_config" }, /* gpuplan's SFTConfig + LoraConfig JSON (emit trl) */
    { GPUPLAN_CONFIG_TRL, "lora_config" },
    { GPUPLAN_CONFIG_PEFT, "peft_type" },
    { GPUPLAN_CONFIG_PEFT, "base_model_name_or_path" },
    { GPUPLAN_CONFIG_PEFT, "target_modules" },
    { GPUPLAN_CONFIG_PEFT, "r" },
    { GPUPLAN_CONFIG_PEFT, "task_type" },
};

/* A file-name hint: +1 to the kind it names (the tie-breaker). */
static enum gpuplan_config_kind kind_from_name(const char *name)
{
    if (!name)
        return GPUPLAN_CONFIG_AUTO;
    const char *base = strrchr(name, '/');
    base = base ? base + 1 : name;
    if (strstr(base, "adapter_config"))
        return GPUPLAN_CONFIG_PEFT;
    if (strstr(base, "ds_") || strstr(base, "zero") || strstr(base, "deepspeed"))
        return GPUPLAN_CONFIG_DEEPSPEED;
    if (strstr(base, "accelerate") || strstr(base, "fsdp"))
        return GPUPLAN_CONFIG_ACCELERATE;
    if (strstr(base, "_sft") || strstr(base, "_dpo") || strstr(base, "llama_factory"))
        return GPUPLAN_CONFIG_LLAMA_FACTORY;
    if (strstr(base, "single_device") || strstr(base, "torchtune"))
        return GPUPLAN_CONFIG_TORCHTUNE;
    if (strstr(base, "axolotl") || strstr(base, ".yml"))
        return GPUPLAN_CONFIG_AXOLOTL;
    if (strstr(base, "training_args") || strstr(base, "sft_config") || strstr(base, "trl"))
        return GPUPLAN_CONFIG_TRL;
    return GPUPLAN_CONFIG_AUTO;
}

static enum gpuplan_config_kind detect_kind(const struct cfg_tree *t, const char *name)
{
    const struct cfg_node *root = &t->nodes[t->root];
    unsigned score[GPUPLAN_CONFIG_KIND_COUNT] = { 0 };
    for (size_t i = 0; i < sizeof clues / sizeof clues[0]; i++) {
        if (cfg_get(t, root, clues[i].key))
            score[clues[i].kind] += 2;
    }
    /* torchtune: sections built from `_component_` */
    for (uint32_t k = root->first; k != CFG_NONE;) {
        const uint32_t v = t->nodes[k].next;
        if (v == CFG_NONE)
            break;
        if (cfg_get(t, &t->nodes[v], "_component_"))
            score[GPUPLAN_CONFIG_TORCHTUNE] += 2;
        k = t->nodes[v].next;
    }
    const enum gpuplan_config_kind hint = kind_from_name(name);
    if (hint != GPUPLAN_CONFIG_AUTO && score[hint] > 0)
        score[hint] += 1;
    enum gpuplan_config_kind best = GPUPLAN_CONFIG_AUTO;
    unsigned best_score = 0;
    for (unsigned k = 1; k < GPUPLAN_CONFIG_KIND_COUNT; k++) {
        if (score[k] > best_score) {
            best_score = score[k];
            best = (enum gpuplan_config_kind)k;
        }
    }
    return best_score >= 2 ? best : GPUPLAN_CONFIG_AUTO;
}

enum gpuplan_status gpuplan_config_detect(const uint8_t *bytes,
                                          size_t len,
                                          const char *name,
                                          enum gpuplan_config_kind *out,
                                          struct gpuplan_error *err)
{
    struct cfg_tree tree;
    const char *file = name ? name : "config";
    const enum gpuplan_status st = cfg_tree_parse(&tree, bytes, len, file, err);
    if (st != GPUPLAN_OK)
        return st;
    *out = detect_kind(&tree, file);
    cfg_tree_release(&tree);
    return GPUPLAN_OK;
}

/* ---- deriving the job ---- */

/* Trainer stacks outrank the launchers around them: their defaults decide. */
static unsigned stack_rank(enum gpuplan_config_stack s)
{
    switch (s) {
    case GPUPLAN_STACK_UNKNOWN:
        return 0;
    case GPUPLAN_STACK_DEEPSPEED:
        return 1;
    case GPUPLAN_STACK_ACCELERATE:
        return 2;
    default:
        return 3;
    }
}

static bool has_trl_keys(const struct cfg_tree *t)
{
    static const char *const trl_only[] = {
        "max_length",        "packing",      "padding_free",        "dataset_text_field",
        "loss_type",         "use_peft",     "model_name_or_path",  "completion_only_loss",
        "model_init_kwargs", "dataset_name", "assistant_only_loss", "activation_offloading",
        "max_seq_length",    "sft_config",
    };
    for (size_t i = 0; i < sizeof trl_only / sizeof trl_only[0]; i++) {
        if (cfg_get(t, &t->nodes[t->root], trl_only[i]))
            return true;
    }
    return false;
}

static enum gpuplan_config_stack stack_of(enum gpuplan_config_kind kind, const struct cfg_tree *t)
{
    switch (kind) {
    case GPUPLAN_CONFIG_DEEPSPEED:
        return GPUPLAN_STACK_DEEPSPEED;
    case GPUPLAN_CONFIG_ACCELERATE:
        return GPUPLAN_STACK_ACCELERATE;
    case GPUPLAN_CONFIG_AXOLOTL:
        return GPUPLAN_STACK_AXOLOTL;
    case GPUPLAN_CONFIG_LLAMA_FACTORY:
        return GPUPLAN_STACK_LLAMA_FACTORY;
    case GPUPLAN_CONFIG_TORCHTUNE:
        return GPUPLAN_STACK_TORCHTUNE;
    case GPUPLAN_CONFIG_TRL:
        return has_trl_keys(t) ? GPUPLAN_STACK_TRL : GPUPLAN_STACK_HF_TRAINER;
    default:
        return GPUPLAN_STACK_UNKNOWN;
    }
}

enum when {
    WHEN_ALWAYS = 0,
    WHEN_LORA,         /* method lora or qlora */
    WHEN_QLORA,        /* method qlora */
    WHEN_LORA_NO_PEFT, /* lora/qlora and no adapter_config.json was read */
    WHEN_FSDP,         /* sharding fsdp or fsdp-hybrid */
};

/* A framework's default for an option its files may leave out. */
struct default_rule {
    enum gpuplan_config_stack stack;
    enum when when;
    const char *setting;
    const char *value;
    const char *key;    /* the framework's own name for it */
    const char *source; /* repository@commit (version) file */
};

static const struct default_rule default_rules[] = {
    /* transformers Trainer */
    { GPUPLAN_STACK_HF_TRAINER, WHEN_ALWAYS, "micro-batch", "8", "per_device_train_batch_size",
      SRC_TA },
    { GPUPLAN_STACK_HF_TRAINER, WHEN_ALWAYS, "grad-accum", "1", "gradient_accumulation_steps",
      SRC_TA },
    { GPUPLAN_STACK_HF_TRAINER, WHEN_ALWAYS, "optimizer", "adamw",
      "optim (adamw_torch_fused on torch >= 2.8)", SRC_TA },
    { GPUPLAN_STACK_HF_TRAINER, WHEN_ALWAYS, "grad-ckpt", "none", "gradient_checkpointing",
      SRC_TA },
    { GPUPLAN_STACK_HF_TRAINER, WHEN_ALWAYS, "compile", "no", "torch_compile", SRC_TA },
    { GPUPLAN_STACK_HF_TRAINER, WHEN_ALWAYS, "chunked-ce", "no", "use_liger_kernel", SRC_TA },
    /* TRL SFTTrainer: SFTConfig extends TrainingArguments */
    { GPUPLAN_STACK_TRL, WHEN_ALWAYS, "micro-batch", "8", "per_device_train_batch_size", SRC_TA },
    { GPUPLAN_STACK_TRL, WHEN_ALWAYS, "grad-accum", "1", "gradient_accumulation_steps", SRC_TA },
    { GPUPLAN_STACK_TRL, WHEN_ALWAYS, "optimizer", "adamw",
      "optim (adamw_torch_fused on torch >= 2.8)", SRC_TA },
    { GPUPLAN_STACK_TRL, WHEN_ALWAYS, "compile", "no", "torch_compile", SRC_TA },
    { GPUPLAN_STACK_TRL, WHEN_ALWAYS, "grad-ckpt", "full", "gradient_checkpointing", SRC_TRL_B },
    { GPUPLAN_STACK_TRL, WHEN_ALWAYS, "seq-len", "1024", "max_length", SRC_TRL_S },
    { GPUPLAN_STACK_TRL, WHEN_ALWAYS, "chunked-ce", "yes", "loss_type (chunked_nll)", SRC_TRL_S },
    { GPUPLAN_STACK_TRL, WHEN_ALWAYS, "act-offload", "no", "activation_offloading", SRC_TRL_S },
    { GPUPLAN_STACK_TRL, WHEN_LORA_NO_PEFT, "lora-rank", "16", "lora_r", SRC_TRL_M },
    { GPUPLAN_STACK_TRL, WHEN_LORA_NO_PEFT, "lora-alpha", "32", "lora_alpha", SRC_TRL_M },
    { GPUPLAN_STACK_TRL, WHEN_LORA_NO_PEFT, "lora-dropout", "0.05", "lora_dropout", SRC_TRL_M },
    { GPUPLAN_STACK_TRL, WHEN_QLORA, "quant", "nf4",
      "bnb_4bit_quant_type nf4, use_bnb_nested_quant false", SRC_TRL_M },
    /* axolotl */
    { GPUPLAN_STACK_AXOLOTL, WHEN_ALWAYS, "seq-len", "512", "sequence_len", SRC_AX_C },
    { GPUPLAN_STACK_AXOLOTL, WHEN_ALWAYS, "micro-batch", "1", "micro_batch_size", SRC_AX_T },
    { GPUPLAN_STACK_AXOLOTL, WHEN_ALWAYS, "grad-accum", "1", "gradient_accumulation_steps",
      SRC_AX_T },
    { GPUPLAN_STACK_AXOLOTL, WHEN_ALWAYS, "optimizer", "adamw", "optimizer (adamw_torch_fused)",
      SRC_AX_T },
    { GPUPLAN_STACK_AXOLOTL, WHEN_ALWAYS, "grad-ckpt", "none", "gradient_checkpointing", SRC_AX_C },
    { GPUPLAN_STACK_AXOLOTL, WHEN_ALWAYS, "act-offload", "no", "activation_offloading", SRC_AX_C },
    { GPUPLAN_STACK_AXOLOTL, WHEN_ALWAYS, "compile", "no", "torch_compile", SRC_AX_C },
    { GPUPLAN_STACK_AXOLOTL, WHEN_LORA_NO_PEFT, "lora-dropout", "0", "lora_dropout", SRC_AX_P },
    { GPUPLAN_STACK_AXOLOTL, WHEN_QLORA, "quant", "nf4-dq", "bnb_4bit_use_double_quant", SRC_AX_M },
    /* LLaMA-Factory: its TrainingArguments extends transformers' */
    { GPUPLAN_STACK_LLAMA_FACTORY, WHEN_ALWAYS, "method", "lora", "finetuning_type", SRC_LF_F },
    { GPUPLAN_STACK_LLAMA_FACTORY, WHEN_ALWAYS, "seq-len", "2048", "cutoff_len", SRC_LF_D },
    { GPUPLAN_STACK_LLAMA_FACTORY, WHEN_ALWAYS, "micro-batch", "8", "per_device_train_batch_size",
      SRC_TA },
    { GPUPLAN_STACK_LLAMA_FACTORY, WHEN_ALWAYS, "grad-accum", "1", "gradient_accumulation_steps",
      SRC_TA },
    { GPUPLAN_STACK_LLAMA_FACTORY, WHEN_ALWAYS, "optimizer", "adamw", "optim", SRC_TA },
    { GPUPLAN_STACK_LLAMA_FACTORY, WHEN_ALWAYS, "compile", "no", "torch_compile", SRC_TA },
    { GPUPLAN_STACK_LLAMA_FACTORY, WHEN_ALWAYS, "grad-ckpt", "full",
      "disable_gradient_checkpointing (false)", SRC_LF_M },
    { GPUPLAN_STACK_LLAMA_FACTORY, WHEN_ALWAYS, "attention", "sdpa",
      "flash_attn (auto: transformers' default)", SRC_LF_M },
    { GPUPLAN_STACK_LLAMA_FACTORY, WHEN_LORA_NO_PEFT, "lora-rank", "8", "lora_rank", SRC_LF_F },
    { GPUPLAN_STACK_LLAMA_FACTORY, WHEN_LORA_NO_PEFT, "lora-dropout", "0", "lora_dropout",
      SRC_LF_F },
    { GPUPLAN_STACK_LLAMA_FACTORY, WHEN_LORA_NO_PEFT, "lora-targets", "all-linear",
      "lora_target (all)", SRC_LF_F },
    { GPUPLAN_STACK_LLAMA_FACTORY, WHEN_QLORA, "quant", "nf4-dq",
      "quantization_type nf4, double_quantization true", SRC_LF_M },
    /* torchtune */
    { GPUPLAN_STACK_TORCHTUNE, WHEN_ALWAYS, "grad-ckpt", "none", "enable_activation_checkpointing",
      SRC_TT_R },
    { GPUPLAN_STACK_TORCHTUNE, WHEN_ALWAYS, "act-offload", "no", "enable_activation_offloading",
      SRC_TT_R },
    { GPUPLAN_STACK_TORCHTUNE, WHEN_ALWAYS, "compile", "no", "compile", SRC_TT_R },
    { GPUPLAN_STACK_TORCHTUNE, WHEN_ALWAYS, "optim-in-bwd", "no", "optimizer_in_bwd", SRC_TT_R },
    { GPUPLAN_STACK_TORCHTUNE, WHEN_LORA_NO_PEFT, "lora-rank", "8", "model.lora_rank", SRC_TT_B },
    { GPUPLAN_STACK_TORCHTUNE, WHEN_LORA_NO_PEFT, "lora-alpha", "16", "model.lora_alpha",
      SRC_TT_B },
    { GPUPLAN_STACK_TORCHTUNE, WHEN_LORA_NO_PEFT, "lora-dropout", "0", "model.lora_dropout",
      SRC_TT_B },
    { GPUPLAN_STACK_TORCHTUNE, WHEN_QLORA, "quant", "torchao-nf4", "qlora_* builders (torchao NF4)",
      SRC_TT_B },
    { GPUPLAN_STACK_TORCHTUNE, WHEN_FSDP, "fsdp-wrap", "layers", "custom_sharded_layers (None)",
      SRC_TT_R },
    /* DeepSpeed */
    { GPUPLAN_STACK_DEEPSPEED, WHEN_ALWAYS, "offload", "none",
      "zero_optimization.offload_optimizer / offload_param", SRC_DS_Z },
    /* a PEFT adapter_config.json's own defaults (any stack) */
    { GPUPLAN_STACK_UNKNOWN, WHEN_LORA, "lora-rank", "8", "r", SRC_PEFT },
    { GPUPLAN_STACK_UNKNOWN, WHEN_LORA, "lora-alpha", "8", "lora_alpha", SRC_PEFT },
    { GPUPLAN_STACK_UNKNOWN, WHEN_LORA, "lora-dropout", "0", "lora_dropout", SRC_PEFT },
};

static bool is_lora(const char *method)
{
    return method && (strcmp(method, "lora") == 0 || strcmp(method, "qlora") == 0);
}

static bool rule_applies(const struct gpuplan_config *cfg, const struct default_rule *r)
{
    const bool peft_read = (cfg->kinds_read & (1U << GPUPLAN_CONFIG_PEFT)) != 0;
    if (r->stack == GPUPLAN_STACK_UNKNOWN) {
        if (!peft_read)
            return false;
    } else if (r->stack != cfg->stack) {
        return false;
    }
    if (cfg_mapped(cfg, r->setting))
        return false;
    const char *method = cfg_mapped(cfg, "method");
    if (!method && cfg->stack == GPUPLAN_STACK_LLAMA_FACTORY)
        method = "lora";
    const char *sharding = cfg_mapped(cfg, "sharding");
    switch (r->when) {
    case WHEN_ALWAYS:
        return true;
    case WHEN_LORA:
        return is_lora(method);
    case WHEN_QLORA:
        return method && strcmp(method, "qlora") == 0;
    case WHEN_LORA_NO_PEFT:
        return is_lora(method) && !peft_read;
    case WHEN_FSDP:
        return sharding && strncmp(sharding, "fsdp", 4) == 0;
    }
    return false;
}

/* Drop the notes the previous derivation made. */
static void drop_derived(struct gpuplan_config *cfg)
{
    size_t kept = 0;
    for (size_t i = 0; i < cfg->n_notes; i++) {
        if (!cfg->notes[i].is_derived)
            cfg->notes[kept++] = cfg->notes[i];
    }
    cfg->n_notes = kept;
}

static void derived_note(struct gpuplan_config *cfg,
                         enum gpuplan_status *st,
                         enum gpuplan_config_note_kind kind,
                         const char *key,
                         const char *where,
                         const char *setting,
                         const char *value,
                         const char *detail)
{
    note_append(cfg, st, kind, key, where, setting, value, detail, true);
}

/* What the stack does when the files say nothing about mixed precision. */
static const char *default_mixed(enum gpuplan_config_stack s, const char **source)
{
    switch (s) {
    case GPUPLAN_STACK_TRL:
        *source = SRC_TRL_B " (bf16 = not fp16)";
        return "bf16";
    case GPUPLAN_STACK_AXOLOTL:
        *source = SRC_AX_C " (bf16: auto, on a bf16-capable GPU)";
        return "bf16";
    case GPUPLAN_STACK_TORCHTUNE:
        *source = SRC_TT_P " (no dtype: float32)";
        return "no";
    case GPUPLAN_STACK_DEEPSPEED:
        *source = SRC_DS_P " (bf16.enabled and fp16.enabled false)";
        return "no";
    case GPUPLAN_STACK_ACCELERATE:
        *source = SRC_ACC_L " (mixed_precision 'no')";
        return "no";
    default:
        *source = SRC_TA " (bf16 and fp16 false)";
        return "no";
    }
}

/*
 * The dtype the weights are loaded in, when no file says: TRL loads with
 * float32 (create_model_from_path); axolotl in the mixed type (resolve_dtype:
 * torch_dtype = bfloat16 under bf16); LLaMA-Factory in the compute dtype but
 * upcasts trainable parameters to fp32 (adapter.py, unless pure_bf16);
 * torchtune's recipes build in cfg.dtype; a plain Trainer script is assumed
 * to load fp32 (from_pretrained's default before transformers 5).
 */
static const char *
default_param_dtype(const struct gpuplan_config *cfg, const char *mixed, const char *method)
{
    switch (cfg->stack) {
    case GPUPLAN_STACK_AXOLOTL:
    case GPUPLAN_STACK_TORCHTUNE:
        return strcmp(mixed, "fp16") == 0 ? "fp16" : strcmp(mixed, "bf16") == 0 ? "bf16" : "fp32";
    case GPUPLAN_STACK_LLAMA_FACTORY:
        if (!is_lora(method))
            return "fp32";
        return strcmp(mixed, "fp16") == 0 ? "fp16" : strcmp(mixed, "bf16") == 0 ? "bf16" : "fp32";
    default:
        return "fp32";
    }
}

/*
 * The recipe (enum gpuplan_precision) for what the files said, as each
 * engine really stores tensors:
 *   - pure 16-bit (torchtune dtype bf16, LLaMA-Factory pure_bf16, DeepSpeed
 *     bf16_master_weights_and_grads + bf16_optimizer_states): bf16;
 *   - DeepSpeed bf16/fp16 engine (ZeRO stages): bf16-mixed/fp16-mixed, which
 *     the job already models as 16-bit params + fp32 master + fp32 states;
 *   - FSDP with a MixedPrecision policy (accelerate): bf16-mixed (fp32
 *     shards); a LoRA base loaded in fp32 sets base-fp32;
 *   - no sharding / DDP: torch autocast over the loaded weights: fp32
 *     weights -> bf16-mixed for full fine-tuning (= torch AMP), amp-bf16 for
 *     LoRA (fp32 frozen base); bf16 weights -> bf16 (the AdamW states follow
 *     the parameter dtype) for full, bf16-mixed for LoRA (fp32 adapters);
 *   - no mixed precision: bf16 weights stay pure bf16, else fp32.
 */
static void derive_precision(struct gpuplan_config *cfg, enum gpuplan_status *st)
{
    const struct gpuplan_config_precision *p = &cfg->precision;
    const char *source = NULL;
    const bool stated = p->mixed[0] != '\0';
    const char *mixed = stated ? p->mixed : default_mixed(cfg->stack, &source);
    const char *method = cfg_mapped(cfg, "method");
    if (!method && cfg->stack == GPUPLAN_STACK_LLAMA_FACTORY)
        method = "lora";
    const char *pd = p->param_dtype[0] ? p->param_dtype : default_param_dtype(cfg, mixed, method);
    const enum gpuplan_sharding sh = cfg->job.sharding;
    const bool zero = sh == GPUPLAN_SHARDING_ZERO1 || sh == GPUPLAN_SHARDING_ZERO2 ||
                      sh == GPUPLAN_SHARDING_ZERO3;
    const bool fsdp = sh == GPUPLAN_SHARDING_FSDP || sh == GPUPLAN_SHARDING_FSDP_HYBRID;
    const bool lora = is_lora(method);
    const char *recipe = "bf16-mixed";
    const char *why = "";
    bool base_fp32 = false;
    if (p->pure_16bit) {
        recipe = "bf16";
        why = "weights, gradients and optimizer states all in 16 bits";
    } else if (strcmp(mixed, "fp8") == 0) {
        recipe = "fp8-mixed";
        why = "fp8 matmuls over 16-bit weights with an fp32 master";
    } else if (strcmp(mixed, "no") == 0) {
        recipe = strcmp(pd, "bf16") == 0 ? "bf16" : "fp32";
        why = strcmp(pd, "bf16") == 0 ? "no autocast over bf16 weights: pure bf16"
                                      : "no mixed precision: everything fp32";
    } else if (zero) {
        recipe = strcmp(mixed, "fp16") == 0 ? "fp16-mixed" : "bf16-mixed";
        why = "DeepSpeed's 16-bit engine: 16-bit parameters, fp32 master partition and fp32 "
              "optimizer states (" SRC_DS_E ")";
    } else if (fsdp) {
        recipe = strcmp(mixed, "fp16") == 0 ? "fp16-mixed" : "bf16-mixed";
        base_fp32 = lora && strcmp(pd, "fp32") == 0;
        why = "FSDP MixedPrecision: fp32 sharded parameters, 16-bit gathered units and "
              "compute (" SRC_ACC_D ")";
    } else if (strcmp(mixed, "fp16") == 0) {
        recipe = "fp16-mixed";
        why = "torch autocast(fp16) with a GradScaler over fp32 weights";
    } else if (strcmp(pd, "bf16") == 0) {
        recipe = lora ? "bf16-mixed" : "bf16";
        why = lora ? "bf16 base, fp32 adapters (PEFT autocast_adapter_dtype), autocast"
                   : "bf16 weights under autocast: AdamW keeps bf16 states (pure bf16)";
    } else {
        recipe = lora ? "amp-bf16" : "bf16-mixed";
        why = "torch autocast(bf16) over fp32 parameters (torch AMP)";
    }
    if (p->ds_master_16bit)
        derived_note(cfg, st, GPUPLAN_CONFIG_NOTE_NOT_EXPRESSIBLE,
                     "bf16.bf16_master_weights_and_grads", p->where, "precision", recipe,
                     "bf16 master weights and gradients with fp32 optimizer states (offloaded): "
                     "modelled as bf16-mixed, which keeps an fp32 master (over by 2 B/param)");
    if (stated)
        derived_note(cfg, st, GPUPLAN_CONFIG_NOTE_MAPPED, p->key, p->where, "precision", recipe,
                     why);
    else
        derived_note(cfg, st, GPUPLAN_CONFIG_NOTE_DEFAULT, "mixed precision", "", "precision",
                     recipe, source);
    (void)gpuplan_job_set(&cfg->job, "precision", recipe, NULL);
    if (base_fp32 && !cfg_mapped(cfg, "base-fp32")) {
        derived_note(cfg, st, GPUPLAN_CONFIG_NOTE_MAPPED, "param dtype", "", "base-fp32", "yes",
                     "LoRA base loaded in fp32 under FSDP MixedPrecision keeps fp32 shards");
        (void)gpuplan_job_set(&cfg->job, "base-fp32", "yes", NULL);
    }
}

/* Rebuild cfg->job from the notes: init, stack defaults, the files' settings, the recipe. */
static enum gpuplan_status derive_job(struct gpuplan_config *cfg, struct gpuplan_error *err)
{
    enum gpuplan_status st = GPUPLAN_OK;
    drop_derived(cfg);
    gpuplan_job_init(&cfg->job);
    /* The file kind picks the framework profile (--stack) the job resolves with. */
    static const char *const stack_profile[GPUPLAN_STACK_COUNT] = {
        [GPUPLAN_STACK_HF_TRAINER] = "hf-trainer", [GPUPLAN_STACK_TRL] = "trl",
        [GPUPLAN_STACK_AXOLOTL] = "axolotl",       [GPUPLAN_STACK_LLAMA_FACTORY] = "llama-factory",
        [GPUPLAN_STACK_TORCHTUNE] = "torchtune",   [GPUPLAN_STACK_DEEPSPEED] = "deepspeed",
        [GPUPLAN_STACK_ACCELERATE] = "hf-trainer",
    };
    if ((unsigned)cfg->stack < GPUPLAN_STACK_COUNT && stack_profile[cfg->stack])
        (void)gpuplan_job_set(&cfg->job, "stack", stack_profile[cfg->stack], NULL);
    for (size_t i = 0; i < sizeof default_rules / sizeof default_rules[0]; i++) {
        const struct default_rule *r = &default_rules[i];
        if (!rule_applies(cfg, r))
            continue;
        derived_note(cfg, &st, GPUPLAN_CONFIG_NOTE_DEFAULT, r->key, "", r->setting, r->value,
                     r->source);
        (void)gpuplan_job_set(&cfg->job, r->setting, r->value, NULL);
    }
    /* File settings (and reader defaults), in order: a later file overrides. */
    for (size_t i = 0; i < cfg->n_notes; i++) {
        const struct gpuplan_config_note *n = &cfg->notes[i];
        if (n->is_derived || !n->setting[0])
            continue;
        if (n->kind != GPUPLAN_CONFIG_NOTE_MAPPED && n->kind != GPUPLAN_CONFIG_NOTE_DEFAULT)
            continue;
        if (gpuplan_job_set(&cfg->job, n->setting, n->value, err) != GPUPLAN_OK)
            return GPUPLAN_ERR_INTERNAL; /* cfg_set checked every value */
    }
    const char *method = cfg_mapped(cfg, "method");
    /* LLaMA-Factory: lora_alpha defaults to lora_rank * 2 (finetuning_args.py __post_init__). */
    if (cfg->stack == GPUPLAN_STACK_LLAMA_FACTORY && is_lora(method ? method : "lora") &&
        !cfg_mapped(cfg, "lora-alpha")) {
        char alpha[32];
        (void)snprintf(alpha, sizeof alpha, "%u", 2U * cfg->job.lora_rank);
        derived_note(cfg, &st, GPUPLAN_CONFIG_NOTE_DEFAULT, "lora_alpha (lora_rank * 2)", "",
                     "lora-alpha", alpha, SRC_LF_F);
        (void)gpuplan_job_set(&cfg->job, "lora-alpha", alpha, NULL);
    }
    derive_precision(cfg, &st);
    if (st != GPUPLAN_OK)
        return gpuplan_error_set(err, st, NULL, "out of memory reading a config");
    return GPUPLAN_OK;
}

static enum gpuplan_status run_reader(struct cfg_ctx *c, const struct cfg_node *root)
{
    switch (c->kind) {
    case GPUPLAN_CONFIG_DEEPSPEED:
        return cfg_read_deepspeed(c, root, "");
    case GPUPLAN_CONFIG_ACCELERATE:
        return cfg_read_accelerate(c, root);
    case GPUPLAN_CONFIG_AXOLOTL:
        return cfg_read_axolotl(c, root);
    case GPUPLAN_CONFIG_LLAMA_FACTORY:
        return cfg_read_llama_factory(c, root);
    case GPUPLAN_CONFIG_TORCHTUNE:
        return cfg_read_torchtune(c, root);
    case GPUPLAN_CONFIG_TRL:
        return cfg_read_trl(c, root);
    case GPUPLAN_CONFIG_PEFT:
        return cfg_read_peft(c, root);
    default:
        return GPUPLAN_ERR_INTERNAL;
    }
}

enum gpuplan_status gpuplan_config_read(struct gpuplan_config *cfg,
                                        const uint8_t *bytes,
                                        size_t len,
                                        const char *name,
                                        enum gpuplan_config_kind kind,
                                        struct gpuplan_error *err)
{
    const char *file = name ? name : "config";
    if ((unsigned)kind >= GPUPLAN_CONFIG_KIND_COUNT)
        return gpuplan_error_set(err, GPUPLAN_ERR_USAGE, NULL, "unknown config kind %d", (int)kind);
    struct cfg_tree tree;
    enum gpuplan_status st = cfg_tree_parse(&tree, bytes, len, file, err);
    if (st != GPUPLAN_OK)
        return st;
    if (kind == GPUPLAN_CONFIG_AUTO)
        kind = detect_kind(&tree, file);
    if (kind == GPUPLAN_CONFIG_AUTO) {
        cfg_tree_release(&tree);
        gpuplan_error_set(err, GPUPLAN_ERR_UNSUPPORTED, file,
                          "cannot tell which framework '%s' is for", file);
        gpuplan_error_hint(err, "name the kind: deepspeed, accelerate, axolotl, llama-factory, "
                                "torchtune, trl or peft");
        return GPUPLAN_ERR_UNSUPPORTED;
    }
    /* Keep the record as it was should this file fail. */
    struct gpuplan_config saved = *cfg;
    const size_t saved_notes = cfg->n_notes;
    struct cfg_ctx c = { cfg, &tree, file, kind, err, GPUPLAN_OK, NULL };
    const enum gpuplan_config_stack stack = stack_of(kind, &tree);
    if (cfg->n_files == 0)
        cfg->kind = kind;
    if (stack_rank(stack) > stack_rank(cfg->stack))
        cfg->stack = stack;
    cfg->n_files++;
    cfg->kinds_read |= 1U << kind;
    st = run_reader(&c, &tree.nodes[tree.root]);
    if (st == GPUPLAN_OK)
        st = c.st;
    if (st == GPUPLAN_ERR_NOMEM)
        gpuplan_error_set(err, st, file, "out of memory reading '%s'", file);
    if (st == GPUPLAN_OK)
        st = derive_job(cfg, err);
    cfg_tree_release(&tree);
    if (st != GPUPLAN_OK) {
        struct gpuplan_config_note *notes = cfg->notes;
        *cfg = saved;
        cfg->notes = notes;
        cfg->n_notes = saved_notes;
        if (err && !err->where[0])
            (void)snprintf(err->where, sizeof err->where, "%s", file);
    }
    return st;
}
