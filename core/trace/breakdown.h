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
//   gaps        idle stretches at least gapThreshold long (the GPU waiting on the host)
#include <array>
#include <cstdint>
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
    int64_t idleGapNs = 100'000; // idle stretches of 100 us or more count as host-bound gaps
};

// One Breakdown per step window of the plan (activities clipped to the windows).
std::vector<Breakdown> breakdownPerStep(
    const Timeline& timeline, const StepPlan& plan, const BreakdownOptions& options);

} // namespace mfu::trace
