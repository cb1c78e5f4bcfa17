// Scenario-file JSON of the two embedded specs. The model is written in the preset file's native-field layout and
// read back by the preset reader (one parser, one set of checks). The hardware is written in SI units rather than
// the preset's TFLOPS and GB: a value divided and re-multiplied by 1e12 can come back one ulp off, and a scenario
// must reopen identical.
#include <nlohmann/json.hpp>

#include "core/io/field_reader.h"
#include "core/model/cost_model_constants_json.h"
#include "core/presets/gpu_match.h"
#include "core/presets/presets.h"
#include "core/scenario/scenario_file.h"

namespace mfu {

using nlohmann::json;

namespace {

std::string joinPath(const std::string& path, const std::string& key)
{
    if (key.empty())
        return path;
    return path.empty() ? key : path + "." + key;
}

json peaksJson(const std::array<std::optional<double>, kNumberFormatCount>& peaks)
{
    json out = json::object();
    for (int i = 0; i < kNumberFormatCount; ++i)
        if (peaks[static_cast<size_t>(i)])
            out[std::string(numberFormatKey(static_cast<NumberFormat>(i)))] = *peaks[static_cast<size_t>(i)];
    return out;
}

void readPeaks(const FieldReader& r, std::array<std::optional<double>, kNumberFormatCount>& peaks)
{
    for (auto it = r.object().begin(); it != r.object().end(); ++it) {
        if (!numberFormatFromKey(it.key()))
            throw FieldError(r.keyPath(it.key()), "unknown number format (fp32, tf32, bf16, fp8, fp4)");
    }
    for (int i = 0; i < kNumberFormatCount; ++i) {
        const std::string key(numberFormatKey(static_cast<NumberFormat>(i)));
        if (const auto v = r.optionalNumber(key)) {
            if (!(*v > 0))
                throw FieldError(r.keyPath(key), "must be positive FLOP/s");
            peaks[static_cast<size_t>(i)] = *v;
        }
    }
}

} // namespace

json hardwareToScenarioJson(const HardwareSpec& h, const std::optional<CostModelConstants>& costModel)
{
    json out = { { "id", h.id }, { "name", h.name }, { "vendor", h.vendor },
        { "peak_dense_flops", peaksJson(h.peakDenseFlops) }, { "peak_sparse_flops", peaksJson(h.peakSparseFlops) },
        { "hbm_bytes", h.hbmBytes }, { "hbm_bandwidth_bytes_per_sec", h.hbmBandwidthBytesPerSec },
        { "scale_up_domain_gpus", h.scaleUpDomainGpus },
        { "scale_up_bandwidth_bytes_per_sec", h.scaleUpBandwidthBytesPerSec }, { "scale_up_name", h.scaleUpName },
        { "scale_out_bandwidth_bytes_per_sec", h.scaleOutBandwidthBytesPerSec },
        { "price_per_gpu_hour_usd", h.pricePerGpuHourUsd }, { "sources", h.sources } };
    if (h.powerWatts)
        out["power_watts"] = *h.powerWatts;
    // Written only when stated, so files without it stay readable by older builds.
    if (h.hostLinkBytesPerSec > 0)
        out["host_link_bandwidth_bytes_per_sec"] = h.hostLinkBytesPerSec;
    if (!h.hostLinkName.empty())
        out["host_link_name"] = h.hostLinkName;
    // The names a trace or a log gives this GPU (gpu_match.h), so that a calibration of the saved scenario knows its
    // trace's GPU; written only when known.
    if (!h.matchPatterns.empty())
        out["match"] = h.matchPatterns;
    if (costModel)
        out["cost_model"] = costModelConstantsToJson(*costModel);
    return out;
}

HardwareSpec hardwareFromScenarioJson(
    const json& object, const std::string& path, std::optional<CostModelConstants>* costModel)
{
    const FieldReader r(object, path);
    r.rejectUnknownKeys({ "id", "name", "vendor", "peak_dense_flops", "peak_sparse_flops", "hbm_bytes",
        "hbm_bandwidth_bytes_per_sec", "scale_up_domain_gpus", "scale_up_bandwidth_bytes_per_sec", "scale_up_name",
        "scale_out_bandwidth_bytes_per_sec", "host_link_bandwidth_bytes_per_sec", "host_link_name",
        "price_per_gpu_hour_usd", "power_watts", "sources", "cost_model", "match" });
    HardwareSpec h;
    h.id = r.requiredString("id");
    h.name = r.requiredString("name");
    h.vendor = r.optionalString("vendor").value_or("");
    if (const auto dense = r.optionalObject("peak_dense_flops"))
        readPeaks(*dense, h.peakDenseFlops);
    if (const auto sparse = r.optionalObject("peak_sparse_flops"))
        readPeaks(*sparse, h.peakSparseFlops);
    h.hbmBytes = r.requiredNumber("hbm_bytes");
    h.hbmBandwidthBytesPerSec = r.requiredNumber("hbm_bandwidth_bytes_per_sec");
    h.scaleUpDomainGpus = static_cast<int>(r.requiredInteger("scale_up_domain_gpus", 1, 1'000'000));
    h.scaleUpBandwidthBytesPerSec = r.optionalNumber("scale_up_bandwidth_bytes_per_sec").value_or(0);
    h.scaleUpName = r.optionalString("scale_up_name").value_or("");
    h.scaleOutBandwidthBytesPerSec = r.optionalNumber("scale_out_bandwidth_bytes_per_sec").value_or(0);
    h.hostLinkBytesPerSec = r.optionalNumber("host_link_bandwidth_bytes_per_sec").value_or(0);
    h.hostLinkName = r.optionalString("host_link_name").value_or("");
    h.pricePerGpuHourUsd = r.optionalNumber("price_per_gpu_hour_usd").value_or(0);
    h.powerWatts = r.optionalNumber("power_watts");
    if (object.contains("match"))
        h.matchPatterns = matchPatternsFromJson(object["match"], path + ".match");
    if (const auto sources = r.optionalObject("sources")) {
        for (auto it = sources->object().begin(); it != sources->object().end(); ++it)
            h.sources[it.key()] = sources->requiredString(it.key());
    }
    try {
        validateHardwareSpec(h);
    } catch (const InputError& e) {
        throw FieldError(path, e.what()); // the validator names the figure by its preset key
    }
    if (object.contains("cost_model")) {
        const CostModelConstants read
            = costModelConstantsFromJson(object["cost_model"], defaultCostModelConstants(h), path + ".cost_model");
        if (costModel)
            *costModel = read;
    }
    return h;
}

json modelToScenarioJson(const ModelSpec& m)
{
    json out = { { "id", m.id }, { "name", m.name }, { "source", m.source } };
    if (m.isBare()) {
        out["params"] = *m.bareParams;
        return out;
    }
    out.update({ { "layers", m.layers }, { "hidden", m.hidden }, { "heads", m.heads }, { "kv_heads", m.kvHeads },
        { "head_dim", m.headDim }, { "ffn_dim", m.ffnDim },
        { "activation", m.activation == FfnActivation::SwiGLU ? "swiglu" : "gelu" }, { "vocab", m.vocab },
        { "tied_embeddings", m.tiedEmbeddings }, { "qkv_bias", m.qkvBias }, { "linear_bias", m.linearBias },
        { "norm",
            m.norm == NormKind::RMSNorm         ? "rmsnorm"
                : m.norm == NormKind::LayerNorm ? "layernorm"
                                                : "layernorm_nobias" },
        { "learned_positions", m.learnedPositions } });
    // Layer-level fields, written only when they differ from the defaults (older files stay identical).
    if (m.attnOutBias)
        out["attn_out_bias"] = true;
    if (m.mlpBias)
        out["mlp_bias"] = true;
    if (m.normsPerLayer != 2)
        out["norms_per_layer"] = m.normsPerLayer;
    if (m.qkNorm != QkNorm::None)
        out["qk_norm"] = std::string(qkNormKey(m.qkNorm));
    if (m.attentionSinks)
        out["attention_sinks"] = true;
    if (m.valueHeadDim > 0)
        out["value_head_dim"] = m.valueHeadDim;
    if (m.slidingWindow > 0)
        out["sliding_window"] = m.slidingWindow;
    if (m.attentionChunk > 0)
        out["attention_chunk"] = m.attentionChunk;
    if (!m.layerPattern.empty()) {
        json runs = json::array();
        for (const LayerRun& r : m.layerPattern) {
            json run = { { "count", r.count }, { "token_mixer", std::string(tokenMixerKey(r.kind.tokenMixer)) },
                { "channel_mixer", std::string(channelMixerKey(r.kind.channelMixer)) } };
            if (r.kind.ffnDim > 0)
                run["ffn_dim"] = r.kind.ffnDim;
            // A layer's own attention shape and norms, written only where they differ from the model's.
            const AttentionShape& a = r.kind.attention;
            if (a.kvHeads > 0)
                run["kv_heads"] = a.kvHeads;
            if (a.headDim > 0)
                run["head_dim"] = a.headDim;
            if (a.valueHeadDim > 0)
                run["value_head_dim"] = a.valueHeadDim;
            if (a.keyIsValue)
                run["key_is_value"] = true;
            if (a.sinks != AttentionShape::Override::Model)
                run["attention_sinks"] = a.sinks == AttentionShape::Override::Yes;
            if (r.kind.norms >= 0)
                run["norms"] = r.kind.norms;
            runs.push_back(run);
        }
        out["layer_pattern"] = runs;
    }
    if (!m.notes.empty())
        out["notes"] = m.notes;
    if (m.isMoe())
        out["moe"] = { { "experts", m.moe.experts }, { "experts_per_token", m.moe.expertsPerToken },
            { "expert_ffn_dim", m.moe.expertFfnDim }, { "shared_experts", m.moe.sharedExperts },
            { "shared_expert_ffn_dim", m.moe.sharedExpertFfnDim }, { "dense_layers", m.moe.denseLayers },
            { "router_bias", m.moe.routerBias } };
    if (m.isMoe() && m.moe.sharedExpertGate)
        out["moe"]["shared_expert_gate"] = true;
    if (m.isMoe() && m.moe.latentDim > 0)
        out["moe"]["latent_dim"] = m.moe.latentDim;
    if (m.isMoe() && m.moe.latentNorm)
        out["moe"]["latent_norm"] = true;
    // Token mixers beyond attention, written only for a model whose layers use them.
    if (m.attentionOutputGate)
        out["attention_output_gate"] = true;
    bool linear = false, mamba = false, sparse = false, kda = false;
    for (const LayerRun& r : m.layerPattern) {
        linear = linear || r.kind.tokenMixer == TokenMixer::LinearAttention;
        mamba = mamba || r.kind.tokenMixer == TokenMixer::Mamba2;
        sparse = sparse || r.kind.tokenMixer == TokenMixer::SparseAttention
            || r.kind.tokenMixer == TokenMixer::CompressedSparseAttention;
        kda = kda || r.kind.tokenMixer == TokenMixer::KimiDeltaAttention;
    }
    if (kda) {
        const auto& k = m.kimiDeltaAttention;
        out["kimi_delta_attention"] = { { "heads", k.heads }, { "head_dim", k.headDim },
            { "conv_kernel", k.convKernel }, { "full_rank_forget_gate", k.fullRankForgetGate } };
    }
    if (m.compressedAttention.enabled()) {
        const auto& c = m.compressedAttention;
        out["compressed_attention"] = { { "q_lora_rank", c.qLoraRank }, { "output_rank", c.outputRank },
            { "output_groups", c.outputGroups }, { "sparse_ratio", c.sparseRatio }, { "dense_ratio", c.denseRatio } };
    }
    if (m.hyperConnections > 0)
        out["hyper_connections"] = m.hyperConnections;
    if (linear) {
        const auto& g = m.linearAttention;
        out["linear_attention"] = { { "key_heads", g.keyHeads }, { "value_heads", g.valueHeads },
            { "key_head_dim", g.keyHeadDim }, { "value_head_dim", g.valueHeadDim }, { "conv_kernel", g.convKernel } };
    }
    if (mamba) {
        const auto& x = m.mamba;
        out["mamba"] = { { "heads", x.heads }, { "head_dim", x.headDim }, { "groups", x.groups },
            { "state_size", x.stateSize }, { "conv_kernel", x.convKernel }, { "projection_bias", x.projectionBias },
            { "conv_bias", x.convBias }, { "chunk_size", x.chunkSize } };
    }
    if (sparse) {
        const auto& x = m.sparseIndexer;
        out["sparse_indexer"] = { { "heads", x.heads }, { "head_dim", x.headDim }, { "top_k", x.topK } };
        if (x.blockSize != 1 || x.localBlocks != 0 || x.queryFromHidden || !x.headWeights || !x.keyNorm)
            out["sparse_indexer"].update({ { "block_size", x.blockSize }, { "local_blocks", x.localBlocks },
                { "query_from_hidden", x.queryFromHidden }, { "head_weights", x.headWeights },
                { "key_norm", x.keyNorm } });
    }
    if (m.vision) {
        const VisionEncoderSpec& v = *m.vision;
        out["vision_encoder"] = { { "depth", v.depth }, { "hidden", v.hidden }, { "mlp_dim", v.mlpDim },
            { "gated_mlp", v.gatedMlp }, { "heads", v.heads }, { "patch_size", v.patchSize },
            { "temporal_patch", v.temporalPatch }, { "in_channels", v.inChannels }, { "spatial_merge", v.spatialMerge },
            { "out_hidden", v.outHidden }, { "mergers", v.mergers }, { "window_patches", v.windowPatches },
            { "full_attention_blocks", v.fullAttentionBlocks }, { "biases", v.biases },
            { "patch_embed_bias", v.patchEmbedBias }, { "layer_norm", v.layerNorm },
            { "deepstack_post_shuffle_norm", v.deepStackPostShuffleNorm },
            { "position_embeddings", v.positionEmbeddings }, { "final_norm", v.finalNorm } };
    }
    if (m.mla.enabled)
        out["mla"] = { { "q_lora_rank", m.mla.qLoraRank }, { "kv_lora_rank", m.mla.kvLoraRank },
            { "qk_nope_head_dim", m.mla.qkNopeHeadDim }, { "qk_rope_head_dim", m.mla.qkRopeHeadDim },
            { "v_head_dim", m.mla.vHeadDim } };
    return out;
}

ModelSpec modelFromScenarioJson(const json& object, const std::string& path)
{
    const FieldReader r(object, path);
    // The preset reader insists on a preset-style id and non-empty name and source; a scenario's model may be an
    // imported "My Config.json" with no source, so those three are read here and placeholders go to the reader.
    const std::string id = r.optionalString("id").value_or("");
    const std::string name = r.optionalString("name").value_or("");
    const std::string source = r.optionalString("source").value_or("");
    json entry = object;
    entry["id"] = "scenario-model";
    entry["name"] = "scenario model";
    entry["source"] = "scenario file";
    ModelSpec spec;
    try {
        spec = modelFromPresetJson(entry);
    } catch (const FieldError& e) {
        throw FieldError(joinPath(path, e.key()), e.reason());
    }
    spec.id = id;
    spec.name = name;
    spec.source = source;
    return spec;
}

} // namespace mfu
