/*
 * config.h - training-framework config files -> a gpuplan job.
 *
 * Reads the files people already have (a DeepSpeed JSON, an accelerate
 * config YAML, an axolotl YAML, a LLaMA-Factory YAML, a torchtune recipe
 * config, a TRL/Transformers TrainingArguments or SFTConfig JSON or
 * `trl sft --config` YAML, a PEFT adapter_config.json) and turns every key
 * that affects memory or time into job settings, through the same
 * gpuplan_job_set() the CLI uses. What the file leaves out gets the
 * framework's own default (each with its source: repository, file, version),
 * keys the reader does not understand are listed with their position, and
 * settings the job cannot express are reported rather than guessed.
 *
 * One entry point for the front-ends:
 *
 *     struct gpuplan_config cfg;
 *     gpuplan_config_init(&cfg);
 *     st = gpuplan_config_read(&cfg, bytes, len, "train.yaml", GPUPLAN_CONFIG_AUTO, &err);
 *     if (st == GPUPLAN_OK && cfg.referenced_path[0])   // e.g. an accelerate YAML naming ds.json
 *         st = gpuplan_config_read(&cfg, ds_bytes, ds_len, cfg.referenced_path,
 * GPUPLAN_CONFIG_AUTO, &err);
 *     ... cfg.job, cfg.model_id (resolve it as a MODEL argument), cfg.notes ...
 *     gpuplan_config_release(&cfg);
 *
 * Calling gpuplan_config_read() again on a filled record merges the second
 * file (TRL arguments + adapter_config.json; accelerate YAML + the DeepSpeed
 * JSON it names): its keys override the first file's, and the first file's
 * framework still decides the defaults. The library reads no file itself:
 * the caller reads `referenced_path` (relative to the first file's folder).
 *
 * YAML goes through libyaml (events, bounded as it streams), JSON through
 * the project's jansson reader. Both are bounded: GPUPLAN_CONFIG_MAX_BYTES of
 * input, GPUPLAN_CONFIG_MAX_DEPTH of nesting, GPUPLAN_CONFIG_MAX_NODES values,
 * GPUPLAN_CONFIG_MAX_KEYS keys in one mapping, GPUPLAN_CONFIG_MAX_SCALAR bytes
 * in one scalar. docs/configs.md lists the kinds, every key mapped, the
 * defaults with their sources and what cannot be expressed.
 *
 * Not here: reading files, resolving the model id (model_load), the CLI.
 */
#ifndef GPUPLAN_CONFIG_H
#define GPUPLAN_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpuplan/error.h"
#include "gpuplan/job.h"

/* Hard limits on one input file (far above any real config: the largest shipped example is ~5 KB).
 */
#define GPUPLAN_CONFIG_MAX_BYTES  (1024U * 1024U) /* 1 MiB */
#define GPUPLAN_CONFIG_MAX_DEPTH  32U             /* nested mappings/sequences */
#define GPUPLAN_CONFIG_MAX_NODES  65536U          /* scalars + mappings + sequences */
#define GPUPLAN_CONFIG_MAX_KEYS   4096U           /* keys in one mapping */
#define GPUPLAN_CONFIG_MAX_SCALAR 4096U           /* bytes of one scalar or key */
#define GPUPLAN_CONFIG_MAX_NOTES  512U            /* notes kept; further ones are counted only */

#define GPUPLAN_CONFIG_KEY_MAX    96  /* "zero_optimization.offload_optimizer.device" */
#define GPUPLAN_CONFIG_WHERE_MAX  128 /* "train.yaml:12:3", "ds.json:$.bf16.enabled" */
#define GPUPLAN_CONFIG_VALUE_MAX  128 /* "q_proj,k_proj,v_proj,o_proj" */
#define GPUPLAN_CONFIG_DETAIL_MAX 256

/* What kind of file: named by the caller, or detected from its content (file name as tie-breaker).
 */
enum gpuplan_config_kind {
    GPUPLAN_CONFIG_AUTO = 0,
    GPUPLAN_CONFIG_DEEPSPEED,  /* DeepSpeed config JSON */
    GPUPLAN_CONFIG_ACCELERATE, /* `accelerate launch --config_file` YAML (FSDP1/2, DeepSpeed plugin)
                                */
    GPUPLAN_CONFIG_AXOLOTL,    /* axolotl YAML */
    GPUPLAN_CONFIG_LLAMA_FACTORY, /* LLaMA-Factory `llamafactory-cli train` YAML */
    GPUPLAN_CONFIG_TORCHTUNE,     /* torchtune recipe config YAML */
    GPUPLAN_CONFIG_TRL,  /* TrainingArguments / SFTConfig JSON, or `trl sft --config` YAML */
    GPUPLAN_CONFIG_PEFT, /* PEFT adapter_config.json (LoraConfig) */
    GPUPLAN_CONFIG_KIND_COUNT
};

/* The framework whose defaults apply (a later --stack picks framework profiles by this name). */
enum gpuplan_config_stack {
    GPUPLAN_STACK_UNKNOWN = 0,
    GPUPLAN_STACK_HF_TRAINER, /* transformers Trainer (TrainingArguments) */
    GPUPLAN_STACK_TRL,        /* TRL SFTTrainer (SFTConfig) */
    GPUPLAN_STACK_AXOLOTL,
    GPUPLAN_STACK_LLAMA_FACTORY,
    GPUPLAN_STACK_TORCHTUNE,
    GPUPLAN_STACK_DEEPSPEED,  /* a training script driving DeepSpeed directly */
    GPUPLAN_STACK_ACCELERATE, /* a training script under `accelerate launch` */
    GPUPLAN_STACK_COUNT
};

enum gpuplan_config_note_kind {
    GPUPLAN_CONFIG_NOTE_MAPPED = 0, /* a key of the file set a job option */
    GPUPLAN_CONFIG_NOTE_DEFAULT,    /* the file left it out: the framework's default applied */
    GPUPLAN_CONFIG_NOTE_UNKNOWN,    /* a key the engine does not document at the cited version */
    GPUPLAN_CONFIG_NOTE_IGNORED,    /* documented, but no effect on memory or time (or "auto") */
    GPUPLAN_CONFIG_NOTE_NOT_EXPRESSIBLE, /* it matters, but the job cannot say it (nearest used) */
    GPUPLAN_CONFIG_NOTE_KIND_COUNT
};

struct gpuplan_config_note {
    enum gpuplan_config_note_kind kind;
    char key[GPUPLAN_CONFIG_KEY_MAX];     /* the file's key, dotted: "zero_optimization.stage" */
    char where[GPUPLAN_CONFIG_WHERE_MAX]; /* "train.yaml:12:3" or
                                             "ds.json:$.zero_optimization.stage";
                                             "" for defaults */
    char setting[32]; /* job option set, as gpuplan_job_set names it: "sharding" */
    char value[GPUPLAN_CONFIG_VALUE_MAX];   /* its value: "zero3" */
    char detail[GPUPLAN_CONFIG_DETAIL_MAX]; /* DEFAULT: the source ("huggingface/trl@f2cd577
                                               (1.10.0.dev0) trl/trainer/base_config.py"); others:
                                               why */
    bool is_derived; /* recomputed by every read (defaults, the precision recipe): do not rely on
                        order */
};

/* Parallel layout the files state (0 = not stated). The job's gpus_per_node/nodes stay the
 * caller's. */
struct gpuplan_config_layout {
    uint32_t world_size;    /* processes in all: accelerate num_processes, torchtune world size */
    uint32_t n_nodes;       /* accelerate num_machines */
    uint32_t gpus_per_node; /* world_size / n_nodes when both are stated */
    uint32_t tp;            /* tensor-parallel degree */
    uint32_t pp;            /* pipeline-parallel degree */
    uint64_t micro_batch;   /* sequences per GPU per step */
    uint64_t grad_accum;    /* micro-batches per optimizer step */
    uint64_t global_batch;  /* sequences per optimizer step (DeepSpeed train_batch_size) */
};

/*
 * What the files said about numeric precision, before the stack's rules turn
 * it into a recipe (enum gpuplan_precision). Filled by the readers.
 */
struct gpuplan_config_precision {
    char mixed[8];       /* "no", "bf16", "fp16", "fp8"; "" = not stated */
    char param_dtype[8]; /* dtype the weights are loaded in: "fp32", "bf16", "fp16"; "" = not stated
                          */
    bool pure_16bit;     /* the engine stores weights, grads and states in 16 bits (torchtune dtype,
                            LLaMA-Factory pure_bf16, DeepSpeed bf16_optimizer_states) */
    bool
        ds_master_16bit; /* DeepSpeed bf16_master_weights_and_grads without bf16_optimizer_states */
    char key[GPUPLAN_CONFIG_KEY_MAX];     /* the key that stated `mixed`, for the note */
    char where[GPUPLAN_CONFIG_WHERE_MAX]; /* and where */
};

struct gpuplan_config {
    enum gpuplan_config_kind kind;              /* of the first file read */
    enum gpuplan_config_stack stack;            /* whose defaults apply (the first file's) */
    size_t n_files;                             /* files read into this record */
    unsigned kinds_read;                        /* bit (1u << kind) for each kind read */
    char model_id[GPUPLAN_JOB_MAX_TEXT];        /* Hub id or path, e.g. "meta-llama/Llama-3.1-8B";
                                                   "" when the file names none (DeepSpeed, accelerate) */
    char model_builder[GPUPLAN_JOB_MAX_TEXT];   /* torchtune model._component_, e.g.
                                                   "torchtune.models.llama3_1.qlora_llama3_1_8b" */
    char referenced_path[GPUPLAN_JOB_MAX_TEXT]; /* a DeepSpeed JSON the file names, to merge; ""
                                                   none */
    struct gpuplan_job job;                     /* gpuplan_job_init + defaults + the files */
    struct gpuplan_config_layout layout;
    struct gpuplan_config_precision precision;
    struct gpuplan_config_note *notes; /* n_notes entries, owned: freed by gpuplan_config_release */
    size_t n_notes;
    size_t n_notes_dropped; /* notes past GPUPLAN_CONFIG_MAX_NOTES, counted only */
};

/* An empty record: kind AUTO, stack UNKNOWN, job at gpuplan_job_init(), no notes. */
void gpuplan_config_init(struct gpuplan_config *cfg);

/* Free the notes; the record may be init'ed again. A zeroed record is a no-op. */
void gpuplan_config_release(struct gpuplan_config *cfg);

/*
 * Read one config file of `len` bytes (not NUL-terminated) into `cfg`.
 * `name` is the file name used in positions and as the detection
 * tie-breaker (may be NULL: "config"). `kind` AUTO detects it from the
 * content. On the first call the record must be fresh from
 * gpuplan_config_init(); later calls merge (see the top of this file).
 *
 * Errors: GPUPLAN_ERR_INVALID_INPUT (syntax, a value of the wrong type or
 * range, with the position in err->where and a hint), GPUPLAN_ERR_TOO_LARGE
 * (a bound above), GPUPLAN_ERR_UNSUPPORTED (AUTO could not tell the kind;
 * YAML anchors/aliases), GPUPLAN_ERR_NOMEM. On failure `cfg` keeps what
 * earlier calls put there, minus nothing: the failed file adds no notes.
 */
enum gpuplan_status gpuplan_config_read(struct gpuplan_config *cfg,
                                        const uint8_t *bytes,
                                        size_t len,
                                        const char *name,
                                        enum gpuplan_config_kind kind,
                                        struct gpuplan_error *err);

/*
 * The kind AUTO would pick for these bytes (GPUPLAN_CONFIG_AUTO when none
 * fits; errors as gpuplan_config_read for unreadable input).
 */
enum gpuplan_status gpuplan_config_detect(const uint8_t *bytes,
                                          size_t len,
                                          const char *name,
                                          enum gpuplan_config_kind *out,
                                          struct gpuplan_error *err);

/* Stable names: "deepspeed", "accelerate", "axolotl", "llama-factory", "torchtune", "trl", "peft".
 */
const char *gpuplan_config_kind_name(enum gpuplan_config_kind kind);
/* Parse a kind name ("auto" too); false when unknown. */
bool gpuplan_config_kind_from_name(const char *name, enum gpuplan_config_kind *out);
/* "hf-trainer", "trl", "axolotl", "llama-factory", "torchtune", "deepspeed", "accelerate". */
const char *gpuplan_config_stack_name(enum gpuplan_config_stack stack);
/* "mapped", "default", "unknown", "ignored", "not-expressible". */
const char *gpuplan_config_note_kind_name(enum gpuplan_config_note_kind kind);

/* Notes of one kind, in order (convenience for front-ends). */
size_t gpuplan_config_count_notes(const struct gpuplan_config *cfg,
                                  enum gpuplan_config_note_kind kind);

/*
 * Whether `key` (dotted, e.g. "zero_optimization.stage") is documented by
 * the engine of `kind` at the version tests/fixtures/engine-keys/ cites.
 */
bool gpuplan_config_key_is_documented(enum gpuplan_config_kind kind, const char *key);

/*
 * A change the estimate suggests ("--grad-ckpt full", "--gpu h100-sxm:2
 * --sharding fsdp") in the vocabulary of a `kind` file
 * ("gradient_checkpointing: true" for axolotl), into out[out_size]; parts no
 * key of that file says are spelled as the launch ("launch on 2 GPUs") or
 * kept as the option. True when every part is a key of the file.
 */
bool gpuplan_config_spell_change(enum gpuplan_config_kind kind,
                                 const char *change,
                                 char *out,
                                 size_t out_size);

#endif
