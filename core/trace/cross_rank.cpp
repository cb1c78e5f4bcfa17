#include "core/trace/cross_rank.h"
#include "core/trace/trace_time.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <set>

namespace mfu::trace {

namespace {

// Hyndman & Fan type 7 on sorted values: h = (n - 1) p, between the order statistics floor(h) and floor(h) + 1.
double quantile(const std::vector<double>& sorted, double p)
{
    const double h = static_cast<double>(sorted.size() - 1) * p;
    const auto lo = static_cast<size_t>(h);
    const size_t hi = std::min(lo + 1, sorted.size() - 1);
    return sorted[lo] + (h - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

} // namespace

std::vector<RankStepTimes> stepTimesPerRank(const RunAnalysis& run)
{
    std::vector<RankStepTimes> out;
    for (const auto& r : run.ranks) {
        RankStepTimes t;
        t.rank = r.rank;
        t.steps = r.steps.size();
        for (const auto& s : r.steps)
            t.stepSeconds.push_back(nsToSeconds(s.step.annotationDurationNs()));
        std::vector<double> d = t.stepSeconds;
        if (!d.empty()) {
            std::sort(d.begin(), d.end());
            const size_t n = d.size();
            t.minSeconds = d.front();
            t.maxSeconds = d.back();
            t.medianSeconds = n % 2 ? d[n / 2] : (d[n / 2 - 1] + d[n / 2]) / 2;
            t.lowerQuartileSeconds = quantile(d, 0.25);
            t.upperQuartileSeconds = quantile(d, 0.75);
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

CollectiveWaits collectiveWaits(const RunAnalysis& run)
{
    CollectiveWaits out;
    for (const auto& r : run.ranks)
        out.ranks.push_back({ r.rank, 0.0, 0 });
    if (run.ranks.size() < 2)
        return out;
    size_t common = SIZE_MAX;
    size_t total = 0;
    for (const auto& r : run.ranks) {
        common = std::min(common, r.collectives.size());
        total += r.collectives.size();
    }
    size_t matched = 0;
    for (size_t k = 0; k < common; ++k) {
        const KernelCategory category = run.ranks.front().collectives[k].category;
        if (std::any_of(run.ranks.begin(), run.ranks.end(),
                [&](const RankAnalysis& r) { return r.collectives[k].category != category; }))
            break;
        size_t slowest = 0;
        int64_t latest = run.ranks[0].collectives[k].startNsAbsolute;
        int64_t earliest = latest;
        for (size_t i = 1; i < run.ranks.size(); ++i) {
            const int64_t start = run.ranks[i].collectives[k].startNsAbsolute;
            if (start > latest) {
                latest = start;
                slowest = i;
            }
            earliest = std::min(earliest, start);
        }
        int64_t waitSum = 0;
        for (size_t i = 0; i < run.ranks.size(); ++i) {
            const int64_t wait = latest - run.ranks[i].collectives[k].startNsAbsolute;
            out.ranks[i].waitSeconds += nsToSeconds(wait);
            waitSum += wait;
        }
        ++out.ranks[slowest].timesSlowest;
        out.collectives.push_back({ k, std::string(categoryKey(category)), run.ranks[slowest].rank,
            nsToSeconds(latest - earliest), nsToSeconds(waitSum) / static_cast<double>(run.ranks.size()) });
        ++matched;
    }
    out.unmatched = total - matched * run.ranks.size();
    return out;
}

std::string kernelFunctionName(std::string_view name)
{
    if (name.substr(0, 5) == "void ")
        name.remove_prefix(5);
    std::string out;
    int depth = 0;
    for (const char c : name) {
        if (c == '(' && depth == 0)
            break; // the parameter list
        if (c == '<')
            ++depth;
        else if (c == '>' && depth > 0)
            --depth;
        else if (depth == 0)
            out += c;
    }
    while (!out.empty() && out.back() == ' ')
        out.pop_back();
    return out;
}

namespace {

// Moves row `from` (of the baseline only) into row `into` (of the optimised run only).
void pair(KernelDiffRow& into, KernelDiffRow& from)
{
    into.baselineName = from.name;
    into.baselineCount = from.baselineCount;
    into.baselineNs = from.baselineNs;
    into.baselineNsPerStep = from.baselineNsPerStep;
    from = KernelDiffRow {};
}

bool onlyBaseline(const KernelDiffRow& r)
{
    return !r.name.empty() && r.baselineCount > 0 && r.optimisedCount == 0;
}

bool onlyOptimised(const KernelDiffRow& r)
{
    return !r.name.empty() && r.optimisedCount > 0 && r.baselineCount == 0 && r.baselineName.empty();
}

// The largest of a run's unpaired rows matching `match`, or nullptr.
template <typename Match> KernelDiffRow* largest(std::vector<KernelDiffRow>& rows, bool baseline, Match match)
{
    KernelDiffRow* best = nullptr;
    for (auto& r : rows) {
        if (!(baseline ? onlyBaseline(r) : onlyOptimised(r)) || !match(r))
            continue;
        const int64_t ns = baseline ? r.baselineNs : r.optimisedNs;
        if (!best || ns > (baseline ? best->baselineNs : best->optimisedNs))
            best = &r;
    }
    return best;
}

void pairRenamedKernels(std::vector<KernelDiffRow>& rows)
{
    // The same function, other template arguments: largest with largest, while both runs have one left.
    for (auto& r : rows) {
        if (!onlyOptimised(r))
            continue;
        const std::string function = kernelFunctionName(r.name);
        KernelDiffRow* base = largest(rows, true,
            [&](const KernelDiffRow& b) { return b.category == r.category && kernelFunctionName(b.name) == function; });
        if (base)
            pair(r, *base);
    }
    // A collective renamed by another library version: the only unpaired one of its kind on each side.
    std::map<std::string, std::pair<int, int>> perCategory; // unpaired rows: baseline, optimised
    for (const auto& r : rows) {
        const auto c = categoryFromKey(r.category);
        if (!c || !isCommunication(*c))
            continue;
        perCategory[r.category].first += onlyBaseline(r) ? 1 : 0;
        perCategory[r.category].second += onlyOptimised(r) ? 1 : 0;
    }
    for (const auto& [key, counts] : perCategory) {
        if (counts.first != 1 || counts.second != 1)
            continue;
        // A copy, not the structured binding: lambdas may not capture bindings before C++20's P1091 (clang 14).
        const auto category = key;
        auto sameCategory = [&category](const KernelDiffRow& r) { return r.category == category; };
        KernelDiffRow* optimised = largest(rows, false, sameCategory);
        KernelDiffRow* base = largest(rows, true, sameCategory);
        pair(*optimised, *base);
    }
    rows.erase(
        std::remove_if(rows.begin(), rows.end(), [](const KernelDiffRow& r) { return r.name.empty(); }), rows.end());
}

} // namespace

std::vector<KernelDiffRow> kernelDiff(const RunAnalysis& baseline, const RunAnalysis& optimised)
{
    std::map<std::string, KernelDiffRow> rows;
    auto add = [&rows](const RunAnalysis& run, bool isBaseline) {
        for (const auto& r : run.ranks) {
            const double steps = static_cast<double>(std::max<size_t>(1, r.steps.size()));
            for (const auto& k : r.kernels) {
                KernelDiffRow& row = rows[k.name];
                row.name = k.name;
                row.category = std::string(categoryKey(k.category));
                (isBaseline ? row.baselineCount : row.optimisedCount) += k.count;
                (isBaseline ? row.baselineNs : row.optimisedNs) += k.totalNs;
                (isBaseline ? row.baselineNsPerStep : row.optimisedNsPerStep) += static_cast<double>(k.totalNs) / steps;
            }
        }
    };
    add(baseline, true);
    add(optimised, false);
    std::vector<KernelDiffRow> out;
    out.reserve(rows.size());
    for (auto& [name, row] : rows)
        out.push_back(std::move(row));
    pairRenamedKernels(out);
    std::stable_sort(out.begin(), out.end(), [](const KernelDiffRow& a, const KernelDiffRow& b) {
        return std::abs(a.deltaNsPerStep()) > std::abs(b.deltaNsPerStep()); // ties keep name order
    });
    return out;
}

nlohmann::json crossRankToJson(const RunAnalysis& run)
{
    nlohmann::json times = nlohmann::json::array();
    for (const auto& t : stepTimesPerRank(run))
        times.push_back({ { "rank", t.rank }, { "steps", t.steps }, { "min_s", t.minSeconds },
            { "lower_quartile_s", t.lowerQuartileSeconds }, { "median_s", t.medianSeconds },
            { "upper_quartile_s", t.upperQuartileSeconds }, { "max_s", t.maxSeconds }, { "mean_s", t.meanSeconds } });
    const BusyShareMatrix m = busyShareMatrix(run);
    nlohmann::json share = nlohmann::json::array();
    for (const auto& row : m.share) {
        nlohmann::json cells = nlohmann::json::array();
        for (const auto& c : row)
            cells.push_back(c ? nlohmann::json(*c) : nlohmann::json(nullptr));
        share.push_back(cells);
    }
    nlohmann::json j = { { "step_times", times },
        { "busy_share", { { "ranks", m.ranks }, { "steps", m.steps }, { "share", share } } } };
    if (run.ranks.size() >= 2) {
        const CollectiveWaits w = collectiveWaits(run);
        nlohmann::json ranks = nlohmann::json::array();
        for (const auto& r : w.ranks)
            ranks.push_back({ { "rank", r.rank }, { "wait_s", r.waitSeconds }, { "times_slowest", r.timesSlowest } });
        nlohmann::json calls = nlohmann::json::array();
        for (const auto& c : w.collectives)
            calls.push_back({ { "index", c.index }, { "category", c.category }, { "slowest_rank", c.slowestRank },
                { "max_wait_s", c.maxWaitSeconds }, { "mean_wait_s", c.meanWaitSeconds } });
        j["collective_wait"] = { { "ranks", ranks }, { "collectives", calls }, { "unmatched_calls", w.unmatched } };
    }
    return j;
}

nlohmann::json kernelDiffToJson(const std::vector<KernelDiffRow>& rows)
{
    nlohmann::json out = nlohmann::json::array();
    for (const auto& r : rows) {
        nlohmann::json j = { { "name", r.name }, { "category", r.category }, { "baseline_count", r.baselineCount },
            { "optimised_count", r.optimisedCount }, { "baseline_s", nsToSeconds(r.baselineNs) },
            { "optimised_s", nsToSeconds(r.optimisedNs) }, { "delta_s", nsToSeconds(r.deltaNs()) },
            { "baseline_s_per_step", r.baselineNsPerStep * 1e-9 },
            { "optimised_s_per_step", r.optimisedNsPerStep * 1e-9 },
            { "delta_s_per_step", r.deltaNsPerStep() * 1e-9 } };
        if (!r.baselineName.empty())
            j["baseline_name"] = r.baselineName;
        out.push_back(j);
    }
    return out;
}

} // namespace mfu::trace
