#pragma once
// The window's scenario stated as a run report, the input of the diagnosis (core/diagnosis/diagnosis.h): the
// Calculator's findings and the report's log section diagnose the scenario through this.
#include <optional>

#include "core/diagnosis/diagnosis.h"
#include "core/scenario/scenario.h"

namespace mfu {

// The scenario stated as a run report for the diagnosis: its GPU and count, model (a bare parameter count too),
// precision, sequence, micro-batch, gradient accumulation and tokens per step (when its layout and batch are
// valid), and its measured throughput; stepTimeSeconds when the user gave the throughput as a step time.
ReportedRun reportedRunFromScenario(const Scenario& s, std::optional<double> stepTimeSeconds = std::nullopt);

} // namespace mfu
