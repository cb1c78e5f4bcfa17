// Mixture-of-experts families. Which layers route to experts, the shared expert and its gate, biases on experts and
// router, and the attention layout follow each model_type's transformers modeling file.
#include <algorithm>

#include "core/presets/hf_config_families.h"

namespace mfu::hf {

namespace {

// Per-layer kinds from a predicate "layer i is MoE"; a dense layer then needs the dense FFN size `denseKey`.
std::vector<LayerKind> moeStack(const Reader& r, ModelSpec& m, const std::vector<bool>& isMoe, const char* denseKey)
{
    std::vector<LayerKind> layers(size_t(m.layers));
    bool anyDense = false;
    for (size_t i = 0; i < layers.size(); ++i) {
        layers[i].channelMixer = isMoe[i] ? ChannelMixer::Moe : ChannelMixer::DenseMlp;
        anyDense = anyDense || !isMoe[i];
    }
    if (anyDense)
        m.ffnDim = r.integer(denseKey);
    else
        m.ffnDim = r.has(denseKey) ? r.integer(denseKey) : 0;
    return layers;
}

int topK(const Reader& r)
{
    return int(r.integer("num_experts_per_tok"));
}

} // namespace

void readMixtral(const Reader& r, ModelSpec& m)
{
    readLlamaShape(r, m, false);
    m.ffnDim = r.integer("intermediate_size");
    m.activation = gatedActivation(r, "hidden_act", "silu");
    m.moe.experts = int(r.integer("num_local_experts"));
    m.moe.expertsPerToken = topK(r);
    m.moe.expertFfnDim = m.ffnDim;
    if (r.has("sliding_window")) { // MixtralConfig: default None; when set, every layer
        m.slidingWindow = r.integer("sliding_window");
        setLayers(m,
            std::vector<LayerKind>(
                size_t(m.layers), LayerKind { TokenMixer::SlidingWindowAttention, ChannelMixer::Moe, 0 }));
    }
}

void readQwenMoe(const Reader& r, ModelSpec& m)
{
    readLlamaShape(r, m, false);
    m.activation = gatedActivation(r, "hidden_act", "silu");
    if (r.modelType() == "qwen2_moe") {
        m.qkvBias = true; // q/k/v_proj bias=True, o_proj bias=False
    } else { // qwen3_moe: attention_bias on q/k/v/o, q_norm / k_norm = RMSNorm(head_dim)
        m.qkvBias = m.attnOutBias = r.boolean("attention_bias", false);
        m.qkNorm = QkNorm::PerHead;
    }
    m.moe.experts = int(r.integer("num_experts"));
    m.moe.expertsPerToken = topK(r);
    m.moe.expertFfnDim = r.integer("moe_intermediate_size");
    // Qwen2-MoE: one shared expert of shared_expert_intermediate_size with a sigmoid gate Linear(h, 1).
    if (r.modelType() == "qwen2_moe" && r.countOr("shared_expert_intermediate_size", 0) > 0) {
        m.moe.sharedExperts = 1;
        m.moe.sharedExpertFfnDim = r.integer("shared_expert_intermediate_size");
        m.moe.sharedExpertGate = true;
    }
    // Layer i is sparse when it is not in mlp_only_layers and (i + 1) % decoder_sparse_step == 0.
    const std::vector<int64_t> mlpOnly = r.integerList("mlp_only_layers");
    const int64_t step = r.integerOr("decoder_sparse_step", 1);
    std::vector<bool> isMoe;
    for (int i = 0; i < m.layers; ++i)
        isMoe.push_back(std::find(mlpOnly.begin(), mlpOnly.end(), i) == mlpOnly.end() && (i + 1) % step == 0);
    std::vector<LayerKind> layers = moeStack(r, m, isMoe, "intermediate_size");
    applyQwenSlidingWindow(r, m, layers);
    setLayers(m, layers);
}

void readGraniteMoe(const Reader& r, ModelSpec& m)
{
    readLlamaShape(r, m, false);
    m.activation = gatedActivation(r, "hidden_act", "silu");
    m.qkvBias = m.attnOutBias = r.boolean("attention_bias", false);
    // GraniteMoeMoE: every layer; experts input_linear (h -> 2 x intermediate) and output_linear, no biases;
    // router Linear(h, experts, bias=False).
    m.moe.experts = int(r.integer("num_local_experts"));
    m.moe.expertsPerToken = topK(r);
    m.moe.expertFfnDim = r.integer("intermediate_size");
}

void readGptOss(const Reader& r, ModelSpec& m)
{
    readLlamaShape(r, m, false, 64); // GptOssConfig: head_dim 64
    m.activation = FfnActivation::SwiGLU; // clamped SwiGLU, gate_up_proj + down_proj
    // GptOssAttention: q/k/v/o with bias=attention_bias (default True) and one learned sink logit per head.
    m.qkvBias = m.attnOutBias = r.boolean("attention_bias", true);
    m.attentionSinks = true;
    m.moe.experts = int(r.integer("num_local_experts"));
    m.moe.expertsPerToken
        = int(r.has("num_experts_per_tok") ? r.integer("num_experts_per_tok") : r.integer("experts_per_token"));
    m.moe.expertFfnDim = r.integer("intermediate_size");
    m.mlpBias = true; // gate_up_proj_bias (2 x intermediate) and down_proj_bias (hidden) per expert
    m.moe.routerBias = true; // GptOssTopKRouter: weight (experts x hidden) and bias (experts)
    std::vector<LayerKind> layers(size_t(m.layers), LayerKind { TokenMixer::FullAttention, ChannelMixer::Moe, 0 });
    std::vector<TokenMixer> defaults; // GptOssConfig: sliding on even layers, full on odd ones
    for (int i = 0; i < m.layers; ++i)
        defaults.push_back((i + 1) % 2 != 0 ? TokenMixer::SlidingWindowAttention : TokenMixer::FullAttention);
    applyTokenMixers(r, m, layers, defaults);
    setLayers(m, layers);
}

void readLlama4(const Reader& r, ModelSpec& m)
{
    readLlamaShape(r, m, false);
    m.activation = gatedActivation(r, "hidden_act", "silu");
    m.qkvBias = m.attnOutBias = r.boolean("attention_bias", false);
    // use_qk_norm is a weightless L2 norm: no parameters.
    m.moe.experts = int(r.integer("num_local_experts"));
    m.moe.expertsPerToken = topK(r);
    m.moe.expertFfnDim = r.integer("intermediate_size"); // routed and shared experts
    m.moe.sharedExperts = 1;
    // MoE layers: moe_layers, else every interleave_moe_layer_step-th layer starting at step - 1.
    std::vector<int64_t> moeLayers = r.integerList("moe_layers");
    if (moeLayers.empty()) {
        const int64_t step = r.integerOr("interleave_moe_layer_step", 1);
        for (int64_t i = step - 1; i < m.layers; i += step)
            moeLayers.push_back(i);
    }
    std::vector<bool> isMoe(size_t(m.layers), false);
    for (const int64_t i : moeLayers) {
        if (i >= m.layers)
            r.fail("moe_layers", "layer " + std::to_string(i) + " is beyond num_hidden_layers");
        isMoe[size_t(i)] = true;
    }
    std::vector<LayerKind> layers = moeStack(r, m, isMoe, "intermediate_size_mlp"); // dense layers' MLP width
    // RoPE layers use chunked attention (attention_chunk_size); NoPE layers (no_rope_layers[i] == 0, by default
    // every 4th) attend to the whole sequence.
    std::vector<TokenMixer> defaults;
    if (r.has("attention_chunk_size")) {
        std::vector<int64_t> rope = r.integerList("no_rope_layers");
        if (rope.empty())
            for (int i = 0; i < m.layers; ++i)
                rope.push_back((i + 1) % r.integerOr("no_rope_layer_interval", 4) != 0 ? 1 : 0);
        if (int(rope.size()) != m.layers)
            r.fail("no_rope_layers", "needs one entry per layer");
        for (const int64_t useRope : rope)
            defaults.push_back(useRope != 0 ? TokenMixer::ChunkedAttention : TokenMixer::FullAttention);
    }
    applyTokenMixers(r, m, layers, defaults);
    setLayers(m, layers);
}

void readDeepSeek(const Reader& r, ModelSpec& m)
{
    readLlamaShape(r, m, false);
    m.ffnDim = r.integer("intermediate_size");
    m.activation = gatedActivation(r, "hidden_act", "silu");
    m.mla.enabled = true;
    m.mla.qLoraRank = r.countOr("q_lora_rank", 0); // null in V2-Lite: direct query projection
    m.mla.kvLoraRank = r.integer("kv_lora_rank");
    m.mla.qkNopeHeadDim = r.integer("qk_nope_head_dim");
    m.mla.qkRopeHeadDim = r.integer("qk_rope_head_dim");
    m.mla.vHeadDim = r.integer("v_head_dim");
    m.headDim = m.mla.vHeadDim;
    if (r.has("n_routed_experts")) {
        m.moe.experts = int(r.integer("n_routed_experts"));
        m.moe.expertsPerToken = topK(r);
        m.moe.expertFfnDim = r.integer("moe_intermediate_size");
        m.moe.sharedExperts = int(r.countOr("n_shared_experts", 0));
        m.moe.denseLayers = int(r.countOr("first_k_dense_replace", 0));
        m.moe.routerBias = r.string("topk_method", "") == "noaux_tc"; // V3's e_score_correction_bias
    }
    // Multi-token-prediction modules (num_nextn_predict_layers) are not part of the trained main model's per-token
    // FLOPs and are not counted.
}

} // namespace mfu::hf
