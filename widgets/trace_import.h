#pragma once
// What the Trace panel imports on a worker thread: the timelines of one run (one per rank, their activities
// classified) and their analysis. Built once, then shared read-only with the GUI thread.
#include <QStringList>

#include <vector>

#include "core/trace/analysis.h"
#include "core/trace/kernel_rules.h"
#include "core/trace/timeline.h"

namespace mfu::widgets {

struct JobControl;

struct TraceRun {
    QStringList paths; // as the user gave them (files or folders)
    std::vector<trace::Timeline> timelines; // in rank order, parallel to analysis.ranks
    trace::RunAnalysis analysis;
};

// Reads every file (a folder expands to its per-rank files) and analyses the run. Progress goes from 0 to 1 over
// the files; throws InputError "<file>: byte N: what" for a bad file and trace::Cancelled when control.cancel is set.
TraceRun importTraceRun(const QStringList& paths, const trace::KernelRules& rules, JobControl& control);

} // namespace mfu::widgets
