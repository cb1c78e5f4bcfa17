#pragma once
// Every GPU activity of a run as one table, a row each (kernels, memory copies, memsets): what a notebook groups,
// filters and plots (the Python module's trace_kernels). A row carries what `trace --json` sums, read the same way:
// the same classification (the kernel rules), the same rank (distributedInfo.rank, else the file's position in the
// list) and the same steps (the analysed steps of core/trace/steps.h). An activity outside them (before the first
// step, in a dropped last step) has no step, as it counts in no step's figures; so the rows of kind Kernel that
// have a step are, rank by rank, the rank's kernel_count.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/trace/kernel_rules.h"
#include "core/trace/timeline.h"
#include "core/trace/trace_flops.h"

namespace mfu::trace {

std::string_view activityKindKey(ActivityKind kind); // "kernel", "memcpy", "memset"

struct KernelRow {
    uint32_t name = 0; // index into KernelTable::names
    uint32_t file = 0; // index into KernelTable::files
    int rank = 0;
    std::optional<int64_t> step; // the analysed step's number (steps[].step in trace --json); none outside them
    int64_t startNs = 0; // absolute: the file's time origin + its start, the clock of steps[].start_ns
    int64_t durationNs = 0;
    int32_t device = 0;
    int32_t stream = 0;
    ActivityKind kind = ActivityKind::Kernel;
    KernelCategory category = KernelCategory::Other;
    // The work of the operators that launched it, from their recorded shapes (core/trace/trace_flops.h); none when
    // the file records no shapes, zero for an activity no counted operator launched.
    std::optional<ActivityWork> work;
};

struct KernelTable {
    std::vector<std::string> names; // distinct activity names over the run, in order of first appearance
    std::vector<std::string> files; // the trace files, in the order given (folders expanded)
    std::vector<KernelRow> rows; // by rank, then by start within a rank
};

// Classifies the timeline's activities and assigns them to its steps (as analyzeRank does), then appends its rows.
// `rank` is the timeline's rank (its own, or its position in the run).
void appendKernelRows(KernelTable& table, Timeline& timeline, int rank, const KernelRules& rules);

// Reads each path (a folder expands to its trace files, core/trace/trace_loader.h) one at a time, keeping only the
// rows, so that memory holds one timeline and the table; orders the ranks as loadRun does. Throws InputError as
// loadTrace does.
KernelTable readKernelTable(const std::vector<std::filesystem::path>& paths, const KernelRules& rules);

} // namespace mfu::trace
