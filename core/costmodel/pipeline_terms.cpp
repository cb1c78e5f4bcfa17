#include "core/costmodel/pipeline_terms.h"

#include <algorithm>

#include "core/costmodel/cost_model.h"

namespace mfu {

CommTime pipelineP2pComm(const StepContext& x)
{
    CommTime t;
    if (x.scenario->parallelism.pp <= 1)
        return t;
    const bool cross = x.gpus > x.domain;
    const double bandwidth = cross ? x.tiers.scaleOutBytesPerSec : x.tiers.scaleUpBytesPerSec;
    const double latency = cross ? x.tiers.scaleOutLatency : x.tiers.scaleUpLatency;
    const double bytes = x.tokensPerMicroBatch * x.shape->layer.hidden * 2.0 / (x.sequenceParallel ? x.tp : 1.0);
    t.total = 2.0 * x.virtualStages * (bytes / bandwidth + latency) * x.tiers.trafficScale;
    t.exposed = t.total * x.constants->pipelineP2pExposedFraction;
    return t;
}

double pipelineBubble(const StepContext& x, double microBatchSeconds)
{
    const Parallelism& par = x.scenario->parallelism;
    if (par.pp <= 1)
        return 0;
    // Narayanan et al. 2021: (p - 1) / v of a micro-batch's time with interleaving, for m >= p micro-batches. With
    // fewer, each of the v rounds through the stages waits for its first micro-batch to come back around the p
    // stages, and p - m chunk slots of every round but the last stand idle.
    const double idleRoundSlots = (x.virtualStages - 1.0) * std::max(0.0, x.pp - x.microBatches);
    double bubble = (x.pp - 1.0 + idleRoundSlots) / x.virtualStages * microBatchSeconds;
    if (par.schedule == PipelineSchedule::ZeroBubble)
        bubble *= x.constants->zeroBubbleResidual;
    return bubble;
}

} // namespace mfu
