#include "core/money/savings.h"

#include <algorithm>
#include <cmath>

#include "core/errors.h"
#include "core/number_format.h"
#include "core/units.h"

namespace mfu {

std::string formatGpuEquivalents(double v)
{
    if (v == 0 || !std::isfinite(v))
        return formatNumber(v, 0);
    // One decimal from 1 up (51.2); below, as many as two significant digits need (0.50, 0.022).
    const int decimals = std::max(1, 1 - static_cast<int>(std::floor(std::log10(std::abs(v)))));
    return formatNumber(v, decimals);
}

double FixedWorkSavings::wallClockDaysSaved() const
{
    return wallClockSecondsSaved / kSecondsPerDay;
}

namespace {

// The same job with its GPU-hours scaled (fixed work at another MFU); tokens and FLOP stay.
JobCost scaledJob(const JobCost& job, double gpuHoursFactor, double newMfu, const ClusterRate& rate)
{
    JobCost scaled = job;
    scaled.gpuHours = job.gpuHours * gpuHoursFactor;
    scaled.wallClockSeconds = job.wallClockSeconds * gpuHoursFactor;
    scaled.costUsd = scaled.gpuHours * rate.pricePerGpuHourUsd;
    if (rate.powerWatts)
        scaled.energyKwh = scaled.gpuHours * *rate.powerWatts / kKilo;
    scaled.mfu = newMfu;
    return scaled;
}

void requireJob(const JobCost& job, const ClusterRate& rate, double jobMfu)
{
    requireRate(rate);
    requirePositive(job.gpuHours, "job GPU-hours");
    requirePositive(job.wallClockSeconds, "job wall-clock time");
    if (job.gpuCount != rate.gpuCount)
        throw InputError("job was costed on " + std::to_string(job.gpuCount) + " GPUs but the cluster has "
            + std::to_string(rate.gpuCount));
    if (job.mfu && std::abs(*job.mfu - jobMfu) > 1e-12)
        throw InputError(
            "job was costed at MFU " + std::to_string(*job.mfu) + ", not the baseline " + std::to_string(jobMfu));
}

} // namespace

MfuSavings mfuSavings(const JobCost& baselineJob, const MfuUplift& uplift, const ClusterRate& rate)
{
    requireMfu(uplift.baselineMfu, "baseline MFU");
    requireMfu(uplift.targetMfu, "target MFU");
    requireJob(baselineJob, rate, uplift.baselineMfu);
    const double ratio = uplift.baselineMfu / uplift.targetMfu; // time and GPU-hours factor for the same work

    MfuSavings s;
    s.uplift = uplift;

    FixedWorkSavings& work = s.fixedWork;
    work.baseline = baselineJob;
    work.baseline.mfu = uplift.baselineMfu;
    work.target = scaledJob(baselineJob, ratio, uplift.targetMfu, rate);
    work.gpuHoursSaved = work.baseline.gpuHours - work.target.gpuHours;
    work.wallClockSecondsSaved = work.baseline.wallClockSeconds - work.target.wallClockSeconds;
    work.costSavedUsd = work.baseline.costUsd - work.target.costUsd;
    if (work.baseline.energyKwh && work.target.energyKwh)
        work.energySavedKwh = *work.baseline.energyKwh - *work.target.energyKwh;
    work.timeSavedFraction = 1.0 - ratio;

    FixedBudgetGain& budget = s.fixedBudget;
    budget.gpuHours = baselineJob.gpuHours;
    budget.productiveGpuEquivalentsBaseline = rate.gpuCount * uplift.baselineMfu;
    budget.productiveGpuEquivalentsTarget = rate.gpuCount * uplift.targetMfu;
    budget.gpuEquivalentsRecovered = budget.productiveGpuEquivalentsTarget - budget.productiveGpuEquivalentsBaseline;
    budget.recoveredValueUsd = budget.gpuEquivalentsRecovered * baselineJob.wallClockHours() * rate.pricePerGpuHourUsd;
    budget.workMultiplier = uplift.targetMfu / uplift.baselineMfu;
    if (baselineJob.tokens) {
        budget.baselineTokens = baselineJob.tokens;
        budget.targetTokens = *baselineJob.tokens * budget.workMultiplier;
        budget.extraTokens = *budget.targetTokens - *budget.baselineTokens;
    }
    return s;
}

std::vector<CostAtMfu> costVsMfu(
    const JobCost& job, double jobMfu, const ClusterRate& rate, double mfuFrom, double mfuTo, int points)
{
    requireMfu(jobMfu, "job MFU");
    requireMfu(mfuFrom, "first MFU of the curve");
    requireMfu(mfuTo, "last MFU of the curve");
    requireJob(job, rate, jobMfu);
    if (points < 2)
        throw InputError("a cost curve needs at least 2 points (got " + std::to_string(points) + ")");
    std::vector<CostAtMfu> curve;
    curve.reserve(static_cast<size_t>(points));
    for (int i = 0; i < points; ++i) {
        const double m = mfuFrom + (mfuTo - mfuFrom) * i / (points - 1);
        curve.push_back({ m, scaledJob(job, jobMfu / m, m, rate) });
    }
    return curve;
}

} // namespace mfu
