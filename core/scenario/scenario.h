#pragma once
// Scenario = model + cluster + workload + precision + parallelism + activation checkpointing + framework flags
// (+ what the user measured). The GUI holds exactly one; every panel, the cost model, the planner, the money
// figures and the scenario file read it. Plain data: the functions that use it live beside their own headers.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/model/flops.h"
#include "core/model/hardware_spec.h"
#include "core/model/model_spec.h"
#include "core/model/mfu.h"
#include "core/model/precision.h"

namespace mfu {

struct Workload {
    int64_t seqLen = 8192;
    int64_t globalBatchTokens = 0; // tokens per optimizer step, whole cluster; 0: one micro-batch per DP rank
    int64_t microBatch = 1; // sequences per GPU per micro-step
};

enum class PipelineSchedule { OneFOneB, Interleaved1F1B, ZeroBubble };

// Degrees multiply to the GPU count: gpus = hsdpReplicas x fsdpShards x tp x pp x cp. Expert parallelism (ep)
// shards MoE experts over ranks of the data-parallel x cp group and does not multiply.
struct Parallelism {
    int tp = 1;
    bool sequenceParallel = true; // Megatron-style SP alongside TP
    bool asyncTp = false; // overlap TP collectives with the matmuls (PyTorch symmetric memory)
    int pp = 1;
    int virtualStages = 1; // interleaved pipeline chunks per rank
    PipelineSchedule schedule = PipelineSchedule::OneFOneB;
    int cp = 1;
    int ep = 1;
    int hsdpReplicas = 1; // 1: flat FSDP over all data-parallel ranks; R: R replicas, FSDP inside each
};

// Framework switches seed 000 names as levers.
struct FrameworkFlags {
    int fsdpPrefetchLayers = 1; // layers all-gathered ahead of compute (FSDP default 1)
    bool reduceInBf16 = false; // gradient reduce-scatter/all-reduce dtype: bf16 (true) or fp32 (false, TorchTitan default)
    bool fusedOptimizer = true;
    bool compiled = true; // torch.compile: fused elementwise ops
    bool optimizerInBackward = false; // optimizer step overlapped with the backward pass
    bool fp8ScalesInBackward = false; // precompute FP8 weight scales during backward (seed 000, 3.4)
};

// A throughput the user measured, overlaid on sweeps and used for calibration.
struct MeasuredPoint {
    std::string label;
    int64_t seqLen = 0;
    int gpuCount = 0;
    TrainingPrecision precision = TrainingPrecision::BF16;
    double mfu = 0; // fraction of 1
};

// The money inputs (Cost panel, core/money): a job as a token budget or as days of the cluster, and an MFU uplift.
// Part of the scenario so that edits are undoable and saved with it.
struct CostInputs {
    std::optional<double> tokenBudget; // wins over days when both are set
    std::optional<double> days;
    std::optional<double> baselineMfu; // fraction of 1; empty: the scenario's measured or predicted MFU
    std::optional<double> targetMfu;
};

struct Scenario {
    ModelSpec model;
    ClusterSpec cluster;
    Workload workload;
    TrainingPrecision precision = TrainingPrecision::BF16;
    Parallelism parallelism;
    ActivationCheckpointing activationCheckpointing = ActivationCheckpointing::None;
    FrameworkFlags flags;
    FlopFormula mfuFormula = FlopFormula::PaLM; // the FLOP/token convention MFU is reported in

    // What the run achieved, when known (Calculator panel input).
    std::optional<Throughput> measuredThroughput;
    std::vector<MeasuredPoint> measuredPoints;

    std::optional<double> pricePerGpuHourUsd; // overrides the hardware preset's typical price
    double effectivePricePerGpuHourUsd() const
    {
        return pricePerGpuHourUsd ? *pricePerGpuHourUsd : cluster.hardware.pricePerGpuHourUsd;
    }
    CostInputs cost;
};

} // namespace mfu
