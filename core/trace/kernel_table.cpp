#include "core/trace/kernel_table.h"

#include <algorithm>
#include <unordered_map>

#include "core/trace/steps.h"
#include "core/trace/trace_loader.h"

namespace mfu::trace {

std::string_view activityKindKey(ActivityKind kind)
{
    switch (kind) {
    case ActivityKind::Kernel:
        return "kernel";
    case ActivityKind::Memcpy:
        return "memcpy";
    case ActivityKind::Memset:
        return "memset";
    }
    return "kernel";
}

namespace {

// The run's index of each of the timeline's names, interned on first use.
class NameMap {
public:
    explicit NameMap(KernelTable& table)
        : m_table(table)
    {
        for (size_t i = 0; i < table.names.size(); ++i)
            m_index.emplace(table.names[i], static_cast<uint32_t>(i));
    }
    uint32_t operator()(const std::string& name)
    {
        const auto [it, inserted] = m_index.emplace(name, static_cast<uint32_t>(m_table.names.size()));
        if (inserted)
            m_table.names.push_back(name);
        return it->second;
    }

private:
    KernelTable& m_table;
    std::unordered_map<std::string, uint32_t> m_index;
};

void appendRows(KernelTable& table, Timeline& t, int rank, uint32_t file, const KernelRules& rules)
{
    classifyActivities(t, rules);
    const StepPlan plan = planSteps(t);
    std::vector<ActivityWork> work;
    if (t.recordsShapes)
        work = activityWork(t);
    NameMap names(table);
    std::vector<std::optional<uint32_t>> nameOf(t.names.size());
    table.rows.reserve(table.rows.size() + t.activities.size());
    for (size_t i = 0; i < t.activities.size(); ++i) {
        const GpuActivity& a = t.activities[i];
        auto& name = nameOf[a.name];
        if (!name)
            name = names(t.names.name(a.name));
        KernelRow row;
        row.name = *name;
        row.file = file;
        row.rank = rank;
        if (plan.activityStep[i] >= 0)
            row.step = plan.steps[static_cast<size_t>(plan.activityStep[i])].number;
        row.startNs = t.timeOriginNs + a.startNs;
        row.durationNs = a.durationNs();
        row.device = a.device;
        row.stream = a.stream;
        row.kind = a.kind;
        row.category = a.category;
        if (!work.empty())
            row.work = work[i];
        table.rows.push_back(row);
    }
}

} // namespace

void appendKernelRows(KernelTable& table, Timeline& timeline, int rank, const KernelRules& rules)
{
    table.files.push_back(timeline.sourceFile);
    appendRows(table, timeline, rank, static_cast<uint32_t>(table.files.size() - 1), rules);
}

KernelTable readKernelTable(const std::vector<std::filesystem::path>& paths, const KernelRules& rules)
{
    KernelTable table;
    const std::vector<std::filesystem::path> files = expandTracePaths(paths);
    for (size_t i = 0; i < files.size(); ++i) {
        Timeline t = loadTrace(files[i]);
        const int rank = t.rank.value_or(static_cast<int>(i)); // as loadRun: the order given
        appendKernelRows(table, t, rank, rules);
    }
    // Rows were appended file by file, each file's in start order: a stable sort by rank orders them as loadRun
    // orders the timelines.
    std::stable_sort(
        table.rows.begin(), table.rows.end(), [](const KernelRow& a, const KernelRow& b) { return a.rank < b.rank; });
    return table;
}

} // namespace mfu::trace
