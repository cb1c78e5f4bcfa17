#include "core/costmodel/step_context.h"

#include <algorithm>
#include <cmath>

#include "core/costmodel/cost_model.h"
#include "core/scenario/scenario_facts.h"

namespace mfu {

LinkTiers linkTiersFor(const HardwareSpec& hw, int domain, const CostModelConstants& c)
{
    LinkTiers t;
    t.scaleUpBytesPerSec = std::max(hw.scaleUpBandwidthBytesPerSec, 1.0) * c.scaleUpEfficiency;
    t.scaleOutBytesPerSec = std::max(hw.scaleOutBandwidthBytesPerSec, 1.0) * c.scaleOutEfficiency;
    t.scaleUpLatency = c.scaleUpLatencySeconds;
    t.scaleOutLatency = c.scaleOutLatencySeconds;
    t.domainGpus = std::max(1, domain);
    t.crossDomainRings = std::max(1, c.crossDomainRings);
    return t;
}

StepContext stepContextFor(const Scenario& s, const ModelShape& sh, const CostModelConstants& c, double peakBf16,
    double peakFp8, AcceleratorFamily family)
{
    const auto& par = s.parallelism;
    StepContext x;
    x.scenario = &s;
    x.shape = &sh;
    x.constants = &c;
    x.peakBf16 = peakBf16;
    x.peakFp8 = peakFp8;
    x.family = family;
    x.gpus = s.cluster.gpuCount;
    x.domain = s.cluster.domainSize();
    x.tiers = linkTiersFor(s.cluster.hardware, x.domain, c);

    x.tp = par.tp;
    x.pp = par.pp;
    x.cp = par.cp;
    x.ep = par.ep;
    x.virtualStages = par.virtualStages;
    const int shards = fsdpShards(s);
    x.fsdpGroup = shards * par.cp; // FSDP shards over data-parallel x context-parallel ranks
    x.dataParallel = static_cast<double>(shards) * par.hsdpReplicas;
    x.fsdp = par.dataParallel == DataParallelKind::Fsdp;
    x.sequenceParallel = par.sequenceParallel && par.tp > 1;
    x.fp8 = s.precision == TrainingPrecision::BF16_FP8;

    x.seq = static_cast<double>(s.workload.seqLen);
    x.tokensPerMicroBatch = static_cast<double>(s.workload.microBatch) * x.seq / x.cp;
    x.layersPerStage = std::ceil(sh.layers / x.pp);
    // Gradient accumulation: micro-batches per data-parallel rank to reach the global batch.
    const int64_t perMicroStep = tokensPerMicroStep(s);
    x.tokensPerMicroStep = static_cast<double>(perMicroStep);
    x.microBatches = static_cast<double>(microStepsForBatch(s.workload.globalBatchTokens, perMicroStep));
    x.hbmBytesPerSec = s.cluster.hardware.hbmBandwidthBytesPerSec * c.hbmEfficiency;

    // MoE layers wait for their busiest expert. Dropless: the imbalance factor. Token dropping: every expert computes
    // (and exchanges) its padded capacity, the capacity factor x the mean, however the router spread the tokens.
    x.expertLoad = par.expertCapacityFactor > 0 ? par.expertCapacityFactor : c.expertLoadImbalance;
    x.expertTp = par.ep > 1 ? 1.0 : x.tp; // experts are not TP-split when EP shards them

    x.expertParams = sh.expertParamsPerLayer * sh.layers;
    x.denseParams = sh.totalParams - x.expertParams;
    x.modelParallelParams = (x.denseParams / x.tp + x.expertParams / (x.expertTp * x.ep)) / x.pp;
    x.reduceBytes = s.flags.reduceInBf16 ? 2.0 : 4.0;
    x.fsdpUnits = x.layersPerStage + 1.0;
    const double prefetch = std::max(1, s.flags.fsdpPrefetchLayers);
    x.prefetchExposedShare = c.fsdpPrefetchExposedFraction / prefetch;
    return x;
}

} // namespace mfu
