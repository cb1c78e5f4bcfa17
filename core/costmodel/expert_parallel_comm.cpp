#include "core/costmodel/expert_parallel_comm.h"

#include "core/costmodel/cost_model.h"

namespace mfu {

CommTime expertParallelComm(const StepContext& x, double computeSeconds)
{
    const Parallelism& par = x.scenario->parallelism;
    const ModelShape& sh = *x.shape;
    const CostModelConstants& c = *x.constants;
    CommTime t;
    if (par.ep <= 1)
        return t;
    const CommGroup g { par.ep, par.tp };
    // Dispatch forward in FP8 for BF16+FP8 runs (DeepSeek-V3 section 3.3.2), everything else in BF16; the busiest
    // rank receives the expert load times the mean (token dropping: the padded capacity); latent MoE moves
    // latent-wide vectors.
    const double buffer = x.tokensPerMicroBatch * sh.expertsPerToken * sh.expertDispatchWidth * x.expertLoad;
    const double bytesPerElement = (x.fp8 ? 1.0 : 2.0) + 2.0 + 2.0 + 2.0; // dispatch, combine, and their gradients
    t.total = x.layersPerStage * sh.moeLayerShare
        * collectiveSeconds(Collective::AllToAll, buffer * bytesPerElement, g, x.tiers);
    t.exposed = par.expertOverlap ? exposedAfterOverlap(t.total, computeSeconds, c.expertOverlapExposedFraction)
                                  : t.total * c.expertAllToAllExposedFraction;
    return t;
}

} // namespace mfu
