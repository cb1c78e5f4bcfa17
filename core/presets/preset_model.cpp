// Model preset entry -> ModelSpec. An entry is one of three kinds: a bare parameter count ("params"), a Hugging
// Face config.json ("hf_config", read by the same importer as user files), or native architecture fields.
#include <limits>
#include <string>

#include "core/io/field_reader.h"
#include "core/presets/hf_config.h"
#include "core/presets/presets.h"

namespace mfu {

using nlohmann::json;

namespace {

int readInt(const FieldReader& r, std::string_view key, int64_t minimum)
{
    return static_cast<int>(r.requiredInteger(key, minimum, kMaxFileCount));
}

MoeSpec readMoe(const FieldReader& r, int layers)
{
    r.rejectUnknownKeys({ "experts", "experts_per_token", "expert_ffn_dim", "shared_experts", "shared_expert_ffn_dim",
        "dense_layers", "router_bias", "shared_expert_gate", "latent_dim", "latent_norm" });
    MoeSpec moe;
    moe.experts = readInt(r, "experts", 1);
    moe.expertsPerToken = static_cast<int>(r.requiredInteger("experts_per_token", 1, moe.experts));
    moe.expertFfnDim = r.requiredInteger("expert_ffn_dim", 1, kMaxFileCount);
    moe.sharedExperts = static_cast<int>(r.optionalInteger("shared_experts", 0, kMaxFileCount).value_or(0));
    moe.sharedExpertFfnDim = r.optionalInteger("shared_expert_ffn_dim", 0, kMaxFileCount).value_or(0);
    moe.denseLayers = static_cast<int>(r.optionalInteger("dense_layers", 0, layers).value_or(0));
    moe.routerBias = r.optionalBool("router_bias", false);
    moe.sharedExpertGate = r.optionalBool("shared_expert_gate", false);
    moe.latentDim = r.optionalInteger("latent_dim", 0, kMaxFileCount).value_or(0);
    moe.latentNorm = r.optionalBool("latent_norm", false);
    if (moe.latentNorm && moe.latentDim == 0)
        throw FieldError(r.keyPath("latent_norm"), "needs latent_dim: the norm is over the latent");
    return moe;
}

// The token mixers beyond attention (core/model/token_mixers.h), keyed as scenario files write them.
GatedDeltaNetSpec readLinearAttention(const FieldReader& r)
{
    r.rejectUnknownKeys({ "key_heads", "value_heads", "key_head_dim", "value_head_dim", "conv_kernel" });
    GatedDeltaNetSpec g;
    g.keyHeads = readInt(r, "key_heads", 1);
    g.valueHeads = readInt(r, "value_heads", 1);
    g.keyHeadDim = r.requiredInteger("key_head_dim", 1, kMaxFileCount);
    g.valueHeadDim = r.requiredInteger("value_head_dim", 1, kMaxFileCount);
    g.convKernel = static_cast<int>(r.optionalInteger("conv_kernel", 1, 64).value_or(4));
    return g;
}

Mamba2Spec readMamba(const FieldReader& r)
{
    r.rejectUnknownKeys(
        { "heads", "head_dim", "groups", "state_size", "conv_kernel", "projection_bias", "conv_bias", "chunk_size" });
    Mamba2Spec m;
    m.heads = readInt(r, "heads", 1);
    m.headDim = r.requiredInteger("head_dim", 1, kMaxFileCount);
    m.groups = static_cast<int>(r.optionalInteger("groups", 1, kMaxFileCount).value_or(1));
    m.stateSize = r.requiredInteger("state_size", 1, kMaxFileCount);
    m.convKernel = static_cast<int>(r.optionalInteger("conv_kernel", 1, 64).value_or(4));
    m.projectionBias = r.optionalBool("projection_bias", false);
    m.convBias = r.optionalBool("conv_bias", true);
    m.chunkSize = r.optionalInteger("chunk_size", 1, kMaxFileCount).value_or(m.chunkSize);
    return m;
}

SparseIndexerSpec readSparseIndexer(const FieldReader& r)
{
    r.rejectUnknownKeys({ "heads", "head_dim", "top_k", "block_size", "local_blocks", "query_from_hidden",
        "head_weights", "key_norm" });
    SparseIndexerSpec s;
    s.heads = readInt(r, "heads", 1);
    s.headDim = r.requiredInteger("head_dim", 1, kMaxFileCount);
    s.topK = r.requiredInteger("top_k", 1, kMaxFileCount);
    s.blockSize = r.optionalInteger("block_size", 1, kMaxFileCount).value_or(1);
    s.localBlocks = r.optionalInteger("local_blocks", 0, kMaxFileCount).value_or(0);
    s.queryFromHidden = r.optionalBool("query_from_hidden", false);
    s.headWeights = r.optionalBool("head_weights", true);
    s.keyNorm = r.optionalBool("key_norm", true);
    return s;
}

KimiDeltaAttentionSpec readKimiDeltaAttention(const FieldReader& r)
{
    r.rejectUnknownKeys({ "heads", "head_dim", "conv_kernel", "full_rank_forget_gate" });
    KimiDeltaAttentionSpec k;
    k.heads = readInt(r, "heads", 1);
    k.headDim = r.requiredInteger("head_dim", 1, kMaxFileCount);
    k.convKernel = static_cast<int>(r.optionalInteger("conv_kernel", 1, 64).value_or(4));
    k.fullRankForgetGate = r.optionalBool("full_rank_forget_gate", false);
    return k;
}

CompressedAttentionSpec readCompressedAttention(const FieldReader& r)
{
    r.rejectUnknownKeys({ "q_lora_rank", "output_rank", "output_groups", "sparse_ratio", "dense_ratio" });
    CompressedAttentionSpec c;
    c.qLoraRank = r.requiredInteger("q_lora_rank", 1, kMaxFileCount);
    c.outputRank = r.requiredInteger("output_rank", 1, kMaxFileCount);
    c.outputGroups = readInt(r, "output_groups", 1);
    c.sparseRatio = r.optionalInteger("sparse_ratio", 0, kMaxFileCount).value_or(0);
    c.denseRatio = r.optionalInteger("dense_ratio", 0, kMaxFileCount).value_or(0);
    return c;
}

MlaSpec readMla(const FieldReader& r)
{
    r.rejectUnknownKeys({ "q_lora_rank", "kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim" });
    MlaSpec mla;
    mla.enabled = true;
    mla.qLoraRank = r.optionalInteger("q_lora_rank", 0, kMaxFileCount).value_or(0);
    mla.kvLoraRank = r.requiredInteger("kv_lora_rank", 1, kMaxFileCount);
    mla.qkNopeHeadDim = r.requiredInteger("qk_nope_head_dim", 1, kMaxFileCount);
    mla.qkRopeHeadDim = r.requiredInteger("qk_rope_head_dim", 0, kMaxFileCount);
    mla.vHeadDim = r.requiredInteger("v_head_dim", 1, kMaxFileCount);
    return mla;
}

std::vector<LayerRun> readLayerPattern(const FieldReader& r, const json& list)
{
    if (!list.is_array() || list.empty())
        throw FieldError(r.keyPath("layer_pattern"), "must be a non-empty list of runs");
    std::vector<LayerRun> runs;
    for (size_t i = 0; i < list.size(); ++i) {
        const std::string path = r.keyPath("layer_pattern") + "[" + std::to_string(i) + "]";
        const FieldReader run(list[i], path);
        run.rejectUnknownKeys({ "count", "token_mixer", "channel_mixer", "ffn_dim", "kv_heads", "head_dim",
            "value_head_dim", "key_is_value", "attention_sinks", "norms" });
        LayerRun out;
        out.count = readInt(run, "count", 1);
        const std::string mixer = run.requiredString("token_mixer");
        const auto tm = tokenMixerFromKey(mixer);
        if (!tm)
            throw FieldError(run.keyPath("token_mixer"),
                "\"" + mixer
                    + "\" is not full_attention, sliding_attention, chunked_attention, sparse_attention, "
                      "linear_attention, kimi_delta_attention, compressed_sparse_attention, "
                      "heavily_compressed_attention, mamba2, linear_projection or none");
        out.kind.tokenMixer = *tm;
        const std::string channel = run.requiredString("channel_mixer");
        const auto cm = channelMixerFromKey(channel);
        if (!cm)
            throw FieldError(
                run.keyPath("channel_mixer"), "\"" + channel + "\" is not dense, moe, linear_projection or none");
        out.kind.channelMixer = *cm;
        out.kind.ffnDim = run.optionalInteger("ffn_dim", 0, kMaxFileCount).value_or(0);
        // The layer's own attention shape where it differs from the model's (model_spec.h, AttentionShape).
        out.kind.attention.kvHeads = static_cast<int>(run.optionalInteger("kv_heads", 1, kMaxFileCount).value_or(0));
        out.kind.attention.headDim = run.optionalInteger("head_dim", 1, kMaxFileCount).value_or(0);
        out.kind.attention.valueHeadDim = run.optionalInteger("value_head_dim", 1, kMaxFileCount).value_or(0);
        out.kind.attention.keyIsValue = run.optionalBool("key_is_value", false);
        if (run.has("attention_sinks"))
            out.kind.attention.sinks = run.optionalBool("attention_sinks", false) ? AttentionShape::Override::Yes
                                                                                  : AttentionShape::Override::No;
        out.kind.norms = static_cast<int>(run.optionalInteger("norms", 0, 8).value_or(-1));
        runs.push_back(out);
    }
    return runs;
}

// A vision-language model's encoder (core/model/vision_encoder.h), as scenario files write it.
VisionEncoderSpec readVisionEncoder(const FieldReader& r)
{
    r.rejectUnknownKeys({ "depth", "hidden", "mlp_dim", "gated_mlp", "heads", "patch_size", "temporal_patch",
        "in_channels", "spatial_merge", "out_hidden", "mergers", "window_patches", "full_attention_blocks", "biases",
        "patch_embed_bias", "layer_norm", "deepstack_post_shuffle_norm", "position_embeddings", "final_norm" });
    VisionEncoderSpec v;
    v.depth = r.requiredInteger("depth", 1, kMaxFileCount);
    v.hidden = r.requiredInteger("hidden", 1, kMaxFileCount);
    v.mlpDim = r.requiredInteger("mlp_dim", 1, kMaxFileCount);
    v.gatedMlp = r.optionalBool("gated_mlp", false);
    v.heads = r.requiredInteger("heads", 1, kMaxFileCount);
    v.patchSize = r.requiredInteger("patch_size", 1, kMaxFileCount);
    v.temporalPatch = r.optionalInteger("temporal_patch", 1, kMaxFileCount).value_or(1);
    v.inChannels = r.optionalInteger("in_channels", 1, kMaxFileCount).value_or(3);
    v.spatialMerge = r.optionalInteger("spatial_merge", 1, kMaxFileCount).value_or(1);
    v.outHidden = r.requiredInteger("out_hidden", 1, kMaxFileCount);
    v.mergers = static_cast<int>(r.optionalInteger("mergers", 1, 1000).value_or(1));
    v.windowPatches = r.optionalInteger("window_patches", 0, kMaxFileCount).value_or(0);
    if (r.has("full_attention_blocks")) {
        const json& blocks = r.object().at("full_attention_blocks");
        if (!blocks.is_array())
            throw FieldError(r.keyPath("full_attention_blocks"), "must be a list of block indices");
        for (const json& b : blocks) {
            if (!b.is_number_integer() || b.get<int64_t>() < 0 || b.get<int64_t>() >= v.depth)
                throw FieldError(r.keyPath("full_attention_blocks"), "must hold block indices below depth");
            v.fullAttentionBlocks.push_back(b.get<int64_t>());
        }
    }
    v.biases = r.optionalBool("biases", true);
    v.patchEmbedBias = r.optionalBool("patch_embed_bias", true);
    v.layerNorm = r.optionalBool("layer_norm", true);
    v.deepStackPostShuffleNorm = r.optionalBool("deepstack_post_shuffle_norm", true);
    v.positionEmbeddings = r.optionalInteger("position_embeddings", 0, kMaxFileCount).value_or(0);
    v.finalNorm = r.optionalBool("final_norm", false);
    return v;
}

ModelSpec readNative(const FieldReader& r)
{
    r.rejectUnknownKeys(
        { "id", "name", "source", "layers", "hidden", "heads", "kv_heads", "head_dim", "ffn_dim", "activation", "vocab",
            "tied_embeddings", "qkv_bias", "linear_bias", "norm", "learned_positions", "moe", "mla", "attn_out_bias",
            "mlp_bias", "norms_per_layer", "qk_norm", "attention_sinks", "sliding_window", "attention_chunk",
            "layer_pattern", "notes", "attention_output_gate", "linear_attention", "mamba", "sparse_indexer",
            "vision_encoder", "kimi_delta_attention", "compressed_attention", "hyper_connections", "value_head_dim" });
    ModelSpec spec;
    spec.layers = readInt(r, "layers", 1);
    spec.hidden = r.requiredInteger("hidden", 1, kMaxFileCount);
    spec.heads = readInt(r, "heads", 1);
    spec.kvHeads = static_cast<int>(r.optionalInteger("kv_heads", 1, spec.heads).value_or(spec.heads));
    if (const auto headDim = r.optionalInteger("head_dim", 1, kMaxFileCount))
        spec.headDim = *headDim;
    else if (spec.hidden % spec.heads == 0)
        spec.headDim = spec.hidden / spec.heads;
    else
        throw FieldError("head_dim", "missing, and hidden is not a multiple of heads");

    const std::string activation = r.requiredString("activation");
    if (activation == "swiglu")
        spec.activation = FfnActivation::SwiGLU;
    else if (activation == "gelu")
        spec.activation = FfnActivation::GELU;
    else
        throw FieldError(r.keyPath("activation"), "\"" + activation + "\" is not swiglu or gelu");

    const std::string norm = r.requiredString("norm");
    if (norm == "rmsnorm")
        spec.norm = NormKind::RMSNorm;
    else if (norm == "layernorm")
        spec.norm = NormKind::LayerNorm;
    else if (norm == "layernorm_nobias")
        spec.norm = NormKind::LayerNormNoBias;
    else
        throw FieldError(r.keyPath("norm"), "\"" + norm + "\" is not rmsnorm, layernorm or layernorm_nobias");

    spec.vocab = r.requiredInteger("vocab", 1, kMaxFileCount);
    spec.tiedEmbeddings = r.optionalBool("tied_embeddings", false);
    spec.qkvBias = r.optionalBool("qkv_bias", false);
    spec.linearBias = r.optionalBool("linear_bias", false);
    spec.learnedPositions = r.optionalInteger("learned_positions", 0, kMaxFileCount).value_or(0);
    if (const auto moe = r.optionalObject("moe"))
        spec.moe = readMoe(*moe, spec.layers);
    if (const auto mla = r.optionalObject("mla"))
        spec.mla = readMla(*mla);
    spec.attnOutBias = r.optionalBool("attn_out_bias", false);
    spec.mlpBias = r.optionalBool("mlp_bias", false);
    spec.normsPerLayer = static_cast<int>(r.optionalInteger("norms_per_layer", 0, 8).value_or(2));
    if (const auto qk = r.optionalString("qk_norm")) {
        const auto q = qkNormFromKey(*qk);
        if (!q)
            throw FieldError(r.keyPath("qk_norm"), "\"" + *qk + "\" is not none, per_head or full_width");
        spec.qkNorm = *q;
    }
    spec.attentionSinks = r.optionalBool("attention_sinks", false);
    spec.valueHeadDim = r.optionalInteger("value_head_dim", 1, kMaxFileCount).value_or(0);
    spec.slidingWindow = r.optionalInteger("sliding_window", 0, kMaxFileCount).value_or(0);
    spec.attentionChunk = r.optionalInteger("attention_chunk", 0, kMaxFileCount).value_or(0);
    spec.attentionOutputGate = r.optionalBool("attention_output_gate", false);
    if (const auto g = r.optionalObject("linear_attention"))
        spec.linearAttention = readLinearAttention(*g);
    if (const auto mamba = r.optionalObject("mamba"))
        spec.mamba = readMamba(*mamba);
    if (const auto ix = r.optionalObject("sparse_indexer"))
        spec.sparseIndexer = readSparseIndexer(*ix);
    if (const auto k = r.optionalObject("kimi_delta_attention"))
        spec.kimiDeltaAttention = readKimiDeltaAttention(*k);
    if (const auto c = r.optionalObject("compressed_attention"))
        spec.compressedAttention = readCompressedAttention(*c);
    spec.hyperConnections = static_cast<int>(r.optionalInteger("hyper_connections", 0, 64).value_or(0));
    if (const auto v = r.optionalObject("vision_encoder"))
        spec.vision = readVisionEncoder(*v);
    if (r.has("layer_pattern"))
        spec.layerPattern = readLayerPattern(r, r.object().at("layer_pattern"));
    if (r.has("notes")) {
        const json& notes = r.object().at("notes");
        if (!notes.is_array())
            throw FieldError(r.keyPath("notes"), "must be a list of strings");
        for (const json& n : notes) {
            if (!n.is_string())
                throw FieldError(r.keyPath("notes"), "must be a list of strings");
            spec.notes.push_back(n.get<std::string>());
        }
    }

    // Every layer routed to experts needs no dense FFN size; otherwise it is required.
    bool allLayersMoe = spec.isMoe() && spec.moe.denseLayers == 0;
    for (const LayerRun& run : spec.layerPattern)
        allLayersMoe = allLayersMoe && (run.kind.channelMixer != ChannelMixer::DenseMlp || run.kind.ffnDim > 0);
    spec.ffnDim = allLayersMoe ? r.optionalInteger("ffn_dim", 0, kMaxFileCount).value_or(0)
                               : r.requiredInteger("ffn_dim", 1, kMaxFileCount);
    return spec;
}

ModelSpec readHfConfig(const FieldReader& r, const std::string& source)
{
    r.rejectUnknownKeys({ "id", "name", "source", "hf_config" });
    try {
        return modelFromHfConfig(r.object().at("hf_config"), source);
    } catch (const FieldError& e) {
        throw FieldError(e.key().empty() ? "hf_config" : "hf_config." + e.key(), e.reason());
    } catch (const InputError& e) {
        throw FieldError("hf_config", e.what());
    }
}

} // namespace

ModelSpec modelFromPresetJson(const json& entryJson)
{
    const FieldReader entry(entryJson, "");
    const std::string id = entry.requiredString("id");
    checkPresetId(id);
    const std::string name = entry.requiredString("name");
    const std::string source = entry.requiredString("source"); // where the architecture comes from

    const int kinds = static_cast<int>(entry.has("params")) + static_cast<int>(entry.has("hf_config"))
        + static_cast<int>(entry.has("layers"));
    if (kinds != 1)
        throw FieldError(
            "", "give exactly one of \"params\" (a bare count), \"hf_config\" or native fields (\"layers\", ...)");

    ModelSpec spec;
    if (entry.has("params")) {
        entry.rejectUnknownKeys({ "id", "name", "source", "params" });
        spec = bareModel(entry.requiredInteger("params", 1, kMaxBareModelParams), name);
    } else if (entry.has("hf_config")) {
        spec = readHfConfig(entry, source);
    } else {
        spec = readNative(entry);
    }
    spec.id = id;
    spec.name = name;
    spec.source = source;
    if (!spec.isBare()) {
        try {
            validateModelSpec(spec);
        } catch (const FieldError&) {
            throw;
        } catch (const InputError& e) {
            throw FieldError("", e.what());
        }
    }
    return spec;
}

} // namespace mfu
