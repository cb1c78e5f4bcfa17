// The report's opt-in sections: the planner's best configuration beside the scenario's own, and the breakdown of
// the traces the scenario file lists.
#include <filesystem>

#include "core/errors.h"
#include "core/facts/shown_mfu.h"
#include "core/money/scenario_cost.h"
#include "core/number_format.h"
#include "core/report/report_figures.h"
#include "core/scenario/scenario_facts.h"
#include "core/trace/trace_loader.h"
#include "core/units.h"

namespace mfu {

namespace {

std::string share(const trace::Breakdown& b, int64_t ns)
{
    return formatPercent(b.share(ns));
}

// Tokens per optimizer step for the whole cluster: the scenario's global batch, else the cost model's step.
// The tokens a step processes, as the window and the cost model count them (the stated batch in whole micro-steps).
std::optional<double> tokensPerStep(const Scenario& s)
{
    const int64_t tokens = processedTokensPerStep(s);
    return tokens > 0 ? std::optional(static_cast<double>(tokens)) : std::nullopt;
}

// The scenario's layout as the planner names its rows, or its parallel degrees where it cannot be laid out.
std::string currentLayout(const Scenario& s)
{
    try {
        return describeLayout(s);
    } catch (const InputError&) {
        return parallelismSummary(s.parallelism);
    }
}

} // namespace

ReportSection plannerSection(const PlannedConfig& best, const Scenario& scenario,
    const std::optional<StepPrediction>& current, const PlanResult& plan)
{
    const StepPrediction& p = best.prediction;
    // The current configuration's figure in the note column, or why there is none.
    const auto now = [&](const std::string& text) {
        return current ? "now " + text : std::string("current configuration not predicted");
    };
    ReportSection out { "Planner's best configuration",
        { { "Best", describeConfig(best),
              formatNumber(static_cast<double>(plan.evaluated), 0) + " configurations evaluated, "
                  + formatNumber(static_cast<double>(plan.fitting), 0) + " fit; " + "compared at a global batch of "
                  + formatNumber(static_cast<double>(plan.globalBatchTokens), 0) + " tokens" },
            { "Current", currentLayout(scenario), "the scenario's layout, in the planner's words" } } };
    out.rows.push_back({ "MFU", formatPercent(p.mfu), now(current ? formatPercent(current->mfu) : "") });
    // More data-parallel ranks than the batch has micro-batches for take a larger step: say so beside the times.
    std::string stepNote = now(current ? formatMilliseconds(current->stepTimeSeconds) : "");
    if (current && current->tokensPerStep != p.tokensPerStep)
        stepNote += "; steps of " + formatNumber(p.tokensPerStep, 0) + " vs " + formatNumber(current->tokensPerStep, 0)
            + " tokens";
    out.rows.push_back({ "Step time", formatMilliseconds(p.stepTimeSeconds), stepNote });
    out.rows.push_back({ "Throughput", formatNumber(p.tokensPerSecPerGpu, 0) + " tokens/s per GPU",
        now(current ? formatNumber(current->tokensPerSecPerGpu, 0) : "") });
    out.rows.push_back({ "Memory per GPU", memoryUseText(p),
        now(current ? formatGiB(current->memory.total()) + (current->fits ? "" : " (does not fit)") : "") });
    // Layouts within the error band of the fastest are ties, the simpler first: the current configuration can then
    // be a little faster than the one ranked best, and "0.98x, -0.9 points" read as advice to slow down.
    if (current && current->fits && current->mfu > 0 && p.mfu <= current->mfu)
        out.rows.push_back({ "Uplift", "none",
            "the current configuration predicts " + formatPercent(current->mfu) + ", at least this one's "
                + formatPercent(p.mfu) + ": layouts within the error band of the fastest are ties, ranked simpler "
                + "first" });
    else if (current && current->mfu > 0)
        out.rows.push_back({ "Uplift", formatNumber(p.mfu / current->mfu, 2) + "x the current MFU",
            formatNumber((p.mfu - current->mfu) * 100.0, 1) + " points" });
    if (!best.reason.empty())
        out.rows.push_back({ "Why", "", best.reason });
    return out;
}

TraceFigures traceFigures(
    const ScenarioDocument& document, const trace::KernelRules& rules, const std::vector<HardwareSpec>& knownHardware)
{
    TraceFigures out;
    out.knownHardware = knownHardware.empty() ? std::vector { document.scenario.cluster.hardware } : knownHardware;
    std::vector<std::filesystem::path> present;
    for (const std::string& path : document.tracePaths) {
        std::error_code error;
        if (std::filesystem::exists(path, error)) {
            out.loadedPaths.push_back(path);
            present.emplace_back(path);
        } else {
            out.missingPaths.push_back(path);
        }
    }
    if (present.empty())
        return out;
    std::vector<trace::Timeline> timelines = trace::loadRun(present);
    out.run = trace::analyzeRun(timelines, rules);
    for (const auto& rank : out.run.ranks)
        out.total += rank.total;

    const Scenario& s = document.scenario;
    const auto tokens = tokensPerStep(s);
    std::optional<double> checkable; // the measured MFU the cross-check may use
    std::string countedDifferences; // and the facts it counted with the scenario's values
    if (!tokens) {
        out.measuredNote = "no tokens per step in the scenario to turn the step time into MFU";
    } else if (!(out.run.meanStepSeconds > 0)) {
        out.measuredNote = "the traces have no step time";
    } else {
        try {
            // The window's and the CLI's policy: a figure the scenario cannot describe is withheld with its reason.
            const FactsCheck facts = checkFacts(factsFromTrace(out.run), s, *tokens, out.knownHardware);
            const ShownMfu shown = shownMeasuredMfu(scenarioMfuAtStepTime(s, *tokens, out.run.meanStepSeconds), facts);
            checkable = shown.crossCheckable; // the policy's, as the Trace panel and `trace --json` take it
            countedDifferences = shown.countedDifferences;
            if (shown.withheld) {
                out.measuredNote = "not shown: " + *shown.withheld;
            } else {
                out.measured = shown.computed;
                out.measuredNote = shown.warning.value_or("");
            }
        } catch (const InputError& e) {
            out.measuredNote = e.what();
        }
    }
    const trace::RunTraceMfu traceMfu = trace::traceMfuOfRun(out.run, out.knownHardware);
    out.traceMfu = traceMfu.mfu;
    out.traceMfuNote = traceMfu.note;
    out.traceHfu = traceMfu.hfu;
    out.traceHfuNote = trace::traceHfuText(traceMfu, out.run);
    if (out.traceMfu && checkable)
        out.mfuCheck
            = trace::crossCheckMfu(out.run, *out.traceMfu, *checkable, scenarioFlopFormula(s), countedDifferences);
    std::vector<std::filesystem::path> baseline;
    for (const std::string& path : document.baselineTracePaths) {
        std::error_code error;
        if (std::filesystem::exists(path, error))
            baseline.emplace_back(path);
        else
            out.missingBaselinePaths.push_back(path);
    }
    if (!baseline.empty()) {
        std::vector<trace::Timeline> baselineTimelines = trace::loadRun(baseline);
        out.baseline = trace::analyzeRun(baselineTimelines, rules);
    }
    return out;
}

ReportSection traceSection(const TraceFigures& f)
{
    ReportSection out { "Trace breakdown", {} };
    for (size_t i = 0; i < f.missingPaths.size(); ++i)
        out.rows.push_back({ i == 0 ? "Missing" : "", f.missingPaths[i], "no longer exists; not analysed" });
    if (f.loadedPaths.empty())
        return out;
    const trace::Breakdown& b = f.total;
    size_t steps = 0;
    for (const auto& rank : f.run.ranks)
        steps += rank.steps.size();
    const auto& first = f.run.ranks.front();
    out.rows.push_back({ "Analysed",
        std::to_string(f.run.ranks.size()) + (f.run.ranks.size() == 1 ? " rank" : " ranks"),
        std::to_string(steps) + (steps == 1 ? " step" : " steps") + " from "
            + std::string(trace::stepSourceLabel(first.stepSource)) + (first.gpuName ? ", " + *first.gpuName : "") });
    out.rows.push_back({ "Steps", std::to_string(first.steps.size()), first.stepSelection });
    out.rows.push_back({ "Step time", formatMilliseconds(f.run.meanStepSeconds),
        f.run.ranks.size() == 1 ? "the loop's step, as the trace's steps give it" : "mean over ranks" });
    if (const std::string note = trace::stepTimingNote(first); !note.empty())
        out.rows.push_back({ "GPU per step", formatMilliseconds(first.meanGpuWorkSeconds), note });
    out.rows.push_back({ "Busy", share(b, b.busyNs), "of the step windows: GPU running anything" });
    out.rows.push_back({ "Idle", share(b, b.idleNs()), trace::idleGapText(trace::idleGapsPerStep(b, steps)) });
    for (int c = 0; c < trace::kKernelCategoryCount; ++c)
        if (b.exclusiveNs[static_cast<size_t>(c)] > 0)
            out.rows.push_back({ std::string(trace::categoryLabel(static_cast<trace::KernelCategory>(c))),
                share(b, b.exclusiveNs[static_cast<size_t>(c)]), "exclusive share of the step" });
    out.rows.push_back({ "Communication", share(b, b.commNs),
        formatPercent(b.commOverlapFraction()) + " of it overlapped with compute; exposed "
            + share(b, b.exposedCommNs()) });
    if (!f.traceMfuNote.empty())
        out.rows.push_back({ "MFU from the trace alone", f.traceMfu ? formatPercent(*f.traceMfu) : "-",
            f.traceMfuNote
                + (f.traceMfu ? "; the FLOPs its operators' recorded shapes give over the analysed steps, against "
                                "the trace GPU's dense peak at their precision"
                              : "") });
    if (f.traceHfu)
        out.rows.push_back({ "HFU from the trace alone", formatPercent(*f.traceHfu), f.traceHfuNote });
    if (f.mfuCheck) {
        out.rows.push_back({ "Trace vs model", f.mfuCheck->agrees ? "agree" : "disagree", f.mfuCheck->summary });
        for (const auto& why : f.mfuCheck->explanations)
            out.rows.push_back({ "", "", "may explain it: " + why });
    }
    if (f.measured)
        out.rows.push_back({ "Measured MFU", formatPercent(f.measured->mfu),
            f.measuredNote.empty() ? formatTflops(f.measured->achievedFlopsPerGpu) + " per GPU from the step time"
                                   : f.measuredNote });
    else
        out.rows.push_back({ "Measured MFU", "-", f.measuredNote });
    for (const auto& rank : f.run.ranks)
        for (const auto& warning : rank.warnings)
            out.rows.push_back({ "Warning", warning, rank.sourceFile });
    return out;
}

} // namespace mfu
