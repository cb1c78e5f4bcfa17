#include "core/presets/hf_config_reader.h"

#include <cmath>

#include "core/errors.h"

namespace mfu::hf {

using nlohmann::json;

Reader::Reader(const json& config, const json& outer, std::string source, std::string keyPrefix)
    : m_config(config)
    , m_outer(outer)
    , m_source(std::move(source))
    , m_prefix(std::move(keyPrefix))
{
}

void Reader::fail(const std::string& key, const std::string& reason) const
{
    throw InputError(m_source + ": key '" + m_prefix + key + "': " + reason);
}

bool Reader::has(const std::string& key) const
{
    return m_config.contains(key) && !m_config.at(key).is_null();
}

int64_t Reader::integer(const std::string& key) const
{
    // Python's json writes NaN and Infinity, which reach here as null (see hf_config.cpp): present, but no number.
    if (m_config.contains(key) && m_config.at(key).is_null())
        fail(key, "is null (NaN or Infinity in the file); a positive integer is required");
    if (!has(key))
        fail(key, "missing (required for model_type '" + m_modelType + "')");
    return positive(key);
}

int64_t Reader::integerOr(const std::string& key, int64_t fallback) const
{
    return has(key) ? positive(key) : fallback;
}

int64_t Reader::countOr(const std::string& key, int64_t fallback) const
{
    if (!has(key))
        return fallback;
    const json& v = m_config.at(key);
    if (!v.is_number_integer() || v.get<int64_t>() < 0 || v.get<int64_t>() > (int64_t(1) << 40))
        fail(key, "must be a non-negative integer, got " + v.dump());
    if (const int64_t limit = physicalLimit(key); v.get<int64_t>() > limit)
        fail(key, v.dump() + " is beyond any model (at most " + std::to_string(limit) + ")");
    return v.get<int64_t>();
}

bool Reader::boolean(const std::string& key, bool fallback) const
{
    if (!has(key))
        return fallback;
    const json& v = m_config.at(key);
    if (!v.is_boolean())
        fail(key, "must be true or false, got " + v.dump());
    return v.get<bool>();
}

bool Reader::tiedEmbeddings(bool fallback) const
{
    const std::string key = "tie_word_embeddings";
    if (has(key))
        return boolean(key, fallback);
    if (&m_outer != &m_config && m_outer.contains(key) && !m_outer.at(key).is_null()) {
        if (!m_outer.at(key).is_boolean())
            throw InputError(m_source + ": key '" + key + "': must be true or false, got " + m_outer.at(key).dump());
        return m_outer.at(key).get<bool>();
    }
    return fallback;
}

std::string Reader::string(const std::string& key, const std::string& fallback) const
{
    if (!has(key))
        return fallback;
    const json& v = m_config.at(key);
    if (!v.is_string())
        fail(key, "must be a string, got " + v.dump());
    return v.get<std::string>();
}

std::vector<int64_t> Reader::integerList(const std::string& key) const
{
    std::vector<int64_t> out;
    if (!has(key))
        return out;
    const json& v = m_config.at(key);
    if (!v.is_array())
        fail(key, "must be a list of integers, got " + v.dump());
    for (const json& e : v) {
        if (!e.is_number_integer() || e.get<int64_t>() < 0 || e.get<int64_t>() > (int64_t(1) << 40))
            fail(key, "must be a list of non-negative integers, got " + e.dump());
        out.push_back(e.get<int64_t>());
    }
    return out;
}

std::vector<std::string> Reader::stringList(const std::string& key) const
{
    std::vector<std::string> out;
    if (!has(key))
        return out;
    const json& v = m_config.at(key);
    if (!v.is_array())
        fail(key, "must be a list of strings, got " + v.dump());
    for (const json& e : v) {
        if (!e.is_string())
            fail(key, "must be a list of strings, got " + e.dump());
        out.push_back(e.get<std::string>());
    }
    return out;
}

int64_t Reader::positive(const std::string& key) const
{
    const json& v = m_config.at(key);
    // Some exporters write integers as 4096.0; accept whole floats, reject everything else. The range check comes
    // before the cast: converting a double beyond int64 is undefined behaviour (found by fuzz_hf_config).
    int64_t n = 0;
    if (v.is_number_float()) {
        const double d = v.get<double>();
        if (!(d >= 1.0 && d <= 1099511627776.0 && d == std::floor(d)))
            fail(key, "must be a positive integer below 2^40, got " + v.dump());
        n = static_cast<int64_t>(d);
    } else if (v.is_number_integer()) {
        n = v.get<int64_t>();
    } else {
        fail(key, "must be a positive integer, got " + v.dump());
    }
    // The message quotes the file's own text: an unsigned 2^63 or 2^64 - 1 reads as negative once in int64.
    if (n <= 0 || n > (int64_t(1) << 40))
        fail(key, "must be a positive integer below 2^40, got " + v.dump());
    if (const int64_t limit = physicalLimit(key); n > limit)
        fail(key, std::to_string(n) + " is beyond any model (at most " + std::to_string(limit) + ")");
    return n;
}

int64_t Reader::physicalLimit(const std::string& key)
{
    // Far above every model published (128 layers, 128 heads, head dimension 512, hidden size 25,600 at most in
    // 2026), and low enough that a typo cannot make the per-layer tables allocate gigabytes (1e9 layers did) nor a
    // parameter count overflow (an MLA head dimension of 1e12 did). Matched by the families' key names: layers
    // (num_hidden_layers, n_layers, num_nextn_predict_layers), heads (num_attention_heads, n_heads, num_heads,
    // linear_num_value_heads), head dimensions (head_dim, qk_nope_head_dim, v_head_dim, mamba_head_dim,
    // attention_head_dim), LoRA ranks of MLA, and the model's width.
    const auto has = [&key](const char* part) { return key.find(part) != std::string::npos; };
    const auto endsWith = [&key](const std::string& tail) {
        return key.size() >= tail.size() && key.compare(key.size() - tail.size(), tail.size(), tail) == 0;
    };
    if (has("layer"))
        return 10'000;
    if (has("head_dim") || endsWith("heads") || endsWith("n_head") || has("lora_rank"))
        return 65'536;
    if (key == "hidden_size" || key == "n_embd" || key == "d_model")
        return 1'048'576;
    return int64_t(1) << 40;
}

void readLlamaShape(const Reader& r, ModelSpec& m, bool tiedByDefault, int64_t defaultHeadDim)
{
    m.hidden = r.integer("hidden_size");
    m.layers = int(r.integer("num_hidden_layers"));
    m.heads = int(r.integer("num_attention_heads"));
    m.kvHeads = int(r.integerOr("num_key_value_heads", m.heads));
    m.headDim = r.integerOr("head_dim", defaultHeadDim > 0 ? defaultHeadDim : m.hidden / m.heads);
    m.vocab = r.integer("vocab_size");
    m.tiedEmbeddings = r.tiedEmbeddings(tiedByDefault);
}

FfnActivation gatedActivation(const Reader& r, const std::string& key, const std::string& fallback)
{
    const std::string act = r.string(key, fallback);
    if (act == "silu" || act == "swish" || act.rfind("gelu", 0) == 0)
        return FfnActivation::SwiGLU; // three matrices whatever the nonlinearity
    r.fail(key, "activation '" + act + "' is not supported for a gated MLP (expected silu or gelu)");
}

FfnActivation plainActivation(const Reader& r, const std::string& key, const std::string& fallback)
{
    const std::string act = r.string(key, fallback);
    // relu2 is squared ReLU (Nemotron-H, Primer): up and down projections, as for every plain MLP.
    if (act.rfind("gelu", 0) == 0 || act == "relu" || act == "relu2" || act == "silu" || act == "swish")
        return FfnActivation::GELU; // two matrices
    r.fail(key, "activation '" + act + "' is not supported for this family");
}

std::vector<TokenMixer> readLayerTypes(const Reader& r, int layers)
{
    std::vector<TokenMixer> out;
    const std::vector<std::string> types = r.stringList("layer_types");
    if (types.empty())
        return out;
    if (int(types.size()) != layers)
        r.fail("layer_types",
            "has " + std::to_string(types.size()) + " entries for " + std::to_string(layers) + " layers");
    for (const std::string& t : types) {
        if (t == "full_attention")
            out.push_back(TokenMixer::FullAttention);
        else if (t == "sliding_attention")
            out.push_back(TokenMixer::SlidingWindowAttention);
        else if (t == "chunked_attention")
            out.push_back(TokenMixer::ChunkedAttention);
        else
            r.fail("layer_types", "layer type '" + t + "' is not supported (full_attention, sliding_attention)");
    }
    return out;
}

void applyTokenMixers(const Reader& r, ModelSpec& m, std::vector<LayerKind>& layers, std::vector<TokenMixer> defaults)
{
    std::vector<TokenMixer> mixers = readLayerTypes(r, m.layers);
    if (mixers.empty())
        mixers = std::move(defaults);
    bool sliding = false;
    bool chunked = false;
    for (size_t i = 0; i < mixers.size() && i < layers.size(); ++i) {
        layers[i].tokenMixer = mixers[i];
        sliding = sliding || mixers[i] == TokenMixer::SlidingWindowAttention;
        chunked = chunked || mixers[i] == TokenMixer::ChunkedAttention;
    }
    if (sliding)
        m.slidingWindow = r.integer("sliding_window");
    if (chunked)
        m.attentionChunk = r.integer("attention_chunk_size");
}

void applyQwenSlidingWindow(const Reader& r, ModelSpec& m, std::vector<LayerKind>& layers)
{
    if (r.boolean("use_sliding_window", false)) {
        const int64_t first = r.countOr("max_window_layers", 28);
        std::vector<TokenMixer> defaults;
        for (int i = 0; i < m.layers; ++i)
            defaults.push_back(i >= first ? TokenMixer::SlidingWindowAttention : TokenMixer::FullAttention);
        applyTokenMixers(r, m, layers, defaults);
    }
}

void setLayers(ModelSpec& m, const std::vector<LayerKind>& layers)
{
    m.layerPattern.clear();
    for (const LayerKind& k : layers) {
        if (!m.layerPattern.empty() && m.layerPattern.back().kind == k)
            ++m.layerPattern.back().count;
        else
            m.layerPattern.push_back({ 1, k });
    }
    // A pattern the uniform description already implies is left implicit.
    ModelSpec uniform = m;
    uniform.layerPattern.clear();
    if (layerRuns(uniform) == m.layerPattern)
        m.layerPattern.clear();
}

void notePalmOverCount(ModelSpec& m)
{
    int full = 0;
    for (const LayerRun& run : layerRuns(m))
        full += run.kind.tokenMixer == TokenMixer::FullAttention ? run.count : 0;
    if (full < m.layers)
        m.notes.push_back(
            (full == 0 ? "none of the " + std::to_string(m.layers) + " layers attends"
                       : "only " + std::to_string(full) + " of " + std::to_string(m.layers) + " layers attend")
            + " over the whole sequence: the PaLM formula (12·L·H·Q·S over all layers, as published) "
              "over-counts; the per-component formulas count each layer's own mixer");
}

void noteMtpLayers(ModelSpec& m, int64_t modules, const std::string& key)
{
    if (modules > 0)
        m.notes.push_back("multi-token-prediction modules in the checkpoint (" + key + " = " + std::to_string(modules)
            + ") are not counted: parameters and FLOP/token are the main model's; training them adds work per token "
              "that MFU does not count");
}

} // namespace mfu::hf
