#include "core/model/param_count.h"

namespace mfu {

namespace {

int64_t normParams(const ModelSpec& m)
{
    return m.norm == NormKind::LayerNorm ? 2 * m.hidden : m.hidden;
}

// Weights (+ biases) of one linear layer in -> out.
int64_t linear(int64_t in, int64_t out, bool bias)
{
    return in * out + (bias ? out : 0);
}

int64_t attentionParams(const ModelSpec& m, const LayerAttention& shape)
{
    const int64_t h = m.hidden;
    const bool b = m.linearBias;
    if (m.compressedAttention.enabled())
        return compressedAttentionProjectionParams(m.compressedAttention, h, m.heads, m.headDim);
    if (m.mla.enabled) {
        const auto& a = m.mla;
        const int64_t qk = a.qkNopeHeadDim + a.qkRopeHeadDim;
        int64_t p = 0;
        if (a.qLoraRank > 0)
            p += linear(h, a.qLoraRank, b) + a.qLoraRank /* q_a_layernorm */ + linear(a.qLoraRank, m.heads * qk, b);
        else
            p += linear(h, m.heads * qk, b);
        p += linear(h, a.kvLoraRank + a.qkRopeHeadDim, b) + a.kvLoraRank /* kv_a_layernorm */;
        p += linear(a.kvLoraRank, m.heads * (a.qkNopeHeadDim + a.vHeadDim), b);
        p += linear(m.heads * a.vHeadDim, h, b || m.attnOutBias);
        if (m.attentionOutputGate)
            p += linear(h, m.heads * a.vHeadDim, b); // a sigmoid gate per output channel (Kimi K3)
        return p;
    }
    const int64_t q = int64_t(shape.heads) * shape.qkHeadDim;
    const int64_t k = int64_t(shape.kvHeads) * shape.qkHeadDim;
    const int64_t v = int64_t(shape.kvHeads) * shape.vHeadDim;
    const int64_t o = int64_t(shape.heads) * shape.vHeadDim;
    const bool qkvBias = m.qkvBias || m.linearBias;
    int64_t p = linear(h, q, qkvBias) + linear(h, k, qkvBias) + linear(o, h, m.linearBias || m.attnOutBias);
    if (!shape.keyIsValue)
        p += linear(h, v, qkvBias); // (values equal to keys need no v_proj)
    if (m.attentionOutputGate)
        p += linear(h, q, qkvBias); // q_proj yields the query and, as wide, the output gate
    if (m.qkNorm == QkNorm::PerHead)
        p += 2 * shape.qkHeadDim; // q_norm and k_norm: RMSNorm(head_dim) each
    else if (m.qkNorm == QkNorm::FullWidth)
        p += q + k; // q_norm: RMSNorm(heads x head_dim), k_norm: RMSNorm(kv_heads x head_dim)
    if (shape.sinks)
        p += shape.heads;
    return p;
}

// An MLP from `width`-wide vectors through ffnDim and back (width: the hidden size, or a latent MoE's latent size).
int64_t ffnParamsAt(const ModelSpec& m, int64_t width, int64_t ffnDim)
{
    const int64_t matrices = m.activation == FfnActivation::SwiGLU ? 3 : 2;
    int64_t p = matrices * width * ffnDim;
    if (m.linearBias || m.mlpBias)
        p += (matrices - 1) * ffnDim + width; // gate and up (or up) biases of ffnDim each, the down bias
    return p;
}

int64_t ffnParams(const ModelSpec& m, int64_t ffnDim)
{
    return ffnParamsAt(m, m.hidden, ffnDim);
}

} // namespace

int64_t hyperConnectionParams(const ModelSpec& m)
{
    const int64_t n = m.hyperConnections;
    if (n <= 0)
        return 0;
    const int64_t mix = (2 + n) * n; // pre weights (n), post weights (n), the n x n residual mix
    // Per sublayer (attention, FFN): hc_fn Linear(n x hidden, mix), hc_base (mix), hc_scale (3). At the end, the
    // head's reduction of the n streams to one: hc_head_fn Linear(n x hidden, n), hc_head_base (n), hc_head_scale (1).
    return int64_t(m.layers) * 2 * (n * m.hidden * mix + mix + 3) + (n * m.hidden * n + n + 1);
}

ParameterCounts countParameters(const ModelSpec& m)
{
    ParameterCounts c;
    if (m.isBare()) {
        c.total = c.nonEmbedding = c.active = c.activeNonEmbedding = *m.bareParams;
        return c;
    }
    const int64_t embedding = m.vocab * m.hidden + m.learnedPositions * m.hidden;
    const int64_t lmHead = m.tiedEmbeddings ? 0 : m.vocab * m.hidden;
    // One layer's token mixer: softmax attention of its shape (with its indexer when sparse), a recurrence, a linear
    // map, or nothing.
    auto tokenMixerParams = [&m](const LayerKind& layer) -> int64_t {
        switch (layer.tokenMixer) {
        case TokenMixer::FullAttention:
        case TokenMixer::SlidingWindowAttention:
        case TokenMixer::ChunkedAttention:
            return attentionParams(m, m.attentionOf(layer));
        case TokenMixer::SparseAttention:
            return attentionParams(m, m.attentionOf(layer))
                + sparseIndexerParams(m.sparseIndexer, m.hidden, m.mla.qLoraRank);
        case TokenMixer::CompressedSparseAttention:
            return attentionParams(m, m.attentionOf(layer))
                + compressedSparseExtraParams(m.compressedAttention, m.sparseIndexer, m.hidden, m.headDim);
        case TokenMixer::HeavilyCompressedAttention:
            return attentionParams(m, m.attentionOf(layer))
                + heavilyCompressedExtraParams(m.compressedAttention, m.hidden, m.headDim);
        case TokenMixer::LinearAttention:
            return gatedDeltaNetParams(m.linearAttention, m.hidden);
        case TokenMixer::KimiDeltaAttention:
            return kimiDeltaAttentionParams(m.kimiDeltaAttention, m.hidden);
        case TokenMixer::Mamba2:
            return mamba2Params(m.mamba, m.hidden);
        case TokenMixer::LinearProjection:
            return m.hidden * m.hidden;
        case TokenMixer::None:
            return 0;
        }
        return 0;
    };

    // One MoE layer's channel mixer: every expert (total) and what one token touches (active).
    int64_t moeTotal = 0;
    int64_t moeActive = 0;
    if (m.isMoe()) {
        const auto& e = m.moe;
        // Under latent MoE the routed experts read and write latentDim-wide vectors, between two projections.
        const int64_t expert = ffnParamsAt(m, e.latentDim > 0 ? e.latentDim : m.hidden, e.expertFfnDim);
        const int64_t latentProjections
            = e.latentDim > 0 ? 2 * m.hidden * e.latentDim + (e.latentNorm ? e.latentDim : 0) : 0;
        const int64_t shared
            = e.sharedExperts * ffnParams(m, e.sharedExpertFfnDim > 0 ? e.sharedExpertFfnDim : e.expertFfnDim);
        const int64_t sharedGate = e.sharedExperts > 0 && e.sharedExpertGate ? m.hidden : 0; // Linear(h, 1)
        const int64_t router = int64_t(e.experts) * m.hidden + (e.routerBias ? e.experts : 0);
        moeTotal = e.experts * expert + shared + sharedGate + router + latentProjections;
        moeActive = e.expertsPerToken * expert + shared + sharedGate + router + latentProjections;
    }

    int64_t ffn = 0;
    int64_t inactive = 0;
    int64_t tokenMixers = 0;
    int64_t norms = 0;
    forEachLayerRun(m, [&](const LayerRun& run) {
        tokenMixers += int64_t(run.count) * tokenMixerParams(run.kind);
        norms += int64_t(run.count) * m.normsOf(run.kind) * normParams(m);
        switch (run.kind.channelMixer) {
        case ChannelMixer::DenseMlp:
            ffn += int64_t(run.count) * ffnParams(m, run.kind.ffnDim > 0 ? run.kind.ffnDim : m.ffnDim);
            break;
        case ChannelMixer::Moe:
            ffn += int64_t(run.count) * moeTotal;
            inactive += int64_t(run.count) * (moeTotal - moeActive);
            break;
        case ChannelMixer::LinearProjection:
            ffn += int64_t(run.count) * m.hidden * m.hidden;
            break;
        case ChannelMixer::None:
            break;
        }
    });

    c.embedding = embedding;
    c.lmHead = lmHead;
    c.attention = tokenMixers;
    c.ffn = ffn;
    c.norms = norms + normParams(m) // + final norm
        + hyperConnectionParams(m);
    c.total = c.embedding + c.lmHead + c.attention + c.ffn + c.norms;
    c.nonEmbedding = c.total - c.embedding;
    c.active = c.total - inactive;
    c.activeNonEmbedding = c.active - c.embedding;
    return c;
}

} // namespace mfu
