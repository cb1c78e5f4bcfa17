// DeepSeek-V4 (deepseek_v4: DeepSeek-V4-Flash, DeepSeek-V4-Pro), read as DeepSeek's reference implementation
// (inference/model.py: Attention, Compressor, Indexer, Gate, Block) defines its parameters; the layout is described
// in DeepSeek-AI, "DeepSeek-V4: Towards Highly Efficient Million-Token Context Intelligence", 2026.
//   attention   every layer: a low-rank query (hidden -> q_lora_rank -> heads x head_dim), ONE key-value head of
//               head_dim (num_key_value_heads 1) used as key and value, a per-head attention sink, and a grouped
//               low-rank output (o_groups groups of o_lora_rank, then back to the hidden size); each query attends
//               to the last sliding_window tokens, and, by compress_ratios[layer]:
//                 0     nothing more (sliding-window attention);
//                 4     compressed sparse attention (CSA): keys pooled from every 4 tokens with overlapping windows,
//                       of which a lightning indexer (index_n_heads x index_head_dim, query from the compressed query,
//                       keys from its own compressor) picks index_topk;
//                 other heavily compressed attention (HCA): every key pooled from that many tokens.
//               compress_ratios has one entry per layer, then one per multi-token-prediction layer.
//   MoE         every layer: n_routed_experts experts of moe_intermediate_size (SwiGLU), top num_experts_per_tok,
//               n_shared_experts shared; a score-correction bias (topk_method noaux_tc). The first num_hash_layers
//               route by a fixed token-id table instead of the bias (a buffer, not a trained weight); their gate
//               weights are counted as every layer's, and their 256-odd bias entries too (negligible).
//   residual    hc_mult hyper-connection streams (manifold-constrained hyper-connections).
// The multi-token-prediction layers (num_nextn_predict_layers) are left out, as for DeepSeek-V3.
#include <string>

#include "core/presets/hf_config_families.h"
#include "core/presets/hf_config_reader.h"

namespace mfu::hf {

void readDeepSeekV4(const Reader& r, ModelSpec& m)
{
    readLlamaShape(r, m, false);
    m.headDim = r.integer("head_dim");
    if (m.kvHeads != 1)
        r.fail("num_key_value_heads",
            "is " + std::to_string(m.kvHeads) + ": DeepSeek-V4's attention has one shared key-value head");
    if (r.boolean("attention_bias", false))
        r.fail("attention_bias", "biases on DeepSeek-V4's attention projections are not read");
    m.activation = gatedActivation(r, "hidden_act", "silu");
    m.slidingWindow = r.integer("sliding_window");
    CompressedAttentionSpec& c = m.compressedAttention;
    c.qLoraRank = r.integer("q_lora_rank");
    c.outputRank = r.integer("o_lora_rank");
    c.outputGroups = int(r.integer("o_groups"));
    if (m.heads % c.outputGroups != 0)
        r.fail("o_groups",
            std::to_string(c.outputGroups) + " does not divide num_attention_heads (" + std::to_string(m.heads) + ")");
    m.hyperConnections = int(r.countOr("hc_mult", 0));

    m.moe.experts = int(r.integer("n_routed_experts"));
    m.moe.expertsPerToken = int(r.integer("num_experts_per_tok"));
    m.moe.expertFfnDim = r.integer("moe_intermediate_size");
    m.moe.sharedExperts = int(r.countOr("n_shared_experts", 0));
    m.moe.routerBias = r.string("topk_method", "") == "noaux_tc";
    m.moe.denseLayers = int(r.countOr("first_k_dense_replace", 0));
    if (m.moe.denseLayers > 0)
        m.ffnDim = r.integer("intermediate_size");

    const std::vector<int64_t> ratios = r.integerList("compress_ratios");
    if (ratios.empty())
        r.fail("compress_ratios", "missing: DeepSeek-V4 gives each layer's compression (0, 4 or its HCA ratio)");
    const int64_t mtp = r.countOr("num_nextn_predict_layers", 0);
    if (int64_t(ratios.size()) != m.layers + mtp)
        r.fail("compress_ratios",
            "has " + std::to_string(ratios.size()) + " entries for " + std::to_string(m.layers) + " layers and "
                + std::to_string(mtp) + " multi-token-prediction layers");
    constexpr int64_t kSparseRatio = 4; // the reference implementation gives the indexer to ratio-4 layers only
    std::vector<LayerKind> layers;
    for (int i = 0; i < m.layers; ++i) {
        const int64_t ratio = ratios[size_t(i)];
        LayerKind kind { TokenMixer::SlidingWindowAttention, ChannelMixer::Moe, 0 };
        if (i < m.moe.denseLayers)
            kind.channelMixer = ChannelMixer::DenseMlp;
        if (ratio == kSparseRatio) {
            kind.tokenMixer = TokenMixer::CompressedSparseAttention;
            c.sparseRatio = ratio;
        } else if (ratio > 1) {
            if (c.denseRatio > 0 && c.denseRatio != ratio)
                r.fail("compress_ratios",
                    "has two heavily compressed ratios (" + std::to_string(c.denseRatio) + " and "
                        + std::to_string(ratio) + "); one is read");
            kind.tokenMixer = TokenMixer::HeavilyCompressedAttention;
            c.denseRatio = ratio;
        } else if (ratio == 1) {
            r.fail("compress_ratios", "ratio 1 (layer " + std::to_string(i) + ") compresses nothing; 0 means none");
        }
        layers.push_back(kind);
    }
    if (c.sparseRatio > 0) {
        m.sparseIndexer.heads = int(r.integer("index_n_heads"));
        m.sparseIndexer.headDim = r.integer("index_head_dim");
        m.sparseIndexer.topK = r.integer("index_topk");
        m.sparseIndexer.keyNorm = false; // the indexer's keys come out of its compressor, normed there
    }
    setLayers(m, layers);
    m.notes.push_back("DeepSeek-V4 attends to a " + std::to_string(m.slidingWindow)
        + "-token window plus compressed keys: the PaLM formula (12·L·H·Q·S over all layers, as published) "
          "over-counts; the per-component formulas count each layer's own keys");
}

} // namespace mfu::hf
