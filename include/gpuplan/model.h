/*
 * model.h - the tensor inventory: one representation for every model source.
 *
 * A catalog name, a Hugging Face config.json, a safetensors header (single or
 * sharded), a GGUF header or a model directory all become the same list of
 * parameter groups (role, layer, shape, dtype). Parameter counts, active
 * parameters per token, and every later rule (what LoRA adapts, what NF4
 * quantises, what stays in 16-bit) read this list: no per-model special cases.
 *
 * Not here: memory, time or cost (estimate layer); file parsing details
 * (formats layer: hf_config, safetensors, gguf).
 */
#ifndef GPUPLAN_MODEL_H
#define GPUPLAN_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpuplan/dtype.h"
#include "gpuplan/error.h"

#define GPUPLAN_MAX_DIMS 4
/* Hard cap on the inventory size: a 100,000-tensor header fits easily. */
#define GPUPLAN_MODEL_MAX_GROUPS 4000000

enum gpuplan_role {
    GPUPLAN_ROLE_EMBEDDING = 0,  /* token embedding (vocab x hidden) */
    GPUPLAN_ROLE_POS_EMBEDDING,  /* learned absolute positions (GPT-2) */
    GPUPLAN_ROLE_ATTN_Q,         /* q_proj */
    GPUPLAN_ROLE_ATTN_K,         /* k_proj */
    GPUPLAN_ROLE_ATTN_V,         /* v_proj */
    GPUPLAN_ROLE_ATTN_QKV,       /* fused qkv (phi3 qkv_proj, gpt2 c_attn, neox query_key_value) */
    GPUPLAN_ROLE_ATTN_O,         /* o_proj / dense / c_proj */
    GPUPLAN_ROLE_MLA_Q_A,        /* DeepSeek MLA q_a_proj (hidden -> q_lora_rank) */
    GPUPLAN_ROLE_MLA_Q_B,        /* q_b_proj */
    GPUPLAN_ROLE_MLA_KV_A,       /* kv_a_proj_with_mqa */
    GPUPLAN_ROLE_MLA_KV_B,       /* kv_b_proj */
    GPUPLAN_ROLE_MLP_GATE,       /* gate_proj / w1 */
    GPUPLAN_ROLE_MLP_UP,         /* up_proj / w3 / c_fc / fc1 */
    GPUPLAN_ROLE_MLP_GATE_UP,    /* fused gate_up_proj (phi3) */
    GPUPLAN_ROLE_MLP_DOWN,       /* down_proj / w2 / fc2 */
    GPUPLAN_ROLE_ROUTER,         /* MoE router (gate) */
    GPUPLAN_ROLE_EXPERT_GATE,    /* routed expert gate_proj */
    GPUPLAN_ROLE_EXPERT_UP,      /* routed expert up_proj */
    GPUPLAN_ROLE_EXPERT_GATE_UP, /* routed expert fused gate/up (GGUF/gpt-oss style) */
    GPUPLAN_ROLE_EXPERT_DOWN,    /* routed expert down_proj */
    GPUPLAN_ROLE_SHARED_GATE,    /* shared expert gate_proj */
    GPUPLAN_ROLE_SHARED_UP,      /* shared expert up_proj */
    GPUPLAN_ROLE_SHARED_DOWN,    /* shared expert down_proj */
    GPUPLAN_ROLE_SHARED_ROUTER,  /* qwen2_moe shared_expert_gate (hidden -> 1) */
    GPUPLAN_ROLE_NORM,           /* RMSNorm/LayerNorm weights and biases, q/k norms */
    GPUPLAN_ROLE_BIAS,           /* biases of linear layers */
    GPUPLAN_ROLE_REL_POS_BIAS,   /* T5 relative attention bias */
    GPUPLAN_ROLE_LM_HEAD,        /* output projection (absent when tied) */
    GPUPLAN_ROLE_QUANT_STATE,    /* quantisation constants stored as tensors */
    GPUPLAN_ROLE_OTHER,
    GPUPLAN_ROLE_COUNT
};

/* Stable lowercase name ("attn_q", "expert_down", "lm_head"). */
const char *gpuplan_role_name(enum gpuplan_role role);
/* The PEFT module name a LoRA target list uses ("q_proj", "down_proj"), or NULL. */
const char *gpuplan_role_module(enum gpuplan_role role);
/* nn.Linear weight: adaptable by LoRA, quantised by bitsandbytes (lm_head excluded by default). */
bool gpuplan_role_is_linear(enum gpuplan_role role);
/* Routed expert weight (only experts_per_token of n_experts are active per token). */
bool gpuplan_role_is_routed_expert(enum gpuplan_role role);

enum gpuplan_stack {
    GPUPLAN_STACK_DECODER = 0, /* decoder-only models, and the decoder of T5 */
    GPUPLAN_STACK_ENCODER = 1, /* T5 encoder */
};

struct gpuplan_tensor_group {
    enum gpuplan_role role;
    enum gpuplan_stack stack;
    int32_t layer;                    /* block index, -1 outside the blocks */
    uint32_t n_dims;                  /* 0 (scalar) .. GPUPLAN_MAX_DIMS */
    uint64_t shape[GPUPLAN_MAX_DIMS]; /* PyTorch order; linear weight = [out, in] */
    uint64_t n_tensors;               /* identical tensors, e.g. 256 routed experts; >= 1 */
    uint64_t n_params;                /* numel(shape) * n_tensors */
    uint64_t n_bytes;                 /* as stored in `dtype` */
    enum gpuplan_dtype dtype;         /* storage type; config-only: the config's torch_dtype */
};

/* Architecture summary, from config.json or GGUF metadata (zero = unknown or n/a). */
struct gpuplan_arch {
    char family[32];                  /* model_type, e.g. "llama", "qwen3_moe", "deepseek_v3" */
    uint32_t n_layers;                /* decoder blocks, e.g. 80 for Llama-3.1-70B */
    uint32_t n_encoder_layers;        /* T5 encoder blocks; 0 for decoder-only */
    uint64_t hidden_size;             /* e.g. 8192 */
    uint64_t n_heads;                 /* attention heads, e.g. 64 */
    uint64_t n_kv_heads;              /* key/value heads (GQA), e.g. 8 */
    uint64_t head_dim;                /* e.g. 128 */
    uint64_t intermediate_size;       /* dense MLP width, e.g. 28672 */
    uint64_t vocab_size;              /* e.g. 128256 */
    uint64_t max_position_embeddings; /* e.g. 131072 */
    uint32_t n_experts;               /* routed experts per MoE layer, e.g. 8 */
    uint32_t n_experts_per_token;     /* top-k, e.g. 2 */
    uint32_t n_shared_experts;        /* e.g. 1 for DeepSeek-V3 */
    uint64_t moe_intermediate_size;   /* per-expert width, e.g. 2048 */
    uint32_t n_dense_layers;          /* leading dense blocks before MoE blocks, e.g. 3 */
    uint64_t q_lora_rank;             /* MLA, e.g. 1536 (0 = no q compression) */
    uint64_t kv_lora_rank;            /* MLA latent, e.g. 512 */
    uint64_t qk_nope_head_dim;        /* MLA, e.g. 128 */
    uint64_t qk_rope_head_dim;        /* MLA, e.g. 64 */
    uint64_t v_head_dim;              /* MLA, e.g. 128 */
    uint64_t sliding_window;          /* tokens, 0 = none */
    bool is_moe;
    bool is_mla;
    bool is_encoder_decoder;
    bool tied_embeddings;
    bool gated_mlp; /* SwiGLU/GeGLU: three matrices per MLP */
    bool has_qk_norm;
};

struct gpuplan_model {
    char id[128];     /* catalog id or file base name */
    char source[512]; /* path, or the catalog record's source */
    char hub_id[200]; /* Hugging Face Hub id when known ("meta-llama/Llama-3.1-8B"), else "" */
    /* How a Hub id was resolved ("'X' is catalog model 'y'"), for a note; "" when not one. */
    char resolved_note[448];
    char format[16]; /* "catalog", "config", "safetensors", "index", "gguf", "dir" */
    bool has_arch;   /* arch below is filled */
    struct gpuplan_arch arch;
    struct gpuplan_tensor_group *groups; /* owned */
    size_t n_groups;
    size_t cap_groups;
    /* filled by gpuplan_model_finalize() */
    uint64_t n_params_total;  /* e.g. 70,553,706,496 */
    uint64_t n_params_active; /* per token; == total for dense models */
    uint64_t params_by_role[GPUPLAN_ROLE_COUNT];
    uint64_t params_by_dtype[GPUPLAN_DTYPE_COUNT];
    uint64_t bytes_by_dtype[GPUPLAN_DTYPE_COUNT];
    uint64_t storage_bytes;          /* sum of group bytes (tensor data only) */
    bool storage_from_file;          /* bytes read from a weights header, not implied by a config */
    uint64_t file_bytes;             /* size of the weights file(s), 0 if unknown */
    uint64_t index_total_size_bytes; /* a sharded index's metadata.total_size, 0 if none */
    char gguf_file_type[32];         /* GGUF general.file_type name, e.g. "MOSTLY_Q4_K_M" */
    uint64_t n_metadata;             /* GGUF key/value pairs */
};

void gpuplan_model_init(struct gpuplan_model *model);
void gpuplan_model_release(struct gpuplan_model *model);

/*
 * Append a group (copied). n_params and n_bytes are computed here from shape,
 * n_tensors and dtype with overflow checks; callers fill role, stack, layer,
 * n_dims, shape, n_tensors and dtype. Fails past GPUPLAN_MODEL_MAX_GROUPS.
 */
enum gpuplan_status gpuplan_model_add(struct gpuplan_model *model,
                                      const struct gpuplan_tensor_group *group,
                                      struct gpuplan_error *err);

/*
 * Compute totals: n_params_total, params/bytes by role and dtype, and
 * n_params_active = total - routed * (n_experts - k) / n_experts, where
 * routed is the routed-expert parameter count (attention, shared experts,
 * router, embeddings and head are always active).
 */
enum gpuplan_status gpuplan_model_finalize(struct gpuplan_model *model, struct gpuplan_error *err);

/* Build the inventory from a Hugging Face config.json held in memory. */
enum gpuplan_status gpuplan_model_from_hf_config(struct gpuplan_model *model,
                                                 const uint8_t *json,
                                                 size_t json_len,
                                                 const char *where,
                                                 struct gpuplan_error *err);

/*
 * Build the inventory from a safetensors file's leading bytes. `data` must
 * hold at least the 8-byte length and the JSON header; `file_bytes` is the
 * whole file's size (validated against the last data offset).
 */
enum gpuplan_status gpuplan_model_from_safetensors(struct gpuplan_model *model,
                                                   const uint8_t *data,
                                                   size_t len,
                                                   uint64_t file_bytes,
                                                   const char *where,
                                                   struct gpuplan_error *err);

/* Build the inventory from a GGUF file's leading bytes (header, metadata, tensor infos). */
enum gpuplan_status gpuplan_model_from_gguf(struct gpuplan_model *model,
                                            const uint8_t *data,
                                            size_t len,
                                            uint64_t file_bytes,
                                            const char *where,
                                            struct gpuplan_error *err);

struct gpuplan_catalog;

/*
 * Load MODEL as the CLI and the API take it: a catalog id (with "did you
 * mean" on a miss), or a path to a config.json, a *.safetensors file, a
 * model.safetensors.index.json (shards read when present, else total_size),
 * a *.gguf file, or a directory holding config.json and weights.
 * `catalog` may be NULL (paths only).
 */
enum gpuplan_status gpuplan_model_load(struct gpuplan_model *model,
                                       const char *name_or_path,
                                       const struct gpuplan_catalog *catalog,
                                       struct gpuplan_error *err);

/*
 * As gpuplan_model_load, and a Hugging Face Hub id ("Org/Name") that is not a
 * path resolves, in order, to the catalog model whose hf_repo matches
 * (case-insensitive; an -Instruct/-Chat/-it variant maps to its base), then to
 * the snapshot of refs/main in the Hugging Face cache `hub_cache_dir` (the
 * CLI passes $HF_HUB_CACHE, else $HF_HOME/hub, else ~/.cache/huggingface/hub;
 * NULL searches no cache). Never the network. model->resolved_note says what
 * was chosen; a miss says where it looked.
 */
enum gpuplan_status gpuplan_model_load_hub(struct gpuplan_model *model,
                                           const char *name_or_path,
                                           const struct gpuplan_catalog *catalog,
                                           const char *hub_cache_dir,
                                           struct gpuplan_error *err);

#endif
