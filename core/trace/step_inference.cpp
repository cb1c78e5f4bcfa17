#include "core/trace/step_inference.h"

#include <algorithm>

namespace mfu::trace {

namespace {

constexpr size_t kMinOccurrences = 3; // two gaps, so that regularity means something
constexpr double kMinSimilarity = 0.8;
constexpr size_t kMaxPeriodsTried = 64;

// Noise allowance on a step's kernel count: an extra or missing kernel now and then, streams reordering neighbours.
// At most a quarter of the period, so that a very short period still has to repeat.
size_t tolerance(size_t period)
{
    return std::min(std::max<size_t>(2, period / 10), period / 4);
}

size_t distance(size_t a, size_t b)
{
    return a > b ? a - b : b - a;
}

// Kernels only: memcpy/memset (data loading, host transfers) vary from step to step.
struct KernelSequence {
    std::vector<size_t> activity; // Timeline::activities index per kernel
    std::vector<NameId> name;
    std::vector<size_t> optimizerBefore; // optimizer kernels among the first i kernels (size n + 1)
    size_t size() const { return name.size(); }
    bool optimizer(size_t i) const { return optimizerBefore[i + 1] > optimizerBefore[i]; }
    bool hasOptimizer() const { return optimizerBefore.back() > 0; }
    // i is the first kernel after a run of optimizer kernels
    bool optimizerRunEndsAt(size_t i) const { return i > 0 && i < size() && optimizer(i - 1) && !optimizer(i); }
};

KernelSequence kernelSequence(const Timeline& t)
{
    KernelSequence k;
    k.optimizerBefore.push_back(0);
    for (size_t i = 0; i < t.activities.size(); ++i) {
        const GpuActivity& a = t.activities[i];
        if (a.kind != ActivityKind::Kernel)
            continue;
        k.activity.push_back(i);
        k.name.push_back(a.name);
        k.optimizerBefore.push_back(k.optimizerBefore.back() + (a.category == KernelCategory::Optimizer ? 1 : 0));
    }
    return k;
}

struct Candidate {
    size_t period = 0;
    std::vector<size_t> positions; // kernel indices of the anchor name
};

// Names that recur at regular distances, each with its period.
std::vector<Candidate> regularNames(const KernelSequence& k, size_t nameCount)
{
    std::vector<std::vector<size_t>> positions(nameCount);
    for (size_t i = 0; i < k.size(); ++i)
        positions[k.name[i]].push_back(i);
    std::vector<Candidate> out;
    std::vector<size_t> gaps;
    for (auto& p : positions) {
        if (p.size() < kMinOccurrences)
            continue;
        gaps.clear();
        for (size_t i = 1; i < p.size(); ++i)
            gaps.push_back(p[i] - p[i - 1]);
        std::nth_element(gaps.begin(), gaps.begin() + static_cast<std::ptrdiff_t>(gaps.size() / 2), gaps.end());
        const size_t median = gaps[gaps.size() / 2];
        if (median < 2)
            continue;
        const bool regular
            = std::all_of(gaps.begin(), gaps.end(), [&](size_t g) { return distance(g, median) <= tolerance(median); });
        if (regular)
            out.push_back({ median, std::move(p) });
    }
    return out;
}

// Step starts for one candidate period: each anchor occurrence moved back by the same number of kernels, so that a
// step starts after the optimizer (or at the phase of the trace's first kernel).
std::vector<size_t> stepStarts(const KernelSequence& k, const Candidate& c, bool optimizerPhase)
{
    const size_t m = c.period;
    const size_t p1 = c.positions[0];
    const size_t p2 = c.positions[1];
    size_t back = p1 % m;
    if (optimizerPhase) {
        size_t runEnd = 0;
        for (size_t i = p1 + 1; i <= p2; ++i)
            if (k.optimizerRunEndsAt(i))
                runEnd = i;
        if (runEnd == 0)
            return {};
        back = p2 - runEnd;
    }
    std::vector<size_t> starts;
    for (size_t p : c.positions) {
        if (p < back)
            continue;
        size_t start = p - back;
        if (optimizerPhase) { // snap to the nearest end of an optimizer run: noise shifts kernel counts a little
            const size_t tol = tolerance(m);
            for (size_t d = 0; d <= tol; ++d) {
                if (k.optimizerRunEndsAt(start - std::min(d, start))) {
                    start -= std::min(d, start);
                    break;
                }
                if (k.optimizerRunEndsAt(start + d)) {
                    start += d;
                    break;
                }
            }
        }
        if (starts.empty() || start > starts.back())
            starts.push_back(start);
    }
    // A head of about one period is a complete first iteration that the anchor rule could not open.
    if (!starts.empty() && starts.front() > 0 && distance(starts.front(), m) <= tolerance(m))
        starts.insert(starts.begin(), 0);
    return starts;
}

// Kernels of [b0, b1) whose names are matched, one for one, by kernels of [a0, a1).
size_t matched(const KernelSequence& k, size_t a0, size_t a1, size_t b0, size_t b1, std::vector<uint32_t>& histogram)
{
    for (size_t i = a0; i < a1; ++i)
        ++histogram[k.name[i]];
    size_t count = 0;
    for (size_t i = b0; i < b1; ++i)
        if (histogram[k.name[i]] > 0) {
            --histogram[k.name[i]];
            ++count;
        }
    for (size_t i = a0; i < a1; ++i)
        histogram[k.name[i]] = 0;
    return count;
}

bool plausible(const KernelSequence& k, const std::vector<size_t>& starts, size_t m, std::vector<uint32_t>& histogram)
{
    if (starts.size() < 3) // two full steps to compare, and the last (usually partial) one
        return false;
    const size_t tol = tolerance(m);
    for (size_t j = 0; j + 1 < starts.size(); ++j) { // full steps
        const size_t a0 = starts[j];
        const size_t a1 = starts[j + 1];
        if (distance(a1 - a0, m) > tol)
            return false;
        if (k.hasOptimizer() && k.optimizerBefore[a1] == k.optimizerBefore[a0])
            return false;
        if (j + 2 < starts.size()) {
            const size_t b1 = starts[j + 2];
            const double overlap = static_cast<double>(matched(k, a0, a1, a1, b1, histogram))
                / static_cast<double>(std::max(a1 - a0, b1 - a1));
            if (overlap < kMinSimilarity)
                return false;
        }
    }
    // The repetition must explain the whole trace: the head is the end of an iteration, the tail the start of one.
    const size_t head = starts.front();
    const size_t tail = k.size() - starts.back();
    if (head > m + tol || tail > m + tol)
        return false;
    const size_t foreign = head - matched(k, starts[0], starts[1], 0, head, histogram) + tail
        - matched(k, starts[starts.size() - 2], starts.back(), starts.back(), k.size(), histogram);
    return foreign <= 2 + m / 20;
}

} // namespace

std::optional<InferredSteps> inferSteps(const Timeline& t)
{
    const KernelSequence k = kernelSequence(t);
    std::vector<Candidate> candidates = regularNames(k, t.names.size());
    const bool optimizerPhase = k.hasOptimizer();
    // Training (optimizer present): the finest period whose steps each hold optimizer work. Otherwise the coarsest.
    std::sort(candidates.begin(), candidates.end(), [&](const Candidate& a, const Candidate& b) {
        if (a.period != b.period)
            return optimizerPhase ? a.period < b.period : a.period > b.period;
        return a.positions.front() < b.positions.front();
    });
    std::vector<uint32_t> histogram(t.names.size(), 0);
    size_t tried = 0;
    for (size_t i = 0; i < candidates.size() && tried < kMaxPeriodsTried; ++i) {
        if (i > 0 && candidates[i].period == candidates[i - 1].period)
            continue;
        ++tried;
        const std::vector<size_t> starts = stepStarts(k, candidates[i], optimizerPhase);
        if (!plausible(k, starts, candidates[i].period, histogram))
            continue;
        InferredSteps inferred;
        for (size_t s : starts)
            inferred.startActivities.push_back(k.activity[s]);
        inferred.periodKernels = candidates[i].period;
        inferred.anchor = k.name[candidates[i].positions.front()];
        inferred.optimizerPhase = optimizerPhase;
        return inferred;
    }
    return std::nullopt;
}

} // namespace mfu::trace
