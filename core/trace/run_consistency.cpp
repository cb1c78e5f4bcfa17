#include "core/trace/run_consistency.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

namespace mfu::trace {

namespace {

std::string fileOf(const RankAnalysis& r)
{
    return std::filesystem::path(r.sourceFile).filename().string();
}

// "a.json (8), b.json (16)" for the ranks that state the value.
template <typename Value> std::string listing(const std::vector<std::pair<std::string, Value>>& values)
{
    std::string s;
    for (const auto& [file, v] : values) {
        if (!s.empty())
            s += ", ";
        if constexpr (std::is_same_v<Value, std::string>)
            s += file + " (" + v + ")";
        else
            s += file + " (" + std::to_string(v) + ")";
    }
    return s;
}

} // namespace

std::string RunConsistency::sentence() const
{
    if (problems.empty())
        return {};
    std::string s = "These files look like different jobs, not the ranks of one run: ";
    for (size_t i = 0; i < problems.size(); ++i)
        s += (i ? "; " : "") + problems[i];
    return s + ".";
}

RunConsistency checkOneRun(const std::vector<RankAnalysis>& ranks)
{
    RunConsistency c;
    if (ranks.size() < 2)
        return c;
    std::vector<std::pair<std::string, int>> worlds;
    std::vector<std::pair<std::string, std::string>> gpus;
    std::map<int, std::vector<std::string>> byRank;
    std::optional<int> largestWorld;
    for (const auto& r : ranks) {
        if (r.worldSize) {
            worlds.emplace_back(fileOf(r), *r.worldSize);
            largestWorld = std::max(largestWorld.value_or(0), *r.worldSize);
        }
        if (r.gpuName)
            gpus.emplace_back(fileOf(r), *r.gpuName);
        if (r.rankFromTrace)
            byRank[r.rank].push_back(fileOf(r));
    }
    std::set<int> worldValues;
    for (const auto& w : worlds)
        worldValues.insert(w.second);
    if (worldValues.size() > 1)
        c.problems.push_back("their world sizes differ: " + listing(worlds));
    std::set<std::string> gpuValues;
    for (const auto& g : gpus)
        gpuValues.insert(g.second);
    if (gpuValues.size() > 1)
        c.problems.push_back("they ran on different GPUs: " + listing(gpus));
    for (const auto& [rank, files] : byRank)
        if (files.size() > 1) {
            std::string names;
            for (const auto& f : files)
                names += (names.empty() ? "" : ", ") + f;
            c.problems.push_back(
                "rank " + std::to_string(rank) + " appears " + std::to_string(files.size()) + " times (" + names + ")");
        }
    if (worldValues.size() == 1 && largestWorld && static_cast<int>(ranks.size()) > *largestWorld)
        c.problems.push_back(
            std::to_string(ranks.size()) + " ranks for a world size of " + std::to_string(*largestWorld));
    // Clocks: the first analysed step's absolute start per rank.
    std::vector<std::pair<int64_t, std::string>> starts;
    for (const auto& r : ranks)
        if (!r.steps.empty())
            starts.emplace_back(r.steps.front().startNsAbsolute, fileOf(r));
    if (starts.size() >= 2) {
        const auto [first, last] = std::minmax_element(starts.begin(), starts.end());
        const int64_t apart = last->first - first->first;
        if (apart > kSameRunClockWindowNs) {
            const double minutes = static_cast<double>(apart) / 60e9;
            const std::string span = minutes >= 120 ? std::to_string(static_cast<int64_t>(minutes / 60)) + " hours"
                                                    : std::to_string(static_cast<int64_t>(minutes)) + " minutes";
            c.problems.push_back("their steps were recorded " + span + " apart (" + first->second + " first, "
                + last->second + " last)");
        }
    }
    return c;
}

} // namespace mfu::trace
