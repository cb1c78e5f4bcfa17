#include "core/costmodel/compute_terms.h"

#include <algorithm>
#include <cmath>

#include "core/costmodel/cost_model.h"
#include "core/model/vision_encoder.h"

namespace mfu {

double gemmShapeFactor(double d, const CostModelConstants& c)
{
    return d / (d + c.gemmHalfSaturationDim);
}

double fp8RecipeGemmRatio(Fp8Recipe recipe, const CostModelConstants& c)
{
    switch (recipe) {
    case Fp8Recipe::Tensorwise:
        return 1.0;
    case Fp8Recipe::Blockwise:
        return c.fp8BlockwiseGemmRatio;
    case Fp8Recipe::Mxfp8:
        return c.fp8MxGemmRatio;
    case Fp8Recipe::Rowwise:
    case Fp8Recipe::RowwiseWithGwHp:
        return c.fp8RowwiseGemmRatio;
    }
    return 1.0;
}

double fp8Bf16GemmShare(Fp8Recipe recipe)
{
    // Each linear layer runs three GEMMs of equal FLOPs (forward, input gradient, weight gradient).
    return recipe == Fp8Recipe::RowwiseWithGwHp ? 1.0 / 3.0 : 0.0;
}

bool fp8RecipeGathersFp8(Fp8Recipe recipe)
{
    return recipe != Fp8Recipe::Rowwise && recipe != Fp8Recipe::RowwiseWithGwHp;
}

double denseLinearShare(const ModelShape& sh)
{
    const double dense = sh.totalParams - sh.expertParamsPerLayer * sh.layers;
    const double bf16 = sh.embeddingParams + sh.lmHeadParams;
    return dense > 0 ? std::clamp(1.0 - bf16 / dense, 0.0, 1.0) : 0.0;
}

double workingWeightBytes(const ModelShape& sh, const Scenario& s, bool experts)
{
    if (s.precision != TrainingPrecision::BF16_FP8 || !s.flags.fp8ParamGather)
        return 2.0;
    if (experts)
        return 1.0;
    return 2.0 - denseLinearShare(sh);
}

double cachedQuantizedWeightBytes(const ModelShape& sh, const Scenario& s, bool experts)
{
    const FrameworkFlags& f = s.flags;
    if (!f.quantizedWeightCache)
        return 0.0;
    // Both orientations (the forward's and the transpose the backward reads), the scales not counted: 1/32 of an
    // MXFP8 or MXFP4 element, 1/16 of an NVFP4 one, none per tensor.
    double bytes = 0.0;
    if (s.precision == TrainingPrecision::BF16_FP8 && !f.fp8ParamGather)
        bytes = 2.0 * 1.0;
    else if (s.precision == TrainingPrecision::BF16_FP4)
        bytes = 2.0 * 0.5 * (1.0 - std::clamp(f.fp4Bf16LayerShare, 0.0, 1.0));
    return experts ? bytes : bytes * denseLinearShare(sh);
}

double linearFormatRatio(NumberFormat format, Fp8Recipe recipe, const CostModelConstants& c)
{
    switch (format) {
    case NumberFormat::FP8:
        return c.fp8GemmEfficiencyRatio * fp8RecipeGemmRatio(recipe, c);
    case NumberFormat::FP4:
        return c.fp4GemmEfficiencyRatio;
    default:
        return 1.0;
    }
}

double linearGemmPeak(const StepContext& x)
{
    const CostModelConstants& c = *x.constants;
    const Fp8Recipe recipe = x.scenario->flags.fp8Recipe;
    if (x.fp4) {
        // The linear layers kept in BF16 take their share of the FLOPs at the BF16 peak, the rest at FP4's: the
        // rate the linear FLOPs see is the harmonic mean of the two.
        const double share = x.scenario->flags.fp4Bf16LayerShare;
        const double fp4 = x.peakFp4 * linearFormatRatio(NumberFormat::FP4, recipe, c);
        return c.gemmEfficiency / ((1.0 - share) / fp4 + share / x.peakBf16);
    }
    if (!x.fp8)
        return x.peakBf16 * c.gemmEfficiency;
    // A recipe that keeps the weight gradients' GEMMs in BF16: the harmonic mean of the two rates, as for FP4.
    const double bf16Share = fp8Bf16GemmShare(recipe);
    const double fp8 = x.peakFp8 * linearFormatRatio(NumberFormat::FP8, recipe, c);
    return c.gemmEfficiency / ((1.0 - bf16Share) / fp8 + bf16Share / x.peakBf16);
}

double linearShapeFactor(double d, const StepContext& x, double gemmPeak)
{
    const CostModelConstants& c = *x.constants;
    const double base = gemmShapeFactor(d, c);
    // The linear layers' speed-up over BF16 (1 in BF16 runs): the same per-tile prologue, epilogue and wave tail
    // take the same time while the MMAs run this much faster, so a narrow layer loses more.
    const double speedup = gemmPeak / (x.peakBf16 * c.gemmEfficiency);
    const double extra = c.fastFormatGemmHalfSaturationDim * std::max(0.0, speedup - 1.0);
    return extra > 0 && d > 0 ? base * d / (d + extra) : base;
}

double tokensPerExpert(const StepContext& x)
{
    const ModelShape& sh = *x.shape;
    if (!(sh.experts > 0))
        return 0;
    // A GPU routes its T / tp tokens k times; the EP group spreads them over its E experts, each of which the expert
    // TP ranks share, every one of them seeing all of the expert's tokens.
    return x.moeTokensPerMicroBatch * x.expertTp * sh.expertsPerToken * x.ep / sh.experts;
}

double groupedGemmShapeFactor(const StepContext& x)
{
    const CostModelConstants& c = *x.constants;
    const ModelShape& sh = *x.shape;
    const double width = std::min(sh.ffnWidth / x.expertTp, sh.expertDispatchWidth);
    const double m = tokensPerExpert(x);
    const double pflops = x.peakBf16 / 1e15; // the tensor cores' generation: FP8 halves the MMA time, not the rest
    return width / (width + c.groupedGemmHalfSaturationDimPerPflops * pflops) * groupedGemmTokenFactor(x, m);
}

double groupedGemmKernelFactor(const StepContext& x)
{
    return x.constants->groupedGemmKernelPlateauShare * groupedGemmTokenFactor(x, tokensPerExpert(x));
}

double groupedGemmRidgeTokens(const StepContext& x)
{
    const CostModelConstants& c = *x.constants;
    const double weightBytesPerSec = x.hbmBytesPerSec * c.groupedGemmWeightStreamShare;
    // An expert's GEMM does 2 m FLOPs per BF16 weight element (2 bytes) it reads: m FLOPs per byte. FP8 halves both
    // the bytes and the MMA time, so the ridge stays.
    return weightBytesPerSec > 0 ? x.peakBf16 * c.gemmEfficiency / weightBytesPerSec : 0.0;
}

double groupedGemmTokenFactor(const StepContext& x, double tokens)
{
    if (!(tokens > 0))
        return 0.0;
    // The smooth minimum of the compute roof (1) and the weight-streaming roof (tokens / ridge), the shape torch's
    // grouped GEMM traced on an H200 (docs/cost-model.md, "Grouped GEMMs").
    const double r = groupedGemmRidgeTokens(x) / tokens;
    return 1.0 / std::sqrt(1.0 + r * r);
}

double unfusedPermutationPerToken(const StepContext& x)
{
    const ModelShape& sh = *x.shape;
    if (!(sh.experts > 0) || !(x.tokensPerMicroBatch > 0) || !(x.hbmBytesPerSec > 0))
        return 0.0;
    const double routedElements = x.moeTokensPerMicroBatch / x.tokensPerMicroBatch * sh.moeLayerShare
        * sh.expertsPerToken * x.expertLoad * sh.expertDispatchWidth;
    return x.constants->unfusedPermutationBytesPerRoutedElement / 3.0 * routedElements / x.hbmBytesPerSec;
}

MatmulTime matmulTime(const StepContext& x, const ModelSpec& model)
{
    const CostModelConstants& c = *x.constants;
    const ModelShape& sh = *x.shape;
    const Scenario& s = *x.scenario;
    const double tp = x.tp, tokens = x.tokensPerMicroBatch, dModel = sh.layer.hidden;
    // Linear layers run on the FP8 peak in BF16+FP8 runs; the router and the LM head stay BF16.
    const double gemmPeak = linearGemmPeak(x);
    const double fQkv = linearShapeFactor(std::min({ tokens, sh.qkvOut / tp, dModel }), x, gemmPeak);
    const double fOut = linearShapeFactor(std::min({ tokens, dModel, sh.attnOut / tp }), x, gemmPeak);

    MatmulTime m;
    m.qkvShapeFactor = fQkv;
    if (sh.experts > 0) {
        // Shared experts and dense layers split by TP; the routed experts as grouped GEMMs at the busiest expert's
        // load.
        const double fDense = linearShapeFactor(std::min({ tokens, sh.denseFfnWidth / tp, dModel }), x, gemmPeak);
        const double routed = sh.routedFfnShare * sh.ffnFlops;
        const double dense = sh.ffnFlops - routed;
        // The width law's time for the routed experts, split: their GEMMs at the kernels' rate (never more than the
        // law's whole time), the rest their routing work.
        const double routedLaw = x.expertLoad * routed / groupedGemmShapeFactor(x) / (tp * gemmPeak);
        const double kernel = groupedGemmKernelFactor(x);
        const double routedGemms
            = kernel > 0 ? std::min(routedLaw, x.expertLoad * routed / kernel / (tp * gemmPeak)) : routedLaw;
        m.layerForwardPerToken
            = (sh.qkvFlops / fQkv + sh.outProjFlops / fOut + (dense > 0 ? dense / fDense : 0.0)) / (tp * gemmPeak)
            + routedGemms + sh.routerFlops / (x.peakBf16 * c.gemmEfficiency);
        const double denseMlpShare = sh.layer.ffnDim > 0 ? sh.layer.denseMlpFfnDim / sh.layer.ffnDim : 0.0;
        m.denseMlpPerToken = denseMlpShare > 0 ? denseMlpShare * sh.ffnFlops / fDense / (tp * gemmPeak) : 0.0;
        const double shared = dense - denseMlpShare * sh.ffnFlops;
        m.sharedExpertsPerToken = shared > 0 ? shared / fDense / (tp * gemmPeak) : 0.0;
        m.routedExpertsPerToken = routedGemms;
        // A fused permutation leaves the rest of the law's time: what the index kernels took beyond the bytes
        // (charged in the memory-bound moeShuffleBytes either way) is gone, never more than the whole.
        const double fused = s.flags.moePermuteFusion ? unfusedPermutationPerToken(x) : 0.0;
        m.moeRoutingPerToken = std::max(0.0, routedLaw - routedGemms - fused);
        m.moeRoutingForward = tokens * x.layersPerStage * m.moeRoutingPerToken;
    } else {
        const double fFfn = linearShapeFactor(std::min({ tokens, sh.ffnWidth / tp, dModel }), x, gemmPeak);
        m.layerForwardPerToken = (sh.qkvFlops / fQkv + sh.outProjFlops / fOut + sh.ffnFlops / fFfn) / (tp * gemmPeak)
            + sh.routerFlops / (x.peakBf16 * c.gemmEfficiency);
        m.denseMlpPerToken = sh.ffnFlops / fFfn / (tp * gemmPeak);
    }
    const double fHead = gemmShapeFactor(std::min({ tokens, sh.vocab / tp, dModel }), c);
    const double headForward = 2.0 * dModel * sh.vocab / tp / (x.peakBf16 * c.gemmEfficiency * fHead);
    // The LM head and loss run on the last stage, which sets the pace of the pipeline (critical path); each MTP layer
    // adds its projection and an LM head pass of its own.
    if (x.headPassesOnStage == 1.0 && x.mtpLayersOnStage == 0)
        m.forward = tokens * (x.layersPerStage * m.layerForwardPerToken + headForward);
    else
        m.forward = tokens
            * (x.layersPerStage * m.layerForwardPerToken + x.headPassesOnStage * headForward
                + x.mtpLayersOnStage * sh.mtpProjectionFlops / (tp * gemmPeak * fQkv));
    // A vision-language run's encoder (core/model/vision_encoder.h): its training FLOPs for the micro-batch's vision
    // tokens at the GEMM efficiency, replicated on each TP rank (encoders are small and trained data-parallel).
    // Unvalidated: no published run in the validation table has one.
    if (model.vision && s.workload.vision.tokensPerSequence > 0
        && s.workload.vision.tokensPerSequence <= s.workload.seqLen) {
        const double perToken = visionFlopsPerSequenceToken(*model.vision, s.workload.vision, s.workload.seqLen);
        m.visionTraining = tokens * perToken / (x.peakBf16 * c.gemmEfficiency);
        m.visionForward = s.workload.vision.encoderTrained ? m.visionTraining / 3.0 : m.visionTraining;
    }
    return m;
}

} // namespace mfu
