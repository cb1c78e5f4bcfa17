#include "core/costmodel/validation_report.h"

#include <cmath>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "core/costmodel/error_band.h"

namespace mfu {

namespace {
std::string format(const char* fmt, auto... args)
{
    char buffer[512];
    std::snprintf(buffer, sizeof buffer, fmt, args...);
    return buffer;
}

std::string layoutOf(const Scenario& s)
{
    const auto& p = s.parallelism;
    std::string t = std::to_string(s.cluster.gpuCount) + "x " + s.cluster.hardware.id;
    if (p.tp > 1)
        t += " TP" + std::to_string(p.tp);
    if (p.pp > 1)
        t += " PP" + std::to_string(p.pp) + (p.virtualStages > 1 ? "v" + std::to_string(p.virtualStages) : "");
    if (p.cp > 1)
        t += " CP" + std::to_string(p.cp);
    if (p.ep > 1)
        t += " EP" + std::to_string(p.ep);
    return t;
}

// Where the predicted step goes, per part (seconds per step; the exposed communication by kind).
nlohmann::json timeBreakdownJson(const TimeBreakdown& t)
{
    nlohmann::json out = { { "matmul", t.matmul }, { "attention", t.attention }, { "memory_bound", t.memoryBound },
        { "recompute", t.recompute }, { "pipeline_bubble", t.pipelineBubble }, { "overhead", t.overhead } };
    for (CommKind k : kAllCommKinds)
        out[std::string(commKindKey(k))] = t.comm(k);
    return out;
}

nlohmann::json groupJson(const ValidationGroup& g)
{
    return { { "axis", g.axis }, { "group", g.name }, { "runs", g.runs }, { "mean_abs_error", g.meanAbsError },
        { "max_abs_error", g.maxAbsError }, { "mean_error", g.meanError }, { "max_error", g.maxError },
        { "min_error", g.minError } };
}
} // namespace

std::string validationReportText(const ValidationReport& r)
{
    std::string t = format("%-34s %-26s %6s %10s %10s %7s %6s %6s  %s\n", "run", "layout", "seq", "measured",
        "predicted", "error", "MFU", "pred.", "fits");
    t += format("%-34s %-26s %6s %10s %10s %7s %6s %6s\n", "", "", "", "tok/s/GPU", "tok/s/GPU", "", "meas.", "MFU");
    for (const ValidationRow& row : r.rows) {
        const ValidationRun& run = *row.run;
        t += format("%-34s %-26s %6lld %10.1f %10.1f %+6.1f%% %5.1f%% %5.1f%%  %s%s\n", run.id.c_str(),
            layoutOf(run.scenario).c_str(), static_cast<long long>(run.scenario.workload.seqLen),
            run.measuredTokensPerSecPerGpu, row.prediction.tokensPerSecPerGpu, 100 * row.error, 100 * row.measuredMfu,
            100 * row.prediction.mfu, row.prediction.fits ? "yes" : "NO", run.inSample ? "  (in sample)" : "");
    }
    // An FP8 or FP4 run's MFU against the BF16 peak passes 100% (MLPerf's NVFP4 405B on GB300: 147%); the column
    // says its basis, as predict's "MFU vs BF16 peak" line does.
    t += "MFU columns: against the GPU's dense BF16 peak, so an FP8 or FP4 run can pass 100% (predict also gives the "
         "MFU against the run's own precision's peak)\n";
    t += "\nError of the predicted tokens/s per GPU (> 0: the model is optimistic)\n";
    t += format("%-15s %-17s %5s %12s %10s %8s\n", "group by", "group", "runs", "mean |error|", "max |error|", "bias");
    const auto groupLine = [&](const ValidationGroup& g) {
        t += format("%-15s %-17s %5d %11.1f%% %9.1f%% %+7.1f%%\n", g.axis.c_str(), g.name.c_str(), g.runs,
            100 * g.meanAbsError, 100 * g.maxAbsError, 100 * g.meanError);
    };
    for (const char* axis : { "gpu", "architecture", "expert parallel", "sequence", "sample", "out of sample" })
        for (const ValidationGroup& g : r.groups)
            if (g.axis == axis)
                groupLine(g);
    groupLine(r.all);
    t += "\nOut of sample, by class (the error band widens on these)\n";
    t += format("%-21s %-27s %5s %12s %10s %8s\n", "class", "", "runs", "mean |error|", "max |error|", "bias");
    for (const ValidationGroup& g : r.outOfSampleByClass)
        t += format("%-21s %-27s %5d %11.1f%% %9.1f%% %+7.1f%%\n", g.axis.c_str(), g.name.c_str(), g.runs,
            100 * g.meanAbsError, 100 * g.maxAbsError, 100 * g.meanError);
    t += format(
        "\nOut-of-sample mean |error| %.1f%% (bound %.0f%%), MoE %.1f%% (bound %.0f%%, largest %.1f%%); all runs "
        "%.1f%%; %d of %zu published layouts predicted not to fit.\n",
        100 * r.outOfSample.meanAbsError, 100 * kValidationMeanErrorBound, 100 * r.outOfSampleMoe.meanAbsError,
        100 * kValidationMoeMeanErrorBound, 100 * r.outOfSampleMoe.maxAbsError, 100 * r.all.meanAbsError, r.notFitting,
        r.rows.size());
    size_t stated = 0;
    for (const ValidationRow& row : r.rows)
        stated += row.run->command.stated() ? 1 : 0;
    t += format("%zu of %zu runs are stated with predict's flags (validate --json gives each its command, or why no "
                "command states it).\n",
        stated, r.rows.size());
    return t;
}

nlohmann::json validationReportJson(const ValidationReport& r)
{
    nlohmann::json rows = nlohmann::json::array();
    const ErrorBandModel bands = errorBandModelFrom(r);
    int inBand = 0;
    for (const ValidationRow& row : r.rows) {
        const ValidationRun& run = *row.run;
        const ErrorBand band = errorBandFor(run.scenario, row.prediction, bands);
        const bool measuredInBand = run.measuredTokensPerSecPerGpu >= band.tokensPerSecPerGpuLow
            && run.measuredTokensPerSecPerGpu <= band.tokensPerSecPerGpuHigh;
        inBand += measuredInBand ? 1 : 0;
        rows.push_back({ { "id", run.id }, { "source", run.source }, { "assumed", run.assumed },
            { "in_sample", run.inSample }, { "layout", layoutOf(run.scenario) },
            { "seq_len", run.scenario.workload.seqLen }, { "measured_as", run.measuredAs },
            { "measured_tokens_per_sec_per_gpu", run.measuredTokensPerSecPerGpu },
            { "predicted_tokens_per_sec_per_gpu", row.prediction.tokensPerSecPerGpu }, { "error", row.error },
            { "measured_mfu", row.measuredMfu }, { "predicted_mfu", row.prediction.mfu },
            { "predicted_hfu", row.prediction.hfu }, { "fits", row.prediction.fits },
            { "architecture", architectureOf(run.scenario.model) },
            { "expert_parallel_span", expertParallelSpanOf(run.scenario) }, { "stated", run.stated },
            { "doubts", run.doubts }, { "memory_gib", row.prediction.memory.total() / (1024.0 * 1024 * 1024) },
            { "predicted_step_time_s", row.prediction.stepTimeSeconds },
            { "predicted_time_breakdown_s", timeBreakdownJson(row.prediction.time) }, { "in_band", measuredInBand },
            { "command",
                run.command.stated() ? nlohmann::json(shellCommandLine(run.command.arguments)) : nlohmann::json() },
            { "command_unstatable", run.command.unstatable } });
    }
    nlohmann::json groups = nlohmann::json::array();
    for (const ValidationGroup& g : r.groups)
        groups.push_back(groupJson(g));
    nlohmann::json byClass = nlohmann::json::array();
    for (const ValidationGroup& g : r.outOfSampleByClass)
        byClass.push_back(groupJson(g));
    return { { "runs", rows }, { "groups", groups }, { "all", groupJson(r.all) },
        { "out_of_sample", groupJson(r.outOfSample) }, { "out_of_sample_moe", groupJson(r.outOfSampleMoe) },
        { "mean_abs_error_bound", kValidationMeanErrorBound },
        { "moe_mean_abs_error_bound", kValidationMoeMeanErrorBound }, { "not_fitting", r.notFitting },
        { "out_of_sample_by_class", byClass }, { "runs_in_band", inBand } };
}

} // namespace mfu
