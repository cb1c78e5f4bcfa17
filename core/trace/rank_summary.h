#pragma once
// A rank's analysis as a compact file, for map/reduce over a cluster's scheduler (docs/cluster-scale.md): the map
// step (`mfu-explorer trace FILE --summary-out RANK.summary.json`) analyses one trace where it lies and writes
// everything the run-level figures need; the reduce step (`mfu-explorer trace merge SUMMARY...`) rebuilds the
// RankAnalysis of every rank from its summary, bit for bit, and prints what `trace FILES... --json` prints.
//
// File: { "format": "mfu-explorer-trace-summary", "version": 1, "options": {tiny_kernel_ns, idle_gap_ns,
//   top_kernel_count, span}, "rank": int|null (null: not in the trace; merge numbers it by position), "source_file",
//   "gpu_name", "world_size", "trace_format", "attention": {implementation, share}|null, "step_source",
//   "dropped_last_step", "step_selection", "gpu_step_annotations", "mean_step_s", "step_spread_s", "mean_gpu_work_s",
//   "mean_gpu_busy_s", "steps": [{number, annotation_start_ns, annotation_end_ns, window_start_ns, window_end_ns,
//   activity_count, work_start_ns, work_end_ns, start_ns_absolute, breakdown}], "total": breakdown, "kernels":
//   [{name, category, count, total_ns, max_ns, share}], "collectives": [[category, start_ns_absolute, duration_ns(,
//   message_bytes, group_size)]], "work": {op_flops, critical_path} (rank_summary_work.h; version 2), "warnings" }
// Version 3 adds the step selection and each step's GPU work window (steps follow the CPU ProfilerStep annotations);
// version 4 each collective's recorded message and group size (version 3 summaries read without them); version 5
// leaves what fused attention backward kernels recompute out of the model FLOPs (attention_recomputed_flops): a
// summary of versions 2 to 4 with attention counted it, and reads with a warning.
// Versions 1 and 2 are still read: version 1 has no figures from shapes and no critical path, neither has the GPU
// work windows, and their steps may be the GPU-side annotations that PyTorch 2.11 writes over a fraction of a step.
// Times are integer nanoseconds; the two doubles are written with 17 significant digits (exact round trip).
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/trace/analysis.h"
#include "core/trace/run_reader.h"

namespace mfu::trace {

inline constexpr std::string_view kRankSummaryFormat = "mfu-explorer-trace-summary";
inline constexpr int kRankSummaryVersion = 5; // 5: attention's recomputation out of the model FLOPs

nlohmann::json rankSummaryToJson(const RankAnalysis& rank, const AnalysisOptions& options);
// Throws InputError "<fileName>: <key>: <what>" for a wrong format, version or key.
RankAnalysis rankSummaryFromJson(const nlohmann::json& summary, const std::string& fileName, AnalysisOptions& options);

void writeRankSummary(const std::filesystem::path& path, const RankAnalysis& rank, const AnalysisOptions& options);

// Summary files (*.summary.json) directly inside a folder, sorted by name.
std::vector<std::filesystem::path> summaryFilesInFolder(const std::filesystem::path& folder);

// Reads the summaries (a folder expands to its *.summary.json), numbers the ranks without a rank by their position
// as loadRun() does, orders them by rank and adds the run-level figures. Throws InputError when the summaries were
// made with different options. control: onFileDone after each summary, cancel checked before each (Cancelled);
// threads and onFileProgress are not used (summaries are small and read one after another).
RunAnalysis mergeRankSummaries(const std::vector<std::filesystem::path>& paths, AnalysisOptions* options = nullptr,
    const RunReadControl& control = {});

// What a folder of ranks holds, for opening it as one run: per-rank summaries (each of its trace-like files, *.json
// and the rest, is a *.summary.json) or profiler traces. Throws InputError naming the folder when it holds neither,
// or both kinds (a merge of summaries and a read of traces are different runs).
enum class RankFolderKind { Traces, Summaries };
RankFolderKind rankFolderKind(const std::filesystem::path& folder);

} // namespace mfu::trace
