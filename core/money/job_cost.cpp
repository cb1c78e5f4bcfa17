#include "core/money/job_cost.h"

#include <cmath>
#include <sstream>

#include "core/errors.h"
#include "core/job_ceilings.h"
#include "core/units.h"

namespace mfu {

void requirePositive(double value, const char* what)
{
    if (!std::isfinite(value) || value <= 0) {
        std::ostringstream msg;
        msg << what << " must be a positive number (got " << value << ")";
        throw InputError(msg.str());
    }
}

void requireMfu(double mfu, const char* what)
{
    if (!std::isfinite(mfu) || mfu <= 0 || mfu > 1) {
        std::ostringstream msg;
        msg << what << " must be a fraction in (0, 1] (got " << mfu << ")";
        throw InputError(msg.str());
    }
}

void requireRate(const ClusterRate& rate)
{
    if (rate.gpuCount <= 0)
        throw InputError("GPU count must be positive (got " + std::to_string(rate.gpuCount) + ")");
    requirePositive(rate.peakFlopsPerGpu, "peak FLOP/s per GPU");
    requirePositive(rate.pricePerGpuHourUsd, "price per GPU-hour");
    if (rate.powerWatts)
        requirePositive(*rate.powerWatts, "power per GPU (W)");
}

ClusterRate clusterRate(const HardwareSpec& hardware, int gpuCount, double pricePerGpuHourUsd)
{
    const auto peak = hardware.mfuPeak();
    if (!peak)
        throw InputError("hardware '" + hardware.id + "' has no dense BF16 peak to measure MFU against");
    ClusterRate rate { gpuCount, *peak, pricePerGpuHourUsd, hardware.powerWatts };
    requireRate(rate);
    return rate;
}

double JobCost::wallClockDays() const
{
    return wallClockSeconds / kSecondsPerDay;
}
double JobCost::wallClockHours() const
{
    return wallClockSeconds / kSecondsPerHour;
}

namespace {

JobCost fromGpuSeconds(double gpuSeconds, const ClusterRate& rate)
{
    JobCost cost;
    cost.gpuCount = rate.gpuCount;
    cost.gpuHours = gpuSeconds / kSecondsPerHour;
    cost.wallClockSeconds = gpuSeconds / rate.gpuCount;
    cost.costUsd = cost.gpuHours * rate.pricePerGpuHourUsd;
    if (rate.powerWatts)
        cost.energyKwh = cost.gpuHours * *rate.powerWatts / kKilo;
    return cost;
}

} // namespace

namespace {

// `what` ("a token budget of 2e+18") past the tokens any real training job has (core/job_ceilings.h).
void requireWithinTrainingTokens(double tokens, const std::string& what)
{
    if (tokens <= ceiling::kTrainingTokens)
        return;
    std::ostringstream msg;
    msg << what << " is beyond any real job (at most " << ceiling::kTrainingTokens << " tokens of training)";
    throw InputError(msg.str());
}

std::string figure(double value)
{
    std::ostringstream text;
    text << value;
    return text.str();
}

} // namespace

JobCost costForTokens(double tokens, double flopsPerToken, double mfu, const ClusterRate& rate)
{
    requirePositive(tokens, "token budget");
    requireWithinTrainingTokens(tokens, "a token budget of " + figure(tokens));
    requirePositive(flopsPerToken, "FLOP per token");
    requireMfu(mfu, "MFU");
    requireRate(rate);
    const double productiveFlops = tokens * flopsPerToken;
    JobCost cost = fromGpuSeconds(productiveFlops / (mfu * rate.peakFlopsPerGpu), rate);
    cost.mfu = mfu;
    cost.tokens = tokens;
    cost.productiveFlops = productiveFlops;
    return cost;
}

JobCost costForSteps(int64_t steps, double tokensPerStep, double flopsPerToken, double mfu, const ClusterRate& rate)
{
    if (steps <= 0)
        throw InputError("number of steps must be positive (got " + std::to_string(steps) + ")");
    requirePositive(tokensPerStep, "tokens per step");
    // Each factor can be within its own ceiling and their product past the job's: say which product it is.
    const double tokens = static_cast<double>(steps) * tokensPerStep;
    requireWithinTrainingTokens(tokens,
        std::to_string(steps) + " steps x " + figure(tokensPerStep) + " tokens a step = " + figure(tokens) + " tokens");
    return costForTokens(tokens, flopsPerToken, mfu, rate);
}

JobCost costForReservation(double days, const ClusterRate& rate)
{
    requirePositive(days, "days");
    requireRate(rate);
    return fromGpuSeconds(days * kSecondsPerDay * rate.gpuCount, rate);
}

JobCost costForReservation(double days, const ClusterRate& rate, double flopsPerToken, double mfu)
{
    requirePositive(flopsPerToken, "FLOP per token");
    requireMfu(mfu, "MFU");
    JobCost cost = costForReservation(days, rate);
    const double gpuSeconds = cost.gpuHours * kSecondsPerHour;
    cost.mfu = mfu;
    cost.productiveFlops = gpuSeconds * mfu * rate.peakFlopsPerGpu;
    cost.tokens = *cost.productiveFlops / flopsPerToken;
    return cost;
}

} // namespace mfu
