// Gemma 4 (gemma4: the multimodal config; its language model gemma4_text in text_config). Gemma 3's decoder with
// two attention shapes and, in the MoE models, experts beside the dense MLP. What each key means for the counts:
//   layer_types            sliding_attention (window sliding_window) or full_attention, one per layer; required
//   sliding layers         num_attention_heads x head_dim queries, num_key_value_heads key/value heads
//   full (global) layers   global_head_dim per head, num_global_key_value_heads key/value heads; attention_k_eq_v:
//                          the values are the keys (no v_proj)
//   attention              attention_bias; q_norm and k_norm over each layer's head_dim (v_norm has no weights)
//   MLP                    a gated MLP (hidden_activation) of intermediate_size on every layer
//   enable_moe_block       the layer also routes to num_experts experts of moe_intermediate_size, top top_k_experts,
//                          beside the dense MLP (counted as one always-on shared expert of intermediate_size); the
//                          router has a per-expert scale (num_experts weights) besides its projection
//   norms                  pre and post norms around attention and the MLP (4); with experts, the experts' pre and post
//                          norms, the dense MLP's own post norm and the router's per-channel scale (4 more vectors of
//                          hidden_size)
//   embeddings             vocab_size x hidden_size, tied (tie_word_embeddings)
//   no parameters          rope_parameters, final_logit_softcapping, use_bidirectional_attention (vision tokens),
//                          max_position_embeddings
// Keys of the small Gemma 4 models that change these counts (per-layer input embeddings, key/value sharing across
// layers, double-wide MLPs) are refused by name unless they are off.
#include "core/presets/hf_config_families.h"

namespace mfu::hf {

void readGemma4(const Reader& r, ModelSpec& m)
{
    if (r.countOr("hidden_size_per_layer_input", 0) > 0)
        r.fail("hidden_size_per_layer_input", "per-layer input embeddings are not read (only 0)");
    if (r.countOr("num_kv_shared_layers", 0) > 0)
        r.fail("num_kv_shared_layers", "layers sharing another layer's keys and values are not read (only 0)");
    if (r.boolean("use_double_wide_mlp", false))
        r.fail("use_double_wide_mlp", "double-wide MLPs are not read (only false)");
    m.hidden = r.integer("hidden_size");
    m.layers = int(r.integer("num_hidden_layers"));
    m.heads = int(r.integer("num_attention_heads"));
    m.kvHeads = int(r.integerOr("num_key_value_heads", m.heads));
    m.headDim = r.integer("head_dim");
    m.vocab = r.integer("vocab_size");
    m.tiedEmbeddings = r.tiedEmbeddings(true);
    m.ffnDim = r.integer("intermediate_size");
    m.activation
        = gatedActivation(r, r.has("hidden_activation") ? "hidden_activation" : "hidden_act", "gelu_pytorch_tanh");
    m.qkvBias = m.attnOutBias = r.boolean("attention_bias", false);
    m.qkNorm = QkNorm::PerHead;
    m.normsPerLayer = 4;

    const bool experts = r.boolean("enable_moe_block", false);
    if (experts) {
        m.moe.experts = int(r.integer("num_experts"));
        m.moe.expertsPerToken = int(r.integer("top_k_experts"));
        m.moe.expertFfnDim = r.integer("moe_intermediate_size");
        m.moe.sharedExperts = 1; // the dense MLP runs beside the experts on every token
        m.moe.sharedExpertFfnDim = m.ffnDim;
        m.moe.routerBias = true; // per_expert_scale: one weight per expert, counted as a router bias is
        m.normsPerLayer = 8;
    }

    AttentionShape global;
    if (const int64_t d = r.integerOr("global_head_dim", m.headDim); d != m.headDim)
        global.headDim = d;
    if (const int64_t kv = r.integerOr("num_global_key_value_heads", m.kvHeads); kv != m.kvHeads)
        global.kvHeads = int(kv);
    global.keyIsValue = r.boolean("attention_k_eq_v", false);

    if (!r.has("layer_types"))
        r.fail("layer_types", "missing: Gemma 4 names each layer sliding_attention or full_attention");
    std::vector<LayerKind> layers(size_t(m.layers));
    for (LayerKind& l : layers)
        l.channelMixer = experts ? ChannelMixer::Moe : ChannelMixer::DenseMlp;
    applyTokenMixers(r, m, layers, {});
    for (LayerKind& l : layers) {
        if (l.tokenMixer == TokenMixer::ChunkedAttention)
            r.fail("layer_types", "chunked_attention is not a Gemma 4 layer type");
        if (l.tokenMixer == TokenMixer::FullAttention)
            l.attention = global;
    }
    setLayers(m, layers);
    notePalmOverCount(m);
}

} // namespace mfu::hf
