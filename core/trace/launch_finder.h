#pragma once
// The launch of each GPU activity, by its correlation id, for a pass over many activities: taken in start order (or
// back in time) their ids mostly move one way, so the search gallops from the last answer (sorted_search.h).
#include <cstdint>
#include <vector>

#include "core/trace/sorted_search.h"
#include "core/trace/timeline.h"

namespace mfu::trace {

class LaunchFinder {
public:
    explicit LaunchFinder(const std::vector<Launch>& launches) // sorted by correlation, as Timeline keeps them
        : m_launches(launches)
        , m_search(launches, &correlationOf)
    {
    }

    // nullptr when the activity has no correlation id or its launch is not in the trace.
    const Launch* of(const GpuActivity& a)
    {
        if (a.correlation < 0)
            return nullptr;
        const size_t found = m_search.lowerBound(a.correlation);
        return found < m_launches.size() && m_launches[found].correlation == a.correlation ? &m_launches[found]
                                                                                           : nullptr;
    }

private:
    static int64_t correlationOf(const Launch& l) { return l.correlation; }

    const std::vector<Launch>& m_launches;
    SortedSearch<std::vector<Launch>, int64_t (*)(const Launch&)> m_search;
};

} // namespace mfu::trace
