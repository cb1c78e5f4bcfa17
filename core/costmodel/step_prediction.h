#pragma once
// What the cost model predicts for one optimizer step of a Scenario: where the time goes (per GPU, on the critical
// path), what the step achieves (tokens/s, TFLOPS, MFU, HFU) and what it holds in memory. Plain data, no allocation,
// so the planner can evaluate hundreds of thousands of these per second.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace mfu {

// HostOffload: what offload to host memory adds, the host link's copies and the CPU's share of the optimizer step.
enum class CommKind { FsdpAllGather, FsdpReduceScatter, Tp, PpP2p, Cp, DpAllReduce, EpAllToAll, HostOffload };
inline constexpr int kCommKindCount = 8;
inline constexpr CommKind kAllCommKinds[] = { CommKind::FsdpAllGather, CommKind::FsdpReduceScatter, CommKind::Tp,
    CommKind::PpP2p, CommKind::Cp, CommKind::DpAllReduce, CommKind::EpAllToAll, CommKind::HostOffload };
// "fsdp_allgather", "fsdp_reducescatter", "tp", "pp_p2p", "cp", "dp_allreduce", "ep_alltoall", "host_offload"
std::string_view commKindKey(CommKind kind);
std::string_view commKindLabel(CommKind kind); // "FSDP all-gather", ...

// Seconds per optimizer step. The parts add up to the step time.
struct TimeBreakdown {
    double matmul = 0; // linear layers (BF16 or FP8), forward + backward
    double attention = 0; // attention core (flash attention), forward + backward
    double memoryBound = 0; // norms, elementwise, loss, optimizer, FP8 casts, MoE routing
    double moeRouting = 0; // of memoryBound: the MoE layers' routing work around the grouped GEMMs (not summed again)
    double recompute = 0; // activation checkpointing's extra forward work
    std::array<double, kCommKindCount> exposedComm {}; // communication not hidden behind compute, by kind
    double pipelineBubble = 0;
    double overhead = 0; // kernel launches and host work per layer, fixed per-step costs
    double moeHostStall = 0; // of overhead: the GPU waiting for the CPU after MoE dispatches (not summed again)

    double& comm(CommKind k) { return exposedComm[static_cast<size_t>(k)]; }
    double comm(CommKind k) const { return exposedComm[static_cast<size_t>(k)]; }
    double exposedCommTotal() const
    {
        double s = 0;
        for (double v : exposedComm)
            s += v;
        return s;
    }
    double total() const
    {
        return matmul + attention + memoryBound + recompute + exposedCommTotal() + pipelineBubble + overhead;
    }
};

// Bytes per GPU at the step's peak.
struct MemoryBreakdown {
    double parameters = 0; // sharded FP32 master weights
    double gradients = 0; // sharded FP32 gradients (0 when the optimizer runs inside backward)
    double optimizerState = 0; // AdamW moments
    double activations = 0; // saved for backward, all micro-batches in flight
    double temporary = 0; // unsharded layer weights/grads, logits, recompute working set, allocator slack
    double reserved = 0; // CUDA context, communication buffers, workspaces
    double total() const { return parameters + gradients + optimizerState + activations + temporary + reserved; }
};

// One pipeline rank's share of the model: its transformer and MTP layers, the embedding and the LM head, and the
// weights they hold on one TP (x EP) rank before data-parallel sharding.
struct RankShare {
    int rank = 0; // 0-based pipeline rank
    double layers = 0; // transformer layers, MTP layers included
    double mtpLayers = 0;
    bool embedding = false;
    bool loss = false; // the LM head and the loss
    double params = 0;
    double expertParams = 0; // the experts' part of params
};

enum class Bottleneck {
    Memory,
    Compute,
    Attention,
    MemoryBandwidth,
    Recompute,
    Communication,
    PipelineBubble,
    Overhead
};

// The fusions of memory-bandwidth work a scenario runs, so that the bottleneck's advice names only the others; each
// also true where the scenario has nothing that fusion would take (a dense model routes no tokens).
struct Fusions {
    bool permutation = false; // MoE tokens permuted by fused kernels
    bool expertMlp = false; // fused grouped-MLP kernels
    bool compiled = false; // torch.compile's elementwise fusion
    bool optimizer = false; // fused AdamW
};

struct StepPrediction {
    TimeBreakdown time;
    std::array<double, kCommKindCount> commSeconds {}; // all communication per step, hidden or not
    double stepTimeSeconds = 0;
    int64_t gradAccumSteps = 1; // micro-batches per data-parallel rank per step
    int pipelineStages = 1; // PP
    double tokensPerStep = 0;
    double tokensPerSec = 0; // whole cluster
    double tokensPerSecPerGpu = 0;
    double flopsPerToken = 0; // the scenario's MFU formula
    double hardwareFlopsPerToken = 0; // + recomputation
    double tflopsPerGpu = 0; // model FLOPs achieved per GPU, TFLOP/s
    double tflopsPerNode = 0; // tflopsPerGpu x gpusPerNode
    int gpusPerNode = 0; // the GPUs of one node the cost model counts: min(GPUs, the hardware's GPUs per node)
    double mfu = 0; // against the BF16 dense peak (also for BF16+FP8 runs)
    double hfu = 0;
    std::optional<double> mfuVsFp8Peak; // BF16+FP8 runs: against the FP8 dense peak
    // BF16+FP4 runs: against the FP4 dense peak. Their MFU against the BF16 peak may pass 100%: the FP4 linear layers
    // run above it.
    std::optional<double> mfuVsFp4Peak;
    // Documents packed and masked apart: the MFU PaLM's formula as published gives, with attention counted over the
    // packing length (an over-count, labelled wherever it is shown); empty otherwise.
    std::optional<double> mfuPalmOverPackingLength;
    MemoryBreakdown memory;
    double memoryCapacityBytes = 0;
    bool fits = false;
    Bottleneck bottleneck = Bottleneck::Compute;
    CommKind worstComm = CommKind::FsdpAllGather; // the largest exposed communication, when that is the bottleneck
    // The rank an uneven layout runs at the pace of (every rank's micro-batch timed with every term, the slowest kept);
    // empty for an even layout, whose last rank, with the LM head, sets the pace.
    std::optional<RankShare> pacingRank;
    Fusions fusions;
};

// "pipeline rank 5 (of 0-31): 3 layers", "pipeline rank 31 (of 0-31): 2 layers, the LM head and the loss": the rank
// that sets the pace of an uneven layout, for the predict command's text.
std::string pacingRankText(const RankShare& rank, int pipelineRanks);
// The same as a sentence beside the bottleneck's, for the Predict panel: "The pace is set by pipeline rank 1 (of
// 0-31): 3 layers."; empty for an even layout.
std::string pacingRankSentence(const StepPrediction& p, int pipelineRanks);

// One sentence naming what limits the step ("Compute-bound: matmuls take 68% of the step.").
std::string bottleneckSentence(const StepPrediction& p);

} // namespace mfu
