#include "core/presets/hf_config.h"

#include <nlohmann/json.hpp>

#include <array>
#include <cmath>
#include <string>

#include "core/errors.h"

namespace mfu {

using nlohmann::json;

namespace {

enum class Family { Llama, Qwen2, Mixtral, Gpt2, GptNeoX, DeepSeek };

struct FamilyName {
    std::string_view modelType;
    std::string_view architecturePrefix;
    Family family;
};
// Mistral and Qwen2 share Llama's layout; Qwen2 adds Q/K/V biases. DeepSeek V2 and V3 share MLA + MoE.
constexpr std::array<FamilyName, 9> kFamilies { {
    { "llama", "Llama", Family::Llama },
    { "mistral", "Mistral", Family::Llama },
    { "qwen2", "Qwen2", Family::Qwen2 },
    { "mixtral", "Mixtral", Family::Mixtral },
    { "gpt2", "GPT2", Family::Gpt2 },
    { "gpt_neox", "GPTNeoX", Family::GptNeoX },
    { "deepseek_v2", "DeepseekV2", Family::DeepSeek },
    { "deepseek_v3", "DeepseekV3", Family::DeepSeek },
    { "megatron-gpt", "MegatronGPT", Family::GptNeoX },
} };

std::string supportedList()
{
    std::string out;
    for (const auto& f : kFamilies)
        out += (out.empty() ? "" : ", ") + std::string(f.modelType);
    return out;
}

class Reader {
public:
    Reader(const json& config, const std::string& source)
        : m_config(config)
        , m_source(source)
    {
    }

    [[noreturn]] void fail(const std::string& key, const std::string& reason) const
    {
        throw InputError(m_source + ": key '" + key + "': " + reason);
    }

    bool has(const std::string& key) const { return m_config.contains(key) && !m_config.at(key).is_null(); }

    int64_t integer(const std::string& key) const
    {
        if (!has(key))
            fail(key, "missing (required for model_type '" + m_modelType + "')");
        return positive(key);
    }

    int64_t integerOr(const std::string& key, int64_t fallback) const { return has(key) ? positive(key) : fallback; }

    // Accepts 0 (e.g. n_shared_experts = 0).
    int64_t countOr(const std::string& key, int64_t fallback) const
    {
        if (!has(key))
            return fallback;
        const json& v = m_config.at(key);
        if (!v.is_number_integer() || v.get<int64_t>() < 0)
            fail(key, "must be a non-negative integer, got " + v.dump());
        return v.get<int64_t>();
    }

    bool boolean(const std::string& key, bool fallback) const
    {
        if (!has(key))
            return fallback;
        const json& v = m_config.at(key);
        if (!v.is_boolean())
            fail(key, "must be true or false, got " + v.dump());
        return v.get<bool>();
    }

    std::string string(const std::string& key, const std::string& fallback) const
    {
        if (!has(key))
            return fallback;
        const json& v = m_config.at(key);
        if (!v.is_string())
            fail(key, "must be a string, got " + v.dump());
        return v.get<std::string>();
    }

    void setModelType(std::string t) { m_modelType = std::move(t); }

private:
    int64_t positive(const std::string& key) const
    {
        const json& v = m_config.at(key);
        // Some exporters write integers as 4096.0; accept whole floats, reject everything else. The range check
        // comes before the cast: converting a double beyond int64 is undefined behaviour (found by fuzz_hf_config).
        if (v.is_number_float()) {
            const double d = v.get<double>();
            if (!(d >= 1.0 && d <= 1099511627776.0 && d == std::floor(d)))
                fail(key, "must be a positive integer below 2^40, got " + v.dump());
            return checkedPositive(key, static_cast<int64_t>(d));
        }
        if (!v.is_number_integer())
            fail(key, "must be a positive integer, got " + v.dump());
        return checkedPositive(key, v.get<int64_t>());
    }
    int64_t checkedPositive(const std::string& key, int64_t n) const
    {
        if (n <= 0 || n > (int64_t(1) << 40))
            fail(key, "must be a positive integer below 2^40, got " + std::to_string(n));
        return n;
    }

    const json& m_config;
    std::string m_source;
    std::string m_modelType;
};

Family detectFamily(const json& config, Reader& r, const std::string& source)
{
    std::string modelType = r.string("model_type", "");
    if (modelType.empty() && config.contains("architectures") && config["architectures"].is_array()
        && !config["architectures"].empty() && config["architectures"][0].is_string()) {
        const std::string arch = config["architectures"][0].get<std::string>();
        for (const auto& f : kFamilies)
            if (arch.rfind(f.architecturePrefix, 0) == 0)
                modelType = std::string(f.modelType);
        if (modelType.empty())
            throw InputError(source + ": architecture '" + arch
                + "' is not supported (supported model_type: " + supportedList() + ")");
    }
    if (modelType.empty())
        throw InputError(source
            + ": key 'model_type': missing (and no 'architectures'); is this a Hugging Face "
              "config.json?");
    r.setModelType(modelType);
    for (const auto& f : kFamilies)
        if (f.modelType == modelType)
            return f.family;
    throw InputError(
        source + ": key 'model_type': '" + modelType + "' is not supported (supported: " + supportedList() + ")");
}

FfnActivation activationOf(const Reader& r, const std::string& key, const std::string& fallback, Family family)
{
    const std::string act = r.string(key, fallback);
    // Llama-style families always gate their MLP (act_fn(gate) * up); GPT-2/NeoX use a plain MLP.
    if (family == Family::Gpt2 || family == Family::GptNeoX) {
        if (act.rfind("gelu", 0) == 0 || act == "relu" || act == "silu" || act == "swish")
            return FfnActivation::GELU;
        r.fail(key, "activation '" + act + "' is not supported for this family");
    }
    if (act == "silu" || act == "swish" || act.rfind("gelu", 0) == 0)
        return FfnActivation::SwiGLU;
    r.fail(key, "activation '" + act + "' is not supported (expected silu)");
}

} // namespace

ModelSpec modelFromHfConfig(const json& configIn, const std::string& source)
{
    if (!configIn.is_object())
        throw InputError(source + ": a config.json must be a JSON object");
    // Multimodal configs keep the language model under text_config.
    const json& config
        = (!configIn.contains("model_type") && configIn.contains("text_config") && configIn["text_config"].is_object())
        ? configIn["text_config"]
        : configIn;
    Reader r(config, source);
    const Family family = detectFamily(config, r, source);

    ModelSpec m;
    m.id = source;
    m.name = r.string("_name_or_path", source);
    if (m.name.empty())
        m.name = source;
    m.source = "Hugging Face config.json: " + source;

    if (family == Family::Gpt2) {
        m.hidden = r.integer("n_embd");
        m.layers = int(r.integer("n_layer"));
        m.heads = int(r.integer("n_head"));
        m.kvHeads = m.heads;
        m.headDim = m.hidden / m.heads;
        m.ffnDim = r.integerOr("n_inner", 4 * m.hidden);
        m.vocab = r.integer("vocab_size");
        m.learnedPositions = r.integer("n_positions");
        m.tiedEmbeddings = r.boolean("tie_word_embeddings", true);
        m.activation = activationOf(r, "activation_function", "gelu_new", family);
        m.norm = NormKind::LayerNorm;
        m.linearBias = true;
        validateModelSpec(m);
        return m;
    }

    m.hidden = r.integer("hidden_size");
    m.layers = int(r.integer("num_hidden_layers"));
    m.heads = int(r.integer("num_attention_heads"));
    m.kvHeads = int(r.integerOr("num_key_value_heads", m.heads));
    m.headDim = r.integerOr("head_dim", m.hidden / m.heads);
    m.vocab = r.integer("vocab_size");
    m.tiedEmbeddings = r.boolean("tie_word_embeddings", false);

    switch (family) {
    case Family::Llama:
    case Family::Qwen2:
        m.ffnDim = r.integer("intermediate_size");
        m.activation = activationOf(r, "hidden_act", "silu", family);
        m.qkvBias = family == Family::Qwen2 || r.boolean("attention_bias", false);
        break;
    case Family::Mixtral:
        m.ffnDim = r.integer("intermediate_size");
        m.activation = activationOf(r, "hidden_act", "silu", family);
        m.moe.experts = int(r.integer("num_local_experts"));
        m.moe.expertsPerToken = int(r.integer("num_experts_per_tok"));
        m.moe.expertFfnDim = m.ffnDim;
        break;
    case Family::GptNeoX:
        m.ffnDim = r.integerOr("intermediate_size", 4 * m.hidden);
        m.activation = activationOf(r, "hidden_act", "gelu", family);
        m.norm = NormKind::LayerNorm;
        m.linearBias = true;
        break;
    case Family::DeepSeek:
        m.ffnDim = r.integer("intermediate_size");
        m.activation = activationOf(r, "hidden_act", "silu", family);
        m.mla.enabled = true;
        m.mla.qLoraRank = r.countOr("q_lora_rank", 0); // null in V2-Lite: direct query projection
        m.mla.kvLoraRank = r.integer("kv_lora_rank");
        m.mla.qkNopeHeadDim = r.integer("qk_nope_head_dim");
        m.mla.qkRopeHeadDim = r.integer("qk_rope_head_dim");
        m.mla.vHeadDim = r.integer("v_head_dim");
        m.headDim = m.mla.vHeadDim;
        if (r.has("n_routed_experts")) {
            m.moe.experts = int(r.integer("n_routed_experts"));
            m.moe.expertsPerToken = int(r.integer("num_experts_per_tok"));
            m.moe.expertFfnDim = r.integer("moe_intermediate_size");
            m.moe.sharedExperts = int(r.countOr("n_shared_experts", 0));
            m.moe.denseLayers = int(r.countOr("first_k_dense_replace", 0));
            m.moe.routerBias = r.string("topk_method", "") == "noaux_tc"; // V3's e_score_correction_bias
        }
        // Multi-token-prediction modules (num_nextn_predict_layers) are not part of the trained main model's
        // per-token FLOPs and are not counted.
        break;
    case Family::Gpt2:
        break;
    }
    validateModelSpec(m);
    return m;
}

ModelSpec modelFromHfConfigText(std::string_view text, const std::string& source)
{
    json config;
    try {
        config = json::parse(text.begin(), text.end());
    } catch (const json::parse_error& e) {
        throw InputError(source + ": not valid JSON at byte " + std::to_string(e.byte) + ": " + e.what());
    } catch (const json::out_of_range&) { // a number beyond double range, e.g. 1e309
        throw InputError(source + ": not valid JSON: a number is too large");
    }
    return modelFromHfConfig(config, source);
}

} // namespace mfu
