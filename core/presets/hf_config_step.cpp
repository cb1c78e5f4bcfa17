// Step-3.7-Flash (step3p7, StepFun): a MoE whose layers alternate full and sliding-window attention. What each key of
// the published config means for the counts:
//   attention          num_attention_heads, num_key_value_heads (GQA), head_dim; no biases; layer_types names each
//                      layer full_attention or sliding_attention (window sliding_window)
//   layers             the first first_k_dense_replace layers have a dense SwiGLU MLP of intermediate_size, every
//                      later one routed experts
//   MoE                num_experts experts of moe_intermediate_size, top num_experts_per_tok; n_shared_experts shared
//                      experts of share_expert_dim; use_moe_router_bias: one score-correction bias per expert
//   MTP                num_nextn_predict_layers multi-token-prediction layers: not the main model, left out (noted)
//   no parameters      scoring_func, moe_router_scaling_factor, max_position_embeddings
// Two RMSNorms per layer, untied LM head unless tie_word_embeddings. Keys of StepFun's other layouts that would
// change these counts (a second attention shape for some layers, head-wise output gates, an explicit MoE layer list)
// are refused by name rather than read as this layout.
#include "core/presets/hf_config_families.h"

namespace mfu::hf {

void readStep3p7(const Reader& r, ModelSpec& m)
{
    for (const char* key : { "attention_other_setting", "moe_layers_enum" })
        if (r.has(key))
            r.fail(key,
                "is not read for model_type 'step3p7' (this layout has one attention shape and MoE on every "
                "layer after first_k_dense_replace)");
    if (r.boolean("use_head_wise_attn_gate", false))
        r.fail("use_head_wise_attn_gate", "head-wise attention gates are not read for model_type 'step3p7'");
    readLlamaShape(r, m, false);
    m.activation = gatedActivation(r, "hidden_act", "silu");
    m.qkvBias = m.attnOutBias = r.boolean("attention_bias", false);
    m.moe.experts = int(r.integer("num_experts"));
    m.moe.expertsPerToken = int(r.integer("num_experts_per_tok"));
    m.moe.expertFfnDim = r.integer("moe_intermediate_size");
    m.moe.sharedExperts = int(r.countOr("n_shared_experts", 0));
    if (m.moe.sharedExperts > 0)
        m.moe.sharedExpertFfnDim = r.integer("share_expert_dim");
    m.moe.denseLayers = int(r.countOr("first_k_dense_replace", 0));
    if (m.moe.denseLayers > m.layers)
        r.fail("first_k_dense_replace", "is beyond num_hidden_layers");
    m.moe.routerBias = r.boolean("use_moe_router_bias", false);
    m.ffnDim = m.moe.denseLayers > 0 ? r.integer("intermediate_size") : r.integerOr("intermediate_size", 0);
    std::vector<LayerKind> layers(size_t(m.layers));
    for (size_t i = 0; i < layers.size(); ++i)
        layers[i].channelMixer = int(i) < m.moe.denseLayers ? ChannelMixer::DenseMlp : ChannelMixer::Moe;
    applyTokenMixers(r, m, layers, {});
    setLayers(m, layers);
    notePalmOverCount(m);
    noteMtpLayers(m, r.countOr("num_nextn_predict_layers", 0), "num_nextn_predict_layers");
}

} // namespace mfu::hf
