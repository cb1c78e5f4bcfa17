#include "core/costmodel/pipeline_terms.h"

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
    double bubble = (x.pp - 1.0) / x.virtualStages * microBatchSeconds;
    if (par.schedule == PipelineSchedule::ZeroBubble)
        bubble *= x.constants->zeroBubbleResidual;
    return bubble;
}

} // namespace mfu
