#include "core/trace/rank_file_labels.h"

#include "core/trace/analysis.h"

#include <algorithm>
#include <string_view>

namespace mfu::trace {

namespace {

constexpr size_t kElidedAtLeast = 8; // a shorter shared prefix ("rank", "run_") is read at a glance

std::string_view fileNameOf(std::string_view path)
{
    const size_t slash = path.find_last_of("/\\");
    return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

bool isSeparator(char c)
{
    return c == '_' || c == '-' || c == '.' || c == ' ';
}

} // namespace

std::vector<std::string> distinctFileLabels(const std::vector<std::string>& paths)
{
    std::vector<std::string_view> names;
    names.reserve(paths.size());
    for (const std::string& p : paths)
        names.push_back(fileNameOf(p));
    size_t shared = names.size() >= 2 ? names.front().size() : 0;
    for (size_t i = 1; i < names.size(); ++i) {
        const auto [a, b] = std::mismatch(
            names.front().begin(), names.front().begin() + static_cast<long>(shared), names[i].begin(), names[i].end());
        shared = static_cast<size_t>(a - names.front().begin());
    }
    // Back to the start of the word the names differ in, so a label starts with a whole word: "rank-0", not "0".
    if (shared > 0)
        --shared;
    while (shared > 0 && !isSeparator(names.front()[shared - 1]))
        --shared;
    std::vector<std::string> labels;
    labels.reserve(names.size());
    for (std::string_view n : names)
        labels.push_back(
            shared >= kElidedAtLeast && shared < n.size() ? "\u2026" + std::string(n.substr(shared)) : std::string(n));
    return labels;
}

std::vector<std::string> rankFileLabels(const RunAnalysis& run)
{
    std::vector<std::string> files;
    files.reserve(run.ranks.size());
    for (const RankAnalysis& r : run.ranks)
        files.push_back(r.sourceFile);
    return distinctFileLabels(files);
}

} // namespace mfu::trace
