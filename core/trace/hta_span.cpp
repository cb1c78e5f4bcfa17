#include "core/trace/hta_span.h"

#include <algorithm>
#include <limits>
#include <optional>

namespace mfu::trace {

namespace {

// Start of the last ProfilerStep annotation (CPU ones, as HTA reads them; GPU ones when there are none), when there
// are two or more steps.
std::optional<int64_t> lastStepStart(const Timeline& t)
{
    for (bool onGpu : { false, true }) {
        int count = 0;
        int64_t last = std::numeric_limits<int64_t>::min();
        for (const auto& a : t.annotations) {
            int64_t n = 0;
            if (a.onGpu != onGpu || !profilerStepNumber(t.names.name(a.name), n))
                continue;
            ++count;
            last = std::max(last, a.startNs);
        }
        if (count >= 2)
            return last;
        if (count == 1)
            return std::nullopt;
    }
    return std::nullopt;
}

} // namespace

Breakdown htaSpanBreakdown(const Timeline& t, const BreakdownOptions& options)
{
    const std::optional<int64_t> cutoff = lastStepStart(t);
    Timeline kept; // activities only: breakdownPerStep reads nothing else
    for (const auto& a : t.activities)
        if (!cutoff || launchTime(t, a) < *cutoff)
            kept.activities.push_back(a);
    if (kept.activities.empty())
        return {};
    StepPlan plan;
    Step whole;
    whole.windowStartNs = kept.activities.front().startNs; // activities are sorted by start
    whole.windowEndNs = whole.windowStartNs;
    for (const auto& a : kept.activities)
        whole.windowEndNs = std::max(whole.windowEndNs, a.endNs);
    whole.annotationStartNs = whole.windowStartNs;
    whole.annotationEndNs = whole.windowEndNs;
    plan.steps.push_back(whole);
    plan.activityStep.assign(kept.activities.size(), 0);
    return breakdownPerStep(kept, plan, options).front();
}

} // namespace mfu::trace
