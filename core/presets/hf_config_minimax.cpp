// MiniMax-M2 (minimax_m2: MiniMax-M2, M2.5, M2.7): a Mixtral-like stack of full-attention layers with a routed MoE
// on every layer, read as transformers' modeling_minimax_m2.py defines its parameters:
//   attention   q/k/v/o without biases, GQA, head_dim; q_norm and k_norm RMSNorm over the whole projection
//               (qk_norm_type "per_layer": heads x head_dim and kv_heads x head_dim)
//   MoE         num_local_experts experts of intermediate_size (SwiGLU), top num_experts_per_tok, sigmoid router
//               with a score-correction bias (use_routing_bias); no shared expert (shared_intermediate_size 0)
//   layers      attn_type_list: 1 = softmax attention on every layer in the M2 releases; 0 would be MiniMax-01's
//               lightning (linear) attention, which this reader does not count, so it refuses such a config.
// The multi-token-prediction modules (use_mtp, num_mtp_modules) are not part of the model the cards count and train
// on the main path; they are left out, as for DeepSeek-V3.
#include "core/presets/hf_config_families.h"
#include "core/presets/hf_config_reader.h"

namespace mfu::hf {

void readMiniMaxM2(const Reader& r, ModelSpec& m)
{
    readLlamaShape(r, m, false);
    m.activation = gatedActivation(r, "hidden_act", "silu");
    m.ffnDim = r.integer("intermediate_size");
    m.moe.experts = int(r.integer("num_local_experts"));
    m.moe.expertsPerToken = int(r.integer("num_experts_per_tok"));
    m.moe.expertFfnDim = m.ffnDim;
    if (r.countOr("shared_intermediate_size", 0) > 0)
        r.fail("shared_intermediate_size", "a shared expert is not read for minimax_m2 (the M2 releases have none)");
    m.moe.routerBias = r.boolean("use_routing_bias", false);
    if (r.boolean("use_qk_norm", false)) {
        const std::string type = r.string("qk_norm_type", "per_layer");
        if (type == "per_layer")
            m.qkNorm = QkNorm::FullWidth;
        else if (type == "per_head")
            m.qkNorm = QkNorm::PerHead;
        else
            r.fail("qk_norm_type", "'" + type + "' is not one of per_layer, per_head");
    }
    for (int64_t kind : r.integerList("attn_type_list"))
        if (kind != 1)
            r.fail("attn_type_list",
                "lightning (linear) attention layers (0) are not read yet: only softmax "
                "attention (1) on every layer");
    setLayers(
        m, std::vector<LayerKind>(size_t(m.layers), LayerKind { TokenMixer::FullAttention, ChannelMixer::Moe, 0 }));
}

} // namespace mfu::hf
