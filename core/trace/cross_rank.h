#pragma once
// Views across the ranks of a run, from the per-rank analyses alone (so a merge of summaries gives them too):
//  - step-time distribution per rank: min, median, max, mean of the analysed steps' durations (HTA's straggler view
//    compares ranks the same way: the slow rank is the one whose own work takes longest);
//  - busy-share heat map: per rank and step number, busy / GPU window of that step (null where the rank did not
//    analyse that step);
//  - kernel diff of two runs (HTA's TraceDiff): per kernel name, count and summed duration in the baseline and the
//    optimised run, all ranks pooled, sorted by the time delta (largest |delta| first).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/trace/analysis.h"

namespace mfu::trace {

struct RankStepTimes {
    int rank = 0;
    size_t steps = 0;
    double minSeconds = 0;
    double medianSeconds = 0;
    double maxSeconds = 0;
    double meanSeconds = 0;
};

struct BusyShareMatrix {
    std::vector<int> ranks; // rows, in run order
    std::vector<int64_t> steps; // columns: every step number any rank analysed, ascending
    std::vector<std::vector<std::optional<double>>> share; // [row][column]
};

std::vector<RankStepTimes> stepTimesPerRank(const RunAnalysis& run);
BusyShareMatrix busyShareMatrix(const RunAnalysis& run);

struct KernelDiffRow {
    std::string name;
    std::string category;
    int64_t baselineCount = 0;
    int64_t optimisedCount = 0;
    int64_t baselineNs = 0;
    int64_t optimisedNs = 0;
    int64_t deltaNs() const { return optimisedNs - baselineNs; }
};

std::vector<KernelDiffRow> kernelDiff(const RunAnalysis& baseline, const RunAnalysis& optimised);

// { "step_times": [{rank, steps, min_s, median_s, max_s, mean_s}], "busy_share": {ranks, steps, share} }
nlohmann::json crossRankToJson(const RunAnalysis& run);
// [{name, category, baseline_count, optimised_count, baseline_s, optimised_s, delta_s}]
nlohmann::json kernelDiffToJson(const std::vector<KernelDiffRow>& rows);

} // namespace mfu::trace
