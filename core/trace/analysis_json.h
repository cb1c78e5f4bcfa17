#pragma once
// The JSON shape `mfu-explorer trace --json` prints. Keys marked FIXED in issue 4 are a contract for scripts:
// ranks[] { rank, gpu_name, kernel_count, steps[] {step, start_ns, duration_s}, busy_s, idle_s,
// categories {<key>: {seconds, share}}, comm_s, comm_overlap_fraction, exposed_comm_s, measured_mfu (when known) }.
// Other keys are additions and may grow.
#include <optional>

#include <nlohmann/json.hpp>

#include "core/model/mfu.h"
#include "core/trace/analysis.h"
#include "core/trace/comparison.h"

namespace mfu::trace {

nlohmann::json rankToJson(const RankAnalysis& rank, const std::optional<MfuResult>& measured = std::nullopt);
// { "ranks": [...], "gpu_count", "mean_step_s", "straggler"? }; perRankMfu matches run.ranks when given.
nlohmann::json runToJson(const RunAnalysis& run, const std::vector<std::optional<MfuResult>>& perRankMfu = {});
nlohmann::json comparisonToJson(const RunComparison& comparison);
nlohmann::json mfuToJson(const MfuResult& mfu);

} // namespace mfu::trace
