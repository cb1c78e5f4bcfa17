#include "core/trace/timeline.h"

#include "core/trace/launch_finder.h"

#include <algorithm>

namespace mfu::trace {

NameId NameTable::intern(std::string_view name)
{
    if (auto it = m_ids.find(name); it != m_ids.end())
        return it->second;
    const auto id = static_cast<NameId>(m_names.size());
    m_names.emplace_back(name);
    m_ids.emplace(m_names.back(), id);
    return id;
}

std::optional<int64_t> recordedLaunchTime(const Timeline& t, const GpuActivity& a)
{
    if (const Launch* l = LaunchFinder(t.launches).of(a))
        return l->startNs;
    return std::nullopt;
}

const CollectiveMessage* collectiveMessageOf(const Timeline& t, const GpuActivity& a)
{
    if (a.correlation < 0)
        return nullptr;
    auto it = std::lower_bound(t.collectiveMessages.begin(), t.collectiveMessages.end(), a.correlation,
        [](const CollectiveMessage& m, int64_t c) { return m.correlation < c; });
    return it != t.collectiveMessages.end() && it->correlation == a.correlation ? &*it : nullptr;
}

int64_t launchTime(const Timeline& t, const GpuActivity& a)
{
    return recordedLaunchTime(t, a).value_or(a.startNs);
}

RuntimeKind runtimeKindOf(std::string_view name)
{
    // Calls that block the host until the GPU gets somewhere; everything named *Launch*, *Async or cuLaunch* only
    // queues work. cudaMemcpy without Async waits for the copy (and all work before it on the legacy stream).
    if (name.find("Synchronize") != std::string_view::npos || name == "cudaMemcpy" || name == "cuMemcpy"
        || name == "hipMemcpy" || name == "cudaMemcpy2D")
        return RuntimeKind::Sync;
    if (name.find("Launch") != std::string_view::npos || name.find("Async") != std::string_view::npos
        || name.find("launch") != std::string_view::npos)
        return RuntimeKind::Launch;
    return RuntimeKind::Other;
}

int32_t Timeline::threadIndex(int64_t tid)
{
    for (size_t i = threads.size(); i-- > 0;)
        if (threads[i] == tid)
            return static_cast<int32_t>(i);
    threads.push_back(tid);
    return static_cast<int32_t>(threads.size() - 1);
}

} // namespace mfu::trace
