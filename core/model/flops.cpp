#include "core/model/flops.h"

#include <algorithm>
#include <string>

#include "core/errors.h"
#include "core/model/param_count.h"
#include "core/text.h"

namespace mfu {

namespace {
struct FormulaName {
    FlopFormula formula;
    std::string_view key;
    std::string_view label;
    std::string_view shortName; // where space is short: chart categories and legends, the formula choice
};
constexpr FormulaName kFormulaNames[] = {
    { FlopFormula::SixN, "six_n", "6N", "6N" },
    { FlopFormula::PaLM, "palm", "6(N-N_emb)+12LHQS (PaLM/TorchTitan)", "PaLM" },
    { FlopFormula::PerLayer, "per_layer", "6(N-N_emb)+12HQ x keys per layer", "PaLM per layer" },
    { FlopFormula::PerComponent, "per_component", "Per-component, full attention", "Per-component" },
    { FlopFormula::PerComponentCausal, "per_component_causal", "Per-component, causal attention",
        "Per-component, causal" },
};

double ffnMatrices(const ModelSpec& m)
{
    return m.activation == FfnActivation::SwiGLU ? 3.0 : 2.0;
}
} // namespace

FlopFormula flopFormulaFor(const ModelSpec& model, FlopFormula wanted)
{
    return model.isBare() ? FlopFormula::SixN : wanted;
}

std::string_view flopFormulaKey(FlopFormula f)
{
    for (const auto& n : kFormulaNames)
        if (n.formula == f)
            return n.key;
    return {};
}

std::string_view flopFormulaLabel(FlopFormula f)
{
    for (const auto& n : kFormulaNames)
        if (n.formula == f)
            return n.label;
    return {};
}

std::string_view flopFormulaShortName(FlopFormula f)
{
    for (const auto& n : kFormulaNames)
        if (n.formula == f)
            return n.shortName;
    return {};
}

std::optional<FlopFormula> flopFormulaFromKey(std::string_view key)
{
    for (const auto& n : kFormulaNames)
        if (n.key == key)
            return n.formula;
    return std::nullopt;
}

std::string flopFormulaKeyList()
{
    std::string out;
    for (size_t i = 0; i < std::size(kFormulaNames); ++i) {
        if (i > 0)
            out += i + 1 == std::size(kFormulaNames) ? " or " : ", ";
        out += kFormulaNames[i].key;
    }
    return out;
}

bool describesModel(const FlopsPerToken& counts, double flopsPerToken, double factor)
{
    for (FlopFormula f : kAllFlopFormulas)
        if (const auto count = counts.get(f); count && *count > 0)
            if (flopsPerToken <= *count * factor && flopsPerToken >= *count / factor)
                return true;
    return false;
}

std::optional<std::string> componentsUnknownReason(const ModelSpec& spec)
{
    if (!spec.isBare())
        return std::nullopt;
    return "a bare parameter count has no layers, heads or widths to split into components; 6N counts 2N forward";
}

std::optional<double> FlopsPerToken::get(FlopFormula f) const
{
    switch (f) {
    case FlopFormula::SixN:
        return sixN;
    case FlopFormula::PaLM:
        return palm;
    case FlopFormula::PerLayer:
        return perLayer;
    case FlopFormula::PerComponent:
        return perComponent;
    case FlopFormula::PerComponentCausal:
        return perComponentCausal;
    }
    return std::nullopt;
}

ForwardComponents forwardComponents(const ModelSpec& m, int64_t seqLen)
{
    if (m.isBare())
        return {};
    if (seqLen <= 0)
        throw InputError("sequence length must be greater than zero (got " + std::to_string(seqLen) + ")");
    const AttentionDocument whole { double(seqLen), 1.0 };
    return forwardComponents(m, std::span<const AttentionDocument>(&whole, 1));
}

ForwardComponents layerRunForward(const ModelSpec& m, const LayerRun& run, std::span<const AttentionDocument> documents)
{
    ForwardComponents f;
    if (m.isBare())
        return f;
    for (const auto& d : documents)
        if (!(d.length > 0))
            throw InputError("sequence length must be greater than zero (got " + std::to_string(d.length) + ")");
    // Every matmul of (1 x in) by (in x out) costs 2 x in x out FLOP per token. Biases, norms, softmax and
    // elementwise work are left out, as every published formula does: they are not tensor-core FLOPs.
    const double h = double(m.hidden);
    const double H = double(m.heads);
    // Keys a query sees on average: the sequence length, or sum(d^2)/sum(d) over packed documents.
    double S = 0;
    for (const auto& d : documents)
        S += d.tokenShare * d.length;

    // Q/K/V (and output-gate) projections of one softmax-attention layer of this run's shape.
    const LayerAttention shape = m.attentionOf(run.kind);
    const double qk = double(shape.qkHeadDim);
    const double v = double(shape.vHeadDim);
    double qkvPerLayer = 0;
    double outputPerLayer = 2.0 * H * v * h;
    if (m.compressedAttention.enabled()) {
        const MixerForwardFlops p
            = compressedAttentionProjectionFlops(m.compressedAttention, m.hidden, m.heads, m.headDim);
        qkvPerLayer = p.inputProjection;
        outputPerLayer = p.outputProjection;
    } else if (m.mla.enabled) {
        const auto& l = m.mla;
        const double q = l.qLoraRank > 0 ? h * double(l.qLoraRank) + double(l.qLoraRank) * H * qk : h * H * qk;
        const double kv = h * double(l.kvLoraRank + l.qkRopeHeadDim)
            + double(l.kvLoraRank) * H * double(l.qkNopeHeadDim + l.vHeadDim);
        qkvPerLayer = 2.0 * (q + kv);
    } else {
        qkvPerLayer = 2.0 * h * (H * qk + double(shape.kvHeads) * (qk + (shape.keyIsValue ? 0.0 : v)));
    }
    // The output gate: out of q_proj beside the query (Qwen3.5), or under MLA its own projection to every output
    // channel.
    if (m.attentionOutputGate)
        qkvPerLayer += 2.0 * h * H * (m.mla.enabled ? v : qk);
    // Hyper-connections: each sublayer's mixing weights come from a Linear(n x hidden, (2 + n) x n) per token.
    const double hyperConnectionPerSublayer = m.hyperConnections > 0
        ? 2.0 * double(m.hyperConnections) * h * double((2 + m.hyperConnections) * m.hyperConnections)
        : 0.0;

    // The attention core over the keys each query sees (min(S, window) on sliding-window layers) and the channel
    // mixer's width.
    const auto& e = m.moe;
    const double sharedDim = double(e.sharedExpertFfnDim > 0 ? e.sharedExpertFfnDim : e.expertFfnDim);
    // Forward FLOP of one MoE layer's channel mixer: top-k routed experts (at the latent width under latent MoE, plus
    // the two latent projections) and the shared experts at the hidden size.
    const double routedIn = e.latentDim > 0 ? double(e.latentDim) : h;
    const double moeFlops = 2.0 * ffnMatrices(m)
            * (routedIn * double(e.expertsPerToken) * double(e.expertFfnDim) + h * double(e.sharedExperts) * sharedDim)
        + (e.latentDim > 0 ? 2.0 * 2.0 * h * double(e.latentDim) : 0.0);
    const double n = double(run.count);
    switch (run.kind.tokenMixer) {
    case TokenMixer::FullAttention:
    case TokenMixer::SlidingWindowAttention:
    case TokenMixer::ChunkedAttention:
        f.qkvProjection += n * qkvPerLayer;
        f.outputProjection += n * outputPerLayer;
        break;
    case TokenMixer::CompressedSparseAttention: {
        // The indexer scores every earlier compressed key (S/ratio; half of them causally); the attention then
        // runs over the window and the top-k compressed keys (the span below).
        const double ratio = double(m.compressedAttention.sparseRatio);
        const auto extra = [&](double keys) {
            return compressedSparseExtraFlops(m.compressedAttention, m.sparseIndexer, m.hidden, m.headDim, keys);
        };
        f.qkvProjection += n * (qkvPerLayer + extra(S / ratio).inputProjection);
        f.outputProjection += n * outputPerLayer;
        f.mixerCore += n * extra(S / ratio).core;
        f.mixerCoreCausal += n * extra(S / ratio / 2.0).core;
        break;
    }
    case TokenMixer::HeavilyCompressedAttention:
        f.qkvProjection += n * (qkvPerLayer + heavilyCompressedExtraFlops(m.hidden, m.headDim));
        f.outputProjection += n * outputPerLayer;
        break;
    case TokenMixer::SparseAttention: {
        // The indexer scores every earlier key; the attention then runs over its top-k (the span below).
        const auto ix
            = [&](double keys) { return sparseIndexerForwardFlops(m.sparseIndexer, m.hidden, m.mla.qLoraRank, keys); };
        f.qkvProjection += n * (qkvPerLayer + ix(S).inputProjection);
        f.outputProjection += n * outputPerLayer;
        f.mixerCore += n * ix(S).core;
        f.mixerCoreCausal += n * ix(S / 2.0).core;
        break;
    }
    case TokenMixer::LinearAttention:
    case TokenMixer::KimiDeltaAttention:
    case TokenMixer::Mamba2: {
        const MixerForwardFlops r = run.kind.tokenMixer == TokenMixer::LinearAttention
            ? gatedDeltaNetForwardFlops(m.linearAttention, m.hidden)
            : run.kind.tokenMixer == TokenMixer::KimiDeltaAttention
            ? kimiDeltaAttentionForwardFlops(m.kimiDeltaAttention, m.hidden)
            : mamba2ForwardFlops(m.mamba, m.hidden);
        f.qkvProjection += n * r.inputProjection;
        f.outputProjection += n * r.outputProjection;
        f.mixerCore += n * r.core; // the same with or without the causal mask: a recurrence is causal
        f.mixerCoreCausal += n * r.core;
        break;
    }
    case TokenMixer::LinearProjection: // one h x h matmul, counted with the output projections
        f.outputProjection += n * 2.0 * h * h;
        break;
    case TokenMixer::None:
        break;
    }
    // Each document's span, weighted by its share of the tokens (one document: the sequence).
    double span = 0, causalSpan = 0;
    for (const auto& d : documents) {
        span += d.tokenShare * attentionKeys(m, run.kind.tokenMixer, d.length);
        causalSpan += d.tokenShare * attentionKeysCausal(m, run.kind.tokenMixer, d.length);
    }
    if (run.kind.tokenMixer != TokenMixer::None)
        f.qkvProjection += n * hyperConnectionPerSublayer;
    if (run.kind.channelMixer != ChannelMixer::None)
        f.ffn += n * hyperConnectionPerSublayer;
    f.attentionScores += n * 2.0 * span * H * qk;
    f.attentionValues += n * 2.0 * span * H * v;
    f.attentionCoreCausal += n * 2.0 * causalSpan * H * (qk + v);
    switch (run.kind.channelMixer) {
    case ChannelMixer::DenseMlp:
        f.ffn += n * 2.0 * ffnMatrices(m) * h * double(run.kind.ffnDim > 0 ? run.kind.ffnDim : m.ffnDim);
        break;
    case ChannelMixer::Moe:
        f.ffn += n * moeFlops;
        f.router += n * 2.0 * h * (double(e.experts) + (e.sharedExpertGate && e.sharedExperts > 0 ? 1.0 : 0.0));
        break;
    case ChannelMixer::LinearProjection:
        f.ffn += n * 2.0 * h * h;
        break;
    case ChannelMixer::None:
        break;
    }
    return f;
}

ForwardComponents forwardComponents(const ModelSpec& m, std::span<const AttentionDocument> documents)
{
    ForwardComponents f;
    if (m.isBare())
        return f;
    forEachLayerRun(m, [&](const LayerRun& run) {
        const ForwardComponents r = layerRunForward(m, run, documents);
        f.qkvProjection += r.qkvProjection;
        f.attentionScores += r.attentionScores;
        f.attentionValues += r.attentionValues;
        f.attentionCoreCausal += r.attentionCoreCausal;
        f.outputProjection += r.outputProjection;
        f.ffn += r.ffn;
        f.router += r.router;
        f.mixerCore += r.mixerCore;
        f.mixerCoreCausal += r.mixerCoreCausal;
    });
    // The LM head runs whether or not its weights are tied to the embedding.
    f.lmHead = 2.0 * double(m.hidden) * double(m.vocab);
    if (m.hyperConnections > 0) // the head's reduction of the streams: Linear(n x hidden, n)
        f.lmHead += 2.0 * double(m.hyperConnections) * double(m.hidden) * double(m.hyperConnections);
    return f;
}

FlopsPerToken countFlopsPerToken(const ModelSpec& m, int64_t seqLen)
{
    return countFlopsPerToken(m, seqLen, SequencePacking {});
}

FlopsPerToken countFlopsPerToken(const ModelSpec& m, int64_t seqLen, const SequencePacking& packing)
{
    FlopsPerToken out;
    const ParameterCounts p = countParameters(m);
    out.sixN = 6.0 * double(p.active);
    out.effectiveAttentionLength = double(seqLen);
    if (m.isBare())
        return out;
    if (seqLen <= 0)
        throw InputError("sequence length must be greater than zero (got " + std::to_string(seqLen) + ")");
    validatePacking(packing, seqLen);
    // Unpacked (the common case, and the cost model's inner loop): one document, no allocation.
    const AttentionDocument whole { double(seqLen), 1.0 };
    std::vector<AttentionDocument> packed;
    std::span<const AttentionDocument> documents(&whole, 1);
    if (packing.packed() && packing.attention == PackedAttention::PerDocument) {
        packed = attentionDocuments(packing, seqLen);
        documents = packed;
    }
    out.effectiveAttentionLength = 0;
    for (const auto& d : documents)
        out.effectiveAttentionLength += d.tokenShare * d.length;
    out.forward = forwardComponents(m, documents);
    // PaLM appendix B: 6N + 12 L H Q T with N non-embedding; generalised to 6 L H S (Q_qk + Q_v) for MLA.
    const auto palmAt = [&](double S) {
        return 6.0 * double(p.activeNonEmbedding)
            + 6.0 * double(m.layers) * double(m.heads) * S * double(m.qkHeadDim() + m.vHeadDim());
    };
    out.palm = palmAt(out.effectiveAttentionLength);
    if (out.effectiveAttentionLength != double(seqLen))
        out.palmOverPackingLength = palmAt(double(seqLen));
    // PaLM layer by layer: its 6N, then 3 x each layer's forward attention core over the keys it attends (the full
    // square's 2 H Q_qk keys + 2 H Q_v keys, i.e. 12 H Q keys for training when Q_qk = Q_v), and the forward work of
    // the mixers that do not attend (recurrences, the indexer). Every full-attention layer gives PaLM's term exactly.
    out.perLayer = 6.0 * double(p.activeNonEmbedding) + 3.0 * (out.forward.attentionCore() + out.forward.mixerCore);
    out.perComponent = 3.0 * out.forward.total();
    out.perComponentCausal = 3.0
        * (out.forward.total() - out.forward.attentionCore() + out.forward.attentionCoreCausal - out.forward.mixerCore
            + out.forward.mixerCoreCausal);
    return out;
}

std::string_view activationCheckpointingKey(ActivationCheckpointing ac)
{
    switch (ac) {
    case ActivationCheckpointing::None:
        return "none";
    case ActivationCheckpointing::Selective:
        return "selective";
    case ActivationCheckpointing::Full:
        return "full";
    }
    return {};
}

std::optional<ActivationCheckpointing> activationCheckpointingFromKey(std::string_view key)
{
    const std::string k = asciiLowered(key);
    if (k == "none" || k == "off")
        return ActivationCheckpointing::None;
    if (k == "selective" || k == "sac" || k == "op")
        return ActivationCheckpointing::Selective;
    if (k == "full" || k == "fac")
        return ActivationCheckpointing::Full;
    return std::nullopt;
}

double recomputeFlopsPerToken(const ModelSpec& m, int64_t seqLen, ActivationCheckpointing ac, FlopFormula formula,
    double selectiveRecomputedMatmulFraction)
{
    return recomputeFlopsPerToken(m, seqLen, SequencePacking {}, ac, formula, selectiveRecomputedMatmulFraction);
}

double recomputeFlopsPerToken(const ModelSpec& m, int64_t seqLen, const SequencePacking& packing,
    ActivationCheckpointing ac, FlopFormula formula, double selectiveRecomputedMatmulFraction)
{
    if (ac == ActivationCheckpointing::None)
        return 0.0;
    const FlopsPerToken f = countFlopsPerToken(m, seqLen, packing);
    const double training = f.get(formula).value_or(f.sixN);
    if (ac == ActivationCheckpointing::Full)
        return training / 3.0; // one more forward pass
    if (!(selectiveRecomputedMatmulFraction >= 0.0 && selectiveRecomputedMatmulFraction <= 1.0))
        throw InputError("selective checkpointing: the recomputed matmul fraction must lie in [0, 1]");
    // Selective (op-level SAC): a share of the forward linear matmuls is executed again; the attention core is saved.
    // A bare parameter count has no breakdown: all of its 6N is linear matmuls, so its forward is 2N.
    const double linearForward = m.isBare()
        ? f.sixN / 3.0
        : f.forward.qkvProjection + f.forward.outputProjection + f.forward.ffn + f.forward.router;
    return selectiveRecomputedMatmulFraction * linearForward;
}

} // namespace mfu
