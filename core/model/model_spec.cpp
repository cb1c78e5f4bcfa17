#include "core/model/model_spec.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "core/errors.h"

namespace mfu {

namespace {
void require(bool ok, const ModelSpec& spec, const std::string& what)
{
    if (!ok)
        throw InputError("model '" + (spec.id.empty() ? spec.name : spec.id) + "': " + what);
}
} // namespace

void validateModelSpec(const ModelSpec& spec)
{
    if (spec.isBare()) {
        require(*spec.bareParams > 0, spec, "params must be greater than zero");
        require(*spec.bareParams <= kMaxBareModelParams, spec, "params must be at most 10^15");
        return;
    }
    require(spec.layers > 0, spec, "layers must be greater than zero");
    require(spec.hidden > 0, spec, "hidden size must be greater than zero");
    require(spec.heads > 0, spec, "attention heads must be greater than zero");
    require(spec.vocab > 0, spec, "vocabulary size must be greater than zero");
    require(spec.ffnDim > 0 || (spec.isMoe() && spec.moe.denseLayers == 0), spec,
        "FFN intermediate size must be greater than zero");
    if (!spec.mla.enabled) {
        require(spec.headDim > 0, spec, "head dimension must be greater than zero");
        require(spec.kvHeads > 0 && spec.kvHeads <= spec.heads, spec,
            "key/value heads must be between 1 and the number of attention heads");
        require(spec.heads % spec.kvHeads == 0, spec, "attention heads must be a multiple of key/value heads");
    } else {
        require(spec.mla.kvLoraRank > 0, spec, "MLA kv_lora_rank must be greater than zero");
        require(spec.mla.qkNopeHeadDim + spec.mla.qkRopeHeadDim > 0, spec, "MLA query/key head dimension is zero");
        require(spec.mla.vHeadDim > 0, spec, "MLA value head dimension must be greater than zero");
    }
    if (spec.isMoe()) {
        require(spec.moe.expertsPerToken > 0 && spec.moe.expertsPerToken <= spec.moe.experts, spec,
            "experts per token must be between 1 and the number of experts");
        require(spec.moe.expertFfnDim > 0, spec, "expert FFN size must be greater than zero");
        require(spec.moe.denseLayers >= 0 && spec.moe.denseLayers <= spec.layers, spec,
            "dense layers must be between 0 and the number of layers");
        require(spec.moe.sharedExperts >= 0, spec, "shared experts cannot be negative");
        require(spec.moe.latentDim >= 0, spec, "MoE latent size cannot be negative");
    }
    require(spec.learnedPositions >= 0, spec, "learned positions cannot be negative");
    require(spec.normsPerLayer >= 0 && spec.normsPerLayer <= 8, spec, "norms per layer must be between 0 and 8");
    require(spec.slidingWindow >= 0, spec, "sliding window cannot be negative");
    require(spec.attentionChunk >= 0, spec, "attention chunk cannot be negative");
    require(spec.hyperConnections >= 0 && spec.hyperConnections <= 64, spec,
        "hyper-connection streams must be between 0 and 64");
    if (spec.compressedAttention.enabled()) {
        try {
            validateCompressedAttention(spec.compressedAttention);
        } catch (const InputError& e) {
            require(false, spec, e.what());
        }
        require(spec.headDim > 0 && spec.heads % spec.compressedAttention.outputGroups == 0, spec,
            "compressed attention: heads must be a multiple of the output groups (o_groups)");
    }
    if (!spec.layerPattern.empty()) {
        int64_t total = 0;
        for (const LayerRun& run : spec.layerPattern) {
            require(run.count > 0, spec, "every run of the layer pattern needs at least one layer");
            require(run.kind.ffnDim >= 0, spec, "a layer's FFN size cannot be negative");
            require(run.kind.norms >= -1 && run.kind.norms <= 8, spec, "a layer's norms must be between 0 and 8");
            const AttentionShape& a = run.kind.attention;
            require(a.kvHeads >= 0 && a.headDim >= 0 && a.valueHeadDim >= 0, spec,
                "a layer's attention shape cannot be negative");
            require(!spec.mla.enabled || a == AttentionShape {}, spec,
                "per-layer attention shapes are not read for MLA models");
            if (a.kvHeads > 0)
                require(a.kvHeads <= spec.heads && spec.heads % a.kvHeads == 0, spec,
                    "a layer's key/value heads must divide the attention heads");
            require(!a.keyIsValue || spec.attentionOf(run.kind).qkHeadDim == spec.attentionOf(run.kind).vHeadDim, spec,
                "a layer whose values are its keys needs equal key and value head dimensions");
            require(run.kind.channelMixer != ChannelMixer::Moe || spec.isMoe(), spec,
                "the layer pattern has MoE layers but the model has no experts");
            require(run.kind.channelMixer != ChannelMixer::DenseMlp || run.kind.ffnDim > 0 || spec.ffnDim > 0, spec,
                "a dense layer needs an FFN size");
            require(run.kind.tokenMixer != TokenMixer::SlidingWindowAttention || spec.slidingWindow > 0, spec,
                "the layer pattern has sliding-window layers but no window size");
            require(run.kind.tokenMixer != TokenMixer::ChunkedAttention || spec.attentionChunk > 0, spec,
                "the layer pattern has chunked-attention layers but no chunk size");
            try {
                if (run.kind.tokenMixer == TokenMixer::LinearAttention)
                    validateGatedDeltaNet(spec.linearAttention);
                else if (run.kind.tokenMixer == TokenMixer::Mamba2)
                    validateMamba2(spec.mamba, spec.hidden);
                else if (run.kind.tokenMixer == TokenMixer::SparseAttention) {
                    validateSparseIndexer(spec.sparseIndexer);
                    require(spec.sparseIndexer.queryFromHidden || (spec.mla.enabled && spec.mla.qLoraRank > 0), spec,
                        "sparse-attention layers need MLA with a compressed query (q_lora_rank) for their indexer");
                } else if (run.kind.tokenMixer == TokenMixer::KimiDeltaAttention)
                    validateKimiDeltaAttention(spec.kimiDeltaAttention);
                else if (run.kind.tokenMixer == TokenMixer::CompressedSparseAttention
                    || run.kind.tokenMixer == TokenMixer::HeavilyCompressedAttention) {
                    require(spec.compressedAttention.enabled(), spec,
                        "compressed-attention layers need the compressed attention's projections (q_lora_rank)");
                    require(spec.slidingWindow > 0, spec,
                        "compressed-attention layers need their sliding window (sliding_window)");
                    require(compressRatio(spec, run.kind.tokenMixer) > 0, spec,
                        "compressed-attention layers need their compress ratio (compress_ratios)");
                    if (run.kind.tokenMixer == TokenMixer::CompressedSparseAttention)
                        validateSparseIndexer(spec.sparseIndexer);
                }
            } catch (const InputError& e) {
                require(false, spec, e.what());
            }
            total += run.count;
        }
        require(total == spec.layers, spec,
            "the layer pattern has " + std::to_string(total) + " layers, not " + std::to_string(spec.layers));
    }
}

std::vector<LayerRun> layerRuns(const ModelSpec& m)
{
    std::vector<LayerRun> runs;
    forEachLayerRun(m, [&runs](const LayerRun& r) {
        if (!runs.empty() && runs.back().kind == r.kind)
            runs.back().count += r.count;
        else
            runs.push_back(r);
    });
    return runs;
}

int moeLayerCount(const ModelSpec& m)
{
    int n = 0;
    forEachLayerRun(m, [&n](const LayerRun& r) { n += r.kind.channelMixer == ChannelMixer::Moe ? r.count : 0; });
    return n;
}

namespace {
constexpr std::pair<TokenMixer, std::string_view> kTokenMixers[] = {
    { TokenMixer::FullAttention, "full_attention" },
    { TokenMixer::SlidingWindowAttention, "sliding_attention" },
    { TokenMixer::ChunkedAttention, "chunked_attention" },
    { TokenMixer::SparseAttention, "sparse_attention" },
    { TokenMixer::LinearAttention, "linear_attention" },
    { TokenMixer::Mamba2, "mamba2" },
    { TokenMixer::LinearProjection, "linear_projection" },
    { TokenMixer::None, "none" },
    { TokenMixer::KimiDeltaAttention, "kimi_delta_attention" },
    { TokenMixer::CompressedSparseAttention, "compressed_sparse_attention" },
    { TokenMixer::HeavilyCompressedAttention, "heavily_compressed_attention" },
};
constexpr std::pair<ChannelMixer, std::string_view> kChannelMixers[] = {
    { ChannelMixer::DenseMlp, "dense" },
    { ChannelMixer::Moe, "moe" },
    { ChannelMixer::LinearProjection, "linear_projection" },
    { ChannelMixer::None, "none" },
};
constexpr std::pair<QkNorm, std::string_view> kQkNorms[] = {
    { QkNorm::None, "none" },
    { QkNorm::PerHead, "per_head" },
    { QkNorm::FullWidth, "full_width" },
};

template <typename E, size_t N> std::string_view keyOf(const std::pair<E, std::string_view> (&table)[N], E value)
{
    for (const auto& [e, key] : table)
        if (e == value)
            return key;
    return {};
}

template <typename E, size_t N>
std::optional<E> valueOf(const std::pair<E, std::string_view> (&table)[N], std::string_view key)
{
    for (const auto& [e, k] : table)
        if (k == key)
            return e;
    return std::nullopt;
}
} // namespace

std::string_view tokenMixerKey(TokenMixer m)
{
    return keyOf(kTokenMixers, m);
}
std::optional<TokenMixer> tokenMixerFromKey(std::string_view key)
{
    return valueOf(kTokenMixers, key);
}
std::string_view channelMixerKey(ChannelMixer m)
{
    return keyOf(kChannelMixers, m);
}
std::optional<ChannelMixer> channelMixerFromKey(std::string_view key)
{
    return valueOf(kChannelMixers, key);
}
std::string_view qkNormKey(QkNorm n)
{
    return keyOf(kQkNorms, n);
}
std::optional<QkNorm> qkNormFromKey(std::string_view key)
{
    return valueOf(kQkNorms, key);
}

int localAttentionLayerCount(const ModelSpec& m, TokenMixer mixer)
{
    int n = 0;
    forEachLayerRun(m, [&n, mixer](const LayerRun& r) { n += r.kind.tokenMixer == mixer ? r.count : 0; });
    return n;
}

int64_t attentionWindow(const ModelSpec& m, TokenMixer mixer)
{
    switch (mixer) {
    case TokenMixer::FullAttention:
        return 0;
    case TokenMixer::SlidingWindowAttention:
        return m.slidingWindow;
    case TokenMixer::ChunkedAttention:
        return m.attentionChunk;
    case TokenMixer::SparseAttention:
        return m.sparseIndexer.attendedKeys();
    case TokenMixer::CompressedSparseAttention:
    case TokenMixer::HeavilyCompressedAttention:
        return m.slidingWindow; // the raw keys; the compressed ones are compressedKeys
    case TokenMixer::LinearAttention:
    case TokenMixer::KimiDeltaAttention:
    case TokenMixer::Mamba2:
    case TokenMixer::LinearProjection:
    case TokenMixer::None:
        return 0;
    }
    return 0;
}

bool isSoftmaxAttention(TokenMixer mixer)
{
    switch (mixer) {
    case TokenMixer::FullAttention:
    case TokenMixer::SlidingWindowAttention:
    case TokenMixer::ChunkedAttention:
    case TokenMixer::SparseAttention:
    case TokenMixer::CompressedSparseAttention:
    case TokenMixer::HeavilyCompressedAttention:
        return true;
    case TokenMixer::LinearAttention:
    case TokenMixer::KimiDeltaAttention:
    case TokenMixer::Mamba2:
    case TokenMixer::LinearProjection:
    case TokenMixer::None:
        return false;
    }
    return false;
}

int attentionLayerCount(const ModelSpec& m)
{
    int n = 0;
    for (const LayerRun& r : layerRuns(m))
        n += isSoftmaxAttention(r.kind.tokenMixer) ? r.count : 0;
    return n;
}

double attentionSpan(TokenMixer mixer, double window, double seqLen)
{
    if (!isSoftmaxAttention(mixer))
        return 0.0;
    if (mixer != TokenMixer::FullAttention && window > 0)
        return std::min(seqLen, window);
    return seqLen;
}

double attentionSpanCausal(TokenMixer mixer, double window, double seqLen)
{
    if (!isSoftmaxAttention(mixer))
        return 0.0;
    if (mixer == TokenMixer::FullAttention || !(window > 0) || window >= seqLen)
        return seqLen / 2.0;
    // A query at position t sees min(t, W) keys: a sliding window, and the top-k keys of sparse attention alike.
    if (mixer == TokenMixer::SlidingWindowAttention || mixer == TokenMixer::SparseAttention
        || mixer == TokenMixer::CompressedSparseAttention || mixer == TokenMixer::HeavilyCompressedAttention)
        return window - window * window / (2.0 * seqLen);
    const double chunks = std::floor(seqLen / window);
    const double rest = seqLen - chunks * window;
    return (chunks * window * window / 2.0 + rest * rest / 2.0) / seqLen;
}

double compressedKeys(TokenMixer mixer, double ratio, double topK, double seqLen, bool causal)
{
    if (!(ratio > 0))
        return 0.0;
    const double compressed = seqLen / ratio;
    if (mixer == TokenMixer::HeavilyCompressedAttention)
        return causal ? compressed / 2.0 : compressed;
    if (mixer != TokenMixer::CompressedSparseAttention)
        return 0.0;
    if (!causal)
        return std::min(compressed, topK);
    return topK >= compressed ? compressed / 2.0 : topK - topK * topK / (2.0 * compressed);
}

int64_t compressRatio(const ModelSpec& m, TokenMixer mixer)
{
    if (mixer == TokenMixer::CompressedSparseAttention)
        return m.compressedAttention.sparseRatio;
    if (mixer == TokenMixer::HeavilyCompressedAttention)
        return m.compressedAttention.denseRatio;
    return 0;
}

double attentionKeys(const ModelSpec& m, TokenMixer mixer, double seqLen)
{
    return attentionSpan(mixer, double(attentionWindow(m, mixer)), seqLen)
        + compressedKeys(mixer, double(compressRatio(m, mixer)), double(m.sparseIndexer.topK), seqLen, false);
}

double attentionKeysCausal(const ModelSpec& m, TokenMixer mixer, double seqLen)
{
    return attentionSpanCausal(mixer, double(attentionWindow(m, mixer)), seqLen)
        + compressedKeys(mixer, double(compressRatio(m, mixer)), double(m.sparseIndexer.topK), seqLen, true);
}

LayerAttention ModelSpec::attentionOf(const LayerKind& layer) const
{
    LayerAttention a;
    a.heads = heads;
    a.kvHeads = kvHeads;
    a.qkHeadDim = qkHeadDim();
    a.vHeadDim = vHeadDim();
    a.sinks = attentionSinks;
    if (mla.enabled)
        return a;
    const AttentionShape& o = layer.attention;
    if (o.kvHeads > 0)
        a.kvHeads = o.kvHeads;
    if (o.headDim > 0) {
        a.qkHeadDim = o.headDim;
        a.vHeadDim = o.headDim;
    }
    if (o.valueHeadDim > 0)
        a.vHeadDim = o.valueHeadDim;
    a.keyIsValue = o.keyIsValue;
    if (o.sinks != AttentionShape::Override::Model)
        a.sinks = o.sinks == AttentionShape::Override::Yes;
    return a;
}

ModelSpec bareModel(int64_t params, std::string name)
{
    ModelSpec spec;
    spec.bareParams = params;
    spec.id = "params:" + std::to_string(params);
    spec.name = name.empty() ? "Bare model, " + std::to_string(params) + " parameters" : std::move(name);
    spec.source = "parameter count given by the user (only the 6N formula applies)";
    validateModelSpec(spec);
    return spec;
}

} // namespace mfu
