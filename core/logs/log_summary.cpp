// summarizeLog (core/logs/training_log.h): medians of a training log's steps after warm-up.
#include "core/logs/training_log.h"

#include <algorithm>
#include <cmath>

namespace mfu::trace {

namespace {

std::optional<double> median(std::vector<double> v)
{
    if (v.empty())
        return std::nullopt;
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

} // namespace

LogSummary summarizeLog(const TrainingLog& log, size_t warmupSteps)
{
    LogSummary s;
    std::vector<double> times, tps, tflops, mfu, peak, fpt;
    const size_t first = std::min(warmupSteps, log.steps.empty() ? 0 : log.steps.size() - 1);
    s.warmupStepsLeftOut = first;
    // A ramp-up's steps run other batches: their times are not the run's, so the medians keep the last step's batch.
    if (!log.steps.empty())
        s.globalBatchSamples = log.steps.back().globalBatchSamples;
    for (size_t i = first; i < log.steps.size(); ++i) {
        const LogStep& st = log.steps[i];
        if (s.globalBatchSamples && st.globalBatchSamples && *st.globalBatchSamples != *s.globalBatchSamples) {
            ++s.otherBatchStepsLeftOut;
            continue;
        }
        ++s.stepsUsed;
        const std::pair<const std::optional<double>*, std::vector<double>*> pairs[]
            = { { &st.stepSeconds, &times }, { &st.tokensPerSec, &tps }, { &st.tflops, &tflops }, { &st.mfu, &mfu },
                  { &st.peakTflops, &peak }, { &st.flopsPerToken, &fpt } };
        for (const auto& [value, list] : pairs)
            if (*value && **value > 0 && std::isfinite(**value))
                list->push_back(**value);
            else if (*value)
                ++s.zeroFiguresLeftOut;
    }
    s.medianStepSeconds = median(times);
    s.medianTokensPerSec = median(tps);
    s.medianTflops = median(tflops);
    s.medianMfu = median(mfu);
    s.medianPeakTflops = median(peak);
    s.medianFlopsPerToken = median(fpt);
    return s;
}

} // namespace mfu::trace
