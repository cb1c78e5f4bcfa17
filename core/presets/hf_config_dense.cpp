// Dense decoder families with a gated MLP and RMSNorm (or a weight-only LayerNorm). Each reader follows the
// transformers modeling file of its model_type: which projections carry biases, which norms exist, which layers
// attend locally, and the config class's defaults for keys a published config.json leaves out.
#include "core/presets/hf_config_families.h"

namespace mfu::hf {

namespace {

std::vector<LayerKind> denseStack(const ModelSpec& m)
{
    return std::vector<LayerKind>(size_t(m.layers), LayerKind {});
}

// Every layer sliding-window when the config names a window (Mistral, Phi-3: the attention takes
// config.sliding_window on every layer), unless layer_types says otherwise.
void uniformWindow(const Reader& r, ModelSpec& m, bool sliding)
{
    std::vector<LayerKind> layers = denseStack(m);
    applyTokenMixers(r, m, layers,
        sliding ? std::vector<TokenMixer>(size_t(m.layers), TokenMixer::SlidingWindowAttention)
                : std::vector<TokenMixer> {});
    setLayers(m, layers);
}

} // namespace

void readLlama(const Reader& r, ModelSpec& m)
{
    readLlamaShape(r, m, false);
    m.ffnDim = r.integer("intermediate_size");
    m.activation = gatedActivation(r, "hidden_act", "silu");
    // LlamaAttention: q/k/v/o_proj all take bias=config.attention_bias; LlamaMLP: gate/up/down take mlp_bias.
    m.qkvBias = m.attnOutBias = r.boolean("attention_bias", false);
    m.mlpBias = r.boolean("mlp_bias", false);
    if (r.modelType() == "mistral" && !r.present("sliding_window")) {
        // MistralConfig: sliding_window defaults to 4096 when the key is absent (null turns it off).
        std::vector<LayerKind> layers = denseStack(m);
        for (auto& l : layers)
            l.tokenMixer = TokenMixer::SlidingWindowAttention;
        m.slidingWindow = 4096;
        setLayers(m, layers);
        return;
    }
    // Mistral and Phi-3 (Phi3Config: default None) attend within sliding_window on every layer when it is set.
    uniformWindow(r, m, (r.modelType() == "mistral" || r.modelType() == "phi3") && r.has("sliding_window"));
}

void readQwen(const Reader& r, ModelSpec& m)
{
    readLlamaShape(r, m, false);
    m.ffnDim = r.integer("intermediate_size");
    m.activation = gatedActivation(r, "hidden_act", "silu");
    if (r.modelType() == "qwen2" || r.modelType().rfind("qwen2_", 0) == 0) {
        // Qwen2Attention (and Qwen2-VL / Qwen2.5-VL's language model): q/k/v_proj bias=True, o_proj bias=False
        m.qkvBias = true;
    } else { // Qwen3: attention_bias on q/k/v/o, q_norm and k_norm = RMSNorm(head_dim)
        m.qkvBias = m.attnOutBias = r.boolean("attention_bias", false);
        m.qkNorm = QkNorm::PerHead;
    }
    // Qwen2/Qwen3 configs: sliding_window applies only with use_sliding_window, to layers from
    // max_window_layers on (or as layer_types says); otherwise every layer attends fully.
    std::vector<LayerKind> layers = denseStack(m);
    applyQwenSlidingWindow(r, m, layers);
    setLayers(m, layers);
}

void readOlmo2(const Reader& r, ModelSpec& m)
{
    readLlamaShape(r, m, false);
    m.ffnDim = r.integer("intermediate_size");
    m.activation = gatedActivation(r, "hidden_act", "silu");
    m.qkvBias = m.attnOutBias = r.boolean("attention_bias", false);
    // Olmo2Attention: q_norm = RMSNorm(heads x head_dim), k_norm = RMSNorm(kv_heads x head_dim); the two layer
    // norms sit after attention and after the MLP instead of before them (same count).
    m.qkNorm = QkNorm::FullWidth;
    setLayers(m, denseStack(m));
}

void readCohere(const Reader& r, ModelSpec& m)
{
    readLlamaShape(r, m, true); // CohereConfig: tie_word_embeddings=True
    m.ffnDim = r.integer("intermediate_size");
    m.activation = gatedActivation(r, "hidden_act", "silu");
    m.qkvBias = m.attnOutBias = r.boolean("attention_bias", false);
    // CohereLayerNorm has a weight and no bias; one input_layernorm feeds attention and MLP in parallel.
    m.norm = NormKind::LayerNormNoBias;
    m.normsPerLayer = 1;
    // use_qk_norm: CohereLayerNorm((heads, head_dim)) for q and ((kv_heads, head_dim)) for k.
    if (r.boolean("use_qk_norm", false))
        m.qkNorm = QkNorm::FullWidth;
    setLayers(m, denseStack(m));
}

void readInternLm2(const Reader& r, ModelSpec& m)
{
    readLlamaShape(r, m, false);
    m.ffnDim = r.integer("intermediate_size");
    m.activation = gatedActivation(r, "hidden_act", "silu");
    // InternLM2Attention: wqkv and wo take bias=config.bias (InternLM2Config default True); the MLP has none.
    m.qkvBias = m.attnOutBias = r.boolean("bias", true);
    setLayers(m, denseStack(m));
}

void readGemma(const Reader& r, ModelSpec& m)
{
    const std::string& type = r.modelType();
    const bool gemma3 = type == "gemma3_text";
    // Gemma*Config defaults: head_dim 256, tie_word_embeddings True, vocab_size 256000 (Gemma 3: 262208).
    if (!r.has("vocab_size"))
        m.vocab = gemma3 ? 262208 : 256000;
    {
        m.hidden = r.integer("hidden_size");
        m.layers = int(r.integer("num_hidden_layers"));
        m.heads = int(r.integer("num_attention_heads"));
        m.kvHeads = int(r.integerOr("num_key_value_heads", m.heads));
        m.headDim = r.integerOr("head_dim", 256);
        if (r.has("vocab_size"))
            m.vocab = r.integer("vocab_size");
        m.tiedEmbeddings = r.tiedEmbeddings(true);
    }
    m.ffnDim = r.integer("intermediate_size");
    m.activation
        = gatedActivation(r, r.has("hidden_activation") ? "hidden_activation" : "hidden_act", "gelu_pytorch_tanh");
    m.qkvBias = m.attnOutBias = r.boolean("attention_bias", false);
    std::vector<TokenMixer> defaults;
    if (type != "gemma") {
        // Gemma 2 and 3: pre- and post-norms around attention and around the MLP.
        m.normsPerLayer = 4;
        // Default layer_types: Gemma 2 alternates sliding (even layers) and full; Gemma 3 has one full layer in
        // every sliding_window_pattern (6).
        const int64_t pattern = gemma3 ? r.integerOr("sliding_window_pattern", 6) : 2;
        for (int i = 0; i < m.layers; ++i)
            defaults.push_back((i + 1) % pattern != 0 ? TokenMixer::SlidingWindowAttention : TokenMixer::FullAttention);
    }
    if (gemma3)
        m.qkNorm = QkNorm::PerHead; // q_norm, k_norm = Gemma3RMSNorm(head_dim)
    std::vector<LayerKind> layers = denseStack(m);
    applyTokenMixers(r, m, layers, defaults);
    setLayers(m, layers);
}

} // namespace mfu::hf
