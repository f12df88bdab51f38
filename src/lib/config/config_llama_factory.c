/*
 * config_llama_factory.c - LLaMA-Factory training YAML (hiyouga/LLaMA-Factory
 * @ff6d4d12e, 0.9.6.dev0; keys from src/llamafactory/hparams/ (every .py), whose
 * TrainingArguments extends transformers' Seq2SeqTrainingArguments).
 *
 * Its own keys: model_name_or_path, stage, finetuning_type (lora default),
 * lora_rank/alpha/dropout/target ("all" = all-linear), quantization_bit
 * (+ quantization_method, quantization_type, double_quantization),
 * cutoff_len, flash_attn, disable_gradient_checkpointing (checkpointing is
 * on by default), enable_liger_kernel, use_unsloth, pure_bf16, packing.
 * The TrainingArguments ones (batch, accumulation, bf16, optim, deepspeed,
 * fsdp) go through config_hf.c. Precision: adapter.py upcasts trainable
 * parameters to fp32 unless pure_bf16 (config_read.c derive_precision).
 */
#include <stdio.h>
#include <string.h>

#include "config/config_internal.h"

static void keep(struct cfg_ctx *c, enum gpuplan_status st)
{
    if (st != GPUPLAN_OK && c->st == GPUPLAN_OK)
        c->st = st;
}

static void lf_finetuning_type(struct cfg_ctx *c, const char *key, const struct cfg_node *v)
{
    const char *t = cfg_as_text(c, v);
    const struct cfg_node *qb =
        cfg_get(c->tree, &c->tree->nodes[c->tree->root], "quantization_bit");
    if (!t)
        return;
    if (strcmp(t, "lora") == 0) {
        if (!qb || cfg_is_null(c, qb))
            keep(c, cfg_set(c, key, v, "method", "lora", NULL));
    } else if (strcmp(t, "full") == 0) {
        keep(c, cfg_set(c, key, v, "method", "full", NULL));
    } else if (strcmp(t, "freeze") == 0) {
        keep(c, cfg_set(c, key, v, "method", "full", NULL));
        cfg_note(c, GPUPLAN_CONFIG_NOTE_NOT_EXPRESSIBLE, key, v, "method", "full",
                 "freeze tuning trains a few layers only; modelled as full (an upper bound)");
    } else if (strcmp(t, "oft") == 0) {
        keep(c, cfg_set(c, key, v, "method", "lora", NULL));
        cfg_note(c, GPUPLAN_CONFIG_NOTE_NOT_EXPRESSIBLE, key, v, "method", "lora",
                 "OFT adapters are modelled as LoRA of the same rank");
    } else {
        keep(c, cfg_bad_value(c, key, v, "lora, oft, freeze or full"));
    }
}

static void lf_quantization_bit(struct cfg_ctx *c, const char *key, const struct cfg_node *v)
{
    uint64_t bits = 0;
    if (cfg_is_null(c, v))
        return;
    if (cfg_count(c, key, v, 2, 8, &bits) != GPUPLAN_OK) {
        keep(c, GPUPLAN_ERR_INVALID_INPUT);
        return;
    }
    const struct cfg_node *root = &c->tree->nodes[c->tree->root];
    const char *method = cfg_as_text(c, cfg_get(c->tree, root, "quantization_method"));
    if (method && strcmp(method, "bnb") != 0)
        cfg_note(c, GPUPLAN_CONFIG_NOTE_NOT_EXPRESSIBLE, key, v, "quant", method,
                 "HQQ/EETQ storage is modelled as bitsandbytes of the same bits");
    keep(c, cfg_set(c, key, v, "method", "qlora", NULL));
    if (bits == 8) {
        keep(c, cfg_set(c, key, v, "quant", "int8", NULL));
        return;
    }
    if (bits != 4)
        cfg_note(c, GPUPLAN_CONFIG_NOTE_NOT_EXPRESSIBLE, key, v, "quant", cfg_as_text(c, v),
                 "2/3-bit HQQ is modelled as 4-bit NF4 (an upper bound)");
    bool dq = true; /* double_quantization defaults to true (model_args.py) */
    const struct cfg_node *d = cfg_get(c->tree, root, "double_quantization");
    if (d)
        (void)cfg_as_bool(c, d, &dq);
    if (!dq)
        keep(c, cfg_set(c, "double_quantization", d, "quant", "nf4", NULL));
}

static void
lf_off_switch(struct cfg_ctx *c, const char *key, const struct cfg_node *v, const char *why)
{
    bool b = false;
    keep(c, cfg_bool(c, key, v, &b, NULL));
    cfg_note(c, b ? GPUPLAN_CONFIG_NOTE_NOT_EXPRESSIBLE : GPUPLAN_CONFIG_NOTE_IGNORED, key, v, NULL,
             b ? "true" : "false", "%s", b ? why : "off");
}

static bool lf_key(struct cfg_ctx *c, const char *key, const struct cfg_node *v)
{
    bool b = false;
    const char *t = cfg_as_text(c, v);
    if (strcmp(key, "model_name_or_path") == 0) {
        if (t) {
            cfg_copy(c->cfg->model_id, sizeof c->cfg->model_id, t);
            cfg_note(c, GPUPLAN_CONFIG_NOTE_MAPPED, key, v, NULL, t, "the model (model_id)");
        }
    } else if (strcmp(key, "stage") == 0) {
        if (t && strcmp(t, "sft") != 0 && strcmp(t, "pt") != 0)
            cfg_note(c, GPUPLAN_CONFIG_NOTE_NOT_EXPRESSIBLE, key, v, NULL, t,
                     "the reference/reward models of rm, ppo, dpo and kto are not counted");
        else
            cfg_note(c, GPUPLAN_CONFIG_NOTE_IGNORED, key, v, NULL, t, "supervised training");
    } else if (strcmp(key, "finetuning_type") == 0) {
        lf_finetuning_type(c, key, v);
    } else if (strcmp(key, "lora_rank") == 0) {
        keep(c, cfg_set_count(c, key, v, "lora-rank", NULL));
    } else if (strcmp(key, "lora_alpha") == 0 || strcmp(key, "lora_dropout") == 0) {
        if (t)
            keep(c, cfg_set(c, key, v, key[5] == 'a' ? "lora-alpha" : "lora-dropout", t, NULL));
    } else if (strcmp(key, "lora_target") == 0) {
        keep(c, cfg_lora_targets(c, key, v));
    } else if (strcmp(key, "quantization_bit") == 0) {
        lf_quantization_bit(c, key, v);
    } else if (strcmp(key, "quantization_type") == 0) {
        if (t && strcmp(t, "nf4") != 0)
            cfg_note(c, GPUPLAN_CONFIG_NOTE_NOT_EXPRESSIBLE, key, v, "quant", t,
                     "FP4 storage is modelled as NF4 (same 4 bits per weight)");
    } else if (strcmp(key, "quantization_method") == 0 || strcmp(key, "double_quantization") == 0) {
        cfg_note(c, GPUPLAN_CONFIG_NOTE_MAPPED, key, v, NULL, t, "read with quantization_bit");
    } else if (strcmp(key, "cutoff_len") == 0) {
        keep(c, cfg_set_count(c, key, v, "seq-len", NULL));
    } else if (strcmp(key, "flash_attn") == 0) {
        const char *a = NULL;
        if (t && strcmp(t, "auto") == 0)
            keep(c, cfg_set(c, key, v, "attention", "sdpa", "auto: transformers' default (sdpa)"));
        else if (t && cfg_hf_attention(t, &a))
            keep(c, cfg_set(c, key, v, "attention", a, NULL));
        else
            keep(c, cfg_bad_value(c, key, v, "auto, disabled, sdpa, fa2 or fa3"));
    } else if (strcmp(key, "disable_gradient_checkpointing") == 0) {
        keep(c, cfg_bool(c, key, v, &b, NULL));
        keep(c, cfg_set(c, key, v, "grad-ckpt", b ? "none" : "full", NULL));
    } else if (strcmp(key, "enable_liger_kernel") == 0) {
        keep(c, cfg_bool(c, key, v, &b, NULL));
        keep(c, cfg_set(c, key, v, "chunked-ce", b ? "yes" : "no",
                        "Liger's fused linear cross-entropy never materialises the logits"));
    } else if (strcmp(key, "pure_bf16") == 0) {
        keep(c, cfg_bool(c, key, v, &b, NULL));
        if (b) {
            c->cfg->precision.pure_16bit = true;
            cfg_set_mixed(c, key, v, "bf16");
        }
    } else if (strcmp(key, "use_unsloth") == 0 || strcmp(key, "use_unsloth_gc") == 0) {
        lf_off_switch(c, key, v, "Unsloth's kernels and offloaded checkpoints are not modelled");
    } else if (strcmp(key, "upcast_layernorm") == 0 || strcmp(key, "upcast_lmhead_output") == 0) {
        lf_off_switch(c, key, v, "fp32 norms / logits are not modelled");
    } else if (strcmp(key, "use_galore") == 0 || strcmp(key, "use_apollo") == 0 ||
               strcmp(key, "use_badam") == 0 || strcmp(key, "use_adam_mini") == 0 ||
               strcmp(key, "use_muon") == 0 || strcmp(key, "use_dora") == 0 ||
               strcmp(key, "use_llama_pro") == 0 || strcmp(key, "pissa_init") == 0) {
        lf_off_switch(
            c, key, v,
            "an optimizer or adapter variant gpuplan does not model (AdamW/LoRA counted)");
    } else if (strcmp(key, "additional_target") == 0) {
        if (!cfg_is_null(c, v))
            cfg_note(c, GPUPLAN_CONFIG_NOTE_NOT_EXPRESSIBLE, key, v, NULL, t,
                     "fully trained extra modules are not modelled");
    } else if (strcmp(key, "packing") == 0 || strcmp(key, "neat_packing") == 0) {
        cfg_note(c, GPUPLAN_CONFIG_NOTE_IGNORED, key, v, NULL, t,
                 "gpuplan sizes every row at cutoff_len (the packed case)");
    } else {
        return cfg_hf_training_arg(c, key, key, v);
    }
    return true;
}

enum gpuplan_status cfg_read_llama_factory(struct cfg_ctx *c, const struct cfg_node *root)
{
    for (uint32_t k = root->first; k != CFG_NONE && c->st == GPUPLAN_OK;) {
        const struct cfg_node *kn = &c->tree->nodes[k];
        const struct cfg_node *v = &c->tree->nodes[kn->next];
        const char *key = cfg_text(c->tree, kn);
        if (!lf_key(c, key, v))
            cfg_other_key(c, key, v);
        k = v->next;
    }
    return c->st;
}
