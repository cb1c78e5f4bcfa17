#include "core/costmodel/offload_terms.h"

#include <algorithm>

#include "core/costmodel/memory_bound_terms.h"

namespace mfu {

double hostLinkBytesPerSec(const StepContext& x)
{
    const double stated = x.scenario->cluster.hardware.hostLinkBytesPerSec;
    return (stated > 0 ? stated : kDefaultHostLinkBytesPerSec) * x.constants->hostLinkEfficiency;
}

CommTime activationOffloadComm(
    const StepContext& x, double offloadedBytes, double forwardSeconds, double backwardSeconds)
{
    if (!(offloadedBytes > 0))
        return {};
    const double oneWay = offloadedBytes / hostLinkBytesPerSec(x);
    const double share = x.constants->hostOffloadExposedFraction;
    // The link is full duplex, and each direction's copies run beside the whole micro-batch: a layer's copy out may
    // finish while later layers compute or backward begins (its memory is freed when it lands), and the copies back
    // are prefetched ahead of the layers that need them; under 1F1B another micro-batch's forward and backward run
    // beside both.
    const double exposedOneWay = exposedAfterOverlap(oneWay, forwardSeconds + backwardSeconds, share);
    return { 2.0 * oneWay, 2.0 * exposedOneWay };
}

OptimizerOffload optimizerOffload(const StepContext& x, double gpuOptimizerSeconds)
{
    const double fraction = std::clamp(x.scenario->flags.optimizerOffloadFraction, 0.0, 1.0);
    OptimizerOffload o;
    o.gpuSeconds = (1.0 - fraction) * gpuOptimizerSeconds;
    if (!(fraction > 0))
        return o;
    const CostModelConstants& c = *x.constants;
    const double params = fraction * optimizerShardParams(x);
    // FP32 main gradients down, FP32 master weights back (Megatron-Core copies the updated FP32 shard to the GPU,
    // where it is cast to the BF16 model weights): 4 bytes each way per parameter, one direction after the other.
    const double link = 2.0 * params * 4.0 / hostLinkBytesPerSec(x);
    const double cpu
        = c.cpuOptimizerBytesPerSec > 0 ? params * c.optimizerBytesPerParamFused / c.cpuOptimizerBytesPerSec : 0.0;
    o.hostSeconds = link + cpu;
    return o;
}

} // namespace mfu
