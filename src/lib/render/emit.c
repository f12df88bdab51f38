/*
 * emit.c - launch configurations for a plan: DeepSpeed config JSON,
 * accelerate config YAML, a torchrun command line and a Slurm batch script.
 *
 * Every value is concrete (no "auto": raw DeepSpeed does not resolve it, only
 * the HF integrations do). Key names and value sets follow
 * docs/research/formats-and-engines.md section 3:
 *   3.1 DeepSpeed docs/_pages/config-json.md (train_batch_size =
 *       micro-batch x accumulation x data-parallel ranks; offload_param only
 *       with stage 3; NVMe offload only with stage 3);
 *   3.2 accelerate examples/config_yaml_templates (fsdp.yaml, deepspeed.yaml,
 *       multi_node.yaml) and the FSDP1 -> FSDP2 key mapping;
 *   3.3 torchrun (elastic quickstart): --standalone on one node, c10d
 *       rendezvous on the head node's port 29500 for several;
 *   3.5 the Slurm sketch: one torchrun per node via srun.
 * Not here: which layout to run (plan.c); serving launchers (vLLM) - serving
 * plans are refused with a hint.
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/plan.h"
#include "gpuplan/render.h"
#include "gpuplan/units.h"
#include "util/json_internal.h"

const char *const gpuplan_engine_names[GPUPLAN_ENGINE_COUNT + 1] = {
    [GPUPLAN_ENGINE_DEEPSPEED] = "deepspeed",
    [GPUPLAN_ENGINE_ACCELERATE] = "accelerate",
    [GPUPLAN_ENGINE_TORCHRUN] = "torchrun",
    [GPUPLAN_ENGINE_SLURM] = "slurm",
    [GPUPLAN_ENGINE_COUNT] = NULL,
};

const char *gpuplan_engine_name(enum gpuplan_engine engine)
{
    return (unsigned)engine < GPUPLAN_ENGINE_COUNT ? gpuplan_engine_names[engine] : "unknown";
}

enum gpuplan_status
gpuplan_engine_parse(const char *name, enum gpuplan_engine *out, struct gpuplan_error *err)
{
    for (int i = 0; i < GPUPLAN_ENGINE_COUNT; i++) {
        if (name && strcmp(name, gpuplan_engine_names[i]) == 0) {
            *out = (enum gpuplan_engine)i;
            return GPUPLAN_OK;
        }
    }
    return gpuplan_error_set(
        err, GPUPLAN_ERR_USAGE, "--emit",
        "unknown launcher '%s'; must be deepspeed, accelerate, torchrun or slurm",
        name ? name : "");
}

/* The decoder-block class FSDP wraps (transformers modeling_*.py), or NULL: then accelerate
 * falls back to the model's _no_split_modules. */
static const char *wrap_class(const char *family)
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
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        if (strcmp(family, table[i].family) == 0)
            return table[i].cls;
    }
    return NULL;
}

static uint32_t n_gpus_of(const struct gpuplan_plan *plan)
{
    return plan->gpus_per_node * plan->nodes;
}

/* Data-parallel ranks: GPUs / (tp * pp). */
static uint64_t dp_of(const struct gpuplan_plan *plan)
{
    const uint64_t mp =
        (uint64_t)(plan->job.tp ? plan->job.tp : 1) * (plan->job.pp ? plan->job.pp : 1);
    const uint64_t n = n_gpus_of(plan);
    return n / mp ? n / mp : 1;
}

/* ZeRO stage for a sharding (FSDP FULL_SHARD = ZeRO-3; HYBRID = ZeRO-3 + hpZ inside a node). */
static int zero_stage(enum gpuplan_sharding sharding)
{
    switch (sharding) {
    case GPUPLAN_SHARDING_ZERO1:
        return 1;
    case GPUPLAN_SHARDING_ZERO2:
        return 2;
    case GPUPLAN_SHARDING_ZERO3:
    case GPUPLAN_SHARDING_FSDP:
    case GPUPLAN_SHARDING_FSDP_HYBRID:
        return 3;
    default:
        return 0;
    }
}

static bool offloads_optimizer(enum gpuplan_offload o)
{
    return o == GPUPLAN_OFFLOAD_OPTIMIZER || o == GPUPLAN_OFFLOAD_OPTIMIZER_PARAMS ||
           o == GPUPLAN_OFFLOAD_NVME;
}

static bool offloads_params(enum gpuplan_offload o)
{
    return o == GPUPLAN_OFFLOAD_PARAMS || o == GPUPLAN_OFFLOAD_OPTIMIZER_PARAMS ||
           o == GPUPLAN_OFFLOAD_NVME;
}

static enum gpuplan_status
check_plan(const struct gpuplan_plan *plan, enum gpuplan_engine engine, struct gpuplan_error *err)
{
    if (!plan || plan->gpus_per_node == 0 || plan->nodes == 0 || plan->job.micro_batch == 0 ||
        plan->job.grad_accum == 0)
        return gpuplan_error_set(err, GPUPLAN_ERR_USAGE, "--emit",
                                 "the plan has no GPUs or a zero micro-batch; nothing to emit");
    if (plan->job.method == GPUPLAN_METHOD_INFER) {
        gpuplan_error_set(err, GPUPLAN_ERR_UNSUPPORTED, "--emit",
                          "'--emit %s' writes training launchers; this is a serving plan",
                          gpuplan_engine_name(engine));
        if (plan->is_serving && plan->serving.commands.launch[0])
            gpuplan_error_hint(err, "serve with: %s", plan->serving.commands.launch);
        else
            gpuplan_error_hint(err, "serve with vLLM: vllm serve %s --tensor-parallel-size %u",
                               plan->model_id[0] ? plan->model_id : "MODEL", plan->gpus_per_node);
        return GPUPLAN_ERR_UNSUPPORTED;
    }
    const int stage = zero_stage(plan->job.sharding);
    if (offloads_params(plan->job.offload) && stage < 3)
        return gpuplan_error_set(err, GPUPLAN_ERR_UNSUPPORTED, "--emit",
                                 "parameter offload needs ZeRO-3 or FSDP; the plan uses '%s'",
                                 gpuplan_sharding_name(plan->job.sharding));
    if (offloads_optimizer(plan->job.offload) && stage < 1 &&
        plan->job.sharding != GPUPLAN_SHARDING_NONE)
        return gpuplan_error_set(err, GPUPLAN_ERR_UNSUPPORTED, "--emit",
                                 "optimizer offload needs ZeRO-1/2/3; the plan uses '%s'",
                                 gpuplan_sharding_name(plan->job.sharding));
    return GPUPLAN_OK;
}

/* ---- DeepSpeed JSON (section 3.1) ---- */

static json_t *ds_offload(const char *device)
{
    json_t *o = json_object();
    json_object_set_new(o, "device", json_string(device));
    json_object_set_new(o, "pin_memory", json_true());
    if (strcmp(device, "nvme") == 0)
        json_object_set_new(o, "nvme_path", json_string("/local_nvme"));
    return o;
}

static json_t *ds_zero(const struct gpuplan_plan *plan)
{
    const int stage = zero_stage(plan->job.sharding);
    json_t *z = json_object();
    json_object_set_new(z, "stage", json_integer(stage));
    if (stage == 0)
        return z;
    json_object_set_new(z, "overlap_comm", json_true());
    json_object_set_new(z, "contiguous_gradients", json_true());
    const enum gpuplan_offload off = plan->job.offload;
    const char *device = off == GPUPLAN_OFFLOAD_NVME ? "nvme" : "cpu";
    if (offloads_optimizer(off))
        json_object_set_new(z, "offload_optimizer", ds_offload(device));
    if (offloads_params(off))
        json_object_set_new(z, "offload_param", ds_offload(device));
    if (stage == 3)
        json_object_set_new(z, "stage3_gather_16bit_weights_on_model_save", json_true());
    /* ZeRO++ hierarchical partitioning: a secondary copy of the weights inside each node, as
     * FSDP HYBRID_SHARD keeps a full shard per node (DeepSpeed ZeRO++ tutorial). */
    if (plan->job.sharding == GPUPLAN_SHARDING_FSDP_HYBRID && plan->nodes > 1)
        json_object_set_new(z, "zero_hpz_partition_size", json_integer(plan->gpus_per_node));
    return z;
}

static enum gpuplan_status
emit_deepspeed(const struct gpuplan_plan *plan, struct gpuplan_buf *out, struct gpuplan_error *err)
{
    const struct gpuplan_job *job = &plan->job;
    json_t *root = json_object();
    if (!root)
        return gpuplan_error_set(err, GPUPLAN_ERR_NOMEM, NULL, "out of memory");
    const uint64_t global_batch = job->micro_batch * job->grad_accum * dp_of(plan);
    json_object_set_new(root, "train_micro_batch_size_per_gpu",
                        json_integer((json_int_t)job->micro_batch));
    json_object_set_new(root, "gradient_accumulation_steps",
                        json_integer((json_int_t)job->grad_accum));
    json_object_set_new(root, "train_batch_size", json_integer((json_int_t)global_batch));
    json_object_set_new(root, "gradient_clipping", json_real(1.0));
    switch (job->precision) {
    case GPUPLAN_PRECISION_FP16_MIXED: {
        json_t *fp16 = json_object();
        json_object_set_new(fp16, "enabled", json_true());
        json_object_set_new(fp16, "loss_scale", json_integer(0)); /* dynamic */
        json_object_set_new(fp16, "initial_scale_power", json_integer(16));
        json_object_set_new(root, "fp16", fp16);
        break;
    }
    case GPUPLAN_PRECISION_FP32:
        break;
    default: { /* bf16, bf16-mixed, fp8-mixed (fp8 matmuls come from Transformer Engine) */
        json_t *bf16 = json_object();
        json_object_set_new(bf16, "enabled", json_true());
        json_object_set_new(root, "bf16", bf16);
        break;
    }
    }
    json_object_set_new(root, "zero_optimization", ds_zero(plan));
    /* With optimizer offload DeepSpeed must own the optimizer (DeepSpeedCPUAdam). The learning
     * rate is the docs' sample value; the training script's own lr overrides it via the
     * client API when it builds its optimizer instead. */
    if (offloads_optimizer(job->offload)) {
        json_t *opt = json_object(), *params = json_object();
        json_object_set_new(params, "lr", json_real(2e-5));
        json_object_set_new(params, "weight_decay", json_real(0.0));
        json_object_set_new(opt, "type", json_string("AdamW"));
        json_object_set_new(opt, "params", params);
        json_object_set_new(root, "optimizer", opt);
    }
    return gpuplan_json_write(root, JSON_INDENT(2) | JSON_SORT_KEYS | JSON_REAL_PRECISION(6), out,
                              err);
}

/* ---- accelerate YAML (section 3.2) ---- */

static const char *accelerate_mixed_precision(enum gpuplan_precision p)
{
    switch (p) {
    case GPUPLAN_PRECISION_FP16_MIXED:
        return "fp16";
    case GPUPLAN_PRECISION_FP32:
        return "'no'";
    case GPUPLAN_PRECISION_FP8_MIXED:
        return "fp8";
    default:
        return "bf16";
    }
}

static const char *offload_device(bool on, enum gpuplan_offload off)
{
    if (!on)
        return "none";
    return off == GPUPLAN_OFFLOAD_NVME ? "nvme" : "cpu";
}

static void
accelerate_common(const struct gpuplan_plan *plan, const char *type, struct gpuplan_buf *out)
{
    gpuplan_buf_printf(out,
                       "compute_environment: LOCAL_MACHINE\n"
                       "distributed_type: %s\n"
                       "mixed_precision: %s\n"
                       "num_machines: %u\n"
                       "num_processes: %u\n"
                       "machine_rank: 0\n",
                       type, accelerate_mixed_precision(plan->job.precision), plan->nodes,
                       n_gpus_of(plan));
    if (plan->nodes > 1)
        gpuplan_buf_puts(out, "main_process_ip: HEAD_NODE_IP\n"
                              "main_process_port: 29500\n"
                              "rdzv_backend: c10d\n"
                              "same_network: true\n");
    /* --compile: accelerate's dynamo_config compiles the whole model, loss included. */
    if (plan->job.compile) {
        gpuplan_buf_puts(out, "dynamo_config:\n"
                              "  dynamo_backend: INDUCTOR\n");
        if (!plan->job.compile_loss)
            gpuplan_buf_puts(out, "  # planned with --compile blocks (loss eager); accelerate\n"
                                  "  # compiles the loss too, which keeps less\n");
    }
}

static void accelerate_fsdp(const struct gpuplan_plan *plan, struct gpuplan_buf *out)
{
    const struct gpuplan_job *job = &plan->job;
    const char *cls = wrap_class(plan->model_family);
    const bool ckpt = job->grad_ckpt != GPUPLAN_CKPT_NONE;
    const bool off = offloads_params(job->offload) || offloads_optimizer(job->offload);
    accelerate_common(plan, "FSDP", out);
    gpuplan_buf_puts(out, "fsdp_config:\n");
    if (job->sharding == GPUPLAN_SHARDING_FSDP_HYBRID) {
        /* FSDP1: HYBRID_SHARD has no FSDP2 key in the accelerate templates. */
        gpuplan_buf_printf(out, "  fsdp_version: 1\n"
                                "  fsdp_sharding_strategy: HYBRID_SHARD\n"
                                "  fsdp_backward_prefetch: BACKWARD_PRE\n"
                                "  fsdp_sync_module_states: true\n"
                                "  fsdp_use_orig_params: true\n");
    } else {
        gpuplan_buf_puts(out, "  fsdp_version: 2\n"
                              "  fsdp_reshard_after_forward: true\n");
    }
    gpuplan_buf_puts(out, "  fsdp_auto_wrap_policy: TRANSFORMER_BASED_WRAP\n");
    if (cls)
        gpuplan_buf_printf(out, "  fsdp_transformer_layer_cls_to_wrap: %s\n", cls);
    if (job->fsdp_embed_units)
        gpuplan_buf_puts(out,
                         "  # planned with --fsdp-wrap layers+embeddings: TRANSFORMER_BASED_WRAP\n"
                         "  # leaves the embedding and head in the root unit, gathered from\n"
                         "  # forward to backward; wrap them apart yourself or re-plan with\n"
                         "  # --fsdp-wrap layers\n");
    gpuplan_buf_printf(out,
                       "  fsdp_state_dict_type: SHARDED_STATE_DICT\n"
                       "  fsdp_cpu_ram_efficient_loading: true\n"
                       "  fsdp_offload_params: %s\n"
                       "  fsdp_activation_checkpointing: %s\n",
                       off ? "true" : "false", ckpt ? "true" : "false");
}

static void accelerate_deepspeed(const struct gpuplan_plan *plan, struct gpuplan_buf *out)
{
    const struct gpuplan_job *job = &plan->job;
    const int stage = zero_stage(job->sharding);
    accelerate_common(plan, "DEEPSPEED", out);
    gpuplan_buf_printf(out,
                       "deepspeed_config:\n"
                       "  zero_stage: %d\n"
                       "  offload_optimizer_device: %s\n"
                       "  offload_param_device: %s\n"
                       "  gradient_accumulation_steps: %llu\n"
                       "  gradient_clipping: 1.0\n",
                       stage, offload_device(offloads_optimizer(job->offload), job->offload),
                       offload_device(offloads_params(job->offload), job->offload),
                       (unsigned long long)job->grad_accum);
    if (stage == 3)
        gpuplan_buf_puts(out, "  zero3_init_flag: true\n"
                              "  zero3_save_16bit_model: true\n");
}

static enum gpuplan_status
emit_accelerate(const struct gpuplan_plan *plan, struct gpuplan_buf *out, struct gpuplan_error *err)
{
    const enum gpuplan_sharding s = plan->job.sharding;
    if (s == GPUPLAN_SHARDING_FSDP || s == GPUPLAN_SHARDING_FSDP_HYBRID) {
        accelerate_fsdp(plan, out);
    } else if (s >= GPUPLAN_SHARDING_ZERO1 && s <= GPUPLAN_SHARDING_ZERO3) {
        accelerate_deepspeed(plan, out);
    } else if (n_gpus_of(plan) > 1) {
        accelerate_common(plan, "MULTI_GPU", out);
    } else if (plan->job.offload != GPUPLAN_OFFLOAD_NONE) {
        accelerate_deepspeed(plan, out); /* single-GPU ZeRO-Offload */
    } else {
        accelerate_common(plan, "'NO'", out);
    }
    return gpuplan_buf_status(out, err);
}

/* ---- torchrun (section 3.3) and Slurm (section 3.5) ---- */

/* CPU threads per rank: the server's cores split over its GPUs (DataLoader workers, CPU Adam). */
static uint32_t threads_per_rank(const struct gpuplan_plan *plan)
{
    const uint32_t t = plan->server.cpu_cores / (plan->gpus_per_node ? plan->gpus_per_node : 1);
    return t ? t : 1;
}

static void training_script(const struct gpuplan_plan *plan, struct gpuplan_buf *out)
{
    if (zero_stage(plan->job.sharding) > 0 && plan->job.sharding != GPUPLAN_SHARDING_FSDP &&
        plan->job.sharding != GPUPLAN_SHARDING_FSDP_HYBRID)
        gpuplan_buf_puts(out, "train.py --deepspeed ds_config.json");
    else if (plan->job.offload != GPUPLAN_OFFLOAD_NONE &&
             plan->job.sharding == GPUPLAN_SHARDING_NONE)
        gpuplan_buf_puts(out, "train.py --deepspeed ds_config.json");
    else
        gpuplan_buf_puts(out, "train.py");
    gpuplan_buf_printf(
        out, " --per_device_train_batch_size %llu --gradient_accumulation_steps %llu",
        (unsigned long long)plan->job.micro_batch, (unsigned long long)plan->job.grad_accum);
    if (plan->job.grad_ckpt != GPUPLAN_CKPT_NONE)
        gpuplan_buf_puts(out, " --gradient_checkpointing");
}

static enum gpuplan_status
emit_torchrun(const struct gpuplan_plan *plan, struct gpuplan_buf *out, struct gpuplan_error *err)
{
    gpuplan_buf_printf(out, "# %s on %u x %s (%u node%s x %u GPUs)%s\n", plan->model_id,
                       n_gpus_of(plan), plan->gpu ? plan->gpu->id : "gpu", plan->nodes,
                       plan->nodes == 1 ? "" : "s", plan->gpus_per_node,
                       plan->nodes > 1 ? "; run on every node, HEAD_NODE = the first node" : "");
    gpuplan_buf_printf(out, "OMP_NUM_THREADS=%u torchrun", threads_per_rank(plan));
    if (plan->nodes == 1)
        gpuplan_buf_printf(out, " --standalone --nproc-per-node=%u \\\n  ", plan->gpus_per_node);
    else
        gpuplan_buf_printf(
            out,
            " --nnodes=%u --nproc-per-node=%u --max-restarts=0 \\\n"
            "  --rdzv-id=$JOB_ID --rdzv-backend=c10d --rdzv-endpoint=$HEAD_NODE:29500 \\\n  ",
            plan->nodes, plan->gpus_per_node);
    training_script(plan, out);
    gpuplan_buf_puts(out, "\n");
    return gpuplan_buf_status(out, err);
}

/*
 * Wall-clock limit: the estimate + 20 % + 30 min for loading and checkpoints
 * (assumption; the estimate's spread against measurements is about +-20 %,
 * docs/planner.md). Without --tokens there is no estimate: 24 h, said in a comment.
 */
static void slurm_time(const struct gpuplan_plan *plan, struct gpuplan_buf *out)
{
    double hours = 24.0;
    if (plan->has_time && isfinite(plan->time_hours))
        hours = plan->time_hours * 1.2 + 0.5;
    if (hours > 24.0 * 365.0)
        hours = 24.0 * 365.0;
    const unsigned long long total_min = (unsigned long long)ceil(hours * 60.0);
    gpuplan_buf_printf(out, "#SBATCH --time=%llu:%02llu:00%s\n", total_min / 60, total_min % 60,
                       plan->has_time ? "" : "   # no --tokens given: 24 h placeholder");
}

static enum gpuplan_status
emit_slurm(const struct gpuplan_plan *plan, struct gpuplan_buf *out, struct gpuplan_error *err)
{
    gpuplan_buf_printf(out,
                       "#!/bin/bash\n"
                       "# %s on %u x %s; written by gpuplan recommend --emit slurm\n"
                       "#SBATCH --job-name=ft-%s\n"
                       "#SBATCH --nodes=%u\n"
                       "#SBATCH --ntasks-per-node=1\n"
                       "#SBATCH --gpus-per-node=%u\n"
                       "#SBATCH --cpus-per-task=%u\n"
                       "#SBATCH --mem=0\n",
                       plan->model_id, n_gpus_of(plan), plan->gpu ? plan->gpu->id : "gpu",
                       plan->model_id, plan->nodes, plan->gpus_per_node,
                       plan->server.cpu_cores ? plan->server.cpu_cores : 1);
    slurm_time(plan, out);
    gpuplan_buf_printf(
        out,
        "\n"
        "nodes=( $(scontrol show hostnames \"$SLURM_JOB_NODELIST\") )\n"
        "head_node_ip=$(srun --nodes=1 --ntasks=1 -w \"${nodes[0]}\" hostname --ip-address)\n"
        "export OMP_NUM_THREADS=%u\n"
        "\n"
        "srun torchrun \\\n"
        "  --nnodes \"$SLURM_NNODES\" --nproc-per-node %u \\\n"
        "  --rdzv-id \"$SLURM_JOB_ID\" --rdzv-backend c10d --rdzv-endpoint \"$head_node_ip:29500\" \\\n"
        "  ",
        threads_per_rank(plan), plan->gpus_per_node);
    training_script(plan, out);
    gpuplan_buf_puts(out, "\n");
    return gpuplan_buf_status(out, err);
}

enum gpuplan_status gpuplan_emit(const struct gpuplan_plan *plan,
                                 enum gpuplan_engine engine,
                                 struct gpuplan_buf *out,
                                 struct gpuplan_error *err)
{
    const enum gpuplan_status st = check_plan(plan, engine, err);
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
    default:
        return gpuplan_error_set(err, GPUPLAN_ERR_USAGE, "--emit", "unknown launcher %d",
                                 (int)engine);
    }
}
