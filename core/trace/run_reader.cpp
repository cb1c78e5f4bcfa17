#include "core/trace/run_reader.h"

#include <algorithm>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>

// glibc's malloc_trim returns a worker's freed heap to the system. Not under AddressSanitizer, whose allocator
// replaces glibc's: there malloc_trim walks an arena glibc never set up and crashed the sanitizer run (SEGV in mtrim).
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MFU_UNDER_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define MFU_UNDER_ASAN 1
#endif
#if defined(__GLIBC__) && !defined(MFU_UNDER_ASAN)
#define MFU_GLIBC_MALLOC_TRIM 1
#include <malloc.h>
#else
#define MFU_GLIBC_MALLOC_TRIM 0
#endif

#include "core/errors.h"
#include "core/trace/trace_loader.h"

namespace mfu::trace {

std::vector<std::filesystem::path> expandRunPaths(const std::vector<std::filesystem::path>& paths)
{
    return expandTracePaths(paths);
}

namespace {

// Runs read(i, control) for every file index on a pool of workers (the calling thread one of them), each file's
// reading cancelled when the caller cancels or another file fails. Rethrows the first failure in file order once
// every worker has stopped; Cancelled when the caller cancelled.
template <typename Read> void forEachFile(size_t count, const RunReadControl& control, const Read& read)
{
    unsigned threads = control.threads > 0 ? control.threads : std::max(1u, std::thread::hardware_concurrency());
    threads = static_cast<unsigned>(std::min<size_t>(threads, std::max<size_t>(count, 1)));
    std::vector<std::exception_ptr> errors(count);
    std::atomic<size_t> next { 0 };
    std::atomic<bool> stop { false }; // the readers' cancel flag: set on the caller's cancel or any failure
    auto cancelled = [&] { return control.cancel && control.cancel->load(); };

    auto worker = [&] {
        for (;;) {
            if (stop.load() || cancelled()) {
                stop = true;
                return;
            }
            const size_t i = next.fetch_add(1);
            if (i >= count)
                return;
            try {
                ReadControl file;
                file.cancel = &stop;
                file.onProgress = [&, i](uint64_t done, uint64_t total) {
                    if (cancelled())
                        stop = true;
                    if (control.onFileProgress)
                        control.onFileProgress(i, done, total);
                };
                read(i, file);
                if (control.onFileDone)
                    control.onFileDone(i);
            } catch (...) {
                errors[i] = std::current_exception();
                stop = true;
                return;
            }
        }
    };
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < threads; ++t)
        pool.emplace_back(worker);
    worker();
    for (auto& t : pool)
        t.join();

    if (cancelled())
        throw Cancelled();
    // The first real error in file order; a Cancelled caused by another file's failure is not one.
    for (const auto& e : errors) {
        if (!e)
            continue;
        try {
            std::rethrow_exception(e);
        } catch (const Cancelled&) {
            continue;
        }
    }
    for (const auto& e : errors)
        if (e)
            std::rethrow_exception(e);
}

} // namespace

RunAnalysis readAndAnalyzeRun(const std::vector<std::filesystem::path>& files, const KernelRules& rules,
    const AnalysisOptions& options, const RunReadControl& control)
{
    std::vector<std::optional<RankAnalysis>> results(files.size());
    forEachFile(files.size(), control, [&](size_t i, const ReadControl& read) {
        Timeline timeline = loadTrace(files[i], read);
        const bool rankFromTrace = timeline.rank.has_value();
        if (!rankFromTrace)
            timeline.rank = static_cast<int>(i); // as loadRun: the order given
        results[i] = analyzeRank(timeline, rules, options);
        results[i]->rankFromTrace = rankFromTrace;
        timeline = Timeline {};
#if MFU_GLIBC_MALLOC_TRIM
        // Hand the freed timeline back to the system: glibc keeps freed heap pages in the thread's arena.
        malloc_trim(0);
#endif
    }); // each timeline is freed as its lambda returns, before the worker takes the next file

    std::vector<RankAnalysis> ranks;
    ranks.reserve(files.size());
    for (auto& r : results)
        ranks.push_back(std::move(*r));
    std::stable_sort(
        ranks.begin(), ranks.end(), [](const RankAnalysis& a, const RankAnalysis& b) { return a.rank < b.rank; });
    return finishRun(std::move(ranks));
}

std::vector<Timeline> loadRunParallel(const std::vector<std::filesystem::path>& files, const RunReadControl& control)
{
    std::vector<Timeline> timelines(files.size());
    forEachFile(
        files.size(), control, [&](size_t i, const ReadControl& read) { timelines[i] = loadTrace(files[i], read); });
    orderByRank(timelines);
    return timelines;
}

} // namespace mfu::trace
