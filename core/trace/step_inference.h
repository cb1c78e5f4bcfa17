#pragma once
// Training steps found in the GPU activity alone, for traces without ProfilerStep annotations or NVTX ranges.
//
// Method (docs/trace-analysis.md, "Steps"): a training iteration launches the same kernels in the same order every
// time, so the kernel-name sequence (kernels on all streams, in start order) repeats with the iteration's length.
//  1. Period: a kernel name that occurs at least three times at regular distances (every gap within 10% or two
//     kernels of the median gap, at most a quarter of it) marks a candidate period. With optimizer kernels in the trace
//     the finest candidate wins whose every step contains optimizer work (an iteration ends with the optimizer step,
//     which rules out layers and micro-batches); without them the coarsest wins (the outermost loop, not the layers
//     inside it).
//  2. Phase: a step starts at the first kernel after the optimizer's last kernel (snapped to the nearest end of an
//     optimizer run within the tolerance); without optimizer kernels, at the phase of the trace's first kernel
//     (the profiler starts recording at a step boundary).
//  3. Checks, else no inference: consecutive steps launch nearly the same kernels (name histograms overlap 80%);
//     the repetition explains the whole trace (the kernels before the first and after the last full step, but for
//     2 + period/20 of them, occur in the steps; the head and the tail are at most about one period long).
// Noise (an extra kernel, timing jitter, idle gaps of any size) moves nothing; a trace with no repetition gets none.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "core/trace/timeline.h"

namespace mfu::trace {

struct InferredSteps {
    std::vector<size_t> startActivities; // Timeline::activities index of each step's first kernel, in time order
    size_t periodKernels = 0; // kernels per step (the median gap of the anchor kernel)
    NameId anchor = 0; // the recurring kernel that gave the period
    bool optimizerPhase = false; // phase from the optimizer's last kernel (else from the trace's first kernel)
};

// Needs categories (classification) for the optimizer rule; without optimizer kernels it uses names only.
std::optional<InferredSteps> inferSteps(const Timeline& timeline);

} // namespace mfu::trace
