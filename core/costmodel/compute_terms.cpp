#include "core/costmodel/compute_terms.h"

#include <algorithm>

#include "core/costmodel/cost_model.h"
#include "core/model/vision_encoder.h"

namespace mfu {

double gemmShapeFactor(double d, const CostModelConstants& c)
{
    return d / (d + c.gemmHalfSaturationDim);
}

MatmulTime matmulTime(const StepContext& x, const ModelSpec& model)
{
    const CostModelConstants& c = *x.constants;
    const ModelShape& sh = *x.shape;
    const Scenario& s = *x.scenario;
    const double tp = x.tp, tokens = x.tokensPerMicroBatch, dModel = sh.layer.hidden;
    // Linear layers run on the FP8 peak in BF16+FP8 runs; the router and the LM head stay BF16.
    const double linearPeak = x.fp8 ? x.peakFp8 * c.fp8GemmEfficiencyRatio : x.peakBf16;
    const double gemmPeak = linearPeak * c.gemmEfficiency;
    const double fQkv = gemmShapeFactor(std::min({ tokens, sh.qkvOut / tp, dModel }), c);
    const double fOut = gemmShapeFactor(std::min({ tokens, dModel, sh.attnOut / tp }), c);
    double ffnTokens = tokens; // MoE: tokens each expert sees per micro-batch
    double ffnSplit = tp;
    if (sh.experts > 0) {
        ffnTokens = tokens * x.ep * sh.expertsPerToken / sh.experts;
        ffnSplit = x.expertTp;
    }
    const double fFfn = gemmShapeFactor(std::min({ ffnTokens, sh.ffnWidth / ffnSplit, dModel }), c);
    // MoE layers wait for their busiest expert: the routed share of the FFN runs at the expert load.
    const double ffnImbalance = sh.experts > 0 ? 1.0 + (x.expertLoad - 1.0) * sh.routedFfnShare : 1.0;

    MatmulTime m;
    m.qkvShapeFactor = fQkv;
    m.layerForwardPerToken
        = (sh.qkvFlops / fQkv + sh.outProjFlops / fOut + ffnImbalance * sh.ffnFlops / fFfn) / (tp * gemmPeak)
        + sh.routerFlops / (x.peakBf16 * c.gemmEfficiency);
    const double fHead = gemmShapeFactor(std::min({ tokens, sh.vocab / tp, dModel }), c);
    const double headForward = 2.0 * dModel * sh.vocab / tp / (x.peakBf16 * c.gemmEfficiency * fHead);
    // The LM head and loss run on the last stage, which sets the pace of the pipeline (critical path).
    m.forward = tokens * (x.layersPerStage * m.layerForwardPerToken + headForward);
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
