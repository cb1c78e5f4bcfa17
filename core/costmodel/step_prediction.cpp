#include "core/costmodel/step_prediction.h"

#include <cmath>
#include <string>
#include <string_view>

#include "core/number_format.h"

namespace mfu {

namespace {
struct CommName {
    CommKind kind;
    std::string_view key;
    std::string_view label;
};
constexpr CommName kCommNames[] = {
    { CommKind::FsdpAllGather, "fsdp_allgather", "FSDP all-gather" },
    { CommKind::FsdpReduceScatter, "fsdp_reducescatter", "FSDP reduce-scatter" },
    { CommKind::Tp, "tp", "tensor-parallel collectives" },
    { CommKind::PpP2p, "pp_p2p", "pipeline point-to-point" },
    { CommKind::Cp, "cp", "context-parallel exchange" },
    { CommKind::DpAllReduce, "dp_allreduce", "data-parallel all-reduce" },
    { CommKind::EpAllToAll, "ep_alltoall", "expert-parallel all-to-all" },
    { CommKind::HostOffload, "host_offload", "offload to host memory" },
};

// A round share of the step for the bottleneck sentence: "matmuls take 62% of the step".
std::string percentOf(double part, double whole)
{
    return formatPercent(whole > 0 ? part / whole : 0.0, 0);
}

// The advice for memory-bandwidth work: the fusions that would cut it and that the scenario does not run yet. A
// scenario that runs them all is told that what remains is bytes at the HBM's rate, not sent after a switch it has
// already set.
std::string fusionAdvice(const Fusions& f)
{
    std::string missing;
    const auto unless = [&](bool runs, std::string_view fusion) {
        if (!runs)
            missing += (missing.empty() ? "" : ", ") + std::string(fusion);
    };
    unless(f.permutation, "fused permutation");
    unless(f.expertMlp, "fused grouped-MLP kernels");
    unless(f.compiled, "torch.compile");
    unless(f.optimizer, "fused optimizer");
    if (missing.empty())
        return "; every fusion the model counts is on, so what remains moves at the memory's bandwidth.";
    return "; fuse it (" + missing + ").";
}
} // namespace

std::string_view commKindKey(CommKind kind)
{
    return kCommNames[static_cast<size_t>(kind)].key;
}
std::string_view commKindLabel(CommKind kind)
{
    return kCommNames[static_cast<size_t>(kind)].label;
}

std::string pacingRankText(const RankShare& r, int pipelineRanks)
{
    std::string t = "pipeline rank " + std::to_string(r.rank) + " (of 0-" + std::to_string(pipelineRanks - 1)
        + "): " + formatNumber(r.layers, 0) + (r.layers == 1 ? " layer" : " layers");
    if (r.mtpLayers > 0)
        t += " (" + formatNumber(r.mtpLayers, 0) + " MTP)";
    if (r.embedding)
        t += ", the embedding";
    if (r.loss)
        t += ", the LM head and the loss";
    return t;
}

std::string pacingRankSentence(const StepPrediction& p, int pipelineRanks)
{
    return p.pacingRank ? "The pace is set by " + pacingRankText(*p.pacingRank, pipelineRanks) + "." : std::string();
}

std::string bottleneckSentence(const StepPrediction& p)
{
    const TimeBreakdown& t = p.time;
    const double step = p.stepTimeSeconds;
    switch (p.bottleneck) {
    case Bottleneck::Memory:
        return "Does not fit: needs " + formatGiB(p.memory.total()) + " per GPU of " + formatGiB(p.memoryCapacityBytes)
            + "; shard more, checkpoint more activations or shrink the micro-batch.";
    case Bottleneck::Compute:
        return "Compute-bound: matmuls take " + percentOf(t.matmul, step) + " of the step and attention "
            + percentOf(t.attention, step) + "; gains now come from kernel efficiency.";
    case Bottleneck::Attention:
        return "Attention-bound: the attention core takes " + percentOf(t.attention, step)
            + " of the step at this sequence length.";
    case Bottleneck::MemoryBandwidth:
        if (t.moeRouting > 0.25 * t.memoryBound)
            return "Memory-bandwidth work takes " + percentOf(t.memoryBound, step)
                + " of the step (the MoE layers' routing around the grouped GEMMs, permutation, gathers and scatters: "
                + percentOf(t.moeRouting, step) + ")" + fusionAdvice(p.fusions);
        return "Memory-bandwidth work (norms, elementwise, loss, optimizer, casts) takes "
            + percentOf(t.memoryBound, step) + " of the step" + fusionAdvice(p.fusions);
    case Bottleneck::Recompute:
        return "Activation recomputation takes " + percentOf(t.recompute, step)
            + " of the step; lighter checkpointing would pay if memory allows.";
    case Bottleneck::Communication:
        return "Exposed " + std::string(commKindLabel(p.worstComm)) + " takes " + percentOf(t.comm(p.worstComm), step)
            + " of the step (all exposed communication " + percentOf(t.exposedCommTotal(), step) + ").";
    case Bottleneck::PipelineBubble:
        // With fewer micro-batches than stages the first micro-batch's trip through every stage is the bubble, and
        // virtual stages only cut it into more pieces.
        if (p.gradAccumSteps < p.pipelineStages)
            return "The pipeline bubble takes " + percentOf(t.pipelineBubble, step) + " of the step: "
                + std::to_string(p.gradAccumSteps) + (p.gradAccumSteps == 1 ? " micro-batch" : " micro-batches")
                + " for " + std::to_string(p.pipelineStages)
                + " stages; more micro-batches (or fewer stages) would shrink it, virtual stages would not.";
        return "The pipeline bubble takes " + percentOf(t.pipelineBubble, step)
            + " of the step; more micro-batches or virtual stages would shrink it.";
    case Bottleneck::Overhead:
        if (t.moeHostStall > 0.5 * t.overhead)
            return "The host sets the pace: after each MoE layer's dispatch copies its token counts to the CPU, the "
                   "GPU waits for the CPU to issue the layer's kernels ("
                + percentOf(t.moeHostStall, step)
                + " of the step); CUDA graphs, a sync-free dispatcher (HybridEP, padded capacity) or more tokens per "
                  "micro-batch (less TP, a larger micro-batch) hide it.";
        return "Fixed overheads (launches, host work, per-step costs) take " + percentOf(t.overhead, step)
            + " of the step; larger micro-batches amortise them.";
    }
    return {};
}

} // namespace mfu
