// Families whose layers mix tokens in different ways (core/model/token_mixers.h): Qwen3.5's Gated DeltaNet layers
// between full-attention layers, Nemotron-H's Mamba-2 / attention / MLP / MoE blocks, and DeepSeek Sparse
// Attention (DeepSeek-V3.2, GLM-5). Each layout is read from the keys its modeling file reads; a layer type that is
// not known is refused by name, never counted as something else.
#include <string>

#include "core/presets/hf_config_families.h"

namespace mfu::hf {

namespace {

GatedDeltaNetSpec readGatedDeltaNet(const Reader& r)
{
    GatedDeltaNetSpec g;
    g.keyHeads = int(r.integer("linear_num_key_heads"));
    g.valueHeads = int(r.integer("linear_num_value_heads"));
    g.keyHeadDim = r.integer("linear_key_head_dim");
    g.valueHeadDim = r.integer("linear_value_head_dim");
    g.convKernel = int(r.integerOr("linear_conv_kernel_dim", 4));
    return g;
}

// Each layer's token mixer: layer_types names each "linear_attention" (Gated DeltaNet) or "full_attention".
// Qwen3-Next's configs name none: transformers' Qwen3NextConfig derives them from full_attention_interval (every
// interval-th layer full attention, the rest Gated DeltaNet). Qwen3.5's configs list them.
std::vector<TokenMixer> qwen35TokenMixers(const Reader& r, int layers)
{
    std::vector<TokenMixer> mixers;
    const std::vector<std::string> types = r.stringList("layer_types");
    if (types.empty() && r.has("full_attention_interval")) {
        const int64_t interval = r.integer("full_attention_interval");
        for (int i = 0; i < layers; ++i)
            mixers.push_back((i + 1) % interval == 0 ? TokenMixer::FullAttention : TokenMixer::LinearAttention);
        return mixers;
    }
    if (types.empty())
        r.fail("layer_types",
            "missing (and no full_attention_interval): a Qwen3.5 or Qwen3-Next model names each layer "
            "linear_attention or full_attention");
    if (int(types.size()) != layers)
        r.fail("layer_types",
            "has " + std::to_string(types.size()) + " entries for " + std::to_string(layers) + " layers");
    for (const std::string& t : types) {
        if (t == "linear_attention")
            mixers.push_back(TokenMixer::LinearAttention);
        else if (t == "full_attention")
            mixers.push_back(TokenMixer::FullAttention);
        else
            r.fail("layer_types", "layer type '" + t + "' is not supported (linear_attention, full_attention)");
    }
    return mixers;
}

} // namespace

// qwen3_next (Qwen3-Next), qwen3_5_text and qwen3_5_moe_text (Qwen3.5, the same layout): each layer is
// "linear_attention" (Gated DeltaNet) or "full_attention" (gated attention: q_proj is twice as wide and yields a
// sigmoid gate on the output; q_norm and k_norm over head_dim). The channel mixer is a dense SwiGLU MLP, or for the
// MoE models routed experts plus one shared expert with its sigmoid gate Linear(h, 1) on every layer.
void readQwen35(const Reader& r, ModelSpec& m)
{
    readLlamaShape(r, m, false);
    m.activation = gatedActivation(r, "hidden_act", "silu");
    m.qkvBias = m.attnOutBias = r.boolean("attention_bias", false);
    m.qkNorm = QkNorm::PerHead;
    m.attentionOutputGate = r.boolean("attn_output_gate", true);
    m.linearAttention = readGatedDeltaNet(r);

    const bool moe = r.has("num_experts");
    if (moe) {
        m.moe.experts = int(r.integer("num_experts"));
        m.moe.expertsPerToken = int(r.integer("num_experts_per_tok"));
        m.moe.expertFfnDim = r.integer("moe_intermediate_size");
        if (r.countOr("shared_expert_intermediate_size", 0) > 0) {
            m.moe.sharedExperts = 1;
            m.moe.sharedExpertFfnDim = r.integer("shared_expert_intermediate_size");
            m.moe.sharedExpertGate = true;
        }
        if (!r.integerList("mlp_only_layers").empty())
            r.fail("mlp_only_layers", "dense layers inside a Qwen3.5 MoE model are not supported");
        if (r.integerOr("decoder_sparse_step", 1) != 1)
            r.fail("decoder_sparse_step", "dense layers between MoE layers (a step other than 1) are not supported");
        m.ffnDim = r.has("intermediate_size") ? r.integer("intermediate_size") : 0;
    } else {
        m.ffnDim = r.integer("intermediate_size");
    }

    std::vector<LayerKind> layers;
    for (const TokenMixer mixer : qwen35TokenMixers(r, m.layers))
        layers.push_back({ mixer, moe ? ChannelMixer::Moe : ChannelMixer::DenseMlp, 0 });
    setLayers(m, layers);
    notePalmOverCount(m);
    // The multi-token-prediction layer (mtp_num_hidden_layers) is not part of the main model's per-token FLOPs.
}

// nemotron_h (Nemotron-H, Nemotron 3): hybrid_override_pattern gives one character per block: M a Mamba-2 mixer,
// * attention, - a squared-ReLU MLP, E a mixture of experts; newer configs (Nemotron 3 Ultra) list the same blocks as
// layers_block_type ("mamba", "attention", "mlp", "moe") and omit num_hidden_layers. Every block has one RMSNorm
// before its mixer. moe_latent_size makes the MoE latent (ModelSpec::moe.latentDim).
void readNemotronH(const Reader& r, ModelSpec& m)
{
    std::string pattern = r.string("hybrid_override_pattern", "");
    if (pattern.empty()) {
        for (const std::string& block : r.stringList("layers_block_type")) {
            if (block == "mamba")
                pattern += 'M';
            else if (block == "attention")
                pattern += '*';
            else if (block == "mlp")
                pattern += '-';
            else if (block == "moe")
                pattern += 'E';
            else
                r.fail("layers_block_type", "block '" + block + "' is not supported (mamba, attention, mlp, moe)");
        }
    }
    if (pattern.empty())
        r.fail("hybrid_override_pattern", "missing (and no layers_block_type): Nemotron-H names each block");
    m.layers = r.has("num_hidden_layers") ? int(r.integer("num_hidden_layers")) : int(pattern.size());
    m.hidden = r.integer("hidden_size");
    m.heads = int(r.integer("num_attention_heads"));
    m.kvHeads = int(r.integerOr("num_key_value_heads", m.heads));
    m.headDim = r.integerOr("head_dim", m.hidden / m.heads);
    m.vocab = r.integer("vocab_size");
    m.tiedEmbeddings = r.tiedEmbeddings(false);
    if (!r.has("head_dim") && r.has("attention_head_dim"))
        m.headDim = r.integer("attention_head_dim");
    m.activation = plainActivation(r, "mlp_hidden_act", "relu2");
    m.qkvBias = m.attnOutBias = r.boolean("attention_bias", false);
    m.mlpBias = r.boolean("mlp_bias", false);
    m.normsPerLayer = 1;
    m.ffnDim = r.integerOr("intermediate_size", 0);

    if (int(pattern.size()) != m.layers)
        r.fail("hybrid_override_pattern",
            "has " + std::to_string(pattern.size()) + " blocks for " + std::to_string(m.layers) + " layers");
    std::vector<LayerKind> layers;
    bool mamba = false;
    bool moe = false;
    for (const char c : pattern) {
        LayerKind k { TokenMixer::None, ChannelMixer::None, 0 };
        switch (c) {
        case 'M':
            k.tokenMixer = TokenMixer::Mamba2;
            mamba = true;
            break;
        case '*':
            k.tokenMixer = TokenMixer::FullAttention;
            break;
        case '-':
            k.channelMixer = ChannelMixer::DenseMlp;
            break;
        case 'E':
            k.channelMixer = ChannelMixer::Moe;
            moe = true;
            break;
        default:
            r.fail("hybrid_override_pattern", std::string("block '") + c + "' is not supported (M, *, -, E)");
        }
        layers.push_back(k);
    }
    if (mamba) {
        Mamba2Spec& s = m.mamba;
        s.heads = int(r.integer("mamba_num_heads"));
        s.headDim = r.integer("mamba_head_dim");
        s.groups = int(r.integer("n_groups"));
        s.stateSize = r.integer("ssm_state_size");
        s.convKernel = int(r.integerOr("conv_kernel", 4));
        s.projectionBias = r.boolean("use_bias", false);
        s.convBias = r.boolean("use_conv_bias", true);
        s.chunkSize = r.integerOr("chunk_size", s.chunkSize);
    }
    if (moe) { // NemotronHMOE: a DeepSeek-style router with its score-correction bias, one shared expert
        m.moe.experts = int(r.integer("n_routed_experts"));
        m.moe.expertsPerToken = int(r.integer("num_experts_per_tok"));
        m.moe.expertFfnDim = r.integer("moe_intermediate_size");
        m.moe.sharedExperts = int(r.countOr("n_shared_experts", 1));
        m.moe.sharedExpertFfnDim = r.integer("moe_shared_expert_intermediate_size");
        m.moe.routerBias = true;
        m.moe.latentDim = r.countOr("moe_latent_size", 0);
    }
    setLayers(m, layers);
    notePalmOverCount(m);
}

// deepseek_v32 (DeepSeek-V3.2) and glm_moe_dsa (GLM-5): DeepSeek-V3's MLA and MoE, and in every layer a lightning
// indexer (index_n_heads x index_head_dim, reading MLA's compressed query) that picks the index_topk keys the
// attention runs over.
void readDeepSeekSparse(const Reader& r, ModelSpec& m)
{
    readDeepSeek(r, m);
    if (m.mla.qLoraRank <= 0)
        r.fail("q_lora_rank", "missing: the sparse-attention indexer reads MLA's compressed query");
    m.sparseIndexer.heads = int(r.integer("index_n_heads"));
    m.sparseIndexer.headDim = r.integer("index_head_dim");
    m.sparseIndexer.topK = r.integer("index_topk");
    std::vector<LayerKind> layers;
    for (const LayerRun& run : layerRuns(m))
        for (int i = 0; i < run.count; ++i)
            layers.push_back({ TokenMixer::SparseAttention, run.kind.channelMixer, run.kind.ffnDim });
    setLayers(m, layers);
    notePalmOverCount(m);
}

} // namespace mfu::hf
