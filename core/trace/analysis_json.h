#pragma once
// The JSON shape `mfu-explorer trace --json` prints. Keys marked FIXED are a contract for scripts:
// ranks[] { rank, gpu_name, kernel_count, steps[] {step, start_ns, duration_s}, busy_s, idle_s,
// categories {<key>: {seconds, share}}, comm_s, comm_overlap_fraction, exposed_comm_s, measured_mfu (when known) },
// and ranks[].proposed_gpu_preset: the hardware preset id the rank's gpu_name matches (core/presets/gpu_match.h),
// or null; when null for a named GPU, gpu_preset_hint says how to add a preset (and gpu_preset_candidates lists the
// ids when the name is ambiguous). Other keys are additions and may grow.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/model/mfu.h"
#include "core/trace/analysis.h"
#include "core/trace/comparison.h"

namespace mfu::trace {

// What a rank's GPU name is matched against: the hardware presets (built-in and user), and where the user presets
// folder is, for the hint when nothing matches.
struct GpuPresetContext {
    std::vector<HardwareSpec> hardware;
    std::string userPresetFolder = "the user presets folder";
};

nlohmann::json rankToJson(
    const RankAnalysis& rank, const GpuPresetContext& gpus, const std::optional<MfuResult>& measured = std::nullopt);
// { "ranks": [...], "gpu_count", "mean_step_s", "straggler"? }; perRankMfu matches run.ranks when given.
nlohmann::json runToJson(
    const RunAnalysis& run, const GpuPresetContext& gpus, const std::vector<std::optional<MfuResult>>& perRankMfu = {});
nlohmann::json comparisonToJson(const RunComparison& comparison);
nlohmann::json mfuToJson(const MfuResult& mfu);

} // namespace mfu::trace
