// CostModel::evaluateValid: one step of a valid scenario as the sum of its terms (docs/cost-model.md writes out each
// one), then throughput, utilisation and memory. Everything is per GPU on the critical path: the slowest pipeline
// stage, one data-parallel rank.
#include <algorithm>
#include <array>
#include <cstddef>
#include <optional>

#include "core/costmodel/attention_terms.h"
#include "core/costmodel/compute_terms.h"
#include "core/costmodel/cost_model.h"
#include "core/costmodel/data_parallel_comm.h"
#include "core/costmodel/expert_parallel_comm.h"
#include "core/costmodel/memory_bound_terms.h"
#include "core/costmodel/model_parallel_comm.h"
#include "core/costmodel/offload_terms.h"
#include "core/costmodel/overhead_terms.h"
#include "core/costmodel/pipeline_terms.h"
#include "core/costmodel/recompute_terms.h"
#include "core/costmodel/step_context.h"
#include "core/costmodel/step_memory.h"
#include "core/scenario/scenario_facts.h"

namespace mfu {

namespace {

// Every term of one micro-batch on one GPU, and the compute the communication overlaps with.
struct MicroBatchTerms {
    MatmulTime matmul;
    AttentionTime attention;
    MemoryBoundTime memoryBound;
    double recompute = 0;
    double forwardCompute = 0; // every kernel of the forward pass
    double backwardCompute = 0; // every kernel of the backward pass, the recomputed forward included
    // Each pass as the streams beside its kernels fill it (overlap.h): what a stream added later hides behind.
    PassAccount forwardPass;
    PassAccount backwardPass;
    double compute = 0;
    CommTime tp, cp, ep, pp;
    CommTime hostOffload; // activation offload's copies to the host and back
    FsdpComm fsdp;
    double overhead = 0;
    double moeHostStall = 0; // of overhead
    double exposedComm() const
    {
        return tp.exposed + cp.exposed + ep.exposed + pp.exposed + hostOffload.exposed + fsdp.allGatherForwardExposed
            + fsdp.allGatherBackwardExposed + fsdp.reduceScatterExposed;
    }
    double total() const { return compute + overhead + exposedComm(); }
};

MicroBatchTerms microBatchTerms(const StepContext& x, const ModelSpec& model, const TermScales& scales)
{
    MicroBatchTerms m;
    // Compute terms first, each at its measured scale, so that recomputation, the pipeline bubble and what
    // communication hides behind follow the calibrated compute.
    m.matmul = matmulTime(x, model);
    m.matmul.forward *= scales.matmul;
    // The per-token parts recomputation repeats, at the same scales as the passes they come from.
    m.matmul.layerForwardPerToken *= scales.matmul;
    m.matmul.denseMlpPerToken *= scales.matmul;
    m.matmul.sharedExpertsPerToken *= scales.matmul;
    m.matmul.routedExpertsPerToken *= scales.matmul;
    m.matmul.moeRoutingPerToken *= scales.memoryBound;
    m.matmul.moeRoutingForward *= scales.memoryBound; // a trace shows it as memory-bound kernels
    m.matmul.visionTraining *= scales.matmul;
    m.matmul.visionForward *= scales.matmul;
    m.attention = attentionTime(x);
    m.attention.forward *= scales.attention;
    m.attention.backward *= scales.attention;
    m.memoryBound = memoryBoundTime(x);
    m.memoryBound.bytesPerSec /= scales.memoryBound;
    m.recompute = recomputeTime(x, m.matmul, m.attention, m.memoryBound);
    const double memoryBound = m.memoryBound.total();
    // The MoE layers' routing work runs beside their GEMMs, forward once and backward twice, and what overlaps the
    // GEMMs (TP's collectives, the gathers and reduce-scatters) overlaps it too. The memory-bound kernels (norms,
    // casts, the loss, the permutation) split the same way: the network and the host link run beside them as beside
    // a GEMM.
    const double layers = m.matmul.forward + m.matmul.moeRoutingForward;
    const double gemmsAndRouting = m.matmul.total() + m.matmul.moeRoutingTotal();
    const double visionBackward = m.matmul.visionTraining - m.matmul.visionForward;
    m.forwardCompute = layers + m.matmul.visionForward + m.attention.forward + memoryBound / 3.0;
    m.backwardCompute = 2.0 * layers + visionBackward + m.attention.backward + 2.0 * memoryBound / 3.0 + m.recompute;
    m.compute = gemmsAndRouting + m.attention.forward + m.attention.backward + memoryBound + m.recompute;
    // TP's collectives and CP's exchange, each pass's against that pass's own kernels (TP one pass of 2 + the
    // recomputed share forward, CP's all-gather a third of its exchange), so that a pass's waits never grow when
    // the other pass's kernels shrink.
    const double tpForward = tensorParallelForwardShare(x);
    // (A calibration's communication factor is in the links, x.tiers.trafficScale: each collective takes longer and
    // the overlap then decides what of it is exposed.)
    const CommTime tpF = tensorParallelComm(x, layers, tpForward);
    const CommTime tpB = tensorParallelComm(x, gemmsAndRouting - layers, 1.0 - tpForward);
    const CommTime cpF = contextParallelComm(x, m.attention.forward, 1.0 / 3.0);
    const CommTime cpB = contextParallelComm(x, m.attention.backward, 2.0 / 3.0);
    m.tp = { tpF.total + tpB.total, tpF.exposed + tpB.exposed };
    m.cp = { cpF.total + cpB.total, cpF.exposed + cpB.exposed };
    m.ep = expertParallelComm(x, m.compute);
    m.pp = pipelineP2pComm(x);
    // Then in the passes: TP's and CP's as they ran; EP's evenly (dispatch and combine forward, their gradients
    // backward). An overlapped all-to-all (1F1B, DualPipe) hides behind a merged forward and backward of two
    // micro-batches, so it has no pass of its own: its waits are split evenly, which is monotone in each pass's
    // kernels but for one corner (docs/cost-model.md, "Streams that share a pass").
    m.forwardPass = PassAccount(m.forwardCompute);
    m.backwardPass = PassAccount(m.backwardCompute);
    const Link tpOn = tensorParallelLink(x), cpOn = contextParallelLink(x), epOn = expertParallelLink(x);
    m.forwardPass.add(tpOn, tpF.total, tpF.exposed);
    m.backwardPass.add(tpOn, tpB.total, tpB.exposed);
    m.forwardPass.add(cpOn, cpF.total, cpF.exposed);
    m.backwardPass.add(cpOn, cpB.total, cpB.exposed);
    m.forwardPass.add(epOn, m.ep.total / 2.0, m.ep.exposed / 2.0);
    m.backwardPass.add(epOn, m.ep.total / 2.0, m.ep.exposed / 2.0);
    // The host after each MoE dispatch: each forward on the GPU, its waits on the collectives included, against the
    // CPU's issue; the recomputed forwards inside the backward against the kernels they repeat and those waits.
    const double recomputedPasses = std::max(0.0, moeHostStallPasses(x) - 1.0);
    const double forwardWaits = m.forwardPass.span() - m.forwardCompute;
    // A calibration's overhead factor stretches the host's issue time, then the GPU's passes decide what of it the
    // step waits for.
    const MoeHostStall stall
        = moeHostStall(x, m.forwardPass.span(), m.recompute + recomputedPasses * forwardWaits, scales.overhead);
    m.moeHostStall = stall.total();
    m.overhead = launchOverheadTime(x) * scales.overhead + m.moeHostStall;
    m.forwardPass.add(Link::Cpu, stall.forward, stall.forward);
    m.backwardPass.add(Link::Cpu, stall.recompute, stall.recompute);
    const Link fsdpOn = fsdpLink(x);
    m.fsdp = fsdpComm(x, m.forwardPass.windowOn(fsdpOn), m.backwardPass.windowOn(fsdpOn));
    // With PP the stage gathers once a step, not in each micro-batch's passes.
    const double perMicroBatch = m.fsdp.reshardEachMicroBatch ? 1.0 : 0.0;
    m.forwardPass.add(fsdpOn, perMicroBatch * m.fsdp.allGather, m.fsdp.allGatherForwardExposed);
    m.backwardPass.add(fsdpOn, perMicroBatch * (m.fsdp.allGather + m.fsdp.reduceScatter),
        m.fsdp.allGatherBackwardExposed + m.fsdp.reduceScatterExposed);
    return m;
}

// An uneven pipeline runs at the pace of its slowest rank. Each distinct rank's micro-batch is timed with every term
// (its MoE layers' dispatches and waits on the host, the LM head and the loss), since counting FLOPs alone weighs a
// dense LM head against MoE layers whose time is mostly not FLOPs. Ranks alike in what they hold are timed once.
RankShare placeOnSlowestRank(StepContext& x, MicroBatchTerms& terms, const ModelSpec& model, const TermScales& scales)
{
    const Scenario& s = *x.scenario;
    const StepContext start = x;
    double longest = -1;
    RankShare slowest;
    std::array<RankShare, 8> timed {};
    size_t timedCount = 0;
    const auto alike = [](const RankShare& a, const RankShare& b) {
        return a.layers == b.layers && a.mtpLayers == b.mtpLayers && a.embedding == b.embedding && a.loss == b.loss;
    };
    for (int rank = 0; rank < s.parallelism.pp; ++rank) {
        const RankShare r = rankShare(s, *start.shape, start.expertTp, rank);
        const auto seenEnd = timed.begin() + static_cast<std::ptrdiff_t>(timedCount);
        if (std::any_of(timed.begin(), seenEnd, [&](const RankShare& t) { return alike(t, r); }))
            continue;
        if (timedCount < timed.size())
            timed[timedCount++] = r;
        StepContext candidate = start;
        placeOnRank(candidate, r);
        const MicroBatchTerms m = microBatchTerms(candidate, model, scales);
        if (m.total() > longest) {
            longest = m.total();
            x = candidate;
            terms = m;
            slowest = r;
        }
    }
    return slowest;
}

// The step's time by part: the micro-batches, the bubble, the once-per-step traffic and the optimizer.
void fillStepTime(const StepContext& x, const MicroBatchTerms& m, const TermScales& scales, StepPrediction& out)
{
    const double accum = x.microBatches;
    TimeBreakdown& t = out.time;
    auto& all = out.commSeconds;
    const auto idx = [](CommKind k) { return static_cast<size_t>(k); };
    t.matmul = accum * m.matmul.total();
    t.attention = accum * (m.attention.forward + m.attention.backward);
    t.moeRouting = accum * m.matmul.moeRoutingTotal();
    t.memoryBound = accum * m.memoryBound.total() + t.moeRouting;
    t.recompute = accum * m.recompute;
    t.overhead = accum * m.overhead + x.constants->perStepOverheadSeconds * scales.overhead;
    t.moeHostStall = accum * m.moeHostStall;
    t.comm(CommKind::Tp) = accum * m.tp.exposed;
    t.comm(CommKind::Cp) = accum * m.cp.exposed;
    t.comm(CommKind::EpAllToAll) = accum * m.ep.exposed;
    t.comm(CommKind::PpP2p) = accum * m.pp.exposed;
    t.comm(CommKind::HostOffload) = accum * m.hostOffload.exposed;
    t.comm(CommKind::FsdpAllGather)
        = accum * (m.fsdp.allGatherForwardExposed + m.fsdp.allGatherBackwardExposed) + m.fsdp.allGatherStepExposed;
    t.comm(CommKind::FsdpReduceScatter) = accum * m.fsdp.reduceScatterExposed + m.fsdp.reduceScatterStepExposed;
    all[idx(CommKind::Tp)] = accum * m.tp.total;
    all[idx(CommKind::Cp)] = accum * m.cp.total;
    all[idx(CommKind::EpAllToAll)] = accum * m.ep.total;
    all[idx(CommKind::PpP2p)] = accum * m.pp.total;
    all[idx(CommKind::HostOffload)] = accum * m.hostOffload.total;
    all[idx(CommKind::FsdpAllGather)]
        = m.fsdp.reshardEachMicroBatch ? accum * 2.0 * m.fsdp.allGather : m.fsdp.allGather;
    all[idx(CommKind::FsdpReduceScatter)]
        = m.fsdp.reshardEachMicroBatch ? accum * m.fsdp.reduceScatter : m.fsdp.reduceScatter;
    t.pipelineBubble = pipelineBubble(x, m.total());

    // The once-a-step sync runs in the step's last backward, beside FSDP's once-a-step reduce-scatter when PP keeps
    // the stage unsharded (HSDP's all-reduce, on the same NICs, waits for what that leaves of them).
    const Link dpOn = dataParallelLink(x);
    PassAccount lastBackward = m.backwardPass;
    if (!m.fsdp.reshardEachMicroBatch)
        lastBackward.add(fsdpLink(x), m.fsdp.reduceScatter, m.fsdp.reduceScatterStepExposed);
    const DataParallelSync dp = dataParallelSync(x, m.forwardPass.windowOn(dpOn), lastBackward.windowOn(dpOn));
    if (dp.gradients.total > 0) {
        all[idx(CommKind::DpAllReduce)] = dp.gradients.total;
        t.comm(CommKind::DpAllReduce) = dp.gradients.exposed;
    }
    if (dp.weightGather.total > 0) {
        all[idx(CommKind::FsdpAllGather)] = dp.weightGather.total;
        t.comm(CommKind::FsdpAllGather) = dp.weightGather.exposed;
    }
    // The optimizer: on the GPU, or with a share on the CPU beside it; the step waits for the slower of the two, and
    // what the host's part adds beyond the GPU's is the offload's cost.
    const OptimizerOffload optimizer = optimizerOffload(x, optimizerTime(x) * scales.memoryBound);
    t.memoryBound += optimizer.gpuSeconds;
    t.comm(CommKind::HostOffload) += std::max(0.0, optimizer.hostSeconds - optimizer.gpuSeconds);
    all[idx(CommKind::HostOffload)] += optimizer.hostSeconds;
    t.memoryBound += fp8WeightScaleTime(x) * scales.memoryBound;
}

// A lone GPU's clock under its power limit (CostModelConstants::isolatedTensorCoreSlowdown): the multiplier on its
// tensor-core kernels' time, from the share of the step's busy time they fill. The share is the uncalibrated
// model's, so that a calibration's factors (fitted over this multiplier) replay the traced run exactly.
double loneGpuTensorCoreSlowdown(const StepContext& x, const ModelSpec& model)
{
    const CostModelConstants& c = *x.constants;
    if (c.isolatedTensorCoreSlowdown <= 0)
        return 1.0;
    const MicroBatchTerms m = microBatchTerms(x, model, TermScales {});
    const double tensor = m.matmul.total() + m.attention.forward + m.attention.backward + m.recompute;
    const double memory = m.memoryBound.total() + m.matmul.moeRoutingTotal()
        + (optimizerTime(x) + fp8WeightScaleTime(x)) / x.microBatches;
    if (!(tensor + memory > 0))
        return 1.0;
    const double share = tensor / (tensor + memory);
    return 1.0 + c.isolatedTensorCoreSlowdown * std::max(0.0, share - c.isolatedTensorCoreShareKnee);
}

// What the memory model reads of the step: the shard sizes, tokens and layers of one GPU.
StepMemoryInputs memoryInputs(
    const StepContext& x, const ModelShape& shape, const CostModelConstants& constants, bool unfusedAttention)
{
    StepMemoryInputs mi;
    mi.shape = &shape;
    mi.constants = &constants;
    mi.scenario = x.scenario;
    mi.modelParallelParams = x.modelParallelParams;
    mi.fsdpGroup = x.fsdpGroup;
    mi.optimizerGroup = optimizerGroupOf(x);
    mi.expertParams = x.expertStageParams;
    mi.expertOptimizerGroup = expertOptimizerGroupOf(x);
    mi.tokensPerMicroBatch = x.tokensPerMicroBatch;
    mi.layersPerStage = x.layersPerStage;
    mi.microBatchesPerStep = x.microBatches;
    mi.unfusedAttention = unfusedAttention;
    mi.expertLoad = x.expertLoad;
    mi.expertTp = x.expertTp;
    mi.ep = x.ep;
    mi.fullRecomputeShare = x.fullRecomputeShare;
    return mi;
}

} // namespace

// Throughput and utilisation: tokens/s, TFLOPS, MFU and HFU from the step time.
void CostModel::fillThroughput(const Scenario& s, double microBatches, double tokensPerMicroStep,
    double fullRecomputeShare, StepPrediction& out) const
{
    const auto& c = m_c;
    const auto& sh = m_shape;
    const int gpus = s.cluster.gpuCount;
    const SequencePacking& packing = s.workload.packing;
    out.stepTimeSeconds = out.time.total();
    out.gradAccumSteps = static_cast<int64_t>(microBatches);
    out.pipelineStages = s.parallelism.pp;
    out.tokensPerStep = microBatches * tokensPerMicroStep;
    out.tokensPerSec = out.tokensPerStep / out.stepTimeSeconds;
    out.tokensPerSecPerGpu = out.tokensPerSec / gpus;
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
    else if (fullRecomputeShare < 1.0) // Megatron's block method recomputes only some layers of a stage
        recomputeFpt *= fullRecomputeShare;
    out.hardwareFlopsPerToken = out.flopsPerToken + recomputeFpt;
    // Model FLOPs count the tokens that train the model: padding kept in the batch is processed, not learned from.
    const double achieved = out.flopsPerToken * out.tokensPerSecPerGpu * usefulTokenFraction(packing);
    out.tflopsPerGpu = achieved / 1e12;
    out.gpusPerNode = std::min(gpus, c.gpusPerNode);
    out.tflopsPerNode = out.tflopsPerGpu * out.gpusPerNode;
    out.mfu = achieved / m_peakBf16;
    if (counts.palmOverPackingLength)
        out.mfuPalmOverPackingLength
            = *counts.palmOverPackingLength * out.tokensPerSecPerGpu * usefulTokenFraction(packing) / m_peakBf16;
    out.hfu = out.hardwareFlopsPerToken * out.tokensPerSecPerGpu / m_peakBf16;
    if (s.precision == TrainingPrecision::BF16_FP8)
        out.mfuVsFp8Peak = achieved / m_peakFp8;
    if (s.precision == TrainingPrecision::BF16_FP4 && m_peakFp4 > 0)
        out.mfuVsFp4Peak = achieved / m_peakFp4;
}

double CostModel::tensorCoreSlowdown(const Scenario& s) const
{
    if (!runsAsLoneGpu(s, m_c))
        return 1.0;
    const CostModelConstants lone = loneGpuConstants(m_c);
    return loneGpuTensorCoreSlowdown(
        stepContextFor(s, m_shape, lone, m_peakBf16, m_peakFp8, m_family, m_peakFp4), m_model);
}

StepPrediction CostModel::evaluateValid(const Scenario& s) const
{
    return evaluateValid(s, TermScales {});
}

StepPrediction CostModel::evaluateValid(const Scenario& s, const TermScales& scales) const
{
    // A one-GPU run's GEMMs at the lone-GPU figures where those were measured.
    std::optional<CostModelConstants> lone;
    if (runsAsLoneGpu(s, m_c))
        lone = loneGpuConstants(m_c);
    StepContext x = stepContextFor(s, m_shape, lone ? *lone : m_c, m_peakBf16, m_peakFp8, m_family, m_peakFp4);
    x.tiers.trafficScale = scales.communication;
    TermScales atClock = scales;
    if (lone) {
        const double slowdown = loneGpuTensorCoreSlowdown(x, m_model);
        atClock.matmul *= slowdown;
        atClock.attention *= slowdown;
    }
    MicroBatchTerms terms;
    StepPrediction out;
    if (x.unevenPipeline)
        out.pacingRank = placeOnSlowestRank(x, terms, m_model, atClock);
    else
        terms = microBatchTerms(x, m_model, atClock);
    StepMemoryInputs mi = memoryInputs(x, m_shape, m_c, terms.attention.unfused);
    const double offloaded = offloadedActivationBytesPerTokenLayer(mi) * x.tokensPerMicroBatch * x.layersPerStage;
    const HostOffloadComm offload = activationOffloadComm(
        x, offloaded, terms.forwardPass.windowOn(Link::HostLink), terms.backwardPass.windowOn(Link::HostLink));
    // The host link's copies are not collectives (a trace shows them as memcpy): the communication factor leaves them.
    terms.hostOffload = offload;
    terms.forwardPass.add(Link::HostLink, offload.total / 2.0, offload.forwardExposed);
    terms.backwardPass.add(Link::HostLink, offload.total / 2.0, offload.exposed - offload.forwardExposed);
    fillStepTime(x, terms, atClock, out);
    fillThroughput(s, x.microBatches, x.tokensPerMicroStep, x.fullRecomputeShare, out);

    out.memory = stepMemory(mi);
    if (x.unevenPipeline) {
        // Uneven stages: the fullest rank, which may be none of the first (the most micro-batches in flight, the
        // embedding), the slowest and the last (the logits): with the embedding and the loss in the split, a middle
        // rank holds the most layers while the last, holding only the loss, sets the pace. Every rank is counted.
        out.memory = MemoryBreakdown {};
        for (int rank = 0; rank < s.parallelism.pp; ++rank) {
            const RankShare r = rankShare(s, m_shape, x.expertTp, rank);
            mi.modelParallelParams = r.params;
            mi.expertParams = r.expertParams;
            mi.layersPerStage = r.layers;
            mi.pipelineRank = rank;
            mi.holdsLogits = r.loss;
            const MemoryBreakdown m = stepMemory(mi);
            if (m.total() > out.memory.total())
                out.memory = m;
        }
    }
    out.memoryCapacityBytes = s.cluster.hardware.hbmBytes;
    out.fits = out.memory.total() <= s.cluster.hardware.hbmBytes;
    out.fusions = { .permutation = !s.model.isMoe() || s.flags.moePermuteFusion,
        .expertMlp = !s.model.isMoe() || s.flags.fusedExpertMlp,
        .compiled = s.flags.compiled,
        .optimizer = s.flags.fusedOptimizer };
    classifyBottleneck(out);
    return out;
}

} // namespace mfu
