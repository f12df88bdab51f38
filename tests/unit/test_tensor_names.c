/*
 * test_tensor_names.c - tensor name -> (role, layer, stack) for Hugging Face
 * and GGUF names, one row per naming convention.
 */
#include "test_common.h"

#include "formats/tensor_names_internal.h"

struct row {
    const char *name;
    enum gpuplan_role role;
    int32_t layer;
    int32_t expert;
    enum gpuplan_stack stack;
};

#define D GPUPLAN_STACK_DECODER
#define E GPUPLAN_STACK_ENCODER

static const struct row hf_rows[] = {
    { "model.embed_tokens.weight", GPUPLAN_ROLE_EMBEDDING, -1, -1, D },
    { "model.layers.0.self_attn.q_proj.weight", GPUPLAN_ROLE_ATTN_Q, 0, -1, D },
    { "model.layers.12.self_attn.k_proj.weight", GPUPLAN_ROLE_ATTN_K, 12, -1, D },
    { "model.layers.3.self_attn.v_proj.weight", GPUPLAN_ROLE_ATTN_V, 3, -1, D },
    { "model.layers.3.self_attn.o_proj.weight", GPUPLAN_ROLE_ATTN_O, 3, -1, D },
    { "model.layers.3.self_attn.q_proj.bias", GPUPLAN_ROLE_BIAS, 3, -1, D },
    { "model.layers.3.self_attn.q_norm.weight", GPUPLAN_ROLE_NORM, 3, -1, D },
    { "model.layers.79.mlp.gate_proj.weight", GPUPLAN_ROLE_MLP_GATE, 79, -1, D },
    { "model.layers.79.mlp.up_proj.weight", GPUPLAN_ROLE_MLP_UP, 79, -1, D },
    { "model.layers.79.mlp.down_proj.weight", GPUPLAN_ROLE_MLP_DOWN, 79, -1, D },
    { "model.layers.0.input_layernorm.weight", GPUPLAN_ROLE_NORM, 0, -1, D },
    { "model.layers.0.pre_feedforward_layernorm.weight", GPUPLAN_ROLE_NORM, 0, -1, D },
    { "model.norm.weight", GPUPLAN_ROLE_NORM, -1, -1, D },
    { "lm_head.weight", GPUPLAN_ROLE_LM_HEAD, -1, -1, D },
    /* mixtral */
    { "model.layers.5.block_sparse_moe.experts.7.w1.weight", GPUPLAN_ROLE_EXPERT_GATE, 5, 7, D },
    { "model.layers.5.block_sparse_moe.experts.7.w2.weight", GPUPLAN_ROLE_EXPERT_DOWN, 5, 7, D },
    { "model.layers.5.block_sparse_moe.experts.7.w3.weight", GPUPLAN_ROLE_EXPERT_UP, 5, 7, D },
    { "model.layers.5.block_sparse_moe.gate.weight", GPUPLAN_ROLE_ROUTER, 5, -1, D },
    /* qwen moe, deepseek */
    { "model.layers.1.mlp.experts.127.gate_proj.weight", GPUPLAN_ROLE_EXPERT_GATE, 1, 127, D },
    { "model.layers.1.mlp.experts.0.down_proj.weight", GPUPLAN_ROLE_EXPERT_DOWN, 1, 0, D },
    { "model.layers.1.mlp.gate.weight", GPUPLAN_ROLE_ROUTER, 1, -1, D },
    { "model.layers.1.mlp.gate.e_score_correction_bias", GPUPLAN_ROLE_ROUTER, 1, -1, D },
    { "model.layers.1.mlp.shared_expert.up_proj.weight", GPUPLAN_ROLE_SHARED_UP, 1, -1, D },
    { "model.layers.1.mlp.shared_experts.down_proj.weight", GPUPLAN_ROLE_SHARED_DOWN, 1, -1, D },
    { "model.layers.1.mlp.shared_expert_gate.weight", GPUPLAN_ROLE_SHARED_ROUTER, 1, -1, D },
    { "model.layers.1.self_attn.q_a_proj.weight", GPUPLAN_ROLE_MLA_Q_A, 1, -1, D },
    { "model.layers.1.self_attn.q_b_proj.weight", GPUPLAN_ROLE_MLA_Q_B, 1, -1, D },
    { "model.layers.1.self_attn.q_a_layernorm.weight", GPUPLAN_ROLE_NORM, 1, -1, D },
    { "model.layers.1.self_attn.kv_a_proj_with_mqa.weight", GPUPLAN_ROLE_MLA_KV_A, 1, -1, D },
    { "model.layers.1.self_attn.kv_a_layernorm.weight", GPUPLAN_ROLE_NORM, 1, -1, D },
    { "model.layers.1.self_attn.kv_b_proj.weight", GPUPLAN_ROLE_MLA_KV_B, 1, -1, D },
    { "model.layers.1.self_attn.kv_b_proj.weight_scale_inv", GPUPLAN_ROLE_QUANT_STATE, 1, -1, D },
    /* gpt-oss stacked experts */
    { "model.layers.2.mlp.experts.gate_up_proj", GPUPLAN_ROLE_EXPERT_GATE_UP, 2, -1, D },
    { "model.layers.2.mlp.experts.gate_up_proj_bias", GPUPLAN_ROLE_BIAS, 2, -1, D },
    { "model.layers.2.mlp.router.weight", GPUPLAN_ROLE_ROUTER, 2, -1, D },
    /* phi3 */
    { "model.layers.4.self_attn.qkv_proj.weight", GPUPLAN_ROLE_ATTN_QKV, 4, -1, D },
    { "model.layers.4.mlp.gate_up_proj.weight", GPUPLAN_ROLE_MLP_GATE_UP, 4, -1, D },
    /* gpt2 */
    { "wte.weight", GPUPLAN_ROLE_EMBEDDING, -1, -1, D },
    { "wpe.weight", GPUPLAN_ROLE_POS_EMBEDDING, -1, -1, D },
    { "h.3.attn.c_attn.weight", GPUPLAN_ROLE_ATTN_QKV, 3, -1, D },
    { "h.3.attn.c_attn.bias", GPUPLAN_ROLE_BIAS, 3, -1, D },
    { "h.3.attn.c_proj.weight", GPUPLAN_ROLE_ATTN_O, 3, -1, D },
    { "h.3.mlp.c_fc.weight", GPUPLAN_ROLE_MLP_UP, 3, -1, D },
    { "h.3.mlp.c_proj.weight", GPUPLAN_ROLE_MLP_DOWN, 3, -1, D },
    { "h.3.ln_1.weight", GPUPLAN_ROLE_NORM, 3, -1, D },
    { "h.3.ln_1.bias", GPUPLAN_ROLE_NORM, 3, -1, D },
    { "h.3.attn.bias", GPUPLAN_ROLE_OTHER, 3, -1, D },
    { "transformer.ln_f.weight", GPUPLAN_ROLE_NORM, -1, -1, D },
    /* gpt-neox, falcon */
    { "gpt_neox.layers.2.attention.query_key_value.weight", GPUPLAN_ROLE_ATTN_QKV, 2, -1, D },
    { "gpt_neox.layers.2.attention.dense.weight", GPUPLAN_ROLE_ATTN_O, 2, -1, D },
    { "gpt_neox.layers.2.mlp.dense_h_to_4h.weight", GPUPLAN_ROLE_MLP_UP, 2, -1, D },
    { "gpt_neox.layers.2.mlp.dense_4h_to_h.weight", GPUPLAN_ROLE_MLP_DOWN, 2, -1, D },
    { "gpt_neox.embed_in.weight", GPUPLAN_ROLE_EMBEDDING, -1, -1, D },
    { "embed_out.weight", GPUPLAN_ROLE_LM_HEAD, -1, -1, D },
    { "transformer.word_embeddings.weight", GPUPLAN_ROLE_EMBEDDING, -1, -1, D },
    { "transformer.h.1.self_attention.query_key_value.weight", GPUPLAN_ROLE_ATTN_QKV, 1, -1, D },
    /* T5 */
    { "shared.weight", GPUPLAN_ROLE_EMBEDDING, -1, -1, D },
    { "encoder.block.0.layer.0.SelfAttention.q.weight", GPUPLAN_ROLE_ATTN_Q, 0, -1, E },
    { "encoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight",
      GPUPLAN_ROLE_REL_POS_BIAS, 0, -1, E },
    { "encoder.block.5.layer.1.DenseReluDense.wi_0.weight", GPUPLAN_ROLE_MLP_GATE, 5, -1, E },
    { "encoder.block.5.layer.1.DenseReluDense.wi_1.weight", GPUPLAN_ROLE_MLP_UP, 5, -1, E },
    { "decoder.block.5.layer.2.DenseReluDense.wo.weight", GPUPLAN_ROLE_MLP_DOWN, 5, -1, D },
    { "decoder.block.5.layer.1.EncDecAttention.o.weight", GPUPLAN_ROLE_ATTN_O, 5, -1, D },
    { "encoder.final_layer_norm.weight", GPUPLAN_ROLE_NORM, -1, -1, E },
    /* bitsandbytes / GPTQ */
    { "model.layers.0.mlp.down_proj.weight.absmax", GPUPLAN_ROLE_QUANT_STATE, 0, -1, D },
    { "model.layers.0.mlp.down_proj.weight.quant_map", GPUPLAN_ROLE_QUANT_STATE, 0, -1, D },
    { "model.layers.0.mlp.down_proj.weight.nested_absmax", GPUPLAN_ROLE_QUANT_STATE, 0, -1, D },
    { "model.layers.0.mlp.down_proj.weight.quant_state.bitsandbytes__nf4", GPUPLAN_ROLE_QUANT_STATE,
      0, -1, D },
    { "model.layers.0.mlp.down_proj.qweight", GPUPLAN_ROLE_MLP_DOWN, 0, -1, D },
    { "model.layers.0.mlp.down_proj.scales", GPUPLAN_ROLE_QUANT_STATE, 0, -1, D },
    /* unknown, never an error */
    { "model.layers.0.self_attn.rotary_emb.inv_freq", GPUPLAN_ROLE_OTHER, 0, -1, D },
    { "vision_tower.patch_embed.proj.weight", GPUPLAN_ROLE_OTHER, -1, -1, D },
    { "", GPUPLAN_ROLE_OTHER, -1, -1, D },
    { "...", GPUPLAN_ROLE_OTHER, -1, -1, D },
    { "layers.x.q_proj", GPUPLAN_ROLE_ATTN_Q, -1, -1, D },
};

static const struct row gguf_rows[] = {
    { "token_embd.weight", GPUPLAN_ROLE_EMBEDDING, -1, -1, D },
    { "position_embd.weight", GPUPLAN_ROLE_POS_EMBEDDING, -1, -1, D },
    { "blk.0.attn_q.weight", GPUPLAN_ROLE_ATTN_Q, 0, -1, D },
    { "blk.0.attn_k.weight", GPUPLAN_ROLE_ATTN_K, 0, -1, D },
    { "blk.0.attn_v.weight", GPUPLAN_ROLE_ATTN_V, 0, -1, D },
    { "blk.0.attn_q.bias", GPUPLAN_ROLE_BIAS, 0, -1, D },
    { "blk.9.attn_qkv.weight", GPUPLAN_ROLE_ATTN_QKV, 9, -1, D },
    { "blk.9.attn_output.weight", GPUPLAN_ROLE_ATTN_O, 9, -1, D },
    { "blk.9.ffn_gate.weight", GPUPLAN_ROLE_MLP_GATE, 9, -1, D },
    { "blk.9.ffn_up.weight", GPUPLAN_ROLE_MLP_UP, 9, -1, D },
    { "blk.9.ffn_down.weight", GPUPLAN_ROLE_MLP_DOWN, 9, -1, D },
    { "blk.9.ffn_gate_exps.weight", GPUPLAN_ROLE_EXPERT_GATE, 9, -1, D },
    { "blk.9.ffn_up_exps.weight", GPUPLAN_ROLE_EXPERT_UP, 9, -1, D },
    { "blk.9.ffn_down_exps.weight", GPUPLAN_ROLE_EXPERT_DOWN, 9, -1, D },
    { "blk.9.ffn_gate_inp.weight", GPUPLAN_ROLE_ROUTER, 9, -1, D },
    { "blk.9.exp_probs_b.bias", GPUPLAN_ROLE_ROUTER, 9, -1, D },
    { "blk.9.ffn_gate_shexp.weight", GPUPLAN_ROLE_SHARED_GATE, 9, -1, D },
    { "blk.9.ffn_up_shexp.weight", GPUPLAN_ROLE_SHARED_UP, 9, -1, D },
    { "blk.9.ffn_down_shexp.weight", GPUPLAN_ROLE_SHARED_DOWN, 9, -1, D },
    { "blk.9.ffn_gate_inp_shexp.weight", GPUPLAN_ROLE_SHARED_ROUTER, 9, -1, D },
    { "blk.9.attn_q_a.weight", GPUPLAN_ROLE_MLA_Q_A, 9, -1, D },
    { "blk.9.attn_kv_a_mqa.weight", GPUPLAN_ROLE_MLA_KV_A, 9, -1, D },
    { "blk.9.attn_kv_a_norm.weight", GPUPLAN_ROLE_NORM, 9, -1, D },
    { "blk.0.attn_norm.weight", GPUPLAN_ROLE_NORM, 0, -1, D },
    { "blk.0.ffn_norm.weight", GPUPLAN_ROLE_NORM, 0, -1, D },
    { "output_norm.weight", GPUPLAN_ROLE_NORM, -1, -1, D },
    { "output.weight", GPUPLAN_ROLE_LM_HEAD, -1, -1, D },
    { "enc.blk.2.attn_q.weight", GPUPLAN_ROLE_ATTN_Q, 2, -1, E },
    { "dec.blk.2.ffn_down.weight", GPUPLAN_ROLE_MLP_DOWN, 2, -1, D },
    { "rope_freqs.weight", GPUPLAN_ROLE_OTHER, -1, -1, D },
    { "blk.x.attn_q.weight", GPUPLAN_ROLE_OTHER, -1, -1, D },
    { "blk.1", GPUPLAN_ROLE_OTHER, 1, -1, D },
};

static void check_rows(const struct row *rows, size_t n, bool gguf)
{
    for (size_t i = 0; i < n; i++) {
        struct gpuplan_tensor_name_info info;
        if (gguf)
            gpuplan_tensor_name_classify_gguf(rows[i].name, strlen(rows[i].name), &info);
        else
            gpuplan_tensor_name_classify_hf(rows[i].name, strlen(rows[i].name), &info);
        if (info.role != rows[i].role || info.layer != rows[i].layer ||
            info.stack != rows[i].stack || info.expert != rows[i].expert)
            fail_msg("'%s': role %s layer %d expert %d stack %d; want %s %d %d %d", rows[i].name,
                     gpuplan_role_name(info.role), info.layer, info.expert, info.stack,
                     gpuplan_role_name(rows[i].role), rows[i].layer, rows[i].expert, rows[i].stack);
    }
}

static void test_hf_names(void **state)
{
    (void)state;
    check_rows(hf_rows, sizeof hf_rows / sizeof hf_rows[0], false);
}

static void test_gguf_names(void **state)
{
    (void)state;
    check_rows(gguf_rows, sizeof gguf_rows / sizeof gguf_rows[0], true);
}

static void test_expert_stacks(void **state)
{
    (void)state;
    struct gpuplan_tensor_name_info info;
    gpuplan_tensor_name_classify_gguf("blk.3.ffn_up_exps.weight", 24, &info);
    assert_true(info.is_expert_stack);
    gpuplan_tensor_name_classify_gguf("blk.3.ffn_up.weight", 19, &info);
    assert_false(info.is_expert_stack);
    gpuplan_tensor_name_classify_hf("model.layers.2.mlp.experts.down_proj", 36, &info);
    assert_true(info.is_expert_stack);
    assert_int_equal(info.role, GPUPLAN_ROLE_EXPERT_DOWN);
    /* Length is honoured: no NUL needed, trailing bytes ignored. */
    gpuplan_tensor_name_classify_hf("lm_head.weightXYZ", 14, &info);
    assert_int_equal(info.role, GPUPLAN_ROLE_LM_HEAD);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hf_names),
        cmocka_unit_test(test_gguf_names),
        cmocka_unit_test(test_expert_stacks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
