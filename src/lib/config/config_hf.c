/*
 * config_hf.c - Hugging Face Trainer arguments (TrainingArguments, TRL's
 * SFTConfig and `trl sft --config` YAML) and PEFT's adapter_config.json.
 *
 * The TrainingArguments keys that matter for memory or time are shared with
 * axolotl and LLaMA-Factory, which pass them through to the same Trainer:
 * per-device batch, accumulation, bf16/fp16, gradient checkpointing, optim,
 * torch_compile, use_liger_kernel, fsdp + fsdp_config, deepspeed (a path to
 * merge, or an inline dict read as a DeepSpeed config), epochs.
 *
 * Sources (docs/configs.md has the full table): transformers
 * training_args.py @00349ae87edd; trl base_config.py, sft_config.py,
 * model_config.py @f2cd57710 (1.10.0.dev0); peft tuners/lora/config.py
 * @5d602fdbf (0.20.1.dev0).
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "config/config_internal.h"

static void set_epochs(struct cfg_ctx *c, const char *key, const struct cfg_node *v)
{
    double e = 0.0;
    if (!cfg_as_double(c, v, &e) || e <= 0.0 || e > 1e6) {
        (void)cfg_bad_value(c, key, v, "a positive number of epochs");
        c->st = c->st == GPUPLAN_OK ? GPUPLAN_ERR_INVALID_INPUT : c->st;
        return;
    }
    char text[32];
    (void)snprintf(text, sizeof text, "%g", e);
    if (cfg_set(c, key, v, "epochs", text, NULL) != GPUPLAN_OK && c->st == GPUPLAN_OK)
        c->st = GPUPLAN_ERR_INVALID_INPUT;
}

/* The FSDP units option of TrainingArguments/axolotl: "full_shard auto_wrap" or a list. */
static void fsdp_word(struct cfg_ctx *c,
                      const char *key,
                      const struct cfg_node *v,
                      const char *w,
                      enum gpuplan_status *st)
{
    if (*st != GPUPLAN_OK)
        return;
    if (strcmp(w, "full_shard") == 0)
        *st = cfg_set(c, key, v, "sharding", "fsdp", "FULL_SHARD");
    else if (strcmp(w, "hybrid_shard") == 0)
        *st = cfg_set(c, key, v, "sharding", "fsdp-hybrid", "HYBRID_SHARD");
    else if (strcmp(w, "shard_grad_op") == 0)
        *st = cfg_set(c, key, v, "sharding", "zero2",
                      "SHARD_GRAD_OP keeps parameters gathered between forward and backward; "
                      "modelled as ZeRO-2");
    else if (strcmp(w, "hybrid_shard_zero2") == 0) {
        *st = cfg_set(c, key, v, "sharding", "fsdp-hybrid", NULL);
        cfg_note(c, GPUPLAN_CONFIG_NOTE_NOT_EXPRESSIBLE, key, v, "sharding", "fsdp-hybrid",
                 "HYBRID_SHARD_ZERO2 (no parameter resharding after forward) is modelled as "
                 "HYBRID_SHARD");
    } else if (strcmp(w, "offload") == 0)
        *st = cfg_set(c, key, v, "offload", "params",
                      "FSDP CPUOffload: parameters, gradients and the optimizer step on the CPU");
    else if (strcmp(w, "auto_wrap") != 0 && strcmp(w, "no_shard") != 0)
        cfg_note(c, GPUPLAN_CONFIG_NOTE_UNKNOWN, key, v, NULL, w,
                 "not an FSDP option (full_shard, shard_grad_op, hybrid_shard, "
                 "hybrid_shard_zero2, offload, auto_wrap)");
    else if (strcmp(w, "no_shard") == 0)
        *st = cfg_set(c, key, v, "sharding", "ddp", "NO_SHARD");
}

enum gpuplan_status cfg_hf_fsdp(struct cfg_ctx *c, const char *key, const struct cfg_node *v)
{
    enum gpuplan_status st = GPUPLAN_OK;
    if (cfg_is_null(c, v))
        return GPUPLAN_OK;
    if (v->type == CFG_BOOL) {
        if (v->bool_value)
            st = cfg_set(c, key, v, "sharding", "fsdp", "FULL_SHARD");
        return st;
    }
    if (v->type == CFG_SCALAR) {
        const char *p = cfg_text(c->tree, v);
        while (*p && st == GPUPLAN_OK) {
            const size_t skip = strspn(p, " ,");
            p += skip;
            const size_t len = strcspn(p, " ,");
            if (len == 0)
                break;
            char word[32];
            (void)snprintf(word, sizeof word, "%.*s", (int)(len < 31 ? len : 31), p);
            fsdp_word(c, key, v, word, &st);
            p += len;
        }
        return st;
    }
    if (v->type != CFG_SEQ)
        return cfg_bad_value(c, key, v, "FSDP options (a list or a space-separated string)");
    for (uint32_t i = v->first; i != CFG_NONE && st == GPUPLAN_OK; i = c->tree->nodes[i].next) {
        const char *w = cfg_as_text(c, &c->tree->nodes[i]);
        if (!w)
            return cfg_bad_value(c, key, v, "a list of FSDP option names");
        fsdp_word(c, key, &c->tree->nodes[i], w, &st);
    }
    return st;
}

/* FSDP1 sharding_strategy names (accelerate also takes 1..5). */
static enum gpuplan_status
fsdp_strategy(struct cfg_ctx *c, const char *key, const struct cfg_node *v)
{
    const char *t = cfg_as_text(c, v);
    if (!t)
        return cfg_bad_value(c, key, v, "an FSDP sharding strategy");
    static const char *const names[] = { "FULL_SHARD", "SHARD_GRAD_OP", "NO_SHARD", "HYBRID_SHARD",
                                         "HYBRID_SHARD_ZERO2" };
    static const char *const words[] = { "full_shard", "shard_grad_op", "no_shard", "hybrid_shard",
                                         "hybrid_shard_zero2" };
    enum gpuplan_status st = GPUPLAN_OK;
    for (size_t i = 0; i < 5; i++) {
        char digit[2] = { (char)('1' + i), '\0' };
        if (strcasecmp(t, names[i]) == 0 || strcmp(t, digit) == 0) {
            fsdp_word(c, key, v, words[i], &st);
            return st;
        }
    }
    return cfg_bad_value(c, key, v,
                         "FULL_SHARD, SHARD_GRAD_OP, NO_SHARD, HYBRID_SHARD or "
                         "HYBRID_SHARD_ZERO2");
}

/* One fsdp_config key with its "fsdp_" prefix removed. */
static enum gpuplan_status fsdp_key(struct cfg_ctx *c,
                                    const char *bare,
                                    const char *full,
                                    const struct cfg_node *v,
                                    bool *handled)
{
    bool b = false;
    enum gpuplan_status st = GPUPLAN_OK;
    *handled = true;
    if (strcmp(bare, "sharding_strategy") == 0) {
        st = fsdp_strategy(c, full, v);
    } else if (strcmp(bare, "reshard_after_forward") == 0) {
        /* FSDP2 boolean; accelerate also accepts the FSDP1 strategy names here. */
        if (cfg_as_bool(c, v, &b))
            st = b ? cfg_set(c, full, v, "sharding", "fsdp", "reshard_after_forward: FULL_SHARD")
                   : cfg_set(c, full, v, "sharding", "zero2",
                             "no reshard after forward (FSDP2 SHARD_GRAD_OP): modelled as ZeRO-2");
        else
            st = fsdp_strategy(c, full, v);
    } else if (strcmp(bare, "offload_params") == 0) {
        st = cfg_bool(c, full, v, &b, NULL);
        if (st == GPUPLAN_OK && b)
            st =
                cfg_set(c, full, v, "offload", "params",
                        "FSDP CPUOffload: parameters, gradients and the optimizer step on the CPU");
    } else if (strcmp(bare, "activation_checkpointing") == 0) {
        st = cfg_bool(c, full, v, &b, NULL);
        if (st == GPUPLAN_OK)
            st = cfg_set(c, full, v, "grad-ckpt", b ? "full" : "none", NULL);
    } else if (strcmp(bare, "auto_wrap_policy") == 0) {
        const char *t = cfg_as_text(c, v);
        if (t && strcmp(t, "TRANSFORMER_BASED_WRAP") != 0)
            cfg_note(c, GPUPLAN_CONFIG_NOTE_NOT_EXPRESSIBLE, full, v, NULL, t,
                     "gpuplan models one FSDP unit per decoder layer (TRANSFORMER_BASED_WRAP)");
        else
            cfg_note(c, GPUPLAN_CONFIG_NOTE_IGNORED, full, v, NULL, t,
                     "one unit per decoder layer: what gpuplan models");
    } else {
        *handled = false;
    }
    return st;
}

enum gpuplan_status
cfg_fsdp_config(struct cfg_ctx *c, const char *prefix, const struct cfg_node *map)
{
    if (cfg_is_null(c, map))
        return GPUPLAN_OK;
    if (map->type == CFG_SCALAR) {
        cfg_note(c, GPUPLAN_CONFIG_NOTE_IGNORED, prefix, map, NULL, cfg_text(c->tree, map),
                 "a path to an FSDP JSON config: read it as its own file");
        return GPUPLAN_OK;
    }
    if (map->type != CFG_MAP)
        return cfg_bad_value(c, prefix, map, "a mapping of FSDP options");
    enum gpuplan_status st = GPUPLAN_OK;
    for (uint32_t k = map->first; k != CFG_NONE && st == GPUPLAN_OK;) {
        const struct cfg_node *kn = &c->tree->nodes[k];
        const struct cfg_node *v = &c->tree->nodes[kn->next];
        const char *key = cfg_text(c->tree, kn);
        char full[GPUPLAN_CONFIG_KEY_MAX];
        cfg_join(full, sizeof full, prefix, key);
        const char *bare = strncmp(key, "fsdp_", 5) == 0 ? key + 5 : key;
        bool handled = false;
        st = fsdp_key(c, bare, full, v, &handled);
        if (st == GPUPLAN_OK && !handled) {
            if (strcmp(bare, "version") == 0 || strcmp(bare, "use_orig_params") == 0 ||
                strcmp(bare, "cpu_ram_efficient_loading") == 0 ||
                strcmp(bare, "sync_module_states") == 0 || strcmp(bare, "state_dict_type") == 0 ||
                strcmp(bare, "transformer_layer_cls_to_wrap") == 0 ||
                strcmp(bare, "backward_prefetch") == 0 || strcmp(bare, "forward_prefetch") == 0 ||
                strcmp(bare, "limit_all_gathers") == 0 || strcmp(bare, "min_num_params") == 0 ||
                strcmp(bare, "final_state_dict_type") == 0 ||
                strcmp(bare, "cpu_offload_pin_memory") == 0 || strcmp(bare, "xla") == 0 ||
                strcmp(bare, "mixed_precision_policy") == 0)
                cfg_note(c, GPUPLAN_CONFIG_NOTE_IGNORED, full, v, NULL, cfg_as_text(c, v),
                         "FSDP option with no effect on memory or time in gpuplan's model");
            else
                cfg_other_key(c, full, v);
        }
        k = v->next;
    }
    return st;
}

static enum gpuplan_status
hf_bool_key(struct cfg_ctx *c, const char *key, const char *full, const struct cfg_node *v)
{
    bool b = false;
    enum gpuplan_status st = cfg_bool(c, full, v, &b, NULL);
    if (st != GPUPLAN_OK)
        return st;
    if (strcmp(key, "bf16") == 0) {
        if (b)
            cfg_set_mixed(c, full, v, "bf16");
        else if (!c->cfg->precision.mixed[0])
            cfg_set_mixed(c, full, v, "no");
    } else if (strcmp(key, "fp16") == 0) {
        if (b)
            cfg_set_mixed(c, full, v, "fp16");
    } else if (strcmp(key, "gradient_checkpointing") == 0) {
        st = cfg_set(c, full, v, "grad-ckpt", b ? "full" : "none", NULL);
    } else if (strcmp(key, "torch_compile") == 0) {
        st = cfg_set(c, full, v, "compile", b ? "yes" : "no",
                     "the Trainer compiles the model, loss included (HF models compute it in "
                     "forward)");
    } else if (strcmp(key, "use_liger_kernel") == 0) {
        st = cfg_set(c, full, v, "chunked-ce", b ? "yes" : "no",
                     "Liger's fused linear cross-entropy never materialises the logits");
        if (b)
            cfg_note(c, GPUPLAN_CONFIG_NOTE_NOT_EXPRESSIBLE, full, v, NULL, "true",
                     "Liger's RMSNorm/SwiGLU/RoPE kernels also save activations; not modelled "
                     "(gpuplan over-estimates them)");
    }
    return st;
}

bool cfg_hf_training_arg(struct cfg_ctx *c,
                         const char *key,
                         const char *full_key,
                         const struct cfg_node *v)
{
    enum gpuplan_status st = GPUPLAN_OK;
    struct gpuplan_config_layout *lay = &c->cfg->layout;
    if (strcmp(key, "per_device_train_batch_size") == 0) {
        st = cfg_set_count(c, full_key, v, "micro-batch", &lay->micro_batch);
    } else if (strcmp(key, "gradient_accumulation_steps") == 0) {
        st = cfg_set_count(c, full_key, v, "grad-accum", &lay->grad_accum);
    } else if (strcmp(key, "bf16") == 0 || strcmp(key, "fp16") == 0 ||
               strcmp(key, "gradient_checkpointing") == 0 || strcmp(key, "torch_compile") == 0 ||
               strcmp(key, "use_liger_kernel") == 0) {
        st = hf_bool_key(c, key, full_key, v);
    } else if (strcmp(key, "torch_compile_backend") == 0 ||
               strcmp(key, "torch_compile_mode") == 0) {
        if (!cfg_is_null(c, v))
            st = cfg_set(c, full_key, v, "compile", "yes",
                         "setting a backend or mode turns torch_compile on");
    } else if (strcmp(key, "optim") == 0) {
        const char *name = cfg_as_text(c, v), *value = NULL;
        if (!name)
            st = cfg_bad_value(c, full_key, v, "an optimizer name");
        else if (cfg_hf_optimizer(name, &value))
            st = cfg_set(c, full_key, v, "optimizer", value, NULL);
        else
            cfg_note(c, GPUPLAN_CONFIG_NOTE_NOT_EXPRESSIBLE, full_key, v, "optimizer", name,
                     "an optimizer gpuplan does not model; AdamW's states are counted instead");
    } else if (strcmp(key, "num_train_epochs") == 0) {
        set_epochs(c, full_key, v);
    } else if (strcmp(key, "fsdp") == 0) {
        st = cfg_hf_fsdp(c, full_key, v);
    } else if (strcmp(key, "fsdp_config") == 0) {
        st = cfg_fsdp_config(c, full_key, v);
    } else if (strcmp(key, "deepspeed") == 0) {
        if (v->type == CFG_MAP) {
            st = cfg_read_deepspeed(c, v, full_key);
        } else if (!cfg_is_null(c, v)) {
            const char *path = cfg_as_text(c, v);
            if (!path)
                st = cfg_bad_value(c, full_key, v, "a path to a DeepSpeed JSON, or its contents");
            else {
                cfg_copy(c->cfg->referenced_path, sizeof c->cfg->referenced_path, path);
                cfg_note(c, GPUPLAN_CONFIG_NOTE_MAPPED, full_key, v, NULL, path,
                         "DeepSpeed config to read next (referenced_path): its ZeRO stage and "
                         "offload decide the sharding");
            }
        }
    } else if (strcmp(key, "gradient_checkpointing_kwargs") == 0) {
        cfg_note(c, GPUPLAN_CONFIG_NOTE_IGNORED, full_key, v, NULL, NULL,
                 "use_reentrant changes no saved tensor in gpuplan's model");
    } else {
        return false;
    }
    if (st != GPUPLAN_OK && c->st == GPUPLAN_OK)
        c->st = st;
    return true;
}

/* ---- TRL / TrainingArguments files ---- */

static void trl_quant(struct cfg_ctx *c, const char *key, const struct cfg_node *v)
{
    bool b = false;
    if (cfg_bool(c, key, v, &b, NULL) != GPUPLAN_OK) {
        c->st = GPUPLAN_ERR_INVALID_INPUT;
        return;
    }
    if (!b)
        return;
    const bool eight = strcmp(key, "load_in_8bit") == 0;
    if (cfg_set(c, key, v, "method", "qlora", NULL) != GPUPLAN_OK ||
        (eight && cfg_set(c, key, v, "quant", "int8", "bitsandbytes LLM.int8 base") != GPUPLAN_OK))
        c->st = GPUPLAN_ERR_INVALID_INPUT;
}

/*
 * A BitsAndBytesConfig given as a dict (model_init_kwargs.quantization_config,
 * which from_pretrained takes as it takes the object): load_in_4bit/8bit,
 * the double quantisation and the 4-bit type.
 */
static void bnb_config(struct cfg_ctx *c, const char *prefix, const struct cfg_node *map)
{
    for (uint32_t k = map->first; k != CFG_NONE && c->st == GPUPLAN_OK;) {
        const struct cfg_node *kn = &c->tree->nodes[k];
        const struct cfg_node *v = &c->tree->nodes[kn->next];
        const char *sub = cfg_text(c->tree, kn);
        char full[GPUPLAN_CONFIG_KEY_MAX];
        cfg_join(full, sizeof full, prefix, sub);
        bool b = false;
        if (strcmp(sub, "load_in_4bit") == 0 || strcmp(sub, "load_in_8bit") == 0) {
            trl_quant(c, sub, v);
        } else if (strcmp(sub, "bnb_4bit_use_double_quant") == 0) {
            if (cfg_bool(c, full, v, &b, NULL) != GPUPLAN_OK)
                c->st = GPUPLAN_ERR_INVALID_INPUT;
            else if (cfg_set(c, full, v, "quant", b ? "nf4-dq" : "nf4", NULL) != GPUPLAN_OK)
                c->st = GPUPLAN_ERR_INVALID_INPUT;
        } else if (strcmp(sub, "bnb_4bit_quant_type") == 0) {
            const char *t = cfg_as_text(c, v);
            if (t && strcmp(t, "nf4") != 0)
                cfg_note(c, GPUPLAN_CONFIG_NOTE_NOT_EXPRESSIBLE, full, v, "quant", t,
                         "FP4 storage is modelled as NF4 (same 4 bits per weight)");
        } else {
            cfg_note(c, GPUPLAN_CONFIG_NOTE_IGNORED, full, v, NULL, cfg_as_text(c, v),
                     "BitsAndBytesConfig argument with no effect on memory in gpuplan's model");
        }
        k = v->next;
    }
}

/* TRL ModelConfig / SFTConfig keys beyond TrainingArguments. */
static bool trl_key(struct cfg_ctx *c, const char *key, const struct cfg_node *v)
{
    enum gpuplan_status st = GPUPLAN_OK;
    bool b = false;
    const char *t = NULL;
    if (strcmp(key, "model_name_or_path") == 0) {
        if ((t = cfg_as_text(c, v)) != NULL) {
            cfg_copy(c->cfg->model_id, sizeof c->cfg->model_id, t);
            cfg_note(c, GPUPLAN_CONFIG_NOTE_MAPPED, key, v, NULL, t, "the model (model_id)");
        }
    } else if (strcmp(key, "max_length") == 0 || strcmp(key, "max_seq_length") == 0) {
        if (cfg_is_null(c, v))
            cfg_note(c, GPUPLAN_CONFIG_NOTE_NOT_EXPRESSIBLE, key, v, NULL, NULL,
                     "no truncation: the sequence length is the data's; pass --seq-len");
        else
            st = cfg_set_count(c, key, v, "seq-len", NULL);
        if (strcmp(key, "max_seq_length") == 0)
            cfg_note(c, GPUPLAN_CONFIG_NOTE_IGNORED, key, v, NULL, NULL,
                     "older TRL's name for max_length (not in trl 1.10)");
    } else if (strcmp(key, "dtype") == 0 || strcmp(key, "torch_dtype") == 0) {
        const char *d = NULL;
        if ((t = cfg_as_text(c, v)) != NULL && cfg_dtype_name(t, &d))
            cfg_set_param_dtype(c, key, v, d);
        else if (t && strcmp(t, "auto") == 0)
            cfg_note(c, GPUPLAN_CONFIG_NOTE_NOT_EXPRESSIBLE, key, v, NULL, t,
                     "the checkpoint's own dtype: gpuplan assumes fp32 (TRL's default); pass "
                     "--precision");
        else
            st = cfg_bad_value(c, key, v, "bfloat16, float16, float32 or auto");
    } else if (strcmp(key, "attn_implementation") == 0) {
        const char *a = NULL;
        if ((t = cfg_as_text(c, v)) != NULL && cfg_hf_attention(t, &a))
            st = cfg_set(c, key, v, "attention", a, NULL);
        else if (t)
            cfg_note(c, GPUPLAN_CONFIG_NOTE_NOT_EXPRESSIBLE, key, v, "attention", t,
                     "an attention kernel gpuplan does not model (eager, sdpa, flash)");
    } else if (strcmp(key, "use_peft") == 0) {
        st = cfg_bool(c, key, v, &b, NULL);
        if (st == GPUPLAN_OK && b && !cfg_mapped(c->cfg, "method"))
            st = cfg_set(c, key, v, "method", "lora", NULL);
    } else if (strcmp(key, "lora_r") == 0) {
        st = cfg_set_count(c, key, v, "lora-rank", NULL);
    } else if (strcmp(key, "lora_alpha") == 0 || strcmp(key, "lora_dropout") == 0) {
        if ((t = cfg_as_text(c, v)) != NULL)
            st = cfg_set(c, key, v, key[5] == 'a' ? "lora-alpha" : "lora-dropout", t, NULL);
    } else if (strcmp(key, "lora_target_modules") == 0) {
        st = cfg_lora_targets(c, key, v);
    } else if (strcmp(key, "load_in_4bit") == 0 || strcmp(key, "load_in_8bit") == 0) {
        trl_quant(c, key, v);
    } else if (strcmp(key, "use_bnb_nested_quant") == 0) {
        st = cfg_bool(c, key, v, &b, NULL);
        if (st == GPUPLAN_OK && b)
            st = cfg_set(c, key, v, "quant", "nf4-dq", NULL);
    } else if (strcmp(key, "bnb_4bit_quant_type") == 0) {
        if ((t = cfg_as_text(c, v)) != NULL && strcmp(t, "nf4") != 0)
            cfg_note(c, GPUPLAN_CONFIG_NOTE_NOT_EXPRESSIBLE, key, v, "quant", t,
                     "FP4 storage is modelled as NF4 (same 4 bits per weight)");
    } else if (strcmp(key, "use_dora") == 0 || strcmp(key, "lora_modules_to_save") == 0) {
        if (!cfg_is_null(c, v) && !(cfg_as_bool(c, v, &b) && !b))
            cfg_note(c, GPUPLAN_CONFIG_NOTE_NOT_EXPRESSIBLE, key, v, NULL, cfg_as_text(c, v), "%s",
                     strcmp(key, "use_dora") == 0
                         ? "DoRA's magnitude vectors and extra activations are "
                           "not modelled"
                         : "fully trained extra modules are not modelled");
    } else if (strcmp(key, "activation_offloading") == 0) {
        st = cfg_bool(c, key, v, &b, NULL);
        if (st == GPUPLAN_OK)
            st = cfg_set(c, key, v, "act-offload", b ? "yes" : "no", NULL);
    } else if (strcmp(key, "loss_type") == 0) {
        if ((t = cfg_as_text(c, v)) != NULL)
            st = cfg_set(c, key, v, "chunked-ce", strcmp(t, "chunked_nll") == 0 ? "yes" : "no",
                         "chunked_nll computes the head and the loss in chunks");
    } else if (strcmp(key, "packing") == 0 || strcmp(key, "padding_free") == 0) {
        cfg_note(c, GPUPLAN_CONFIG_NOTE_IGNORED, key, v, NULL, cfg_as_text(c, v),
                 "gpuplan sizes every row at the full sequence length (the packed case); "
                 "unpacked batches are shorter");
    } else if (strcmp(key, "model_init_kwargs") == 0 && v->type == CFG_MAP) {
        for (uint32_t k = v->first; k != CFG_NONE;) {
            const struct cfg_node *kn = &c->tree->nodes[k];
            const struct cfg_node *kv = &c->tree->nodes[kn->next];
            const char *sub = cfg_text(c->tree, kn);
            char full[GPUPLAN_CONFIG_KEY_MAX];
            cfg_join(full, sizeof full, key, sub);
            if (strcmp(sub, "dtype") == 0 || strcmp(sub, "torch_dtype") == 0 ||
                strcmp(sub, "attn_implementation") == 0)
                (void)trl_key(c, sub, kv);
            else if (strcmp(sub, "quantization_config") == 0 && kv->type == CFG_MAP)
                bnb_config(c, full, kv);
            else
                cfg_note(c, GPUPLAN_CONFIG_NOTE_IGNORED, full, kv, NULL, cfg_as_text(c, kv),
                         "from_pretrained argument with no effect on memory in gpuplan's model");
            k = kv->next;
        }
    } else {
        return false;
    }
    if (st != GPUPLAN_OK && c->st == GPUPLAN_OK)
        c->st = st;
    return true;
}

static enum gpuplan_status read_trl_keys(struct cfg_ctx *c, const struct cfg_node *root)
{
    for (uint32_t k = root->first; k != CFG_NONE && c->st == GPUPLAN_OK;) {
        const struct cfg_node *kn = &c->tree->nodes[k];
        const struct cfg_node *v = &c->tree->nodes[kn->next];
        const char *key = cfg_text(c->tree, kn);
        if (!cfg_hf_training_arg(c, key, key, v) && !trl_key(c, key, v))
            cfg_other_key(c, key, v);
        k = v->next;
    }
    return c->st;
}

/*
 * gpuplan's `emit trl` file: {"model": ID, "sft_config": {SFTConfig
 * arguments}, "lora_config": {LoraConfig arguments}}, a script builds
 * SFTConfig(**sft_config) and LoraConfig(**lora_config). Each section is read
 * as its own kind (TRL, then PEFT), positions under its JSON path.
 */
static enum gpuplan_status read_trl_sections(struct cfg_ctx *c, const struct cfg_node *root)
{
    for (uint32_t k = root->first; k != CFG_NONE && c->st == GPUPLAN_OK;) {
        const struct cfg_node *kn = &c->tree->nodes[k];
        const struct cfg_node *v = &c->tree->nodes[kn->next];
        const char *key = cfg_text(c->tree, kn);
        struct cfg_ctx sub = *c;
        if (strcmp(key, "model") == 0 && cfg_as_text(c, v)) {
            cfg_copy(c->cfg->model_id, sizeof c->cfg->model_id, cfg_as_text(c, v));
            cfg_note(c, GPUPLAN_CONFIG_NOTE_MAPPED, key, v, NULL, cfg_as_text(c, v),
                     "the model (model_id)");
        } else if (strcmp(key, "sft_config") == 0 && v->type == CFG_MAP) {
            sub.json_prefix = "sft_config";
            c->st = read_trl_keys(&sub, v);
        } else if (strcmp(key, "lora_config") == 0 && v->type == CFG_MAP) {
            sub.json_prefix = "lora_config";
            sub.kind = GPUPLAN_CONFIG_PEFT;
            c->cfg->kinds_read |= 1U << GPUPLAN_CONFIG_PEFT;
            c->st = cfg_read_peft(&sub, v);
        } else {
            cfg_note(c, GPUPLAN_CONFIG_NOTE_UNKNOWN, key, v, NULL, NULL,
                     "not a section of an SFTConfig + LoraConfig file (model, sft_config, "
                     "lora_config)");
        }
        k = v->next;
    }
    return c->st;
}

enum gpuplan_status cfg_read_trl(struct cfg_ctx *c, const struct cfg_node *root)
{
    const struct cfg_node *sft = cfg_get(c->tree, root, "sft_config");
    if (sft && sft->type == CFG_MAP)
        return read_trl_sections(c, root);
    return read_trl_keys(c, root);
}

/* ---- PEFT adapter_config.json ---- */

static bool peft_true(struct cfg_ctx *c, const struct cfg_node *v)
{
    bool b = false;
    if (cfg_is_null(c, v))
        return false;
    if (cfg_as_bool(c, v, &b))
        return b;
    if (v->type == CFG_SEQ || v->type == CFG_MAP)
        return v->n_children > 0;
    const char *t = cfg_as_text(c, v);
    return t && t[0] && strcmp(t, "none") != 0;
}

static bool peft_key(struct cfg_ctx *c, const char *key, const struct cfg_node *v)
{
    enum gpuplan_status st = GPUPLAN_OK;
    const char *t = cfg_as_text(c, v);
    if (strcmp(key, "peft_type") == 0) {
        if (t && strcasecmp(t, "LORA") != 0)
            cfg_note(c, GPUPLAN_CONFIG_NOTE_NOT_EXPRESSIBLE, key, v, "method", t,
                     "only LoRA adapters are modelled");
    } else if (strcmp(key, "base_model_name_or_path") == 0) {
        if (t && !c->cfg->model_id[0]) {
            cfg_copy(c->cfg->model_id, sizeof c->cfg->model_id, t);
            cfg_note(c, GPUPLAN_CONFIG_NOTE_MAPPED, key, v, NULL, t, "the model (model_id)");
        }
    } else if (strcmp(key, "r") == 0) {
        st = cfg_set_count(c, key, v, "lora-rank", NULL);
    } else if (strcmp(key, "lora_alpha") == 0 || strcmp(key, "lora_dropout") == 0) {
        if (t)
            st = cfg_set(c, key, v, key[5] == 'a' ? "lora-alpha" : "lora-dropout", t, NULL);
    } else if (strcmp(key, "target_modules") == 0) {
        if (v->type == CFG_SCALAR && strcmp(t, "all-linear") != 0)
            cfg_note(c, GPUPLAN_CONFIG_NOTE_NOT_EXPRESSIBLE, key, v, "lora-targets", t,
                     "a regular expression over module names: pass --lora-targets");
        else
            st = cfg_lora_targets(c, key, v);
    } else if (strcmp(key, "use_dora") == 0 || strcmp(key, "modules_to_save") == 0 ||
               strcmp(key, "layers_to_transform") == 0 || strcmp(key, "rank_pattern") == 0 ||
               strcmp(key, "alpha_pattern") == 0 || strcmp(key, "trainable_token_indices") == 0 ||
               strcmp(key, "target_parameters") == 0 || strcmp(key, "layer_replication") == 0 ||
               strcmp(key, "use_qalora") == 0 || strcmp(key, "lora_bias") == 0 ||
               strcmp(key, "bias") == 0) {
        if (peft_true(c, v))
            cfg_note(c, GPUPLAN_CONFIG_NOTE_NOT_EXPRESSIBLE, key, v, NULL, t,
                     "changes which parameters train (or how many): not modelled");
        else
            cfg_note(c, GPUPLAN_CONFIG_NOTE_IGNORED, key, v, NULL, t, "off");
    } else {
        return false;
    }
    if (st != GPUPLAN_OK && c->st == GPUPLAN_OK)
        c->st = st;
    return true;
}

enum gpuplan_status cfg_read_peft(struct cfg_ctx *c, const struct cfg_node *root)
{
    const char *method = cfg_mapped(c->cfg, "method");
    if (!method || (strcmp(method, "lora") != 0 && strcmp(method, "qlora") != 0)) {
        if (cfg_set(c, "peft_type", cfg_get(c->tree, root, "peft_type"), "method", "lora",
                    "an adapter_config.json: LoRA") != GPUPLAN_OK)
            return c->st != GPUPLAN_OK ? c->st : GPUPLAN_ERR_INVALID_INPUT;
    }
    for (uint32_t k = root->first; k != CFG_NONE && c->st == GPUPLAN_OK;) {
        const struct cfg_node *kn = &c->tree->nodes[k];
        const struct cfg_node *v = &c->tree->nodes[kn->next];
        const char *key = cfg_text(c->tree, kn);
        if (!peft_key(c, key, v))
            cfg_other_key(c, key, v);
        k = v->next;
    }
    return c->st;
}
