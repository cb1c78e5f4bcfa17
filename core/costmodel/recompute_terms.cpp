#include "core/costmodel/recompute_terms.h"

#include "core/costmodel/cost_model.h"

namespace mfu {

double linearGemmPeak(const StepContext& x)
{
    const CostModelConstants& c = *x.constants;
    const double linearPeak = x.fp8 ? x.peakFp8 * c.fp8GemmEfficiencyRatio : x.peakBf16;
    return linearPeak * c.gemmEfficiency;
}

double recomputeTime(
    const StepContext& x, const MatmulTime& matmul, const AttentionTime& attention, const MemoryBoundTime& memoryBound)
{
    const Scenario& s = *x.scenario;
    const double layerMatmuls = x.tokensPerMicroBatch * x.layersPerStage * matmul.layerForwardPerToken;
    double r = 0;
    if (s.activationCheckpointing == ActivationCheckpointing::Full)
        r = layerMatmuls + attention.forward + memoryBound.elementwise() / 3.0
            + (s.workload.vision.encoderTrained ? matmul.visionForward : 0.0);
    else if (s.activationCheckpointing == ActivationCheckpointing::Selective)
        r = (1.0 - x.constants->selectiveKeptMatmulFraction) * x.tokensPerMicroBatch * x.layersPerStage
                * matmul.layerForwardPerToken
            + memoryBound.elementwise() / 3.0;
    // MLA keeps only the latents (activation_memory.h) and rebuilds the up-projections before backward.
    if (s.activationCheckpointing != ActivationCheckpointing::Full)
        r += x.tokensPerMicroBatch * x.layersPerStage * x.shape->latentUpProjFlops
            / (x.tp * linearGemmPeak(x) * matmul.qkvShapeFactor);
    return r;
}

} // namespace mfu
