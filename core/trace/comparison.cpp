#include "core/trace/comparison.h"

#include <algorithm>
#include <cmath>

#include "core/number_format.h"

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

std::optional<std::string> gpuOf(const RunAnalysis& run)
{
    std::optional<std::string> gpu;
    for (const auto& r : run.ranks) {
        if (!r.gpuName)
            continue;
        if (gpu && *gpu != *r.gpuName)
            return "several GPUs";
        gpu = r.gpuName;
    }
    return gpu;
}

std::string milliseconds(double seconds)
{
    return formatNumber(seconds * 1e3, 3) + " ms";
}

double perStep(const Pooled& p, int64_t ns)
{
    return p.steps > 0 ? static_cast<double>(ns) / 1e9 / static_cast<double>(p.steps) : 0.0;
}

} // namespace

RunComparison compareRuns(const RunAnalysis& baseline, const RunAnalysis& optimised)
{
    RunComparison c;
    c.baselineGpu = gpuOf(baseline);
    c.optimisedGpu = gpuOf(optimised);
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

namespace mfu::trace {

std::string RunComparison::faster() const
{
    if (!(speedup > 0))
        return {};
    if (std::abs(speedup - 1) <= 0.005)
        return "same";
    return speedup > 1 ? "optimised" : "baseline";
}

std::string perStepChanges(const RunComparison& c, size_t maxCategories)
{
    std::vector<const CategoryComparison*> rows;
    for (const auto& row : c.categories)
        if (std::abs(row.deltaSecondsPerStep()) >= kPerStepChangeSeconds)
            rows.push_back(&row);
    if (rows.empty() || !(c.baselineStepSeconds > 0) || !(c.optimisedStepSeconds > 0))
        return {};
    std::sort(rows.begin(), rows.end(), [](const CategoryComparison* a, const CategoryComparison* b) {
        return std::abs(a->deltaSecondsPerStep()) > std::abs(b->deltaSecondsPerStep());
    });
    if (rows.size() > maxCategories)
        rows.resize(maxCategories);
    const double stepDelta = c.optimisedStepSeconds - c.baselineStepSeconds;
    std::string s = "Per step this run " + std::string(stepDelta <= 0 ? "saves " : "spends ")
        + milliseconds(std::abs(stepDelta)) + (stepDelta <= 0 ? "" : " more") + "; by category (GPU time): ";
    for (size_t i = 0; i < rows.size(); ++i) {
        const double d = rows[i]->deltaSecondsPerStep();
        const auto category = categoryFromKey(rows[i]->key);
        s += (i > 0 ? ", " : "") + std::string(category ? categoryLabel(*category) : "idle") + " "
            + milliseconds(std::abs(d)) + (d < 0 ? " less" : " more");
    }
    return s + ".";
}

std::string comparisonVerdict(const RunComparison& c)
{
    const std::string who = c.faster();
    std::string s;
    if (who.empty())
        s = "The step times cannot be compared: a run has no measured step.";
    else if (who == "same")
        s = "This run and the baseline take the same time per step (" + milliseconds(c.optimisedStepSeconds)
            + " against " + milliseconds(c.baselineStepSeconds) + ").";
    else
        s = "This run is " + formatNumber(who == "optimised" ? c.speedup : 1 / c.speedup, 2) + "x "
            + (who == "optimised" ? "faster" : "slower") + " than the baseline: " + milliseconds(c.optimisedStepSeconds)
            + " against " + milliseconds(c.baselineStepSeconds) + " per step.";
    const std::string changes = perStepChanges(c);
    if (!changes.empty())
        s += " " + changes;
    if (c.gpusDiffer())
        s += " They ran on different GPUs (baseline: " + *c.baselineGpu + ", this run: " + *c.optimisedGpu
            + "): the step times compare the hardware as much as the code.";
    return s;
}

} // namespace mfu::trace
