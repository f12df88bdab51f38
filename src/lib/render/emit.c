/*
 * emit.c - launch files for a plan: the kinds, which plans each engine can
 * run as planned (gpuplan_emit_check, gpuplan_emit_nearest), the dispatch,
 * and what the writers share (the plan's counts, the HF Trainer vocabulary).
 *
 * An engine runs a plan "as planned" when every knob of the plan has a
 * setting in that engine that keeps what gpuplan's memory model counts for
 * it. The rules below say, per engine, what it keeps for each precision
 * setting (docs/emit.md "Precision", each row cited from the engine's code at
 * the versions of docs/configs.md), and refuse the rest with the reason and
 * the kinds that can. The writers: emit_launch.c (DeepSpeed, accelerate,
 * torchrun, Slurm), emit_frameworks.c (axolotl, LLaMA-Factory, torchtune,
 * TRL), emit_serve.c (vLLM, SGLang, Kubernetes, SkyPilot).
 * Not here: which plan to run (plan/), reading the files back (config/).
 */
#include <stdio.h>
#include <string.h>

#include "gpuplan/model.h"
#include "gpuplan/serving.h"
#include "render/emit_internal.h"
#include "util/suggest_internal.h"

const char *const gpuplan_engine_names[GPUPLAN_ENGINE_COUNT + 1] = {
    [GPUPLAN_ENGINE_DEEPSPEED] = "deepspeed",
    [GPUPLAN_ENGINE_ACCELERATE] = "accelerate",
    [GPUPLAN_ENGINE_TORCHRUN] = "torchrun",
    [GPUPLAN_ENGINE_SLURM] = "slurm",
    [GPUPLAN_ENGINE_AXOLOTL] = "axolotl",
    [GPUPLAN_ENGINE_LLAMA_FACTORY] = "llama-factory",
    [GPUPLAN_ENGINE_TORCHTUNE] = "torchtune",
    [GPUPLAN_ENGINE_TRL] = "trl",
    [GPUPLAN_ENGINE_VLLM] = "vllm",
    [GPUPLAN_ENGINE_SGLANG] = "sglang",
    [GPUPLAN_ENGINE_K8S] = "k8s",
    [GPUPLAN_ENGINE_SKYPILOT] = "skypilot",
    [GPUPLAN_ENGINE_COUNT] = NULL,
};

const char *gpuplan_engine_name(enum gpuplan_engine engine)
{
    return (unsigned)engine < GPUPLAN_ENGINE_COUNT ? gpuplan_engine_names[engine] : "unknown";
}

enum gpuplan_status
gpuplan_engine_parse(const char *name, enum gpuplan_engine *out, struct gpuplan_error *err)
{
    struct gpuplan_suggest s;
    gpuplan_suggest_init(&s, name ? name : "");
    for (int i = 0; i < GPUPLAN_ENGINE_COUNT; i++) {
        if (name && strcmp(name, gpuplan_engine_names[i]) == 0) {
            *out = (enum gpuplan_engine)i;
            return GPUPLAN_OK;
        }
        gpuplan_suggest_add(&s, gpuplan_engine_names[i]);
    }
    gpuplan_error_set(err, GPUPLAN_ERR_USAGE, "--emit", "unknown kind '%s'", name ? name : "");
    if (s.n)
        gpuplan_error_hint(err, "did you mean '%s'?", s.best[0].text);
    else
        gpuplan_error_hint(err, "kinds: deepspeed, accelerate, torchrun, slurm, axolotl, "
                                "llama-factory, torchtune, trl, vllm, sglang, k8s, skypilot");
    return GPUPLAN_ERR_USAGE;
}

bool gpuplan_engine_serves(enum gpuplan_engine engine)
{
    return engine == GPUPLAN_ENGINE_VLLM || engine == GPUPLAN_ENGINE_SGLANG ||
           engine == GPUPLAN_ENGINE_K8S || engine == GPUPLAN_ENGINE_SKYPILOT;
}

bool gpuplan_engine_trains(enum gpuplan_engine engine)
{
    return engine != GPUPLAN_ENGINE_VLLM && engine != GPUPLAN_ENGINE_SGLANG &&
           (unsigned)engine < GPUPLAN_ENGINE_COUNT;
}

/* ---- the plan's counts ---- */

uint32_t emit_n_gpus(const struct gpuplan_plan *plan)
{
    return plan->gpus_per_node * plan->nodes;
}

uint64_t emit_dp(const struct gpuplan_plan *plan)
{
    const uint64_t mp =
        (uint64_t)(plan->job.tp ? plan->job.tp : 1) * (plan->job.pp ? plan->job.pp : 1);
    const uint64_t n = emit_n_gpus(plan);
    return n / mp ? n / mp : 1;
}

int emit_zero_stage(enum gpuplan_sharding sharding)
{
    switch (sharding) {
    case GPUPLAN_SHARDING_ZERO1:
        return 1;
    case GPUPLAN_SHARDING_ZERO2:
        return 2;
    case GPUPLAN_SHARDING_ZERO3:
        return 3;
    default:
        return 0;
    }
}

bool emit_is_fsdp(enum gpuplan_sharding sharding)
{
    return sharding == GPUPLAN_SHARDING_FSDP || sharding == GPUPLAN_SHARDING_FSDP_HYBRID;
}

bool emit_offloads_optimizer(enum gpuplan_offload o)
{
    return o == GPUPLAN_OFFLOAD_OPTIMIZER || o == GPUPLAN_OFFLOAD_OPTIMIZER_PARAMS ||
           o == GPUPLAN_OFFLOAD_NVME;
}

bool emit_offloads_params(enum gpuplan_offload o)
{
    return o == GPUPLAN_OFFLOAD_PARAMS || o == GPUPLAN_OFFLOAD_OPTIMIZER_PARAMS ||
           o == GPUPLAN_OFFLOAD_NVME;
}

const char *emit_wrap_class(const char *family)
{
    static const struct {
        const char *family;
        const char *cls;
    } table[] = {
        { "llama", "LlamaDecoderLayer" },
        { "mistral", "MistralDecoderLayer" },
        { "mixtral", "MixtralDecoderLayer" },
        { "qwen2", "Qwen2DecoderLayer" },
        { "qwen2_moe", "Qwen2MoeDecoderLayer" },
        { "qwen3", "Qwen3DecoderLayer" },
        { "qwen3_moe", "Qwen3MoeDecoderLayer" },
        { "gemma", "GemmaDecoderLayer" },
        { "gemma2", "Gemma2DecoderLayer" },
        { "gemma3_text", "Gemma3DecoderLayer" },
        { "phi3", "Phi3DecoderLayer" },
        { "gpt2", "GPT2Block" },
        { "gpt_neox", "GPTNeoXLayer" },
        { "falcon", "FalconDecoderLayer" },
        { "deepseek_v3", "DeepseekV3DecoderLayer" },
        { "t5", "T5Block" },
    };
    for (size_t i = 0; family && i < sizeof table / sizeof table[0]; i++) {
        if (strcmp(family, table[i].family) == 0)
            return table[i].cls;
    }
    return NULL;
}

uint32_t emit_threads_per_rank(const struct gpuplan_plan *plan)
{
    const uint32_t t = plan->server.cpu_cores / (plan->gpus_per_node ? plan->gpus_per_node : 1);
    return t ? t : 1;
}

const char *emit_gpu_id(const struct gpuplan_plan *plan)
{
    return plan->gpu ? plan->gpu->id : (plan->job.gpu_id[0] ? plan->job.gpu_id : "gpu");
}

/* ---- the HF Trainer vocabulary ---- */

/*
 * What the stack keeps (docs/emit.md "Precision"):
 *  - DeepSpeed engine (ZeRO): bf16/fp16 from the DS JSON; TrainingArguments
 *    must agree (transformers integrations/deepspeed.py checks it);
 *  - FSDP: accelerate upcasts trainable shards to fp32 whenever
 *    mixed_precision is not "no" (accelerator.py prepare_model, FSDP1;
 *    fsdp_utils.py fsdp2_prepare_model): bf16-mixed = bf16 on; pure bf16 =
 *    bf16 off over a bfloat16 model; a LoRA base keeps the dtype it was
 *    loaded in (frozen, not upcast): base-fp32 = float32;
 *  - no sharding / DDP: torch autocast over the loaded weights; AdamW's
 *    states follow the parameters' dtype: full bf16-mixed = fp32 weights,
 *    pure bf16 = bf16 weights (autocast a no-op); LoRA bf16-mixed = bf16
 *    base (PEFT keeps adapters fp32, autocast_adapter_dtype), amp-bf16 =
 *    fp32 base.
 */
void emit_hf_precision(const struct gpuplan_plan *plan, struct emit_hf_precision *out)
{
    const struct gpuplan_job *j = &plan->job;
    const bool lora = j->method == GPUPLAN_METHOD_LORA || j->method == GPUPLAN_METHOD_QLORA;
    const bool fsdp = emit_is_fsdp(j->sharding);
    const bool zero = emit_zero_stage(j->sharding) > 0;
    out->bf16 = false;
    out->fp16 = false;
    out->load_dtype = "float32";
    switch (j->precision) {
    case GPUPLAN_PRECISION_BF16:
        out->bf16 = zero; /* ZeRO: the DS JSON's bf16 engine with its 16-bit master flags */
        out->load_dtype = "bfloat16";
        break;
    case GPUPLAN_PRECISION_BF16_MIXED:
    case GPUPLAN_PRECISION_FP8_MIXED:
        out->bf16 = true;
        if (zero)
            out->load_dtype = "bfloat16"; /* the engine casts the module to bf16 */
        else if (fsdp)
            out->load_dtype = lora && j->base_fp32 ? "float32" : "bfloat16";
        else
            out->load_dtype = lora ? "bfloat16" : "float32";
        break;
    case GPUPLAN_PRECISION_AMP_BF16:
        out->bf16 = true;
        break;
    case GPUPLAN_PRECISION_FP16_MIXED:
        out->fp16 = true;
        out->load_dtype = lora && !j->base_fp32 ? "float16" : "float32";
        break;
    default: /* fp32 */
        break;
    }
}

const char *emit_hf_optim(enum gpuplan_optimizer optimizer)
{
    switch (optimizer) {
    case GPUPLAN_OPTIMIZER_ADAMW:
        return "adamw_torch_fused";
    case GPUPLAN_OPTIMIZER_ADAMW_8BIT:
        return "adamw_bnb_8bit";
    case GPUPLAN_OPTIMIZER_PAGED_ADAMW:
        return "paged_adamw_32bit";
    case GPUPLAN_OPTIMIZER_PAGED_ADAMW_8BIT:
        return "paged_adamw_8bit";
    case GPUPLAN_OPTIMIZER_SGD:
        return "sgd";
    case GPUPLAN_OPTIMIZER_ADAFACTOR:
        return "adafactor";
    case GPUPLAN_OPTIMIZER_LION:
        return "lion_32bit";
    default:
        return "adamw_torch_fused";
    }
}

const char *emit_hf_attention(enum gpuplan_attention attention)
{
    switch (attention) {
    case GPUPLAN_ATTN_EAGER:
        return "eager";
    case GPUPLAN_ATTN_FLASH:
        return "flash_attention_2";
    default:
        return "sdpa";
    }
}

size_t emit_lora_modules(const struct gpuplan_job *job, char (*out)[32], size_t max)
{
    const char *t = job->lora_targets;
    size_t n = 0;
    if (strcmp(t, "all-linear") == 0 || strcmp(t, "all") == 0) {
        (void)snprintf(out[n++], sizeof out[0], "all-linear");
        return n;
    }
    if (strcmp(t, "attn") == 0) {
        static const char *const attn[] = { "q_proj", "k_proj", "v_proj", "o_proj" };
        for (size_t i = 0; i < 4 && n < max; i++)
            (void)snprintf(out[n++], sizeof out[0], "%s", attn[i]);
        return n;
    }
    while (*t && n < max) {
        const size_t len = strcspn(t, ",;");
        if (len > 0 && len < sizeof out[0])
            (void)snprintf(out[n++], sizeof out[0], "%.*s", (int)len, t);
        t += len;
        if (*t)
            t++;
    }
    return n;
}

/* ---- which engine runs which plan ---- */

/* One rule broken: why, and the job the engine would run instead (when `fix` is set). */
struct problem {
    char why[GPUPLAN_ERROR_MESSAGE_MAX];
    bool has_fix;
    struct gpuplan_job fix;
};

static bool refuse(struct problem *p, const char *why)
{
    (void)snprintf(p->why, sizeof p->why, "%s", why);
    return true;
}

/* A refusal the engine can get past with one changed knob (set in p->fix by the caller). */
static bool refuse_fix(struct problem *p, const char *why)
{
    p->has_fix = true;
    return refuse(p, why);
}

static bool is_lora(const struct gpuplan_job *j)
{
    return j->method == GPUPLAN_METHOD_LORA || j->method == GPUPLAN_METHOD_QLORA;
}

/* Common to every training engine gpuplan writes. */
static bool train_common(const struct gpuplan_job *j, struct problem *p)
{
    if (j->pp > 1)
        return refuse(p, "pipeline parallelism needs a pipeline engine (Megatron-LM, torchtitan, "
                         "a DeepSpeed PipelineModule in the model code) that gpuplan does not "
                         "write");
    if (j->keep_outputs) {
        p->fix.keep_outputs = false;
        return refuse_fix(p, "--keep-outputs describes a hand-written training loop that holds "
                             "the model's outputs; no engine setting says it");
    }
    return false;
}

/* The DeepSpeed engine's precision settings (precision_config.py, runtime/config.py). */
static bool ds_precision(const struct gpuplan_job *j, struct problem *p)
{
    if (j->precision == GPUPLAN_PRECISION_FP8_MIXED) {
        p->fix.precision = GPUPLAN_PRECISION_BF16_MIXED;
        return refuse_fix(p, "DeepSpeed's config has no FP8 recipe (fp8 matmuls come from "
                             "Transformer Engine in the model code); accelerate's fp8_config "
                             "writes one");
    }
    if (j->precision == GPUPLAN_PRECISION_AMP_BF16) {
        p->fix.precision = GPUPLAN_PRECISION_BF16_MIXED;
        return refuse_fix(p, "fp32 parameters under autocast is not a ZeRO mode gpuplan writes "
                             "(DeepSpeed's bf16 engine keeps 16-bit parameters)");
    }
    return false;
}

/*
 * What a Transformers Trainer (TRL, a TrainingArguments script under
 * torchrun, accelerate, axolotl, LLaMA-Factory) can be told.
 */
static bool hf_rules(const struct gpuplan_job *j, struct problem *p, bool has_act_offload)
{
    if (train_common(j, p))
        return true;
    if (j->grad_ckpt == GPUPLAN_CKPT_SELECTIVE) {
        p->fix.grad_ckpt = GPUPLAN_CKPT_FULL;
        p->fix.grad_ckpt_set = true;
        return refuse_fix(p, "Transformers' gradient_checkpointing recomputes whole decoder "
                             "layers; selective recompute is torchtune's ac_mode (full is the "
                             "nearest)");
    }
    if (j->compile && !j->compile_loss) {
        p->fix.compile_loss = true;
        return refuse_fix(p, "the Trainer's torch_compile compiles the model and its loss "
                             "together; --compile blocks is torchtitan's");
    }
    if (j->optim_in_bwd) {
        p->fix.optim_in_bwd = false;
        return refuse_fix(p, "the optimizer step fused into backward is torchtune's "
                             "optimizer_in_bwd; the Trainer has none");
    }
    if (j->fsdp_embed_units) {
        p->fix.fsdp_embed_units = false;
        return refuse_fix(p, "TRANSFORMER_BASED_WRAP leaves the embedding and the head in the "
                             "root FSDP unit; separate units are torchtune's "
                             "custom_sharded_layers");
    }
    if (j->method == GPUPLAN_METHOD_QLORA && j->quant == GPUPLAN_DTYPE_NF4_TORCHAO) {
        p->fix.quant = GPUPLAN_DTYPE_NF4_DQ;
        return refuse_fix(p, "torchao NF4 is torchtune's; the Trainer quantises with "
                             "bitsandbytes");
    }
    if (j->act_offload && !has_act_offload) {
        p->fix.act_offload = false;
        return refuse_fix(p, "this kind has no activation-offload setting (TRL's "
                             "activation_offloading and axolotl's have)");
    }
    if (emit_is_fsdp(j->sharding) && emit_offloads_optimizer(j->offload)) {
        p->fix.offload = GPUPLAN_OFFLOAD_PARAMS;
        return refuse_fix(p, "FSDP's CPU offload moves parameters, gradients and the step "
                             "together (--offload params); optimizer-only offload is "
                             "DeepSpeed's");
    }
    if (emit_zero_stage(j->sharding) > 0)
        return ds_precision(j, p);
    if (j->precision == GPUPLAN_PRECISION_FP8_MIXED) {
        p->fix.precision = GPUPLAN_PRECISION_BF16_MIXED;
        return refuse_fix(p, "the Trainer has no FP8 flag; accelerate's fp8_config "
                             "(Transformer Engine or torchao) is the recipe");
    }
    if (emit_is_fsdp(j->sharding) && j->precision == GPUPLAN_PRECISION_AMP_BF16) {
        p->fix.precision = GPUPLAN_PRECISION_BF16_MIXED;
        return refuse_fix(p, "under FSDP, bf16 turns on MixedPrecision (16-bit gathered units); "
                             "fp32 units under autocast alone is not a setting");
    }
    return false;
}

static bool deepspeed_rules(const struct gpuplan_job *j, struct problem *p)
{
    if (train_common(j, p))
        return true;
    const int stage = emit_zero_stage(j->sharding);
    if (stage == 0) {
        p->fix.sharding =
            emit_is_fsdp(j->sharding) ? GPUPLAN_SHARDING_ZERO3 : GPUPLAN_SHARDING_ZERO1;
        p->fix.sharding_set = true;
        return refuse_fix(p, emit_is_fsdp(j->sharding)
                                 ? "DeepSpeed runs ZeRO-3 (module by module, its own buffers), "
                                   "which gpuplan counts apart from FSDP; MiCS, HYBRID_SHARD's "
                                   "counterpart, is not modelled"
                                 : "DeepSpeed stage 0 keeps an unpartitioned fp32 master "
                                   "(FP16_Optimizer) gpuplan does not model; a plan without "
                                   "ZeRO needs no DeepSpeed config");
    }
    if (j->tp > 1 && stage > 2)
        return refuse(p, "DeepSpeed AutoTP training composes with ZeRO stages 1 and 2 only");
    if (emit_offloads_params(j->offload) && stage < 3)
        return refuse(p, "parameter offload needs ZeRO-3 (DeepSpeed config-json.md)");
    if (emit_offloads_optimizer(j->offload) && j->optimizer != GPUPLAN_OPTIMIZER_ADAMW &&
        j->optimizer != GPUPLAN_OPTIMIZER_LION)
        return refuse(p, "ZeRO-Offload steps on the CPU with DeepSpeedCPUAdam or DeepSpeedCPULion "
                         "only");
    return ds_precision(j, p);
}

static bool accelerate_rules(const struct gpuplan_job *j, struct problem *p)
{
    const enum gpuplan_precision pr = j->precision;
    struct gpuplan_job relaxed = *j;
    /* accelerate writes fp8_config for FSDP and DDP (low_precision_training.md) */
    if (pr == GPUPLAN_PRECISION_FP8_MIXED && emit_zero_stage(j->sharding) == 0)
        relaxed.precision = GPUPLAN_PRECISION_BF16_MIXED;
    return hf_rules(&relaxed, p, false);
}

static bool axolotl_rules(const struct gpuplan_job *j, struct problem *p)
{
    if (hf_rules(j, p, true))
        return true;
    const bool zero = emit_zero_stage(j->sharding) > 0;
    /* axolotl loads the model in the mixed-precision dtype (utils/config resolve_dtype): with
     * bf16 on, full fine-tuning without ZeRO keeps bf16 weights; fp32 masters need fp32 load. */
    if (!zero && !emit_is_fsdp(j->sharding) && !is_lora(j) &&
        j->precision == GPUPLAN_PRECISION_BF16_MIXED) {
        p->fix.precision = GPUPLAN_PRECISION_BF16;
        return refuse_fix(p, "axolotl loads the weights in bf16 when bf16 is on (resolve_dtype): "
                             "full fine-tuning without ZeRO or FSDP is pure bf16, not fp32 "
                             "masters under autocast");
    }
    if (is_lora(j) && j->precision == GPUPLAN_PRECISION_AMP_BF16) {
        p->fix.precision = GPUPLAN_PRECISION_BF16_MIXED;
        return refuse_fix(p, "axolotl loads the frozen base in the compute dtype; an fp32 base "
                             "under autocast is not a setting");
    }
    if (j->sharding == GPUPLAN_SHARDING_FSDP_HYBRID)
        return refuse(p, "axolotl's FSDP2 hybrid sharding (dp_shard_size, dp_replicate_size) is "
                         "not a setting gpuplan's reader maps");
    if (j->method == GPUPLAN_METHOD_QLORA && j->quant == GPUPLAN_DTYPE_NF4) {
        p->fix.quant = GPUPLAN_DTYPE_NF4_DQ;
        return refuse_fix(p, "axolotl quantises NF4 with double quantisation (loaders/model.py); "
                             "plain NF4 is a bnb_config_kwargs setting gpuplan does not write");
    }
    if (emit_is_fsdp(j->sharding) && j->base_fp32) {
        p->fix.base_fp32 = false;
        return refuse_fix(p, "axolotl loads the LoRA base in bf16; an fp32 base under FSDP is not "
                             "a setting");
    }
    return false;
}

static bool llama_factory_rules(const struct gpuplan_job *j, struct problem *p)
{
    if (hf_rules(j, p, false))
        return true;
    if (is_lora(j) && j->precision == GPUPLAN_PRECISION_AMP_BF16) {
        p->fix.precision = GPUPLAN_PRECISION_BF16_MIXED;
        return refuse_fix(p, "LLaMA-Factory loads the frozen base in the compute dtype and "
                             "upcasts the adapters (model/adapter.py); an fp32 base is not a "
                             "setting");
    }
    if (j->method == GPUPLAN_METHOD_QLORA && j->quant == GPUPLAN_DTYPE_NF4_TORCHAO)
        return refuse(p, "LLaMA-Factory quantises with bitsandbytes");
    if (emit_is_fsdp(j->sharding) && j->base_fp32) {
        p->fix.base_fp32 = false;
        return refuse_fix(p, "LLaMA-Factory loads the LoRA base in the compute dtype; an fp32 "
                             "base under FSDP is not a setting");
    }
    return false;
}

/* LoRA targets torchtune's builders take: q/k/v/o (lora_attn_modules) and the whole MLP. */
static bool torchtune_targets_ok(const struct gpuplan_job *j)
{
    const gpuplan_role_mask attn = (1ULL << GPUPLAN_ROLE_ATTN_Q) | (1ULL << GPUPLAN_ROLE_ATTN_K) |
                                   (1ULL << GPUPLAN_ROLE_ATTN_V) | (1ULL << GPUPLAN_ROLE_ATTN_O);
    const gpuplan_role_mask mlp = (1ULL << GPUPLAN_ROLE_MLP_GATE) | (1ULL << GPUPLAN_ROLE_MLP_UP) |
                                  (1ULL << GPUPLAN_ROLE_MLP_DOWN);
    if (strcmp(j->lora_targets, "all-linear") == 0 || strcmp(j->lora_targets, "all") == 0)
        return true;
    const gpuplan_role_mask m = j->lora_target_roles;
    if (m & ~(attn | mlp))
        return false;
    return (m & mlp) == 0 || (m & mlp) == mlp;
}

static bool
torchtune_rules(const struct gpuplan_plan *plan, const struct gpuplan_job *j, struct problem *p)
{
    if (train_common(j, p))
        return true;
    if (!emit_torchtune_builder(plan->model_id))
        return refuse(p, "no torchtune model builder is known for this model");
    if (j->precision != GPUPLAN_PRECISION_BF16 && j->precision != GPUPLAN_PRECISION_FP32) {
        p->fix.precision = GPUPLAN_PRECISION_BF16;
        return refuse_fix(p, "torchtune has no mixed-precision recipe: dtype bf16 is pure bf16, "
                             "weights, gradients and optimizer states (training/precision.py)");
    }
    const enum gpuplan_sharding s = j->sharding;
    if (s == GPUPLAN_SHARDING_DDP || s == GPUPLAN_SHARDING_ZERO1 || s == GPUPLAN_SHARDING_ZERO3 ||
        (s == GPUPLAN_SHARDING_NONE && plan->gpus_per_node * plan->nodes > 1)) {
        p->fix.sharding = GPUPLAN_SHARDING_FSDP;
        p->fix.sharding_set = true;
        return refuse_fix(p, "torchtune's distributed recipes shard with FSDP2 (fully_shard)");
    }
    if (j->offload != GPUPLAN_OFFLOAD_NONE &&
        !(j->offload == GPUPLAN_OFFLOAD_PARAMS && emit_is_fsdp(s))) {
        p->fix.offload = GPUPLAN_OFFLOAD_NONE;
        return refuse_fix(p, "torchtune offloads only FSDP parameters (fsdp_cpu_offload)");
    }
    if (j->optimizer == GPUPLAN_OPTIMIZER_ADAFACTOR || j->optimizer == GPUPLAN_OPTIMIZER_LION)
        return refuse(p, "no optimizer component is written for Adafactor or Lion");
    if (j->method == GPUPLAN_METHOD_QLORA && j->quant != GPUPLAN_DTYPE_NF4_TORCHAO) {
        p->fix.quant = GPUPLAN_DTYPE_NF4_TORCHAO;
        return refuse_fix(p, "torchtune's qlora_* builders quantise with torchao NF4");
    }
    if (is_lora(j) && !torchtune_targets_ok(j))
        return refuse(p, "torchtune's LoRA builders adapt q/k/v/output_proj and the whole MLP "
                         "(apply_lora_to_mlp), not a part of it");
    return false;
}

static bool trl_rules(const struct gpuplan_job *j, struct problem *p)
{
    return hf_rules(j, p, true);
}

/*
 * vLLM/SGLang (and the cluster kinds' servers): the serving plan names
 * every flag (plan.h struct gpuplan_plan_serving); the engine it was sized
 * for must be the kind's, and its weights a checkpoint the plan names.
 */
static bool serving_rules(const struct gpuplan_plan *plan,
                          const struct gpuplan_job *j,
                          enum gpuplan_engine e,
                          struct problem *p)
{
    const struct gpuplan_plan_serving *sv = &plan->serving;
    if (!plan->is_serving)
        return refuse(p, "the plan carries no serving layout (plan it with --method infer)");
    if (!sv->model_ref[0])
        return refuse(p, "the plan names no Hugging Face Hub id or model folder to serve");
    const enum gpuplan_serving_engine want =
        e == GPUPLAN_ENGINE_SGLANG ? GPUPLAN_SERVING_SGLANG : GPUPLAN_SERVING_VLLM;
    const bool any_engine = e == GPUPLAN_ENGINE_SKYPILOT;
    /* the job's engine: what the plan was sized with, or what a re-plan would use */
    if (!any_engine && j->engine != want) {
        p->fix.engine = want;
        return refuse_fix(p, e == GPUPLAN_ENGINE_K8S
                                 ? "the Deployment runs the vllm/vllm-openai image; the plan was "
                                   "sized with SGLang's accounting"
                                 : "the plan was sized with the other engine's start-up "
                                   "accounting (--engine)");
    }
    if (sv->commands.needs_quantized_checkpoint) {
        p->fix.weights_dtype = GPUPLAN_DTYPE_BF16;
        return refuse_fix(p, "the plan serves pre-quantised weights (AWQ/GPTQ/MXFP4/NVFP4/int8/"
                             "GGUF), which the engine loads from a quantised checkpoint under "
                             "another Hub id the plan does not name");
    }
    if (!sv->commands.launch[0])
        return refuse(p, "the serving plan has no launch line");
    if (e == GPUPLAN_ENGINE_K8S && (plan->nodes > 1 || sv->pp > 1))
        return refuse(p, "a Deployment's pod runs on one node; this replica spans nodes (a "
                         "LeaderWorkerSet is not written)");
    if (e == GPUPLAN_ENGINE_K8S && plan->gpu && plan->gpu->vendor != GPUPLAN_VENDOR_NVIDIA)
        return refuse(p, "the vllm/vllm-openai image is built for NVIDIA GPUs");
    return false;
}

static bool job_problem(const struct gpuplan_plan *plan,
                        const struct gpuplan_job *j,
                        enum gpuplan_engine e,
                        struct problem *p)
{
    memset(p, 0, sizeof *p);
    p->fix = *j;
    const bool infer = j->method == GPUPLAN_METHOD_INFER;
    if (infer && !gpuplan_engine_serves(e))
        return refuse(p, "this is a serving plan; this kind writes training launchers");
    if (!infer && !gpuplan_engine_trains(e))
        return refuse(p, "this is a training plan; this kind serves models");
    if (e == GPUPLAN_ENGINE_SKYPILOT && !emit_skypilot_accelerator(emit_gpu_id(plan)))
        return refuse(p, "no SkyPilot accelerator name is known for this GPU");
    if (infer)
        return serving_rules(plan, j, e, p);
    switch (e) {
    case GPUPLAN_ENGINE_DEEPSPEED:
        return deepspeed_rules(j, p);
    case GPUPLAN_ENGINE_ACCELERATE:
        return accelerate_rules(j, p);
    case GPUPLAN_ENGINE_AXOLOTL:
        return axolotl_rules(j, p);
    case GPUPLAN_ENGINE_LLAMA_FACTORY:
        return llama_factory_rules(j, p);
    case GPUPLAN_ENGINE_TORCHTUNE:
        return torchtune_rules(plan, j, p);
    case GPUPLAN_ENGINE_TRL:
        return trl_rules(j, p);
    default: /* torchrun, slurm, k8s, skypilot: train.py with TrainingArguments flags */
        return hf_rules(j, p, false);
    }
}

static bool plan_empty(const struct gpuplan_plan *plan)
{
    if (!plan || plan->gpus_per_node == 0 || plan->nodes == 0)
        return true;
    return plan->job.method != GPUPLAN_METHOD_INFER &&
           (plan->job.micro_batch == 0 || plan->job.grad_accum == 0);
}

enum gpuplan_status gpuplan_emit_check(const struct gpuplan_plan *plan,
                                       enum gpuplan_engine engine,
                                       struct gpuplan_error *err)
{
    if ((unsigned)engine >= GPUPLAN_ENGINE_COUNT)
        return gpuplan_error_set(err, GPUPLAN_ERR_USAGE, "--emit", "unknown kind %d", (int)engine);
    if (plan_empty(plan))
        return gpuplan_error_set(err, GPUPLAN_ERR_USAGE, "--emit",
                                 "the plan has no GPUs or a zero micro-batch; nothing to emit");
    struct problem p;
    if (!job_problem(plan, &plan->job, engine, &p))
        return GPUPLAN_OK;
    gpuplan_error_set(err, GPUPLAN_ERR_UNSUPPORTED, "--emit",
                      "%s cannot run this plan as planned: %s", gpuplan_engine_name(engine), p.why);
    char can[256] = "";
    size_t used = 0;
    struct problem other;
    for (int e = 0; e < GPUPLAN_ENGINE_COUNT; e++) {
        if (e == (int)engine || job_problem(plan, &plan->job, (enum gpuplan_engine)e, &other))
            continue;
        const int n = snprintf(can + used, sizeof can - used, "%s%s", used ? ", " : "",
                               gpuplan_engine_names[e]);
        if (n > 0 && (size_t)n < sizeof can - used)
            used += (size_t)n;
    }
    if (used)
        gpuplan_error_hint(err, "kinds that run it: %s%s", can,
                           p.has_fix ? "; or re-plan for this kind (recommend --emit does)" : "");
    else if (p.has_fix)
        gpuplan_error_hint(err, "re-plan for this kind (recommend --emit does)");
    return GPUPLAN_ERR_UNSUPPORTED;
}

bool gpuplan_emit_nearest(const struct gpuplan_plan *plan,
                          enum gpuplan_engine engine,
                          struct gpuplan_job *out)
{
    struct gpuplan_job j = plan->job;
    struct problem p;
    /* Each step fixes one knob; a handful of knobs can be off at once. */
    for (int step = 0; step < 8; step++) {
        if (!job_problem(plan, &j, engine, &p)) {
            *out = j;
            return step > 0;
        }
        if (!p.has_fix)
            return false;
        j = p.fix;
    }
    return false;
}

enum gpuplan_status gpuplan_emit(const struct gpuplan_plan *plan,
                                 enum gpuplan_engine engine,
                                 struct gpuplan_buf *out,
                                 struct gpuplan_error *err)
{
    const enum gpuplan_status st = gpuplan_emit_check(plan, engine, err);
    if (st != GPUPLAN_OK)
        return st;
    switch (engine) {
    case GPUPLAN_ENGINE_DEEPSPEED:
        return emit_deepspeed(plan, out, err);
    case GPUPLAN_ENGINE_ACCELERATE:
        return emit_accelerate(plan, out, err);
    case GPUPLAN_ENGINE_TORCHRUN:
        return emit_torchrun(plan, out, err);
    case GPUPLAN_ENGINE_SLURM:
        return emit_slurm(plan, out, err);
    case GPUPLAN_ENGINE_AXOLOTL:
        return emit_axolotl(plan, out, err);
    case GPUPLAN_ENGINE_LLAMA_FACTORY:
        return emit_llama_factory(plan, out, err);
    case GPUPLAN_ENGINE_TORCHTUNE:
        return emit_torchtune(plan, out, err);
    case GPUPLAN_ENGINE_TRL:
        return emit_trl(plan, out, err);
    case GPUPLAN_ENGINE_VLLM:
        return emit_vllm(plan, out, err);
    case GPUPLAN_ENGINE_SGLANG:
        return emit_sglang(plan, out, err);
    case GPUPLAN_ENGINE_K8S:
        return emit_k8s(plan, out, err);
    case GPUPLAN_ENGINE_SKYPILOT:
        return emit_skypilot(plan, out, err);
    default:
        return gpuplan_error_set(err, GPUPLAN_ERR_USAGE, "--emit", "unknown kind %d", (int)engine);
    }
}
