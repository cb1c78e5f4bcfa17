#include "core/presets/hf_config.h"
#include "core/io/json_errors.h"

#include <nlohmann/json.hpp>

#include <array>
#include <string>

#include "core/errors.h"
#include "core/io/document_kind.h"
#include "core/io/read_file.h"
#include "core/number_format.h"
#include "core/presets/hf_config_families.h"
#include "core/presets/hf_vision.h"

namespace mfu {

using nlohmann::json;

namespace {

using FamilyReader = void (*)(const hf::Reader&, ModelSpec&);

struct Family {
    std::string_view modelType;
    std::string_view architecture; // the exact architectures entry transformers writes for this model_type
    FamilyReader read;
};

constexpr std::array<Family, 57> kFamilies { {
    { "llama", "LlamaForCausalLM", hf::readLlama },
    { "mistral", "MistralForCausalLM", hf::readLlama },
    { "granite", "GraniteForCausalLM", hf::readLlama },
    { "phi3", "Phi3ForCausalLM", hf::readLlama },
    { "qwen2", "Qwen2ForCausalLM", hf::readQwen },
    { "qwen3", "Qwen3ForCausalLM", hf::readQwen },
    { "qwen3_vl_text", "", hf::readQwen },
    // Qwen2-VL and Qwen2.5-VL: older configs keep the language model's keys at the top level, newer ones in
    // text_config (then read as a wrapper, below).
    { "qwen2_vl", "Qwen2VLForConditionalGeneration", hf::readQwen },
    { "qwen2_5_vl", "Qwen2_5_VLForConditionalGeneration", hf::readQwen },
    { "qwen2_vl_text", "", hf::readQwen },
    { "qwen2_5_vl_text", "", hf::readQwen },
    { "olmo2", "Olmo2ForCausalLM", hf::readOlmo2 },
    { "cohere", "CohereForCausalLM", hf::readCohere },
    { "internlm2", "InternLM2ForCausalLM", hf::readInternLm2 },
    { "gemma", "GemmaForCausalLM", hf::readGemma },
    { "gemma2", "Gemma2ForCausalLM", hf::readGemma },
    { "gemma3_text", "Gemma3ForCausalLM", hf::readGemma },
    { "mixtral", "MixtralForCausalLM", hf::readMixtral },
    { "qwen2_moe", "Qwen2MoeForCausalLM", hf::readQwenMoe },
    { "qwen3_moe", "Qwen3MoeForCausalLM", hf::readQwenMoe },
    { "qwen3_vl_moe_text", "", hf::readQwenMoe },
    { "granitemoe", "GraniteMoeForCausalLM", hf::readGraniteMoe },
    { "gpt_oss", "GptOssForCausalLM", hf::readGptOss },
    { "llama4_text", "Llama4ForCausalLM", hf::readLlama4 },
    { "deepseek_v2", "DeepseekV2ForCausalLM", hf::readDeepSeek },
    { "deepseek_v3", "DeepseekV3ForCausalLM", hf::readDeepSeek },
    { "kimi_k2", "", hf::readDeepSeek }, // Kimi K2: DeepSeek-V3's layout (architectures: DeepseekV3ForCausalLM)
    { "deepseek_v32", "DeepseekV32ForCausalLM", hf::readDeepSeekSparse },
    { "glm_moe_dsa", "GlmMoeDsaForCausalLM", hf::readDeepSeekSparse },
    { "qwen3_next", "Qwen3NextForCausalLM", hf::readQwen35 },
    { "qwen3_5_text", "", hf::readQwen35 },
    { "qwen3_5_moe_text", "", hf::readQwen35 },
    { "nemotron_h", "NemotronHForCausalLM", hf::readNemotronH },
    { "mimo", "MiMoForCausalLM", hf::readMiMo },
    { "mimo_v2_flash", "MiMoV2FlashForCausalLM", hf::readMiMoV2Flash },
    { "step3p7", "Step3p7FlashForCausalLM", hf::readStep3p7 },
    { "gemma4_text", "Gemma4ForCausalLM", hf::readGemma4 },
    { "nemotron-nas", "DeciLMForCausalLM", hf::readNemotronNas },
    { "minimax_m2", "MiniMaxM2ForCausalLM", hf::readMiniMaxM2 },
    { "minimax_m3", "MiniMaxM3ForCausalLM", hf::readMiniMaxM3 },
    { "kimi_linear", "KimiLinearForCausalLM", hf::readKimiLinear },
    { "deepseek_v4", "DeepseekV4ForCausalLM", hf::readDeepSeekV4 },
    { "gpt2", "GPT2LMHeadModel", hf::readGpt2 },
    { "gpt_neox", "GPTNeoXForCausalLM", hf::readGptNeoX },
    { "megatron-gpt", "", hf::readGptNeoX },
    { "starcoder2", "Starcoder2ForCausalLM", hf::readStarCoder2 },
    { "falcon", "FalconForCausalLM", hf::readFalcon },
    { "mpt", "MPTForCausalLM", hf::readMpt },
    // Multimodal wrappers: their language model is text_config (model_type given, or the default below).
    { "llama4", "Llama4ForConditionalGeneration", nullptr },
    { "gemma3", "Gemma3ForConditionalGeneration", nullptr },
    { "mistral3", "Mistral3ForConditionalGeneration", nullptr },
    { "llava", "LlavaForConditionalGeneration", nullptr },
    { "kimi_k25", "KimiK25ForConditionalGeneration", nullptr },
    { "qwen3_5", "Qwen3_5ForConditionalGeneration", nullptr },
    { "qwen3_5_moe", "Qwen3_5MoeForConditionalGeneration", nullptr },
    { "kimi_k3", "KimiK3ForConditionalGeneration", nullptr },
    { "gemma4", "Gemma4ForConditionalGeneration", nullptr },
} };

// A multimodal model_type and the model_type of its text_config when that omits it.
struct Wrapper {
    std::string_view modelType;
    std::string_view textModelType;
};
constexpr std::array<Wrapper, 13> kWrappers { {
    { "llava", "llama" },
    { "llama4", "llama4_text" },
    { "gemma3", "gemma3_text" },
    { "mistral3", "mistral" },
    { "qwen3_vl", "qwen3_vl_text" },
    { "qwen2_vl", "qwen2_vl_text" },
    { "qwen2_5_vl", "qwen2_5_vl_text" },
    { "qwen3_vl_moe", "qwen3_vl_moe_text" },
    { "kimi_k25", "kimi_k2" },
    { "qwen3_5", "qwen3_5_text" },
    { "qwen3_5_moe", "qwen3_5_moe_text" },
    { "kimi_k3", "kimi_linear" },
    { "gemma4", "gemma4_text" },
} };

std::string supportedList()
{
    std::string out;
    for (const auto& f : kFamilies)
        out += (out.empty() ? "" : ", ") + std::string(f.modelType);
    for (const auto& w : kWrappers)
        if (w.modelType.rfind("qwen3_vl", 0) == 0)
            out += ", " + std::string(w.modelType);
    return out;
}

const Family* familyOf(std::string_view modelType)
{
    for (const auto& f : kFamilies)
        if (f.modelType == modelType && f.read)
            return &f;
    return nullptr;
}

const Wrapper* wrapperOf(std::string_view modelType)
{
    for (const auto& w : kWrappers)
        if (w.modelType == modelType)
            return &w;
    return nullptr;
}

std::string stringKey(const json& config, const std::string& key, const std::string& source)
{
    if (!config.contains(key) || config.at(key).is_null())
        return {};
    if (!config.at(key).is_string())
        throw InputError(source + ": key '" + key + "': must be a string, got " + config.at(key).dump());
    return config.at(key).get<std::string>();
}

// model_type, or the model_type whose architecture class is EXACTLY one of `architectures` (never a prefix: a
// Qwen2MoeForCausalLM is not a Qwen2ForCausalLM).
std::string modelTypeOf(const json& config, const std::string& source)
{
    std::string modelType = stringKey(config, "model_type", source);
    if (!modelType.empty())
        return modelType;
    if (!config.contains("architectures") || !config["architectures"].is_array() || config["architectures"].empty())
        throw InputError(
            source + ": key 'model_type': missing (and no 'architectures'); is this a Hugging Face config.json?");
    std::string names;
    for (const json& a : config["architectures"]) {
        if (!a.is_string())
            continue;
        const std::string arch = a.get<std::string>();
        for (const auto& f : kFamilies)
            if (!f.architecture.empty() && f.architecture == arch)
                return std::string(f.modelType);
        names += (names.empty() ? "'" : ", '") + arch + "'";
    }
    throw InputError(source + ": key 'model_type': missing, and architecture " + names
        + " is not supported (matched exactly; supported model_type: " + supportedList() + ")");
}

// The display name: _name_or_path, else the folder holding config.json, else the file name without ".json".
std::string nameOf(const json& config, const std::string& source)
{
    if (config.contains("_name_or_path") && config["_name_or_path"].is_string()) {
        std::string n = config["_name_or_path"].get<std::string>();
        if (!n.empty())
            return n;
    }
    std::string path = source;
    const auto slash = path.find_last_of("/\\");
    std::string file = slash == std::string::npos ? path : path.substr(slash + 1);
    if (file == "config.json" && slash != std::string::npos && slash > 0) {
        const std::string folder = path.substr(0, slash);
        const auto up = folder.find_last_of("/\\");
        std::string parent = up == std::string::npos ? folder : folder.substr(up + 1);
        if (!parent.empty() && parent != ".")
            return parent;
    }
    for (const std::string_view suffix : { std::string_view(".config.json"), std::string_view(".json") })
        if (file.size() > suffix.size() && file.compare(file.size() - suffix.size(), suffix.size(), suffix) == 0) {
            file.resize(file.size() - suffix.size());
            break;
        }
    return file.empty() ? source : file;
}

} // namespace

ModelSpec modelFromHfConfig(const json& outer, const std::string& source)
{
    if (!outer.is_object())
        throw InputError(source + ": a config.json must be a JSON object");
    const std::string outerType = modelTypeOf(outer, source);

    // Multimodal configs keep the language model under text_config; only it is counted.
    const json* config = &outer;
    std::string type = outerType;
    std::string prefix;
    bool multimodal = outer.contains("vision_config");
    const Wrapper* w = wrapperOf(outerType);
    if (w && !(outer.contains("text_config") && outer["text_config"].is_object()) && familyOf(outerType))
        w = nullptr; // a flat Qwen2-VL / Qwen2.5-VL config: the language model's keys are at the top level
    if (w) {
        if (!outer.contains("text_config") || !outer["text_config"].is_object())
            throw InputError(source + ": key 'text_config': missing (required for model_type '" + outerType + "')");
        config = &outer["text_config"];
        type = stringKey(*config, "model_type", source + " (text_config)");
        if (type.empty())
            type = std::string(w->textModelType);
        prefix = "text_config.";
        multimodal = true;
    }
    const Family* family = familyOf(type);
    if (!family) {
        const std::string key = prefix + "model_type";
        throw InputError(
            source + ": key '" + key + "': '" + type + "' is not supported (supported: " + supportedList() + ")");
    }
    hf::Reader r(*config, outer, source, prefix);
    r.setModelType(type);

    ModelSpec m;
    m.id = source;
    m.name = nameOf(outer, source);
    m.source = "Hugging Face config.json: " + source;
    family->read(r, m);
    // Without head_dim, the head dimension is hidden / heads: a hidden size the heads do not divide is a typo, not a
    // model (MLA models take their head dimensions from their own keys).
    if (!m.mla.enabled && !m.isBare() && !r.has("head_dim") && m.heads > 0 && m.hidden % m.heads != 0
        && m.headDim == m.hidden / m.heads)
        r.fail("hidden_size",
            std::to_string(m.hidden) + " is not a multiple of the attention heads (" + std::to_string(m.heads)
                + ") and the config gives no head_dim");
    if (multimodal) {
        // The language model is what MFU counts; an encoder whose config cannot be read is left uncounted, and the
        // note says which key is wrong instead of refusing the whole model.
        std::string why = "its family's encoder is not one this application reads, or the config has no vision_config";
        try {
            m.vision = visionEncoderFromHfConfig(outer, outerType, m.hidden, source);
        } catch (const InputError& e) {
            why = e.what();
        }
        m.notes.push_back("multimodal model (" + outerType
            + "): parameters and FLOPs are the language model's; the vision encoder's FLOPs are excluded from MFU"
            + (m.vision ? std::string(" and given beside it, labelled (its ")
                        + formatNumber(visionParameters(*m.vision), 0) + " parameters)"
                        : std::string(" (the encoder is not counted: ") + why + ")"));
    }
    try {
        validateModelSpec(m);
    } catch (const InputError& e) {
        throw InputError(source + ": " + e.what());
    }
    return m;
}

namespace {
// Python's json module (which writes config.json) emits NaN, Infinity and -Infinity for non-finite floats (e.g.
// Nemotron-H's time_step_limit); JSON has no such literals. Outside strings they become null, which no key this
// importer reads accepts as a size.
std::string withoutNonFiniteLiterals(std::string_view text)
{
    std::string out;
    out.reserve(text.size());
    bool inString = false;
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (inString) {
            out += c;
            if (c == '\\' && i + 1 < text.size())
                out += text[++i];
            else if (c == '"')
                inString = false;
            continue;
        }
        inString = c == '"';
        bool replaced = false;
        for (const std::string_view literal :
            { std::string_view("-Infinity"), std::string_view("Infinity"), std::string_view("NaN") }) {
            if (text.substr(i, literal.size()) == literal) {
                out += "null";
                i += literal.size() - 1;
                replaced = true;
                break;
            }
        }
        if (!replaced)
            out += c;
    }
    return out;
}
} // namespace

ModelSpec modelFromHfConfigText(std::string_view text, const std::string& source)
{
    refuseGzip(text, source, "a Hugging Face config.json");
    const std::string cleaned = withoutNonFiniteLiterals(text);
    const json config = parseJsonDocument(cleaned, source);
    // Another of the product's inputs given as a model: named, rather than refused for a missing model_type.
    refuseOtherDocument(config, DocumentKind::HfConfig, source, "a Hugging Face config.json");
    return modelFromHfConfig(config, source);
}

ModelSpec modelFromHfConfigFile(const std::filesystem::path& path)
{
    std::error_code error;
    std::filesystem::path file = std::filesystem::absolute(path, error).lexically_normal();
    if (error)
        file = path;
    if (std::filesystem::is_directory(file, error)) {
        if (!std::filesystem::exists(file / "config.json", error)) // a FIFO is left to readWholeFile to refuse
            throw InputError(file.string() + ": is a folder without a config.json");
        file /= "config.json";
    }
    return modelFromHfConfigText(readWholeFile(file, "a config.json"), file.string());
}

} // namespace mfu
