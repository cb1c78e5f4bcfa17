#include "core/trace/cross_rank.h"

#include <algorithm>
#include <map>
#include <set>

namespace mfu::trace {

namespace {

double seconds(int64_t ns)
{
    return static_cast<double>(ns) / 1e9;
}

} // namespace

std::vector<RankStepTimes> stepTimesPerRank(const RunAnalysis& run)
{
    std::vector<RankStepTimes> out;
    for (const auto& r : run.ranks) {
        RankStepTimes t;
        t.rank = r.rank;
        t.steps = r.steps.size();
        std::vector<double> d;
        for (const auto& s : r.steps)
            d.push_back(seconds(s.step.annotationDurationNs()));
        if (!d.empty()) {
            std::sort(d.begin(), d.end());
            const size_t n = d.size();
            t.minSeconds = d.front();
            t.maxSeconds = d.back();
            t.medianSeconds = n % 2 ? d[n / 2] : (d[n / 2 - 1] + d[n / 2]) / 2;
            t.meanSeconds = r.meanStepSeconds;
        }
        out.push_back(t);
    }
    return out;
}

BusyShareMatrix busyShareMatrix(const RunAnalysis& run)
{
    BusyShareMatrix m;
    std::set<int64_t> numbers;
    for (const auto& r : run.ranks)
        for (const auto& s : r.steps)
            numbers.insert(s.step.number);
    m.steps.assign(numbers.begin(), numbers.end());
    for (const auto& r : run.ranks) {
        m.ranks.push_back(r.rank);
        std::vector<std::optional<double>> row(m.steps.size());
        for (const auto& s : r.steps) {
            const auto col = static_cast<size_t>(
                std::lower_bound(m.steps.begin(), m.steps.end(), s.step.number) - m.steps.begin());
            row[col] = s.breakdown.spanNs > 0
                ? static_cast<double>(s.breakdown.busyNs) / static_cast<double>(s.breakdown.spanNs)
                : 0.0;
        }
        m.share.push_back(std::move(row));
    }
    return m;
}

std::vector<KernelDiffRow> kernelDiff(const RunAnalysis& baseline, const RunAnalysis& optimised)
{
    std::map<std::string, KernelDiffRow> rows;
    auto add = [&rows](const RunAnalysis& run, bool isBaseline) {
        for (const auto& r : run.ranks)
            for (const auto& k : r.kernels) {
                KernelDiffRow& row = rows[k.name];
                row.name = k.name;
                row.category = std::string(categoryKey(k.category));
                (isBaseline ? row.baselineCount : row.optimisedCount) += k.count;
                (isBaseline ? row.baselineNs : row.optimisedNs) += k.totalNs;
            }
    };
    add(baseline, true);
    add(optimised, false);
    std::vector<KernelDiffRow> out;
    out.reserve(rows.size());
    for (auto& [name, row] : rows)
        out.push_back(std::move(row));
    std::stable_sort(out.begin(), out.end(), [](const KernelDiffRow& a, const KernelDiffRow& b) {
        const int64_t da = a.deltaNs() < 0 ? -a.deltaNs() : a.deltaNs();
        const int64_t db = b.deltaNs() < 0 ? -b.deltaNs() : b.deltaNs();
        return da > db; // ties keep name order
    });
    return out;
}

nlohmann::json crossRankToJson(const RunAnalysis& run)
{
    nlohmann::json times = nlohmann::json::array();
    for (const auto& t : stepTimesPerRank(run))
        times.push_back({ { "rank", t.rank }, { "steps", t.steps }, { "min_s", t.minSeconds },
            { "median_s", t.medianSeconds }, { "max_s", t.maxSeconds }, { "mean_s", t.meanSeconds } });
    const BusyShareMatrix m = busyShareMatrix(run);
    nlohmann::json share = nlohmann::json::array();
    for (const auto& row : m.share) {
        nlohmann::json cells = nlohmann::json::array();
        for (const auto& c : row)
            cells.push_back(c ? nlohmann::json(*c) : nlohmann::json(nullptr));
        share.push_back(cells);
    }
    return { { "step_times", times },
        { "busy_share", { { "ranks", m.ranks }, { "steps", m.steps }, { "share", share } } } };
}

nlohmann::json kernelDiffToJson(const std::vector<KernelDiffRow>& rows)
{
    nlohmann::json out = nlohmann::json::array();
    for (const auto& r : rows)
        out.push_back({ { "name", r.name }, { "category", r.category }, { "baseline_count", r.baselineCount },
            { "optimised_count", r.optimisedCount }, { "baseline_s", seconds(r.baselineNs) },
            { "optimised_s", seconds(r.optimisedNs) }, { "delta_s", seconds(r.deltaNs()) } });
    return out;
}

} // namespace mfu::trace
