#pragma once
// The measured MFU of a training log under the one policy of core/facts/shown_mfu.h: the log's figure is the
// diagnosis's recomputed MFU (core/diagnosis/log_diagnosis.h: the log's median throughput with the model's FLOP/token
// over the GPU's dense peak), and it is shown as a number only when the log ran on the GPU whose peak it divides by.
// The Training log tab, `trace LOGFILE` and the report's log section all call shownLogMfu, so a log that names an H100
// (or divided by a B200's peak) read against a B200 (or an H100) is withheld on every surface, with the same reason.
#include <optional>
#include <string>
#include <vector>

#include "core/diagnosis/log_diagnosis.h"

namespace mfu {

struct ShownLogMfu {
    trace::LogCheck check; // the medians and the diagnosis, as checkLog gives them
    // Why no recomputed MFU is shown: the log's GPU (named, or implied by the peak it divided by) is not the one the
    // figure divides by. The diagnosis's own reasons (another model, a memory no such GPU has) stay in its findings.
    std::optional<std::string> withheld;
    // Shown beside a figure above 100%: no GPU computes above its peak, so the inputs do not describe the run.
    std::optional<std::string> warning;
    // The recomputed MFU a surface shows as the run's: the diagnosis's, when it gives one and the GPU is the log's.
    std::optional<double> mfu() const;
};

// checkLog under the policy: the context's GPU (the scenario's, or --gpu) is checked against what the log states
// (checkFileGpu); without one the log's own device is the GPU, and nothing is withheld for it.
ShownLogMfu shownLogMfu(const trace::TrainingLog& log, const trace::LogRunContext& context,
    const std::vector<HardwareSpec>& knownHardware, size_t warmupSteps = 1);

} // namespace mfu
