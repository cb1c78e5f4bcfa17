#include "core/trace/comparison.h"

namespace mfu::trace {

namespace {

struct Pooled {
    Breakdown total;
    size_t steps = 0;
};

Pooled pool(const RunAnalysis& run)
{
    Pooled p;
    for (const auto& r : run.ranks) {
        p.total += r.total;
        p.steps += r.steps.size();
    }
    return p;
}

double perStep(const Pooled& p, int64_t ns)
{
    return p.steps > 0 ? static_cast<double>(ns) / 1e9 / static_cast<double>(p.steps) : 0.0;
}

} // namespace

RunComparison compareRuns(const RunAnalysis& baseline, const RunAnalysis& optimised)
{
    RunComparison c;
    c.baselineStepSeconds = baseline.meanStepSeconds;
    c.optimisedStepSeconds = optimised.meanStepSeconds;
    if (c.baselineStepSeconds > 0 && c.optimisedStepSeconds > 0)
        c.speedup = c.baselineStepSeconds / c.optimisedStepSeconds;
    const Pooled b = pool(baseline);
    const Pooled o = pool(optimised);
    for (int i = 0; i < kKernelCategoryCount; ++i) {
        const auto k = static_cast<size_t>(i);
        c.categories.push_back({ std::string(categoryKey(static_cast<KernelCategory>(i))),
            b.total.share(b.total.exclusiveNs[k]), o.total.share(o.total.exclusiveNs[k]),
            perStep(b, b.total.exclusiveNs[k]), perStep(o, o.total.exclusiveNs[k]) });
    }
    c.categories.push_back({ "idle", b.total.share(b.total.idleNs()), o.total.share(o.total.idleNs()),
        perStep(b, b.total.idleNs()), perStep(o, o.total.idleNs()) });
    return c;
}

} // namespace mfu::trace
