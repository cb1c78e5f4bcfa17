#pragma once
// Baseline vs optimised run, side by side (Lambda's MFU paper, Figure 3): per category the exclusive share of the
// analysed span and the seconds per step, plus idle, with deltas (optimised - baseline); step time and speed-up.
#include <optional>
#include <string>
#include <vector>

#include "core/trace/analysis.h"

namespace mfu::trace {

struct CategoryComparison {
    std::string key; // a category key, or "idle"
    double baselineShare = 0;
    double optimisedShare = 0;
    double baselineSecondsPerStep = 0;
    double optimisedSecondsPerStep = 0;
    double deltaShare() const { return optimisedShare - baselineShare; }
    double deltaSecondsPerStep() const { return optimisedSecondsPerStep - baselineSecondsPerStep; }
};

struct RunComparison {
    double baselineStepSeconds = 0;
    double optimisedStepSeconds = 0;
    double speedup = 0; // baseline / optimised step time; 0 when either is unknown
    std::vector<CategoryComparison> categories; // every category, then idle
    // The GPU each run names ("several GPUs" when its ranks differ), nullopt when it records none.
    std::optional<std::string> baselineGpu;
    std::optional<std::string> optimisedGpu;
    bool gpusDiffer() const { return baselineGpu && optimisedGpu && *baselineGpu != *optimisedGpu; }
    // "baseline", "optimised" or "same" (within 0.5%), "" when a step time is unknown.
    std::string faster() const;
};

// Which run is faster and by how much, with both GPUs named when they differ: "This run is 1.51x slower than the
// baseline: 115.610 ms against 76.765 ms per step. They ran on different GPUs (baseline: NVIDIA A100-SXM4-80GB,
// this run: Tesla V100-SXM2-32GB): the step times compare the hardware as much as the code."
std::string comparisonVerdict(const RunComparison& c);

// The categories whose GPU time per step changed by at least kPerStepChangeSeconds, largest change first, in one
// sentence with the step's own change: "Per step this run saves 65.000 ms; by category (GPU time): elementwise
// 52.310 ms less, GEMM 8.100 ms less, idle 3.000 ms more." Empty when nothing changed that much or a step time is
// unknown. Part of comparisonVerdict.
inline constexpr double kPerStepChangeSeconds = 0.0005;
std::string perStepChanges(const RunComparison& c, size_t maxCategories = 4);

// Shares pool all ranks of a run: sum of a category's exclusive time over the summed span.
RunComparison compareRuns(const RunAnalysis& baseline, const RunAnalysis& optimised);

} // namespace mfu::trace
