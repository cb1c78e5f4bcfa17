#pragma once
// What the Trace panel imports on a worker thread: the timelines of one run (one per rank, their activities
// classified) and their analysis, or a run merged from per-rank summaries (the analysis alone: a summary holds the
// figures, not the timeline). Built once, then shared read-only with the GUI thread.
#include <QStringList>

#include <filesystem>
#include <vector>

#include "core/trace/analysis.h"
#include "core/trace/kernel_rules.h"
#include "core/trace/timeline.h"

namespace mfu::widgets {

struct JobControl;
struct RankProgress;

struct TraceRun {
    QStringList paths; // as the user gave them (files or folders)
    std::vector<trace::Timeline> timelines; // in rank order, parallel to analysis.ranks; empty from summaries
    trace::RunAnalysis analysis;
    bool fromSummaries = false;
};

// The rank files the user's paths name: each folder expanded to its trace files, or to its summaries when it holds
// only those (trace::rankFolderKind). Cheap (a directory listing), so the panel knows the ranks before reading them.
// Throws InputError for a folder with nothing to read, with both kinds, or a mix of summary and trace arguments.
struct RunFiles {
    std::vector<std::filesystem::path> files;
    bool summaries = false;
};
RunFiles runFiles(const QStringList& paths);

// Reads every file in parallel and analyses the run. Progress goes from 0 to 1 over the files, and per file into
// `progress` when given; throws InputError "<file>: byte N: what" for a bad file and trace::Cancelled when
// control.cancel is set.
TraceRun importTraceRun(const QStringList& paths, const std::vector<std::filesystem::path>& files,
    const trace::KernelRules& rules, JobControl& control, RankProgress* progress = nullptr);
TraceRun importTraceRun(const QStringList& paths, const trace::KernelRules& rules, JobControl& control);

// Merges per-rank summaries (trace::mergeRankSummaries: the run `trace merge` prints), one after another.
TraceRun importSummaryRun(const QStringList& paths, const std::vector<std::filesystem::path>& files,
    JobControl& control, RankProgress* progress = nullptr);

} // namespace mfu::widgets
