#pragma once
// A multi-rank run read and analysed on every core: a pool of worker threads takes the rank files in order, and
// each worker reads one file, analyses it (analyzeRank) and drops its timeline before taking the next. At most
// `threads` timelines exist at once, so peak memory is that many ranks' working sets, whatever the number of ranks.
// The result is the one loadRun() + analyzeRun() give for the same files (tests/core/trace/tst_run_reader.cpp).
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <vector>

#include "core/trace/analysis.h"

namespace mfu::trace {

struct RunReadControl {
    unsigned threads = 0; // worker threads; 0 = std::thread::hardware_concurrency(); never more than the files
    // Called from the worker reading file `file` (an index into the expanded file list) about every MiB.
    std::function<void(size_t file, uint64_t done, uint64_t total)> onFileProgress;
    // Called from a worker when file `file` is read and analysed.
    std::function<void(size_t file)> onFileDone;
    const std::atomic<bool>* cancel = nullptr; // checked at every chunk of every file
};

// The files a list of paths names: a folder expands to its trace files (traceFilesInFolder). Throws InputError
// for a folder without any.
std::vector<std::filesystem::path> expandRunPaths(const std::vector<std::filesystem::path>& paths);

// Reads and analyses every file in parallel, then orders the ranks as loadRun() does (distributedInfo.rank, else
// the file's position in `files`) and adds the run-level figures (finishRun). On failure the error of the first
// failing file (in `files` order) is rethrown once every worker has stopped; Cancelled when control.cancel is set.
RunAnalysis readAndAnalyzeRun(const std::vector<std::filesystem::path>& files, const KernelRules& rules,
    const AnalysisOptions& options = {}, const RunReadControl& control = {});

// loadRun() on every core, keeping every timeline (the window's timeline view needs them): memory is the sum of
// the ranks' timelines, as for loadRun().
std::vector<Timeline> loadRunParallel(
    const std::vector<std::filesystem::path>& files, const RunReadControl& control = {});

} // namespace mfu::trace
