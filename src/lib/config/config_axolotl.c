/*
 * config_axolotl.c - axolotl config YAML (axolotl-ai-cloud/axolotl
 * @067b021c8, 0.18.0; keys from src/axolotl/utils/schemas/ (every .py)).
 *
 * axolotl hands most training keys to the HF Trainer (shared with
 * config_hf.c: gradient_accumulation_steps, bf16/fp16, gradient
 * checkpointing, fsdp/fsdp_config, deepspeed). Its own: base_model,
 * sequence_len, micro_batch_size, num_epochs, adapter (lora/qlora) with
 * load_in_4bit/8bit, lora_* (lora_target_linear = all-linear), optimizer,
 * the attention switches (flash_attention, sdp_attention, ...), torch_compile,
 * activation_offloading, and the Liger / Cut-Cross-Entropy loss plugins.
 * Precision: resolve_dtype (utils/config/__init__.py) loads the model in
 * bf16 when bf16 is on, so full fine-tuning without FSDP/DeepSpeed stores
 * bf16 weights, gradients and AdamW states (config_read.c derive_precision).
 */
#include <stdio.h>
#include <string.h>

#include "config/config_internal.h"

static void keep(struct cfg_ctx *c, enum gpuplan_status st)
{
    if (st != GPUPLAN_OK && c->st == GPUPLAN_OK)
        c->st = st;
}

static void ax_attention(struct cfg_ctx *c, const char *key, const struct cfg_node *v)
{
    bool b = false;
    keep(c, cfg_bool(c, key, v, &b, NULL));
    if (!b)
        return;
    if (strcmp(key, "flash_attention") == 0)
        keep(c, cfg_set(c, key, v, "attention", "flash", NULL));
    else if (strcmp(key, "sdp_attention") == 0)
        keep(c, cfg_set(c, key, v, "attention", "sdpa", NULL));
    else if (strcmp(key, "eager_attention") == 0)
        keep(c, cfg_set(c, key, v, "attention", "eager", NULL));
    else if (strcmp(key, "xformers_attention") == 0) {
        keep(c, cfg_set(c, key, v, "attention", "flash", NULL));
        cfg_note(c, GPUPLAN_CONFIG_NOTE_NOT_EXPRESSIBLE, key, v, "attention", "flash",
                 "xformers memory-efficient attention is modelled as flash attention");
    } else
        cfg_note(c, GPUPLAN_CONFIG_NOTE_NOT_EXPRESSIBLE, key, v, "attention", "true",
                 "an attention kernel gpuplan does not model; sdpa assumed");
}

static void ax_adapter(struct cfg_ctx *c, const char *key, const struct cfg_node *v)
{
    const char *t = cfg_as_text(c, v);
    if (!t)
        return;
    if (strcmp(t, "lora") == 0) {
        const struct cfg_node *q4 =
            cfg_get(c->tree, &c->tree->nodes[c->tree->root], "load_in_4bit");
        const struct cfg_node *q8 =
            cfg_get(c->tree, &c->tree->nodes[c->tree->root], "load_in_8bit");
        bool b4 = false, b8 = false;
        (void)cfg_as_bool(c, q4, &b4);
        (void)cfg_as_bool(c, q8, &b8);
        if (!b4 && !b8)
            keep(c, cfg_set(c, key, v, "method", "lora", NULL));
    } else if (strcmp(t, "qlora") == 0) {
        keep(c, cfg_set(c, key, v, "method", "qlora", NULL));
    } else {
        cfg_note(c, GPUPLAN_CONFIG_NOTE_NOT_EXPRESSIBLE, key, v, "method", t,
                 "only lora and qlora adapters are modelled");
    }
}

static void ax_quant(struct cfg_ctx *c, const char *key, const struct cfg_node *v)
{
    bool b = false;
    keep(c, cfg_bool(c, key, v, &b, NULL));
    if (!b)
        return;
    const struct cfg_node *ad = cfg_get(c->tree, &c->tree->nodes[c->tree->root], "adapter");
    const char *a = cfg_as_text(c, ad);
    if (!a) {
        cfg_note(c, GPUPLAN_CONFIG_NOTE_NOT_EXPRESSIBLE, key, v, NULL, "true",
                 "a quantised base without an adapter is not trainable");
        return;
    }
    keep(c, cfg_set(c, key, v, "method", "qlora", NULL));
    if (strcmp(key, "load_in_8bit") == 0)
        keep(c, cfg_set(c, key, v, "quant", "int8", "bitsandbytes LLM.int8 base"));
}

static void ax_gradient_checkpointing(struct cfg_ctx *c, const char *key, const struct cfg_node *v)
{
    bool b = false;
    const char *t = cfg_as_text(c, v);
    if (t && (strcmp(t, "offload") == 0 || strcmp(t, "offload_disk") == 0)) {
        keep(c, cfg_set(c, key, v, "grad-ckpt", "full", NULL));
        keep(c, cfg_set(c, key, v, "act-offload", "yes", "checkpoints offloaded to the host"));
        return;
    }
    keep(c, cfg_bool(c, key, v, &b, NULL));
    keep(c, cfg_set(c, key, v, "grad-ckpt", b ? "full" : "none", NULL));
}

static void ax_loss_plugin(struct cfg_ctx *c, const char *key, const struct cfg_node *v)
{
    bool b = false;
    keep(c, cfg_bool(c, key, v, &b, NULL));
    if (strcmp(key, "liger_fused_linear_cross_entropy") == 0 ||
        strcmp(key, "cut_cross_entropy") == 0 || strcmp(key, "chunked_cross_entropy") == 0) {
        if (b)
            keep(c, cfg_set(c, key, v, "chunked-ce", "yes",
                            "the loss never materialises the full fp32 logits"));
        else
            cfg_note(c, GPUPLAN_CONFIG_NOTE_IGNORED, key, v, NULL, "false", "off");
        return;
    }
    cfg_note(c, b ? GPUPLAN_CONFIG_NOTE_NOT_EXPRESSIBLE : GPUPLAN_CONFIG_NOTE_IGNORED, key, v, NULL,
             b ? "true" : "false", "%s",
             b ? "a fused Liger kernel (saves some activations): not modelled" : "off");
}

/* The model, the adapter and the precision: base_model ... float16. */
static bool ax_model_key(struct cfg_ctx *c, const char *key, const struct cfg_node *v)
{
    struct gpuplan_config_layout *lay = &c->cfg->layout;
    bool b = false;
    const char *t = cfg_as_text(c, v);
    if (strcmp(key, "base_model") == 0) {
        if (t) {
            cfg_copy(c->cfg->model_id, sizeof c->cfg->model_id, t);
            cfg_note(c, GPUPLAN_CONFIG_NOTE_MAPPED, key, v, NULL, t, "the model (model_id)");
        }
    } else if (strcmp(key, "sequence_len") == 0) {
        keep(c, cfg_set_count(c, key, v, "seq-len", NULL));
    } else if (strcmp(key, "micro_batch_size") == 0) {
        keep(c, cfg_set_count(c, key, v, "micro-batch", &lay->micro_batch));
    } else if (strcmp(key, "num_epochs") == 0) {
        double e = 0.0;
        if (cfg_as_double(c, v, &e) && e > 0.0 && e <= 1e6)
            keep(c, cfg_set(c, key, v, "epochs", t, NULL));
        else
            keep(c, cfg_bad_value(c, key, v, "a positive number of epochs"));
    } else if (strcmp(key, "adapter") == 0) {
        ax_adapter(c, key, v);
    } else if (strcmp(key, "load_in_4bit") == 0 || strcmp(key, "load_in_8bit") == 0) {
        ax_quant(c, key, v);
    } else if (strcmp(key, "lora_r") == 0) {
        keep(c, cfg_set_count(c, key, v, "lora-rank", NULL));
    } else if (strcmp(key, "lora_alpha") == 0 || strcmp(key, "lora_dropout") == 0) {
        if (t)
            keep(c, cfg_set(c, key, v, key[5] == 'a' ? "lora-alpha" : "lora-dropout", t, NULL));
    } else if (strcmp(key, "lora_target_modules") == 0) {
        if (!cfg_mapped(c->cfg, "lora-targets"))
            keep(c, cfg_lora_targets(c, key, v));
    } else if (strcmp(key, "lora_target_linear") == 0) {
        keep(c, cfg_bool(c, key, v, &b, NULL));
        if (b)
            keep(c, cfg_set(c, key, v, "lora-targets", "all-linear", NULL));
    } else if (strcmp(key, "peft_use_dora") == 0 || strcmp(key, "lora_modules_to_save") == 0 ||
               strcmp(key, "peft_layers_to_transform") == 0) {
        if (!cfg_is_null(c, v) && !(cfg_as_bool(c, v, &b) && !b))
            cfg_note(c, GPUPLAN_CONFIG_NOTE_NOT_EXPRESSIBLE, key, v, NULL, t,
                     "changes what trains (DoRA, extra full modules, a subset of layers): not "
                     "modelled");
        else
            cfg_note(c, GPUPLAN_CONFIG_NOTE_IGNORED, key, v, NULL, t, "off");
    } else if (strcmp(key, "bf16") == 0) {
        if (cfg_is_auto(c, v)) {
            cfg_set_mixed(c, key, v, "bf16");
            cfg_note(c, GPUPLAN_CONFIG_NOTE_MAPPED, key, v, NULL, "auto",
                     "auto: bf16 on a bf16-capable GPU (resolve_dtype), assumed here");
        } else {
            (void)cfg_hf_training_arg(c, key, key, v);
        }
    } else if (strcmp(key, "bfloat16") == 0 || strcmp(key, "float16") == 0) {
        keep(c, cfg_bool(c, key, v, &b, NULL));
        if (b)
            cfg_set_param_dtype(c, key, v, key[1] == 'f' ? "bf16" : "fp16");
    } else {
        return false;
    }
    return true;
}

/* Memory and time knobs: checkpointing, offload, optimizer, kernels, parallelism, HF arguments. */
static bool ax_training_key(struct cfg_ctx *c, const char *key, const struct cfg_node *v)
{
    struct gpuplan_config_layout *lay = &c->cfg->layout;
    bool b = false;
    const char *t = cfg_as_text(c, v);
    if (strcmp(key, "gradient_checkpointing") == 0) {
        ax_gradient_checkpointing(c, key, v);
    } else if (strcmp(key, "activation_offloading") == 0) {
        const bool on =
            (cfg_as_bool(c, v, &b) && b) || (t && v->type == CFG_SCALAR && !cfg_as_bool(c, v, &b));
        keep(c, cfg_set(c, key, v, "act-offload", on ? "yes" : "no", NULL));
    } else if (strcmp(key, "optimizer") == 0) {
        const char *value = NULL;
        if (t && cfg_hf_optimizer(t, &value))
            keep(c, cfg_set(c, key, v, "optimizer", value, NULL));
        else if (t)
            cfg_note(c, GPUPLAN_CONFIG_NOTE_NOT_EXPRESSIBLE, key, v, "optimizer", t,
                     "an optimizer gpuplan does not model; AdamW's states are counted instead");
    } else if (strcmp(key, "flash_attention") == 0 || strcmp(key, "sdp_attention") == 0 ||
               strcmp(key, "eager_attention") == 0 || strcmp(key, "xformers_attention") == 0 ||
               strcmp(key, "flex_attention") == 0 || strcmp(key, "s2_attention") == 0) {
        ax_attention(c, key, v);
    } else if (strcmp(key, "attn_implementation") == 0) {
        const char *a = NULL;
        if (t && cfg_hf_attention(t, &a))
            keep(c, cfg_set(c, key, v, "attention", a, NULL));
        else if (t)
            cfg_note(c, GPUPLAN_CONFIG_NOTE_NOT_EXPRESSIBLE, key, v, "attention", t,
                     "an attention kernel gpuplan does not model; sdpa assumed");
    } else if (strcmp(key, "torch_compile") == 0) {
        const bool on = cfg_is_auto(c, v) || (cfg_as_bool(c, v, &b) && b);
        keep(c, cfg_set(c, key, v, "compile", on ? "yes" : "no",
                        cfg_is_auto(c, v) ? "auto: compiled on torch >= 2.5.1, assumed" : NULL));
    } else if (strncmp(key, "liger_", 6) == 0 || strcmp(key, "cut_cross_entropy") == 0 ||
               strcmp(key, "chunked_cross_entropy") == 0) {
        ax_loss_plugin(c, key, v);
    } else if (strcmp(key, "sample_packing") == 0 || strcmp(key, "pad_to_sequence_len") == 0) {
        cfg_note(c, GPUPLAN_CONFIG_NOTE_IGNORED, key, v, NULL, t,
                 "gpuplan sizes every row at sequence_len (the packed case)");
    } else if (strcmp(key, "tensor_parallel_size") == 0) {
        uint64_t n = 0;
        if (cfg_count(c, key, v, 1, 65536, &n) == GPUPLAN_OK) {
            lay->tp = (uint32_t)n;
            keep(c, cfg_set(c, key, v, "tp", t, NULL));
        } else {
            keep(c, GPUPLAN_ERR_INVALID_INPUT);
        }
    } else if (strcmp(key, "context_parallel_size") == 0 ||
               strcmp(key, "sequence_parallel_degree") == 0) {
        uint64_t n = 0;
        cfg_note(c,
                 cfg_as_u64(c, v, &n) && n > 1 ? GPUPLAN_CONFIG_NOTE_NOT_EXPRESSIBLE
                                               : GPUPLAN_CONFIG_NOTE_IGNORED,
                 key, v, NULL, t, "context/sequence parallelism is not modelled");
    } else if (strcmp(key, "fsdp_version") == 0) {
        cfg_note(c, GPUPLAN_CONFIG_NOTE_IGNORED, key, v, NULL, t,
                 "FSDP1 and FSDP2 hold the same shards in gpuplan's model");
    } else if (strcmp(key, "per_device_train_batch_size") == 0 || strcmp(key, "fp16") == 0 ||
               strcmp(key, "gradient_accumulation_steps") == 0 || strcmp(key, "fsdp") == 0 ||
               strcmp(key, "fsdp_config") == 0 || strcmp(key, "deepspeed") == 0 ||
               strcmp(key, "gradient_checkpointing_kwargs") == 0) {
        return cfg_hf_training_arg(c, key, key, v);
    } else {
        return false;
    }
    return true;
}

/* One axolotl key: whether it is one this reader maps (the rest are checked against the key list).
 */
static bool ax_key(struct cfg_ctx *c, const char *key, const struct cfg_node *v)
{
    return ax_model_key(c, key, v) || ax_training_key(c, key, v);
}

enum gpuplan_status cfg_read_axolotl(struct cfg_ctx *c, const struct cfg_node *root)
{
    for (uint32_t k = root->first; k != CFG_NONE && c->st == GPUPLAN_OK;) {
        const struct cfg_node *kn = &c->tree->nodes[k];
        const struct cfg_node *v = &c->tree->nodes[kn->next];
        const char *key = cfg_text(c->tree, kn);
        if (!ax_key(c, key, v))
            cfg_other_key(c, key, v);
        k = v->next;
    }
    /* axolotl has no default rank: the schema's lora_r is Optional, PEFT then gets None. */
    const char *method = cfg_mapped(c->cfg, "method");
    if (c->st == GPUPLAN_OK && method && !cfg_get(c->tree, root, "lora_r"))
        cfg_note(c, GPUPLAN_CONFIG_NOTE_NOT_EXPRESSIBLE, "lora_r", NULL, "lora-rank", NULL,
                 "no lora_r: axolotl has no default (schemas/peft.py lora_r None); gpuplan's 8 "
                 "is used");
    return c->st;
}
