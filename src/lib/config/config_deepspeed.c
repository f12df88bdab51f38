/*
 * config_deepspeed.c - DeepSpeed config JSON and accelerate config YAML.
 *
 * DeepSpeed (deepspeedai/DeepSpeed @edaa72212, 0.19.6; keys from
 * docs/_pages/config-json.md, semantics from deepspeed/runtime/): the ZeRO
 * stage is the sharding, offload_optimizer/offload_param the offload, and
 * bf16/fp16 the 16-bit engine. engine.py _do_optimizer_sanity_check: with
 * ZeRO the bf16 engine keeps 16-bit parameters and an fp32 master partition
 * with fp32 optimizer states unless bf16_master_weights_and_grads (+
 * bf16_optimizer_states) say otherwise (precision_config.py); stage 0 with
 * bf16 wraps the optimizer in FP16_Optimizer (bf16 params, fp32 master, not
 * partitioned). "auto" values are the HF integration's: left to the other
 * file (TrainingArguments) or the stack's default.
 *
 * accelerate (huggingface/accelerate @16cb6eb8, 1.15.0.dev0;
 * commands/config/config_args.py, commands/launch.py, utils/dataclasses.py):
 * distributed_type picks DDP, FSDP (fsdp_config) or DeepSpeed
 * (deepspeed_config, or the JSON it names in deepspeed_config_file, which
 * then owns everything); mixed_precision is the autocast type; FSDP with
 * mixed precision gets a MixedPrecision policy over fp32 shards
 * (Accelerator.prepare_model upcasts trainable parameters).
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "config/config_internal.h"

struct ds_offload {
    const char *opt;   /* "cpu", "nvme", or NULL */
    const char *param; /* same */
    const struct cfg_node *at;
    char key[GPUPLAN_CONFIG_KEY_MAX];
};

static void keep(struct cfg_ctx *c, enum gpuplan_status st)
{
    if (st != GPUPLAN_OK && c->st == GPUPLAN_OK)
        c->st = st;
}

/* Walk a mapping, calling `fn` on each key; keys it does not take go to cfg_other_key. */
typedef bool (*key_fn)(struct cfg_ctx *c,
                       const char *key,
                       const char *full,
                       const struct cfg_node *v,
                       void *arg);

static void
walk(struct cfg_ctx *c, const struct cfg_node *map, const char *prefix, key_fn fn, void *arg)
{
    if (!map || map->type != CFG_MAP) {
        if (map && !cfg_is_null(c, map))
            keep(c, cfg_bad_value(c, prefix, map, "a mapping"));
        return;
    }
    for (uint32_t k = map->first; k != CFG_NONE && c->st == GPUPLAN_OK;) {
        const struct cfg_node *kn = &c->tree->nodes[k];
        const struct cfg_node *v = &c->tree->nodes[kn->next];
        const char *key = cfg_text(c->tree, kn);
        char full[GPUPLAN_CONFIG_KEY_MAX];
        cfg_join(full, sizeof full, prefix, key);
        if (!fn(c, key, full, v, arg))
            cfg_other_key(c, full, v);
        k = v->next;
    }
}

/* The DeepSpeed key relative to the config's top (the inline `deepspeed:` dict of HF args). */
static const char *ds_rel(const char *full, const char *top)
{
    const size_t n = strlen(top);
    return n && strncmp(full, top, n) == 0 && full[n] == '.' ? full + n + 1 : full;
}

struct ds_state {
    const char *top; /* "" or "deepspeed" */
    struct ds_offload off;
};

static bool offload_key(struct cfg_ctx *c,
                        const char *key,
                        const char *full,
                        const struct cfg_node *v,
                        void *arg)
{
    struct ds_state *s = arg;
    if (strcmp(key, "device") != 0)
        return false;
    const char *t = cfg_as_text(c, v);
    if (!t || (strcmp(t, "cpu") != 0 && strcmp(t, "nvme") != 0 && strcmp(t, "none") != 0)) {
        keep(c, cfg_bad_value(c, full, v, "cpu, nvme or none"));
        return true;
    }
    const bool is_opt = strstr(full, "offload_optimizer") != NULL;
    const char *dev = strcmp(t, "none") == 0 ? NULL : strcmp(t, "cpu") == 0 ? "cpu" : "nvme";
    if (is_opt)
        s->off.opt = dev;
    else
        s->off.param = dev;
    s->off.at = v;
    cfg_copy(s->off.key, sizeof s->off.key, full);
    cfg_note(c, GPUPLAN_CONFIG_NOTE_MAPPED, full, v, NULL, t, "offload device (see 'offload')");
    return true;
}

static bool ds_zero_key(struct cfg_ctx *c,
                        const char *key,
                        const char *full,
                        const struct cfg_node *v,
                        void *arg)
{
    struct ds_state *s = arg;
    bool b = false;
    if (strcmp(key, "stage") == 0) {
        uint64_t stage = 0;
        if (cfg_is_auto(c, v)) {
            cfg_note(c, GPUPLAN_CONFIG_NOTE_IGNORED, full, v, NULL, "auto", "\"auto\"");
        } else if (cfg_count(c, full, v, 0, 3, &stage) != GPUPLAN_OK) {
            keep(c, GPUPLAN_ERR_INVALID_INPUT);
        } else if (stage == 0) {
            cfg_note(
                c, GPUPLAN_CONFIG_NOTE_NOT_EXPRESSIBLE, full, v, "sharding", "0",
                "ZeRO disabled: each GPU holds a full replica (none/ddp); with bf16 DeepSpeed's "
                "FP16_Optimizer keeps bf16 params and an fp32 master, modelled as torch AMP");
        } else {
            const char *names[] = { "", "zero1", "zero2", "zero3" };
            keep(c, cfg_set(c, full, v, "sharding", names[stage], NULL));
        }
    } else if (strcmp(key, "offload_optimizer") == 0 || strcmp(key, "offload_param") == 0) {
        walk(c, v, full, offload_key, s);
    } else if (strcmp(key, "cpu_offload") == 0) {
        keep(c, cfg_bool(c, full, v, &b, NULL));
        if (b) {
            s->off.opt = "cpu";
            s->off.at = v;
            cfg_copy(s->off.key, sizeof s->off.key, full);
        }
    } else if (strcmp(key, "zero_quantized_weights") == 0 ||
               strcmp(key, "zero_quantized_gradients") == 0 ||
               strcmp(key, "zero_hpz_partition_size") == 0) {
        uint64_t n = 0;
        const bool on = (cfg_as_bool(c, v, &b) && b) || (cfg_as_u64(c, v, &n) && n > 1);
        if (on)
            cfg_note(c, GPUPLAN_CONFIG_NOTE_NOT_EXPRESSIBLE, full, v, NULL, cfg_as_text(c, v),
                     "ZeRO++ (quantised or hierarchical partitions) is not modelled");
        else
            cfg_note(c, GPUPLAN_CONFIG_NOTE_IGNORED, full, v, NULL, cfg_as_text(c, v), "off");
    } else if (strcmp(key, "mics_shard_size") == 0) {
        /* MiCS (zero/config.py mics_shard_size, default -1): ZeRO-3 sharded inside groups of
         * this many ranks, replicated across them: HYBRID_SHARD's counterpart, whose buffers
         * gpuplan does not model apart from ZeRO-3. */
        uint64_t n = 0;
        if (cfg_as_u64(c, v, &n) && n > 0)
            cfg_note(c, GPUPLAN_CONFIG_NOTE_NOT_EXPRESSIBLE, full, v, NULL, cfg_as_text(c, v),
                     "MiCS (ZeRO-3 sharded inside groups of this size) is modelled as ZeRO-3 "
                     "over every rank");
        else
            cfg_note(c, GPUPLAN_CONFIG_NOTE_IGNORED, full, v, NULL, cfg_as_text(c, v), "off");
    } else {
        if (!gpuplan_config_key_is_documented(GPUPLAN_CONFIG_DEEPSPEED, ds_rel(full, s->top)))
            return false;
        cfg_note(c, GPUPLAN_CONFIG_NOTE_IGNORED, full, v, NULL, cfg_as_text(c, v),
                 "bucket and prefetch sizes: gpuplan uses DeepSpeed's defaults");
    }
    return true;
}

static bool ds_bf16_key(struct cfg_ctx *c,
                        const char *key,
                        const char *full,
                        const struct cfg_node *v,
                        void *arg)
{
    (void)arg;
    bool b = false, is_auto = false;
    struct gpuplan_config_precision *p = &c->cfg->precision;
    if (strcmp(key, "enabled") == 0) {
        keep(c, cfg_bool(c, full, v, &b, &is_auto));
        if (is_auto)
            cfg_note(c, GPUPLAN_CONFIG_NOTE_IGNORED, full, v, NULL, "auto",
                     "\"auto\": the HF Trainer's bf16/fp16 decide");
        else if (b)
            cfg_set_mixed(c, full, v, strstr(full, "fp16") ? "fp16" : "bf16");
        else if (!p->mixed[0])
            cfg_set_mixed(c, full, v, "no");
    } else if (strcmp(key, "bf16_master_weights_and_grads") == 0) {
        keep(c, cfg_bool(c, full, v, &b, NULL));
        p->ds_master_16bit = b && !p->pure_16bit;
        cfg_note(c, GPUPLAN_CONFIG_NOTE_MAPPED, full, v, NULL, b ? "true" : "false",
                 "bf16 master weights and gradients (precision recipe)");
    } else if (strcmp(key, "bf16_optimizer_states") == 0) {
        keep(c, cfg_bool(c, full, v, &b, NULL));
        if (b) {
            p->pure_16bit = true;
            p->ds_master_16bit = false;
        }
        cfg_note(c, GPUPLAN_CONFIG_NOTE_MAPPED, full, v, NULL, b ? "true" : "false",
                 "bf16 optimizer states (with bf16 master: everything 16-bit)");
    } else {
        return false;
    }
    return true;
}

static bool
ds_key(struct cfg_ctx *c, const char *key, const char *full, const struct cfg_node *v, void *arg)
{
    struct ds_state *s = arg;
    struct gpuplan_config_layout *lay = &c->cfg->layout;
    bool b = false;
    if (strcmp(key, "train_micro_batch_size_per_gpu") == 0) {
        keep(c, cfg_set_count(c, full, v, "micro-batch", &lay->micro_batch));
    } else if (strcmp(key, "gradient_accumulation_steps") == 0) {
        keep(c, cfg_set_count(c, full, v, "grad-accum", &lay->grad_accum));
    } else if (strcmp(key, "train_batch_size") == 0) {
        uint64_t n = 0;
        if (cfg_is_auto(c, v))
            cfg_note(c, GPUPLAN_CONFIG_NOTE_IGNORED, full, v, NULL, "auto", "\"auto\"");
        else if (cfg_count(c, full, v, 1, 1ULL << 40, &n) == GPUPLAN_OK) {
            lay->global_batch = n;
            cfg_note(c, GPUPLAN_CONFIG_NOTE_MAPPED, full, v, NULL, cfg_as_text(c, v),
                     "sequences per optimizer step (layout.global_batch) = micro x accum x GPUs");
        } else {
            keep(c, GPUPLAN_ERR_INVALID_INPUT);
        }
    } else if (strcmp(key, "bf16") == 0 || strcmp(key, "bfloat16") == 0 ||
               strcmp(key, "fp16") == 0) {
        walk(c, v, full, ds_bf16_key, s);
    } else if (strcmp(key, "zero_optimization") == 0) {
        walk(c, v, full, ds_zero_key, s);
    } else if (strcmp(key, "optimizer") == 0 && v->type == CFG_MAP) {
        const struct cfg_node *type = cfg_get(c->tree, v, "type");
        const char *name = cfg_as_text(c, type), *value = NULL;
        char tkey[GPUPLAN_CONFIG_KEY_MAX];
        cfg_join(tkey, sizeof tkey, full, "type");
        if (name && cfg_hf_optimizer(name, &value))
            keep(c, cfg_set(c, tkey, type, "optimizer", value, NULL));
        else if (name)
            cfg_note(c, GPUPLAN_CONFIG_NOTE_NOT_EXPRESSIBLE, tkey, type, "optimizer", name,
                     "an optimizer gpuplan does not model; AdamW's states are counted instead");
        cfg_note(c, GPUPLAN_CONFIG_NOTE_IGNORED, full, v, NULL, NULL,
                 "optimizer.params: learning rate and betas");
    } else if (strcmp(key, "amp") == 0 || strcmp(key, "torch_autocast") == 0) {
        const struct cfg_node *en = cfg_get(c->tree, v, "enabled");
        if (en && cfg_as_bool(c, en, &b) && b) {
            if (strcmp(key, "torch_autocast") == 0) {
                cfg_set_mixed(c, full, v, "bf16");
                cfg_copy(c->cfg->precision.param_dtype, sizeof c->cfg->precision.param_dtype,
                         "fp32");
                cfg_note(c, GPUPLAN_CONFIG_NOTE_NOT_EXPRESSIBLE, full, v, "precision", "amp-bf16",
                         "torch.autocast over fp32 parameters under ZeRO: gpuplan's bf16-mixed "
                         "keeps 16-bit parameters; pass --precision amp-bf16");
            } else {
                cfg_note(c, GPUPLAN_CONFIG_NOTE_NOT_EXPRESSIBLE, full, v, NULL, "true",
                         "NVIDIA Apex AMP is not modelled");
            }
        } else {
            cfg_note(c, GPUPLAN_CONFIG_NOTE_IGNORED, full, v, NULL, NULL, "off");
        }
    } else if (strcmp(key, "tensor_parallel") == 0 && v->type == CFG_MAP) {
        const struct cfg_node *tp = cfg_get(c->tree, v, "autotp_size");
        char tkey[GPUPLAN_CONFIG_KEY_MAX];
        cfg_join(tkey, sizeof tkey, full, "autotp_size");
        if (tp) {
            uint64_t n = 0;
            if (cfg_count(c, tkey, tp, 1, 65536, &n) == GPUPLAN_OK) {
                lay->tp = (uint32_t)n;
                keep(c, cfg_set(c, tkey, tp, "tp", cfg_as_text(c, tp), NULL));
            } else {
                keep(c, GPUPLAN_ERR_INVALID_INPUT);
            }
        }
    } else if (strcmp(key, "activation_checkpointing") == 0 && v->type == CFG_MAP) {
        const struct cfg_node *pa = cfg_get(c->tree, v, "partition_activations");
        const struct cfg_node *cpu = cfg_get(c->tree, v, "cpu_checkpointing");
        const bool on =
            (pa && cfg_as_bool(c, pa, &b) && b) || (cpu && cfg_as_bool(c, cpu, &b) && b);
        cfg_note(c, on ? GPUPLAN_CONFIG_NOTE_NOT_EXPRESSIBLE : GPUPLAN_CONFIG_NOTE_IGNORED, full, v,
                 NULL, NULL, "%s",
                 on ? "partitioned or CPU activation checkpoints (Megatron-style "
                      "deepspeed.checkpointing) are not modelled"
                    : "used only by models that call deepspeed.checkpointing");
    } else if (strcmp(key, "data_types") == 0 && v->type == CFG_MAP) {
        const struct cfg_node *g = cfg_get(c->tree, v, "grad_accum_dtype");
        const char *t = cfg_as_text(c, g);
        cfg_note(c,
                 t && strcmp(t, "fp32") != 0 ? GPUPLAN_CONFIG_NOTE_NOT_EXPRESSIBLE
                                             : GPUPLAN_CONFIG_NOTE_IGNORED,
                 full, v, NULL, t, "gradient accumulation dtype");
    } else if (strcmp(key, "compile") == 0 && v->type == CFG_MAP) {
        cfg_note(c, GPUPLAN_CONFIG_NOTE_NOT_EXPRESSIBLE, full, v, NULL, NULL,
                 "DeepCompile passes are not modelled");
    } else {
        if (!gpuplan_config_key_is_documented(GPUPLAN_CONFIG_DEEPSPEED, ds_rel(full, s->top)))
            return false;
        cfg_note(c, GPUPLAN_CONFIG_NOTE_IGNORED, full, v, NULL, cfg_as_text(c, v),
                 "documented by deepspeed; no effect on memory or time in gpuplan's model");
    }
    return true;
}

/* offload_optimizer + offload_param -> one --offload value. */
static void ds_apply_offload(struct cfg_ctx *c, const struct ds_offload *o)
{
    if (!o->at)
        return;
    const char *value = NULL;
    if ((o->opt && strcmp(o->opt, "nvme") == 0) || (o->param && strcmp(o->param, "nvme") == 0))
        value = "nvme";
    else if (o->opt && o->param)
        value = "optimizer+params";
    else if (o->opt)
        value = "optimizer";
    else if (o->param)
        value = "params";
    else
        value = "none";
    keep(c, cfg_set(c, o->key, o->at, "offload", value, NULL));
}

enum gpuplan_status
cfg_read_deepspeed(struct cfg_ctx *c, const struct cfg_node *root, const char *prefix)
{
    struct ds_state s;
    memset(&s, 0, sizeof s);
    s.top = prefix;
    walk(c, root, prefix, ds_key, &s);
    ds_apply_offload(c, &s.off);
    return c->st;
}

/* ---- accelerate ---- */

struct acc_state {
    const char *distributed_type;
    const struct cfg_node *dt_node;
    bool has_zero_stage, has_fsdp_strategy, has_ds_file;
    struct ds_offload off;
};

static bool acc_ds_key(struct cfg_ctx *c,
                       const char *key,
                       const char *full,
                       const struct cfg_node *v,
                       void *arg)
{
    struct acc_state *s = arg;
    if (strcmp(key, "zero_stage") == 0) {
        uint64_t stage = 0;
        s->has_zero_stage = true;
        if (cfg_count(c, full, v, 0, 3, &stage) != GPUPLAN_OK) {
            keep(c, GPUPLAN_ERR_INVALID_INPUT);
        } else if (stage == 0) {
            cfg_note(c, GPUPLAN_CONFIG_NOTE_NOT_EXPRESSIBLE, full, v, "sharding", "0",
                     "ZeRO disabled: modelled as DDP");
            keep(c, cfg_set(c, full, v, "sharding", "ddp", NULL));
        } else {
            const char *names[] = { "", "zero1", "zero2", "zero3" };
            keep(c, cfg_set(c, full, v, "sharding", names[stage], NULL));
        }
    } else if (strcmp(key, "offload_optimizer_device") == 0 ||
               strcmp(key, "offload_param_device") == 0) {
        const char *t = cfg_as_text(c, v);
        if (!t || (strcmp(t, "none") != 0 && strcmp(t, "cpu") != 0 && strcmp(t, "nvme") != 0)) {
            keep(c, cfg_bad_value(c, full, v, "none, cpu or nvme"));
            return true;
        }
        const char *dev = strcmp(t, "none") == 0 ? NULL : t;
        if (key[8] == 'o')
            s->off.opt = dev;
        else
            s->off.param = dev;
        s->off.at = v;
        cfg_copy(s->off.key, sizeof s->off.key, full);
        cfg_note(c, GPUPLAN_CONFIG_NOTE_MAPPED, full, v, NULL, t, "offload device (see 'offload')");
    } else if (strcmp(key, "gradient_accumulation_steps") == 0) {
        keep(c, cfg_set_count(c, full, v, "grad-accum", &c->cfg->layout.grad_accum));
    } else if (strcmp(key, "deepspeed_config_file") == 0) {
        const char *t = cfg_as_text(c, v);
        if (t && t[0]) {
            s->has_ds_file = true;
            cfg_copy(c->cfg->referenced_path, sizeof c->cfg->referenced_path, t);
            cfg_note(
                c, GPUPLAN_CONFIG_NOTE_MAPPED, full, v, NULL, t,
                "the DeepSpeed JSON to read next (referenced_path); it owns the ZeRO settings");
        }
    } else {
        return false;
    }
    return true;
}

static bool acc_dynamo_key(struct cfg_ctx *c,
                           const char *key,
                           const char *full,
                           const struct cfg_node *v,
                           void *arg)
{
    (void)arg;
    bool b = false;
    if (strcmp(key, "dynamo_backend") == 0) {
        const char *t = cfg_as_text(c, v);
        if (!t)
            return false;
        const bool off = strcasecmp(t, "NO") == 0;
        keep(c, cfg_set(c, full, v, "compile", off ? "no" : "yes",
                        off ? NULL : "accelerate compiles the model (the HF loss is inside it)"));
    } else if (strcmp(key, "dynamo_use_regional_compilation") == 0) {
        keep(c, cfg_bool(c, full, v, &b, NULL));
        const char *backend = cfg_mapped(c->cfg, "compile");
        if (b && backend && strcmp(backend, "yes") == 0)
            keep(c, cfg_set(c, full, v, "compile", "blocks",
                            "regional compilation: the repeated blocks only"));
    } else {
        return false;
    }
    return true;
}

static bool acc_parallel_key(struct cfg_ctx *c,
                             const char *key,
                             const char *full,
                             const struct cfg_node *v,
                             void *arg)
{
    (void)arg;
    uint64_t n = 0;
    const bool tp = strstr(key, "tp_size") || strstr(key, "tp_degree");
    const bool pp = strstr(key, "pp_degree") != NULL;
    const bool cp = strstr(key, "cp_size") || strstr(key, "sp_size");
    if (!tp && !pp && !cp)
        return false;
    if (cfg_count(c, full, v, 1, 65536, &n) != GPUPLAN_OK) {
        keep(c, GPUPLAN_ERR_INVALID_INPUT);
        return true;
    }
    if (cp) {
        cfg_note(c, n > 1 ? GPUPLAN_CONFIG_NOTE_NOT_EXPRESSIBLE : GPUPLAN_CONFIG_NOTE_IGNORED, full,
                 v, NULL, cfg_as_text(c, v), "context/sequence parallelism is not modelled");
        return true;
    }
    if (tp)
        c->cfg->layout.tp = (uint32_t)n;
    else
        c->cfg->layout.pp = (uint32_t)n;
    keep(c, cfg_set(c, full, v, tp ? "tp" : "pp", cfg_as_text(c, v), NULL));
    return true;
}

static void acc_distributed_type(struct cfg_ctx *c,
                                 struct acc_state *s,
                                 const char *full,
                                 const struct cfg_node *v)
{
    const char *t = cfg_as_text(c, v);
    if (!t) {
        keep(c, cfg_bad_value(c, full, v, "NO, MULTI_GPU, FSDP, DEEPSPEED, ..."));
        return;
    }
    s->distributed_type = t;
    s->dt_node = v;
    if (strcmp(t, "NO") == 0)
        keep(c, cfg_set(c, full, v, "sharding", "none", NULL));
    else if (strcmp(t, "MULTI_GPU") == 0)
        keep(c, cfg_set(c, full, v, "sharding", "ddp", NULL));
    else if (strcmp(t, "FSDP") == 0)
        keep(c, cfg_set(c, full, v, "sharding", "fsdp", "FULL_SHARD unless fsdp_config says"));
    else if (strcmp(t, "DEEPSPEED") == 0)
        cfg_note(c, GPUPLAN_CONFIG_NOTE_MAPPED, full, v, NULL, t, "DeepSpeed (deepspeed_config)");
    else
        cfg_note(c, GPUPLAN_CONFIG_NOTE_NOT_EXPRESSIBLE, full, v, "sharding", t,
                 "a backend gpuplan does not model (CPU, XLA/TPU, Megatron-LM, ...)");
}

static bool
acc_key(struct cfg_ctx *c, const char *key, const char *full, const struct cfg_node *v, void *arg)
{
    struct acc_state *s = arg;
    struct gpuplan_config_layout *lay = &c->cfg->layout;
    uint64_t n = 0;
    bool b = false;
    if (strcmp(key, "distributed_type") == 0) {
        acc_distributed_type(c, s, full, v);
    } else if (strcmp(key, "mixed_precision") == 0) {
        const char *t = cfg_as_text(c, v);
        if (!t || (strcmp(t, "no") != 0 && strcmp(t, "bf16") != 0 && strcmp(t, "fp16") != 0 &&
                   strcmp(t, "fp8") != 0))
            keep(c, cfg_bad_value(c, full, v, "no, fp16, bf16 or fp8"));
        else
            cfg_set_mixed(c, full, v, t);
    } else if (strcmp(key, "num_processes") == 0 || strcmp(key, "num_machines") == 0) {
        const char *t = cfg_as_text(c, v);
        if (cfg_is_null(c, v) || (t && strcmp(t, "-1") == 0)) {
            cfg_note(c, GPUPLAN_CONFIG_NOTE_IGNORED, full, v, NULL, t, "every visible GPU");
        } else if (cfg_count(c, full, v, 1, 1U << 20, &n) != GPUPLAN_OK) {
            keep(c, GPUPLAN_ERR_INVALID_INPUT);
        } else {
            if (key[4] == 'p')
                lay->world_size = (uint32_t)n;
            else
                lay->n_nodes = (uint32_t)n;
            cfg_note(c, GPUPLAN_CONFIG_NOTE_MAPPED, full, v, NULL, t,
                     "layout (world size / nodes); the GPU count comes with --gpu ID:N");
        }
    } else if (strcmp(key, "use_cpu") == 0) {
        keep(c, cfg_bool(c, full, v, &b, NULL));
        if (b)
            cfg_note(c, GPUPLAN_CONFIG_NOTE_NOT_EXPRESSIBLE, full, v, NULL, "true",
                     "training on the CPU is not modelled");
    } else if (strcmp(key, "fsdp_config") == 0) {
        s->has_fsdp_strategy = cfg_get(c->tree, v, "fsdp_sharding_strategy") ||
                               cfg_get(c->tree, v, "fsdp_reshard_after_forward");
        if (s->distributed_type && strcmp(s->distributed_type, "FSDP") == 0)
            keep(c, cfg_fsdp_config(c, full, v));
        else
            cfg_note(c, GPUPLAN_CONFIG_NOTE_IGNORED, full, v, NULL, NULL,
                     "distributed_type is not FSDP: unused");
    } else if (strcmp(key, "deepspeed_config") == 0) {
        if (s->distributed_type && strcmp(s->distributed_type, "DEEPSPEED") == 0)
            walk(c, v, full, acc_ds_key, s);
        else
            cfg_note(c, GPUPLAN_CONFIG_NOTE_IGNORED, full, v, NULL, NULL,
                     "distributed_type is not DEEPSPEED: unused");
    } else if (strcmp(key, "dynamo_config") == 0) {
        walk(c, v, full, acc_dynamo_key, s);
    } else if (strcmp(key, "parallelism_config") == 0 || strcmp(key, "megatron_lm_config") == 0) {
        walk(c, v, full, acc_parallel_key, s);
    } else {
        return false;
    }
    return true;
}

enum gpuplan_status cfg_read_accelerate(struct cfg_ctx *c, const struct cfg_node *root)
{
    struct acc_state s;
    memset(&s, 0, sizeof s);
    /* distributed_type decides how fsdp_config / deepspeed_config are read: take it first. */
    const struct cfg_node *dt = cfg_get(c->tree, root, "distributed_type");
    if (dt)
        s.distributed_type = cfg_as_text(c, dt);
    walk(c, root, "", acc_key, &s);
    if (c->st != GPUPLAN_OK)
        return c->st;
    const struct gpuplan_config_layout *lay = &c->cfg->layout;
    if (lay->world_size && lay->n_nodes && lay->world_size % lay->n_nodes == 0)
        c->cfg->layout.gpus_per_node = lay->world_size / lay->n_nodes;
    if (s.distributed_type && strcmp(s.distributed_type, "DEEPSPEED") == 0 && !s.has_ds_file) {
        if (!s.has_zero_stage)
            keep(c, cfg_set_default(c, "deepspeed_config.zero_stage", "sharding", "zero2",
                                    SRC_ACC_D " (ACCELERATE_DEEPSPEED_ZERO_STAGE, default 2)"));
        ds_apply_offload(c, &s.off);
    }
    if (s.distributed_type && strcmp(s.distributed_type, "FSDP") == 0 && !s.has_fsdp_strategy)
        cfg_note(c, GPUPLAN_CONFIG_NOTE_DEFAULT, "fsdp_config.fsdp_sharding_strategy", NULL,
                 "sharding", "fsdp", SRC_ACC_L " (FULL_SHARD; FSDP2 reshard_after_forward true)");
    return c->st;
}
