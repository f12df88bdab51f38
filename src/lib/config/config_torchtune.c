/*
 * config_torchtune.c - torchtune recipe config YAML (pytorch/torchtune
 * @bd2a0fc7c, 0.7.0; keys from recipes/configs/ (every .yaml) and the
 * recipes/{full,lora}_finetune_{single_device,distributed}.py that read them).
 *
 * The method comes from the model builder (model._component_:
 * llama3_1_8b / lora_llama3_1_8b / qlora_llama3_1_8b), LoRA settings from
 * its arguments (lora_attn_modules, apply_lora_to_mlp, lora_rank, ...),
 * QLoRA storage is torchao NF4. dtype is what everything is stored in
 * (training.get_dtype: pure bf16, no fp32 master), batch_size the
 * micro-batch, tokenizer.max_seq_len the sequence length (null: the data's).
 * The distributed recipes shard with FSDP2: keys only they read
 * (custom_sharded_layers, fsdp_cpu_offload, ...) say the config is one.
 */
#include <stdio.h>
#include <string.h>

#include "config/config_internal.h"

static void keep(struct cfg_ctx *c, enum gpuplan_status st)
{
    if (st != GPUPLAN_OK && c->st == GPUPLAN_OK)
        c->st = st;
}

/* torchtune module names -> PEFT names gpuplan knows (Llama: output_proj = o_proj, w1/w3/w2). */
static const char *tt_module(const char *m)
{
    if (strcmp(m, "output_proj") == 0)
        return "o_proj";
    if (strcmp(m, "q_proj") == 0 || strcmp(m, "k_proj") == 0 || strcmp(m, "v_proj") == 0)
        return m;
    return NULL;
}

struct tt_lora {
    char targets[GPUPLAN_CONFIG_VALUE_MAX];
    const struct cfg_node *at;
    bool mlp;
};

static void tt_append(char *list, size_t size, const char *m)
{
    const size_t used = strlen(list);
    if (used + strlen(m) + 2 < size)
        (void)snprintf(list + used, size - used, "%s%s", used ? "," : "", m);
}

static void tt_model(struct cfg_ctx *c, const char *prefix, const struct cfg_node *map)
{
    struct tt_lora lora;
    memset(&lora, 0, sizeof lora);
    for (uint32_t k = map->first; k != CFG_NONE && c->st == GPUPLAN_OK;) {
        const struct cfg_node *kn = &c->tree->nodes[k];
        const struct cfg_node *v = &c->tree->nodes[kn->next];
        const char *key = cfg_text(c->tree, kn);
        const char *t = cfg_as_text(c, v);
        char full[GPUPLAN_CONFIG_KEY_MAX];
        bool b = false;
        cfg_join(full, sizeof full, prefix, key);
        if (strcmp(key, "_component_") == 0 && t) {
            cfg_copy(c->cfg->model_builder, sizeof c->cfg->model_builder, t);
            const char *base = strrchr(t, '.');
            base = base ? base + 1 : t;
            const char *method = strncmp(base, "qlora_", 6) == 0  ? "qlora"
                                 : strncmp(base, "lora_", 5) == 0 ? "lora"
                                                                  : "full";
            keep(c, cfg_set(c, full, v, "method", method, "from the model builder's name"));
        } else if (strcmp(key, "lora_rank") == 0) {
            keep(c, cfg_set_count(c, full, v, "lora-rank", NULL));
        } else if ((strcmp(key, "lora_alpha") == 0 || strcmp(key, "lora_dropout") == 0) && t) {
            keep(c, cfg_set(c, full, v, key[5] == 'a' ? "lora-alpha" : "lora-dropout", t, NULL));
        } else if (strcmp(key, "lora_attn_modules") == 0 && v->type == CFG_SEQ) {
            lora.at = v;
            for (uint32_t i = v->first; i != CFG_NONE; i = c->tree->nodes[i].next) {
                const char *m = cfg_as_text(c, &c->tree->nodes[i]);
                const char *peft = m ? tt_module(m) : NULL;
                if (peft)
                    tt_append(lora.targets, sizeof lora.targets, peft);
                else
                    cfg_note(c, GPUPLAN_CONFIG_NOTE_NOT_EXPRESSIBLE, full, v, NULL, m,
                             "an attention module gpuplan has no role for");
            }
        } else if (strcmp(key, "apply_lora_to_mlp") == 0) {
            keep(c, cfg_bool(c, full, v, &lora.mlp, NULL));
            if (!lora.at)
                lora.at = v;
        } else if (strcmp(key, "apply_lora_to_output") == 0 || strcmp(key, "use_dora") == 0) {
            keep(c, cfg_bool(c, full, v, &b, NULL));
            cfg_note(c, b ? GPUPLAN_CONFIG_NOTE_NOT_EXPRESSIBLE : GPUPLAN_CONFIG_NOTE_IGNORED, full,
                     v, NULL, b ? "true" : "false", "%s",
                     b ? "LoRA on the output head / DoRA is not modelled" : "off");
        } else if (strcmp(key, "quantize_base") == 0) {
            keep(c, cfg_bool(c, full, v, &b, NULL));
            if (b)
                keep(c, cfg_set(c, full, v, "method", "qlora", NULL));
        } else {
            cfg_other_key(c, full, v);
        }
        k = v->next;
    }
    if (lora.mlp)
        tt_append(lora.targets, sizeof lora.targets, "gate_proj,up_proj,down_proj");
    if (lora.targets[0] && c->st == GPUPLAN_OK) {
        char key[GPUPLAN_CONFIG_KEY_MAX];
        cfg_join(key, sizeof key, prefix, "lora_attn_modules");
        keep(c, cfg_set(c, key, lora.at, "lora-targets", lora.targets,
                        "w1/w3/w2 are gate/up/down, output_proj is o_proj"));
    }
}

static void tt_component(struct cfg_ctx *c, const char *prefix, const struct cfg_node *map)
{
    const struct cfg_node *comp = cfg_get(c->tree, map, "_component_");
    const char *t = cfg_as_text(c, comp);
    char full[GPUPLAN_CONFIG_KEY_MAX];
    cfg_join(full, sizeof full, prefix, "_component_");
    if (strcmp(prefix, "optimizer") == 0 && t) {
        const char *value = NULL;
        if (cfg_hf_optimizer(t, &value) || (strstr(t, "AdamW8bit") && (value = "adamw-8bit")))
            keep(c, cfg_set(c, full, comp, "optimizer", value, NULL));
        else
            cfg_note(c, GPUPLAN_CONFIG_NOTE_NOT_EXPRESSIBLE, full, comp, "optimizer", t,
                     "an optimizer gpuplan does not model; AdamW's states are counted instead");
    } else if (strcmp(prefix, "loss") == 0 && t) {
        const bool chunked = strstr(t, "Chunked") || strstr(t, "LinearCrossEntropy");
        keep(c, cfg_set(c, full, comp, "chunked-ce", chunked ? "yes" : "no",
                        chunked ? "the loss upcasts the logits one chunk at a time" : NULL));
    }
    for (uint32_t k = map->first; k != CFG_NONE && c->st == GPUPLAN_OK;) {
        const struct cfg_node *kn = &c->tree->nodes[k];
        const struct cfg_node *v = &c->tree->nodes[kn->next];
        const char *key = cfg_text(c->tree, kn);
        char sub[GPUPLAN_CONFIG_KEY_MAX];
        cfg_join(sub, sizeof sub, prefix, key);
        if (strcmp(prefix, "tokenizer") == 0 && strcmp(key, "max_seq_len") == 0) {
            if (cfg_is_null(c, v))
                cfg_note(c, GPUPLAN_CONFIG_NOTE_NOT_EXPRESSIBLE, sub, v, "seq-len", NULL,
                         "null: no truncation, the sequence length is the data's; pass --seq-len");
            else
                keep(c, cfg_set_count(c, sub, v, "seq-len", NULL));
        } else if (strcmp(prefix, "dataset") == 0 && strcmp(key, "packed") == 0) {
            cfg_note(c, GPUPLAN_CONFIG_NOTE_IGNORED, sub, v, NULL, cfg_as_text(c, v),
                     "gpuplan sizes every row at max_seq_len (the packed case)");
        } else if (strcmp(prefix, "checkpointer") == 0 && strcmp(key, "checkpoint_dir") == 0 &&
                   cfg_as_text(c, v)) {
            cfg_copy(c->cfg->model_id, sizeof c->cfg->model_id, cfg_as_text(c, v));
            cfg_note(c, GPUPLAN_CONFIG_NOTE_MAPPED, sub, v, NULL, cfg_as_text(c, v),
                     "the model (model_id: a local checkpoint folder)");
        } else if (strcmp(key, "_component_") != 0 ||
                   (strcmp(prefix, "optimizer") != 0 && strcmp(prefix, "loss") != 0)) {
            cfg_other_key(c, sub, v);
        }
        k = v->next;
    }
}

static void tt_compile(struct cfg_ctx *c, const char *key, const struct cfg_node *v)
{
    bool b = false;
    if (v->type != CFG_MAP) {
        keep(c, cfg_bool(c, key, v, &b, NULL));
        keep(c, cfg_set(c, key, v, "compile", b ? "yes" : "no",
                        b ? "the recipes compile the model and the loss" : NULL));
        return;
    }
    bool model = false, loss = false;
    const struct cfg_node *m = cfg_get(c->tree, v, "model");
    const struct cfg_node *l = cfg_get(c->tree, v, "loss");
    (void)cfg_as_bool(c, m, &model);
    (void)cfg_as_bool(c, l, &loss);
    keep(c, cfg_set(c, key, v, "compile", model ? (loss ? "yes" : "blocks") : "no", NULL));
}

static void tt_count(struct cfg_ctx *c,
                     const char *key,
                     const struct cfg_node *v,
                     uint32_t *out,
                     const char *setting)
{
    uint64_t n = 0;
    if (cfg_count(c, key, v, 1, 65536, &n) != GPUPLAN_OK) {
        keep(c, GPUPLAN_ERR_INVALID_INPUT);
        return;
    }
    if (out)
        *out = (uint32_t)n;
    if (setting)
        keep(c, cfg_set(c, key, v, setting, cfg_as_text(c, v), NULL));
}

static bool tt_distributed_key(struct cfg_ctx *c, const char *key, const struct cfg_node *v)
{
    bool b = false;
    uint64_t n = 0;
    if (strcmp(key, "fsdp_cpu_offload") == 0) {
        keep(c, cfg_bool(c, key, v, &b, NULL));
        keep(c, cfg_set(c, key, v, "offload", b ? "params" : "none",
                        b ? "FSDP2 CPUOffloadPolicy: shards, gradients and the optimizer step on "
                            "the CPU"
                          : NULL));
    } else if (strcmp(key, "custom_sharded_layers") == 0) {
        const bool on = v->type == CFG_SEQ && v->n_children > 0;
        keep(c, cfg_set(c, key, v, "fsdp-wrap", on ? "layers+embeddings" : "layers", NULL));
    } else if (strcmp(key, "fsdp_reshard_after_forward") == 0) {
        keep(c, cfg_bool(c, key, v, &b, NULL));
        if (!b)
            keep(c, cfg_set(c, key, v, "sharding", "zero2",
                            "no reshard after forward: modelled as ZeRO-2"));
    } else if (strcmp(key, "tensor_parallel_dim") == 0) {
        tt_count(c, key, v, &c->cfg->layout.tp, "tp");
    } else if (strcmp(key, "data_parallel_replicate_dim") == 0) {
        if (cfg_as_u64(c, v, &n) && n > 1)
            keep(c, cfg_set(c, key, v, "sharding", "fsdp-hybrid", "HSDP: replicate x shard"));
    } else if (strcmp(key, "context_parallel_dim") == 0) {
        cfg_note(c,
                 cfg_as_u64(c, v, &n) && n > 1 ? GPUPLAN_CONFIG_NOTE_NOT_EXPRESSIBLE
                                               : GPUPLAN_CONFIG_NOTE_IGNORED,
                 key, v, NULL, cfg_as_text(c, v), "context parallelism is not modelled");
    } else if (strcmp(key, "data_parallel_shard_dim") == 0 ||
               strcmp(key, "tensor_parallel_plan") == 0) {
        cfg_note(c, GPUPLAN_CONFIG_NOTE_IGNORED, key, v, NULL, cfg_as_text(c, v),
                 "device-mesh layout (the GPU count comes with --gpu ID:N)");
    } else {
        return false;
    }
    return true;
}

static bool tt_key(struct cfg_ctx *c, const char *key, const struct cfg_node *v)
{
    bool b = false;
    const char *t = cfg_as_text(c, v);
    struct gpuplan_config_layout *lay = &c->cfg->layout;
    if (strcmp(key, "model") == 0 && v->type == CFG_MAP) {
        tt_model(c, key, v);
    } else if (v->type == CFG_MAP && cfg_get(c->tree, v, "_component_")) {
        tt_component(c, key, v);
    } else if (strcmp(key, "batch_size") == 0) {
        keep(c, cfg_set_count(c, key, v, "micro-batch", &lay->micro_batch));
    } else if (strcmp(key, "gradient_accumulation_steps") == 0) {
        keep(c, cfg_set_count(c, key, v, "grad-accum", &lay->grad_accum));
    } else if (strcmp(key, "epochs") == 0) {
        keep(c, cfg_set_count(c, key, v, "epochs", NULL));
    } else if (strcmp(key, "dtype") == 0) {
        const char *d = NULL;
        if (!t || !cfg_dtype_name(t, &d)) {
            keep(c, cfg_bad_value(c, key, v, "bf16 or fp32"));
        } else {
            cfg_set_mixed(c, key, v, "no");
            cfg_set_param_dtype(c, key, v, d);
            c->cfg->precision.pure_16bit = strcmp(d, "fp32") != 0;
        }
    } else if (strcmp(key, "enable_activation_checkpointing") == 0) {
        keep(c, cfg_bool(c, key, v, &b, NULL));
        if (!b || !cfg_mapped(c->cfg, "grad-ckpt"))
            keep(c, cfg_set(c, key, v, "grad-ckpt", b ? "full" : "none", NULL));
    } else if (strcmp(key, "ac_mode") == 0) {
        if (t && strcmp(t, "selective") == 0)
            keep(c, cfg_set(c, key, v, "grad-ckpt", "selective", NULL));
        else
            cfg_note(c, GPUPLAN_CONFIG_NOTE_IGNORED, key, v, NULL, t, "full checkpointing");
    } else if (strcmp(key, "ac_option") == 0) {
        cfg_note(c, GPUPLAN_CONFIG_NOTE_IGNORED, key, v, NULL, t,
                 "which layers selective checkpointing skips: gpuplan models the op-level kind");
    } else if (strcmp(key, "enable_activation_offloading") == 0) {
        keep(c, cfg_bool(c, key, v, &b, NULL));
        keep(c, cfg_set(c, key, v, "act-offload", b ? "yes" : "no", NULL));
    } else if (strcmp(key, "compile") == 0) {
        tt_compile(c, key, v);
    } else if (strcmp(key, "optimizer_in_bwd") == 0) {
        keep(c, cfg_bool(c, key, v, &b, NULL));
        keep(c, cfg_set(c, key, v, "optim-in-bwd", b ? "yes" : "no", NULL));
    } else if (tt_distributed_key(c, key, v)) {
        return true;
    } else {
        return false;
    }
    return true;
}

static bool is_distributed(const struct cfg_ctx *c, const struct cfg_node *root)
{
    static const char *const keys[] = { "custom_sharded_layers",       "fsdp_cpu_offload",
                                        "fsdp_reshard_after_forward",  "data_parallel_shard_dim",
                                        "data_parallel_replicate_dim", "tensor_parallel_dim" };
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        if (cfg_get(c->tree, root, keys[i]))
            return true;
    }
    return false;
}

enum gpuplan_status cfg_read_torchtune(struct cfg_ctx *c, const struct cfg_node *root)
{
    const bool single = c->name && strstr(c->name, "single_device");
    if (is_distributed(c, root) && !single)
        keep(c, cfg_set(c, "(recipe)", NULL, "sharding", "fsdp",
                        "keys only the *_distributed recipes read: FSDP2 fully_shard"));
    else if (!single)
        cfg_note(c, GPUPLAN_CONFIG_NOTE_NOT_EXPRESSIBLE, "(recipe)", NULL, "sharding", NULL,
                 "the config does not say which recipe runs it: the *_distributed recipes shard "
                 "with FSDP2 (pass --sharding fsdp), the *_single_device ones do not");
    for (uint32_t k = root->first; k != CFG_NONE && c->st == GPUPLAN_OK;) {
        const struct cfg_node *kn = &c->tree->nodes[k];
        const struct cfg_node *v = &c->tree->nodes[kn->next];
        const char *key = cfg_text(c->tree, kn);
        if (!tt_key(c, key, v))
            cfg_other_key(c, key, v);
        k = v->next;
    }
    if (c->st == GPUPLAN_OK && !cfg_get(c->tree, root, "dtype"))
        c->cfg->precision.pure_16bit = false;
    return c->st;
}
