#pragma once
// Views across the ranks of a run, from the per-rank analyses alone (so a merge of summaries gives them too):
//  - step-time distribution per rank: min, quartiles, median, max, mean of the analysed steps' durations (HTA's
//  straggler view
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

// Quartiles interpolate linearly between order statistics: type 7 of Hyndman & Fan, "Sample Quantiles in Statistical
// Packages" (The American Statistician, 1996), numpy's default; its median is the mean of the middle two.
struct RankStepTimes {
    int rank = 0;
    size_t steps = 0;
    double minSeconds = 0;
    double lowerQuartileSeconds = 0;
    double medianSeconds = 0;
    double upperQuartileSeconds = 0;
    double maxSeconds = 0;
    double meanSeconds = 0;
    std::vector<double> stepSeconds; // each analysed step's duration, in step order (a strip of the distribution)
};

struct BusyShareMatrix {
    std::vector<int> ranks; // rows, in run order
    std::vector<int64_t> steps; // columns: every step number any rank analysed, ascending
    std::vector<std::vector<std::optional<double>>> share; // [row][column]
};

std::vector<RankStepTimes> stepTimesPerRank(const RunAnalysis& run);
BusyShareMatrix busyShareMatrix(const RunAnalysis& run);

// Collective wait (HTA's collective-wait / straggler analysis): the k-th communication kernel of every rank is the
// same collective (synchronous data parallelism issues them in the same order on every rank); the rank that starts
// it last is the one the others wait for, and each rank's wait is the latest start - its own start. Only the first
// min over ranks calls are matched, and a call whose category differs between ranks ends the matching (the ranks'
// schedules differ from there). Absolute times come from each host's clock (HTA makes the same assumption).
struct CollectiveWait {
    size_t index = 0; // k
    std::string category;
    int slowestRank = 0;
    double maxWaitSeconds = 0; // of the rank that started first
    double meanWaitSeconds = 0; // over ranks, the slowest's 0 included
};

struct RankWait {
    int rank = 0;
    double waitSeconds = 0; // summed over the matched collectives
    size_t timesSlowest = 0;
};

struct CollectiveWaits {
    std::vector<CollectiveWait> collectives;
    std::vector<RankWait> ranks; // in run order
    size_t unmatched = 0; // calls left out: beyond the shortest rank's count or after a category mismatch
};

CollectiveWaits collectiveWaits(const RunAnalysis& run);

struct KernelDiffRow {
    std::string name;
    // Set when the baseline ran this kernel under another name: the same function with other template arguments,
    // or the one collective of its kind on each side under another library's naming (kernelDiff pairs them).
    std::string baselineName;
    std::string category;
    int64_t baselineCount = 0;
    int64_t optimisedCount = 0;
    int64_t baselineNs = 0;
    int64_t optimisedNs = 0;
    // Per analysed step: each rank's time over its analysed steps, summed over the ranks. Runs profiled over different
    // step counts (1 against 3) compare only so; the sums above grow with the steps.
    double baselineNsPerStep = 0;
    double optimisedNsPerStep = 0;
    int64_t deltaNs() const { return optimisedNs - baselineNs; }
    double deltaNsPerStep() const { return optimisedNsPerStep - baselineNsPerStep; }
};

// Rows of kernels only one run has are paired when they are one kernel renamed: first those whose names are the same
// function (the name without `void `, template arguments and parameters: ncclDevKernel_AllReduce_Sum_f32_RING_LL
// with other template arguments), then, per communication category, the single unpaired kernel of each run (an
// all-reduce named by two NCCL versions). A paired row keeps the optimised run's name and the baseline's in
// baselineName. Rows are in order of their change per step, the largest first.
std::vector<KernelDiffRow> kernelDiff(const RunAnalysis& baseline, const RunAnalysis& optimised);
// The function a kernel name calls: "ncclDevKernel_AllReduce_Sum_f32_RING_LL" for
// "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)".
std::string kernelFunctionName(std::string_view kernelName);

// { "step_times": [{rank, steps, min_s, lower_quartile_s, median_s, upper_quartile_s, max_s, mean_s}], "busy_share":
// {ranks, steps, share},
//   "collective_wait": {"ranks": [{rank, wait_s, times_slowest}], "collectives": [{index, category, slowest_rank,
//   max_wait_s, mean_wait_s}], "unmatched_calls"} (with two or more ranks) }
nlohmann::json crossRankToJson(const RunAnalysis& run);
// [{name, category, baseline_count, optimised_count, baseline_s, optimised_s, delta_s, baseline_s_per_step,
// optimised_s_per_step, delta_s_per_step, baseline_name (paired rows)}]
nlohmann::json kernelDiffToJson(const std::vector<KernelDiffRow>& rows);

} // namespace mfu::trace
