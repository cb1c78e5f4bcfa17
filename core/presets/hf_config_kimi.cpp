// Kimi Linear (kimi_linear: Kimi-Linear-48B-A3B, and the language model of Kimi K3, model_type kimi_k3 with the
// text model in text_config), read as Moonshot's modeling_kimi.py (KimiLinearForCausalLM) defines its parameters:
//   token mixers   linear_attn_config lists the layers, numbered from 1: kda_layers are Kimi Delta Attention
//                  (num_heads x head_dim, short_conv_kernel_size; use_full_rank_gate projects the forget gate with
//                  one hidden x (heads x head_dim) matrix instead of the low-rank pair f_a_proj, f_b_proj),
//                  full_attn_layers are DeepSeek-V3's multi-head latent attention (q_lora_rank, kv_lora_rank,
//                  qk_nope/qk_rope/v head sizes; mla_use_nope only drops the rotation, not a weight). With
//                  mla_use_output_gate the MLA output is gated per channel by its own Linear(hidden, heads x v).
//   channel mixers the first first_k_dense_replace layers (and those off moe_layer_freq) are a gated MLP of
//                  intermediate_size; the others route num_experts_per_token of num_experts experts of
//                  moe_intermediate_size and add num_shared_experts shared ones; with routed_expert_hidden_size
//                  below the hidden size the routed experts work at that latent width between two projections
//                  (latent MoE), with an RMSNorm over the latent when latent_moe_use_norm.
// hidden_act "situ" (Kimi K3) is a gated activation: the checkpoint's MLPs are gate_proj, up_proj and down_proj
// (its quantization_config names them), three matrices as for SwiGLU.
// Left out, and said in the model's notes: Attention Residuals (attn_res_block_size: a learned query vector and a
// key norm per sublayer mixing earlier block outputs, a few hidden-size vectors per layer), and the
// multi-token-prediction layers (num_nextn_predict_layers), as for DeepSeek-V3.
#include <set>
#include <string>

#include "core/presets/hf_config_families.h"
#include "core/presets/hf_config_reader.h"

namespace mfu::hf {

namespace {

// The layer numbers (from 1) of one list of linear_attn_config, each within 1..layers.
std::set<int64_t> layerNumbers(const Reader& lin, const std::string& key, int layers)
{
    std::set<int64_t> out;
    for (const int64_t n : lin.integerList(key)) {
        if (n < 1 || n > layers)
            lin.fail(key,
                "layer " + std::to_string(n) + " is outside 1.." + std::to_string(layers)
                    + " (Kimi Linear numbers its layers from 1)");
        if (!out.insert(n).second)
            lin.fail(key, "lists layer " + std::to_string(n) + " twice");
    }
    return out;
}

} // namespace

void readKimiLinear(const Reader& r, ModelSpec& m)
{
    readLlamaShape(r, m, false);
    const std::string act = r.string("hidden_act", "silu");
    m.activation = act == "situ" ? FfnActivation::SwiGLU : gatedActivation(r, "hidden_act", "silu");
    m.ffnDim = r.integer("intermediate_size");

    m.mla.enabled = true;
    m.mla.qLoraRank = r.countOr("q_lora_rank", 0); // null in Kimi-Linear-48B-A3B: a direct query projection
    m.mla.kvLoraRank = r.integer("kv_lora_rank");
    m.mla.qkNopeHeadDim = r.integer("qk_nope_head_dim");
    m.mla.qkRopeHeadDim = r.integer("qk_rope_head_dim");
    m.mla.vHeadDim = r.integer("v_head_dim");
    m.headDim = m.mla.vHeadDim;
    m.attentionOutputGate = r.boolean("mla_use_output_gate", false);

    const bool moe = r.has("num_experts");
    int denseLayers = m.layers;
    int64_t moeEvery = 1;
    if (moe) {
        m.moe.experts = int(r.integer("num_experts"));
        m.moe.expertsPerToken = int(
            r.has("num_experts_per_token") ? r.integer("num_experts_per_token") : r.integer("num_experts_per_tok"));
        m.moe.expertFfnDim = r.integer("moe_intermediate_size");
        m.moe.sharedExperts = int(r.countOr("num_shared_experts", 0));
        m.moe.routerBias = r.string("topk_method", "") == "noaux_tc"; // DeepSeek-V3's e_score_correction_bias
        denseLayers = int(r.countOr("first_k_dense_replace", 0));
        moeEvery = r.integerOr("moe_layer_freq", 1);
        const int64_t routedWidth = r.integerOr("routed_expert_hidden_size", m.hidden);
        if (routedWidth > m.hidden)
            r.fail("routed_expert_hidden_size",
                "is wider than hidden_size (" + std::to_string(m.hidden) + "): a latent MoE narrows the experts");
        if (routedWidth < m.hidden) {
            m.moe.latentDim = routedWidth;
            m.moe.latentNorm = r.boolean("latent_moe_use_norm", false);
        }
    }

    if (!r.has("linear_attn_config") || !r.at("linear_attn_config").is_object())
        r.fail("linear_attn_config",
            "missing: Kimi Linear names its Kimi Delta Attention and full-attention layers there");
    Reader lin(
        r.at("linear_attn_config"), r.at("linear_attn_config"), r.source(), r.keyPath("linear_attn_config") + ".");
    lin.setModelType(r.modelType());
    KimiDeltaAttentionSpec& k = m.kimiDeltaAttention;
    k.heads = int(lin.integer("num_heads"));
    k.headDim = lin.integer("head_dim");
    k.convKernel = int(lin.integerOr("short_conv_kernel_size", 4));
    k.fullRankForgetGate = lin.boolean("use_full_rank_gate", false);
    const std::set<int64_t> kda = layerNumbers(lin, "kda_layers", m.layers);
    const std::set<int64_t> full = layerNumbers(lin, "full_attn_layers", m.layers);

    std::vector<LayerKind> layers;
    for (int i = 0; i < m.layers; ++i) {
        const int64_t number = i + 1;
        LayerKind kind;
        const bool isKda = kda.count(number) > 0;
        const bool isFull = full.count(number) > 0;
        if (isKda == isFull)
            lin.fail(isKda ? "full_attn_layers" : "kda_layers",
                "layer " + std::to_string(number)
                    + (isKda ? " is in both kda_layers and full_attn_layers"
                             : " is in neither kda_layers nor full_attn_layers"));
        kind.tokenMixer = isKda ? TokenMixer::KimiDeltaAttention : TokenMixer::FullAttention;
        kind.channelMixer = moe && i >= denseLayers && i % moeEvery == 0 ? ChannelMixer::Moe : ChannelMixer::DenseMlp;
        layers.push_back(kind);
    }
    setLayers(m, layers);

    if (r.has("attn_res_block_size"))
        m.notes.push_back("Attention Residuals (attn_res_block_size " + std::to_string(r.integer("attn_res_block_size"))
            + "): the learned per-sublayer query vectors and key norms that mix earlier blocks' outputs are not "
              "counted (a few hidden-size vectors per layer), nor their depth-wise softmax");
    if (full.size() < size_t(m.layers))
        m.notes.push_back("only " + std::to_string(full.size()) + " of " + std::to_string(m.layers)
            + " layers attend over the whole sequence (the others are Kimi Delta Attention): the PaLM formula "
              "(12·L·H·Q·S over all layers, as published) over-counts; the per-component formulas count each "
              "layer's own mixer");
}

} // namespace mfu::hf
