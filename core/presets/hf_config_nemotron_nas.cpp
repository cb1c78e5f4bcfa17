// Llama-Nemotron NAS models (nemotron-nas: Llama-3.3-Nemotron-Super-49B, Llama-3.1-Nemotron-Ultra-253B; DeciLM's
// modeling file, DeciLMDecoderLayer): Llama 3 layers that a neural architecture search pruned one by one.
// block_configs has one entry per layer; its fields, as the modeling file reads them:
//   attention.no_op                the layer has no attention and no input_layernorm
//   attention.replace_with_linear  attention replaced by one bias-free Linear(hidden, hidden) (and its norm)
//   attention.n_heads_in_group     otherwise GQA with num_attention_heads / n_heads_in_group key/value heads
//   ffn.no_op                      no MLP and no post_attention_layernorm
//   ffn.replace_with_linear        the MLP replaced by one bias-free Linear(hidden, hidden) (and its norm)
//   ffn.ffn_mult                   otherwise a SwiGLU MLP of intermediate size _ffn_mult_to_intermediate_size:
//                                  int(2 * ffn_mult * hidden / 3), rounded up to a multiple of 256
//   window_length, num_sink_tokens, unshifted_sink, use_prefill_window_in_sink_attention, sparsify: attention
//   variants this reader does not count; any other value than null / false is refused naming the key.
// attention_bias and mlp_bias as for Llama; untied LM head unless tie_word_embeddings; head_dim = hidden / heads.
#include <map>
#include <string>

#include "core/presets/hf_config_families.h"

namespace mfu::hf {

namespace {

// One block_configs[i].<part> object, its key paths named in full for errors.
class BlockPart {
public:
    BlockPart(const Reader& r, const nlohmann::json& part, std::string path)
        : m_r(r)
        , m_part(part)
        , m_path(std::move(path))
    {
        if (!m_part.is_object())
            m_r.fail(m_path, "must be an object, got " + m_part.dump());
    }
    bool flag(const std::string& key) const
    {
        if (!m_part.contains(key) || m_part[key].is_null())
            return false;
        if (!m_part[key].is_boolean())
            m_r.fail(m_path + "." + key, "must be true or false, got " + m_part[key].dump());
        return m_part[key].get<bool>();
    }
    bool isSet(const std::string& key) const { return m_part.contains(key) && !m_part[key].is_null(); }
    const nlohmann::json& at(const std::string& key) const { return m_part.at(key); }
    [[noreturn]] void fail(const std::string& key, const std::string& reason) const
    {
        m_r.fail(m_path + "." + key, reason);
    }

private:
    const Reader& m_r;
    const nlohmann::json& m_part;
    std::string m_path;
};

// DeciLM's _ffn_mult_to_intermediate_size: int(2 * ffn_mult * hidden / 3), then _find_multiple(n, 256).
int64_t intermediateSize(double ffnMult, int64_t hidden)
{
    const auto n = static_cast<int64_t>(2.0 * ffnMult * static_cast<double>(hidden) / 3.0);
    return n % 256 == 0 ? n : n + 256 - n % 256;
}

} // namespace

void readNemotronNas(const Reader& r, ModelSpec& m)
{
    m.hidden = r.integer("hidden_size");
    m.layers = int(r.integer("num_hidden_layers"));
    m.heads = int(r.integer("num_attention_heads"));
    m.headDim = m.hidden / m.heads;
    if (m.headDim * m.heads != m.hidden)
        r.fail("num_attention_heads", "must divide hidden_size (DeciLM's head_dim is hidden_size / heads)");
    m.vocab = r.integer("vocab_size");
    m.tiedEmbeddings = r.tiedEmbeddings(false);
    m.activation = gatedActivation(r, "hidden_act", "silu");
    m.qkvBias = m.attnOutBias = r.boolean("attention_bias", false);
    m.mlpBias = r.boolean("mlp_bias", false);

    if (!r.has("block_configs") || !r.at("block_configs").is_array())
        r.fail("block_configs", "missing: a Nemotron NAS model describes each layer in block_configs");
    const nlohmann::json& blocks = r.at("block_configs");
    if (int(blocks.size()) != m.layers)
        r.fail("block_configs",
            "has " + std::to_string(blocks.size()) + " entries for " + std::to_string(m.layers) + " layers");

    std::vector<LayerKind> layers;
    std::map<int64_t, int> ffnWidths; // width -> layers, for the model's most common width
    std::map<int, int> kvHeadCounts;
    for (size_t i = 0; i < blocks.size(); ++i) {
        const std::string path = "block_configs[" + std::to_string(i) + "]";
        if (!blocks[i].is_object() || !blocks[i].contains("attention") || !blocks[i].contains("ffn"))
            r.fail(path, "must have 'attention' and 'ffn'");
        const BlockPart attention(r, blocks[i]["attention"], path + ".attention");
        const BlockPart ffn(r, blocks[i]["ffn"], path + ".ffn");
        for (const char* key : { "window_length", "num_sink_tokens", "sparsify" })
            if (attention.isSet(key))
                attention.fail(key, "is not read (only null): this attention variant is not counted");
        for (const char* key : { "unshifted_sink", "use_prefill_window_in_sink_attention" })
            if (attention.flag(key))
                attention.fail(key, "is not read (only false): this attention variant is not counted");
        if (ffn.isSet("sparsify"))
            ffn.fail("sparsify", "is not read (only null)");

        LayerKind k;
        k.norms = 0;
        if (attention.flag("no_op")) {
            k.tokenMixer = TokenMixer::None;
        } else {
            ++k.norms;
            if (attention.flag("replace_with_linear")) {
                k.tokenMixer = TokenMixer::LinearProjection;
            } else {
                if (!attention.isSet("n_heads_in_group") || !attention.at("n_heads_in_group").is_number_integer()
                    || attention.at("n_heads_in_group").get<int64_t>() <= 0
                    || m.heads % attention.at("n_heads_in_group").get<int64_t>() != 0)
                    attention.fail("n_heads_in_group",
                        "must be a positive integer dividing num_attention_heads for a layer with attention");
                k.attention.kvHeads = int(m.heads / attention.at("n_heads_in_group").get<int64_t>());
                ++kvHeadCounts[k.attention.kvHeads];
            }
        }
        if (ffn.flag("no_op")) {
            k.channelMixer = ChannelMixer::None;
        } else {
            ++k.norms;
            if (ffn.flag("replace_with_linear")) {
                k.channelMixer = ChannelMixer::LinearProjection;
            } else {
                if (!ffn.isSet("ffn_mult") || !ffn.at("ffn_mult").is_number() || !(ffn.at("ffn_mult").get<double>() > 0)
                    || ffn.at("ffn_mult").get<double>() > 1000)
                    ffn.fail("ffn_mult", "must be a positive number for a layer with an MLP");
                k.ffnDim = intermediateSize(ffn.at("ffn_mult").get<double>(), m.hidden);
                ++ffnWidths[k.ffnDim];
            }
        }
        layers.push_back(k);
    }
    // The model's own key/value heads and MLP width are the most common ones; layers that differ keep theirs.
    const auto mostCommon = [](const auto& counts) {
        auto best = counts.begin();
        for (auto it = counts.begin(); it != counts.end(); ++it)
            best = it->second > best->second ? it : best;
        return best->first;
    };
    m.kvHeads = kvHeadCounts.empty() ? m.heads : mostCommon(kvHeadCounts);
    m.ffnDim = ffnWidths.empty() ? 0 : mostCommon(ffnWidths);
    for (LayerKind& k : layers) {
        if (k.attention.kvHeads == m.kvHeads)
            k.attention.kvHeads = 0;
        if (k.ffnDim == m.ffnDim)
            k.ffnDim = 0;
        if (k.norms == m.normsPerLayer)
            k.norms = -1;
    }
    setLayers(m, layers);
    notePalmOverCount(m);
}

} // namespace mfu::hf
