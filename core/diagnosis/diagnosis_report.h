#pragma once
// The documented JSON of what a run (or several runs) reported, read for `mfu-explorer diagnose FILE.json` and the
// Calculator panel. Either one run object or { "runs": [ ... ] }. Keys of a run (all optional except gpu):
//   label, gpu (hardware preset id), gpus, model (model preset id) | params (bare count), precision (bf16|fp8),
//   seq_len, micro_batch, grad_accum (per GPU), tokens_per_step (global), step_time_s, tokens_per_sec,
//   tokens_per_sec_scope (per_gpu|cluster|unknown), flops_per_token (FLOP), achieved_tflops,
//   achieved_tflops_scope, peak_tflops (the denominator the report used), mfu (fraction) | mfu_percent.
// Unknown keys are errors (a typo must not silently drop a figure).
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/diagnosis/diagnosis.h"
#include "core/presets/presets.h"

namespace mfu {

std::vector<ReportedRun> reportedRunsFromJson(const nlohmann::json& document, const PresetLibrary& presets);
std::vector<ReportedRun> reportedRunsFromText(
    std::string_view text, const std::string& sourceName, const PresetLibrary& presets);

} // namespace mfu
