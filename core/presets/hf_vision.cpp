#include "core/presets/hf_vision.h"

#include <cmath>

#include "core/errors.h"

namespace mfu {

using nlohmann::json;

namespace {

int64_t sizeKey(const json& v, const char* key, const std::string& source)
{
    const std::string path = source + ": key 'vision_config." + key + "'";
    if (!v.contains(key) || v.at(key).is_null())
        throw InputError(path + ": missing (needed to count the vision encoder)");
    const json& x = v.at(key);
    if (!x.is_number() || x.get<double>() != std::floor(x.get<double>()) || x.get<double>() < 1
        || x.get<double>() > 1e9)
        throw InputError(path + ": must be a whole number from 1, got " + x.dump());
    return int64_t(x.get<double>());
}

int64_t optionalSize(const json& v, const char* key, int64_t fallback, const std::string& source)
{
    return v.contains(key) && !v.at(key).is_null() ? sizeKey(v, key, source) : fallback;
}

std::vector<int64_t> indexList(const json& v, const char* key, const std::string& source)
{
    std::vector<int64_t> out;
    if (!v.contains(key) || v.at(key).is_null())
        return out;
    if (!v.at(key).is_array())
        throw InputError(source + ": key 'vision_config." + key + "': must be a list of block indices");
    for (const json& i : v.at(key)) {
        if (!i.is_number_integer() || i.get<int64_t>() < 0)
            throw InputError(source + ": key 'vision_config." + key + "': must hold block indices, got " + i.dump());
        out.push_back(i.get<int64_t>());
    }
    return out;
}

} // namespace

std::optional<VisionEncoderSpec> visionEncoderFromHfConfig(
    const json& outer, const std::string& outerType, int64_t languageHidden, const std::string& source)
{
    const bool qwen2 = outerType == "qwen2_vl" || outerType == "qwen2_5_vl";
    const bool qwen3 = outerType == "qwen3_vl" || outerType == "qwen3_vl_moe" || outerType == "qwen3_5"
        || outerType == "qwen3_5_moe";
    if (!qwen2 && !qwen3)
        return std::nullopt;
    if (!outer.contains("vision_config") || outer.at("vision_config").is_null())
        return std::nullopt; // an architecture-only excerpt (a preset) describes the language model alone
    if (!outer.at("vision_config").is_object())
        throw InputError(source + ": key 'vision_config': must be an object");
    const json& v = outer.at("vision_config");
    VisionEncoderSpec e;
    e.depth = sizeKey(v, "depth", source);
    // Qwen2-VL names the width embed_dim and the MLP by mlp_ratio; Qwen2.5-VL and Qwen3-VL name hidden_size and
    // intermediate_size.
    if (outerType == "qwen2_vl") {
        e.hidden = sizeKey(v, "embed_dim", source);
        const double ratio
            = v.contains("mlp_ratio") && v.at("mlp_ratio").is_number() ? v.at("mlp_ratio").get<double>() : 4.0;
        e.mlpDim = int64_t(double(e.hidden) * ratio);
        e.outHidden = optionalSize(v, "hidden_size", languageHidden, source);
    } else {
        e.hidden = sizeKey(v, "hidden_size", source);
        e.mlpDim = sizeKey(v, "intermediate_size", source);
        e.outHidden = optionalSize(v, "out_hidden_size", languageHidden, source);
    }
    e.heads = sizeKey(v, "num_heads", source);
    e.patchSize = sizeKey(v, "patch_size", source);
    e.temporalPatch = optionalSize(v, "temporal_patch_size", 2, source);
    e.inChannels = optionalSize(v, "in_channels", optionalSize(v, "in_chans", 3, source), source);
    e.spatialMerge = optionalSize(v, "spatial_merge_size", 2, source);
    if (e.hidden % e.heads != 0)
        throw InputError(
            source + ": key 'vision_config.num_heads': does not divide the width " + std::to_string(e.hidden));
    if (outerType == "qwen2_5_vl") {
        // Windowed attention over window_size pixels (112: 8 x 8 patches of 14) except the full-attention blocks;
        // gated SiLU MLP, RMSNorm, no patch-embedding bias (modeling_qwen2_5_vl.py).
        e.gatedMlp = true;
        e.layerNorm = false;
        e.patchEmbedBias = false;
        const int64_t window = optionalSize(v, "window_size", 112, source);
        e.windowPatches = (window / e.patchSize) * (window / e.patchSize);
        e.fullAttentionBlocks = indexList(v, "fullatt_block_indexes", source);
    } else if (qwen2) {
        e.patchEmbedBias = false; // Qwen2-VL: GELU MLP, LayerNorm, full attention, no patch-embedding bias
    } else {
        // Qwen3-VL / Qwen3.5: GELU MLP, LayerNorm, learned position embeddings, a DeepStack merger per injected layer.
        e.positionEmbeddings = optionalSize(v, "num_position_embeddings", 0, source);
        e.mergers = 1 + int(indexList(v, "deepstack_visual_indexes", source).size());
    }
    for (int64_t i : e.fullAttentionBlocks)
        if (i >= e.depth)
            throw InputError(source + ": key 'vision_config.fullatt_block_indexes': block " + std::to_string(i)
                + " is beyond depth " + std::to_string(e.depth));
    return e;
}

} // namespace mfu
