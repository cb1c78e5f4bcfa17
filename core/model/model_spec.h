#pragma once
// ModelSpec: the architecture facts that parameter and FLOP counts need, for dense and MoE decoder transformers.
// Sizes are plain integers as a Hugging Face config.json states them; a model known only by its parameter count
// ("a 7B model") is a bare spec, for which only the 6N formula applies.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/model/vision_encoder.h"

#include "core/model/token_mixers.h"

namespace mfu {

enum class FfnActivation {
    SwiGLU, // gated: gate, up and down projections (3 matrices) - Llama, Mistral, Qwen, Mixtral, DeepSeek
    GELU // classic: up and down projections (2 matrices) - GPT-2, GPT-NeoX, GPT-3, Megatron GPT
};

enum class NormKind {
    RMSNorm, // weight only (h parameters)
    LayerNorm, // weight and bias (2h parameters)
    LayerNormNoBias // LayerNorm with a weight only (h parameters): Cohere, MPT with no_bias
};

// Normalisation of queries and keys inside attention, before RoPE.
enum class QkNorm {
    None, // also Llama 4's weightless L2 norm: no parameters, negligible FLOPs
    PerHead, // RMSNorm over head_dim shared by all heads: head_dim weights each for q and k (Qwen3, Gemma 3)
    FullWidth // RMSNorm over all q (heads x head_dim) and all k (kv_heads x head_dim) channels (OLMo 2)
};

// Layer-level description. Each decoder layer is a token mixer followed by a channel mixer; a model whose layers
// differ (Gemma 2/3 and gpt-oss alternate sliding-window and full attention, Llama 4 Maverick interleaves MoE and
// dense layers, Qwen-MoE's mlp_only_layers) lists its layers as runs of identical layers. More kinds (linear
// attention, Mamba, no mixer) extend these enums; every count iterates over the runs.
enum class TokenMixer {
    FullAttention, // every token attends to the whole sequence (causal)
    SlidingWindowAttention, // every token attends to the last ModelSpec::slidingWindow tokens (local attention)
    ChunkedAttention, // tokens attend within their chunk of ModelSpec::attentionChunk tokens (Llama 4's RoPE layers)
    SparseAttention, // attention over the ModelSpec::sparseIndexer.topK keys its lightning indexer picks (DSA)
    LinearAttention, // Gated DeltaNet over ModelSpec::linearAttention (Qwen3.5, Qwen3-Next)
    KimiDeltaAttention, // Kimi Delta Attention over ModelSpec::kimiDeltaAttention (Kimi Linear, Kimi K3)
    // DeepSeek-V4 (ModelSpec::compressedAttention): a sliding window of ModelSpec::slidingWindow recent keys plus keys
    // compressed from every sparseRatio tokens, of which the indexer picks ModelSpec::sparseIndexer.topK (CSA) ...
    CompressedSparseAttention,
    // ... or every key compressed from denseRatio tokens (HCA). DeepSeek-V4's uncompressed layers are
    // SlidingWindowAttention with the same projections.
    HeavilyCompressedAttention,
    Mamba2, // Mamba-2 over ModelSpec::mamba (Nemotron-H)
    LinearProjection, // one bias-free hidden x hidden linear map in place of attention (Nemotron-NAS
                      // replace_with_linear): it mixes channels of one token, no other tokens
    None // no token mixer: the layer is its channel mixer alone (Nemotron-H's MLP and MoE blocks)
};
enum class ChannelMixer {
    DenseMlp, // a dense FFN of LayerKind::ffnDim (0: ModelSpec::ffnDim)
    Moe, // routed experts (+ shared experts) as in ModelSpec::moe
    LinearProjection, // one bias-free hidden x hidden linear map in place of the MLP (Nemotron-NAS replace_with_linear)
    None // no channel mixer
};
// The softmax attention of one layer where it differs from the model's (ModelSpec::kvHeads, headDim, valueHeadDim,
// attentionSinks): Gemma 4's global layers (wider heads, fewer key/value heads, values equal to keys), MiMo-V2-Flash's
// sliding-window layers (more key/value heads, sinks), Nemotron-NAS's per-layer key/value groups. Zero (or
// Override::Model): the model's value. Query heads are the model's on every layer.
struct AttentionShape {
    enum class Override : int8_t { Model, Yes, No };
    int kvHeads = 0;
    int64_t headDim = 0; // query/key head dimension
    int64_t valueHeadDim = 0; // 0: this layer's headDim when it is set, else the model's value head dimension
    bool keyIsValue = false; // the values are the keys: no v_proj (Gemma 4's attention_k_eq_v)
    Override sinks = Override::Model; // one learned sink logit per head
    bool operator==(const AttentionShape&) const = default;
};
struct LayerKind {
    TokenMixer tokenMixer = TokenMixer::FullAttention;
    ChannelMixer channelMixer = ChannelMixer::DenseMlp;
    int64_t ffnDim = 0; // dense MLP width of this layer; 0: ModelSpec::ffnDim
    AttentionShape attention {}; // this layer's attention shape when it is softmax attention
    int norms = -1; // norm layers of this layer (weights of ModelSpec::norm each); -1: ModelSpec::normsPerLayer
    bool operator==(const LayerKind&) const = default;
};
// The resolved attention shape of one layer of `m` (every field filled from the layer or the model).
struct LayerAttention {
    int heads = 0;
    int kvHeads = 0;
    int64_t qkHeadDim = 0;
    int64_t vHeadDim = 0;
    bool keyIsValue = false;
    bool sinks = false;
};
struct LayerRun {
    int count = 0; // consecutive layers of this kind
    LayerKind kind;
    bool operator==(const LayerRun&) const = default;
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
    bool routerBias = false; // per-expert bias in the router (DeepSeek-V3's e_score_correction_bias, gpt-oss)
    bool sharedExpertGate = false; // sigmoid gate Linear(h, 1) on the shared expert (Qwen2-MoE)
    // Latent MoE (Nemotron 3 Super/Ultra, moe_latent_size): tokens are projected from the hidden size down to this
    // width before the routed experts and back up after them (two h x latent matrices per MoE layer, always
    // active); routed experts read and write latentDim-wide vectors. 0: routed experts work at the hidden size.
    int64_t latentDim = 0;
    bool latentNorm = false; // an RMSNorm over the latent (Kimi K3's latent_moe_use_norm): latentDim weights per layer
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
    int64_t valueHeadDim = 0; // value head dimension when it differs from headDim (MiMo-V2-Flash); 0: headDim
    int64_t ffnDim = 0; // dense FFN intermediate size
    FfnActivation activation = FfnActivation::SwiGLU;
    int64_t vocab = 0;
    bool tiedEmbeddings = false; // LM head shares the input embedding matrix
    bool qkvBias = false; // bias on Q, K, V projections (Qwen2; Llama-family attention_bias with attnOutBias)
    bool attnOutBias = false; // bias on the attention output projection (Llama attention_bias, gpt-oss)
    bool mlpBias = false; // biases on the FFN / expert linears (Llama mlp_bias, gpt-oss experts)
    bool linearBias = false; // bias on every linear layer (GPT-2, GPT-NeoX, GPT-3, StarCoder2)
    NormKind norm = NormKind::RMSNorm;
    int64_t learnedPositions = 0; // learned absolute position embeddings (GPT-2: n_positions); 0 for RoPE
    int normsPerLayer = 2; // 2 pre-norms; 4 with Gemma 2/3's post-norms; 1 for parallel blocks (Cohere, Falcon-7B)
    QkNorm qkNorm = QkNorm::None;
    bool attentionSinks = false; // one learned logit per head per layer (gpt-oss)
    int64_t slidingWindow = 0; // window of sliding-window layers (tokens); 0: none
    int64_t attentionChunk = 0; // chunk of chunked-attention layers (tokens); 0: none
    bool attentionOutputGate = false; // q_proj also yields a sigmoid gate on the attention output (Qwen3.5)
    GatedDeltaNetSpec linearAttention; // the linear-attention layers' mixer (TokenMixer::LinearAttention)
    Mamba2Spec mamba; // the Mamba layers' mixer (TokenMixer::Mamba2)
    SparseIndexerSpec sparseIndexer; // the sparse-attention layers' indexer (TokenMixer::SparseAttention, CSA)
    KimiDeltaAttentionSpec kimiDeltaAttention; // TokenMixer::KimiDeltaAttention layers' mixer
    // DeepSeek-V4's attention projections and compression; when enabled every softmax-attention layer has them (its
    // heads x headDim query, one key-value head of headDim, no separate value head).
    CompressedAttentionSpec compressedAttention;
    // Manifold-constrained hyper-connections (DeepSeek-AI, "mHC: Manifold-Constrained Hyper-Connections", 2025;
    // DeepSeek-V4's hc_mult): the residual stream is this many hidden-size streams, mixed before and after each
    // sublayer by weights a Linear(streams x hidden, (2 + streams) x streams) computes per token; 0: a plain residual.
    int hyperConnections = 0;
    MoeSpec moe;
    MlaSpec mla;
    // Runs of layers, summing to `layers`. Empty: uniform - moe.denseLayers leading dense layers then MoE layers
    // (all dense without MoE), all full attention, or all sliding-window when slidingWindow > 0 (Mistral 7B).
    std::vector<LayerRun> layerPattern;
    std::vector<std::string> notes; // what the counts leave out (e.g. a multimodal model's vision encoder)
    // A vision-language model's vision encoder, read from its config's vision_config; its FLOPs stay out of MFU (the
    // language model's) and are counted in a second, labelled figure (core/model/vision_encoder.h).
    std::optional<VisionEncoderSpec> vision;

    // A model given only as a parameter count. When set, the architecture fields above are unused.
    std::optional<int64_t> bareParams;

    bool isBare() const { return bareParams.has_value(); }
    // What to call this model in a sentence: its name, or its id (preset id or config file name) where it has none.
    const std::string& displayName() const { return name.empty() ? id : name; }
    bool isMoe() const { return moe.experts > 0; }
    // Query/key and value head dimensions (they differ under MLA).
    int64_t qkHeadDim() const { return mla.enabled ? mla.qkNopeHeadDim + mla.qkRopeHeadDim : headDim; }
    int64_t vHeadDim() const { return mla.enabled ? mla.vHeadDim : valueHeadDim > 0 ? valueHeadDim : headDim; }
    // A layer's attention shape: the model's, with the layer's overrides (under MLA, always the model's).
    LayerAttention attentionOf(const LayerKind& layer) const;
    // Norm layers of one layer of this kind.
    int normsOf(const LayerKind& layer) const { return layer.norms >= 0 ? layer.norms : normsPerLayer; }
};

// Throws InputError naming the first field that is missing or absurd (zero layers, heads not dividing, ...).
void validateModelSpec(const ModelSpec& spec);

// The layers as runs: layerPattern, or the uniform pattern it implies when empty. Adjacent equal runs merged.
std::vector<LayerRun> layerRuns(const ModelSpec& spec);
// Calls f(const LayerRun&) for each run of layers, allocating nothing (the cost model's hot path counts with it);
// runs are not merged.
template <typename F> void forEachLayerRun(const ModelSpec& m, F&& f)
{
    if (m.isBare())
        return;
    if (!m.layerPattern.empty()) {
        for (const LayerRun& run : m.layerPattern)
            f(run);
        return;
    }
    const TokenMixer mixer = m.slidingWindow > 0 ? TokenMixer::SlidingWindowAttention : TokenMixer::FullAttention;
    const int dense = !m.isMoe()       ? m.layers
        : m.moe.denseLayers < 0        ? 0
        : m.moe.denseLayers > m.layers ? m.layers
                                       : m.moe.denseLayers;
    if (dense > 0)
        f(LayerRun { dense, { mixer, ChannelMixer::DenseMlp, 0 } });
    if (m.layers - dense > 0)
        f(LayerRun { m.layers - dense, { mixer, ChannelMixer::Moe, 0 } });
}

// Number of layers with routed experts.
int moeLayerCount(const ModelSpec& spec);
// Number of layers with softmax attention of any kind (full, local or sparse).
int attentionLayerCount(const ModelSpec& spec);
// True for the token mixers that are softmax attention with this model's q/k/v/o projections.
bool isSoftmaxAttention(TokenMixer mixer);
// Keys a query attends to in a layer of `mixer` of this model at sequence length S (full square; causal average):
// attentionSpan / attentionSpanCausal over the layer's window, plus DeepSeek-V4's compressed keys (compressedKeys).
double attentionKeys(const ModelSpec& spec, TokenMixer mixer, double seqLen);
double attentionKeysCausal(const ModelSpec& spec, TokenMixer mixer, double seqLen);
// Compressed keys a query attends to in a CSA or HCA layer (0 for other mixers) at ratio r: HCA all S/r of them (S/2r
// causal); CSA the indexer's top k of them, min(S/r, k), and causally k - k^2/(2 S/r) when k < S/r (a query at t
// sees t/r compressed keys), as a sliding window of k over the compressed sequence.
double compressedKeys(TokenMixer mixer, double ratio, double topK, double seqLen, bool causal);
// The compress ratio of a CSA or HCA layer of this model; 0 for other mixers.
int64_t compressRatio(const ModelSpec& spec, TokenMixer mixer);
// Number of layers with local attention (sliding-window or chunked).
int localAttentionLayerCount(const ModelSpec& spec, TokenMixer mixer);
// The window of a local token mixer (slidingWindow, attentionChunk; for sparse attention the indexer's top-k keys,
// which bound the keys a query attends to exactly as a window does); 0 for full attention.
int64_t attentionWindow(const ModelSpec& spec, TokenMixer mixer);
// Keys each query attends to at sequence length S in a layer of this mixer with window W (0: unbounded):
// attentionSpan is the full-square convention (S, or min(S, W) for local layers); attentionSpanCausal is the
// average under the causal mask: S/2 for full attention; W - W^2/(2S) for a sliding window W < S (the integral of
// min(t, W) over t in [0, S], divided by S); for chunks of W < S, (k W^2/2 + r^2/2) / S with S = k W + r.
double attentionSpan(TokenMixer mixer, double window, double seqLen);
double attentionSpanCausal(TokenMixer mixer, double window, double seqLen);

// Keys of the layer-level enums in preset and scenario files.
// "full_attention", "sliding_attention", "chunked_attention", "sparse_attention", "linear_attention", "mamba2",
// "linear_projection", "none", "kimi_delta_attention", "compressed_sparse_attention", "heavily_compressed_attention"
std::string_view tokenMixerKey(TokenMixer m);
std::optional<TokenMixer> tokenMixerFromKey(std::string_view key);
std::string_view channelMixerKey(ChannelMixer m); // "dense", "moe", "linear_projection", "none"
std::optional<ChannelMixer> channelMixerFromKey(std::string_view key);
std::string_view qkNormKey(QkNorm n); // "none", "per_head", "full_width"
std::optional<QkNorm> qkNormFromKey(std::string_view key);

// The largest parameter count a bare model may have: 10^15, a thousand times any model trained, and small enough that
// FLOP/token x tokens stays within a double's exact range. Presets, scenario files and the CLI share it, so a model one
// of them accepts the others read back.
inline constexpr int64_t kMaxBareModelParams = 1'000'000'000'000'000;

// A bare "N parameters" model, as in "a 7B model". Throws InputError outside 1 .. kMaxBareModelParams.
ModelSpec bareModel(int64_t params, std::string name = {});

} // namespace mfu
