#pragma once
// The scenario reduced to what every term of the step time reads: per GPU and per micro-batch on the critical path
// (the slowest pipeline stage, one data-parallel rank). docs/cost-model.md, "Notation", names each quantity.
// Plain data: the terms (compute_terms.h, attention_terms.h, ...) are functions of it, so a test can state one by
// hand and check a term against arithmetic it can follow.
#include "core/costmodel/attention_kernels.h"
#include "core/costmodel/collectives.h"
#include "core/costmodel/constants.h"
#include "core/costmodel/step_prediction.h"
#include "core/scenario/scenario.h"

namespace mfu {

struct ModelShape;

struct StepContext {
    const Scenario* scenario = nullptr;
    const ModelShape* shape = nullptr;
    const CostModelConstants* constants = nullptr;
    double peakBf16 = 0; // dense BF16 peak, FLOP/s (FP16 on a device without BF16)
    double peakFp8 = 0; // dense FP8 peak, FLOP/s; 0 when the device has none
    double peakFp4 = 0; // dense FP4 peak, FLOP/s; 0 when the device has none
    AcceleratorFamily family = AcceleratorFamily::Other;
    LinkTiers tiers;

    int gpus = 1;
    int domain = 1; // GPUs per scale-up domain
    double tp = 1, pp = 1, cp = 1, ep = 1, virtualStages = 1;
    int fsdpGroup = 1; // FSDP shards x CP ranks: the group weights are sharded over
    double dataParallel = 1; // FSDP shards x HSDP replicas
    bool fsdp = true; // FSDP (or HSDP); false: ZeRO-1 or DDP
    bool sequenceParallel = false; // SP with TP > 1
    bool fp8 = false; // BF16+FP8: linear layers on the FP8 peak
    bool fp4 = false; // BF16+FP4: linear layers on the FP4 peak (but the share kept in BF16)
    // Share of the stage's layers fully recomputed: 1 under full checkpointing, recomputeLayers / layers under
    // Megatron's block method, 0 otherwise.
    double fullRecomputeShare = 0;

    double seq = 0; // sequence length, tokens
    double tokensPerMicroBatch = 0; // micro-batch x sequence / CP: the tokens one GPU processes per micro-batch
    double layersPerStage = 0; // ceil(layers / PP)
    double microBatches = 1; // per data-parallel rank per step (gradient accumulation)
    double tokensPerMicroStep = 0; // whole cluster
    double hbmBytesPerSec = 0; // achieved: HBM bandwidth x hbmEfficiency

    // Pipeline: the busiest rank sets the pace (pipeline_layout.h places uneven stages).
    bool unevenPipeline = false;
    double mtpLayersOnStage = 0; // multi-token-prediction layers on it (counted in layersPerStage too)
    double headPassesOnStage = 1; // LM head and loss passes on it: the model's, and one per MTP layer; 0 without

    // MoE, with expert parallelism folded over the stage's tp x cp x data-parallel ranks (Megatron-Core's expert
    // mesh: expert TP innermost, then EP, then expert data parallelism).
    double expertLoad = 1; // the busiest expert's load relative to the mean (the capacity factor when dropping)
    double expertTp = 1; // TP degree of the experts: Parallelism::expertTp, else 1 with EP and TP without
    int expertGroupStride = 1; // ranks between members of an EP group: the expert TP degree
    int expertDataParallel = 1; // ranks that hold the same experts: tp x cp x data-parallel / (ep x expert TP)
    double moeTokensPerMicroBatch = 0; // tokens a GPU routes per micro-batch: its sequence-parallel share (T / tp)

    // Parameters and how they are held.
    double denseParams = 0; // all but the routed experts
    double expertParams = 0; // routed experts, every layer
    double modelParallelParams = 0; // one TP x PP (x EP) rank's weights before data-parallel sharding
    double denseStageParams = 0, expertStageParams = 0; // the two parts of it: by TP, and by expert TP x EP
    double reduceBytes = 4; // gradient reduction dtype: 4 (FP32) or 2 (BF16)
    // Bytes per parameter of the working weights gathered and computed with (workingWeightBytes): 2 for BF16, less
    // with FP8 parameters; the routed experts' apart.
    double denseWeightBytes = 2, expertWeightBytes = 2;
    double fsdpUnits = 1; // FSDP units of a stage: one per layer, one for the embedding and LM head
    double prefetchExposedShare = 0; // share of overlapped FSDP traffic that stays exposed at this prefetch depth

    // What sequence parallelism divides the hidden-wide activations by: TP with SP, else 1.
    double sequenceParallelSplit() const { return sequenceParallel ? tp : 1.0; }
};

StepContext stepContextFor(const Scenario& scenario, const ModelShape& shape, const CostModelConstants& constants,
    double peakBf16, double peakFp8, AcceleratorFamily family, double peakFp4 = 0);

// The expert TP degree a layout runs: Parallelism::expertTp when set, else 1 with EP (EP shards whole experts) and
// the attention's TP without.
int resolvedExpertTp(const Parallelism& p);

// RankShare, one pipeline rank's share of the model, is declared in step_prediction.h, which reports the slowest.

// The rank of an uneven pipeline (hasUnevenPipeline) whose forward pass has the most FLOPs: layers, the LM head and
// MTP projections weighed by their FLOPs. The cost model times every rank (CostModel::evaluateValid) and keeps the
// slowest; this is the rank a step context starts on.
RankShare criticalRank(const Scenario& scenario, const ModelShape& shape, double expertTp);
// Puts a step context on one pipeline rank: its layers, LM head and MTP passes, and the weights it holds.
void placeOnRank(StepContext& x, const RankShare& r);
RankShare rankShare(const Scenario& scenario, const ModelShape& shape, double expertTp, int rank);

// The cost model's view of the interconnect: the hardware's links at the constants' achieved efficiency and latency.
LinkTiers linkTiersFor(const HardwareSpec& hardware, int domainGpus, const CostModelConstants& constants);

} // namespace mfu
