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
#include <string>

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

// MiniMax-M3 (minimax_m3): the M2 attention (GQA, q/k norms of qk_norm_type) and router, with
//   channel mixers   moe_layer_freq per layer: 0 a dense gated MLP of dense_intermediate_size (the first
//                    first_k_dense_replace layers), 1 num_local_experts experts of moe_intermediate_size, top
//                    num_experts_per_tok, plus n_shared_experts shared experts of shared_intermediate_size;
//                    hidden_act "swigluoai" is gpt-oss's clamped SwiGLU (swiglu_alpha, swiglu_limit): three matrices;
//   token mixers     sparse_attention_config.sparse_attention_freq per layer: 0 full attention, 1 block-sparse
//                    attention: keys are scored by an indexer of sparse_num_index_heads heads of sparse_index_dim
//                    (score type "max": a block scores as its best key, so every earlier key is scored), and the
//                    attention runs over the sparse_topk_blocks best blocks of sparse_block_size tokens plus
//                    sparse_local_block recent and sparse_init_block first blocks.
// MiniMax has not published the indexer's modeling code with this config: it is counted as an index query projection
// from the hidden state (heads x index_dim) and one shared index key (index_dim), as DeepSeek's lightning indexer has,
// without per-head weights (sparse_disable_index_value: no index value projection either); the model's notes say so.
// A layer whose index value is enabled is refused. The multi-token-prediction modules (num_mtp_modules) are left out.
void readMiniMaxM3(const Reader& r, ModelSpec& m)
{
    readLlamaShape(r, m, false);
    const std::string act = r.string("hidden_act", "silu");
    m.activation = act == "swigluoai" ? FfnActivation::SwiGLU : gatedActivation(r, "hidden_act", "silu");
    if (r.boolean("attention_output_gate", false))
        r.fail("attention_output_gate", "an output gate on MiniMax-M3's attention is not read");
    if (r.boolean("use_qk_norm", false)) {
        const std::string type = r.string("qk_norm_type", "per_layer");
        if (type == "per_layer")
            m.qkNorm = QkNorm::FullWidth;
        else if (type == "per_head")
            m.qkNorm = QkNorm::PerHead;
        else
            r.fail("qk_norm_type", "'" + type + "' is not one of per_layer, per_head");
    }
    m.ffnDim = r.integer("dense_intermediate_size");
    m.moe.experts = int(r.integer("num_local_experts"));
    m.moe.expertsPerToken = int(r.integer("num_experts_per_tok"));
    m.moe.expertFfnDim = r.integer("moe_intermediate_size");
    m.moe.sharedExperts = int(r.countOr("n_shared_experts", 0));
    if (m.moe.sharedExperts > 0)
        m.moe.sharedExpertFfnDim = r.integer("shared_intermediate_size");
    m.moe.routerBias = r.boolean("use_routing_bias", false);

    const std::vector<int64_t> moeLayers = r.integerList("moe_layer_freq");
    if (int(moeLayers.size()) != m.layers)
        r.fail("moe_layer_freq",
            "has " + std::to_string(moeLayers.size()) + " entries for " + std::to_string(m.layers)
                + " layers (MiniMax-M3 gives one per layer: 1 MoE, 0 dense)");

    if (!r.has("sparse_attention_config") || !r.at("sparse_attention_config").is_object())
        r.fail("sparse_attention_config", "missing: MiniMax-M3 names its sparse-attention layers there");
    Reader sparse(r.at("sparse_attention_config"), r.at("sparse_attention_config"), r.source(),
        r.keyPath("sparse_attention_config") + ".");
    sparse.setModelType(r.modelType());
    const bool useSparse = sparse.boolean("use_sparse_attention", false);
    const std::vector<int64_t> sparseLayers
        = useSparse ? sparse.integerList("sparse_attention_freq") : std::vector<int64_t>(size_t(m.layers), 0);
    if (int(sparseLayers.size()) != m.layers)
        sparse.fail("sparse_attention_freq",
            "has " + std::to_string(sparseLayers.size()) + " entries for " + std::to_string(m.layers) + " layers");
    const std::vector<int64_t> noIndexValue = sparse.integerList("sparse_disable_index_value");

    std::vector<LayerKind> layers;
    bool anySparse = false;
    for (int i = 0; i < m.layers; ++i) {
        LayerKind kind { TokenMixer::FullAttention, ChannelMixer::DenseMlp, 0 };
        if (moeLayers[size_t(i)] > 1)
            r.fail("moe_layer_freq", "entry " + std::to_string(i) + " is not 0 (dense) or 1 (MoE)");
        if (moeLayers[size_t(i)] == 1)
            kind.channelMixer = ChannelMixer::Moe;
        if (sparseLayers[size_t(i)] > 1)
            sparse.fail("sparse_attention_freq", "entry " + std::to_string(i) + " is not 0 (full) or 1 (sparse)");
        if (sparseLayers[size_t(i)] == 1) {
            if (size_t(i) >= noIndexValue.size() || noIndexValue[size_t(i)] != 1)
                sparse.fail("sparse_disable_index_value",
                    "layer " + std::to_string(i) + " has an index value projection, which is not read");
            kind.tokenMixer = TokenMixer::SparseAttention;
            anySparse = true;
        }
        layers.push_back(kind);
    }
    if (anySparse) {
        const std::string score = sparse.string("sparse_score_type", "max");
        if (score != "max")
            sparse.fail("sparse_score_type", "'" + score + "' is not read (only \"max\": every key scored)");
        SparseIndexerSpec& x = m.sparseIndexer;
        x.heads = int(sparse.integer("sparse_num_index_heads"));
        x.headDim = sparse.integer("sparse_index_dim");
        x.topK = sparse.integer("sparse_topk_blocks");
        x.blockSize = sparse.integer("sparse_block_size");
        x.localBlocks = sparse.countOr("sparse_local_block", 0) + sparse.countOr("sparse_init_block", 0);
        x.queryFromHidden = true;
        x.headWeights = false;
        x.keyNorm = false;
        m.notes.push_back("MiniMax-M3's block-sparse attention: the indexer is counted as an index query ("
            + std::to_string(x.heads) + " x " + std::to_string(x.headDim) + ") and one index key ("
            + std::to_string(x.headDim)
            + ") projected from the hidden state, scoring every earlier key; the config does not spell out its "
              "weights. Attention runs over at most "
            + std::to_string(x.attendedKeys()) + " keys per query");
    }
    setLayers(m, layers);
}

} // namespace mfu::hf
