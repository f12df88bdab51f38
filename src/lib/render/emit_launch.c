/*
 * emit_launch.c - the launchers: DeepSpeed config JSON, accelerate config
 * YAML, a torchrun command line and a Slurm batch script.
 *
 * Key names and value sets follow the engines at the versions of
 * docs/configs.md (the key lists in tests/fixtures/engine-keys/ are what the
 * tests hold them to):
 *   DeepSpeed @edaa72212 (0.19.6) docs/_pages/config-json.md; the 16-bit
 *     master flags from runtime/precision_config.py (DeepSpeedBF16Config:
 *     bf16_master_weights_and_grads, bf16_optimizer_states), checked by
 *     runtime/config.py (ZeRO 1-3 only; states need the master flag) and
 *     runtime/base_optimizer.py _configure_master_weights; with CPU offload
 *     the engine builds DeepSpeedCPUAdam with fp32_optimizer_states off
 *     (runtime/engine.py _configure_basic_optimizer), so the optimizer block
 *     is written whenever the states are offloaded or 16-bit;
 *   accelerate @16cb6eb8 (1.15.0.dev0) commands/launch.py and
 *     config_args.py; FSDP keeps fp32 shards of trainable parameters
 *     whenever mixed_precision is not "no" (accelerator.py prepare_model,
 *     the "upcast" loop), so pure bf16 under FSDP is mixed_precision 'no'
 *     over a model loaded in bfloat16; FP8 is fp8_config.backend TE or AO;
 *   torchrun (torch.distributed.run): --standalone on one node, c10d
 *     rendezvous on the head node for several (docs/research/formats-and-
 *     engines.md 3.3); the script's flags are TrainingArguments'
 *     (transformers training_args.py: fsdp, fsdp_config as a JSON string,
 *     _VALID_DICT_FIELDS), so the sharding reaches the script;
 *   Slurm: one torchrun per node through srun (formats-and-engines.md 3.5).
 * Not here: the checks (emit.c).
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gpuplan/catalog.h"
#include "render/emit_internal.h"
#include "util/json_internal.h"

/* ---- DeepSpeed JSON ---- */

static json_t *ds_offload(const char *device)
{
    json_t *o = json_object();
    json_object_set_new(o, "device", json_string(device));
    json_object_set_new(o, "pin_memory", json_true());
    return o;
}

static json_t *ds_zero(const struct gpuplan_plan *plan)
{
    const int stage = emit_zero_stage(plan->job.sharding);
    json_t *z = json_object();
    json_object_set_new(z, "stage", json_integer(stage));
    json_object_set_new(z, "overlap_comm", json_true());
    json_object_set_new(z, "contiguous_gradients", json_true());
    const enum gpuplan_offload off = plan->job.offload;
    const char *device = off == GPUPLAN_OFFLOAD_NVME ? "nvme" : "cpu";
    json_t *opt = emit_offloads_optimizer(off) ? ds_offload(device) : NULL;
    json_t *par = emit_offloads_params(off) ? ds_offload(device) : NULL;
    if (off == GPUPLAN_OFFLOAD_NVME) {
        /* ZeRO-Infinity needs a path on the node's NVMe; the server spec has the drive, not its
         * mount point: /local_nvme is the config-json.md example's. */
        json_object_set_new(opt, "nvme_path", json_string("/local_nvme"));
        json_object_set_new(par, "nvme_path", json_string("/local_nvme"));
    }
    if (opt)
        json_object_set_new(z, "offload_optimizer", opt);
    if (par)
        json_object_set_new(z, "offload_param", par);
    if (stage == 3)
        json_object_set_new(z, "stage3_gather_16bit_weights_on_model_save", json_true());
    return z;
}

/* DeepSpeed's optimizer name for the plan's, or NULL (the script brings its own). */
static const char *ds_optimizer(enum gpuplan_optimizer o)
{
    switch (o) {
    case GPUPLAN_OPTIMIZER_ADAMW:
        return "AdamW";
    case GPUPLAN_OPTIMIZER_LION:
        return "Lion";
    default:
        return NULL;
    }
}

enum gpuplan_status
emit_deepspeed(const struct gpuplan_plan *plan, struct gpuplan_buf *out, struct gpuplan_error *err)
{
    const struct gpuplan_job *job = &plan->job;
    json_t *root = json_object();
    if (!root)
        return gpuplan_error_set(err, GPUPLAN_ERR_NOMEM, NULL, "out of memory");
    const uint64_t global_batch = job->micro_batch * job->grad_accum * emit_dp(plan);
    json_object_set_new(root, "train_micro_batch_size_per_gpu",
                        json_integer((json_int_t)job->micro_batch));
    json_object_set_new(root, "gradient_accumulation_steps",
                        json_integer((json_int_t)job->grad_accum));
    json_object_set_new(root, "train_batch_size", json_integer((json_int_t)global_batch));
    const bool pure = job->precision == GPUPLAN_PRECISION_BF16;
    if (job->precision == GPUPLAN_PRECISION_FP16_MIXED) {
        json_t *fp16 = json_object();
        json_object_set_new(fp16, "enabled", json_true());
        json_object_set_new(fp16, "loss_scale", json_integer(0)); /* dynamic */
        json_object_set_new(fp16, "initial_scale_power", json_integer(16));
        json_object_set_new(root, "fp16", fp16);
    } else if (job->precision != GPUPLAN_PRECISION_FP32) {
        json_t *bf16 = json_object();
        json_object_set_new(bf16, "enabled", json_true());
        if (pure) { /* no fp32 master partition, no fp32 moments */
            json_object_set_new(bf16, "bf16_master_weights_and_grads", json_true());
            json_object_set_new(bf16, "bf16_optimizer_states", json_true());
        }
        json_object_set_new(root, "bf16", bf16);
    }
    json_object_set_new(root, "zero_optimization", ds_zero(plan));
    if (job->tp > 1) {
        json_t *tp = json_object();
        json_object_set_new(tp, "autotp_size", json_integer(job->tp));
        json_object_set_new(root, "tensor_parallel", tp);
    }
    /* The learning rate is the training script's; 2e-5 is config-json.md's example value. */
    const char *name = ds_optimizer(job->optimizer);
    if (name && (emit_offloads_optimizer(job->offload) || pure)) {
        json_t *opt = json_object(), *params = json_object();
        json_object_set_new(params, "lr", json_real(2e-5));
        json_object_set_new(params, "weight_decay", json_real(0.0));
        json_object_set_new(opt, "type", json_string(name));
        json_object_set_new(opt, "params", params);
        json_object_set_new(root, "optimizer", opt);
    }
    return gpuplan_json_write(root, JSON_INDENT(2) | JSON_SORT_KEYS | JSON_REAL_PRECISION(6), out,
                              err);
}

/* ---- accelerate YAML ---- */

static const char *accelerate_mixed_precision(const struct gpuplan_plan *plan)
{
    const struct gpuplan_job *j = &plan->job;
    switch (j->precision) {
    case GPUPLAN_PRECISION_FP16_MIXED:
        return "fp16";
    case GPUPLAN_PRECISION_FP32:
        return "'no'";
    case GPUPLAN_PRECISION_FP8_MIXED:
        return "fp8";
    case GPUPLAN_PRECISION_BF16:
        /* ZeRO: the DS JSON's bf16 engine; otherwise no upcast, no autocast */
        return emit_zero_stage(j->sharding) > 0 ? "bf16" : "'no'";
    default:
        return "bf16";
    }
}

static void
accelerate_common(const struct gpuplan_plan *plan, const char *type, struct gpuplan_buf *out)
{
    struct emit_hf_precision hp;
    emit_hf_precision(plan, &hp);
    gpuplan_buf_printf(out,
                       "# %s on %u x %s: accelerate launch --config_file this.yaml train.py\n"
                       "# the script loads the model in %s (from_pretrained dtype)\n"
                       "compute_environment: LOCAL_MACHINE\n"
                       "distributed_type: %s\n"
                       "mixed_precision: %s\n"
                       "num_machines: %u\n"
                       "num_processes: %u\n"
                       "machine_rank: 0\n",
                       plan->model_id, emit_n_gpus(plan), emit_gpu_id(plan), hp.load_dtype, type,
                       accelerate_mixed_precision(plan), plan->nodes, emit_n_gpus(plan));
    if (plan->nodes > 1)
        gpuplan_buf_printf(out,
                           "main_process_ip: HEAD_NODE_IP   # the first node's address\n"
                           "main_process_port: %d\n"
                           "rdzv_backend: c10d\n"
                           "same_network: true\n",
                           EMIT_RDZV_PORT);
    if (plan->job.compile)
        gpuplan_buf_puts(out, "dynamo_config:\n"
                              "  dynamo_backend: INDUCTOR\n");
    if (plan->job.precision == GPUPLAN_PRECISION_FP8_MIXED) {
        /* Transformer Engine on NVIDIA (CC >= 8.9), torchao float8 on AMD
         * (docs/research/formats-and-engines.md 4.4). */
        const bool amd = plan->gpu && plan->gpu->vendor == GPUPLAN_VENDOR_AMD;
        gpuplan_buf_printf(out, "fp8_config:\n  backend: %s\n", amd ? "AO" : "TE");
        if (!amd)
            gpuplan_buf_puts(out, "  fp8_format: HYBRID\n");
        else if (emit_is_fsdp(plan->job.sharding))
            gpuplan_buf_puts(out, "  enable_fsdp_float8_all_gather: true\n");
    }
}

static void accelerate_fsdp(const struct gpuplan_plan *plan, struct gpuplan_buf *out)
{
    const struct gpuplan_job *job = &plan->job;
    const char *cls = emit_wrap_class(plan->model_family);
    const bool hybrid = job->sharding == GPUPLAN_SHARDING_FSDP_HYBRID;
    accelerate_common(plan, "FSDP", out);
    gpuplan_buf_puts(out, "fsdp_config:\n");
    if (hybrid) /* HYBRID_SHARD is an FSDP1 strategy (accelerate's FSDP2 has no key for it) */
        gpuplan_buf_puts(out, "  fsdp_version: 1\n"
                              "  fsdp_sharding_strategy: HYBRID_SHARD\n"
                              "  fsdp_backward_prefetch: BACKWARD_PRE\n"
                              "  fsdp_sync_module_states: true\n"
                              "  fsdp_use_orig_params: true\n");
    else
        gpuplan_buf_puts(out, "  fsdp_version: 2\n"
                              "  fsdp_reshard_after_forward: true\n");
    gpuplan_buf_puts(out, "  fsdp_auto_wrap_policy: TRANSFORMER_BASED_WRAP\n");
    if (cls)
        gpuplan_buf_printf(out, "  fsdp_transformer_layer_cls_to_wrap: %s\n", cls);
    gpuplan_buf_printf(out,
                       "  fsdp_state_dict_type: SHARDED_STATE_DICT\n"
                       "  fsdp_cpu_ram_efficient_loading: true\n"
                       "  fsdp_offload_params: %s\n"
                       "  fsdp_activation_checkpointing: %s\n",
                       emit_offloads_params(job->offload) ? "true" : "false",
                       job->grad_ckpt != GPUPLAN_CKPT_NONE ? "true" : "false");
    if (job->tp > 1 && !hybrid)
        gpuplan_buf_printf(out,
                           "parallelism_config:\n"
                           "  parallelism_config_tp_size: %u\n"
                           "  parallelism_config_dp_shard_size: %llu\n",
                           job->tp, (unsigned long long)emit_dp(plan));
}

static void accelerate_deepspeed(const struct gpuplan_plan *plan, struct gpuplan_buf *out)
{
    accelerate_common(plan, "DEEPSPEED", out);
    /* The JSON owns ZeRO, offload and the 16-bit master flags the inline keys cannot say. */
    gpuplan_buf_printf(out,
                       "deepspeed_config:\n"
                       "  deepspeed_config_file: %s   # gpuplan emit deepspeed\n"
                       "  zero3_init_flag: %s\n",
                       EMIT_DS_FILE, emit_zero_stage(plan->job.sharding) == 3 ? "true" : "false");
}

enum gpuplan_status
emit_accelerate(const struct gpuplan_plan *plan, struct gpuplan_buf *out, struct gpuplan_error *err)
{
    const enum gpuplan_sharding s = plan->job.sharding;
    if (emit_is_fsdp(s))
        accelerate_fsdp(plan, out);
    else if (emit_zero_stage(s) > 0)
        accelerate_deepspeed(plan, out);
    else if (emit_n_gpus(plan) > 1)
        accelerate_common(plan, "MULTI_GPU", out);
    else
        accelerate_common(plan, "'NO'", out);
    return gpuplan_buf_status(out, err);
}

/* ---- torchrun and Slurm ---- */

void emit_train_script(const struct gpuplan_plan *plan, struct gpuplan_buf *out)
{
    const struct gpuplan_job *j = &plan->job;
    struct emit_hf_precision hp;
    emit_hf_precision(plan, &hp);
    gpuplan_buf_printf(out,
                       "train.py --per_device_train_batch_size %llu --gradient_accumulation_steps "
                       "%llu --optim %s",
                       (unsigned long long)j->micro_batch, (unsigned long long)j->grad_accum,
                       emit_hf_optim(j->optimizer));
    if (hp.bf16)
        gpuplan_buf_puts(out, " --bf16");
    if (hp.fp16)
        gpuplan_buf_puts(out, " --fp16");
    if (j->compile)
        gpuplan_buf_puts(out, " --torch_compile");
    const bool ckpt = j->grad_ckpt != GPUPLAN_CKPT_NONE;
    if (emit_zero_stage(j->sharding) > 0) {
        gpuplan_buf_printf(out, " --deepspeed %s", EMIT_DS_FILE);
    } else if (emit_is_fsdp(j->sharding)) {
        const char *cls = emit_wrap_class(plan->model_family);
        gpuplan_buf_printf(out, " --fsdp '%s auto_wrap%s'",
                           j->sharding == GPUPLAN_SHARDING_FSDP_HYBRID ? "hybrid_shard"
                                                                       : "full_shard",
                           emit_offloads_params(j->offload) ? " offload" : "");
        /* Under FSDP the checkpointing is FSDP's (fsdp_config activation_checkpointing) */
        gpuplan_buf_printf(out, " --fsdp_config '{\"activation_checkpointing\": %s",
                           ckpt ? "true" : "false");
        if (cls)
            gpuplan_buf_printf(out, ", \"transformer_layer_cls_to_wrap\": [\"%s\"]", cls);
        gpuplan_buf_puts(out, "}'");
    }
    if (ckpt && !emit_is_fsdp(j->sharding))
        gpuplan_buf_puts(out, " --gradient_checkpointing");
}

static void script_comment(const struct gpuplan_plan *plan, struct gpuplan_buf *out)
{
    struct emit_hf_precision hp;
    emit_hf_precision(plan, &hp);
    gpuplan_buf_printf(out,
                       "# train.py parses TrainingArguments (HfArgumentParser) and loads %s in "
                       "%s%s\n",
                       plan->hub_id[0] ? plan->hub_id : plan->model_id, hp.load_dtype,
                       emit_zero_stage(plan->job.sharding) > 0 ? "; " EMIT_DS_FILE
                                                                 " is `gpuplan emit deepspeed`"
                                                               : "");
}

enum gpuplan_status
emit_torchrun(const struct gpuplan_plan *plan, struct gpuplan_buf *out, struct gpuplan_error *err)
{
    gpuplan_buf_printf(out, "# %s on %u x %s (%u node%s x %u GPUs)%s\n", plan->model_id,
                       emit_n_gpus(plan), emit_gpu_id(plan), plan->nodes,
                       plan->nodes == 1 ? "" : "s", plan->gpus_per_node,
                       plan->nodes > 1 ? "; run on every node, HEAD_NODE = the first node" : "");
    script_comment(plan, out);
    gpuplan_buf_printf(out, "OMP_NUM_THREADS=%u torchrun", emit_threads_per_rank(plan));
    if (plan->nodes == 1)
        gpuplan_buf_printf(out, " --standalone --nproc-per-node=%u \\\n  ", plan->gpus_per_node);
    else
        gpuplan_buf_printf(out,
                           " --nnodes=%u --nproc-per-node=%u --max-restarts=0 \\\n"
                           "  --rdzv-id=\"$JOB_ID\" --rdzv-backend=c10d "
                           "--rdzv-endpoint=\"$HEAD_NODE:%d\" \\\n  ",
                           plan->nodes, plan->gpus_per_node, EMIT_RDZV_PORT);
    emit_train_script(plan, out);
    gpuplan_buf_puts(out, "\n");
    return gpuplan_buf_status(out, err);
}

/*
 * Wall-clock limit: the estimate + 20 % + 30 min for loading and checkpoints
 * (assumption; the estimate's spread against measurements is about +-20 %,
 * docs/planner.md). Without --tokens there is no estimate: 24 h, said in a
 * comment. Slurm's --time takes at most a year here.
 */
#define SLURM_TIME_MARGIN   1.2
#define SLURM_TIME_EXTRA_H  0.5
#define SLURM_TIME_NONE_H   24.0
#define SLURM_TIME_LIMIT_H  (24.0 * 365.0)
#define SLURM_MINUTES_PER_H 60.0

static void slurm_time(const struct gpuplan_plan *plan, struct gpuplan_buf *out)
{
    double hours = SLURM_TIME_NONE_H;
    if (plan->has_time && isfinite(plan->time_hours))
        hours = plan->time_hours * SLURM_TIME_MARGIN + SLURM_TIME_EXTRA_H;
    if (hours > SLURM_TIME_LIMIT_H)
        hours = SLURM_TIME_LIMIT_H;
    const unsigned long long total_min = (unsigned long long)ceil(hours * SLURM_MINUTES_PER_H);
    gpuplan_buf_printf(out, "#SBATCH --time=%llu:%02llu:00\n", total_min / 60, total_min % 60);
    if (!plan->has_time)
        gpuplan_buf_puts(out, "# no --tokens given: 24 h placeholder\n");
}

enum gpuplan_status
emit_slurm(const struct gpuplan_plan *plan, struct gpuplan_buf *out, struct gpuplan_error *err)
{
    gpuplan_buf_printf(out,
                       "#!/bin/bash\n"
                       "# %s on %u x %s; written by gpuplan (emit slurm)\n"
                       "#SBATCH --job-name=ft-%s\n"
                       "#SBATCH --nodes=%u\n"
                       "#SBATCH --ntasks-per-node=1\n"
                       "#SBATCH --gpus-per-node=%u\n"
                       "#SBATCH --cpus-per-task=%u\n"
                       "#SBATCH --mem=0\n",
                       plan->model_id, emit_n_gpus(plan), emit_gpu_id(plan), plan->model_id,
                       plan->nodes, plan->gpus_per_node,
                       plan->server.cpu_cores ? plan->server.cpu_cores : 1);
    slurm_time(plan, out);
    script_comment(plan, out);
    gpuplan_buf_printf(
        out,
        "\n"
        "nodes=( $(scontrol show hostnames \"$SLURM_JOB_NODELIST\") )\n"
        "head_node_ip=$(srun --nodes=1 --ntasks=1 -w \"${nodes[0]}\" hostname --ip-address)\n"
        "export OMP_NUM_THREADS=%u\n"
        "\n"
        "srun torchrun \\\n"
        "  --nnodes \"$SLURM_NNODES\" --nproc-per-node %u \\\n"
        "  --rdzv-id \"$SLURM_JOB_ID\" --rdzv-backend c10d --rdzv-endpoint \"$head_node_ip:%d\" "
        "\\\n  ",
        emit_threads_per_rank(plan), plan->gpus_per_node, EMIT_RDZV_PORT);
    emit_train_script(plan, out);
    gpuplan_buf_puts(out, "\n");
    return gpuplan_buf_status(out, err);
}
