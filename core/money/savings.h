#pragma once
// What an MFU uplift (baseline -> target) is worth, in the two readings the VECTOR Labs article uses. Both start from
// the job as it runs today at the baseline MFU (a token budget or a reservation of N GPUs for D days,
// core/money/job_cost.h):
//
// Fixed work: the same tokens on the same GPUs finish sooner. Time and GPU-hours scale by baseline/target, so
//   time_saved_fraction = 1 - baseline/target (40% -> 60%: a third sooner) and dollars saved = cost x that fraction.
// Fixed budget: the same GPU-hours do more. A "productive GPU-equivalent" is a GPU running at 100% MFU, so N GPUs at
//   MFU m are worth N x m of them; the uplift recovers N x (target - baseline) GPU-equivalents, valued at the price
//   of a GPU-hour over the same hours (= cost x (target - baseline)), and trains target/baseline times the tokens.
//
// The two dollar figures answer different questions and differ: for the VECTOR Labs job (256 H100, 90 days, $2.50) the
// fixed- work saving is $460,800 (a third of $1,382,400), the fixed-budget recovered value is $276,480 (20% of it).
#include <optional>
#include <string>
#include <vector>

#include "core/money/job_cost.h"

namespace mfu {

struct MfuUplift {
    double baselineMfu = 0;
    double targetMfu = 0;
};

struct FixedWorkSavings {
    JobCost baseline;
    JobCost target; // the same work at the target MFU
    double gpuHoursSaved = 0;
    double wallClockSecondsSaved = 0;
    double costSavedUsd = 0;
    std::optional<double> energySavedKwh;
    double timeSavedFraction = 0; // 1 - baseline/target; negative when the "target" is lower

    double wallClockDaysSaved() const;
};

struct FixedBudgetGain {
    double gpuHours = 0; // unchanged
    double productiveGpuEquivalentsBaseline = 0; // GPUs x baseline MFU
    double productiveGpuEquivalentsTarget = 0; // GPUs x target MFU
    double gpuEquivalentsRecovered = 0;
    double recoveredValueUsd = 0; // recovered GPU-equivalents x wall-clock hours x price per GPU-hour
    double workMultiplier = 0; // target / baseline: tokens trained in the same GPU-hours
    std::optional<double> baselineTokens; // when the job states its tokens
    std::optional<double> targetTokens;
    std::optional<double> extraTokens;
};

struct MfuSavings {
    MfuUplift uplift;
    FixedWorkSavings fixedWork;
    FixedBudgetGain fixedBudget;
};

// baselineJob: the job at uplift.baselineMfu on `rate` (if it carries an MFU, it must be that one). Throws InputError
// for an MFU outside (0, 1] or a job/rate that is not positive.
MfuSavings mfuSavings(const JobCost& baselineJob, const MfuUplift& uplift, const ClusterRate& rate);

// GPU-equivalents as every surface prints them (the Cost panel, the report): to at least two significant digits,
// so a small uplift on a few GPUs never reads "0.0 GPU-equivalents, worth $95" ("51.2", "0.022", "0").
std::string formatGpuEquivalents(double gpuEquivalents);

// Fixed-work cost and time of a job at other MFUs, for the "cost and time vs MFU" chart: the job's work in peak
// GPU-hours (GPU-hours x MFU) is constant, so GPU-hours(m) = that / m.
struct CostAtMfu {
    double mfu = 0;
    JobCost cost;
};
std::vector<CostAtMfu> costVsMfu(
    const JobCost& job, double jobMfu, const ClusterRate& rate, double mfuFrom, double mfuTo, int points);

} // namespace mfu
