#include "core/costmodel/recompute_terms.h"

#include "core/costmodel/cost_model.h"

namespace mfu {

namespace {

// Megatron-Core's selective recompute of named modules: each repeats its own forward.
double moduleRecomputeTime(const StepContext& x, const MatmulTime& matmul, const AttentionTime& attention,
    const MemoryBoundTime& memoryBound, unsigned modules)
{
    const ModelShape& sh = *x.shape;
    const double tokenLayers = x.tokensPerMicroBatch * x.layersPerStage;
    double r = 0;
    if (modules & RecomputeCoreAttention)
        r += attention.forward;
    if (modules & RecomputeLayernorm) // two norms, each reading and writing a hidden vector in BF16
        r += tokenLayers * 8.0 * sh.layer.hidden / x.sequenceParallelSplit() / x.hbmBytesPerSec;
    if (modules & RecomputeMlp)
        r += tokenLayers * matmul.denseMlpPerToken;
    if (modules & RecomputeMoe)
        r += tokenLayers * (matmul.routedExpertsPerToken + matmul.moeRoutingPerToken + matmul.sharedExpertsPerToken)
            + memoryBound.moeShuffle() / 3.0;
    else {
        if (modules & RecomputeSharedExperts)
            r += tokenLayers * matmul.sharedExpertsPerToken;
        if (modules & RecomputeMoeActivation) // the activation reads gate and up, writes their product (BF16)
            r += tokenLayers * x.expertLoad * 3.0 * 2.0 * sh.layer.routedFfnDim / x.tp / x.hbmBytesPerSec;
    }
    return r;
}

} // namespace

double recomputeTime(
    const StepContext& x, const MatmulTime& matmul, const AttentionTime& attention, const MemoryBoundTime& memoryBound)
{
    const Scenario& s = *x.scenario;
    const unsigned modules = s.flags.recomputeModules;
    const bool byModule = s.activationCheckpointing == ActivationCheckpointing::Selective && modules != 0;
    // The layers' GEMMs and, in MoE layers, the routing work around the experts' (repeated with them).
    const double layerMatmuls
        = x.tokensPerMicroBatch * x.layersPerStage * (matmul.layerForwardPerToken + matmul.moeRoutingPerToken);
    double r = 0;
    if (s.activationCheckpointing == ActivationCheckpointing::Full) {
        r = layerMatmuls + attention.forward + memoryBound.elementwise() / 3.0
            + (s.workload.vision.encoderTrained ? matmul.visionForward : 0.0);
        if (x.fullRecomputeShare < 1.0) // Megatron's block method: only some layers of the stage
            r *= x.fullRecomputeShare;
    } else if (byModule)
        r = moduleRecomputeTime(x, matmul, attention, memoryBound, modules);
    else if (s.activationCheckpointing == ActivationCheckpointing::Selective)
        r = (1.0 - x.constants->selectiveKeptMatmulFraction) * layerMatmuls + memoryBound.elementwise() / 3.0;
    // Under full checkpointing the MoE layers' routing and permutation run again too.
    if (s.activationCheckpointing == ActivationCheckpointing::Full && memoryBound.moeShuffleBytes > 0)
        r += x.fullRecomputeShare * memoryBound.moeShuffle() / 3.0;
    // MLA keeps only the latents (activation_memory.h) and rebuilds the up-projections before backward; with
    // Megatron's modules named, only when mla_up_proj is one of them.
    const bool mlaUp = byModule ? (modules & RecomputeMlaUpProjection) != 0
                                : s.activationCheckpointing != ActivationCheckpointing::Full;
    if (mlaUp)
        r += x.tokensPerMicroBatch * x.layersPerStage * x.shape->latentUpProjFlops
            / (x.tp * linearGemmPeak(x) * matmul.qkvShapeFactor);
    return r;
}

} // namespace mfu
