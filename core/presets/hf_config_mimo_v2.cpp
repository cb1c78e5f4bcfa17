// MiMo-V2-Flash (mimo_v2_flash): a DeepSeek-V3-style MoE whose layers alternate sliding-window and full attention.
// Every key of the published config and what it means for the counts:
//   hybrid_layer_pattern   one entry per layer: 0 full attention, 1 sliding-window attention (the card's 5:1 hybrid,
//                          full attention on the first and every sixth layer after)
//   full layers            num_attention_heads, num_key_value_heads, head_dim (query/key) and v_head_dim (value);
//                          add_full_attention_sink_bias: one learned sink logit per head
//   sliding layers         swa_num_attention_heads (must equal num_attention_heads), swa_num_key_value_heads,
//                          swa_head_dim, swa_v_head_dim; window sliding_window (sliding_window_size, when given, must
//                          agree); add_swa_attention_sink_bias: one sink logit per head
//   attention_bias         biases on q/k/v/o (false in the release)
//   moe_layer_freq         one entry per layer: 1 routed experts, 0 a dense SwiGLU MLP of intermediate_size
//   MoE                    n_routed_experts of moe_intermediate_size, top num_experts_per_tok, n_shared_experts
//                          (null: none); topk_method noaux_tc: the router's score-correction bias (one per expert)
//   no parameters          rope_theta, swa_rope_theta, partial_rotary_factor, attention_value_scale,
//                          attention_chunk_size (the sliding layers' block size; no layer is chunked), norm_topk_prob,
//                          scoring_func, n_group, topk_group, routed_scaling_factor, layernorm_epsilon,
//                          max_position_embeddings, quantization_config (FP8 storage: the same parameters)
// Two RMSNorms per layer, untied LM head unless tie_word_embeddings.
#include "core/presets/hf_config_families.h"

namespace mfu::hf {

namespace {

// A per-layer list of 0/1 flags with one entry per layer.
std::vector<int64_t> perLayerFlags(const Reader& r, const std::string& key, int layers)
{
    if (!r.has(key))
        r.fail(key, "missing (required for model_type '" + r.modelType() + "': one entry per layer)");
    if (!r.at(key).is_array())
        r.fail(key, "must be a list with one 0/1 entry per layer, got " + r.at(key).dump());
    std::vector<int64_t> flags = r.integerList(key);
    if (int(flags.size()) != layers)
        r.fail(key, "has " + std::to_string(flags.size()) + " entries for " + std::to_string(layers) + " layers");
    for (const int64_t f : flags)
        if (f > 1)
            r.fail(key, "entries must be 0 or 1, got " + std::to_string(f));
    return flags;
}

} // namespace

void readMiMoV2Flash(const Reader& r, ModelSpec& m)
{
    readLlamaShape(r, m, false);
    m.valueHeadDim = r.integerOr("v_head_dim", m.headDim);
    m.activation = gatedActivation(r, "hidden_act", "silu");
    m.qkvBias = m.attnOutBias = r.boolean("attention_bias", false);
    m.attentionSinks = r.boolean("add_full_attention_sink_bias", false);

    // The sliding-window layers' own shape, where it differs from the full-attention layers'.
    if (r.integerOr("swa_num_attention_heads", m.heads) != m.heads)
        r.fail("swa_num_attention_heads",
            "differs from num_attention_heads: layers with different query heads are not read");
    AttentionShape swa;
    if (const int64_t kv = r.integerOr("swa_num_key_value_heads", m.kvHeads); kv != m.kvHeads)
        swa.kvHeads = int(kv);
    if (const int64_t d = r.integerOr("swa_head_dim", m.headDim); d != m.headDim)
        swa.headDim = d;
    if (const int64_t v = r.integerOr("swa_v_head_dim", m.vHeadDim()); v != m.vHeadDim() || swa.headDim > 0)
        swa.valueHeadDim = v;
    if (const bool sinks = r.boolean("add_swa_attention_sink_bias", false); sinks != m.attentionSinks)
        swa.sinks = sinks ? AttentionShape::Override::Yes : AttentionShape::Override::No;

    const std::vector<int64_t> pattern = perLayerFlags(r, "hybrid_layer_pattern", m.layers);
    const std::vector<int64_t> moe = perLayerFlags(r, "moe_layer_freq", m.layers);
    std::vector<LayerKind> layers(size_t(m.layers));
    bool sliding = false;
    bool dense = false;
    for (size_t i = 0; i < layers.size(); ++i) {
        if (pattern[i] == 1) {
            layers[i].tokenMixer = TokenMixer::SlidingWindowAttention;
            layers[i].attention = swa;
            sliding = true;
        }
        layers[i].channelMixer = moe[i] == 1 ? ChannelMixer::Moe : ChannelMixer::DenseMlp;
        dense = dense || moe[i] == 0;
    }
    if (sliding) {
        m.slidingWindow = r.integer("sliding_window");
        if (r.has("sliding_window_size") && r.integer("sliding_window_size") != m.slidingWindow)
            r.fail("sliding_window_size", "differs from sliding_window");
    }
    m.ffnDim = dense ? r.integer("intermediate_size") : r.integerOr("intermediate_size", 0);
    if (moe != std::vector<int64_t>(moe.size(), 0)) {
        m.moe.experts = int(r.integer("n_routed_experts"));
        m.moe.expertsPerToken = int(r.integer("num_experts_per_tok"));
        m.moe.expertFfnDim = r.integer("moe_intermediate_size");
        m.moe.sharedExperts = int(r.countOr("n_shared_experts", 0));
        m.moe.routerBias = r.string("topk_method", "") == "noaux_tc";
    }
    setLayers(m, layers);
    notePalmOverCount(m);
}

} // namespace mfu::hf
