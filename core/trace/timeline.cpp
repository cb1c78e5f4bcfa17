#include "core/trace/timeline.h"

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

int64_t launchTime(const Timeline& t, const GpuActivity& a)
{
    if (a.correlation >= 0) {
        auto it = std::lower_bound(t.launches.begin(), t.launches.end(), a.correlation,
            [](const Launch& l, int64_t c) { return l.correlation < c; });
        if (it != t.launches.end() && it->correlation == a.correlation)
            return it->startNs;
    }
    return a.startNs;
}

} // namespace mfu::trace
