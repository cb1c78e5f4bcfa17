#include "core/trace/breakdown.h"

#include <algorithm>

#include "core/number_format.h"
#include "core/trace/launch_finder.h"

namespace mfu::trace {

namespace {

// Exclusive attribution order: computation first, then memory, then communication (see breakdown.h).
constexpr std::array<KernelCategory, kKernelCategoryCount> kPriority { KernelCategory::Gemm,
    KernelCategory::AttentionFwd, KernelCategory::AttentionBwd, KernelCategory::Elementwise,
    KernelCategory::Normalization, KernelCategory::SoftmaxLoss, KernelCategory::Optimizer, KernelCategory::Other,
    KernelCategory::Memcpy, KernelCategory::Memset, KernelCategory::CommAllReduce, KernelCategory::CommAllGather,
    KernelCategory::CommReduceScatter, KernelCategory::CommAllToAll, KernelCategory::CommSendRecv,
    KernelCategory::CommBroadcast, KernelCategory::CommOther };

constexpr int64_t kNoLaunch = INT64_MIN;

struct Point {
    int64_t t;
    int delta;
    KernelCategory category;
    int64_t launchEndNs = kNoLaunch; // for a start: when its launch returned on the host
};

class Sweep {
public:
    Sweep(const std::vector<Step>& steps, std::vector<Breakdown>& out, int64_t gapThresholdNs)
        : m_steps(steps)
        , m_out(out)
        , m_gapThreshold(gapThresholdNs)
        , m_prev(steps.front().windowStartNs)
    {
    }

    void apply(const Point& p)
    {
        advanceTo(p.t);
        if (p.delta > 0 && m_active == 0 && m_gap > 0 && !m_gapEnded) {
            m_gapEnded = true;
            m_gapEndLaunchNs = p.launchEndNs;
        }
        const auto c = static_cast<size_t>(p.category);
        m_count[c] += p.delta;
        m_active += p.delta;
        if (isCommunication(p.category))
            m_comm += p.delta;
        else if (isMemory(p.category))
            m_memory += p.delta;
        else
            m_compute += p.delta;
    }

    void finish()
    {
        advanceTo(m_steps.back().windowEndNs);
        closeGap();
    }

private:
    void advanceTo(int64_t t)
    {
        while (m_prev < t && m_window < m_steps.size()) {
            const int64_t windowEnd = m_steps[m_window].windowEndNs;
            if (m_prev >= windowEnd) {
                ++m_window;
                continue;
            }
            const int64_t pieceEnd = std::min(t, windowEnd);
            addPiece(m_prev, pieceEnd - m_prev);
            m_prev = pieceEnd;
        }
        m_prev = std::max(m_prev, t);
    }

    void addPiece(int64_t start, int64_t dt)
    {
        Breakdown& b = m_out[m_window];
        if (m_active == 0) {
            if (m_gapWindow != m_window) {
                closeGap();
                m_gapStart = start;
            }
            m_gapWindow = m_window;
            m_gap += dt;
            return;
        }
        closeGap();
        b.busyNs += dt;
        for (size_t c = 0; c < m_count.size(); ++c)
            if (m_count[c] > 0)
                b.categoryNs[c] += dt;
        for (KernelCategory c : kPriority)
            if (m_count[static_cast<size_t>(c)] > 0) {
                b.exclusiveNs[static_cast<size_t>(c)] += dt;
                break;
            }
        if (m_compute > 0)
            b.computeNs += dt;
        if (m_comm > 0)
            b.commNs += dt;
        if (m_memory > 0)
            b.memoryNs += dt;
        if (m_compute > 0 && m_comm > 0)
            b.overlapNs += dt;
    }

    void closeGap()
    {
        if (m_gap > 0 && m_gap >= m_gapThreshold && m_gapWindow < m_out.size()) {
            Breakdown& b = m_out[m_gapWindow];
            ++b.idleGapCount;
            b.idleGapNs += m_gap;
            if (m_gapEnded && m_gapEndLaunchNs != kNoLaunch)
                (m_gapEndLaunchNs > m_gapStart ? b.idleGapHostNs : b.idleGapQueuedNs) += m_gap;
        }
        m_gap = 0;
        m_gapWindow = SIZE_MAX;
        m_gapEnded = false;
    }

    const std::vector<Step>& m_steps;
    std::vector<Breakdown>& m_out;
    int64_t m_gapThreshold;
    int64_t m_prev;
    size_t m_window = 0;
    std::array<int, kKernelCategoryCount> m_count {};
    int m_active = 0;
    int m_compute = 0;
    int m_comm = 0;
    int m_memory = 0;
    int64_t m_gap = 0;
    size_t m_gapWindow = SIZE_MAX;
    int64_t m_gapStart = 0;
    bool m_gapEnded = false; // an activity started at the gap's end
    int64_t m_gapEndLaunchNs = kNoLaunch; // and its launch returned then
};

} // namespace

Breakdown& Breakdown::operator+=(const Breakdown& o)
{
    spanNs += o.spanNs;
    busyNs += o.busyNs;
    for (size_t c = 0; c < categoryNs.size(); ++c) {
        categoryNs[c] += o.categoryNs[c];
        exclusiveNs[c] += o.exclusiveNs[c];
    }
    computeNs += o.computeNs;
    commNs += o.commNs;
    memoryNs += o.memoryNs;
    overlapNs += o.overlapNs;
    idleGapCount += o.idleGapCount;
    idleGapNs += o.idleGapNs;
    idleGapHostNs += o.idleGapHostNs;
    idleGapQueuedNs += o.idleGapQueuedNs;
    kernelCount += o.kernelCount;
    kernelTimeNs += o.kernelTimeNs;
    tinyKernelCount += o.tinyKernelCount;
    tinyKernelTimeNs += o.tinyKernelTimeNs;
    return *this;
}

IdleGapsPerStep idleGapsPerStep(const Breakdown& total, size_t steps)
{
    const double n = static_cast<double>(std::max<size_t>(1, steps));
    return { static_cast<double>(total.idleGapCount) / n, static_cast<double>(total.idleGapNs) * 1e-9 / n,
        static_cast<double>(total.idleGapHostNs) * 1e-9 / n, static_cast<double>(total.idleGapQueuedNs) * 1e-9 / n };
}

std::string idleGapText(const IdleGapsPerStep& g)
{
    if (g.count <= 0)
        return "no gap of 0.1 ms or more";
    const bool whole = g.count == static_cast<double>(static_cast<int64_t>(g.count));
    std::string text = formatNumber(g.count, whole ? 0 : 1) + (g.count == 1 ? " gap" : " gaps")
        + " of 0.1 ms or more a step, " + formatMilliseconds(g.seconds);
    const std::string host = "waiting on a launch from the host";
    const std::string queued = "with the next work already launched (waiting on another stream, a peer rank or a "
                               "wait the trace does not show)";
    // All of it one way: said once, not as a part equal to the whole.
    if (g.hostSeconds > 0 && g.hostSeconds >= g.seconds)
        return text + ", all " + host;
    if (g.queuedSeconds > 0 && g.queuedSeconds >= g.seconds)
        return text + ", all " + queued;
    std::string parts;
    if (g.hostSeconds > 0)
        parts = formatMilliseconds(g.hostSeconds) + " " + host;
    if (g.queuedSeconds > 0)
        parts += (parts.empty() ? "" : ", ") + formatMilliseconds(g.queuedSeconds) + " " + queued;
    return parts.empty() ? text : text + ": " + parts;
}

std::vector<Breakdown> breakdownPerStep(const Timeline& t, const StepPlan& plan, const BreakdownOptions& options)
{
    std::vector<Breakdown> out(plan.steps.size());
    if (plan.steps.empty())
        return out;
    for (size_t s = 0; s < plan.steps.size(); ++s)
        out[s].spanNs = plan.steps[s].windowDurationNs();

    const int64_t spanStart = plan.steps.front().windowStartNs;
    const int64_t spanEnd = plan.steps.back().windowEndNs;
    std::vector<Point> points;
    points.reserve(t.activities.size() * 2);
    LaunchFinder launches(t.launches);
    auto launchEnd = [&](const GpuActivity& a) {
        const Launch* l = launches.of(a);
        return l ? l->endNs : kNoLaunch;
    };
    for (size_t i = 0; i < t.activities.size(); ++i) {
        const GpuActivity& a = t.activities[i];
        if (plan.activityStep[i] >= 0 && a.kind == ActivityKind::Kernel) {
            Breakdown& b = out[static_cast<size_t>(plan.activityStep[i])];
            ++b.kernelCount;
            b.kernelTimeNs += a.durationNs();
            if (a.durationNs() < options.tinyKernelNs) {
                ++b.tinyKernelCount;
                b.tinyKernelTimeNs += a.durationNs();
            }
        }
        const int64_t start = std::max(a.startNs, spanStart);
        const int64_t end = std::min(a.endNs, spanEnd);
        if (start >= end)
            continue;
        points.push_back({ start, +1, a.category, launchEnd(a) });
        points.push_back({ end, -1, a.category });
    }
    std::sort(points.begin(), points.end(), [](const Point& a, const Point& b) { return a.t < b.t; });
    Sweep sweep(plan.steps, out, options.idleGapNs);
    for (const Point& p : points)
        sweep.apply(p);
    sweep.finish();
    return out;
}

} // namespace mfu::trace
