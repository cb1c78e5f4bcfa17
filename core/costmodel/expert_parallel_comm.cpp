#include "core/costmodel/expert_parallel_comm.h"

#include <algorithm>
#include <cmath>

#include "core/costmodel/cost_model.h"

namespace mfu {

namespace {

// Distinct bins k uniform picks among n bins land in, on average: n (1 - (1 - 1/n)^k).
double distinctOf(double k, double n)
{
    return n <= 1 ? 1.0 : n * (1.0 - std::pow(1.0 - 1.0 / n, k));
}

bool deepEpLike(ExpertDispatcher d)
{
    return d == ExpertDispatcher::DeepEp || d == ExpertDispatcher::HybridEp;
}

// Checkpointing that repeats the MoE layer's forward repeats its dispatch and combine: the share of the stage's
// layers it repeats.
double moeForwardRepeated(const StepContext& x)
{
    const Scenario& s = *x.scenario;
    if (s.activationCheckpointing == ActivationCheckpointing::Selective && (s.flags.recomputeModules & RecomputeMoe))
        return 1.0;
    return x.fullRecomputeShare;
}

CommGroup expertParallelGroup(const StepContext& x)
{
    return { x.scenario->parallelism.ep, x.expertGroupStride };
}

} // namespace

Link expertParallelLink(const StepContext& x)
{
    return linkOf(expertParallelGroup(x), x.tiers);
}

DispatchBytes dispatchBytes(const StepContext& x, double bytesPerElement)
{
    const ModelShape& sh = *x.shape;
    const Parallelism& par = x.scenario->parallelism;
    DispatchBytes b;
    const int n = par.ep;
    if (n <= 1)
        return b;
    // The busiest rank's tokens, for the dispatchers that route: an all-gather sends every token whatever the router
    // chose, before any padding to capacity (Megatron-Core's MoEAllGatherTokenDispatcher gathers the hidden states).
    const bool routed = par.expertDispatcher != ExpertDispatcher::AllGather;
    const double tokens = x.moeTokensPerMicroBatch * (routed ? x.expertLoad : 1.0);
    const double vector = sh.expertDispatchWidth * bytesPerElement;
    const double k = sh.expertsPerToken;
    // Members of the EP group per scale-up domain, and the domains it spans.
    const CommGroup g = expertParallelGroup(x);
    const int local = g.crossesDomain(x.tiers.domainGpus) ? g.membersPerDomain(x.tiers.domainGpus) : n;
    const double domains = std::ceil(static_cast<double>(n) / local);
    const double localShare = static_cast<double>(local - 1) / static_cast<double>(n - 1);
    switch (par.expertDispatcher) {
    case ExpertDispatcher::AllToAll: {
        // One copy per routed expert; the copies for experts on this GPU stay.
        const double sent = tokens * k * vector * (n - 1.0) / n;
        b.scaleUp = sent * localShare;
        b.scaleOut = sent * (1.0 - localShare);
        return b;
    }
    case ExpertDispatcher::AllGather: {
        // Every GPU gathers the group's tokens: it sends its own to the n - 1 others.
        const double sent = tokens * vector * (n - 1.0);
        b.scaleUp = sent * localShare;
        b.scaleOut = sent * (1.0 - localShare);
        return b;
    }
    case ExpertDispatcher::DeepEp:
    case ExpertDispatcher::HybridEp: {
        // One copy per destination GPU (not per expert); across domains one copy per destination domain over RDMA,
        // at most the node limit, forwarded over NVLink inside it.
        const double gpus = distinctOf(k, n);
        b.scaleUp = tokens * vector * gpus * (n - 1.0) / n;
        if (domains > 1) {
            double reached = distinctOf(k, domains);
            if (par.expertNodeLimit > 0)
                reached = std::min(reached, static_cast<double>(par.expertNodeLimit));
            // The copies forwarded inside the destination domains are among the NVLink bytes above.
            b.scaleOut = tokens * vector * reached * (domains - 1.0) / domains;
        }
        return b;
    }
    }
    return b;
}

double dispatchSeconds(const StepContext& x, double bytesPerElement)
{
    const CostModelConstants& c = *x.constants;
    const HardwareSpec& hw = x.scenario->cluster.hardware;
    const DispatchBytes b = dispatchBytes(x, bytesPerElement);
    const ExpertDispatcher dispatcher = x.scenario->parallelism.expertDispatcher;
    const bool deepEp = deepEpLike(dispatcher);
    const double link = std::max(hw.scaleUpBandwidthBytesPerSec, 1.0);
    // NCCL's channel cap is all-to-all's; the all-gather dispatcher's rings run at the link's rate.
    const double up = deepEp ? link * c.deepEpScaleUpEfficiency
        : dispatcher == ExpertDispatcher::AllGather
        ? link * c.allToAllScaleUpEfficiency
        : std::min(link * c.allToAllScaleUpEfficiency, c.allToAllMaxBytesPerSec);
    const double out = std::max(hw.scaleOutBandwidthBytesPerSec, 1.0)
        * (deepEp ? c.deepEpScaleOutEfficiency : c.allToAllScaleOutEfficiency);
    // NVLink and the NIC move their shares at once.
    return x.tiers.trafficScale * (std::max(b.scaleUp / up, b.scaleOut / out) + c.expertDispatchLatencySeconds);
}

CommTime expertParallelComm(const StepContext& x, double computeSeconds)
{
    const Parallelism& par = x.scenario->parallelism;
    const ModelShape& sh = *x.shape;
    const CostModelConstants& c = *x.constants;
    CommTime t;
    if (par.ep <= 1)
        return t;
    const double moeLayers = x.layersPerStage * sh.moeLayerShare;
    // Four transfers a layer: the dispatch and the combine forward, and backward the combine's gradient (sent to the
    // experts, as a dispatch) and the dispatch's (sent back, as a combine); the forward's again under recompute.
    // DeepSeek-V3 (section 3.3.2) quantises what goes to the experts in BF16+FP8 runs, the activations forward and
    // the gradients entering the down-projections backward, and keeps both combines in BF16; DeepEP's dispatch takes
    // FP8, and HybridEP is taken to match, whatever the GEMMs' recipe (whether Megatron-Core's flex dispatcher sends
    // MXFP8 runs' tokens in FP8 no source says; its six MXFP8 rows read 1-3 points further off in BF16). NCCL's
    // all-to-all and all-gather dispatchers (Megatron-Core's, TorchTitan's) move the BF16 hidden states: the grouped
    // GEMMs quantise after them.
    const double toExperts = x.fp8 && deepEpLike(par.expertDispatcher) ? 1.0 : 2.0;
    const double repeated = moeForwardRepeated(x);
    double perLayer = (2.0 + repeated) * (dispatchSeconds(x, toExperts) + dispatchSeconds(x, 2.0));
    // Expert TP: the received tokens all-gathered over the expert-TP group before the experts, their outputs
    // reduce-scattered after (and the reverse backward).
    if (x.expertTp > 1) {
        const CommGroup g { static_cast<int>(x.expertTp), 1 };
        const double buffer
            = x.expertTp * x.moeTokensPerMicroBatch * x.expertLoad * sh.expertsPerToken * sh.expertDispatchWidth * 2.0;
        const double pair = collectiveSeconds(Collective::AllGather, buffer, g, x.tiers)
            + collectiveSeconds(Collective::ReduceScatter, buffer, g, x.tiers);
        perLayer += (2.0 + repeated) * pair;
    }
    t.total = moeLayers * perLayer;
    switch (par.expertOverlap) {
    case ExpertOverlap::None:
        t.exposed = t.total * c.expertAllToAllExposedFraction;
        break;
    case ExpertOverlap::OneFOneB:
        t.exposed = exposedAfterOverlap(t.total, computeSeconds, c.expertOneFOneBExposedFraction);
        break;
    case ExpertOverlap::DualPipe:
        t.exposed = exposedAfterOverlap(t.total, computeSeconds, c.expertOverlapExposedFraction);
        break;
    }
    return t;
}

} // namespace mfu
