#include "core/costmodel/offload_terms.h"

#include <algorithm>

#include "core/costmodel/memory_bound_terms.h"

namespace mfu {

double hostLinkBytesPerSec(const StepContext& x)
{
    const double stated = x.scenario->cluster.hardware.hostLinkBytesPerSec;
    return (stated > 0 ? stated : kDefaultHostLinkBytesPerSec) * x.constants->hostLinkEfficiency;
}

HostOffloadComm activationOffloadComm(
    const StepContext& x, double offloadedBytes, double forwardSeconds, double backwardSeconds)
{
    if (!(offloadedBytes > 0))
        return {};
    const double oneWay = offloadedBytes / hostLinkBytesPerSec(x);
    const double share = x.constants->hostOffloadExposedFraction;
    // Only a double buffer stays on the GPU (step_memory), so a micro-batch's copies out run under its own forward
    // and its copies back under its own backward: two windows, one after the other, and neither direction can use
    // the other's. Charging each direction against the whole micro-batch had let the step run faster than the link
    // (Llama 3.1 8B on 64 B200 at 32k, everything offloaded: 2.72 s against 2.90 s of copies at the full link) and
    // made less compute a slower step.
    HostOffloadComm c;
    c.total = 2.0 * oneWay;
    if (x.scenario->parallelism.pp <= 1) {
        c.forwardExposed = exposedAfterOverlap(oneWay, forwardSeconds, share);
        c.exposed = c.forwardExposed + exposedAfterOverlap(oneWay, backwardSeconds, share);
        return c;
    }
    // Under 1F1B one micro-batch's forward runs beside another's backward: both directions copy at once on the
    // full-duplex link, under the same forward and backward, so the slower of them (the same bytes) sets the wait
    // beyond that window, and each waits at its layer boundaries.
    const double window = forwardSeconds + backwardSeconds;
    c.exposed = std::max(0.0, oneWay - window) + 2.0 * share * std::min(oneWay, window);
    c.forwardExposed = c.exposed / 2.0;
    return c;
}

double fsdpHostShardShare(const Scenario& s)
{
    if (s.parallelism.dataParallel != DataParallelKind::Fsdp)
        return 0.0;
    return std::clamp(s.flags.optimizerOffloadFraction, 0.0, 1.0);
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
    // Under torch FSDP the shards already live on the host: FSDP's own gathers and reduce-scatters copy them.
    const double link = fsdpHostShardShare(*x.scenario) > 0 ? 0.0 : 2.0 * params * 4.0 / hostLinkBytesPerSec(x);
    const double cpu
        = c.cpuOptimizerBytesPerSec > 0 ? params * c.optimizerBytesPerParamFused / c.cpuOptimizerBytesPerSec : 0.0;
    o.hostSeconds = link + cpu;
    return o;
}

} // namespace mfu
