#pragma once
// Typed access to one Hugging Face config.json object, for the family readers in hf_config_*.cpp. Every failure is
// an InputError naming the full source path and the key.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "core/model/model_spec.h"

namespace mfu::hf {

class Reader {
public:
    // `config` is the language model's object (text_config of a multimodal config); `outer` the whole file, read
    // for the keys transformers keeps at the top level of a multimodal config (tie_word_embeddings).
    Reader(const nlohmann::json& config, const nlohmann::json& outer, std::string source, std::string keyPrefix);

    [[noreturn]] void fail(const std::string& key, const std::string& reason) const;
    bool has(const std::string& key) const; // present and not null
    bool present(const std::string& key) const { return m_config.contains(key); }
    const nlohmann::json& at(const std::string& key) const { return m_config.at(key); }
    const std::string& source() const { return m_source; }
    const std::string& modelType() const { return m_modelType; }
    void setModelType(std::string t) { m_modelType = std::move(t); }

    int64_t integer(const std::string& key) const; // required, positive
    int64_t integerOr(const std::string& key, int64_t fallback) const; // positive when present
    int64_t countOr(const std::string& key, int64_t fallback) const; // non-negative when present
    bool boolean(const std::string& key, bool fallback) const;
    // tie_word_embeddings: the language model's key, else the outer config's, else the family's default.
    bool tiedEmbeddings(bool fallback) const;
    std::string string(const std::string& key, const std::string& fallback) const;
    std::vector<int64_t> integerList(const std::string& key) const; // absent: empty; entries non-negative
    std::vector<std::string> stringList(const std::string& key) const; // absent: empty

    std::string keyPath(const std::string& key) const { return m_prefix + key; }

private:
    int64_t positive(const std::string& key) const;
    // The largest value a key can physically hold (layers, heads, widths); 2^40 for the others.
    static int64_t physicalLimit(const std::string& key);

    const nlohmann::json& m_config;
    const nlohmann::json& m_outer;
    std::string m_source;
    std::string m_prefix; // "text_config." for a multimodal config's language model
    std::string m_modelType;
};

// Common transformer fields under the Llama naming (hidden_size, num_hidden_layers, num_attention_heads,
// num_key_value_heads, head_dim, vocab_size, tie_word_embeddings).
void readLlamaShape(const Reader& r, ModelSpec& m, bool tiedByDefault, int64_t defaultHeadDim = 0);
// hidden_act of a gated MLP (act(gate) * up): silu, swish or a gelu variant.
FfnActivation gatedActivation(const Reader& r, const std::string& key, const std::string& fallback);
// hidden_act of a plain two-matrix MLP.
FfnActivation plainActivation(const Reader& r, const std::string& key, const std::string& fallback);

// layer_types ("full_attention", "sliding_attention", "chunked_attention"); empty when absent. Any other entry
// (linear attention, Mamba, ...) is refused naming the key.
std::vector<TokenMixer> readLayerTypes(const Reader& r, int layers);
// Set each layer's token mixer from layer_types, or from `defaults` when the key is absent (empty: all full
// attention), and read the window (sliding_window) or chunk (attention_chunk_size) the local layers need.
void applyTokenMixers(const Reader& r, ModelSpec& m, std::vector<LayerKind>& layers, std::vector<TokenMixer> defaults);
// Qwen2/Qwen3 (dense and MoE): with use_sliding_window, layers from max_window_layers on (default 28) use the window,
// unless layer_types says otherwise; without it every layer attends fully.
void applyQwenSlidingWindow(const Reader& r, ModelSpec& m, std::vector<LayerKind>& layers);
// Store per-layer kinds as runs; a uniform all-full-attention dense stack stays an empty pattern.
void setLayers(ModelSpec& m, const std::vector<LayerKind>& layers);
// The PaLM formula as published charges 12·H·Q·S to every layer; where some layers do not attend over the whole
// sequence (local, linear or no attention), add a note saying it over-counts.
void notePalmOverCount(ModelSpec& m);
// The multi-token-prediction modules of a checkpoint (num_nextn_predict_layers and the like): not part of the main
// model the cards count; a note says they are left out of parameters and FLOP/token.
void noteMtpLayers(ModelSpec& m, int64_t modules, const std::string& key);

} // namespace mfu::hf
