#pragma once
// ModelSpec: the architecture facts that parameter and FLOP counts need, for dense and MoE decoder transformers.
// Sizes are plain integers as a Hugging Face config.json states them; a model known only by its parameter count
// ("a 7B model") is a bare spec, for which only the 6N formula applies.
#include <cstdint>
#include <optional>
#include <string>

namespace mfu {

enum class FfnActivation {
    SwiGLU, // gated: gate, up and down projections (3 matrices) - Llama, Mistral, Qwen, Mixtral, DeepSeek
    GELU // classic: up and down projections (2 matrices) - GPT-2, GPT-NeoX, GPT-3, Megatron GPT
};

enum class NormKind {
    RMSNorm, // weight only (h parameters)
    LayerNorm // weight and bias (2h parameters)
};

// Mixture of experts. Layers [0, denseLayers) use the dense FFN (ffnDim); the others route each token to
// expertsPerToken of `experts` routed experts plus `sharedExperts` always-on experts.
struct MoeSpec {
    int experts = 0; // routed experts per MoE layer; 0 means a dense model
    int expertsPerToken = 0; // top-k
    int64_t expertFfnDim = 0; // intermediate size of one routed expert
    int sharedExperts = 0;
    int64_t sharedExpertFfnDim = 0; // intermediate size of one shared expert (0: same as expertFfnDim)
    int denseLayers = 0; // leading layers with a dense FFN (DeepSeek's first_k_dense_replace)
    bool routerBias = false; // per-expert bias in the router (DeepSeek-V3's e_score_correction_bias)
};

// Multi-head latent attention (DeepSeek-V2/V3): low-rank compressed queries and keys/values.
struct MlaSpec {
    bool enabled = false;
    int64_t qLoraRank = 0; // 0: queries are projected directly from the hidden state
    int64_t kvLoraRank = 0;
    int64_t qkNopeHeadDim = 0;
    int64_t qkRopeHeadDim = 0;
    int64_t vHeadDim = 0;
};

struct ModelSpec {
    std::string id; // preset id, or the file name of an imported config
    std::string name; // display name
    std::string source; // where the architecture comes from (config.json URL, paper)

    int layers = 0;
    int64_t hidden = 0;
    int heads = 0;
    int kvHeads = 0; // grouped-query attention: heads sharing one K/V head; == heads for multi-head attention
    int64_t headDim = 0;
    int64_t ffnDim = 0; // dense FFN intermediate size
    FfnActivation activation = FfnActivation::SwiGLU;
    int64_t vocab = 0;
    bool tiedEmbeddings = false; // LM head shares the input embedding matrix
    bool qkvBias = false; // bias on Q, K, V projections only (Qwen2)
    bool linearBias = false; // bias on every linear layer (GPT-2, GPT-NeoX, GPT-3)
    NormKind norm = NormKind::RMSNorm;
    int64_t learnedPositions = 0; // learned absolute position embeddings (GPT-2: n_positions); 0 for RoPE
    MoeSpec moe;
    MlaSpec mla;

    // A model given only as a parameter count. When set, the architecture fields above are unused.
    std::optional<int64_t> bareParams;

    bool isBare() const { return bareParams.has_value(); }
    bool isMoe() const { return moe.experts > 0; }
    // Query/key and value head dimensions (they differ under MLA).
    int64_t qkHeadDim() const { return mla.enabled ? mla.qkNopeHeadDim + mla.qkRopeHeadDim : headDim; }
    int64_t vHeadDim() const { return mla.enabled ? mla.vHeadDim : headDim; }
};

// Throws InputError naming the first field that is missing or absurd (zero layers, heads not dividing, ...).
void validateModelSpec(const ModelSpec& spec);

// A bare "N parameters" model, as in "a 7B model".
ModelSpec bareModel(int64_t params, std::string name = {});

} // namespace mfu
