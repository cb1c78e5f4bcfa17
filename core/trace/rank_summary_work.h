#pragma once
// The part of a per-rank summary (rank_summary.h, version 2) that holds the work from the recorded shapes and the
// steps' critical paths, so that `trace merge` prints the op_flops, roofline and critical_path a trace gives.
#include <nlohmann/json.hpp>

#include "core/trace/analysis.h"
#include "core/trace/summary_reader.h"

namespace mfu::trace {

// { "op_flops": {...}, "critical_path": {...} }: every figure RankAnalysis::opFlops and criticalPath hold.
nlohmann::json workToJson(const RankAnalysis& rank);
void workFromJson(const nlohmann::json& work, const summary::Reader& in, RankAnalysis& rank);

} // namespace mfu::trace
