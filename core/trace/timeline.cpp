#include "core/trace/timeline.h"

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

} // namespace mfu::trace
