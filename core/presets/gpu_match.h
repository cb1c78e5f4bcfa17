#pragma once
// The hardware preset a trace's GPU name (deviceProperties.name) points to, so its dense peak can be proposed.
// Only names whose dense BF16 peak is unambiguous map to a preset; anything else (H100 NVL, unknown parts) yields
// nullopt and the user picks. Variants that share a peak map to the same preset (A100 40GB/80GB/PG509: 312 TFLOPS).
#include <optional>
#include <string>
#include <string_view>

namespace mfu::trace {

std::optional<std::string> proposeHardwarePresetId(std::string_view gpuName);

} // namespace mfu::trace
