#include "core/trace/critical_path.h"

#include "core/number_format.h"
#include "core/trace/launch_finder.h"

#include <algorithm>
#include <map>
#include <utility>

namespace mfu::trace {

namespace {

constexpr int64_t kCrossStreamSlackNs = 10'000; // an activity on another stream ending this close before a start
constexpr size_t kNoIndex = SIZE_MAX;

// Lookups built once per timeline, shared by every step's walk.
class PathIndex {
public:
    explicit PathIndex(const Timeline& t)
        : m_t(t)
    {
        const auto& acts = t.activities;
        m_positionInStream.assign(acts.size(), 0);
        m_streamOf.assign(acts.size(), 0);
        std::map<std::pair<int32_t, int32_t>, uint32_t> streams;
        std::map<int32_t, size_t> devices;
        std::pair<int32_t, int32_t> lastKey { INT32_MIN, INT32_MIN };
        uint32_t lastStream = 0;
        for (size_t i = 0; i < acts.size(); ++i) {
            const auto key = std::make_pair(acts[i].device, acts[i].stream);
            if (key == lastKey && i > 0) { // runs of one stream: no map lookup
                m_streamOf[i] = lastStream;
                m_positionInStream[i] = static_cast<uint32_t>(m_streams[lastStream].size());
                m_streams[lastStream].push_back(static_cast<uint32_t>(i));
                continue;
            }
            auto [it, added] = streams.try_emplace(key, static_cast<uint32_t>(m_streams.size()));
            lastKey = key;
            lastStream = it->second;
            if (added) {
                m_streams.emplace_back();
                auto [device, newDevice] = devices.try_emplace(acts[i].device, m_deviceStreams.size());
                if (newDevice)
                    m_deviceStreams.emplace_back();
                m_deviceStreams[device->second].push_back(it->second);
                m_deviceOfStream.push_back(device->second);
            }
            m_streamOf[i] = it->second;
            m_positionInStream[i] = static_cast<uint32_t>(m_streams[it->second].size());
            m_streams[it->second].push_back(static_cast<uint32_t>(i)); // activities are sorted by start
        }
        m_syncs.resize(t.threads.size());
        for (size_t i = 0; i < t.launches.size(); ++i)
            if (t.launches[i].kind == RuntimeKind::Sync && t.launches[i].thread >= 0)
                m_syncs[static_cast<size_t>(t.launches[i].thread)].push_back(i);
        for (auto& list : m_syncs)
            std::sort(list.begin(), list.end(),
                [&t](size_t a, size_t b) { return t.launches[a].endNs < t.launches[b].endNs; });
        // Outermost operators per thread: each starts after the previous outermost one ended.
        m_topOps.resize(t.threads.size());
        std::vector<int64_t> openUntil(t.threads.size(), INT64_MIN);
        for (size_t i = 0; i < t.cpuOps.size(); ++i) {
            const CpuOp& op = t.cpuOps[i];
            if (op.thread < 0 || static_cast<size_t>(op.thread) >= m_topOps.size())
                continue;
            auto& until = openUntil[static_cast<size_t>(op.thread)];
            if (op.startNs >= until) {
                m_topOps[static_cast<size_t>(op.thread)].push_back(i);
                until = op.endNs;
            }
        }
    }

    // The activity before `i` on its stream, or kNoIndex.
    size_t streamPredecessor(size_t i) const
    {
        const size_t pos = m_positionInStream[i];
        return pos == 0 ? kNoIndex : m_streams[m_streamOf[i]][pos - 1];
    }

    // The activity of device `device` that ended last at or before `t` and no earlier than `notBefore`, on a stream
    // other than `exceptStream`, not yet on the path; kNoIndex when none. A stream runs one activity at a time, so
    // its ends rise with its starts: per stream, the latest one starting by `t` and back.
    size_t lastEndedBy(
        size_t device, int64_t t, int64_t notBefore, size_t exceptStream, const std::vector<uint8_t>& visited) const
    {
        size_t best = kNoIndex;
        for (const uint32_t stream : m_deviceStreams[device]) {
            if (stream == exceptStream)
                continue;
            const auto& list = m_streams[stream];
            auto it = std::upper_bound(
                list.begin(), list.end(), t, [this](int64_t v, uint32_t a) { return v < m_t.activities[a].startNs; });
            while (it != list.begin()) {
                --it;
                const GpuActivity& a = m_t.activities[*it];
                if (a.endNs < notBefore)
                    break;
                if (a.endNs > t || visited[*it])
                    continue;
                if (best == kNoIndex || a.endNs > m_t.activities[best].endNs)
                    best = *it;
                break;
            }
        }
        return best;
    }

    size_t deviceOf(size_t i) const { return m_deviceOfStream[m_streamOf[i]]; }
    size_t streamOf(size_t i) const { return m_streamOf[i]; }

    // The last synchronisation on `thread` that ended at or before t, or nullptr.
    const Launch* lastSyncBy(int32_t thread, int64_t t) const
    {
        if (thread < 0 || static_cast<size_t>(thread) >= m_syncs.size())
            return nullptr;
        const auto& list = m_syncs[static_cast<size_t>(thread)];
        auto it = std::upper_bound(
            list.begin(), list.end(), t, [this](int64_t v, size_t a) { return v < m_t.launches[a].endNs; });
        return it == list.begin() ? nullptr : &m_t.launches[*std::prev(it)];
    }

    const std::vector<size_t>& topOps(int32_t thread) const
    {
        static const std::vector<size_t> none;
        return thread >= 0 && static_cast<size_t>(thread) < m_topOps.size() ? m_topOps[static_cast<size_t>(thread)]
                                                                            : none;
    }

private:
    const Timeline& m_t;
    std::vector<std::vector<uint32_t>> m_streams; // per stream, its activities by start
    std::vector<uint32_t> m_streamOf; // per activity
    std::vector<uint32_t> m_positionInStream; // per activity
    std::vector<std::vector<uint32_t>> m_deviceStreams; // per device, its streams
    std::vector<size_t> m_deviceOfStream;
    std::vector<std::vector<size_t>> m_syncs; // per thread, launch indices of synchronisations, by end
    std::vector<std::vector<size_t>> m_topOps; // per thread, outermost CPU operators by start
};

// A segment as the walk finds it: its label points into the timeline's names (or is a literal), so walking every
// step copies no strings; only the kept chain becomes PathSegments.
struct RawSegment {
    PathKind kind = PathKind::Idle;
    KernelCategory category = KernelCategory::Other;
    int64_t startNs = 0;
    int64_t endNs = 0;
    std::string_view label;
};

PathShare shareOf(PathKind kind, KernelCategory category)
{
    switch (kind) {
    case PathKind::Kernel:
        return isCommunication(category) ? PathShare::Communication
            : isMemory(category)         ? PathShare::Memory
                                         : PathShare::GpuCompute;
    case PathKind::Launch:
    case PathKind::Host:
    case PathKind::Sync:
        return PathShare::LaunchHost;
    case PathKind::Idle:
        return PathShare::Idle;
    }
    return PathShare::Idle;
}

class StepWalk {
public:
    StepWalk(const Timeline& t, const PathIndex& index, std::vector<uint8_t>& visited)
        : m_t(t)
        , m_index(index)
        , m_visited(visited)
        , m_launches(t.launches)
    {
    }

    // Segments in reverse time order, covering [windowStart, windowEnd].
    std::vector<RawSegment> walk(const Step& step, size_t last)
    {
        m_start = step.windowStartNs;
        int64_t cursor = step.windowEndNs;
        if (last == kNoIndex) {
            idle(m_start, cursor, "no GPU activity");
            return std::move(m_out);
        }
        const int64_t lastEnd = std::min(m_t.activities[last].endNs, cursor);
        idle(lastEnd, cursor, "after the step's last kernel");
        cursor = lastEnd;
        size_t kernel = last;
        // Each pass moves the cursor back to an activity not seen before, or ends.
        while (kernel != kNoIndex)
            kernel = fromKernel(kernel, cursor);
        return std::move(m_out);
    }

private:
    void emit(PathKind kind, int64_t from, int64_t to, std::string_view label, KernelCategory category = {})
    {
        from = std::max(from, m_start);
        if (to > from)
            m_out.push_back({ kind, category, from, to, label });
    }
    void idle(int64_t from, int64_t to, const char* why) { emit(PathKind::Idle, from, to, why); }

    // Emits kernel k up to `cursor`, then finds what it waited for; returns the next kernel or kNoIndex.
    size_t fromKernel(size_t k, int64_t& cursor)
    {
        m_visited[k] = 1;
        const GpuActivity& a = m_t.activities[k];
        emit(PathKind::Kernel, a.startNs, cursor, m_t.names.name(a.name), a.category);
        cursor = std::max(std::min(a.startNs, cursor), m_start);
        if (a.startNs <= m_start)
            return kNoIndex;
        const int64_t start = cursor;
        int64_t best = INT64_MIN;
        enum class By { Nothing, Stream, OtherStream, Launch } by = By::Nothing;
        size_t next = kNoIndex;
        const size_t before = m_index.streamPredecessor(k);
        if (before != kNoIndex && !m_visited[before]) {
            best = std::min(m_t.activities[before].endNs, start);
            by = By::Stream;
            next = before;
        }
        const size_t other = m_index.lastEndedBy(
            m_index.deviceOf(k), start, start - kCrossStreamSlackNs, m_index.streamOf(k), m_visited);
        if (other != kNoIndex && m_t.activities[other].endNs > best) {
            best = m_t.activities[other].endNs;
            by = By::OtherStream;
            next = other;
        }
        const Launch* launch = launchOf(k);
        if (launch && std::min(launch->startNs, start) > best) {
            best = std::min(launch->startNs, start);
            by = By::Launch;
        }
        switch (by) {
        case By::Nothing:
            idle(m_start, start, "nothing recorded before it");
            return kNoIndex;
        case By::Stream:
        case By::OtherStream:
            idle(best, start, by == By::Stream ? "stream gap" : "waiting for another stream");
            cursor = best;
            return cursor <= m_start ? kNoIndex : next;
        case By::Launch:
            emit(PathKind::Launch, best, start, m_t.names.name(launch->name));
            cursor = best;
            return fromHost(launch->thread, cursor, m_index.deviceOf(k));
        }
        return kNoIndex;
    }

    // The host thread ran up to `cursor`: back to the synchronisation that released it, then to the GPU.
    size_t fromHost(int32_t thread, int64_t& cursor, size_t device)
    {
        int64_t searchBy = cursor; // below a synchronisation already passed, so a zero-length one is passed once
        while (cursor > m_start) {
            const Launch* sync = m_index.lastSyncBy(thread, searchBy);
            if (!sync || sync->endNs <= m_start) {
                host(thread, m_start, cursor);
                cursor = m_start;
                return kNoIndex;
            }
            host(thread, sync->endNs, cursor);
            cursor = sync->endNs;
            // The activity whose end released the wait: the last to end while it waited.
            const size_t released = m_index.lastEndedBy(device, sync->endNs, sync->startNs, SIZE_MAX, m_visited);
            if (released != kNoIndex) {
                const int64_t end = std::max(m_t.activities[released].endNs, m_start);
                emit(PathKind::Sync, end, cursor, m_t.names.name(sync->name));
                cursor = end;
                return cursor <= m_start ? kNoIndex : released;
            }
            // It waited for nothing recorded: its time is the host's.
            emit(PathKind::Host, sync->startNs, cursor, m_t.names.name(sync->name));
            cursor = std::max(std::min(sync->startNs, cursor), m_start);
            searchBy = std::min(cursor, sync->endNs - 1);
        }
        return kNoIndex;
    }

    // Host time on `thread` over [from, to], split by its outermost operators (emitted latest first).
    void host(int32_t thread, int64_t from, int64_t to)
    {
        from = std::max(from, m_start);
        if (to <= from)
            return;
        const auto& ops = m_index.topOps(thread);
        // The last outermost operator starting before `to`.
        auto it = std::upper_bound(
            ops.begin(), ops.end(), to, [this](int64_t v, size_t o) { return v < m_t.cpuOps[o].startNs; });
        int64_t t = to;
        while (t > from && it != ops.begin()) {
            const CpuOp& op = m_t.cpuOps[*std::prev(it)];
            if (op.endNs <= from)
                break;
            if (op.endNs < t)
                emit(PathKind::Host, std::max(op.endNs, from), t, "host (outside operators)");
            const int64_t opEnd = std::min(op.endNs, t);
            emit(PathKind::Host, std::max(op.startNs, from), opEnd, m_t.names.name(op.name));
            t = std::min(t, std::max(op.startNs, from));
            --it;
        }
        if (t > from)
            emit(PathKind::Host, from, t, "host (outside operators)");
    }

    // The launch of activity i, or nullptr. The walk goes back in time: the search gallops back from the last one.
    const Launch* launchOf(size_t i) { return m_launches.of(m_t.activities[i]); }

    const Timeline& m_t;
    const PathIndex& m_index;
    std::vector<uint8_t>& m_visited;
    LaunchFinder m_launches;
    int64_t m_start = 0;
    std::vector<RawSegment> m_out;
};

// The chain: time order, consecutive segments of one kind, category and label merged, absolute times, each label
// once in `path.labels`.
void keepChain(const std::vector<RawSegment>& reversed, int64_t timeOriginNs, CriticalPath& path)
{
    std::map<std::string_view, uint32_t> labelIds;
    for (auto it = reversed.rbegin(); it != reversed.rend(); ++it) {
        const RawSegment& s = *it;
        const auto [id, added] = labelIds.try_emplace(s.label, static_cast<uint32_t>(path.labels.size()));
        if (added)
            path.labels.emplace_back(s.label);
        auto& chain = path.chain;
        if (!chain.empty() && chain.back().kind == s.kind && chain.back().label == id->second
            && chain.back().category == s.category && chain.back().endNs == timeOriginNs + s.startNs) {
            chain.back().endNs = timeOriginNs + s.endNs;
            ++chain.back().count;
            continue;
        }
        PathSegment seg;
        seg.kind = s.kind;
        seg.category = s.category;
        seg.startNs = timeOriginNs + s.startNs;
        seg.endNs = timeOriginNs + s.endNs;
        seg.label = id->second;
        chain.push_back(seg);
    }
}

// The analysed steps' synchronisations and how long their launched work queued.
HostLead hostLeadOf(const Timeline& t, const StepPlan& plan)
{
    HostLead lead;
    for (const Launch& l : t.launches) {
        if (l.kind != RuntimeKind::Sync)
            continue;
        for (const Step& s : plan.steps)
            if (l.startNs >= s.windowStartNs && l.startNs < s.windowEndNs) {
                ++lead.synchronisations;
                break;
            }
    }
    LaunchFinder launches(t.launches);
    std::vector<int64_t> leads;
    for (size_t i = 0; i < t.activities.size(); ++i) {
        if (i >= plan.activityStep.size() || plan.activityStep[i] < 0)
            continue;
        if (const Launch* l = launches.of(t.activities[i]))
            leads.push_back(t.activities[i].startNs - l->endNs);
    }
    lead.launchesTimed = static_cast<int64_t>(leads.size());
    if (!leads.empty()) {
        const auto middle = leads.begin() + static_cast<std::ptrdiff_t>(leads.size() / 2);
        std::nth_element(leads.begin(), middle, leads.end());
        lead.medianLaunchLeadNs = *middle;
    }
    return lead;
}

} // namespace

std::string hostTimeCaveat(const CriticalPath& path)
{
    const HostLead& lead = path.hostLead;
    if (path.total.share(PathShare::LaunchHost) < 0.5 || lead.synchronisations > 0 || lead.launchesTimed == 0
        || lead.medianLaunchLeadNs < kHostAheadLeadNs)
        return {};
    return "Host time on this path is only as recorded: the analysed steps hold no synchronisation, so the walk never "
           "leaves the host thread, though launched work waited a median "
        + formatMilliseconds(static_cast<double>(lead.medianLaunchLeadNs) / 1e9)
        + " before it ran (the host was often ahead of its GPU). Sampled or filtered traces leave out the waits that "
          "made such a host slow; the GPU's idle gaps (Breakdown) say what it waited on.";
}

std::string_view pathKindKey(PathKind k)
{
    switch (k) {
    case PathKind::Kernel:
        return "kernel";
    case PathKind::Launch:
        return "launch";
    case PathKind::Host:
        return "host";
    case PathKind::Sync:
        return "sync";
    case PathKind::Idle:
        return "idle";
    }
    return "idle";
}

std::string_view pathShareKey(PathShare s)
{
    switch (s) {
    case PathShare::GpuCompute:
        return "gpu_compute";
    case PathShare::Communication:
        return "communication";
    case PathShare::Memory:
        return "memory";
    case PathShare::LaunchHost:
        return "launch_host";
    case PathShare::Idle:
        return "idle";
    }
    return "idle";
}

std::string_view pathShareLabel(PathShare s)
{
    switch (s) {
    case PathShare::GpuCompute:
        return "GPU compute";
    case PathShare::Communication:
        return "Communication";
    case PathShare::Memory:
        return "Memory copies and sets";
    case PathShare::LaunchHost:
        return "Launch and host";
    case PathShare::Idle:
        return "Idle";
    }
    return "Idle";
}

PathShare PathSegment::share() const
{
    return shareOf(kind, category);
}

CriticalPath criticalPath(const Timeline& t, const StepPlan& plan)
{
    CriticalPath path;
    if (plan.steps.empty())
        return path;
    path.hostLead = hostLeadOf(t, plan);
    const PathIndex index(t);
    // The step's activity that ends last.
    std::vector<size_t> last(plan.steps.size(), kNoIndex);
    for (size_t i = 0; i < t.activities.size(); ++i) {
        const int s = i < plan.activityStep.size() ? plan.activityStep[i] : -1;
        if (s < 0)
            continue;
        size_t& l = last[static_cast<size_t>(s)];
        if (l == kNoIndex || t.activities[i].endNs > t.activities[l].endNs)
            l = i;
    }
    // The chain is kept for the step of median duration.
    std::vector<size_t> order(plan.steps.size());
    for (size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::stable_sort(order.begin(), order.end(),
        [&plan](size_t a, size_t b) { return plan.steps[a].windowDurationNs() < plan.steps[b].windowDurationNs(); });
    const size_t chainStep = order[(order.size() - 1) / 2];
    std::vector<uint8_t> visited(t.activities.size(), 0);
    for (size_t s = 0; s < plan.steps.size(); ++s) {
        StepWalk walk(t, index, visited);
        const std::vector<RawSegment> segments = walk.walk(plan.steps[s], last[s]);
        StepPath sp;
        sp.step = plan.steps[s].number;
        sp.spanNs = plan.steps[s].windowDurationNs();
        for (const auto& seg : segments)
            sp.shareNs[static_cast<size_t>(shareOf(seg.kind, seg.category))] += seg.endNs - seg.startNs;
        path.total.spanNs += sp.spanNs;
        for (int k = 0; k < kPathShareCount; ++k)
            path.total.shareNs[static_cast<size_t>(k)] += sp.shareNs[static_cast<size_t>(k)];
        path.steps.push_back(sp);
        if (s == chainStep) {
            path.chainStep = sp.step;
            keepChain(segments, t.timeOriginNs, path); // absolute, as every other time of a rank's figures
        }
    }
    return path;
}

} // namespace mfu::trace
