#include "widgets/trace_import.h"

#include <algorithm>
#include <filesystem>

#include "core/errors.h"
#include "core/trace/trace_loader.h"
#include "widgets/background_job.h"

namespace mfu::widgets {

TraceRun importTraceRun(const QStringList& paths, const trace::KernelRules& rules, JobControl& control)
{
    std::vector<std::filesystem::path> given;
    for (const QString& p : paths)
        given.push_back(p.toStdString());
    const std::vector<std::filesystem::path> files = trace::expandTracePaths(given);
    // One file at a time (rather than loadRun over all) so progress spans the whole run, not each file anew.
    TraceRun run;
    run.paths = paths;
    const double fileCount = static_cast<double>(files.size());
    for (size_t i = 0; i < files.size(); ++i) {
        trace::ReadControl read;
        read.cancel = &control.cancel;
        read.onProgress = [&control, i, fileCount](uint64_t done, uint64_t total) {
            const double inFile = total > 0 ? static_cast<double>(done) / static_cast<double>(total) : 0.0;
            control.setProgress(0.95 * (static_cast<double>(i) + inFile) / fileCount); // the rest: analysis
        };
        run.timelines.push_back(trace::loadTrace(files[i], read));
    }
    // Rank order as trace::loadRun gives it: distributedInfo.rank, else the order given.
    for (size_t i = 0; i < run.timelines.size(); ++i)
        if (!run.timelines[i].rank)
            run.timelines[i].rank = static_cast<int>(i);
    std::stable_sort(run.timelines.begin(), run.timelines.end(),
        [](const trace::Timeline& a, const trace::Timeline& b) { return *a.rank < *b.rank; });
    if (control.cancel.load())
        throw trace::Cancelled();
    trace::AnalysisOptions options;
    options.topKernelCount = 1000; // the table filters and sorts; the CLI's top 20 would hide the long tail
    run.analysis = trace::analyzeRun(run.timelines, rules, options);
    control.setProgress(1);
    return run;
}

} // namespace mfu::widgets
