#include "core/costmodel/attention_terms.h"

#include <algorithm>

#include "core/costmodel/compute_terms.h"
#include "core/costmodel/cost_model.h"

namespace mfu {

namespace {

bool perDocument(const SequencePacking& p)
{
    return p.packed() && p.attention == PackedAttention::PerDocument;
}

// A kernel call runs over one document (varlen), or the rank's chunk of it under context parallelism.
AttentionEfficiency efficiencyAt(const StepContext& x, double length)
{
    const AttentionKernel kernel = resolveAttentionKernel(x.scenario->flags.attentionKernel, x.family);
    return attentionEfficiency(
        *x.constants, kernel, x.family, x.shape->layer.qkHeadDim, std::min(length, x.seq / x.cp));
}

double length(const StepContext&, double d)
{
    return d;
}

double causalSpan(const StepContext& x, double d)
{
    return x.shape->causalAttentionSpan(d);
}

double spanOverForwardEfficiency(const StepContext& x, double d)
{
    return x.shape->causalAttentionSpan(d) / efficiencyAt(x, d).forward;
}

double spanOverBackwardEfficiency(const StepContext& x, double d)
{
    return x.shape->causalAttentionSpan(d) / efficiencyAt(x, d).backward;
}

} // namespace

double overDocuments(const StepContext& x, double (*f)(const StepContext&, double))
{
    const SequencePacking& packing = x.scenario->workload.packing;
    double docTokens = 0;
    const bool byDocument = perDocument(packing);
    if (byDocument)
        for (const DocumentLengthBin& b : packing.documents)
            docTokens += static_cast<double>(b.length) * b.count;
    if (!byDocument || !(docTokens > 0))
        return f(x, x.seq);
    double weighted = 0;
    for (const DocumentLengthBin& b : packing.documents)
        weighted += static_cast<double>(b.length) * b.count / docTokens * f(x, static_cast<double>(b.length));
    return weighted;
}

double contextParallelAttentionEfficiency(const StepContext& x)
{
    if (x.cp <= 1)
        return 1.0;
    const CostModelConstants& c = *x.constants;
    return x.scenario->parallelism.cpComm == ContextParallelComm::P2p ? c.contextParallelRingAttentionEfficiency
                                                                      : c.contextParallelAttentionEfficiency;
}

AttentionTime attentionTime(const StepContext& x)
{
    const CostModelConstants& c = *x.constants;
    const ModelShape& sh = *x.shape;
    const LayerShape& l = sh.layer;
    const double tp = x.tp, tokens = x.tokensPerMicroBatch, layers = x.layersPerStage;
    const double attentionLength = overDocuments(x, length); // sum(d^2)/sum(d)
    const double span = overDocuments(x, causalSpan);
    const double cpEff = contextParallelAttentionEfficiency(x);
    const AttentionEfficiency ae = efficiencyAt(x, attentionLength);
    AttentionTime a;
    a.unfused = ae.unfused;
    if (ae.unfused) {
        // Batched GEMMs over the head dimension on the full square, every score through HBM several times.
        const double forwardFlops = tokens * layers * 2.0 * span * (l.heads / tp) * (l.qkHeadDim + l.vHeadDim);
        const double bmmPeak = x.peakBf16 * c.gemmEfficiency * gemmShapeFactor(l.qkHeadDim, c) * cpEff;
        const double scores = tokens * layers * attentionLength * (l.heads / tp);
        const double bytesForward = scores * c.unfusedAttentionBytesPerScore / 3.0;
        a.forward = 2.0 * forwardFlops / bmmPeak + bytesForward / x.hbmBytesPerSec;
        a.backward = 4.0 * forwardFlops / bmmPeak + 2.0 * bytesForward / x.hbmBytesPerSec;
    } else {
        // Each document's attention at its own kernel efficiency: short documents sit further below the plateau.
        const double flopsPerSpan = tokens * layers * 2.0 * (l.heads / tp) * (l.qkHeadDim + l.vHeadDim);
        a.forward = flopsPerSpan * overDocuments(x, spanOverForwardEfficiency) / (x.peakBf16 * cpEff)
            / (x.scenario->flags.fp8Attention ? kFp8AttentionForwardSpeedup : 1.0);
        a.backward = 2.0 * flopsPerSpan * overDocuments(x, spanOverBackwardEfficiency) / (x.peakBf16 * cpEff);
    }
    // Other token mixers, split over TP heads like attention: recurrences, and the indexer scoring S/2 keys (causal).
    // A recurrence's chunked kernels take their matmuls' time or their HBM traffic's, whichever is longer; at
    // today's head and state sizes (27-31 FLOP per byte) the bytes bind on every GPU. The backward runs twice the
    // matmuls over its own kernels' bytes.
    const double scanMatmulSeconds
        = tokens * layers * sh.recurrentScanFlops / tp / (x.peakBf16 * c.recurrentMixerEfficiency);
    const auto scanBytesSeconds = [&](double bytes) { return tokens * layers * bytes / tp / x.hbmBytesPerSec; };
    const double scanForward = std::max(scanMatmulSeconds, scanBytesSeconds(sh.recurrentScanBytes));
    const double scanBackward = std::max(2.0 * scanMatmulSeconds, scanBytesSeconds(sh.recurrentScanBackwardBytes));
    const double indexerForwardFlops = tokens * layers * sh.indexerFlopsPerKey * attentionLength / 2.0 / tp;
    const double indexerForward = indexerForwardFlops / (x.peakBf16 * c.sparseIndexerEfficiency * cpEff);
    a.forward += scanForward + indexerForward;
    a.backward += scanBackward + 2.0 * indexerForward;
    return a;
}

} // namespace mfu
