/*
 * model.c - the tensor inventory: groups, roles, totals, active parameters.
 *
 * Loading from files lives in model_load.c and the format modules; this file
 * only holds the list and the arithmetic every later layer reads.
 */
#include "gpuplan/model.h"

#include <stdlib.h>
#include <string.h>

#include "gpuplan/units.h"

static const struct {
    const char *name;
    const char *module; /* PEFT target name */
    bool is_linear;
    bool is_routed_expert;
} role_table[GPUPLAN_ROLE_COUNT] = {
    [GPUPLAN_ROLE_EMBEDDING] = { "embedding", "embed_tokens", false, false },
    [GPUPLAN_ROLE_POS_EMBEDDING] = { "pos_embedding", "wpe", false, false },
    [GPUPLAN_ROLE_ATTN_Q] = { "attn_q", "q_proj", true, false },
    [GPUPLAN_ROLE_ATTN_K] = { "attn_k", "k_proj", true, false },
    [GPUPLAN_ROLE_ATTN_V] = { "attn_v", "v_proj", true, false },
    [GPUPLAN_ROLE_ATTN_QKV] = { "attn_qkv", "qkv_proj", true, false },
    [GPUPLAN_ROLE_ATTN_O] = { "attn_o", "o_proj", true, false },
    [GPUPLAN_ROLE_MLA_Q_A] = { "mla_q_a", "q_a_proj", true, false },
    [GPUPLAN_ROLE_MLA_Q_B] = { "mla_q_b", "q_b_proj", true, false },
    [GPUPLAN_ROLE_MLA_KV_A] = { "mla_kv_a", "kv_a_proj_with_mqa", true, false },
    [GPUPLAN_ROLE_MLA_KV_B] = { "mla_kv_b", "kv_b_proj", true, false },
    [GPUPLAN_ROLE_MLP_GATE] = { "mlp_gate", "gate_proj", true, false },
    [GPUPLAN_ROLE_MLP_UP] = { "mlp_up", "up_proj", true, false },
    [GPUPLAN_ROLE_MLP_GATE_UP] = { "mlp_gate_up", "gate_up_proj", true, false },
    [GPUPLAN_ROLE_MLP_DOWN] = { "mlp_down", "down_proj", true, false },
    [GPUPLAN_ROLE_ROUTER] = { "router", "gate", true, false },
    [GPUPLAN_ROLE_EXPERT_GATE] = { "expert_gate", "gate_proj", true, true },
    [GPUPLAN_ROLE_EXPERT_UP] = { "expert_up", "up_proj", true, true },
    [GPUPLAN_ROLE_EXPERT_GATE_UP] = { "expert_gate_up", "gate_up_proj", true, true },
    [GPUPLAN_ROLE_EXPERT_DOWN] = { "expert_down", "down_proj", true, true },
    [GPUPLAN_ROLE_SHARED_GATE] = { "shared_gate", "gate_proj", true, false },
    [GPUPLAN_ROLE_SHARED_UP] = { "shared_up", "up_proj", true, false },
    [GPUPLAN_ROLE_SHARED_DOWN] = { "shared_down", "down_proj", true, false },
    [GPUPLAN_ROLE_SHARED_ROUTER] = { "shared_router", "shared_expert_gate", true, false },
    [GPUPLAN_ROLE_NORM] = { "norm", NULL, false, false },
    [GPUPLAN_ROLE_BIAS] = { "bias", NULL, false, false },
    [GPUPLAN_ROLE_REL_POS_BIAS] = { "rel_pos_bias", NULL, false, false },
    [GPUPLAN_ROLE_LM_HEAD] = { "lm_head", "lm_head", false, false },
    [GPUPLAN_ROLE_QUANT_STATE] = { "quant_state", NULL, false, false },
    [GPUPLAN_ROLE_OTHER] = { "other", NULL, false, false },
};

const char *gpuplan_role_name(enum gpuplan_role role)
{
    return (unsigned)role < GPUPLAN_ROLE_COUNT ? role_table[role].name : "other";
}

const char *gpuplan_role_module(enum gpuplan_role role)
{
    return (unsigned)role < GPUPLAN_ROLE_COUNT ? role_table[role].module : NULL;
}

bool gpuplan_role_is_linear(enum gpuplan_role role)
{
    return (unsigned)role < GPUPLAN_ROLE_COUNT && role_table[role].is_linear;
}

bool gpuplan_role_is_routed_expert(enum gpuplan_role role)
{
    return (unsigned)role < GPUPLAN_ROLE_COUNT && role_table[role].is_routed_expert;
}

void gpuplan_model_init(struct gpuplan_model *model)
{
    memset(model, 0, sizeof *model);
}

void gpuplan_model_release(struct gpuplan_model *model)
{
    if (!model)
        return;
    free(model->groups);
    model->groups = NULL;
    model->n_groups = 0;
    model->cap_groups = 0;
}

enum gpuplan_status gpuplan_model_add(struct gpuplan_model *model,
                                      const struct gpuplan_tensor_group *group,
                                      struct gpuplan_error *err)
{
    if (group->n_dims > GPUPLAN_MAX_DIMS || (unsigned)group->role >= GPUPLAN_ROLE_COUNT)
        return gpuplan_error_set(err, GPUPLAN_ERR_INTERNAL, NULL,
                                 "bad tensor group (dims %u, role %d)", group->n_dims,
                                 (int)group->role);
    if (model->n_groups >= GPUPLAN_MODEL_MAX_GROUPS)
        return gpuplan_error_set(err, GPUPLAN_ERR_TOO_LARGE, NULL,
                                 "model has more than %d tensor groups", GPUPLAN_MODEL_MAX_GROUPS);
    struct gpuplan_tensor_group g = *group;
    if (g.n_tensors == 0)
        g.n_tensors = 1;
    uint64_t numel = 1;
    for (uint32_t d = 0; d < g.n_dims; d++) {
        if (!gpuplan_mul_u64(numel, g.shape[d], &numel))
            return gpuplan_error_set(err, GPUPLAN_ERR_INVALID_INPUT, NULL,
                                     "tensor element count overflows 64 bits");
    }
    if (!gpuplan_mul_u64(numel, g.n_tensors, &g.n_params))
        return gpuplan_error_set(err, GPUPLAN_ERR_INVALID_INPUT, NULL,
                                 "parameter count overflows 64 bits");
    uint64_t one_bytes = 0;
    if (g.dtype != GPUPLAN_DTYPE_UNKNOWN) {
        if (!gpuplan_dtype_bytes(g.dtype, numel, false, &one_bytes) ||
            !gpuplan_mul_u64(one_bytes, g.n_tensors, &g.n_bytes))
            return gpuplan_error_set(err, GPUPLAN_ERR_INVALID_INPUT, NULL,
                                     "tensor byte size overflows 64 bits");
    } else {
        g.n_bytes = 0;
    }
    if (model->n_groups == model->cap_groups) {
        size_t cap = model->cap_groups ? model->cap_groups * 2 : 64;
        struct gpuplan_tensor_group *grown = realloc(model->groups, cap * sizeof *grown);
        if (!grown)
            return gpuplan_error_set(err, GPUPLAN_ERR_NOMEM, NULL,
                                     "out of memory for the tensor inventory");
        model->groups = grown;
        model->cap_groups = cap;
    }
    model->groups[model->n_groups++] = g;
    return GPUPLAN_OK;
}

enum gpuplan_status gpuplan_model_finalize(struct gpuplan_model *model, struct gpuplan_error *err)
{
    uint64_t total = 0, routed = 0, bytes = 0;
    memset(model->params_by_role, 0, sizeof model->params_by_role);
    memset(model->params_by_dtype, 0, sizeof model->params_by_dtype);
    memset(model->bytes_by_dtype, 0, sizeof model->bytes_by_dtype);
    for (size_t i = 0; i < model->n_groups; i++) {
        const struct gpuplan_tensor_group *g = &model->groups[i];
        if (!gpuplan_add_u64(total, g->n_params, &total) ||
            !gpuplan_add_u64(bytes, g->n_bytes, &bytes))
            return gpuplan_error_set(err, GPUPLAN_ERR_INVALID_INPUT, NULL,
                                     "model size overflows 64 bits");
        model->params_by_role[g->role] += g->n_params;
        model->params_by_dtype[g->dtype] += g->n_params;
        model->bytes_by_dtype[g->dtype] += g->n_bytes;
        if (gpuplan_role_is_routed_expert(g->role))
            routed += g->n_params;
    }
    model->n_params_total = total;
    model->storage_bytes = bytes;
    model->n_params_active = total;
    const struct gpuplan_arch *a = &model->arch;
    if (model->has_arch && a->n_experts > 0 && routed > 0) {
        if (a->n_experts_per_token == 0 || a->n_experts_per_token > a->n_experts)
            return gpuplan_error_set(err, GPUPLAN_ERR_INVALID_CONFIG, NULL,
                                     "experts per token is %u with %u experts; must be 1..%u",
                                     a->n_experts_per_token, a->n_experts, a->n_experts);
        /* routed / n_experts is exact: every routed group holds n_experts copies. */
        uint64_t inactive = routed / a->n_experts * (a->n_experts - a->n_experts_per_token);
        model->n_params_active = total - inactive;
    }
    return GPUPLAN_OK;
}
