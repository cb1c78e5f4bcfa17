#pragma once
// MFU from the trace alone, without a model: the model FLOPs its operators' recorded shapes give (trace_flops.h)
// over the time of the analysed steps, against the dense peak of the GPU the trace names at each precision the
// operators ran at. And the check of it against the MFU a scenario's model and tokens per step give for the same
// step time: one figure from the work the GPU was asked to do, the other from what the user says the run was.
#include <optional>
#include <string>
#include <vector>

#include "core/trace/analysis.h"

namespace mfu::trace {

// The hardware preset the rank's GPU name means (core/presets/gpu_match.h), or nullopt: no name, no preset, or an
// ambiguous name.
std::optional<HardwareSpec> traceHardware(const RankAnalysis& rank, const std::vector<HardwareSpec>& presets);

// Over the rank's analysed steps (their GPU windows added up), and over one of them (index into rank.steps).
// nullopt when the trace recorded no shapes, counted no model FLOPs in the steps, or the GPU has no peak.
std::optional<TraceMfu> rankTraceMfu(const RankAnalysis& rank, const HardwareSpec& hardware);
std::optional<TraceMfu> stepTraceMfu(const RankAnalysis& rank, size_t step, const HardwareSpec& hardware);
// The mean over the ranks that have one (each rank on its own GPU); nullopt when none has.
std::optional<double> runTraceMfu(const RunAnalysis& run, const std::vector<HardwareSpec>& presets);

// Beyond this relative difference the two MFUs are said to disagree, with the reasons that may explain it.
inline constexpr double kMfuDisagreement = 0.15;

struct MfuCrossCheck {
    double traceMfu = 0;
    double measuredMfu = 0;
    double relativeDifference = 0; // (measured - trace) / trace
    bool agrees = true;
    std::vector<std::string> explanations; // when they disagree: what may explain it, most likely first
    std::string summary; // one sentence: both figures and whether they agree
};

// `run`: the analysed run whose mean step time the measured MFU used.
MfuCrossCheck crossCheckMfu(const RunAnalysis& run, double traceMfu, double measuredMfu);

} // namespace mfu::trace
