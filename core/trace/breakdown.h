#pragma once
// Where GPU time goes inside a time window, from one sweep over the activities' start and end points.
//
//   span        window length
//   busy        union of all activity intervals across streams (HTA: GPU active time); idle = span - busy
//   category    union of the intervals of that category (never more than span; categories may overlap)
//   exclusive   each instant given to one active category by priority: computation first (gemm, attention,
//               elementwise, normalization, softmax_loss, optimizer, other), then memcpy, memset, communication.
//               Exclusive times add up to busy, so they stack with idle to the span (the Figure 3 bars).
//   compute     union of COMPUTATION intervals (HTA: not communication, not memory)
//   comm        union of communication intervals; overlap = time both compute and comm run;
//               exposed comm = comm - overlap; overlap fraction = overlap / comm (HTA's comm/comp overlap)
//   gaps        idle stretches at least gapThreshold long, split by the activity that ended each: launched after
//               the gap began (the GPU waited on the host), or before it (the work was queued and waited on a
//               dependency the trace does not show: another stream's event, a peer rank). A gap that a step's end
//               cuts, or whose next activity has no recorded launch, is in neither part.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "core/trace/steps.h"
#include "core/trace/timeline.h"

namespace mfu::trace {

struct Breakdown {
    int64_t spanNs = 0;
    int64_t busyNs = 0;
    std::array<int64_t, kKernelCategoryCount> categoryNs {};
    std::array<int64_t, kKernelCategoryCount> exclusiveNs {};
    int64_t computeNs = 0;
    int64_t commNs = 0;
    int64_t memoryNs = 0;
    int64_t overlapNs = 0; // compute and communication at the same time
    int64_t idleGapCount = 0;
    int64_t idleGapNs = 0;
    int64_t idleGapHostNs = 0; // of idleGapNs: the next activity was launched after the gap began
    int64_t idleGapQueuedNs = 0; // of idleGapNs: the next activity was launched before the gap began
    // Counted by step membership (not clipped to the window): kernels only, not memcpy/memset.
    int64_t kernelCount = 0;
    int64_t kernelTimeNs = 0; // sum of kernel durations
    int64_t tinyKernelCount = 0;
    int64_t tinyKernelTimeNs = 0;

    int64_t idleNs() const { return spanNs - busyNs; }
    int64_t exposedCommNs() const { return commNs - overlapNs; }
    double commOverlapFraction() const { return commNs > 0 ? static_cast<double>(overlapNs) / commNs : 0.0; }
    double share(int64_t ns) const { return spanNs > 0 ? static_cast<double>(ns) / spanNs : 0.0; }
    Breakdown& operator+=(const Breakdown& o);
};

struct BreakdownOptions {
    int64_t tinyKernelNs = 10'000; // kernels shorter than 10 us are dominated by launch overhead
    int64_t idleGapNs = 100'000; // idle stretches of 100 us or more count as gaps
};

// The idle gaps of one step on average (over `steps` steps, and over ranks where a caller averages them).
struct IdleGapsPerStep {
    double count = 0;
    double seconds = 0;
    double hostSeconds = 0; // the next activity was launched after the gap began
    double queuedSeconds = 0; // it was launched before the gap began
};
IdleGapsPerStep idleGapsPerStep(const Breakdown& total, size_t steps);
// "3 gaps of 0.1 ms or more a step, 330.2 ms: 178.2 ms waiting on a launch from the host, 152.0 ms with the next
// work already launched (...)"; the parts that are zero are left out.
std::string idleGapText(const IdleGapsPerStep& gaps);

// One Breakdown per step window of the plan (activities clipped to the windows).
std::vector<Breakdown> breakdownPerStep(
    const Timeline& timeline, const StepPlan& plan, const BreakdownOptions& options);

} // namespace mfu::trace
