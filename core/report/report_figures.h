#pragma once
// The key figures of a scenario, as the report prints them: labelled rows in titled sections, each computed by the
// core function that owns it (FLOP/token, MFU from a measured throughput, the cost model's prediction, money). Plain
// strings, so the PDF, the HTML page and a test read the same text; the numbers behind them are kept alongside for
// the charts. A part that cannot be computed (no throughput, a bare model the cost model cannot predict, no job to
// cost) leaves its section out and says why in `notes`.
// Two parts are opt-in (ReportOptions), because they take time or need data from outside core: the planner's best
// configuration, and the breakdown of the traces whose paths the document holds (a path that no longer exists is
// listed as missing, not an error). The diagnosis of the measured figures and the training logs the document lists
// (its medians and diagnosis) are always there when the scenario has them.
// The planner and the sweeps take seconds on a large cluster, so a caller off the GUI thread can follow them
// (ReportOptions::progress) and stop them (ReportOptions::cancel: reportFigures then throws trace::Cancelled).
#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/calibration/trace_calibration.h"
#include "core/costmodel/error_band.h"
#include "core/costmodel/planner.h"
#include "core/costmodel/step_prediction.h"
#include "core/costmodel/sweep.h"
#include "core/model/mfu.h"
#include "core/money/scenario_cost.h"
#include "core/scenario/predict_command.h"
#include "core/scenario/scenario_file.h"
#include "core/trace/analysis.h"
#include "core/trace/trace_mfu.h"

namespace mfu {

struct ReportRow {
    std::string label;
    std::string value;
    std::string note; // formula or source, small print
};

struct ReportSection {
    std::string title;
    std::vector<ReportRow> rows;
};

// The document's traces, analysed (core/trace) and set against the scenario.
struct TraceFigures {
    std::vector<std::string> loadedPaths;
    std::vector<std::string> missingPaths; // no longer on disk
    trace::RunAnalysis run;
    trace::Breakdown total; // summed over ranks and analysed steps: the shares the report prints
    std::optional<MfuResult> measured; // from the mean step time and the scenario's tokens per step
    std::string measuredNote; // why there is no measured MFU, or a warning about it
    // The trace's own MFU from its operators' recorded shapes (core/trace/trace_mfu.h), mean over ranks, and its check
    // against the measured one.
    std::optional<double> traceMfu;
    std::string traceMfuNote; // what the trace MFU counts, or why there is none (trace::traceMfuOfRun)
    std::optional<double> traceHfu; // the same over the FLOPs the kernels executed, recomputation included
    std::string traceHfuNote; // trace::traceHfuText
    std::optional<trace::MfuCrossCheck> mfuCheck;
    std::vector<HardwareSpec> knownHardware; // what the traces' GPU names were matched against
    // The run the document compares against (baseline_trace_paths), when its files are there.
    std::optional<trace::RunAnalysis> baseline;
    std::vector<std::string> missingBaselinePaths;
};

// A trace calibration the report shows beside the cost model's prediction (never instead of it). Not part of the
// scenario file: the window's Trace panel or `report --calibration FILE` gives it.
struct ReportCalibration {
    TraceCalibration calibration;
    std::string source; // where it came from, as the reader knows it: the calibration file or the traces' names
};

struct ReportOptions {
    bool plan = false; // run the planner for the best configuration (seconds on a large cluster)
    // The Predict panel's sweeps of the current configuration over sequence length, GPU count and (for a run across
    // scale-up domains) the network, each point with its error band from these residuals (the shipped validation
    // table's; null: no bands).
    bool sweeps = false;
    const ErrorBandModel* errorBands = nullptr;
    const trace::KernelRules* traceRules = nullptr; // analyse the document's traces with these; null: skip them
    // Every GPU preset, so a diagnosis recognises a peak taken from another GPU; empty: the scenario's GPU only.
    std::vector<HardwareSpec> knownHardware;
    // Called from the calling thread now and then with the share done (0..1); checked between the planner's and
    // the sweeps' configurations.
    std::function<void(double)> progress;
    const std::atomic<bool>* cancel = nullptr;
    // The `mfu-explorer predict` line that states the scenario, or why none does (the application's
    // predictCommandOf, which knows the presets): a row of the Scenario section. None: no row.
    std::optional<PredictCommand> predictCommand;
    // The scenario predicted with these terms, in a section after the uncalibrated prediction; a calibration that
    // cannot describe the scenario (another model or GPU) is a note saying why.
    std::optional<ReportCalibration> calibration;
};

// Begins each note about the cost section (a job that could not be costed, a measurement set aside), so a panel
// that shows only the cost can pick its notes out of `notes`.
inline constexpr std::string_view kCostNotePrefix = "Cost: ";

struct ReportFigures {
    std::vector<ReportSection> sections;
    std::vector<std::string> notes; // what is missing and why
    FlopsPerToken flopsPerToken;
    std::optional<MfuResult> measured;
    std::optional<StepPrediction> predicted;
    std::optional<CalibratedPrediction> calibrated; // when options.calibration applies to the scenario
    std::optional<ScenarioCost> cost;
    std::optional<PlannedConfig> bestConfig; // the planner's first, when options.plan
    std::optional<TraceFigures> trace; // when options.traceRules and the document has trace paths
    // Sequence length, then GPU count, then the network per GPU for a run across scale-up domains, when
    // options.sweeps.
    std::vector<SweepResult> sweeps;
    // Per sweep, each point's MFU calibrated to the trace (calibratedSweepMfu), when the calibration applies.
    std::vector<std::vector<std::optional<double>>> calibratedSweepMfu;
};

ReportFigures reportFigures(const ScenarioDocument& document, const ReportOptions& options = {});

// The last guard before a figure reaches the PDF or the page (reportFigures ends with it): a row whose value or note
// shows "inf", "NaN%" or "$inf" gets "-" instead and a note saying so, never printed as if it were an answer.
void setAsideNonFiniteFigures(ReportFigures& figures);

// The parts, for callers that want one (report_sections.cpp). traceFigures throws InputError when no trace path
// exists any more or one cannot be read.
// `knownHardware`: the presets the traces' GPU names are matched against for their own MFU and roofline (empty: the
// scenario's GPU only).
TraceFigures traceFigures(const ScenarioDocument& document, const trace::KernelRules& rules,
    const std::vector<HardwareSpec>& knownHardware = {});
ReportSection traceSection(const TraceFigures& figures);
// The first rank's work from recorded shapes: matrix FLOPs per step and their precisions, the operators counted and
// missing, the longest operator problems against their roofline (nullopt when the trace records no shapes); what
// bounded its steps (critical path); and the comparison with the baseline (nullopt without one).
std::optional<ReportSection> traceWorkSection(const TraceFigures& figures);
std::optional<ReportSection> criticalPathSection(const TraceFigures& figures);
std::optional<ReportSection> baselineComparisonSection(const TraceFigures& figures);
// The diagnosis of the scenario's measured figures (the Calculator's findings): the corrected MFU, then one row per
// finding. Empty, with the reason in `unavailable`, when there is no measured throughput or nothing to diagnose.
std::optional<ReportSection> diagnosisSection(const Scenario& scenario, const std::vector<HardwareSpec>& knownHardware,
    std::optional<double> stepTimeSeconds = std::nullopt, std::string* unavailable = nullptr);
// One training log the document lists: its steps and medians after one warm-up step, then the diagnosis of the
// MFU it claims, read against the scenario (its model and GPU; the log's own GPU count and tokens per step where it
// states them). A file that no longer exists is a "Missing" row; one that is not a training log throws InputError.
ReportSection trainingLogSection(
    const std::string& path, const Scenario& scenario, const std::vector<HardwareSpec>& knownHardware);
// The calibrated prediction beside the uncalibrated one: where the calibration came from and what it measured, the
// calibrated figures with their band and basis, then each term as the trace fitted it and as it stands here.
ReportSection calibrationSection(const CalibratedPrediction& prediction, const ReportCalibration& calibration);
ReportSection plannerSection(const PlannedConfig& best, const Scenario& scenario,
    const std::optional<StepPrediction>& current, const PlanResult& plan);

// "TP 8 (SP) x PP 4 (1F1B) x CP 1, EP 1, HSDP 1"
std::string parallelismSummary(const Parallelism& p);

} // namespace mfu
