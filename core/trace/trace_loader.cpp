#include "core/trace/trace_loader.h"

#include <algorithm>

#include "core/errors.h"
#include "core/io/read_file.h"
#include "core/trace/kineto_reader.h"
#include "core/trace/nsys_reader.h"
#include "core/trace/prefetch_source.h"

namespace mfu::trace {

Timeline loadTrace(const std::filesystem::path& path, const ReadControl& control)
{
    if (std::filesystem::is_directory(path))
        throw InputError(path.string() + ": is a folder; open it as a multi-rank run");
    return readingInput(path.string(), [&] {
        if (isSqliteFile(path))
            return readNsysSqlite(path, control);
        auto source = openTraceFilePrefetched(path, control); // gzip: inflate on a second thread, overlapping the parse
        return readKinetoTrace(*source);
    });
}

std::vector<std::filesystem::path> traceFilesInFolder(const std::filesystem::path& folder)
{
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::directory_iterator(folder)) {
        if (!entry.is_regular_file())
            continue;
        const std::string name = entry.path().filename().string();
        auto endsWith = [&](std::string_view suffix) {
            return name.size() >= suffix.size()
                && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
        };
        if (endsWith(".json") || endsWith(".json.gz") || endsWith(".sqlite"))
            files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());
    return files;
}

std::vector<std::filesystem::path> expandTracePaths(const std::vector<std::filesystem::path>& paths)
{
    std::vector<std::filesystem::path> files;
    for (const auto& p : paths) {
        if (std::filesystem::is_directory(p)) {
            const auto inFolder = traceFilesInFolder(p);
            if (inFolder.empty())
                throw InputError(p.string() + ": no trace files (*.json, *.json.gz, *.sqlite) in this folder");
            files.insert(files.end(), inFolder.begin(), inFolder.end());
        } else {
            files.push_back(p);
        }
    }
    return files;
}

std::vector<Timeline> loadRun(const std::vector<std::filesystem::path>& paths, const ReadControl& control)
{
    const std::vector<std::filesystem::path> files = expandTracePaths(paths);
    std::vector<Timeline> timelines;
    timelines.reserve(files.size());
    for (const auto& f : files)
        timelines.push_back(loadTrace(f, control));
    orderByRank(timelines);
    return timelines;
}

void orderByRank(std::vector<Timeline>& timelines)
{
    for (size_t i = 0; i < timelines.size(); ++i)
        if (!timelines[i].rank)
            timelines[i].rank = static_cast<int>(i);
    std::stable_sort(
        timelines.begin(), timelines.end(), [](const Timeline& a, const Timeline& b) { return *a.rank < *b.rank; });
}

} // namespace mfu::trace
