#include "core/trace/run_consistency.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <set>

#include "core/text.h"

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

bool isKinetoRank(const RankAnalysis& r)
{
    return r.traceFormat.rfind("kineto", 0) == 0;
}

bool recordsProcessGroup(const RankAnalysis& r)
{
    return r.rankFromTrace || r.worldSize.has_value();
}

// PyTorch files without distributedInfo: each a single-process job (none when fewer than two files are given).
std::optional<std::string> singleProcessJobs(const std::vector<RankAnalysis>& ranks)
{
    std::vector<std::string> files;
    for (const auto& r : ranks)
        if (isKinetoRank(r) && !recordsProcessGroup(r))
            files.push_back(fileOf(r));
    if (files.empty())
        return std::nullopt;
    return listInWords(files) + (files.size() == 1 ? " records" : " record")
        + " no process group (PyTorch writes distributedInfo for every process of a torch.distributed job): "
        + (files.size() == 1 ? "a single-process job" : "single-process jobs");
}

std::string spanInWords(int64_t ns)
{
    const double minutes = static_cast<double>(ns) / 60e9;
    if (minutes >= 120)
        return std::to_string(static_cast<int64_t>(minutes / 60)) + " hours";
    if (minutes >= 2)
        return std::to_string(static_cast<int64_t>(minutes)) + " minutes";
    return std::to_string(static_cast<int64_t>(static_cast<double>(ns) / 1e9)) + " seconds";
}

// The smallest step number every rank recorded (ProfilerStep#N), if any.
std::optional<int64_t> commonStepNumber(const std::vector<RankAnalysis>& ranks)
{
    std::set<int64_t> common;
    for (const auto& s : ranks.front().steps)
        if (s.step.number > 0)
            common.insert(s.step.number);
    for (const auto& r : ranks) {
        std::set<int64_t> here;
        for (const auto& s : r.steps)
            if (common.count(s.step.number))
                here.insert(s.step.number);
        common = std::move(here);
    }
    return common.empty() ? std::nullopt : std::optional<int64_t>(*common.begin());
}

// Clocks: the start of the step every rank recorded, else of each rank's first analysed step.
std::optional<std::string> clocksApart(const std::vector<RankAnalysis>& ranks)
{
    const std::optional<int64_t> number = commonStepNumber(ranks);
    std::vector<std::pair<int64_t, std::string>> starts;
    int64_t longestStep = 0;
    for (const auto& r : ranks)
        for (const auto& s : r.steps)
            if (!number || s.step.number == *number) {
                starts.emplace_back(s.startNsAbsolute, fileOf(r));
                longestStep = std::max(longestStep, s.step.annotationDurationNs());
                break;
            }
    if (starts.size() < 2)
        return std::nullopt;
    const auto [first, last] = std::minmax_element(starts.begin(), starts.end());
    const int64_t apart = last->first - first->first;
    const int64_t window = number ? kSameStepWindowNs + 2 * longestStep : kSameRunClockWindowNs;
    if (apart <= window)
        return std::nullopt;
    const std::string what
        = number ? "their step " + std::to_string(*number) + " started " : "their steps were recorded ";
    return what + spanInWords(apart) + " apart (" + first->second + " first, " + last->second + " last)";
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
    if (auto single = singleProcessJobs(ranks))
        c.problems.push_back(*single);
    if (auto clocks = clocksApart(ranks))
        c.problems.push_back(*clocks);
    return c;
}

} // namespace mfu::trace
