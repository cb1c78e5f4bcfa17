#include "core/costmodel/model_parallel_comm.h"

#include <algorithm>

#include "core/costmodel/cost_model.h"

namespace mfu {

namespace {
CommGroup tensorParallelGroup(const StepContext& x)
{
    return { x.scenario->parallelism.tp, 1 };
}
CommGroup contextParallelGroup(const StepContext& x)
{
    return { x.scenario->parallelism.cp, x.scenario->parallelism.tp };
}
// Checkpointing that repeats the attention core's forward repeats its KV exchange (Transformer Engine's context-
// parallel attention and PyTorch's ring attention run inside the checkpointed region): the share of the stage's
// layers it repeats.
double attentionForwardRepeated(const StepContext& x)
{
    const Scenario& s = *x.scenario;
    if (s.activationCheckpointing == ActivationCheckpointing::Selective
        && (s.flags.recomputeModules & RecomputeCoreAttention))
        return 1.0;
    return x.fullRecomputeShare;
}
} // namespace

Link tensorParallelLink(const StepContext& x)
{
    return linkOf(tensorParallelGroup(x), x.tiers);
}

Link contextParallelLink(const StepContext& x)
{
    return linkOf(contextParallelGroup(x), x.tiers);
}

double tensorParallelForwardShare(const StepContext& x)
{
    return 1.0 / (2.0 + x.fullRecomputeShare);
}

CommTime tensorParallelComm(const StepContext& x, double matmulSeconds, double trafficShare)
{
    const Scenario& s = *x.scenario;
    CommTime t;
    if (s.parallelism.tp <= 1)
        return t;
    const CommGroup g = tensorParallelGroup(x);
    const double buffer = x.tokensPerMicroBatch * x.shape->layer.hidden * 2.0;
    const double pair = collectiveSeconds(Collective::AllGather, buffer, g, x.tiers)
        + collectiveSeconds(Collective::ReduceScatter, buffer, g, x.tiers);
    // One all-gather and one reduce-scatter around each sublayer (sequence parallelism), forward, backward and
    // recompute.
    const double passes = 2.0 + x.fullRecomputeShare;
    t.total = trafficShare * x.layersPerStage * x.shape->layer.sublayersPerLayer * pair * passes;
    if (!(s.parallelism.asyncTp && x.sequenceParallel)) {
        t.exposed = t.total;
        return t;
    }
    const bool userbuffers = s.parallelism.tpOverlap == TpOverlap::Userbuffers;
    t.exposed = exposedAfterOverlap(t.total, matmulSeconds,
        userbuffers ? x.constants->tpCommOverlapExposedFraction : x.constants->asyncTpExposedFraction);
    return t;
}

CommTime contextParallelComm(const StepContext& x, double attentionSeconds, double trafficShare)
{
    const Scenario& s = *x.scenario;
    CommTime t;
    if (s.parallelism.cp <= 1)
        return t;
    const LayerShape& l = x.shape->layer;
    const CommGroup g = contextParallelGroup(x);
    const double kvBuffer
        = x.cp * x.tokensPerMicroBatch * (l.kvHeads * (l.qkHeadDim + l.vHeadDim)) / std::min(x.tp, l.kvHeads) * 2.0;
    const bool ring = s.parallelism.cpComm == ContextParallelComm::P2p;
    // Transformer Engine's P2P ring is one ring of send/receive pairs, each step waiting for all of its hops: where it
    // crosses a domain, one GPU's NIC carries that hop, however many of the ring's members share a domain (NCCL's
    // all-gather runs a ring per NIC instead).
    LinkTiers tiers = x.tiers;
    if (ring)
        tiers.crossDomainRings = 1;
    const double one = collectiveSeconds(Collective::AllGather, kvBuffer, g, tiers);
    // Forward the keys and values go round (or are gathered), backward again with their gradients coming back.
    const double passes = 3.0 + attentionForwardRepeated(x);
    t.total = trafficShare * x.layersPerStage * x.shape->layer.keyValueLayerShare * (passes * one);
    t.exposed = exposedAfterOverlap(t.total, attentionSeconds,
        ring ? x.constants->contextParallelRingExposedFraction : x.constants->contextParallelExposedFraction);
    return t;
}

} // namespace mfu
