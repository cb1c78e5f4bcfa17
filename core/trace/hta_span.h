#pragma once
// The span Holistic Trace Analysis (HTA 0.6.x, get_temporal_breakdown / get_comm_comp_overlap) measures, for
// `trace --span hta`: every GPU activity (kernel, memcpy, memset) whose CPU launch (matched by correlation id; its own
// start when the launch is missing) comes before the start of the last ProfilerStep#N annotation, including the ones
// launched before the first step; span = last end - first start of those activities, and busy, categories,
// compute, communication and their overlap are unions over them alone (nothing clipped). Our default span instead is
// the union of the kept steps' GPU windows (docs/trace-analysis.md, "Steps"). Without ProfilerStep annotations, or
// with one, every activity counts.
#include "core/trace/breakdown.h"
#include "core/trace/timeline.h"

namespace mfu::trace {

Breakdown htaSpanBreakdown(const Timeline& timeline, const BreakdownOptions& options);

} // namespace mfu::trace
