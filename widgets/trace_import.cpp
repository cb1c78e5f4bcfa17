#include "widgets/trace_import.h"

#include <algorithm>
#include <filesystem>
#include <mutex>

#include "core/errors.h"
#include "core/trace/run_reader.h"
#include "core/trace/trace_loader.h"
#include "widgets/background_job.h"

namespace mfu::widgets {

TraceRun importTraceRun(const QStringList& paths, const trace::KernelRules& rules, JobControl& control)
{
    std::vector<std::filesystem::path> given;
    for (const QString& p : paths)
        given.push_back(p.toStdString());
    const std::vector<std::filesystem::path> files = trace::expandTracePaths(given);
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
        std::lock_guard lock(m);
        sum += inFile - fractions[file];
        fractions[file] = inFile;
        control.setProgress(0.95 * sum / fileCount); // the rest: analysis
    };
    read.onFileDone = [&](size_t file) {
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

} // namespace mfu::widgets
