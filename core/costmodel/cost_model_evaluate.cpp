// CostModel::evaluateValid: the step-time and memory equations (docs/cost-model.md writes them out).
// Everything here is per GPU on the critical path: the slowest pipeline stage, one data-parallel rank.
#include <algorithm>
#include <cmath>

#include "core/costmodel/attention_kernels.h"
#include "core/costmodel/collectives.h"
#include "core/costmodel/cost_model.h"
#include "core/costmodel/step_memory.h"
#include "core/scenario/scenario_facts.h"

namespace mfu {

namespace {

// Efficiency of a GEMM whose limiting dimension (smallest of tokens, out and in per GPU) is d.
double gemmShapeFactor(double d, const CostModelConstants& c)
{
    return d / (d + c.gemmHalfSaturationDim);
}

LinkTiers tiersFor(const HardwareSpec& hw, int domain, const CostModelConstants& c)
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

// Overlap of communication `comm` with compute `compute`: what cannot hide, plus a share that stays exposed.
double exposedAfterOverlap(double comm, double compute, double exposedShare)
{
    return std::max(0.0, comm - compute) + std::min(comm, compute) * exposedShare;
}

} // namespace

StepPrediction CostModel::evaluateValid(const Scenario& s) const
{
    const auto& c = m_c;
    const auto& sh = m_shape;
    const auto& x = sh.layer;
    const auto& par = s.parallelism;
    const auto& hw = s.cluster.hardware;
    const auto& flags = s.flags;
    const int gpus = s.cluster.gpuCount;
    const int domain = s.cluster.domainSize();
    const LinkTiers tiers = tiersFor(hw, domain, c);

    const double tp = par.tp, pp = par.pp, cp = par.cp, ep = par.ep, v = par.virtualStages;
    const int shards = fsdpShards(s);
    const int fsdpGroup = shards * par.cp; // FSDP shards over data-parallel x context-parallel ranks
    const double dp = static_cast<double>(shards) * par.hsdpReplicas;
    const double seq = static_cast<double>(s.workload.seqLen);
    const double mb = static_cast<double>(s.workload.microBatch);
    const double tokensMb = mb * seq / cp; // tokens one GPU processes per micro-batch
    const double layersPerStage = std::ceil(sh.layers / pp);
    const bool fp8 = s.precision == TrainingPrecision::BF16_FP8;
    const bool sp = par.sequenceParallel && par.tp > 1;
    const double hbm = hw.hbmBandwidthBytesPerSec * c.hbmEfficiency;

    // Gradient accumulation: micro-batches per data-parallel rank to reach the global batch.
    const int64_t perMicroStep = tokensPerMicroStep(s);
    const double tokensPerMbGlobal = static_cast<double>(perMicroStep);
    const double accum = static_cast<double>(microStepsForBatch(s.workload.globalBatchTokens, perMicroStep));

    // --- Matmuls: FLOP / (peak x efficiency(shape)), forward; backward is twice the forward.
    const double linearPeak = fp8 ? m_peakFp8 * c.fp8GemmEfficiencyRatio : m_peakBf16;
    const double etp = par.ep > 1 ? 1.0 : tp; // experts are not TP-split when EP shards them
    const double gemmPeak = linearPeak * c.gemmEfficiency;
    const double dModel = x.hidden;
    const double fQkv = gemmShapeFactor(std::min({ tokensMb, sh.qkvOut / tp, dModel }), c);
    const double fOut = gemmShapeFactor(std::min({ tokensMb, dModel, sh.attnOut / tp }), c);
    double ffnTokens = tokensMb; // MoE: tokens each expert sees per micro-batch
    double ffnSplit = tp;
    if (sh.experts > 0) {
        ffnTokens = tokensMb * ep * sh.expertsPerToken / sh.experts;
        ffnSplit = etp;
    }
    const double fFfn = gemmShapeFactor(std::min({ ffnTokens, sh.ffnWidth / ffnSplit, dModel }), c);
    // MoE layers wait for their busiest expert. Dropless: the routed share of the FFN runs at the imbalance factor.
    // Token dropping: every expert computes (and exchanges) its padded capacity, the capacity factor x the mean,
    // however the router spread the tokens.
    const double expertLoad = par.expertCapacityFactor > 0 ? par.expertCapacityFactor : c.expertLoadImbalance;
    const double ffnImbalance = sh.experts > 0 ? 1.0 + (expertLoad - 1.0) * sh.routedFfnShare : 1.0;
    const double layerFwdMatmul
        = (sh.qkvFlops / fQkv + sh.outProjFlops / fOut + ffnImbalance * sh.ffnFlops / fFfn) / (tp * gemmPeak)
        + sh.routerFlops / (m_peakBf16 * c.gemmEfficiency);
    const double fHead = gemmShapeFactor(std::min({ tokensMb, sh.vocab / tp, dModel }), c);
    const double headFwd = 2.0 * dModel * sh.vocab / tp / (m_peakBf16 * c.gemmEfficiency * fHead);
    // The LM head and loss run on the last stage, which sets the pace of the pipeline (critical path).
    const double matmulFwdMb = tokensMb * (layersPerStage * layerFwdMatmul + headFwd);
    // A vision-language run's encoder (core/model/vision_encoder.h): its training FLOPs for the micro-batch's vision
    // tokens at the GEMM efficiency, replicated on each TP rank (encoders are small and trained data-parallel).
    // Unvalidated: no published run in the validation table has one.
    double visionTrainMb = 0, visionFwdMb = 0;
    if (m_model.vision && s.workload.vision.tokensPerSequence > 0
        && s.workload.vision.tokensPerSequence <= s.workload.seqLen) {
        const double perToken = visionFlopsPerSequenceToken(*m_model.vision, s.workload.vision, s.workload.seqLen);
        visionTrainMb = tokensMb * perToken / (m_peakBf16 * c.gemmEfficiency);
        visionFwdMb = s.workload.vision.encoderTrained ? visionTrainMb / 3.0 : visionTrainMb;
    }
    const double matmulMb = 3.0 * matmulFwdMb + visionTrainMb;

    // --- Attention core (always BF16): causal half of the S x S square per query, split over TP heads, at the
    // efficiency of the scenario's kernel (attention_kernels.h). An unfused kernel computes the full square with
    // batched GEMMs over the head dimension and moves every score through HBM several times.
    // Packed documents masked apart (core/model/packing.h): each token's attention runs over its own document, so the
    // spans are the documents' spans weighted by their tokens, and the kernel runs at the documents' lengths.
    const SequencePacking& packing = s.workload.packing;
    double docTokens = 0;
    const bool perDocument = packing.packed() && packing.attention == PackedAttention::PerDocument;
    if (perDocument)
        for (const DocumentLengthBin& b : packing.documents)
            docTokens += static_cast<double>(b.length) * b.count;
    const auto overDocuments = [&](auto spanAt) {
        if (!perDocument || !(docTokens > 0))
            return spanAt(seq);
        double weighted = 0;
        for (const DocumentLengthBin& b : packing.documents)
            weighted += static_cast<double>(b.length) * b.count / docTokens * spanAt(static_cast<double>(b.length));
        return weighted;
    };
    const double attentionLength = overDocuments([](double d) { return d; }); // sum(d^2)/sum(d)
    const double causalSpan = overDocuments([&](double d) { return sh.causalAttentionSpan(d); });
    const double cpEff = par.cp > 1 ? c.contextParallelAttentionEfficiency : 1.0;
    const AttentionKernel kernel = resolveAttentionKernel(flags.attentionKernel, m_family);
    // A kernel call runs over one document (varlen), or the rank's chunk of it under context parallelism.
    const auto efficiencyAt
        = [&](double d) { return attentionEfficiency(c, kernel, m_family, x.qkHeadDim, std::min(d, seq / cp)); };
    const AttentionEfficiency ae = efficiencyAt(attentionLength);
    const double attnFwdFlops
        = tokensMb * layersPerStage * 2.0 * causalSpan * (x.heads / tp) * (x.qkHeadDim + x.vHeadDim);
    double attnFwdMb = 0, attnBwdMb = 0;
    if (ae.unfused) {
        const double bmmPeak = m_peakBf16 * c.gemmEfficiency * gemmShapeFactor(x.qkHeadDim, c) * cpEff;
        const double scores = tokensMb * layersPerStage * attentionLength * (x.heads / tp);
        const double bytesFwd = scores * c.unfusedAttentionBytesPerScore / 3.0;
        attnFwdMb = 2.0 * attnFwdFlops / bmmPeak + bytesFwd / hbm;
        attnBwdMb = 4.0 * attnFwdFlops / bmmPeak + 2.0 * bytesFwd / hbm;
    } else {
        // Each document's attention at its own kernel efficiency: short documents sit further below the plateau.
        const double flopsPerSpan = tokensMb * layersPerStage * 2.0 * (x.heads / tp) * (x.qkHeadDim + x.vHeadDim);
        attnFwdMb = flopsPerSpan * overDocuments([&](double d) {
            return sh.causalAttentionSpan(d) / efficiencyAt(d).forward;
        }) / (m_peakBf16 * cpEff);
        attnBwdMb = 2.0 * flopsPerSpan * overDocuments([&](double d) {
            return sh.causalAttentionSpan(d) / efficiencyAt(d).backward;
        }) / (m_peakBf16 * cpEff);
    }
    // Other token mixers, split over TP heads like attention: recurrences, and the indexer scoring S/2 keys (causal).
    const double recurrentFwdFlops = tokensMb * layersPerStage * sh.recurrentMixerFlops / tp;
    const double indexerFwdFlops = tokensMb * layersPerStage * sh.indexerFlopsPerKey * attentionLength / 2.0 / tp;
    const double mixerFwdMb = recurrentFwdFlops / (m_peakBf16 * c.recurrentMixerEfficiency)
        + indexerFwdFlops / (m_peakBf16 * c.sparseIndexerEfficiency * cpEff);
    attnFwdMb += mixerFwdMb;
    attnBwdMb += 2.0 * mixerFwdMb;

    // --- Memory-bound work per micro-batch: elementwise and norms, loss, FP8 casts.
    // torch.compile fuses the norms, SwiGLU and RoPE; an eager run may use Liger Kernel's fused ones instead.
    const bool fusedKernels = !flags.compiled && flags.fusedNormActivation;
    const double hiddenPasses = flags.compiled ? c.elementwiseHiddenPassesCompiled
        : fusedKernels                         ? c.elementwiseHiddenPassesFusedKernels
                                               : c.elementwiseHiddenPassesEager;
    const double ffnPasses = flags.compiled ? c.elementwiseFfnPassesCompiled
        : fusedKernels                      ? c.elementwiseFfnPassesFusedKernels
                                            : c.elementwiseFfnPassesEager;
    const double elemBytes
        = 2.0 * tokensMb * layersPerStage * (hiddenPasses * dModel / (sp ? tp : 1.0) + ffnPasses * x.ffnDim / tp);
    // A fused linear cross-entropy computes the softmax and its gradient in one kernel per chunk of BF16 logits, the
    // traffic of a compiled loss.
    const bool fusedLoss = flags.compiled || flags.fusedLinearCrossEntropy;
    const double lossBytes
        = tokensMb * sh.vocab / tp * (fusedLoss ? c.lossBytesPerLogitCompiled : c.lossBytesPerLogitEager);
    double castBytes = 0;
    if (fp8) {
        // Each GEMM casts its input (forward) and output gradient (backward); weights are cast every micro-batch.
        const double operands = 2.0 * dModel + sh.qkvOut + sh.attnOut + 3.0 * x.ffnDim;
        castBytes = c.fp8CastBytesPerElement
            * (tokensMb * layersPerStage * operands / tp + 2.0 * layersPerStage * sh.activeLinearParamsPerLayer / tp);
    }
    const double elemMb = elemBytes / hbm;
    const double memBoundMb = (elemBytes + lossBytes + castBytes) / hbm;

    // --- Recomputation.
    double recomputeMb = 0;
    if (s.activationCheckpointing == ActivationCheckpointing::Full)
        recomputeMb = tokensMb * layersPerStage * layerFwdMatmul + attnFwdMb + elemMb / 3.0
            + (s.workload.vision.encoderTrained ? visionFwdMb : 0.0);
    else if (s.activationCheckpointing == ActivationCheckpointing::Selective)
        recomputeMb = (1.0 - c.selectiveKeptMatmulFraction) * tokensMb * layersPerStage * layerFwdMatmul + elemMb / 3.0;

    // MLA keeps only the latents (activation_memory.h) and rebuilds the up-projections before backward.
    if (s.activationCheckpointing != ActivationCheckpointing::Full)
        recomputeMb += tokensMb * layersPerStage * sh.latentUpProjFlops / (tp * gemmPeak * fQkv);
    const double fwdComputeMb = matmulFwdMb + attnFwdMb + elemMb / 3.0;
    const double bwdComputeMb = 2.0 * matmulFwdMb + attnBwdMb + 2.0 * elemMb / 3.0 + recomputeMb;
    const double computeMb = matmulMb + attnFwdMb + attnBwdMb + memBoundMb + recomputeMb;

    StepPrediction out;
    auto& commAll = out.commSeconds;
    TimeBreakdown& t = out.time;
    const auto idx = [](CommKind k) { return static_cast<size_t>(k); };

    // --- Tensor parallel: per layer 2 all-gathers + 2 reduce-scatters forward (all-reduces without SP), as many
    // backward, and the forward's again under full recompute.
    double tpExposedMb = 0;
    if (par.tp > 1) {
        const CommGroup g { par.tp, 1 };
        const double buffer = tokensMb * dModel * 2.0;
        const double pair = collectiveSeconds(Collective::AllGather, buffer, g, tiers)
            + collectiveSeconds(Collective::ReduceScatter, buffer, g, tiers);
        const double passes = s.activationCheckpointing == ActivationCheckpointing::Full ? 3.0 : 2.0;
        const double tpMb = layersPerStage * 2.0 * pair * passes;
        commAll[idx(CommKind::Tp)] = tpMb;
        tpExposedMb = par.asyncTp && sp ? exposedAfterOverlap(tpMb, matmulMb, c.asyncTpExposedFraction) : tpMb;
    }

    // --- Context parallel: ring attention passes K and V around the cp ranks (forward), K, V and their gradients
    // backward.
    double cpExposedMb = 0;
    if (par.cp > 1) {
        const CommGroup g { par.cp, par.tp };
        const double kvBuffer
            = cp * tokensMb * (x.kvHeads * (x.qkHeadDim + x.vHeadDim)) / std::min(tp, x.kvHeads) * 2.0;
        const double one = collectiveSeconds(Collective::AllGather, kvBuffer, g, tiers);
        const double cpMb = layersPerStage * (3.0 * one);
        commAll[idx(CommKind::Cp)] = cpMb;
        cpExposedMb = exposedAfterOverlap(cpMb, attnFwdMb + attnBwdMb, c.contextParallelExposedFraction);
    }

    // --- Expert parallel: dispatch and combine all-to-alls, forward and backward, in MoE layers.
    double epExposedMb = 0;
    if (par.ep > 1) {
        const CommGroup g { par.ep, par.tp };
        // Dispatch forward in FP8 for BF16+FP8 runs (DeepSeek-V3 section 3.3.2), everything else in BF16; the
        // busiest rank receives the imbalance factor times the mean (token dropping: the padded capacity); latent MoE
        // moves latent-wide vectors.
        const double buffer = tokensMb * sh.expertsPerToken * sh.expertDispatchWidth * expertLoad;
        const double bytesPerElement = (fp8 ? 1.0 : 2.0) + 2.0 + 2.0 + 2.0; // dispatch, combine, and their gradients
        const double epMb = layersPerStage * sh.moeLayerShare
            * collectiveSeconds(Collective::AllToAll, buffer * bytesPerElement, g, tiers);
        commAll[idx(CommKind::EpAllToAll)] = epMb;
        epExposedMb = par.expertOverlap ? exposedAfterOverlap(epMb, computeMb, c.expertOverlapExposedFraction)
                                        : epMb * c.expertAllToAllExposedFraction;
    }

    // --- Pipeline point-to-point: activations forward, gradients backward, at every stage boundary of every chunk.
    double ppExposedMb = 0;
    if (par.pp > 1) {
        const bool cross = gpus > domain;
        const double bw = cross ? tiers.scaleOutBytesPerSec : tiers.scaleUpBytesPerSec;
        const double lat = cross ? tiers.scaleOutLatency : tiers.scaleUpLatency;
        const double bytes = tokensMb * dModel * 2.0 / (sp ? tp : 1.0);
        const double ppMb = 2.0 * v * (bytes / bw + lat);
        commAll[idx(CommKind::PpP2p)] = ppMb;
        ppExposedMb = ppMb * c.pipelineP2pExposedFraction;
    }

    // --- FSDP: all-gather every unit's weights before forward and again before backward, reduce-scatter its
    // gradients after backward; one unit per layer plus one for the embedding and LM head.
    const double denseParams = sh.totalParams - sh.expertParamsPerLayer * sh.layers;
    const double expertParams = sh.expertParamsPerLayer * sh.layers;
    const double mpParams = (denseParams / tp + expertParams / (etp * ep)) / pp; // one model-parallel rank's weights
    const double reduceBytes = flags.reduceInBf16 ? 2.0 : 4.0;
    const double units = layersPerStage + 1.0;
    double agMb = 0, rsMb = 0;
    const bool fsdp = par.dataParallel == DataParallelKind::Fsdp;
    if (fsdp && fsdpGroup > 1) {
        const CommGroup g { fsdpGroup, par.tp };
        const double denseUnit = denseParams / tp / pp / units;
        agMb = units * collectiveSeconds(Collective::AllGather, denseUnit * 2.0, g, tiers);
        rsMb = units * collectiveSeconds(Collective::ReduceScatter, denseUnit * reduceBytes, g, tiers);
        const int expertGroup = fsdpGroup / par.ep;
        if (expertParams > 0 && expertGroup > 1) {
            const CommGroup ge { expertGroup, par.tp };
            const double expertUnit = expertParams / (etp * ep) / pp / layersPerStage;
            agMb += layersPerStage * collectiveSeconds(Collective::AllGather, expertUnit * 2.0, ge, tiers);
            rsMb += layersPerStage * collectiveSeconds(Collective::ReduceScatter, expertUnit * reduceBytes, ge, tiers);
        }
    }
    const double prefetch = std::max(1, flags.fsdpPrefetchLayers);
    const double share = c.fsdpPrefetchExposedFraction / prefetch;
    // Without PP, weights are resharded after forward: all-gathered again for backward, every micro-batch.
    // With PP (TorchTitan, Llama 3), weights and gradients stay unsharded across the micro-batches of a step:
    // one all-gather before the first forward and one reduce-scatter after the last backward.
    const bool reshardEachMicroBatch = par.pp == 1;
    double agFwdExposed = 0, agBwdExposed = 0, rsExposed = 0;
    if (reshardEachMicroBatch && agMb > 0) {
        agFwdExposed = exposedAfterOverlap(agMb, fwdComputeMb, share) + agMb / units;
        const double bwdComm = agMb + rsMb;
        const double bwdExposed = exposedAfterOverlap(bwdComm, bwdComputeMb, share) + rsMb / units;
        agBwdExposed = bwdExposed * agMb / bwdComm;
        rsExposed = bwdExposed - agBwdExposed;
    }
    double agStepExposed = 0, rsStepExposed = 0;
    if (!reshardEachMicroBatch && agMb > 0) {
        agStepExposed = exposedAfterOverlap(agMb, fwdComputeMb, share) + agMb / units;
        rsStepExposed = exposedAfterOverlap(rsMb, bwdComputeMb, share) + rsMb / units;
    }

    // --- Per micro-batch and per step.
    const double passes = s.activationCheckpointing == ActivationCheckpointing::None ? 2.0 : 3.0;
    const double overheadMb = passes * layersPerStage
        * (flags.compiled ? c.perLayerOverheadSecondsCompiled : c.perLayerOverheadSecondsEager);
    const double exposedMb
        = tpExposedMb + cpExposedMb + epExposedMb + ppExposedMb + agFwdExposed + agBwdExposed + rsExposed;
    const double perMb = computeMb + overheadMb + exposedMb;

    t.matmul = accum * matmulMb;
    t.attention = accum * (attnFwdMb + attnBwdMb);
    t.memoryBound = accum * memBoundMb;
    t.recompute = accum * recomputeMb;
    t.overhead = accum * overheadMb + c.perStepOverheadSeconds;
    t.comm(CommKind::Tp) = accum * tpExposedMb;
    t.comm(CommKind::Cp) = accum * cpExposedMb;
    t.comm(CommKind::EpAllToAll) = accum * epExposedMb;
    t.comm(CommKind::PpP2p) = accum * ppExposedMb;
    t.comm(CommKind::FsdpAllGather) = accum * (agFwdExposed + agBwdExposed) + agStepExposed;
    t.comm(CommKind::FsdpReduceScatter) = accum * rsExposed + rsStepExposed;
    commAll[idx(CommKind::Tp)] *= accum;
    commAll[idx(CommKind::Cp)] *= accum;
    commAll[idx(CommKind::EpAllToAll)] *= accum;
    commAll[idx(CommKind::PpP2p)] *= accum;
    commAll[idx(CommKind::FsdpAllGather)] = reshardEachMicroBatch ? accum * 2.0 * agMb : agMb;
    commAll[idx(CommKind::FsdpReduceScatter)] = reshardEachMicroBatch ? accum * rsMb : rsMb;

    // Pipeline bubble: (pp - 1) / v micro-batch slots of idle time per step (1F1B and interleaved 1F1B).
    if (par.pp > 1) {
        double bubble = (pp - 1.0) / v * perMb;
        if (par.schedule == PipelineSchedule::ZeroBubble)
            bubble *= c.zeroBubbleResidual;
        t.pipelineBubble = bubble;
    }

    // Data-parallel all-reduce across HSDP replicas: once per step, bucketed behind the last micro-batch's
    // backward; the last bucket is exposed.
    if (fsdp && par.hsdpReplicas > 1) {
        const CommGroup g { par.hsdpReplicas, par.tp * fsdpGroup };
        const double buffer = mpParams / fsdpGroup * reduceBytes;
        const double ar = collectiveSeconds(Collective::AllReduce, buffer, g, tiers);
        commAll[idx(CommKind::DpAllReduce)] = ar;
        t.comm(CommKind::DpAllReduce) = std::max(0.0, ar - bwdComputeMb) + ar / units;
    }
    // DDP and ZeRO-1 (Megatron's distributed optimizer): every data-parallel rank holds the whole model-parallel
    // shard. DDP all-reduces the gradients once per step; ZeRO-1 reduce-scatters them and all-gathers the updated
    // BF16 weights, which Megatron overlaps with the next forward (--overlap-param-gather). The gradient bucket
    // sync hides behind the last backward but for its last bucket. Experts reduce over the ranks that share them.
    if (!fsdp && dp * cp > 1) {
        const int group = static_cast<int>(dp) * par.cp;
        const CommGroup g { group, par.tp };
        const double denseRank = denseParams / tp / pp;
        const double expertRank = expertParams / (etp * ep) / pp;
        const int expertGroup = std::max(1, group / par.ep);
        const CommGroup ge { expertGroup, par.tp };
        const bool zero1 = par.dataParallel == DataParallelKind::Zero1;
        const Collective gradSync = zero1 ? Collective::ReduceScatter : Collective::AllReduce;
        double grad = collectiveSeconds(gradSync, denseRank * reduceBytes, g, tiers);
        if (expertRank > 0 && expertGroup > 1)
            grad += collectiveSeconds(gradSync, expertRank * reduceBytes, ge, tiers);
        commAll[idx(CommKind::DpAllReduce)] = grad;
        t.comm(CommKind::DpAllReduce) = std::max(0.0, grad - bwdComputeMb) + grad / units;
        if (zero1) {
            double gather = collectiveSeconds(Collective::AllGather, denseRank * 2.0, g, tiers);
            if (expertRank > 0 && expertGroup > 1)
                gather += collectiveSeconds(Collective::AllGather, expertRank * 2.0, ge, tiers);
            commAll[idx(CommKind::FsdpAllGather)] = gather;
            t.comm(CommKind::FsdpAllGather) = exposedAfterOverlap(gather, fwdComputeMb, share) + gather / units;
        }
    }

    // Optimizer (memory-bound over the local shard) and FP8 weight-scale precomputation.
    const int optimizerGroup
        = par.dataParallel == DataParallelKind::Ddp ? 1 : (fsdp ? fsdpGroup : static_cast<int>(dp) * par.cp);
    const double shardParams = mpParams / optimizerGroup;
    const double optBytes
        = shardParams * (flags.fusedOptimizer ? c.optimizerBytesPerParamFused : c.optimizerBytesPerParamUnfused);
    const double optSeconds = optBytes / hbm;
    t.memoryBound += flags.optimizerInBackward ? optSeconds / units : optSeconds;
    if (fp8 && !flags.fp8ScalesInBackward)
        t.memoryBound += shardParams * 4.0 / hbm
            + static_cast<double>(ringSteps(Collective::AllReduce, fsdpGroup)) * tiers.scaleUpLatency;

    // --- Throughput and utilisation.
    out.stepTimeSeconds = t.total();
    out.gradAccumSteps = static_cast<int64_t>(accum);
    out.tokensPerStep = accum * tokensPerMbGlobal;
    out.tokensPerSec = out.tokensPerStep / out.stepTimeSeconds;
    out.tokensPerSecPerGpu = out.tokensPerSec / gpus;
    // FLOP/token and recompute as everywhere else (core/scenario/scenario_facts.h), for this cost model's own model and
    // its own share of recomputed matmuls under selective checkpointing (the same as the timing above).
    // FLOP/token and recompute as everywhere else (core/scenario/scenario_facts.h), for this cost model's own model and
    // its own share of recomputed matmuls under selective checkpointing (the same as the timing above).
    // (No Scenario copy: evaluation allocates nothing, tst_costmodel_allocation.)
    const FlopFormula formula = flopFormulaFor(m_model, s.mfuFormula);
    const FlopsPerToken counts = countFlopsPerToken(m_model, s.workload.seqLen, packing);
    out.flopsPerToken = counts.get(formula).value_or(0.0);
    double recomputeFpt = recomputeFlopsPerToken(
        m_model, s.workload.seqLen, packing, s.activationCheckpointing, formula, 1.0 - c.selectiveKeptMatmulFraction);
    if (s.activationCheckpointing
        != ActivationCheckpointing::Full) // MLA latents' up-projection, recomputed (cost model)
        recomputeFpt += sh.latentUpProjFlops * sh.layers;
    out.hardwareFlopsPerToken = out.flopsPerToken + recomputeFpt;
    // Model FLOPs count the tokens that train the model: padding kept in the batch is processed, not learned from.
    const double achieved = out.flopsPerToken * out.tokensPerSecPerGpu * usefulTokenFraction(packing);
    out.tflopsPerGpu = achieved / 1e12;
    out.tflopsPerNode = out.tflopsPerGpu * std::min(gpus, c.gpusPerNode);
    out.mfu = achieved / m_peakBf16;
    if (counts.palmOverPackingLength)
        out.mfuPalmOverPackingLength
            = *counts.palmOverPackingLength * out.tokensPerSecPerGpu * usefulTokenFraction(packing) / m_peakBf16;
    out.hfu = out.hardwareFlopsPerToken * out.tokensPerSecPerGpu / m_peakBf16;
    if (fp8)
        out.mfuVsFp8Peak = achieved / m_peakFp8;

    // --- Memory.
    StepMemoryInputs mi;
    mi.shape = &sh;
    mi.constants = &c;
    mi.scenario = &s;
    mi.modelParallelParams = mpParams;
    mi.fsdpGroup = fsdpGroup;
    mi.optimizerGroup = optimizerGroup;
    mi.tokensPerMicroBatch = tokensMb;
    mi.layersPerStage = layersPerStage;
    mi.microBatchesPerStep = accum;
    mi.unfusedAttention = ae.unfused;
    out.memory = stepMemory(mi);
    out.memoryCapacityBytes = hw.hbmBytes;
    out.fits = out.memory.total() <= hw.hbmBytes;
    classifyBottleneck(out);
    return out;
}

} // namespace mfu
