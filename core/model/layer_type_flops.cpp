#include "core/model/layer_type_flops.h"

#include <algorithm>

#include "core/number_format.h"

namespace mfu {

namespace {

std::string plural(int n, const std::string& one, const std::string& many)
{
    return std::to_string(n) + " " + (n == 1 ? one : many);
}

std::string tokenMixerLabel(const ModelSpec& m, TokenMixer mixer, int n)
{
    switch (mixer) {
    case TokenMixer::FullAttention:
        return plural(n, "full-attention layer", "full-attention layers");
    case TokenMixer::SlidingWindowAttention:
        return plural(n, "sliding-window layer", "sliding-window layers") + " (" + formatNumber(double(m.slidingWindow))
            + " tokens)";
    case TokenMixer::ChunkedAttention:
        return plural(n, "chunked-attention layer", "chunked-attention layers") + " ("
            + formatNumber(double(m.attentionChunk)) + " tokens)";
    case TokenMixer::SparseAttention:
        return plural(n, "sparse-attention layer", "sparse-attention layers") + " (top "
            + formatNumber(double(m.sparseIndexer.topK)) + " keys)";
    case TokenMixer::LinearAttention:
        return plural(n, "linear-attention layer", "linear-attention layers");
    case TokenMixer::KimiDeltaAttention:
        return plural(n, "Kimi Delta Attention layer", "Kimi Delta Attention layers");
    case TokenMixer::CompressedSparseAttention:
        return plural(n, "compressed sparse attention layer", "compressed sparse attention layers") + " (1 key per "
            + formatNumber(double(m.compressedAttention.sparseRatio)) + " tokens, top "
            + formatNumber(double(m.sparseIndexer.topK)) + ")";
    case TokenMixer::HeavilyCompressedAttention:
        return plural(n, "heavily compressed attention layer", "heavily compressed attention layers") + " (1 key per "
            + formatNumber(double(m.compressedAttention.denseRatio)) + " tokens)";
    case TokenMixer::Mamba2:
        return plural(n, "Mamba-2 layer", "Mamba-2 layers");
    case TokenMixer::LinearProjection:
        return plural(n, "linear map in place of attention", "linear maps in place of attention");
    case TokenMixer::None:
        return plural(n, "layer without attention", "layers without attention");
    }
    return {};
}

std::string channelMixerLabel(ChannelMixer mixer, int n)
{
    switch (mixer) {
    case ChannelMixer::DenseMlp:
        return plural(n, "dense MLP", "dense MLPs");
    case ChannelMixer::Moe:
        return plural(n, "MoE MLP", "MoE MLPs");
    case ChannelMixer::LinearProjection:
        return plural(n, "linear map in place of the MLP", "linear maps in place of the MLP");
    case ChannelMixer::None:
        return plural(n, "layer without an MLP", "layers without an MLP");
    }
    return {};
}

// One row per distinct key, in the order the layers first show it.
struct Row {
    LayerTypeFlops flops;
    TokenMixer tokenMixer = TokenMixer::None;
    ChannelMixer channelMixer = ChannelMixer::None;
    LayerAttention shape;
    int64_t ffnDim = 0;
};

bool sameShape(const LayerAttention& a, const LayerAttention& b)
{
    return a.heads == b.heads && a.kvHeads == b.kvHeads && a.qkHeadDim == b.qkHeadDim && a.vHeadDim == b.vHeadDim
        && a.keyIsValue == b.keyIsValue;
}

std::string shapeLabel(const LayerAttention& a)
{
    std::string s = " (" + std::to_string(a.heads) + " heads of " + std::to_string(a.qkHeadDim);
    if (a.vHeadDim != a.qkHeadDim)
        s += "/" + std::to_string(a.vHeadDim);
    s += ", " + std::to_string(a.kvHeads) + " KV";
    if (a.keyIsValue)
        s += ", V = K";
    return s + ")";
}

} // namespace

std::string_view layerPartKey(LayerPart part)
{
    switch (part) {
    case LayerPart::TokenMixer:
        return "token_mixer";
    case LayerPart::ChannelMixer:
        return "channel_mixer";
    case LayerPart::LmHead:
        return "lm_head";
    }
    return {};
}

std::vector<LayerTypeFlops> forwardFlopsByLayerType(const ModelSpec& m, int64_t seqLen, const SequencePacking& packing)
{
    std::vector<LayerTypeFlops> out;
    if (m.isBare())
        return out;
    // The documents attention runs over, as countFlopsPerToken takes them (it validates seqLen and the packing).
    const FlopsPerToken whole = countFlopsPerToken(m, seqLen, packing);
    std::vector<AttentionDocument> documents { { double(seqLen), 1.0 } };
    if (packing.packed() && packing.attention == PackedAttention::PerDocument)
        documents = attentionDocuments(packing, seqLen);

    std::vector<Row> tokenRows, channelRows;
    for (const LayerRun& run : layerRuns(m)) {
        const ForwardComponents f = layerRunForward(m, run, documents);
        const double mixerFull = f.qkvProjection + f.outputProjection + f.attentionCore() + f.mixerCore;
        const double mixerCausal = f.qkvProjection + f.outputProjection + f.attentionCoreCausal + f.mixerCoreCausal;
        const LayerAttention shape = m.attentionOf(run.kind);
        const bool softmax = isSoftmaxAttention(run.kind.tokenMixer);
        auto token = std::find_if(tokenRows.begin(), tokenRows.end(), [&](const Row& r) {
            return r.tokenMixer == run.kind.tokenMixer && (!softmax || sameShape(r.shape, shape));
        });
        if (token == tokenRows.end()) {
            Row r;
            r.flops.part = LayerPart::TokenMixer;
            r.flops.kind = std::string(tokenMixerKey(run.kind.tokenMixer));
            r.tokenMixer = run.kind.tokenMixer;
            r.shape = shape;
            tokenRows.push_back(r);
            token = tokenRows.end() - 1;
        }
        token->flops.layers += run.count;
        token->flops.forward += mixerFull;
        token->flops.forwardCausal += mixerCausal;

        const int64_t width
            = run.kind.channelMixer == ChannelMixer::DenseMlp ? (run.kind.ffnDim > 0 ? run.kind.ffnDim : m.ffnDim) : 0;
        auto channel = std::find_if(channelRows.begin(), channelRows.end(),
            [&](const Row& r) { return r.channelMixer == run.kind.channelMixer && r.ffnDim == width; });
        if (channel == channelRows.end()) {
            Row r;
            r.flops.part = LayerPart::ChannelMixer;
            r.flops.kind = std::string(channelMixerKey(run.kind.channelMixer));
            r.channelMixer = run.kind.channelMixer;
            r.ffnDim = width;
            channelRows.push_back(r);
            channel = channelRows.end() - 1;
        }
        channel->flops.layers += run.count;
        channel->flops.forward += f.ffn + f.router;
        channel->flops.forwardCausal += f.ffn + f.router;
    }

    // Labels: the attention shape where softmax layers differ in it, the MLP width where dense MLPs do.
    bool shapesDiffer = false;
    const LayerAttention* first = nullptr;
    for (const Row& r : tokenRows)
        if (isSoftmaxAttention(r.tokenMixer)) {
            shapesDiffer = shapesDiffer || (first && !sameShape(*first, r.shape));
            first = first ? first : &r.shape;
        }
    const bool widthsDiffer = std::count_if(channelRows.begin(), channelRows.end(), [](const Row& r) {
        return r.channelMixer == ChannelMixer::DenseMlp;
    }) > 1;
    for (Row& r : tokenRows) {
        r.flops.label = tokenMixerLabel(m, r.tokenMixer, r.flops.layers)
            + (shapesDiffer && isSoftmaxAttention(r.tokenMixer) ? shapeLabel(r.shape) : std::string());
        out.push_back(r.flops);
    }
    for (Row& r : channelRows) {
        r.flops.label = channelMixerLabel(r.channelMixer, r.flops.layers)
            + (widthsDiffer && r.channelMixer == ChannelMixer::DenseMlp ? " of " + formatNumber(double(r.ffnDim))
                                                                        : std::string());
        out.push_back(r.flops);
    }
    LayerTypeFlops head;
    head.part = LayerPart::LmHead;
    head.kind = "lm_head";
    head.label = "LM head";
    head.forward = head.forwardCausal = whole.forward.lmHead;
    out.push_back(head);
    return out;
}

} // namespace mfu
