#include "core/report/report_figures.h"

#include <algorithm>
#include <cmath>

#include "core/calibration/calibrated_sweep.h"
#include "core/costmodel/cost_model.h"
#include "core/errors.h"
#include "core/facts/file_facts.h"
#include "core/model/param_count.h"
#include "core/number_format.h"
#include "core/scenario/scenario_facts.h"
#include "core/trace/byte_source.h"
#include "core/units.h"

namespace mfu {

namespace {

std::string usd(double v)
{
    return "$" + formatNumber(v, 0);
}
std::string days(double seconds)
{
    return formatNumber(seconds / kSecondsPerDay, 1) + " days";
}
std::string count(double v)
{
    return formatNumber(v, 0);
}

ReportSection scenarioSection(const ScenarioDocument& doc, const std::optional<PredictCommand>& command)
{
    const Scenario& s = doc.scenario;
    ReportSection out { "Scenario", {} };
    const auto params = countParameters(s.model);
    std::string modelNote = s.model.source;
    out.rows.push_back({ "Model", s.model.displayName(), modelNote });
    out.rows.push_back({ "Parameters", formatParameters(double(params.total)),
        s.model.isMoe() ? "active per token: " + formatParameters(double(params.active)) : "" });
    const auto peak = s.cluster.hardware.mfuPeak();
    out.rows.push_back({ "Hardware", std::to_string(s.cluster.gpuCount) + " x " + s.cluster.hardware.name,
        peak ? "BF16 dense peak " + formatTflops(*peak) + " per GPU" : "" });
    out.rows.push_back({ "Sequence length", count(static_cast<double>(s.workload.seqLen)) + " tokens", "" });
    out.rows.push_back({ "Global batch",
        s.workload.globalBatchTokens > 0 ? count(static_cast<double>(s.workload.globalBatchTokens)) + " tokens"
                                         : "one micro-batch per data-parallel rank",
        "micro-batch " + std::to_string(s.workload.microBatch) });
    out.rows.push_back({ "Precision", std::string(trainingPrecisionLabel(s.precision)), "" });
    out.rows.push_back({ "Parallelism", parallelismSummary(s.parallelism), "" });
    out.rows.push_back(
        { "Activation checkpointing", std::string(activationCheckpointingKey(s.activationCheckpointing)), "" });
    // Eager or compiled changes the memory-bound time the prediction charges (docs/cost-model.md): said beside it.
    out.rows.push_back({ "Execution", s.flags.compiled ? "compiled (torch.compile)" : "eager (no torch.compile)",
        "attention kernel: " + attentionKernelLabel(s.flags.attentionKernel) });
    out.rows.push_back({ "MFU formula", std::string(flopFormulaLabel(s.mfuFormula)), "" });
    // A preset with no published price (MI350X, MI250X, ...) prices nothing: "$0.00" would read as a free GPU.
    if (const double price = s.effectivePricePerGpuHourUsd(); price > 0)
        out.rows.push_back({ "Price", "$" + formatNumber(price, 2) + " per GPU-hour",
            s.pricePerGpuHourUsd ? "set in the scenario" : "the preset's typical price" });
    else
        out.rows.push_back({ "Price", "none",
            "the " + s.cluster.hardware.id
                + " preset states no price; set price_per_gpu_hour_usd in the scenario to cost the job" });
    for (size_t i = 0; i < doc.tracePaths.size(); ++i)
        out.rows.push_back({ i == 0 ? "Traces" : "", doc.tracePaths[i], "" });
    for (size_t i = 0; i < doc.baselineTracePaths.size(); ++i)
        out.rows.push_back({ i == 0 ? "Baseline traces" : "", doc.baselineTracePaths[i], "" });
    for (size_t i = 0; i < doc.trainingLogPaths.size(); ++i)
        out.rows.push_back({ i == 0 ? "Training logs" : "", doc.trainingLogPaths[i], "" });
    if (command)
        out.rows.push_back(command->stated()
                ? ReportRow { "Command", shellCommandLine(command->arguments),
                    "the scenario as the command line states it" }
                : ReportRow { "Command", "none", "no mfu-explorer predict command states it: " + command->unstatable });
    return out;
}

ReportSection flopsSection(const Scenario& s, const FlopsPerToken& f)
{
    ReportSection out { "FLOP per token (training = 3 x forward)", {} };
    for (const FlopFormula formula : kAllFlopFormulas) {
        const auto v = f.get(formula);
        if (!v)
            continue;
        // The names people read (6N, PaLM, per-component), never the file format's keys.
        std::string note = formula == scenarioFlopFormula(s) ? "the scenario's MFU formula" : "";
        if (formula == FlopFormula::PaLM && f.perLayer && *f.perLayer < *v * 0.999)
            note += std::string(note.empty() ? "" : "; ")
                + "as a report using PaLM would count it: full attention on every layer";
        out.rows.push_back({ std::string(flopFormulaLabel(formula)), formatGflop(*v), note });
    }
    return out;
}

ReportSection measuredSection(const MfuResult& m)
{
    return { "Measured",
        { { "Throughput", formatNumber(m.tokensPerSecPerGpu, 0) + " tokens/s per GPU",
              formatNumber(m.tokensPerSecCluster, 0) + " tokens/s for the cluster" },
            { "Achieved", impossibleMfu(m) ? formatMeasuredTflops(m) : formatTflops(m.achievedFlopsPerGpu) + " per GPU",
                "FLOP/token x tokens/s per GPU" },
            // Above 100% no GPU can be: said beside the figure, as the Calculator and calc say it.
            { "MFU", formatMeasuredMfu(m.mfu, m.mfuCeiling),
                impossibleMfuWarning(m).value_or("achieved / BF16 dense peak " + formatTflops(m.peakFlopsPerGpu)) },
            { "HFU", formatMeasuredMfu(m.hfu, m.mfuCeiling),
                m.hfu > m.mfuCeiling ? "above what the GPU can compute: the inputs describe no single run"
                                     : "counting activation recomputation" } } };
}

ReportSection predictedSection(const StepPrediction& p)
{
    ReportSection out { "Predicted by the cost model",
        { { "Step time", formatMilliseconds(p.stepTimeSeconds),
              // Micro-steps (gradient accumulation), not the micro-batch's size: "1 micro-batch per rank" beside a
              // micro-batch of 8 sequences read as a contradiction.
              std::to_string(p.gradAccumSteps) + (p.gradAccumSteps == 1 ? " micro-step" : " micro-steps")
                  + " per rank (gradient accumulation), " + count(p.tokensPerStep) + " tokens per step" },
            { "Throughput", formatNumber(p.tokensPerSecPerGpu, 0) + " tokens/s per GPU",
                formatNumber(p.tokensPerSec, 0) + " tokens/s for the cluster" },
            { "Achieved", formatTflops(p.tflopsPerGpu * 1e12) + " per GPU", "" }, { "MFU", formatPercent(p.mfu), "" },
            { "HFU", formatPercent(p.hfu), "" },
            { "Memory per GPU", formatGiB(p.memory.total()),
                (p.fits ? "fits in " : "does NOT fit in ") + formatGiB(p.memoryCapacityBytes) },
            { "Bottleneck", bottleneckSentence(p), "" } } };
    const TimeBreakdown& t = p.time;
    out.rows.push_back({ "Matmuls", formatMilliseconds(t.matmul), "" });
    out.rows.push_back({ "Attention", formatMilliseconds(t.attention), "" });
    out.rows.push_back({ "Memory-bound", formatMilliseconds(t.memoryBound), "norms, elementwise, loss, optimizer" });
    out.rows.push_back({ "Recompute", formatMilliseconds(t.recompute), "" });
    for (const CommKind k : kAllCommKinds)
        if (t.comm(k) > 0)
            out.rows.push_back({ "Exposed " + std::string(commKindLabel(k)), formatMilliseconds(t.comm(k)), "" });
    out.rows.push_back({ "Pipeline bubble", formatMilliseconds(t.pipelineBubble), "" });
    out.rows.push_back({ "Overhead", formatMilliseconds(t.overhead), "launches, host work, per-step costs" });
    return out;
}

std::vector<ReportSection> costSections(const ScenarioCost& c)
{
    const JobCost& j = c.job;
    ReportSection job { "Cost of the job",
        { { "MFU", formatPercent(c.baselineMfu), std::string(mfuOriginLabel(c.baselineOrigin)) },
            { "Tokens", j.tokens ? formatNumber(*j.tokens / 1e9, 1) + " B" : "-",
                formatGflop(c.flopsPerToken) + " per token" },
            { "GPU-hours", count(j.gpuHours), "" }, { "Wall-clock", days(j.wallClockSeconds), "" },
            { "Cost", usd(j.costUsd), "GPU-hours x $" + formatNumber(c.rate.pricePerGpuHourUsd, 2) } } };
    if (j.energyKwh)
        job.rows.push_back({ "Energy", count(*j.energyKwh) + " kWh", "GPU boards only, before PUE" });
    std::vector<ReportSection> out { job };
    if (!c.savings)
        return out;
    const MfuSavings& s = *c.savings;
    const auto& b = s.fixedBudget;
    const auto& w = s.fixedWork;
    // A target below the baseline is a loss: the rows say so with positive amounts, as the Cost panel does, never
    // "$-18,960" or "+-122.6 B tokens".
    const bool loss = s.uplift.targetMfu < s.uplift.baselineMfu;
    const double sign = loss ? -1.0 : 1.0;
    const std::string more = loss ? " more" : "";
    std::string tokens;
    if (b.extraTokens)
        tokens = (loss ? "-" : "+") + formatNumber(std::abs(*b.extraTokens) / 1e9, 1) + " B tokens";
    out.push_back({ (loss ? "Loss from " : "Savings from ") + formatPercent(s.uplift.baselineMfu)
            + (loss ? " down to " : " to ") + formatPercent(s.uplift.targetMfu) + " MFU",
        { { "Productive GPU-equivalents",
              formatGpuEquivalents(b.productiveGpuEquivalentsBaseline) + " -> "
                  + formatGpuEquivalents(b.productiveGpuEquivalentsTarget),
              "GPUs x MFU" },
            { loss ? "Lost (same GPU-hours)" : "Recovered (same GPU-hours)",
                formatGpuEquivalents(sign * b.gpuEquivalentsRecovered) + " GPU-equivalents",
                "worth " + usd(sign * b.recoveredValueUsd) },
            { loss ? "Less work (same GPU-hours)" : "More work (same GPU-hours)",
                formatNumber(b.workMultiplier, 2) + "x the tokens", tokens },
            { loss ? "Time lost (same tokens)" : "Time saved (same tokens)", formatPercent(sign * w.timeSavedFraction),
                days(w.target.wallClockSeconds) + " instead of " + days(w.baseline.wallClockSeconds) },
            { loss ? "Loss (same tokens)" : "Saved (same tokens)", usd(sign * w.costSavedUsd) + more,
                count(sign * w.gpuHoursSaved) + " GPU-hours" + more } } });
    return out;
}

// The calibrated prediction after the uncalibrated one, or a note saying why the calibration does not describe the
// scenario. The extrapolated time is trusted as far as the published runs' band (errorBandFor's narrowest without the
// validation table), as the Predict panel and `predict --calibration` trust it.
void addCalibration(
    ReportFigures& out, const Scenario& s, const ReportCalibration& calibration, const ErrorBandModel* errorBands)
{
    const ErrorBand band = errorBandFor(s, *out.predicted, errorBands ? *errorBands : ErrorBandModel {});
    const double bandHalfWidth = relativeStepBandHalfWidth(band, *out.predicted);
    try {
        out.calibrated = calibratedPrediction(s, calibration.calibration, *out.predicted, bandHalfWidth);
        out.sections.push_back(calibrationSection(*out.calibrated, calibration));
    } catch (const InputError& e) {
        out.notes.push_back("Calibration (" + calibration.source + "): not for this scenario: " + e.what());
    }
}

} // namespace

std::string parallelismSummary(const Parallelism& p)
{
    static const char* schedules[] = { "1F1B", "interleaved 1F1B", "zero bubble" };
    std::string out = "TP " + std::to_string(p.tp) + (p.tp > 1 && p.sequenceParallel ? " (SP)" : "");
    out += " x PP " + std::to_string(p.pp);
    if (p.pp > 1)
        out += std::string(" (") + schedules[static_cast<int>(p.schedule)] + ", " + std::to_string(p.virtualStages)
            + " virtual)";
    out += " x CP " + std::to_string(p.cp) + ", EP " + std::to_string(p.ep) + ", HSDP replicas "
        + std::to_string(p.hsdpReplicas);
    return out;
}

namespace {

// The report's slow stages (the planner, then each sweep) as parts of one progress, and the cancel check after each.
struct ReportStages {
    const ReportOptions& options;

    std::function<void(double)> part(double from, double to) const
    {
        if (!options.progress)
            return {};
        // Never past `to`: 0.3 + 0.55 x 1 is 0.8500000000000001, ahead of the next part's 0.85 start.
        return [&report = options.progress, from, to](double f) { report(std::min(to, from + (to - from) * f)); };
    }
    void stopWhenCancelled() const
    {
        if (options.cancel && options.cancel->load())
            throw trace::Cancelled();
    }
};

} // namespace

void setAsideNonFiniteFigures(ReportFigures& out)
{
    for (auto& section : out.sections)
        for (auto& row : section.rows)
            for (std::string* text : { &row.value, &row.note })
                if (const auto figure = nonFiniteFigure(*text)) {
                    out.notes.push_back(section.title + ", " + row.label + ": not a finite number (" + *figure
                        + "): an input is beyond any real job.");
                    *text = "-";
                }
}

ReportFigures reportFigures(const ScenarioDocument& doc, const ReportOptions& options)
{
    const Scenario& s = doc.scenario;
    const ReportStages stage { options };
    ReportFigures out;
    out.sections.push_back(scenarioSection(doc, options.predictCommand));
    out.flopsPerToken = scenarioFlopCounts(s); // packed documents counted per document, as everywhere
    out.sections.push_back(flopsSection(s, out.flopsPerToken));

    if (s.measuredThroughput) {
        try {
            out.measured = scenarioMeasuredMfu(s);
            out.sections.push_back(measuredSection(*out.measured));
        } catch (const InputError& e) {
            out.notes.push_back(std::string("Measured MFU: ") + e.what());
        }
        std::string unavailable;
        if (auto diagnosis = diagnosisSection(s, options.knownHardware, std::nullopt, &unavailable))
            out.sections.push_back(std::move(*diagnosis));
        else
            out.notes.push_back("Diagnosis: " + unavailable);
    } else {
        out.notes.push_back("Measured MFU: no measured throughput in the scenario.");
    }
    try {
        out.predicted = evaluate(s);
        out.sections.push_back(predictedSection(*out.predicted));
    } catch (const InputError& e) {
        // The cost model's errors already start "cost model: "; the note says it once.
        std::string why = e.what();
        if (why.rfind("cost model: ", 0) == 0)
            why.erase(0, std::string_view("cost model: ").size());
        out.notes.push_back("Cost model: " + why);
    }
    if (options.calibration && out.predicted)
        addCalibration(out, s, *options.calibration, options.errorBands);
    if (options.plan) {
        try {
            PlannerOptions planner;
            planner.topN = 1;
            // Ranked by the rule `plan` and the window's planner use, so the report's best is their #1.
            if (options.errorBands)
                planner.tieTolerance = plannerTieTolerance(s, *options.errorBands);
            // Compared at the scenario's own batch, so the best and the current configuration do the same work.
            Scenario atBatch = s;
            if (atBatch.workload.globalBatchTokens <= 0 && out.predicted)
                atBatch.workload.globalBatchTokens = static_cast<int64_t>(out.predicted->tokensPerStep);
            const PlanResult plan = planConfigurations(atBatch, planner, stage.part(0.0, 0.1), options.cancel);
            stage.stopWhenCancelled();
            if (plan.configs.empty()) {
                out.notes.push_back("Planner, " + std::to_string(s.cluster.gpuCount) + " x " + s.cluster.hardware.id
                    + ": " + whyNothingPlanned(plan) + ".");
            } else {
                out.bestConfig = plan.configs.front();
                out.sections.push_back(plannerSection(*out.bestConfig, s, out.predicted, plan));
                out.sections.back().rows.push_back({ "Ranking", "", plannerRankingRule(planner.tieTolerance) });
            }
        } catch (const InputError& e) {
            out.notes.push_back(std::string("Planner: ") + e.what());
        }
    }
    if (options.sweeps && out.predicted) {
        // The Predict panel's sweeps, from the same core call as the panel and `sweep`: this configuration and the
        // planner's best at each point, each with its own band.
        // The network's, when the run crosses scale-up domains: inside one, the network carries none of its traffic
        // and the chart would be a flat line.
        std::vector<SweepAxis> axes { SweepAxis::SeqLen, SweepAxis::GpuCount };
        if (crossesScaleUpDomains(s))
            axes.push_back(SweepAxis::Network);
        for (SweepAxis axis : axes) {
            try {
                // The GPU-count sweep plans up to 16,384 GPUs: most of the report's time.
                const auto progress = axis == SweepAxis::SeqLen ? stage.part(0.1, 0.3)
                    : axis == SweepAxis::GpuCount               ? stage.part(0.3, 0.85)
                                                                : stage.part(0.85, 0.95);
                out.sweeps.push_back(scenarioSweep(s, axis, options.errorBands, {}, true, progress, options.cancel));
                stage.stopWhenCancelled();
                if (out.calibrated)
                    out.calibratedSweepMfu.push_back(
                        calibratedSweepMfu(s, out.sweeps.back(), options.calibration->calibration));
            } catch (const InputError& e) {
                out.notes.push_back("Sweep over " + std::string(sweepAxisKey(axis)) + ": " + e.what());
            }
        }
    }
    if (options.traceRules && !doc.tracePaths.empty()) {
        try {
            out.trace = traceFigures(doc, *options.traceRules, options.knownHardware);
            out.sections.push_back(traceSection(*out.trace));
            for (auto section : { traceWorkSection(*out.trace), criticalPathSection(*out.trace),
                     baselineComparisonSection(*out.trace) })
                if (section)
                    out.sections.push_back(std::move(*section));
        } catch (const InputError& e) {
            out.notes.push_back(std::string("Trace breakdown: ") + e.what());
        }
    }
    for (const std::string& path : doc.trainingLogPaths) {
        try {
            out.sections.push_back(trainingLogSection(path, s, options.knownHardware));
        } catch (const InputError& e) {
            out.notes.push_back(std::string("Training log: ") + e.what());
        }
    }
    try {
        // A configuration that does not fit runs no job: its MFU prices nothing (scenarioCost says why).
        // A calibration that describes the scenario is the better prediction of the job: the Calibrated section
        // above shows it, and the job is costed at it.
        std::optional<PredictedMfu> predicted;
        if (out.predicted)
            predicted = !out.predicted->fits ? PredictedMfu(out.predicted->mfu,
                            "the scenario's configuration does not fit in memory (" + memoryUseText(*out.predicted)
                                + " per GPU)")
                : out.calibrated             ? PredictedMfu::calibratedToTrace(out.calibrated->calibrated.mfu)
                                             : PredictedMfu(out.predicted->mfu);
        out.cost = scenarioCost(doc, out.measured ? std::optional(out.measured->mfu) : std::nullopt, predicted);
        if (out.cost->measuredSetAside)
            out.notes.push_back(std::string(kCostNotePrefix) + *out.cost->measuredSetAside + ".");
        for (auto& section : costSections(*out.cost))
            out.sections.push_back(std::move(section));
    } catch (const InputError& e) {
        out.notes.push_back(std::string(kCostNotePrefix) + e.what());
    }
    setAsideNonFiniteFigures(out);
    if (options.progress)
        options.progress(1.0);
    return out;
}

} // namespace mfu
