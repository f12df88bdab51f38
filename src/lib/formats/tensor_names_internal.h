/*
 * tensor_names.h - map a stored tensor name to its inventory role, block
 * index and stack (library-internal).
 *
 * Two naming schemes are covered:
 *  - Hugging Face / PyTorch state-dict names as written to safetensors:
 *    llama, mistral, qwen2/3, gemma ("model.layers.N.self_attn.q_proj.weight"),
 *    mixtral ("block_sparse_moe.experts.E.w1"), qwen-moe / deepseek
 *    ("mlp.experts.E.gate_proj", "mlp.shared_expert(s).*", "mlp.gate"),
 *    DeepSeek MLA ("q_a_proj", "kv_a_proj_with_mqa", "kv_b_proj"), phi3
 *    ("qkv_proj", "gate_up_proj"), gpt2 ("h.N.attn.c_attn"), gpt-neox and
 *    falcon ("query_key_value", "dense_h_to_4h"), T5 ("encoder.block.N.
 *    layer.M.SelfAttention.q", "DenseReluDense.wi_0") and the quantisation
 *    side tensors of bitsandbytes, GPTQ/AWQ and FP8 checkpoints;
 *  - GGUF names as written by llama.cpp's convert_hf_to_gguf.py
 *    (gguf-py/gguf/constants.py TENSOR_NAMES: "token_embd", "blk.N.attn_q",
 *    "blk.N.ffn_gate_exps", "blk.N.ffn_down_shexp", "output_norm", "output").
 *
 * Unknown names map to GPUPLAN_ROLE_OTHER; classification never fails.
 * Not here: shapes, dtypes or counting (the format parsers do that).
 */
#ifndef GPUPLAN_TENSOR_NAMES_H
#define GPUPLAN_TENSOR_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpuplan/model.h"

struct gpuplan_tensor_name_info {
    enum gpuplan_role role;
    enum gpuplan_stack stack;
    int32_t layer;        /* block index, -1 outside the blocks */
    int32_t expert;       /* routed expert index, -1 when none or when stacked */
    bool is_expert_stack; /* one tensor holds every expert (GGUF *_exps, gpt-oss) */
};

/* Classify a Hugging Face state-dict name of `len` bytes (need not be NUL-terminated). */
void gpuplan_tensor_name_classify_hf(const char *name,
                                     size_t len,
                                     struct gpuplan_tensor_name_info *out);

/* Classify a GGUF tensor name of `len` bytes (need not be NUL-terminated). */
void gpuplan_tensor_name_classify_gguf(const char *name,
                                       size_t len,
                                       struct gpuplan_tensor_name_info *out);

#endif
