#include "core/trace/trace_loader.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include "core/errors.h"
#include "core/io/document_kind.h"
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

namespace {

bool endsWith(const std::string& name, std::string_view suffix)
{
    return name.size() >= suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// What a *.json file beside the traces is, when it is small, whole JSON and not a trace: a run's folder often holds
// the model's config.json, the scenario or notes. Empty for a trace, or for anything that may be one (a large file, or
// JSON cut short: the trace reader then says what is wrong with it).
std::string otherDocumentIn(const std::filesystem::path& file)
{
    const std::optional<DocumentKind> kind = documentKindOfFile(file);
    if (!kind || *kind == DocumentKind::ProfilerTrace || *kind == DocumentKind::TraceSummary)
        return {};
    return *kind == DocumentKind::None ? std::string("JSON without trace events") : describeDocumentKind(*kind);
}

} // namespace

std::vector<std::filesystem::path> traceFilesInFolder(
    const std::filesystem::path& folder, std::vector<OtherFileInFolder>* others)
{
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::directory_iterator(folder)) {
        if (!entry.is_regular_file())
            continue;
        const std::string name = entry.path().filename().string();
        if (endsWith(name, ".json")) {
            if (std::string what = otherDocumentIn(entry.path()); !what.empty()) {
                if (others)
                    others->push_back({ entry.path(), std::move(what) });
                continue;
            }
        }
        if (endsWith(name, ".json") || endsWith(name, ".json.gz") || endsWith(name, ".sqlite"))
            files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());
    if (others)
        std::sort(others->begin(), others->end(),
            [](const OtherFileInFolder& a, const OtherFileInFolder& b) { return a.path < b.path; });
    return files;
}

std::string otherFilesText(const std::vector<OtherFileInFolder>& others)
{
    std::string text;
    for (const auto& o : others)
        text += "; " + o.path.filename().string() + " is " + o.what;
    return text;
}

namespace {

// One file given twice (a path and its folder, the same name twice) read as two ranks: a lone GPU's trace given
// twice became "2 rank(s)" of one run, with a doubled GPU count the calibration and the rank views took as real.
void refuseAFileTwice(const std::vector<std::filesystem::path>& files)
{
    std::map<std::filesystem::path, const std::filesystem::path*> seen;
    for (const auto& f : files) {
        std::error_code error;
        std::filesystem::path key = std::filesystem::weakly_canonical(f, error);
        if (error)
            key = f.lexically_normal();
        const auto [at, added] = seen.emplace(key, &f);
        if (!added)
            throw InputError(f.string() + ": the same file as " + at->second->string()
                + ", given twice: give each rank's trace once");
    }
}

} // namespace

std::vector<std::filesystem::path> expandTracePaths(const std::vector<std::filesystem::path>& paths)
{
    std::vector<std::filesystem::path> files;
    for (const auto& p : paths) {
        if (std::filesystem::is_directory(p)) {
            std::vector<OtherFileInFolder> others;
            const auto inFolder = traceFilesInFolder(p, &others);
            if (inFolder.empty()) {
                throw InputError(p.string() + ": no trace files (*.json, *.json.gz, *.sqlite) in this folder"
                    + otherFilesText(others));
            }
            files.insert(files.end(), inFolder.begin(), inFolder.end());
        } else {
            files.push_back(p);
        }
    }
    refuseAFileTwice(files);
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
