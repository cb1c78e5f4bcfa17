#include "core/presets/hf_vision.h"

#include <array>
#include <cmath>
#include <string_view>

#include "core/errors.h"

namespace mfu {

using nlohmann::json;

namespace {

std::string keyPath(const std::string& source, const char* key)
{
    return source + ": key 'vision_config." + key + "'";
}

int64_t sizeKey(const json& v, const char* key, const std::string& source)
{
    const std::string path = keyPath(source, key);
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

bool optionalFlag(const json& v, const char* key, bool fallback, const std::string& source)
{
    if (!v.contains(key) || v.at(key).is_null())
        return fallback;
    if (!v.at(key).is_boolean())
        throw InputError(keyPath(source, key) + ": must be true or false, got " + v.at(key).dump());
    return v.at(key).get<bool>();
}

// A text key that must hold one of the values whose layout this reads; absent: the first (the family's default).
std::string choiceKey(
    const json& v, const char* key, std::initializer_list<std::string_view> known, const std::string& source)
{
    if (!v.contains(key) || v.at(key).is_null())
        return std::string(*known.begin());
    const json& x = v.at(key);
    if (x.is_string())
        for (std::string_view k : known)
            if (x.get<std::string>() == k)
                return x.get<std::string>();
    std::string list;
    for (std::string_view k : known)
        list += (list.empty() ? "'" : ", '") + std::string(k) + "'";
    throw InputError(
        keyPath(source, key) + ": " + x.dump() + " is not a layout this application counts (it reads " + list + ")");
}

std::vector<int64_t> indexList(const json& v, const char* key, const std::string& source)
{
    std::vector<int64_t> out;
    if (!v.contains(key) || v.at(key).is_null())
        return out;
    if (!v.at(key).is_array())
        throw InputError(keyPath(source, key) + ": must be a list of block indices");
    for (const json& i : v.at(key)) {
        if (!i.is_number_integer() || i.get<int64_t>() < 0)
            throw InputError(keyPath(source, key) + ": must hold block indices, got " + i.dump());
        out.push_back(i.get<int64_t>());
    }
    return out;
}

// The keys every Qwen vision tower shares (Qwen2-VL, Qwen2.5-VL, Qwen3-VL): heads and how pixels become tokens,
// patch_size x patch_size x temporal_patch_size per patch, spatial_merge_size^2 patches per language-model token.
void readQwenPatching(const json& v, VisionEncoderSpec& e, const std::string& source)
{
    e.heads = sizeKey(v, "num_heads", source);
    e.patchSize = sizeKey(v, "patch_size", source);
    e.temporalPatch = optionalSize(v, "temporal_patch_size", 2, source);
    e.inChannels = optionalSize(v, "in_channels", optionalSize(v, "in_chans", 3, source), source);
    e.spatialMerge = optionalSize(v, "spatial_merge_size", 2, source);
}

// Qwen2-VL (modeling_qwen2_vl.py): embed_dim, mlp_ratio (GELU MLP), num_heads, patch_size, temporal_patch_size,
// spatial_merge_size, in_chans, hidden_size (the language model's width); LayerNorm, full attention, no
// patch-embedding bias.
VisionEncoderSpec readQwen2Vl(const json& v, int64_t languageHidden, const std::string& source)
{
    VisionEncoderSpec e;
    e.depth = sizeKey(v, "depth", source);
    e.hidden = sizeKey(v, "embed_dim", source);
    const double ratio
        = v.contains("mlp_ratio") && v.at("mlp_ratio").is_number() ? v.at("mlp_ratio").get<double>() : 4.0;
    e.mlpDim = int64_t(double(e.hidden) * ratio);
    e.outHidden = optionalSize(v, "hidden_size", languageHidden, source);
    readQwenPatching(v, e, source);
    e.patchEmbedBias = false;
    return e;
}

// Qwen2.5-VL (modeling_qwen2_5_vl.py): depth, hidden_size, intermediate_size (gated SiLU MLP), num_heads,
// patch_size, temporal_patch_size, spatial_merge_size, out_hidden_size, in_chans, window_size (pixels; 112 = 8 x 8
// patches of 14) and fullatt_block_indexes (the blocks that attend over the whole image); RMSNorm, no
// patch-embedding bias.
VisionEncoderSpec readQwen25Vl(const json& v, int64_t languageHidden, const std::string& source)
{
    VisionEncoderSpec e;
    e.depth = sizeKey(v, "depth", source);
    e.hidden = sizeKey(v, "hidden_size", source);
    e.mlpDim = sizeKey(v, "intermediate_size", source);
    e.outHidden = optionalSize(v, "out_hidden_size", languageHidden, source);
    readQwenPatching(v, e, source);
    e.gatedMlp = true;
    e.layerNorm = false;
    e.patchEmbedBias = false;
    const int64_t window = optionalSize(v, "window_size", 112, source);
    e.windowPatches = (window / e.patchSize) * (window / e.patchSize);
    e.fullAttentionBlocks = indexList(v, "fullatt_block_indexes", source);
    return e;
}

// Qwen3-VL and Qwen3.5 (modeling_qwen3_vl.py): depth, hidden_size, intermediate_size (GELU MLP), num_heads,
// patch_size, temporal_patch_size, spatial_merge_size, out_hidden_size, in_channels, num_position_embeddings (a
// learned table) and deepstack_visual_indexes (a merger per injected layer); LayerNorm, full attention.
VisionEncoderSpec readQwen3Vl(const json& v, int64_t languageHidden, const std::string& source)
{
    VisionEncoderSpec e;
    e.depth = sizeKey(v, "depth", source);
    e.hidden = sizeKey(v, "hidden_size", source);
    e.mlpDim = sizeKey(v, "intermediate_size", source);
    e.outHidden = optionalSize(v, "out_hidden_size", languageHidden, source);
    readQwenPatching(v, e, source);
    e.positionEmbeddings = optionalSize(v, "num_position_embeddings", 0, source);
    e.mergers = 1 + int(indexList(v, "deepstack_visual_indexes", source).size());
    return e;
}

// Moonshot's MoonViT (Kimi K2.5; Kimi-VL Technical Report, and the model's own modeling code): vt_num_hidden_layers,
// vt_hidden_size, vt_intermediate_size (GELU MLP, two matrices), vt_num_attention_heads, patch_size (a 2-D patch
// embedding: one frame, with bias), merge_kernel_size (square), init_pos_emb_height x init_pos_emb_width (a learned
// position table; pos_emb_type 'divided_fixed' adds a fixed, unlearned time table), text_hidden_size, and
// mm_hidden_size (the projector's normalised width, the encoder's). LayerNorm, biases, a final LayerNorm, full
// attention over an image's patches; the 'patchmerger' projector: LayerNorm, merge^2 h -> merge^2 h -> the language
// model's width. Keys that would change this layout (qkv_hidden_size, norm_type, linear_bias, attn_bias,
// mlp_type, mm_projector_type, merge_type, pos_emb_type) are checked, and another value is refused by name.
VisionEncoderSpec readMoonVit(const json& v, int64_t languageHidden, const std::string& source)
{
    VisionEncoderSpec e;
    e.depth = sizeKey(v, "vt_num_hidden_layers", source);
    e.hidden = sizeKey(v, "vt_hidden_size", source);
    e.mlpDim = sizeKey(v, "vt_intermediate_size", source);
    e.heads = sizeKey(v, "vt_num_attention_heads", source);
    e.patchSize = sizeKey(v, "patch_size", source);
    e.temporalPatch = 1;
    e.outHidden = optionalSize(v, "text_hidden_size", languageHidden, source);
    if (optionalSize(v, "mm_hidden_size", e.hidden, source) != e.hidden)
        throw InputError(keyPath(source, "mm_hidden_size") + ": differs from vt_hidden_size " + std::to_string(e.hidden)
            + " (a projector of another width is not a layout this application counts)");
    if (optionalSize(v, "qkv_hidden_size", e.hidden, source) != e.hidden)
        throw InputError(keyPath(source, "qkv_hidden_size") + ": differs from vt_hidden_size "
            + std::to_string(e.hidden) + " (attention of another width is not a layout this application counts)");
    const json merge = v.contains("merge_kernel_size") ? v.at("merge_kernel_size") : json();
    if (!merge.is_array() || merge.size() != 2 || !merge[0].is_number_integer() || merge[0] != merge[1]
        || merge[0].get<int64_t>() < 1)
        throw InputError(
            keyPath(source, "merge_kernel_size") + ": must be a square [k, k] of whole numbers, got " + merge.dump());
    e.spatialMerge = merge[0].get<int64_t>();
    choiceKey(v, "merge_type", { "sd2_tpool" }, source);
    choiceKey(v, "mm_projector_type", { "patchmerger" }, source);
    choiceKey(v, "mlp_type", { "mlp2" }, source);
    choiceKey(v, "norm_type", { "layernorm" }, source);
    choiceKey(v, "pos_emb_type", { "divided_fixed" }, source);
    e.biases = optionalFlag(v, "linear_bias", true, source);
    if (optionalFlag(v, "attn_bias", true, source) != e.biases)
        throw InputError(keyPath(source, "attn_bias") + ": differs from linear_bias (not a layout this counts)");
    e.patchEmbedBias = optionalFlag(v, "patch_embed_proj_bias", true, source);
    e.positionEmbeddings = sizeKey(v, "init_pos_emb_height", source) * sizeKey(v, "init_pos_emb_width", source);
    e.finalNorm = true;
    return e;
}

struct VisionFamily {
    std::string_view name; // as users know the models
    std::array<std::string_view, 4> modelTypes; // the outer config's model_type
    VisionEncoderSpec (*read)(const json& v, int64_t languageHidden, const std::string& source);
};

// One entry per encoder layout: a family whose encoder has one of these layouts is one model type more here.
constexpr std::array<VisionFamily, 4> kVisionFamilies { {
    { "Qwen2-VL", { "qwen2_vl" }, readQwen2Vl },
    { "Qwen2.5-VL", { "qwen2_5_vl" }, readQwen25Vl },
    { "Qwen3-VL, Qwen3.5", { "qwen3_vl", "qwen3_vl_moe", "qwen3_5", "qwen3_5_moe" }, readQwen3Vl },
    { "Kimi K2.5", { "kimi_k25", "kimi_k3" }, readMoonVit },
} };

const VisionFamily* visionFamilyOf(const std::string& outerType)
{
    for (const VisionFamily& f : kVisionFamilies)
        for (std::string_view t : f.modelTypes)
            if (!t.empty() && t == outerType)
                return &f;
    return nullptr;
}

} // namespace

std::string visionEncoderFamilies()
{
    std::string out;
    for (const VisionFamily& f : kVisionFamilies)
        out += (out.empty() ? "" : ", ") + std::string(f.name);
    return out;
}

std::optional<VisionEncoderSpec> visionEncoderFromHfConfig(
    const json& outer, const std::string& outerType, int64_t languageHidden, const std::string& source)
{
    const VisionFamily* family = visionFamilyOf(outerType);
    if (!family)
        return std::nullopt;
    if (!outer.contains("vision_config") || outer.at("vision_config").is_null())
        return std::nullopt; // an architecture-only excerpt (a preset) describes the language model alone
    if (!outer.at("vision_config").is_object())
        throw InputError(source + ": key 'vision_config': must be an object");
    VisionEncoderSpec e = family->read(outer.at("vision_config"), languageHidden, source);
    if (e.hidden % e.heads != 0)
        throw InputError(source + ": key 'vision_config' heads: " + std::to_string(e.heads)
            + " do not divide the width " + std::to_string(e.hidden));
    for (int64_t i : e.fullAttentionBlocks)
        if (i >= e.depth)
            throw InputError(source + ": key 'vision_config.fullatt_block_indexes': block " + std::to_string(i)
                + " is beyond depth " + std::to_string(e.depth));
    return e;
}

} // namespace mfu
