/*
 * emit_frameworks.c - the trainers' own config files: axolotl YAML,
 * LLaMA-Factory YAML, torchtune recipe YAML, and a TRL SFTConfig + PEFT
 * LoraConfig JSON.
 *
 * Each writes the keys that set what gpuplan's memory and time model counts
 * (docs/emit.md lists them per kind), in the vocabulary and at the versions
 * the config readers cite (docs/configs.md), so `gpuplan estimate --from`
 * reads the plan back (tests/suites/roundtrip.sh). What the plan does not
 * decide (datasets, output folders, learning rates) is the user's and is not
 * written, except a learning rate where the engine's component needs one.
 * Precision per trainer (docs/emit.md "Precision"):
 *   axolotl: bf16 loads the weights in bf16 (utils/config resolve_dtype);
 *     bfloat16 without bf16 is pure bf16 (no autocast);
 *   LLaMA-Factory: bf16 is the compute dtype, trainable parameters upcast
 *     to fp32 (model/adapter.py) unless pure_bf16;
 *   torchtune: dtype bf16 is pure bf16 (training/precision.py get_dtype);
 *   TRL: bf16 + the model_init_kwargs dtype, as emit_hf_precision says.
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "render/emit_internal.h"
#include "util/json_internal.h"

#define EMIT_MAX_TARGETS 16

/* A YAML double-quoted scalar (the JSON escapes, which YAML 1.1 shares for these). */
static void yaml_str(struct gpuplan_buf *out, const char *s)
{
    gpuplan_buf_puts(out, "\"");
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            gpuplan_buf_printf(out, "\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            gpuplan_buf_printf(out, "\\x%02x", (unsigned)(unsigned char)*s);
        else
            gpuplan_buf_printf(out, "%c", *s);
    }
    gpuplan_buf_puts(out, "\"");
}

static const char *yes(bool b)
{
    return b ? "true" : "false";
}

static bool lora(const struct gpuplan_job *j)
{
    return j->method == GPUPLAN_METHOD_LORA || j->method == GPUPLAN_METHOD_QLORA;
}

static const char *model_name(const struct gpuplan_plan *plan)
{
    return plan->hub_id[0] ? plan->hub_id : plan->model_id;
}

/* Epochs as a count the YAML files take: whole epochs where they are whole. */
static void put_epochs(struct gpuplan_buf *out, const char *key, double epochs)
{
    gpuplan_buf_printf(out, "%s: %.6g\n", key, epochs > 0.0 ? epochs : 1.0);
}

/* YAML flow list of the LoRA target modules. */
static void yaml_targets(struct gpuplan_buf *out, const struct gpuplan_job *j)
{
    char mods[EMIT_MAX_TARGETS][32];
    const size_t n = emit_lora_modules(j, mods, EMIT_MAX_TARGETS);
    gpuplan_buf_puts(out, "[");
    for (size_t i = 0; i < n; i++)
        gpuplan_buf_printf(out, "%s%s", i ? ", " : "", mods[i]);
    gpuplan_buf_puts(out, "]");
}

static bool all_linear(const struct gpuplan_job *j)
{
    return strcmp(j->lora_targets, "all-linear") == 0 || strcmp(j->lora_targets, "all") == 0;
}

/* ---- axolotl (utils/schemas @067b021c8, 0.18.0) ---- */

static void axolotl_precision(const struct gpuplan_plan *plan, struct gpuplan_buf *out)
{
    const struct gpuplan_job *j = &plan->job;
    switch (j->precision) {
    case GPUPLAN_PRECISION_BF16:
        /* ZeRO: the DS JSON's flags keep everything 16-bit; else bf16 weights, no autocast */
        if (emit_zero_stage(j->sharding) > 0)
            gpuplan_buf_puts(out, "bf16: true\n");
        else
            gpuplan_buf_puts(out, "bf16: false\nbfloat16: true\n");
        break;
    case GPUPLAN_PRECISION_FP16_MIXED:
        gpuplan_buf_puts(out, "bf16: false\nfp16: true\n");
        break;
    case GPUPLAN_PRECISION_FP32:
        gpuplan_buf_puts(out, "bf16: false\nfp16: false\n");
        break;
    default: /* bf16-mixed (checked: LoRA, FSDP or ZeRO) */
        gpuplan_buf_puts(out, "bf16: true\n");
        break;
    }
}

static void axolotl_fsdp(const struct gpuplan_plan *plan, struct gpuplan_buf *out)
{
    const struct gpuplan_job *j = &plan->job;
    const char *cls = emit_wrap_class(plan->model_family);
    gpuplan_buf_puts(out, "fsdp_version: 2\nfsdp_config:\n  reshard_after_forward: true\n");
    gpuplan_buf_printf(out,
                       "  offload_params: %s\n"
                       "  auto_wrap_policy: TRANSFORMER_BASED_WRAP\n",
                       yes(emit_offloads_params(j->offload)));
    if (cls)
        gpuplan_buf_printf(out, "  transformer_layer_cls_to_wrap: %s\n", cls);
    gpuplan_buf_puts(out, "  state_dict_type: SHARDED_STATE_DICT\n");
}

enum gpuplan_status
emit_axolotl(const struct gpuplan_plan *plan, struct gpuplan_buf *out, struct gpuplan_error *err)
{
    const struct gpuplan_job *j = &plan->job;
    gpuplan_buf_printf(out,
                       "# %s on %u x %s: axolotl train this.yaml (add datasets and output_dir)\n"
                       "base_model: ",
                       plan->model_id, emit_n_gpus(plan), emit_gpu_id(plan));
    yaml_str(out, model_name(plan));
    gpuplan_buf_printf(out,
                       "\nsequence_len: %llu\n"
                       "micro_batch_size: %llu\n"
                       "gradient_accumulation_steps: %llu\n",
                       (unsigned long long)j->seq_len, (unsigned long long)j->micro_batch,
                       (unsigned long long)j->grad_accum);
    put_epochs(out, "num_epochs", j->epochs);
    gpuplan_buf_printf(out, "optimizer: %s\n", emit_hf_optim(j->optimizer));
    if (lora(j)) {
        const bool q = j->method == GPUPLAN_METHOD_QLORA;
        gpuplan_buf_printf(out, "adapter: %s\n", q ? "qlora" : "lora");
        if (q && j->quant == GPUPLAN_DTYPE_INT8)
            gpuplan_buf_puts(out, "load_in_8bit: true\n");
        else if (q) /* NF4 with double quantisation: axolotl's default (loaders/model.py) */
            gpuplan_buf_puts(out, "load_in_4bit: true\n");
        gpuplan_buf_printf(out, "lora_r: %u\nlora_alpha: %.6g\nlora_dropout: %.6g\n", j->lora_rank,
                           j->lora_alpha, j->lora_dropout);
        if (all_linear(j)) {
            gpuplan_buf_puts(out, "lora_target_linear: true\n");
        } else {
            gpuplan_buf_puts(out, "lora_target_modules: ");
            yaml_targets(out, j);
            gpuplan_buf_puts(out, "\n");
        }
    }
    axolotl_precision(plan, out);
    gpuplan_buf_printf(out, "gradient_checkpointing: %s\n", yes(j->grad_ckpt != GPUPLAN_CKPT_NONE));
    gpuplan_buf_printf(out, "activation_offloading: %s\n", yes(j->act_offload));
    gpuplan_buf_printf(out, "%s: true\n",
                       j->attention == GPUPLAN_ATTN_FLASH   ? "flash_attention"
                       : j->attention == GPUPLAN_ATTN_EAGER ? "eager_attention"
                                                            : "sdp_attention");
    gpuplan_buf_printf(out, "torch_compile: %s\n", yes(j->compile));
    if (j->chunked_ce)
        gpuplan_buf_puts(out, "chunked_cross_entropy: true\n");
    if (j->tp > 1)
        gpuplan_buf_printf(out, "tensor_parallel_size: %u\n", j->tp);
    if (emit_zero_stage(j->sharding) > 0)
        gpuplan_buf_printf(out, "deepspeed: %s   # gpuplan emit deepspeed\n", EMIT_DS_FILE);
    else if (emit_is_fsdp(j->sharding))
        axolotl_fsdp(plan, out);
    return gpuplan_buf_status(out, err);
}

/* ---- LLaMA-Factory (src/llamafactory/hparams @ff6d4d12e, 0.9.6.dev0) ---- */

static void llama_factory_precision(const struct gpuplan_plan *plan, struct gpuplan_buf *out)
{
    const struct gpuplan_job *j = &plan->job;
    const bool zero = emit_zero_stage(j->sharding) > 0;
    switch (j->precision) {
    case GPUPLAN_PRECISION_BF16:
        gpuplan_buf_printf(out, "bf16: %s\npure_bf16: true\n", yes(zero));
        break;
    case GPUPLAN_PRECISION_FP16_MIXED:
        gpuplan_buf_puts(out, "fp16: true\n");
        break;
    case GPUPLAN_PRECISION_FP32:
        gpuplan_buf_puts(out, "bf16: false\nfp16: false\n");
        break;
    default:
        gpuplan_buf_puts(out, "bf16: true\n");
        break;
    }
}

enum gpuplan_status emit_llama_factory(const struct gpuplan_plan *plan,
                                       struct gpuplan_buf *out,
                                       struct gpuplan_error *err)
{
    const struct gpuplan_job *j = &plan->job;
    gpuplan_buf_printf(out,
                       "# %s on %u x %s: llamafactory-cli train this.yaml (add dataset, template, "
                       "output_dir)\n"
                       "model_name_or_path: ",
                       plan->model_id, emit_n_gpus(plan), emit_gpu_id(plan));
    yaml_str(out, model_name(plan));
    gpuplan_buf_puts(out, "\n");
    if (j->method == GPUPLAN_METHOD_QLORA) {
        const bool int8 = j->quant == GPUPLAN_DTYPE_INT8;
        gpuplan_buf_printf(out, "quantization_bit: %d\nquantization_method: bitsandbytes\n",
                           int8 ? 8 : 4);
        if (!int8)
            gpuplan_buf_printf(out, "double_quantization: %s\n",
                               yes(j->quant == GPUPLAN_DTYPE_NF4_DQ));
    }
    gpuplan_buf_printf(out, "stage: sft\ndo_train: true\nfinetuning_type: %s\n",
                       lora(j) ? "lora" : "full");
    if (lora(j)) {
        gpuplan_buf_printf(out, "lora_rank: %u\nlora_alpha: %.6g\nlora_dropout: %.6g\n",
                           j->lora_rank, j->lora_alpha, j->lora_dropout);
        if (all_linear(j)) {
            gpuplan_buf_puts(out, "lora_target: all\n");
        } else {
            char mods[EMIT_MAX_TARGETS][32];
            const size_t n = emit_lora_modules(j, mods, EMIT_MAX_TARGETS);
            gpuplan_buf_puts(out, "lora_target: ");
            for (size_t i = 0; i < n; i++)
                gpuplan_buf_printf(out, "%s%s", i ? "," : "", mods[i]);
            gpuplan_buf_puts(out, "\n");
        }
    }
    if (emit_zero_stage(j->sharding) > 0)
        gpuplan_buf_printf(out, "deepspeed: %s   # gpuplan emit deepspeed\n", EMIT_DS_FILE);
    gpuplan_buf_printf(out,
                       "cutoff_len: %llu\n"
                       "per_device_train_batch_size: %llu\n"
                       "gradient_accumulation_steps: %llu\n",
                       (unsigned long long)j->seq_len, (unsigned long long)j->micro_batch,
                       (unsigned long long)j->grad_accum);
    put_epochs(out, "num_train_epochs", j->epochs);
    gpuplan_buf_printf(out, "optim: %s\n", emit_hf_optim(j->optimizer));
    llama_factory_precision(plan, out);
    gpuplan_buf_printf(out, "flash_attn: %s\n",
                       j->attention == GPUPLAN_ATTN_FLASH   ? "fa2"
                       : j->attention == GPUPLAN_ATTN_EAGER ? "disabled"
                                                            : "sdpa");
    gpuplan_buf_printf(out, "disable_gradient_checkpointing: %s\n",
                       yes(j->grad_ckpt == GPUPLAN_CKPT_NONE));
    gpuplan_buf_printf(out, "enable_liger_kernel: %s\n", yes(j->chunked_ce));
    gpuplan_buf_printf(out, "torch_compile: %s\n", yes(j->compile));
    if (emit_is_fsdp(j->sharding)) {
        const char *cls = emit_wrap_class(plan->model_family);
        gpuplan_buf_printf(out, "fsdp: %s auto_wrap%s\nfsdp_config:\n",
                           j->sharding == GPUPLAN_SHARDING_FSDP_HYBRID ? "hybrid_shard"
                                                                       : "full_shard",
                           emit_offloads_params(j->offload) ? " offload" : "");
        if (cls)
            gpuplan_buf_printf(out, "  transformer_layer_cls_to_wrap: %s\n", cls);
        gpuplan_buf_printf(out, "  activation_checkpointing: %s\n",
                           yes(j->grad_ckpt != GPUPLAN_CKPT_NONE));
    }
    return gpuplan_buf_status(out, err);
}

/* ---- torchtune (recipes and models @bd2a0fc7c, 0.7.0) ---- */

const char *emit_torchtune_builder(const char *model_id)
{
    /* torchtune/models/llama3_{1,2,3}/_model_builders.py: each has the plain, lora_ and
     * qlora_ builders of this name. */
    static const struct {
        const char *id, *module, *builder;
    } table[] = {
        { "llama-3.1-8b", "llama3_1", "llama3_1_8b" },
        { "llama-3.1-70b", "llama3_1", "llama3_1_70b" },
        { "llama-3.1-405b", "llama3_1", "llama3_1_405b" },
        { "llama-3.2-1b", "llama3_2", "llama3_2_1b" },
        { "llama-3.2-3b", "llama3_2", "llama3_2_3b" },
        { "llama-3.3-70b", "llama3_3", "llama3_3_70b" },
    };
    for (size_t i = 0; model_id && i < sizeof table / sizeof table[0]; i++) {
        if (strcmp(model_id, table[i].id) == 0)
            return table[i].builder;
    }
    return NULL;
}

static const char *torchtune_module(const char *builder)
{
    return strncmp(builder, "llama3_1", 8) == 0   ? "llama3_1"
           : strncmp(builder, "llama3_2", 8) == 0 ? "llama3_2"
                                                  : "llama3_3";
}

static const char *torchtune_optimizer(enum gpuplan_optimizer o)
{
    switch (o) {
    case GPUPLAN_OPTIMIZER_ADAMW_8BIT:
        return "bitsandbytes.optim.AdamW8bit";
    case GPUPLAN_OPTIMIZER_PAGED_ADAMW:
        return "bitsandbytes.optim.PagedAdamW";
    case GPUPLAN_OPTIMIZER_PAGED_ADAMW_8BIT:
        return "bitsandbytes.optim.PagedAdamW8bit";
    case GPUPLAN_OPTIMIZER_SGD:
        return "torch.optim.SGD";
    default:
        return "torch.optim.AdamW";
    }
}

static void torchtune_lora(const struct gpuplan_job *j, struct gpuplan_buf *out)
{
    static const struct {
        enum gpuplan_role role;
        const char *name;
    } attn[] = { { GPUPLAN_ROLE_ATTN_Q, "q_proj" },
                 { GPUPLAN_ROLE_ATTN_K, "k_proj" },
                 { GPUPLAN_ROLE_ATTN_V, "v_proj" },
                 { GPUPLAN_ROLE_ATTN_O, "output_proj" } };
    const bool all = all_linear(j);
    gpuplan_buf_puts(out, "  lora_attn_modules: [");
    size_t n = 0;
    for (size_t i = 0; i < 4; i++) {
        if (all || (j->lora_target_roles & (1ULL << attn[i].role)))
            gpuplan_buf_printf(out, "%s%s", n++ ? ", " : "", attn[i].name);
    }
    const bool mlp = all || (j->lora_target_roles & (1ULL << GPUPLAN_ROLE_MLP_GATE));
    gpuplan_buf_printf(out,
                       "]\n"
                       "  apply_lora_to_mlp: %s\n"
                       "  apply_lora_to_output: false\n"
                       "  lora_rank: %u\n"
                       "  lora_alpha: %.6g\n"
                       "  lora_dropout: %.6g\n",
                       yes(mlp), j->lora_rank, j->lora_alpha, j->lora_dropout);
}

enum gpuplan_status
emit_torchtune(const struct gpuplan_plan *plan, struct gpuplan_buf *out, struct gpuplan_error *err)
{
    const struct gpuplan_job *j = &plan->job;
    const char *builder = emit_torchtune_builder(plan->model_id);
    const bool distributed = emit_is_fsdp(j->sharding) || j->sharding == GPUPLAN_SHARDING_ZERO2;
    const char *prefix = j->method == GPUPLAN_METHOD_QLORA  ? "qlora_"
                         : j->method == GPUPLAN_METHOD_LORA ? "lora_"
                                                            : "";
    char launch[64] = "";
    if (distributed && plan->nodes > 1)
        (void)snprintf(launch, sizeof launch, "--nnodes %u --nproc_per_node %u ", plan->nodes,
                       plan->gpus_per_node);
    else if (distributed)
        (void)snprintf(launch, sizeof launch, "--nproc_per_node %u ", plan->gpus_per_node);
    gpuplan_buf_printf(out,
                       "# %s on %u x %s: tune run %s%s_finetune_%s --config this.yaml\n"
                       "# (add tokenizer.path, checkpointer, dataset and output_dir)\n"
                       "model:\n"
                       "  _component_: torchtune.models.%s.%s%s\n",
                       plan->model_id, emit_n_gpus(plan), emit_gpu_id(plan), launch,
                       lora(j) ? "lora" : "full", distributed ? "distributed" : "single_device",
                       torchtune_module(builder), prefix, builder);
    if (lora(j))
        torchtune_lora(j, out);
    gpuplan_buf_printf(out,
                       "tokenizer:\n"
                       "  max_seq_len: %llu\n"
                       "batch_size: %llu\n"
                       "gradient_accumulation_steps: %llu\n"
                       "epochs: %.0f\n"
                       "dtype: %s\n"
                       "enable_activation_checkpointing: %s\n",
                       (unsigned long long)j->seq_len, (unsigned long long)j->micro_batch,
                       (unsigned long long)j->grad_accum, ceil(j->epochs > 0 ? j->epochs : 1.0),
                       j->precision == GPUPLAN_PRECISION_BF16 ? "bf16" : "fp32",
                       yes(j->grad_ckpt != GPUPLAN_CKPT_NONE));
    if (j->grad_ckpt == GPUPLAN_CKPT_SELECTIVE)
        gpuplan_buf_puts(out, "ac_mode: selective\n");
    gpuplan_buf_printf(out, "enable_activation_offloading: %s\n", yes(j->act_offload));
    if (j->compile && !j->compile_loss)
        gpuplan_buf_puts(out, "compile:\n  model: true\n  loss: false\n");
    else
        gpuplan_buf_printf(out, "compile: %s\n", yes(j->compile));
    /* The learning rate is the recipe's; 2e-5 is what torchtune's llama3_1 configs set. */
    gpuplan_buf_printf(out,
                       "optimizer:\n"
                       "  _component_: %s\n"
                       "  lr: 2.0e-5\n"
                       "optimizer_in_bwd: %s\n"
                       "loss:\n"
                       "  _component_: %s\n",
                       torchtune_optimizer(j->optimizer), yes(j->optim_in_bwd),
                       j->chunked_ce ? "torchtune.modules.loss.LinearCrossEntropyLoss"
                                     : "torch.nn.CrossEntropyLoss");
    if (distributed) {
        gpuplan_buf_printf(out, "fsdp_cpu_offload: %s\nfsdp_reshard_after_forward: %s\n",
                           yes(emit_offloads_params(j->offload)),
                           yes(j->sharding != GPUPLAN_SHARDING_ZERO2));
        if (j->fsdp_embed_units)
            gpuplan_buf_puts(out, "custom_sharded_layers: ['tok_embeddings', 'output']\n");
        if (j->sharding == GPUPLAN_SHARDING_FSDP_HYBRID)
            gpuplan_buf_printf(out, "data_parallel_replicate_dim: %u\n", plan->nodes);
        if (j->tp > 1)
            gpuplan_buf_printf(out, "tensor_parallel_dim: %u\n", j->tp);
    }
    return gpuplan_buf_status(out, err);
}

/* ---- TRL SFTConfig + PEFT LoraConfig (trl @f2cd57710, peft @5d602fdbf) ---- */

static json_t *trl_model_init(const struct gpuplan_plan *plan)
{
    const struct gpuplan_job *j = &plan->job;
    struct emit_hf_precision hp;
    emit_hf_precision(plan, &hp);
    json_t *mi = json_object();
    json_object_set_new(mi, "dtype", json_string(hp.load_dtype));
    json_object_set_new(mi, "attn_implementation", json_string(emit_hf_attention(j->attention)));
    if (j->method == GPUPLAN_METHOD_QLORA) {
        /* transformers BitsAndBytesConfig as a dict (from_pretrained takes either) */
        json_t *q = json_object();
        if (j->quant == GPUPLAN_DTYPE_INT8) {
            json_object_set_new(q, "load_in_8bit", json_true());
        } else {
            json_object_set_new(q, "load_in_4bit", json_true());
            json_object_set_new(q, "bnb_4bit_quant_type", json_string("nf4"));
            json_object_set_new(q, "bnb_4bit_use_double_quant",
                                json_boolean(j->quant == GPUPLAN_DTYPE_NF4_DQ));
            json_object_set_new(q, "bnb_4bit_compute_dtype",
                                json_string(hp.fp16 ? "float16" : "bfloat16"));
        }
        json_object_set_new(mi, "quantization_config", q);
    }
    return mi;
}

static json_t *trl_sft_config(const struct gpuplan_plan *plan)
{
    const struct gpuplan_job *j = &plan->job;
    struct emit_hf_precision hp;
    emit_hf_precision(plan, &hp);
    const bool ckpt = j->grad_ckpt != GPUPLAN_CKPT_NONE;
    json_t *s = json_object();
    json_object_set_new(s, "per_device_train_batch_size", json_integer((json_int_t)j->micro_batch));
    json_object_set_new(s, "gradient_accumulation_steps", json_integer((json_int_t)j->grad_accum));
    json_object_set_new(s, "num_train_epochs", json_real(j->epochs > 0 ? j->epochs : 1.0));
    json_object_set_new(s, "max_length", json_integer((json_int_t)j->seq_len));
    json_object_set_new(s, "bf16", json_boolean(hp.bf16));
    json_object_set_new(s, "fp16", json_boolean(hp.fp16));
    json_object_set_new(s, "gradient_checkpointing", json_boolean(ckpt));
    json_object_set_new(s, "optim", json_string(emit_hf_optim(j->optimizer)));
    json_object_set_new(s, "torch_compile", json_boolean(j->compile));
    json_object_set_new(s, "activation_offloading", json_boolean(j->act_offload));
    json_object_set_new(s, "loss_type", json_string(j->chunked_ce ? "chunked_nll" : "nll"));
    json_object_set_new(s, "model_init_kwargs", trl_model_init(plan));
    if (emit_zero_stage(j->sharding) > 0) {
        json_object_set_new(s, "deepspeed", json_string(EMIT_DS_FILE));
    } else if (emit_is_fsdp(j->sharding)) {
        char words[64];
        (void)snprintf(words, sizeof words, "%s auto_wrap%s",
                       j->sharding == GPUPLAN_SHARDING_FSDP_HYBRID ? "hybrid_shard" : "full_shard",
                       emit_offloads_params(j->offload) ? " offload" : "");
        json_object_set_new(s, "fsdp", json_string(words));
        json_t *fc = json_object();
        json_object_set_new(fc, "activation_checkpointing", json_boolean(ckpt));
        const char *cls = emit_wrap_class(plan->model_family);
        if (cls) {
            json_t *a = json_array();
            json_array_append_new(a, json_string(cls));
            json_object_set_new(fc, "transformer_layer_cls_to_wrap", a);
        }
        json_object_set_new(s, "fsdp_config", fc);
    }
    return s;
}

static json_t *trl_lora_config(const struct gpuplan_job *j)
{
    json_t *l = json_object();
    json_object_set_new(l, "task_type", json_string("CAUSAL_LM"));
    json_object_set_new(l, "r", json_integer(j->lora_rank));
    json_object_set_new(l, "lora_alpha", json_real(j->lora_alpha));
    json_object_set_new(l, "lora_dropout", json_real(j->lora_dropout));
    char mods[EMIT_MAX_TARGETS][32];
    const size_t n = emit_lora_modules(j, mods, EMIT_MAX_TARGETS);
    if (n == 1 && strcmp(mods[0], "all-linear") == 0) {
        json_object_set_new(l, "target_modules", json_string("all-linear"));
    } else {
        json_t *a = json_array();
        for (size_t i = 0; i < n; i++)
            json_array_append_new(a, json_string(mods[i]));
        json_object_set_new(l, "target_modules", a);
    }
    return l;
}

enum gpuplan_status
emit_trl(const struct gpuplan_plan *plan, struct gpuplan_buf *out, struct gpuplan_error *err)
{
    json_t *root = json_object();
    if (!root)
        return gpuplan_error_set(err, GPUPLAN_ERR_NOMEM, NULL, "out of memory");
    json_object_set_new(root, "model", json_string(model_name(plan)));
    json_object_set_new(root, "sft_config", trl_sft_config(plan));
    if (lora(&plan->job))
        json_object_set_new(root, "lora_config", trl_lora_config(&plan->job));
    return gpuplan_json_write(root, JSON_INDENT(2) | JSON_SORT_KEYS | JSON_REAL_PRECISION(6), out,
                              err);
}
