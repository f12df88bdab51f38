/*
 * config_internal.h - the framework config readers (library-internal).
 *
 * config_tree.c turns YAML (libyaml events) or JSON (the jansson reader)
 * into one small tree of scalars, mappings and sequences, each node with
 * its line:column (YAML); config_read.c detects the kind, runs the reader
 * for it and derives the job (defaults, precision recipe); config_<kind>.c
 * map keys to job settings through the helpers below; config_keys.c holds
 * the documented key lists (generated from tests/fixtures/engine-keys/).
 */
#ifndef GPUPLAN_CONFIG_INTERNAL_H
#define GPUPLAN_CONFIG_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpuplan/config.h"
#include "gpuplan/error.h"

#define CFG_NONE UINT32_MAX /* no node */

enum cfg_type {
    CFG_NULL = 0, /* YAML ~ / null / empty, JSON null */
    CFG_BOOL,     /* JSON true/false (YAML booleans stay scalars: see cfg_bool) */
    CFG_NUMBER,   /* JSON number */
    CFG_SCALAR,   /* JSON string, or any YAML scalar */
    CFG_MAP,
    CFG_SEQ,
};

struct cfg_node {
    enum cfg_type type;
    bool quoted;        /* YAML single/double quoted or !!str; JSON string */
    bool bool_value;    /* CFG_BOOL */
    uint32_t line, col; /* 1-based, YAML only (0 for JSON) */
    uint32_t text_off;  /* scalar text in tree->text (NUL-terminated) */
    uint32_t text_len;
    uint32_t first;      /* first child (MAP: key, value, key, value, ...), or CFG_NONE */
    uint32_t last;       /* last child, for appending */
    uint32_t next;       /* next sibling */
    uint32_t n_children; /* MAP: 2 x keys */
};

struct cfg_tree {
    struct cfg_node *nodes;
    uint32_t n_nodes, cap_nodes;
    char *text; /* scalar texts, each NUL-terminated */
    size_t text_len, cap_text;
    uint32_t root;
    bool is_json;
};

/* Parse `len` bytes as JSON (first non-blank byte '{' or '[') or YAML into `tree` (bounded by
 * config.h's GPUPLAN_CONFIG_MAX_*). `name` prefixes positions. Free with cfg_tree_release. */
enum gpuplan_status cfg_tree_parse(struct cfg_tree *tree,
                                   const uint8_t *bytes,
                                   size_t len,
                                   const char *name,
                                   struct gpuplan_error *err);
void cfg_tree_release(struct cfg_tree *tree);

static inline const struct cfg_node *cfg_node_at(const struct cfg_tree *t, uint32_t i)
{
    return i < t->n_nodes ? &t->nodes[i] : NULL;
}
static inline const char *cfg_text(const struct cfg_tree *t, const struct cfg_node *n)
{
    return t->text + n->text_off;
}
/* The value of `key` in mapping `map`, or NULL. */
const struct cfg_node *
cfg_get(const struct cfg_tree *t, const struct cfg_node *map, const char *key);

/* One reader run: the record, the tree and the file. `st` is sticky (out of memory). */
struct cfg_ctx {
    struct gpuplan_config *cfg;
    const struct cfg_tree *tree;
    const char *name;
    enum gpuplan_config_kind kind;
    struct gpuplan_error *err;
    enum gpuplan_status st;
    const char *json_prefix; /* a section of a JSON file ("sft_config"): positions under it */
};

/* Scalars: true when the node holds such a value (YAML 1.1 booleans, strings "true"/"false"). */
bool cfg_is_null(const struct cfg_ctx *c, const struct cfg_node *n);
bool cfg_is_auto(const struct cfg_ctx *c, const struct cfg_node *n); /* the string "auto" */
bool cfg_as_bool(const struct cfg_ctx *c, const struct cfg_node *n, bool *out);
bool cfg_as_u64(const struct cfg_ctx *c, const struct cfg_node *n, uint64_t *out);
bool cfg_as_double(const struct cfg_ctx *c, const struct cfg_node *n, double *out);
/* Scalar text (numbers and booleans too), or NULL for maps, sequences and null. */
const char *cfg_as_text(const struct cfg_ctx *c, const struct cfg_node *n);

/* "name:line:col" (YAML) or "name:$.key" (JSON) for a node reached through dotted `key`. */
void cfg_where(const struct cfg_ctx *c,
               const struct cfg_node *n,
               const char *key,
               char *out,
               size_t out_size);

/*
 * Notes. cfg_note appends one (detail printf-style, may be NULL); the others
 * wrap it. cfg_set also checks `value` with gpuplan_job_set and fails the
 * read with the node's position when the job refuses it.
 */
void cfg_note(struct cfg_ctx *c,
              enum gpuplan_config_note_kind kind,
              const char *key,
              const struct cfg_node *at,
              const char *setting,
              const char *value,
              const char *detail_fmt,
              ...) __attribute__((format(printf, 7, 8)));
enum gpuplan_status cfg_set(struct cfg_ctx *c,
                            const char *key,
                            const struct cfg_node *at,
                            const char *setting,
                            const char *value,
                            const char *detail);
/* A default the reader knows from context (e.g. accelerate's DeepSpeed zero_stage 2). */
enum gpuplan_status cfg_set_default(struct cfg_ctx *c,
                                    const char *key,
                                    const char *setting,
                                    const char *value,
                                    const char *source);
/* Fail the read: INVALID_INPUT at the node, "'key' is 'text'; must be <what>". */
enum gpuplan_status
cfg_bad_value(struct cfg_ctx *c, const char *key, const struct cfg_node *at, const char *what);
/* A count that must be in [lo, hi]; set *out. Fails the read otherwise. */
enum gpuplan_status cfg_count(struct cfg_ctx *c,
                              const char *key,
                              const struct cfg_node *at,
                              uint64_t lo,
                              uint64_t hi,
                              uint64_t *out);
/* Maps a count key straight to a job option (micro-batch, seq-len, ...). "auto" is IGNORED. */
enum gpuplan_status cfg_set_count(struct cfg_ctx *c,
                                  const char *key,
                                  const struct cfg_node *at,
                                  const char *setting,
                                  uint64_t *layout_out);
/* A boolean key (fails the read when not a boolean); "auto" gives false with *is_auto set. */
enum gpuplan_status
cfg_bool(struct cfg_ctx *c, const char *key, const struct cfg_node *at, bool *out, bool *is_auto);
/* Record an unhandled key: IGNORED when documented for this kind, UNKNOWN otherwise. */
void cfg_other_key(struct cfg_ctx *c, const char *key, const struct cfg_node *at);
/* The last MAPPED/reader-default value of `setting` so far, or NULL. */
const char *cfg_mapped(const struct gpuplan_config *cfg, const char *setting);
/* Precision facts. */
void cfg_set_mixed(struct cfg_ctx *c,
                   const char *key,
                   const struct cfg_node *at,
                   const char *mixed);
void cfg_set_param_dtype(struct cfg_ctx *c,
                         const char *key,
                         const struct cfg_node *at,
                         const char *dtype);
/* Copy text into a fixed field, truncating at a character boundary. */
void cfg_copy(char *dst, size_t dst_size, const char *src);
/* Dotted child key "prefix.key" (or "key" with an empty prefix) into out. */
void cfg_join(char *out, size_t out_size, const char *prefix, const char *key);

/*
 * Shared vocabularies. Each returns true and a job option value when the
 * framework's name has one, false otherwise (the caller notes it).
 */
bool cfg_hf_optimizer(const char *name, const char **value); /* TrainingArguments optim names */
bool cfg_hf_attention(const char *name, const char **value); /* attn_implementation */
bool cfg_dtype_name(const char *name, const char **dtype);   /* bf16/bfloat16/torch.bfloat16/... */
/* Map LoRA target module names (sequence or comma string) onto --lora-targets, noting the rest. */
enum gpuplan_status cfg_lora_targets(struct cfg_ctx *c, const char *key, const struct cfg_node *at);

/*
 * The HF Trainer arguments every HF-based reader shares (TrainingArguments
 * keys: batch, accumulation, bf16/fp16, checkpointing, optim, compile,
 * liger, fsdp/fsdp_config, deepspeed, epochs). Returns true when it handled
 * `key` (value `v` at dotted `full_key`).
 */
bool cfg_hf_training_arg(struct cfg_ctx *c,
                         const char *key,
                         const char *full_key,
                         const struct cfg_node *v);
/* The FSDP option list / fsdp_config of TrainingArguments and axolotl (prefixed or not). */
enum gpuplan_status cfg_hf_fsdp(struct cfg_ctx *c, const char *key, const struct cfg_node *v);
enum gpuplan_status
cfg_fsdp_config(struct cfg_ctx *c, const char *prefix, const struct cfg_node *map);

/* Readers: walk the root mapping. */
enum gpuplan_status
cfg_read_deepspeed(struct cfg_ctx *c, const struct cfg_node *root, const char *prefix);
enum gpuplan_status cfg_read_accelerate(struct cfg_ctx *c, const struct cfg_node *root);
enum gpuplan_status cfg_read_axolotl(struct cfg_ctx *c, const struct cfg_node *root);
enum gpuplan_status cfg_read_llama_factory(struct cfg_ctx *c, const struct cfg_node *root);
enum gpuplan_status cfg_read_torchtune(struct cfg_ctx *c, const struct cfg_node *root);
enum gpuplan_status cfg_read_trl(struct cfg_ctx *c, const struct cfg_node *root);
enum gpuplan_status cfg_read_peft(struct cfg_ctx *c, const struct cfg_node *root);

/* Sources cited by the defaults and notes (one per framework file read). */
#define SRC_TA    "huggingface/transformers@00349ae87edd (5.x) src/transformers/training_args.py"
#define SRC_TRL_B "huggingface/trl@f2cd57710 (1.10.0.dev0) trl/trainer/base_config.py"
#define SRC_TRL_S "huggingface/trl@f2cd57710 (1.10.0.dev0) trl/trainer/sft_config.py"
#define SRC_TRL_M "huggingface/trl@f2cd57710 (1.10.0.dev0) trl/trainer/model_config.py"
#define SRC_TRL_U \
    "huggingface/trl@f2cd57710 (1.10.0.dev0) trl/trainer/utils.py create_model_from_path"
#define SRC_AX_C "axolotl-ai-cloud/axolotl@067b021c8 (0.18.0) src/axolotl/utils/schemas/config.py"
#define SRC_AX_T "axolotl-ai-cloud/axolotl@067b021c8 (0.18.0) src/axolotl/utils/schemas/training.py"
#define SRC_AX_P "axolotl-ai-cloud/axolotl@067b021c8 (0.18.0) src/axolotl/utils/schemas/peft.py"
#define SRC_AX_M "axolotl-ai-cloud/axolotl@067b021c8 (0.18.0) src/axolotl/loaders/model.py"
#define SRC_AX_D \
    "axolotl-ai-cloud/axolotl@067b021c8 (0.18.0) src/axolotl/utils/config/__init__.py resolve_dtype"
#define SRC_LF_F \
    "hiyouga/LLaMA-Factory@ff6d4d12e (0.9.6.dev0) src/llamafactory/hparams/finetuning_args.py"
#define SRC_LF_D \
    "hiyouga/LLaMA-Factory@ff6d4d12e (0.9.6.dev0) src/llamafactory/hparams/data_args.py"
#define SRC_LF_M \
    "hiyouga/LLaMA-Factory@ff6d4d12e (0.9.6.dev0) src/llamafactory/hparams/model_args.py"
#define SRC_LF_A  "hiyouga/LLaMA-Factory@ff6d4d12e (0.9.6.dev0) src/llamafactory/model/adapter.py"
#define SRC_TT_R  "pytorch/torchtune@bd2a0fc7c (0.7.0) recipes/{full,lora}_finetune_*.py"
#define SRC_TT_B  "pytorch/torchtune@bd2a0fc7c (0.7.0) torchtune/models/llama3_1/_model_builders.py"
#define SRC_TT_P  "pytorch/torchtune@bd2a0fc7c (0.7.0) torchtune/training/precision.py get_dtype"
#define SRC_DS_Z  "deepspeedai/DeepSpeed@edaa72212 (0.19.6) deepspeed/runtime/zero/config.py"
#define SRC_DS_P  "deepspeedai/DeepSpeed@edaa72212 (0.19.6) deepspeed/runtime/precision_config.py"
#define SRC_DS_C  "deepspeedai/DeepSpeed@edaa72212 (0.19.6) deepspeed/runtime/config.py"
#define SRC_DS_E  "deepspeedai/DeepSpeed@edaa72212 (0.19.6) deepspeed/runtime/engine.py"
#define SRC_ACC_L "huggingface/accelerate@16cb6eb8 (1.15.0.dev0) src/accelerate/commands/launch.py"
#define SRC_ACC_D \
    "huggingface/accelerate@16cb6eb8 (1.15.0.dev0) src/accelerate/utils/dataclasses.py"
#define SRC_PEFT "huggingface/peft@5d602fdbf (0.20.1.dev0) src/peft/tuners/lora/config.py"

/* Sorted documented keys per kind (config_keys.c, generated). */
struct cfg_key_list {
    const char *const *keys;
    size_t n_keys;
};
const struct cfg_key_list *cfg_documented_keys(enum gpuplan_config_kind kind);

#endif
