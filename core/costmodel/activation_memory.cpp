#include "core/costmodel/activation_memory.h"

#include "core/scenario/scenario.h"

namespace mfu {

double activationBytesPerTokenLayer(const LayerShape& x, double seqLen, const ActivationLayout& layout)
{
    const double t = layout.tp > 1 ? static_cast<double>(layout.tp) : 1.0;
    const double h = x.hidden;
    const double q = x.heads * x.qkHeadDim;
    const double kv = x.kvHeads * (x.qkHeadDim + x.vHeadDim);
    const double o = x.heads * x.vHeadDim;
    const double f = x.ffnDim;
    // Attention's terms are kept by the layers that attend (all of them in a transformer), the recurrences' by theirs;
    // the FFN width is already an average over the layers.
    const double a = x.keyValueLayerShare;
    // Parts split by TP even without SP (they live in the column/row-parallel interior)...
    const double qkv = a * (x.latentQkvWidth > 0 ? 2.0 * x.latentQkvWidth : 2.0 * (q + kv));
    const double outProjInput = a * 2.0 * o;
    // With an output gate the out-projection reads the gated product; the attention's output and the gate stay too.
    const double outputGate = x.attentionOutputGate ? a * 4.0 * o : 0.0;
    const bool remat = layout.compiledRematerialisation;
    const bool eagerOps = layout.unfusedPointwise && !remat;
    const double ffnInterior
        = (x.gatedFfn ? 6.0 * f : 4.0 * f) - (remat ? 2.0 * f : 0.0) + (eagerOps && x.gatedFfn ? 2.0 * f : 0.0);
    // GEMM inputs cached in FP8 take half the bytes (the parts above, the norm outputs below).
    const double r = layout.linearInputBytes / 2.0;
    const double qkNorm = a * layout.qkNormSavedBytes * x.qkNormWidth;
    const double recurrent = x.recurrentSavedBytes;
    double scores = 0;
    if (x.flashAttention)
        scores = a * 4.0 * x.heads; // FP32 log-sum-exp per head
    else
        scores = a * (x.dropout ? 5.0 : 2.0) * x.heads * seqLen;
    // ...and parts that are whole on every TP rank unless SP splits them, per sublayer: its norm's input (the block's
    // or the residual stream's), its norm's output, and a dropout mask.
    const double perSublayer
        = 2.0 * h + (remat ? 0.0 : 2.0 * h * r) + (eagerOps ? 4.0 * h : 0.0) + (x.dropout ? h : 0.0);
    const double replicated = x.sublayersPerLayer * perSublayer;
    const double replicatedDiv = layout.sequenceParallel ? t : 1.0;

    switch (layout.recompute) {
    case ActivationRecompute::None:
        return replicated / replicatedDiv
            + (r * (qkv + outProjInput + ffnInterior) + scores + qkNorm + outputGate + recurrent) / t;
    case ActivationRecompute::AttentionCore:
        return replicated / replicatedDiv
            + (qkv + outProjInput + ffnInterior + (x.flashAttention ? scores : 0.0) + qkNorm + outputGate + recurrent)
            / t;
    case ActivationRecompute::OpLevel: {
        // Matmul outputs: Q, K, V, each sublayer's output projection (h), FFN up/gate (F each). A recurrence's
        // saved tensors grow from its in-projection's output: the policy keeps the same fraction of them.
        const double gate = x.attentionOutputGate ? a * 2.0 * o : 0.0; // q_proj's gate half
        const double matmulOutputs = qkv + gate + x.sublayersPerLayer * 2.0 * h + (x.gatedFfn ? 4.0 * f : 2.0 * f);
        const double attentionOut = outProjInput + (x.flashAttention ? scores : 0.0);
        return 2.0 * h / replicatedDiv + (attentionOut + layout.keptMatmulFraction * (matmulOutputs + recurrent)) / t;
    }
    case ActivationRecompute::Full:
        return 2.0 * h / replicatedDiv;
    case ActivationRecompute::Modules: {
        // Megatron's selective recompute drops what each named module rebuilds in backward.
        const unsigned m = layout.recomputeModules;
        const double routed = x.routedFfnDim, dense = x.denseMlpFfnDim, shared = f - routed - dense;
        const auto interior
            = [&](double width) { return (x.gatedFfn ? 6.0 : 4.0) * width - (remat ? 2.0 * width : 0.0); };
        double split = r * (qkv + outProjInput + ffnInterior) + scores + qkNorm + outputGate + recurrent;
        double whole = replicated;
        if ((m & RecomputeCoreAttention) && !x.flashAttention)
            split -= scores;
        if ((m & RecomputeLayernorm) && !remat)
            whole -= x.sublayersPerLayer * 2.0 * h * r; // the norm outputs (QKV and MLP inputs)
        if (m & RecomputeMlp)
            split -= r * interior(dense);
        if (m & RecomputeMoe)
            split -= r * (interior(routed) + interior(shared));
        else {
            if (m & RecomputeMoeActivation)
                split -= r * 2.0 * routed; // the SwiGLU / GELU output of the routed experts
            if (m & RecomputeSharedExperts)
                split -= r * interior(shared);
        }
        return whole / replicatedDiv + split / t;
    }
    }
    return 0.0;
}

ActivationRecompute activationRecomputeFor(ActivationCheckpointing ac, unsigned recomputeModules)
{
    if (ac == ActivationCheckpointing::Selective && recomputeModules != 0)
        return ActivationRecompute::Modules;
    return activationRecomputeFor(ac);
}

ActivationRecompute activationRecomputeFor(ActivationCheckpointing ac)
{
    switch (ac) {
    case ActivationCheckpointing::None:
        return ActivationRecompute::None;
    case ActivationCheckpointing::Selective:
        return ActivationRecompute::OpLevel;
    case ActivationCheckpointing::Full:
        return ActivationRecompute::Full;
    }
    return ActivationRecompute::None;
}

} // namespace mfu
