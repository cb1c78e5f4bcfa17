#include "core/costmodel/cost_model.h"

#include "core/errors.h"
#include "core/model/chunked_scans.h"
#include "core/model/param_count.h"

namespace mfu {

ModelShape modelShapeOf(const ModelSpec& m)
{
    if (m.isBare())
        throw InputError("cost model: model '" + m.id
            + "' is a bare parameter count; the cost model needs its architecture (layers, hidden size, heads)");
    if (m.layers <= 0 || m.hidden <= 0 || m.heads <= 0)
        throw InputError("cost model: model '" + m.id + "' lacks layers, hidden size or heads");
    const ParameterCounts p = countParameters(m);
    const ForwardComponents fwd = forwardComponents(m, 1); // seq-independent parts only
    const double L = static_cast<double>(m.layers);

    ModelShape s;
    s.layers = m.layers;
    s.vocab = static_cast<double>(m.vocab);
    s.totalParams = static_cast<double>(p.total);
    s.embeddingParams = static_cast<double>(p.embedding);
    s.lmHeadParams = static_cast<double>(p.lmHead);
    s.paramsPerLayer = static_cast<double>(p.attention + p.ffn + p.norms) / L;

    const double matrices = m.activation == FfnActivation::SwiGLU ? 3.0 : 2.0;
    const int moeLayers = moeLayerCount(m);
    s.moeLayerShare = static_cast<double>(moeLayers) / L;
    s.experts = m.isMoe() ? m.moe.experts : 0;
    s.expertsPerToken = m.isMoe() ? m.moe.expertsPerToken : 0;
    // Routed experts read and write latentDim-wide vectors under latent MoE (Kimi K3, Nemotron 3), else hidden-wide.
    const double expertWidth = static_cast<double>(m.moe.latentDim > 0 ? m.moe.latentDim : m.hidden);
    s.expertDispatchWidth = m.isMoe() ? expertWidth : 0.0;
    s.expertParamsPerLayer = m.isMoe() ? static_cast<double>(moeLayers) * m.moe.experts * matrices * expertWidth
            * static_cast<double>(m.moe.expertFfnDim) / L
                                       : 0.0;

    double sublayers = 0;
    forEachLayerRun(m, [&](const LayerRun& run) {
        const int mixers
            = (run.kind.tokenMixer != TokenMixer::None ? 1 : 0) + (run.kind.channelMixer != ChannelMixer::None ? 1 : 0);
        sublayers += static_cast<double>(run.count) * mixers;
    });
    s.layer.sublayersPerLayer = sublayers / L;
    s.layer.keyValueLayerShare = static_cast<double>(attentionLayerCount(m)) / L;

    s.qkvFlops = fwd.qkvProjection / L;
    s.outProjFlops = fwd.outputProjection / L;
    s.ffnFlops = fwd.ffn / L;
    s.routerFlops = fwd.router / L;
    s.activeLinearParamsPerLayer = (s.qkvFlops + s.outProjFlops + s.ffnFlops + s.routerFlops) / 2.0;
    s.qkvOut = static_cast<double>(m.heads) * static_cast<double>(m.qkHeadDim())
        + 2.0 * static_cast<double>(m.kvHeads) * static_cast<double>(m.headDim);
    s.attnOut = static_cast<double>(m.heads) * static_cast<double>(m.vHeadDim());
    if (m.compressedAttention.enabled()) // one key-value head serves as key and value
        s.qkvOut = static_cast<double>(m.heads) * static_cast<double>(m.headDim) + static_cast<double>(m.headDim);
    if (m.isMoe() && fwd.ffn > 0) {
        const double routed = static_cast<double>(moeLayers) * 2.0 * matrices * expertWidth
            * static_cast<double>(m.moe.expertsPerToken) * static_cast<double>(m.moe.expertFfnDim);
        s.routedFfnShare = routed / fwd.ffn;
    }
    // Each attention layer's share, weighted by its attention width H·(d_qk + d_v) relative to the model's (the
    // width the step time multiplies by): a Gemma 4 global layer with twice the head dimension counts twice.
    const double modelWidth = static_cast<double>(m.heads) * static_cast<double>(m.qkHeadDim() + m.vHeadDim());
    const auto widthShare = [&](TokenMixer mixer) {
        double share = 0;
        forEachLayerRun(m, [&](const LayerRun& run) {
            if (run.kind.tokenMixer != mixer)
                return;
            const LayerAttention a = m.attentionOf(run.kind);
            const double width = static_cast<double>(a.heads) * static_cast<double>(a.qkHeadDim + a.vHeadDim);
            share += static_cast<double>(run.count) * (modelWidth > 0 ? width / modelWidth : 1.0);
        });
        return share / L;
    };
    for (const TokenMixer mixer :
        { TokenMixer::SlidingWindowAttention, TokenMixer::ChunkedAttention, TokenMixer::SparseAttention,
            TokenMixer::CompressedSparseAttention, TokenMixer::HeavilyCompressedAttention })
        if (localAttentionLayerCount(m, mixer) > 0)
            s.localAttention.push_back({ mixer, widthShare(mixer), static_cast<double>(attentionWindow(m, mixer)),
                static_cast<double>(compressRatio(m, mixer)), static_cast<double>(m.sparseIndexer.topK) });
    s.fullAttentionShare = widthShare(TokenMixer::FullAttention);
    const int recurrent = localAttentionLayerCount(m, TokenMixer::LinearAttention);
    const int mamba = localAttentionLayerCount(m, TokenMixer::Mamba2);
    const auto addScan = [&](int count, const ChunkedScanWork& w, const MixerElementwiseBytes& around, double saved,
                             const MixerForwardFlops& projections) {
        s.layer.recurrentSavedBytes += count * saved / L;
        s.recurrentProjectionWidth += count * projections.projectionOperands / L;
        s.recurrentScanFlops += count * w.matmulFlops / L;
        s.recurrentScanBytes += count * w.hbmBytes / L;
        s.recurrentScanBackwardBytes += count * w.backwardHbmBytes / L;
        s.recurrentElementwiseBytes += count * around.total() / L;
    };
    if (const int kda = localAttentionLayerCount(m, TokenMixer::KimiDeltaAttention); kda > 0)
        addScan(kda, kimiDeltaAttentionChunkedScan(m.kimiDeltaAttention),
            kimiDeltaAttentionElementwise(m.kimiDeltaAttention), kimiDeltaAttentionSavedBytes(m.kimiDeltaAttention),
            kimiDeltaAttentionForwardFlops(m.kimiDeltaAttention, m.hidden));
    if (recurrent > 0)
        addScan(recurrent, gatedDeltaNetChunkedScan(m.linearAttention), gatedDeltaNetElementwise(m.linearAttention),
            gatedDeltaNetSavedBytes(m.linearAttention), gatedDeltaNetForwardFlops(m.linearAttention, m.hidden));
    if (mamba > 0)
        addScan(mamba, mamba2ChunkedScan(m.mamba), mamba2Elementwise(m.mamba), mamba2SavedBytes(m.mamba),
            mamba2ForwardFlops(m.mamba, m.hidden));
    if (const int sparse = localAttentionLayerCount(m, TokenMixer::SparseAttention); sparse > 0)
        s.indexerFlopsPerKey
            = sparse * sparseIndexerForwardFlops(m.sparseIndexer, m.hidden, m.mla.qLoraRank, 1.0).core / L;
    // CSA's indexer scores one compressed key per sparseRatio tokens.
    if (const int csa = localAttentionLayerCount(m, TokenMixer::CompressedSparseAttention); csa > 0)
        s.indexerFlopsPerKey += csa
            * compressedSparseExtraFlops(m.compressedAttention, m.sparseIndexer, m.hidden, m.headDim, 1.0).core
            / static_cast<double>(m.compressedAttention.sparseRatio) / L;
    s.ffnWidth = m.isMoe() ? static_cast<double>(m.moe.expertFfnDim) : static_cast<double>(m.ffnDim);
    s.denseFfnWidth = static_cast<double>(m.ffnDim);
    if (m.isMoe() && m.moe.sharedExperts > 0)
        s.denseFfnWidth = static_cast<double>(m.moe.sharedExperts)
            * static_cast<double>(m.moe.sharedExpertFfnDim > 0 ? m.moe.sharedExpertFfnDim : m.moe.expertFfnDim);
    s.mtpProjectionFlops = 2.0 * 2.0 * static_cast<double>(m.hidden) * static_cast<double>(m.hidden);
    s.hyperConnections = static_cast<double>(m.hyperConnections);

    LayerShape& x = s.layer;
    x.hidden = static_cast<double>(m.hidden);
    x.heads = m.heads;
    x.kvHeads = m.kvHeads > 0 ? m.kvHeads : m.heads;
    x.qkHeadDim = static_cast<double>(m.qkHeadDim());
    x.vHeadDim = static_cast<double>(m.vHeadDim());
    x.gatedFfn = m.activation == FfnActivation::SwiGLU;
    // The FFN width one token passes through, averaged over dense and MoE layers; the routed experts' part of it, and
    // the dense layers' (the rest: shared experts).
    x.ffnDim = s.ffnFlops / (2.0 * matrices * x.hidden);
    x.routedFfnDim = s.routedFfnShare * x.ffnDim;
    x.denseMlpFfnDim = m.isMoe() ? (1.0 - s.moeLayerShare) * static_cast<double>(m.ffnDim) : x.ffnDim;
    x.dropout = false; // modern LLM pre-training runs without dropout
    x.flashAttention = true;
    x.attentionOutputGate = m.attentionOutputGate;
    x.qkNormWidth = m.qkNorm == QkNorm::None ? 0.0 : (x.heads + x.kvHeads) * x.qkHeadDim;
    if (m.mla.enabled) {
        const double rope = static_cast<double>(m.mla.qkRopeHeadDim);
        x.latentQkvWidth = static_cast<double>(m.mla.qLoraRank) + static_cast<double>(m.mla.kvLoraRank) + rope;
        // Up-projections rebuilt in backward: latent -> per-head queries, and latent -> per-head keys (nope) and
        // values; 2 FLOP per weight.
        const double h = static_cast<double>(m.heads);
        const double qUp = m.mla.qLoraRank > 0 ? static_cast<double>(m.mla.qLoraRank) * h * x.qkHeadDim : 0.0;
        const double kvUp = static_cast<double>(m.mla.kvLoraRank) * h
            * (static_cast<double>(m.mla.qkNopeHeadDim) + static_cast<double>(m.mla.vHeadDim));
        s.latentUpProjFlops = 2.0 * (qUp + kvUp);
    }
    return s;
}

} // namespace mfu

namespace mfu {

double ModelShape::causalAttentionSpan(double seqLen) const
{
    double span = 0.0;
    for (const LocalAttention& a : localAttention)
        span += a.layerShare
            * (attentionSpanCausal(a.mixer, a.window, seqLen)
                + compressedKeys(a.mixer, a.compressRatio, a.compressedTopK, seqLen, true));
    return span + fullAttentionShare * seqLen / 2.0;
}

} // namespace mfu
