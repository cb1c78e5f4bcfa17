// The report's sections about what the run claimed: the diagnosis of the scenario's measured figures (the
// Calculator's findings) and, for each training log the scenario lists, its medians after warm-up and the diagnosis
// of the MFU it claims (the Trace panel's Training log tab).
#include <filesystem>
#include <fstream>

#include "core/diagnosis/diagnosis_json.h"
#include "core/diagnosis/log_diagnosis.h"
#include "core/diagnosis/scenario_run.h"
#include "core/errors.h"
#include "core/facts/shown_log_mfu.h"
#include "core/io/read_file.h"
#include "core/number_format.h"
#include "core/report/report_figures.h"
#include "core/scenario/scenario_facts.h"

namespace mfu {

namespace {

std::string severityLabel(const std::string& severity)
{
    return severity == "error" ? "Error" : severity == "warning" ? "Warning" : "Note";
}

// withheld: why the policy shows no corrected MFU (core/facts/shown_log_mfu.h), said in its row instead.
void addFindings(ReportSection& out, const RunDiagnosis& run, const std::optional<std::string>& withheld = {})
{
    if (withheld)
        out.rows.push_back({ "Corrected MFU", "-", "not shown: " + *withheld });
    else
        out.rows.push_back(
            { "Corrected MFU", run.hasCorrectedMfu() ? formatPercent(run.mfu) : "-", correctedMfuText(run) });
    for (const Finding& f : run.findings)
        out.rows.push_back({ severityLabel(f.severity), f.message, "" });
    if (run.findings.empty())
        out.rows.push_back({ "Findings", "none: the figures agree with each other and with the GPU's dense peak", "" });
}

template <typename T> std::string orNotLogged(const std::optional<T>& v, double scale, int decimals, const char* unit)
{
    return v ? formatNumber(*v * scale, decimals) + unit : std::string("not logged");
}

} // namespace

std::optional<ReportSection> diagnosisSection(const Scenario& s, const std::vector<HardwareSpec>& knownHardware,
    std::optional<double> stepTimeSeconds, std::string* unavailable)
{
    if (!s.measuredThroughput) {
        if (unavailable)
            *unavailable = "no measured throughput in the scenario";
        return std::nullopt;
    }
    try {
        const Diagnosis d = diagnose({ reportedRunFromScenario(s, stepTimeSeconds) },
            knownHardware.empty() ? std::vector { s.cluster.hardware } : knownHardware);
        ReportSection out { "Diagnosis of the measured figures", {} };
        for (const RunDiagnosis& run : d.runs)
            addFindings(out, run);
        return out;
    } catch (const InputError& e) {
        if (unavailable)
            *unavailable = e.what();
        return std::nullopt;
    }
}

ReportSection trainingLogSection(
    const std::string& path, const Scenario& s, const std::vector<HardwareSpec>& knownHardware)
{
    const std::string name = std::filesystem::path(path).filename().string();
    ReportSection out { "Training log: " + name, {} };
    std::error_code error;
    if (!std::filesystem::exists(path, error)) {
        out.rows.push_back({ "Missing", path, "no longer exists; not read" });
        return out;
    }
    std::ifstream in = openInputStream(path, "a training log");
    const trace::TrainingLog log = trace::parseTrainingLog(in, name);
    constexpr size_t kWarmupSteps = 1; // as the window and `trace LOGFILE` read it
    // The scenario's tokens per step where the log states none, as the window counts them (processedTokensPerStep:
    // the global batch in whole micro-steps; 0 for a layout that does not divide, then the log's own figure or none).
    const double tokensPerStep = static_cast<double>(processedTokensPerStep(s));
    // The window's and `trace LOGFILE`'s policy for the recomputed MFU (core/facts/shown_log_mfu.h).
    const ShownLogMfu shown = shownLogMfu(log, trace::scenarioLogContext(s, tokensPerStep, log, name),
        knownHardware.empty() ? std::vector { s.cluster.hardware } : knownHardware, kWarmupSteps);
    const trace::LogCheck& check = shown.check;
    const trace::LogSummary& m = check.summary;
    const char* scope = log.scope == trace::LogScope::PerGpu ? " per GPU" : " (scope not stated)";
    out.rows.push_back({ "File", path, "format: " + log.format });
    out.rows.push_back({ "Steps", std::to_string(log.steps.size()),
        "medians over " + std::to_string(m.stepsUsed) + " after " + std::to_string(kWarmupSteps) + " warm-up" });
    out.rows.push_back({ "Step time", orNotLogged(m.medianStepSeconds, 1, 3, " s"), "median" });
    out.rows.push_back({ "Tokens/s", orNotLogged(m.medianTokensPerSec, 1, 0, scope), "median" });
    out.rows.push_back({ "TFLOPS", orNotLogged(m.medianTflops, 1, 1, scope), "median, as the log states it" });
    out.rows.push_back({ "MFU claimed", orNotLogged(m.medianMfu, 100, 2, "%"), "median, as the log states it" });
    // A fact of the log the diagnosis reads the GPU against (log_memory_mismatch, log_peak_fallback): said beside it.
    if (log.facts.deviceMemoryBytes)
        out.rows.push_back({ "Device memory", formatGiB(*log.facts.deviceMemoryBytes),
            "the memory the log reports in use over its share of the device's" });
    if (check.diagnosis)
        for (const RunDiagnosis& run : check.diagnosis->runs)
            addFindings(out, run, shown.withheld);
    else
        out.rows.push_back({ "Diagnosis", "-", check.unavailable });
    return out;
}

} // namespace mfu
