/*
 * emit_internal.h - what the launch-file writers share (emit.c): the plan's
 * counts, the engine vocabularies every HF-Trainer-based kind uses, and one
 * writer per kind (emit_launch.c, emit_frameworks.c, emit_serve.c).
 *
 * Every writer is called only after gpuplan_emit_check() accepted the plan
 * for its kind, so it may assume what the check guarantees (docs/emit.md).
 */
#ifndef GPUPLAN_EMIT_INTERNAL_H
#define GPUPLAN_EMIT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpuplan/buf.h"
#include "gpuplan/error.h"
#include "gpuplan/plan.h"
#include "gpuplan/render.h"

/* The DeepSpeed config file the other kinds name for a ZeRO plan (`gpuplan emit deepspeed`). */
#define EMIT_DS_FILE "ds_config.json"
/* The rendezvous port of multi-node launches: torchrun's examples and accelerate's
 * multi_node.yaml template both use 29500 (docs/research/formats-and-engines.md 3.2, 3.3). */
#define EMIT_RDZV_PORT 29500
/* vLLM's and SGLang's OpenAI-compatible server ports when none is given (vllm
 * entrypoints/openai/cli_args.py --port 8000; sglang server_args.py port 30000). */
#define EMIT_VLLM_PORT   8000
#define EMIT_SGLANG_PORT 30000

uint32_t emit_n_gpus(const struct gpuplan_plan *plan);
/* Data-parallel ranks: GPUs / (tp * pp), at least 1. */
uint64_t emit_dp(const struct gpuplan_plan *plan);
/* ZeRO stage of a zero* sharding; 0 for the others. */
int emit_zero_stage(enum gpuplan_sharding sharding);
bool emit_is_fsdp(enum gpuplan_sharding sharding);
bool emit_offloads_optimizer(enum gpuplan_offload offload);
bool emit_offloads_params(enum gpuplan_offload offload);
/* The decoder-block class FSDP wraps (transformers modeling_*.py), or NULL. */
const char *emit_wrap_class(const char *family);
/* CPU threads per rank: the server's cores over its GPUs (DataLoader workers, CPU Adam). */
uint32_t emit_threads_per_rank(const struct gpuplan_plan *plan);
/* The plan's GPU id ("gpu" when the plan names none). */
const char *emit_gpu_id(const struct gpuplan_plan *plan);

/*
 * What an HF-Trainer-based stack (TRL, accelerate, axolotl, LLaMA-Factory, a
 * TrainingArguments script) is told so that it keeps what the plan's
 * precision recipe counts: TrainingArguments bf16/fp16 and the dtype the
 * script loads the model in. Valid after gpuplan_emit_check.
 */
struct emit_hf_precision {
    bool bf16;              /* TrainingArguments bf16 (autocast, or FSDP MixedPrecision) */
    bool fp16;              /* TrainingArguments fp16 */
    const char *load_dtype; /* from_pretrained dtype: "bfloat16", "float16", "float32" */
};
void emit_hf_precision(const struct gpuplan_plan *plan, struct emit_hf_precision *out);

/* TrainingArguments `optim` for the plan's optimizer (training_args.py OptimizerNames). */
const char *emit_hf_optim(enum gpuplan_optimizer optimizer);
/* transformers attn_implementation: "eager", "sdpa", "flash_attention_2". */
const char *emit_hf_attention(enum gpuplan_attention attention);
/*
 * The LoRA target modules as PEFT names, one per entry of `out` (at most
 * `max`): "all-linear" alone, or q_proj, v_proj, ...; the count.
 */
size_t emit_lora_modules(const struct gpuplan_job *job, char (*out)[32], size_t max);

/* `train.py` and the TrainingArguments flags of the plan (torchrun, Slurm, k8s, SkyPilot). */
void emit_train_script(const struct gpuplan_plan *plan, struct gpuplan_buf *out);
/* The serving plan's launch line, one flag per line (`sep` between words: " \\\n  " or
 * "\n" for a YAML list). */
void emit_launch_words(const struct gpuplan_plan *plan, const char *sep, struct gpuplan_buf *out);

/* The writers, one per kind (their checks passed). */
enum gpuplan_status
emit_deepspeed(const struct gpuplan_plan *plan, struct gpuplan_buf *out, struct gpuplan_error *err);
enum gpuplan_status emit_accelerate(const struct gpuplan_plan *plan,
                                    struct gpuplan_buf *out,
                                    struct gpuplan_error *err);
enum gpuplan_status
emit_torchrun(const struct gpuplan_plan *plan, struct gpuplan_buf *out, struct gpuplan_error *err);
enum gpuplan_status
emit_slurm(const struct gpuplan_plan *plan, struct gpuplan_buf *out, struct gpuplan_error *err);
enum gpuplan_status
emit_axolotl(const struct gpuplan_plan *plan, struct gpuplan_buf *out, struct gpuplan_error *err);
enum gpuplan_status emit_llama_factory(const struct gpuplan_plan *plan,
                                       struct gpuplan_buf *out,
                                       struct gpuplan_error *err);
enum gpuplan_status
emit_torchtune(const struct gpuplan_plan *plan, struct gpuplan_buf *out, struct gpuplan_error *err);
enum gpuplan_status
emit_trl(const struct gpuplan_plan *plan, struct gpuplan_buf *out, struct gpuplan_error *err);
enum gpuplan_status
emit_vllm(const struct gpuplan_plan *plan, struct gpuplan_buf *out, struct gpuplan_error *err);
enum gpuplan_status
emit_sglang(const struct gpuplan_plan *plan, struct gpuplan_buf *out, struct gpuplan_error *err);
enum gpuplan_status
emit_k8s(const struct gpuplan_plan *plan, struct gpuplan_buf *out, struct gpuplan_error *err);
enum gpuplan_status
emit_skypilot(const struct gpuplan_plan *plan, struct gpuplan_buf *out, struct gpuplan_error *err);

/* torchtune's model builder for the plan's model ("llama3_1_8b"), or NULL when none is known. */
const char *emit_torchtune_builder(const char *model_id);
/* SkyPilot's accelerator name for a catalog GPU ("H100"), or NULL when none is known. */
const char *emit_skypilot_accelerator(const char *gpu_id);

#endif
