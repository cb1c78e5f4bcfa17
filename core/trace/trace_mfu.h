#pragma once
// MFU from the trace alone, without a model: the model FLOPs its operators' recorded shapes give (trace_flops.h)
// over the time of the analysed steps, against the dense peak of the GPU the trace names at each precision the
// operators ran at. And the check of it against the MFU a scenario's model and tokens per step give for the same
// step time: one figure from the work the GPU was asked to do, the other from what the user says the run was.
#include <optional>
#include <string>
#include <vector>

#include "core/model/flops.h"
#include "core/trace/analysis.h"

namespace mfu::trace {

// The hardware preset the rank's GPU name means (core/presets/gpu_match.h), or nullopt: no name, no preset, or an
// ambiguous name.
std::optional<HardwareSpec> traceHardware(const RankAnalysis& rank, const std::vector<HardwareSpec>& presets);

// Over the rank's analysed steps (their GPU windows added up), and over one of them (index into rank.steps).
// nullopt when the trace recorded no shapes, counted no model FLOPs in the steps, the GPU has no peak, or the figure
// would be above 100% (impossible: traceMfuAbovePeak says it).
std::optional<TraceMfu> rankTraceMfu(const RankAnalysis& rank, const HardwareSpec& hardware);
std::optional<TraceMfu> stepTraceMfu(const RankAnalysis& rank, size_t step, const HardwareSpec& hardware);
// The same over the matrix FLOPs the kernels executed (OpFlops::inStepsExecuted): the trace HFU, which counts what
// they recompute. nullopt without shapes, FLOPs or a peak, or above 100%.
std::optional<TraceMfu> rankTraceHfu(const RankAnalysis& rank, const HardwareSpec& hardware);
// The figure rankTraceMfu refuses because it is above 100%, or nullopt when there is none or it is possible.
std::optional<double> traceMfuAbovePeak(const RankAnalysis& rank, const HardwareSpec& hardware);

// Above this share of the GEMM and attention kernel time without operator shapes, the trace MFU is a lower bound.
inline constexpr double kUnattributedTolerance = 0.02;

// The trace MFU of a run as every surface shows it (window, report, CLI): the mean over the ranks that have one
// (each on its own GPU), how much matrix-kernel time it could not count, and one sentence saying what the figure
// counts or why there is none. Never a figure above 100%.
struct RunTraceMfu {
    std::optional<double> mfu;
    // The mean trace HFU over the same ranks, when mfu is shown: what the kernels executed, recomputation included.
    std::optional<double> hfu;
    double unattributedShare = 0; // of the GEMM and attention kernel time of the analysed steps, pooled over ranks
    bool lowerBound = false; // unattributedShare above kUnattributedTolerance: the uncounted work would add to it
    std::optional<double> abovePeak; // the impossible figure withheld, when that is why mfu is empty
    std::string note;
};
RunTraceMfu traceMfuOfRun(const RunAnalysis& run, const std::vector<HardwareSpec>& presets);
// "45.37%, the matrix FLOPs the kernels executed (recomputation included: the Q·Kᵀ ...)": the trace HFU as every
// surface words it, "" when there is none.
std::string traceHfuText(const RunTraceMfu& m, const RunAnalysis& run);
// traceMfuOfRun(...).mfu.
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

// `run`: the analysed run whose mean step time the measured MFU used. `formula`: the FLOP/token formula the measured
// MFU counted with (scenarioFlopFormula): one that counts attention over the whole square of keys is named when the
// trace's attention ran causal and the scenario's figure is the higher. `scenarioDifferences`: the counted facts the
// file states otherwise than the scenario (ShownMfu::countedDifferences), named as the first suspect of a
// disagreement the FLOPs per step explain.
MfuCrossCheck crossCheckMfu(const RunAnalysis& run, double traceMfu, double measuredMfu, FlopFormula formula,
    const std::string& scenarioDifferences = {});

// "the scenario's formula (...) counts ... : per_component_causal counts as the trace does", or "" when the formula
// counts attention as the trace's operators ran it (causal, or no causal attention recorded) or counts none (6N).
std::string attentionCountNote(const RunAnalysis& run, FlopFormula formula);

} // namespace mfu::trace
