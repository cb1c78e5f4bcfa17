#include "widgets/trace/trace_import.h"

#include <algorithm>
#include <filesystem>
#include <mutex>
#include <string_view>

#include "core/errors.h"
#include "core/trace/rank_summary.h"
#include "core/trace/run_reader.h"
#include "core/trace/trace_loader.h"
#include "widgets/jobs/background_job.h"
#include "widgets/trace/rank_progress.h"

namespace mfu::widgets {

namespace {

bool isSummaryFile(const std::filesystem::path& p)
{
    const std::string name = p.filename().string();
    constexpr std::string_view suffix = ".summary.json";
    return name.size() > suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
}

} // namespace

RunFiles runFiles(const QStringList& paths)
{
    RunFiles out;
    bool anyTrace = false;
    bool anySummary = false;
    for (const QString& p : paths) {
        const std::filesystem::path path = p.toStdString();
        if (std::filesystem::is_directory(path)) {
            const bool summaries = trace::rankFolderKind(path) == trace::RankFolderKind::Summaries;
            const auto files = summaries ? trace::summaryFilesInFolder(path) : trace::traceFilesInFolder(path);
            (summaries ? anySummary : anyTrace) = true;
            out.files.insert(out.files.end(), files.begin(), files.end());
        } else {
            (isSummaryFile(path) ? anySummary : anyTrace) = true;
            out.files.push_back(path);
        }
    }
    if (anySummary && anyTrace)
        throw InputError("give profiler traces or per-rank summaries (*.summary.json), not both");
    out.summaries = anySummary;
    return out;
}

TraceRun importTraceRun(const QStringList& paths, const std::vector<std::filesystem::path>& files,
    const trace::KernelRules& rules, JobControl& control, RankProgress* progress)
{
    // Every core reads a file (core/trace/run_reader.h); the bar shows the run's fraction read, each rank's share
    // counted from its own progress, so it moves as the slowest and fastest ranks advance together.
    TraceRun run;
    run.paths = paths;
    std::mutex m;
    std::vector<double> fractions(files.size(), 0.0);
    double sum = 0;
    const double fileCount = static_cast<double>(std::max<size_t>(files.size(), 1));
    trace::RunReadControl read;
    read.cancel = &control.cancel;
    read.onFileProgress = [&](size_t file, uint64_t done, uint64_t total) {
        const double inFile = total > 0 ? static_cast<double>(done) / static_cast<double>(total) : 0.0;
        if (progress)
            progress->set(file, std::min(inFile, 0.99)); // full once analysed (onFileDone)
        std::lock_guard lock(m);
        sum += inFile - fractions[file];
        fractions[file] = inFile;
        control.setProgress(0.95 * sum / fileCount); // the rest: analysis
    };
    read.onFileDone = [&](size_t file) {
        if (progress)
            progress->set(file, 1.0);
        std::lock_guard lock(m);
        sum += 1.0 - fractions[file];
        fractions[file] = 1.0;
        control.setProgress(0.95 * sum / fileCount);
    };
    // Rank order as trace::loadRun gives it: distributedInfo.rank, else the order given.
    run.timelines = trace::loadRunParallel(files, read);
    if (control.cancel.load())
        throw trace::Cancelled();
    trace::AnalysisOptions options;
    options.topKernelCount = 1000; // the table filters and sorts; the CLI's top 20 would hide the long tail
    run.analysis = trace::analyzeRun(run.timelines, rules, options);
    control.setProgress(1);
    return run;
}

TraceRun importTraceRun(const QStringList& paths, const trace::KernelRules& rules, JobControl& control)
{
    std::vector<std::filesystem::path> given;
    for (const QString& p : paths)
        given.push_back(p.toStdString());
    return importTraceRun(paths, trace::expandTracePaths(given), rules, control);
}

TraceRun importSummaryRun(const QStringList& paths, const std::vector<std::filesystem::path>& files,
    JobControl& control, RankProgress* progress)
{
    TraceRun run;
    run.paths = paths;
    run.fromSummaries = true;
    trace::RunReadControl read;
    read.cancel = &control.cancel;
    size_t done = 0;
    read.onFileDone = [&](size_t file) {
        if (progress)
            progress->set(file, 1.0);
        control.setProgress(static_cast<double>(++done) / static_cast<double>(std::max<size_t>(files.size(), 1)));
    };
    run.analysis = trace::mergeRankSummaries(files, nullptr, read);
    control.setProgress(1);
    return run;
}

} // namespace mfu::widgets
