#include "core/report/report_figures.h"

#include "core/costmodel/cost_model.h"
#include "core/errors.h"
#include "core/model/param_count.h"
#include "core/number_format.h"
#include "core/scenario/scenario_facts.h"
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
std::string gib(double bytes)
{
    return formatNumber(bytes / kGiB, 1) + " GiB";
}
std::string ms(double seconds)
{
    return formatNumber(seconds * 1e3, 1) + " ms";
}

std::string paramsText(int64_t n)
{
    if (n >= 1'000'000'000)
        return formatNumber(static_cast<double>(n) / 1e9, 2) + " B";
    return formatNumber(static_cast<double>(n) / 1e6, 1) + " M";
}

ReportSection scenarioSection(const ScenarioDocument& doc)
{
    const Scenario& s = doc.scenario;
    ReportSection out { "Scenario", {} };
    const auto params = countParameters(s.model);
    std::string modelNote = s.model.source;
    out.rows.push_back({ "Model", s.model.name.empty() ? s.model.id : s.model.name, modelNote });
    out.rows.push_back({ "Parameters", paramsText(params.total),
        s.model.isMoe() ? "active per token: " + paramsText(params.active) : "" });
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
    out.rows.push_back({ "MFU formula", std::string(flopFormulaLabel(s.mfuFormula)), "" });
    const double price = s.effectivePricePerGpuHourUsd();
    out.rows.push_back({ "Price", "$" + formatNumber(price, 2) + " per GPU-hour",
        s.pricePerGpuHourUsd ? "set in the scenario" : "the preset's typical price" });
    for (size_t i = 0; i < doc.tracePaths.size(); ++i)
        out.rows.push_back({ i == 0 ? "Traces" : "", doc.tracePaths[i], "" });
    for (size_t i = 0; i < doc.baselineTracePaths.size(); ++i)
        out.rows.push_back({ i == 0 ? "Baseline traces" : "", doc.baselineTracePaths[i], "" });
    for (size_t i = 0; i < doc.trainingLogPaths.size(); ++i)
        out.rows.push_back({ i == 0 ? "Training logs" : "", doc.trainingLogPaths[i], "" });
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
        out.rows.push_back({ std::string(flopFormulaLabel(formula)), formatGflop(*v),
            formula == s.mfuFormula ? "the scenario's MFU formula" : "" });
    }
    return out;
}

ReportSection measuredSection(const MfuResult& m)
{
    return { "Measured",
        { { "Throughput", formatNumber(m.tokensPerSecPerGpu, 0) + " tokens/s per GPU",
              formatNumber(m.tokensPerSecCluster, 0) + " tokens/s for the cluster" },
            { "Achieved", formatTflops(m.achievedFlopsPerGpu) + " per GPU", "FLOP/token x tokens/s per GPU" },
            { "MFU", formatPercent(m.mfu), "achieved / BF16 dense peak " + formatTflops(m.peakFlopsPerGpu) },
            { "HFU", formatPercent(m.hfu), "counting activation recomputation" } } };
}

ReportSection predictedSection(const StepPrediction& p)
{
    ReportSection out { "Predicted by the cost model",
        { { "Step time", ms(p.stepTimeSeconds),
              std::to_string(p.gradAccumSteps) + (p.gradAccumSteps == 1 ? " micro-batch" : " micro-batches")
                  + " per rank, " + count(p.tokensPerStep) + " tokens per step" },
            { "Throughput", formatNumber(p.tokensPerSecPerGpu, 0) + " tokens/s per GPU",
                formatNumber(p.tokensPerSec, 0) + " tokens/s for the cluster" },
            { "Achieved", formatNumber(p.tflopsPerGpu, 1) + " TFLOPS per GPU", "" },
            { "MFU", formatPercent(p.mfu), "" }, { "HFU", formatPercent(p.hfu), "" },
            { "Memory per GPU", gib(p.memory.total()),
                (p.fits ? "fits in " : "does NOT fit in ") + gib(p.memoryCapacityBytes) },
            { "Bottleneck", bottleneckSentence(p), "" } } };
    const TimeBreakdown& t = p.time;
    out.rows.push_back({ "Matmuls", ms(t.matmul), "" });
    out.rows.push_back({ "Attention", ms(t.attention), "" });
    out.rows.push_back({ "Memory-bound", ms(t.memoryBound), "norms, elementwise, loss, optimizer" });
    out.rows.push_back({ "Recompute", ms(t.recompute), "" });
    for (const CommKind k : kAllCommKinds)
        if (t.comm(k) > 0)
            out.rows.push_back({ "Exposed " + std::string(commKindLabel(k)), ms(t.comm(k)), "" });
    out.rows.push_back({ "Pipeline bubble", ms(t.pipelineBubble), "" });
    out.rows.push_back({ "Overhead", ms(t.overhead), "launches, host work, per-step costs" });
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
    out.push_back(
        { "Savings from " + formatPercent(s.uplift.baselineMfu) + " to " + formatPercent(s.uplift.targetMfu) + " MFU",
            { { "Productive GPU-equivalents",
                  formatNumber(b.productiveGpuEquivalentsBaseline, 1) + " -> "
                      + formatNumber(b.productiveGpuEquivalentsTarget, 1),
                  "GPUs x MFU" },
                { "Recovered (same GPU-hours)", formatNumber(b.gpuEquivalentsRecovered, 1) + " GPU-equivalents",
                    "worth " + usd(b.recoveredValueUsd) },
                { "More work (same GPU-hours)", formatNumber(b.workMultiplier, 2) + "x the tokens",
                    b.extraTokens ? "+" + formatNumber(*b.extraTokens / 1e9, 1) + " B tokens" : "" },
                { "Time saved (same tokens)", formatPercent(w.timeSavedFraction),
                    days(w.target.wallClockSeconds) + " instead of " + days(w.baseline.wallClockSeconds) },
                { "Saved (same tokens)", usd(w.costSavedUsd), count(w.gpuHoursSaved) + " GPU-hours" } } });
    return out;
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

ReportFigures reportFigures(const ScenarioDocument& doc, const ReportOptions& options)
{
    const Scenario& s = doc.scenario;
    ReportFigures out;
    out.sections.push_back(scenarioSection(doc));
    out.flopsPerToken = countFlopsPerToken(s.model, s.workload.seqLen);
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
    if (options.plan) {
        try {
            PlannerOptions planner;
            planner.topN = 1;
            // Compared at the scenario's own batch, so the best and the current configuration do the same work.
            Scenario atBatch = s;
            if (atBatch.workload.globalBatchTokens <= 0 && out.predicted)
                atBatch.workload.globalBatchTokens = static_cast<int64_t>(out.predicted->tokensPerStep);
            const PlanResult plan = planConfigurations(atBatch, planner);
            if (plan.configs.empty()) {
                out.notes.push_back("Planner, " + std::to_string(s.cluster.gpuCount) + " x " + s.cluster.hardware.id
                    + ": " + whyNothingPlanned(plan) + ".");
            } else {
                out.bestConfig = plan.configs.front();
                out.sections.push_back(plannerSection(*out.bestConfig, s, out.predicted, plan));
            }
        } catch (const InputError& e) {
            out.notes.push_back(std::string("Planner: ") + e.what());
        }
    }
    if (options.traceRules && !doc.tracePaths.empty()) {
        try {
            out.trace = traceFigures(doc, *options.traceRules, out.predicted);
            out.sections.push_back(traceSection(*out.trace));
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
        out.cost = scenarioCost(doc, out.measured ? std::optional(out.measured->mfu) : std::nullopt,
            out.predicted ? std::optional(out.predicted->mfu) : std::nullopt);
        if (out.cost->measuredSetAside)
            out.notes.push_back("Cost: " + *out.cost->measuredSetAside + ".");
        for (auto& section : costSections(*out.cost))
            out.sections.push_back(std::move(section));
    } catch (const InputError& e) {
        out.notes.push_back(std::string("Cost: ") + e.what());
    }
    return out;
}

} // namespace mfu
