#include "core/costmodel/step_context.h"

#include <algorithm>
#include <cmath>

#include "core/costmodel/compute_terms.h"
#include "core/costmodel/cost_model.h"
#include "core/scenario/pipeline_layout.h"
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

int resolvedExpertTp(const Parallelism& p)
{
    if (p.expertTp > 0)
        return p.expertTp;
    return p.ep > 1 ? 1 : p.tp;
}

RankShare rankShare(const Scenario& s, const ModelShape& sh, double expertTp, int rank)
{
    const Parallelism& par = s.parallelism;
    const StageLoad load = stageLoad(par, sh.layers, s.workload.mtpLayers, rank);
    RankShare r;
    r.rank = rank;
    r.layers = static_cast<double>(load.layers + load.mtpLayers);
    r.mtpLayers = load.mtpLayers;
    r.embedding = load.embedding;
    r.loss = load.loss;
    // Weights: the layers' share of the dense and expert weights, the embedding, and the LM head (a copy of the
    // embedding when they are tied and the head sits on another rank).
    const double L = std::max(1, sh.layers);
    const double expertPerLayer = sh.expertParamsPerLayer;
    const double densePerLayer = (sh.totalParams - expertPerLayer * L - sh.embeddingParams - sh.lmHeadParams) / L;
    const double tp = par.tp, ep = par.ep;
    r.expertParams = r.layers * expertPerLayer / (expertTp * ep);
    r.params = r.layers * densePerLayer / tp + r.expertParams;
    if (r.embedding)
        r.params += sh.embeddingParams / tp;
    if (r.loss)
        r.params += (sh.lmHeadParams > 0 ? sh.lmHeadParams : (r.embedding ? 0.0 : sh.embeddingParams)) / tp;
    return r;
}

RankShare criticalRank(const Scenario& s, const ModelShape& sh, double expertTp)
{
    // A rank's forward time in layers: each layer (its GEMMs and attention at this sequence length) counts one, an LM
    // head pass with its loss the head's GEMM over a layer's, an MTP layer's projection its FLOPs over a layer's.
    const double seq = static_cast<double>(s.workload.seqLen);
    const double layerFlops = sh.qkvFlops + sh.outProjFlops + sh.ffnFlops + sh.routerFlops
        + 2.0 * sh.causalAttentionSpan(seq) * sh.layer.heads * (sh.layer.qkHeadDim + sh.layer.vHeadDim);
    const double head = layerFlops > 0 ? 2.0 * sh.layer.hidden * sh.vocab / layerFlops : 0.0;
    const double projection = layerFlops > 0 ? sh.mtpProjectionFlops / layerFlops : 0.0;
    RankShare best;
    double slowest = -1;
    for (int rank = 0; rank < s.parallelism.pp; ++rank) {
        const RankShare r = rankShare(s, sh, expertTp, rank);
        const double units = r.layers + r.mtpLayers * projection + head * ((r.loss ? 1.0 : 0.0) + r.mtpLayers);
        if (units > slowest) {
            slowest = units;
            best = r;
        }
    }
    return best;
}

namespace {

// What follows from a stage's layer count: the share of them full checkpointing recomputes (Megatron's block method
// names a count) and the FSDP units (one per layer, one for the embedding and LM head).
void setStageLayers(StepContext& x, double layers)
{
    const Scenario& s = *x.scenario;
    x.layersPerStage = layers;
    if (s.activationCheckpointing == ActivationCheckpointing::Full)
        x.fullRecomputeShare
            = s.flags.recomputeLayers > 0 && s.flags.recomputeLayers < layers ? s.flags.recomputeLayers / layers : 1.0;
    x.fsdpUnits = layers + 1.0;
}

} // namespace

void placeOnRank(StepContext& x, const RankShare& r)
{
    setStageLayers(x, r.layers);
    x.mtpLayersOnStage = r.mtpLayers;
    x.headPassesOnStage = (r.loss ? 1.0 : 0.0) + r.mtpLayers;
    x.modelParallelParams = r.params;
    x.expertStageParams = r.expertParams;
    x.denseStageParams = r.params - x.expertStageParams;
}

StepContext stepContextFor(const Scenario& s, const ModelShape& sh, const CostModelConstants& c, double peakBf16,
    double peakFp8, AcceleratorFamily family, double peakFp4)
{
    const auto& par = s.parallelism;
    StepContext x;
    x.scenario = &s;
    x.shape = &sh;
    x.constants = &c;
    x.peakBf16 = peakBf16;
    x.peakFp8 = peakFp8;
    x.peakFp4 = peakFp4;
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
    x.fsdp = shardsWeights(par.dataParallel);
    x.sequenceParallel = par.sequenceParallel && par.tp > 1;
    x.fp8 = s.precision == TrainingPrecision::BF16_FP8;
    x.fp4 = s.precision == TrainingPrecision::BF16_FP4;

    x.seq = static_cast<double>(s.workload.seqLen);
    x.tokensPerMicroBatch = static_cast<double>(s.workload.microBatch) * x.seq / x.cp;
    const double mtp = s.workload.mtpLayers;
    x.unevenPipeline = hasUnevenPipeline(par);
    if (!x.unevenPipeline) {
        // Layers split evenly; the last rank, with the LM head, the loss and the MTP layers, sets the pace.
        x.layersPerStage = std::ceil(sh.layers / x.pp) + mtp;
        x.mtpLayersOnStage = mtp;
        x.headPassesOnStage = 1.0 + mtp;
    }
    // Gradient accumulation: micro-batches per data-parallel rank to reach the global batch.
    const int64_t perMicroStep = tokensPerMicroStep(s);
    x.tokensPerMicroStep = static_cast<double>(perMicroStep);
    x.microBatches = static_cast<double>(microStepsForBatch(s.workload.globalBatchTokens, perMicroStep));
    x.hbmBytesPerSec = s.cluster.hardware.hbmBandwidthBytesPerSec * c.hbmEfficiency;

    // MoE layers wait for their busiest expert. Dropless: the imbalance factor, the scenario's where it states one;
    // forced balance (benchmark mode): the mean. Token dropping: every expert computes (and exchanges) its padded
    // capacity, the capacity factor x the mean, however the router spread the tokens.
    x.expertLoad = par.expertCapacityFactor > 0      ? par.expertCapacityFactor
        : par.expertBalance == ExpertBalance::Forced ? 1.0
        : par.expertLoadImbalance > 0                ? par.expertLoadImbalance
                                                     : c.expertLoadImbalance;
    const int etp = resolvedExpertTp(par);
    x.expertTp = etp;
    x.expertGroupStride = etp;
    const long long stageRanks = static_cast<long long>(par.tp) * par.cp * shards * par.hsdpReplicas;
    x.expertDataParallel = static_cast<int>(std::max(1LL, stageRanks / std::max(1LL, 1LL * par.ep * etp)));
    // With TP the MoE layer sees its rank's sequence-parallel share of the tokens (Megatron-Core runs MoE with SP).
    x.moeTokensPerMicroBatch = x.tokensPerMicroBatch / x.tp;

    x.expertParams = sh.expertParamsPerLayer * sh.layers;
    x.denseParams = sh.totalParams - x.expertParams;
    x.modelParallelParams = (x.denseParams / x.tp + x.expertParams / (x.expertTp * x.ep)) / x.pp;
    x.denseStageParams = x.denseParams / x.tp / x.pp;
    x.expertStageParams = x.expertParams / (x.expertTp * x.ep) / x.pp;
    x.reduceBytes = s.flags.reduceInBf16 ? 2.0 : 4.0;
    x.denseWeightBytes = workingWeightBytes(*x.shape, s, false);
    x.expertWeightBytes = workingWeightBytes(*x.shape, s, true);
    if (x.unevenPipeline)
        placeOnRank(x, criticalRank(s, sh, x.expertTp));
    else
        setStageLayers(x, x.layersPerStage);
    const double prefetch = std::max(1, s.flags.fsdpPrefetchLayers);
    x.prefetchExposedShare = c.fsdpPrefetchExposedFraction / prefetch;
    return x;
}

} // namespace mfu
