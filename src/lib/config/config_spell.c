/*
 * config_spell.c - a job option change ("--grad-ckpt full") in the
 * vocabulary of a framework's config file ("gradient_checkpointing: true"),
 * for `gpuplan check`'s "to fit, change" list.
 *
 * The keys are the ones the readers map (docs/configs.md "Keys mapped"), so
 * the change written reads back to the option. A change no key of that file
 * says (more GPUs, a DeepSpeed offload in a torchtune file) is spelled as
 * the launch or the other file it needs.
 */
#include <stdio.h>
#include <string.h>

#include "config/config_internal.h"

struct spelling {
    enum gpuplan_config_kind kind;
    const char *option, *value; /* as the estimate's suggestions spell them */
    const char *text;           /* in the file's vocabulary */
    bool in_file;               /* a key of this file (false: a launch or another file) */
};

static const struct spelling spellings[] = {
    /* TRL SFTConfig / TrainingArguments (and gpuplan's sft_config sections) */
    { GPUPLAN_CONFIG_TRL, "grad-ckpt", "full", "gradient_checkpointing: true", true },
    { GPUPLAN_CONFIG_TRL, "method", "lora", "use_peft: true (or a LoraConfig)", true },
    { GPUPLAN_CONFIG_TRL, "method", "qlora", "use_peft: true, load_in_4bit: true", true },
    { GPUPLAN_CONFIG_TRL, "optimizer", "adamw-8bit", "optim: adamw_bnb_8bit", true },
    { GPUPLAN_CONFIG_TRL, "micro-batch", "1", "per_device_train_batch_size: 1", true },
    { GPUPLAN_CONFIG_TRL, "offload", "optimizer",
      "deepspeed: a ZeRO-2 JSON with offload_optimizer.device cpu", true },
    { GPUPLAN_CONFIG_TRL, "compile", "yes", "torch_compile: true", true },
    { GPUPLAN_CONFIG_TRL, "attention", "flash", "attn_implementation: flash_attention_2", true },
    { GPUPLAN_CONFIG_TRL, "sharding", "fsdp", "fsdp: full_shard auto_wrap", true },
    /* axolotl */
    { GPUPLAN_CONFIG_AXOLOTL, "grad-ckpt", "full", "gradient_checkpointing: true", true },
    { GPUPLAN_CONFIG_AXOLOTL, "method", "lora", "adapter: lora", true },
    { GPUPLAN_CONFIG_AXOLOTL, "method", "qlora", "adapter: qlora, load_in_4bit: true", true },
    { GPUPLAN_CONFIG_AXOLOTL, "optimizer", "adamw-8bit", "optimizer: adamw_bnb_8bit", true },
    { GPUPLAN_CONFIG_AXOLOTL, "micro-batch", "1", "micro_batch_size: 1", true },
    { GPUPLAN_CONFIG_AXOLOTL, "offload", "optimizer",
      "deepspeed: a ZeRO-2 JSON with offload_optimizer.device cpu", true },
    { GPUPLAN_CONFIG_AXOLOTL, "compile", "yes", "torch_compile: true", true },
    { GPUPLAN_CONFIG_AXOLOTL, "attention", "flash", "flash_attention: true", true },
    { GPUPLAN_CONFIG_AXOLOTL, "sharding", "fsdp",
      "fsdp_version: 2, fsdp_config: {reshard_after_forward: true}", true },
    /* LLaMA-Factory */
    { GPUPLAN_CONFIG_LLAMA_FACTORY, "grad-ckpt", "full", "disable_gradient_checkpointing: false",
      true },
    { GPUPLAN_CONFIG_LLAMA_FACTORY, "method", "lora", "finetuning_type: lora", true },
    { GPUPLAN_CONFIG_LLAMA_FACTORY, "method", "qlora", "finetuning_type: lora, quantization_bit: 4",
      true },
    { GPUPLAN_CONFIG_LLAMA_FACTORY, "optimizer", "adamw-8bit", "optim: adamw_bnb_8bit", true },
    { GPUPLAN_CONFIG_LLAMA_FACTORY, "micro-batch", "1", "per_device_train_batch_size: 1", true },
    { GPUPLAN_CONFIG_LLAMA_FACTORY, "offload", "optimizer",
      "deepspeed: examples/deepspeed/ds_z2_offload_config.json", true },
    { GPUPLAN_CONFIG_LLAMA_FACTORY, "compile", "yes", "torch_compile: true", true },
    { GPUPLAN_CONFIG_LLAMA_FACTORY, "attention", "flash", "flash_attn: fa2", true },
    { GPUPLAN_CONFIG_LLAMA_FACTORY, "sharding", "fsdp", "fsdp: full_shard auto_wrap", true },
    /* torchtune */
    { GPUPLAN_CONFIG_TORCHTUNE, "grad-ckpt", "full", "enable_activation_checkpointing: True",
      true },
    { GPUPLAN_CONFIG_TORCHTUNE, "method", "lora", "model._component_: the lora_ builder", true },
    { GPUPLAN_CONFIG_TORCHTUNE, "method", "qlora", "model._component_: the qlora_ builder", true },
    { GPUPLAN_CONFIG_TORCHTUNE, "optimizer", "adamw-8bit",
      "optimizer._component_: bitsandbytes.optim.AdamW8bit", true },
    { GPUPLAN_CONFIG_TORCHTUNE, "micro-batch", "1", "batch_size: 1", true },
    { GPUPLAN_CONFIG_TORCHTUNE, "offload", "optimizer",
      "no optimizer offload in torchtune (fsdp_cpu_offload: True moves parameters)", false },
    { GPUPLAN_CONFIG_TORCHTUNE, "compile", "yes", "compile: True", true },
    { GPUPLAN_CONFIG_TORCHTUNE, "sharding", "fsdp", "a *_distributed recipe", false },
    /* DeepSpeed JSON */
    { GPUPLAN_CONFIG_DEEPSPEED, "micro-batch", "1", "train_micro_batch_size_per_gpu: 1", true },
    { GPUPLAN_CONFIG_DEEPSPEED, "offload", "optimizer",
      "zero_optimization.offload_optimizer.device: cpu", true },
    { GPUPLAN_CONFIG_DEEPSPEED, "sharding", "fsdp", "zero_optimization.stage: 3", true },
    /* accelerate YAML */
    { GPUPLAN_CONFIG_ACCELERATE, "grad-ckpt", "full",
      "fsdp_config.fsdp_activation_checkpointing: true (FSDP)", true },
    { GPUPLAN_CONFIG_ACCELERATE, "offload", "optimizer",
      "distributed_type: DEEPSPEED, deepspeed_config.offload_optimizer_device: cpu", true },
    { GPUPLAN_CONFIG_ACCELERATE, "compile", "yes", "dynamo_config.dynamo_backend: INDUCTOR", true },
    { GPUPLAN_CONFIG_ACCELERATE, "sharding", "fsdp", "distributed_type: FSDP", true },
    /* PEFT adapter_config.json */
    { GPUPLAN_CONFIG_PEFT, "method", "qlora", "load the base in 4 bits (the trainer's file)",
      false },
};

/* One "--option value" of a change; false when it has none. */
static bool next_pair(const char **p, char *opt, size_t opt_size, char *val, size_t val_size)
{
    const char *s = *p;
    while (*s == ' ')
        s++;
    if (strncmp(s, "--", 2) != 0)
        return false;
    s += 2;
    size_t n = strcspn(s, " ");
    (void)snprintf(opt, opt_size, "%.*s", (int)(n < opt_size ? n : opt_size - 1), s);
    s += n;
    while (*s == ' ')
        s++;
    n = strcspn(s, " ");
    (void)snprintf(val, val_size, "%.*s", (int)(n < val_size ? n : val_size - 1), s);
    *p = s + n;
    return true;
}

bool gpuplan_config_spell_change(enum gpuplan_config_kind kind,
                                 const char *change,
                                 char *out,
                                 size_t out_size)
{
    char opt[48], val[96];
    size_t used = 0;
    bool all_in_file = true;
    out[0] = '\0';
    const char *p = change;
    while (next_pair(&p, opt, sizeof opt, val, sizeof val)) {
        const char *text = NULL;
        bool in_file = false;
        char launch[256];
        for (size_t i = 0; i < sizeof spellings / sizeof spellings[0]; i++) {
            const struct spelling *s = &spellings[i];
            if (s->kind == kind && strcmp(s->option, opt) == 0 && strcmp(s->value, val) == 0) {
                text = s->text;
                in_file = s->in_file;
                break;
            }
        }
        if (!text && strcmp(opt, "gpu") == 0) {
            const char *colon = strchr(val, ':');
            (void)snprintf(launch, sizeof launch, "launch on %s GPUs (--gpu %s)",
                           colon ? colon + 1 : "1", val);
            text = launch;
        } else if (!text) {
            (void)snprintf(launch, sizeof launch, "--%s %s (no key of this file says it)", opt,
                           val);
            text = launch;
        }
        all_in_file = all_in_file && in_file;
        const int n = snprintf(out + used, out_size - used, "%s%s", used ? "; " : "", text);
        if (n < 0 || (size_t)n >= out_size - used)
            break;
        used += (size_t)n;
    }
    if (!used)
        (void)snprintf(out, out_size, "%s", change);
    return all_in_file && used;
}
