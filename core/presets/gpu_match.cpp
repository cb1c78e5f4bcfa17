#include "core/presets/gpu_match.h"

#include <algorithm>
#include <cctype>

#include <nlohmann/json.hpp>

#include "core/io/field_reader.h"

namespace mfu {

namespace {

char upper(char c)
{
    return static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
}

std::string_view trimmed(std::string_view s)
{
    const auto first = s.find_first_not_of(" \t\r\n");
    if (first == std::string_view::npos)
        return {};
    const auto last = s.find_last_not_of(" \t\r\n");
    return s.substr(first, last - first + 1);
}

// Iterative glob with single-star backtracking: linear in practice, no recursion on hostile patterns.
bool globMatch(std::string_view pattern, std::string_view name)
{
    size_t p = 0;
    size_t n = 0;
    size_t starP = std::string_view::npos;
    size_t starN = 0;
    while (n < name.size()) {
        if (p < pattern.size() && pattern[p] == '*') {
            starP = p++;
            starN = n;
        } else if (p < pattern.size() && (pattern[p] == '?' || upper(pattern[p]) == upper(name[n]))) {
            ++p;
            ++n;
        } else if (starP != std::string_view::npos) {
            p = starP + 1;
            n = ++starN;
        } else {
            return false;
        }
    }
    while (p < pattern.size() && pattern[p] == '*')
        ++p;
    return p == pattern.size();
}

// Higher is more specific: twice the literal characters, plus one for an exact name (no wildcard).
int specificity(std::string_view pattern)
{
    const auto wild
        = static_cast<int>(std::count_if(pattern.begin(), pattern.end(), [](char c) { return c == '*' || c == '?'; }));
    const int literal = static_cast<int>(pattern.size()) - wild;
    return 2 * literal + (wild == 0 ? 1 : 0);
}

} // namespace

bool gpuPatternMatches(std::string_view pattern, std::string_view name)
{
    return globMatch(trimmed(pattern), trimmed(name));
}

GpuMatch matchGpuName(std::string_view gpuName, const std::vector<HardwareSpec>& hardware)
{
    GpuMatch result;
    const std::string_view name = trimmed(gpuName);
    if (name.empty())
        return result;
    int best = -1;
    std::vector<std::pair<std::string, std::string>> tied; // (id, pattern) at the best specificity
    for (const HardwareSpec& h : hardware)
        for (const std::string& pattern : h.matchPatterns) {
            if (!gpuPatternMatches(pattern, name))
                continue;
            const int score = specificity(trimmed(pattern));
            if (score > best) {
                best = score;
                tied.clear();
            }
            if (score == best && std::none_of(tied.begin(), tied.end(), [&](const auto& t) { return t.first == h.id; }))
                tied.emplace_back(h.id, pattern);
        }
    if (tied.size() == 1) {
        result.presetId = tied.front().first;
        result.pattern = tied.front().second;
    } else {
        for (const auto& t : tied)
            result.candidates.push_back(t.first);
    }
    return result;
}

std::optional<std::string> proposeHardwarePresetId(std::string_view gpuName, const std::vector<HardwareSpec>& hardware)
{
    return matchGpuName(gpuName, hardware).presetId;
}

std::string unmatchedGpuHint(std::string_view gpuName, const GpuMatch& match, std::string_view folderHint)
{
    const std::string name(trimmed(gpuName));
    if (match.ambiguous()) {
        std::string ids;
        for (const auto& id : match.candidates)
            ids += (ids.empty() ? "" : ", ") + id;
        return "'" + name + "' could be any of " + ids
            + ": choose one (--gpu ID on the command line, the scenario's GPU in the app), or add the exact name to "
              "one preset's \"match\" list in a preset file in "
            + std::string(folderHint) + " (see docs/presets.md)";
    }
    return "no hardware preset matches '" + name
        + "': choose one (--gpu ID on the command line, the scenario's GPU in the app), or add a preset (or an "
          "override of a "
        + "built-in, by id) whose \"match\" list contains \"" + name + "\" in a preset file in "
        + std::string(folderHint) + " (see docs/presets.md)";
}

std::vector<std::string> matchPatternsFromJson(const nlohmann::json& list, const std::string& key)
{
    if (!list.is_array())
        throw FieldError(key, "must be an array of GPU name patterns, not " + jsonTypeName(list));
    std::vector<std::string> patterns;
    for (size_t i = 0; i < list.size(); ++i) {
        const std::string item = key + "[" + std::to_string(i) + "]";
        if (!list[i].is_string())
            throw FieldError(
                item, "must be a string (a GPU name or a glob such as \"*H100*SXM*\"), not " + jsonTypeName(list[i]));
        const std::string pattern = list[i].get<std::string>();
        if (pattern.find_first_not_of(" *?\t") == std::string::npos)
            throw FieldError(item, "must name part of a GPU name (a pattern of only wildcards would match every GPU)");
        patterns.push_back(pattern);
    }
    return patterns;
}

} // namespace mfu
